#include "core/measure/suite_blocksparse.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "core/io/report.hpp"
#include "core/measure/progress.hpp"
#include "core/model/error.hpp"
#include "core/model/pattern.hpp"

namespace tileskip {

namespace {

ProblemSpec caseSpec(const BlocksparseShape& shape, const BlocksparseOptions& options) {
  ProblemSpec spec;
  spec.m = spec.n = spec.k = options.size;
  spec.generator = "blocks";
  spec.densityA = shape.densityA;
  spec.options.block = shape.block;
  if (shape.joint()) {
    spec.densityB = shape.densityB;
  } else {
    spec.generatorB = "uniform";
    spec.densityB = 1.0;
  }
  spec.seed = options.seed;
  spec.dtype = options.dtype;
  return spec;
}

}  // namespace

std::string BlocksparseShape::name() const {
  const std::string blocks = std::to_string(block) + "-blocks";
  if (!joint()) return "A " + fixed(densityA, 2) + ", " + blocks;
  return "A " + fixed(densityA, 2) + " & B " + fixed(densityB, 2) + ", " + blocks;
}

std::vector<BlocksparseShape> blocksparseShapes(const std::vector<int>& blocks) {
  std::vector<BlocksparseShape> shapes;
  for (int block : blocks) {
    for (double a : {0.5, 0.25, 0.1}) shapes.push_back({block, a, 1.0});
    for (double both : {0.5, 0.25}) shapes.push_back({block, both, both});
  }
  return shapes;
}

BlocksparseReport runBlocksparseSuite(const std::vector<Backend*>& backends, const BlocksparseOptions& options,
                                      const ProgressCallback& progress) {
  if (options.size < 1) throw InputError("--suite blocksparse needs a size of at least 1");
  for (int block : options.blocks) {
    if (block < 1) throw InputError("--suite blocksparse: a block edge must be positive, not " + std::to_string(block));
  }
  BlocksparseReport report = startCeilingSuite<BlocksparseReport>(backends, options, "blocksparse");
  const BenchOptions bench = ceilingBenchOptions(options);
  const std::vector<BlocksparseShape> shapes = blocksparseShapes(options.blocks);
  ProgressMeter meter(static_cast<int>(3 * shapes.size()), progress);  // the kernels, the ceiling, their own ceilings
  for (const BlocksparseShape& shape : shapes) {
    BlocksparseCase c;
    c.shape = shape;
    const ProblemSpec spec = caseSpec(shape, options);
    ProblemData data = generateProblem(spec);
    // The products the zeros leave, counted at the block edge: what a perfect skip computes.
    c.jointDensity = computeJointStats(buildAPattern(data.a, shape.block), buildBPattern(data.b, shape.block)).jointDensity;
    CeilingMeasurement m = measureAgainstCeiling(backends, spec, data, c.jointDensity, bench, "blocksparse: " + shape.name(), meter, progress);
    c.packedK = m.packedK;
    c.baseline = m.baseline;
    c.baselineMs = m.baselineMs;
    c.ceilingMs = m.ceilingMs;
    c.kernels = std::move(m.kernels);
    c.failures = std::move(m.failures);
    report.cases.push_back(std::move(c));
    for (BenchReport& run : m.runs) report.runs.push_back(std::move(run));
  }
  return report;
}

std::string formatBlocksparseTable(const BlocksparseReport& report) {
  std::ostringstream out;
  out << ceilingSuiteTableHead("blocksparse", report);
  out << "problem   M = N = K = " << report.options.size << ", " << dtypeName(report.options.dtype) << ", seed "
      << report.options.seed << "; median of " << report.options.repeat
      << " device-timed runs; every kernel verified first. speedup: over the vendor GEMM; ceiling: the vendor GEMM on "
         "the kept products packed (K' = K x joint density), and the fraction of it a kernel reaches; e2e: the kernel and "
         "its patterns (the 16-bit copies of the fp32 inputs, made once per problem, are the JSON's rounding_ms); "
         "static A: the same with A's pattern built once and kept, B's per call; of own: the fraction of its own ceiling, "
         "the dense kernel its loop is built on timed on the packed problem\n";
  for (const BlocksparseCase& c : report.cases) {
    out << "\n" << c.shape.name() << ": joint density " << fixed(c.jointDensity, 4) << ", K' = " << c.packedK;
    if (c.baselineMs) out << "; " << c.baseline << " " << fixed(*c.baselineMs, 4) << " ms";
    if (c.ceilingMs) out << ", ceiling " << fixed(*c.ceilingMs, 4) << " ms (" << fixed(*c.baselineMs / *c.ceilingMs, 2) << "x)";
    out << "\n";
    const std::vector<std::vector<std::string>> cells = ceilingKernelCells(c.kernels);
    out << alignColumns(cells, 3);
    for (const std::string& failure : c.failures) out << "  FAILED " << failure << "\n";
  }
  return out.str();
}

std::string formatBlocksparseJson(const BlocksparseReport& report) {
  auto optional = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json cases = nlohmann::json::array();
  for (const BlocksparseCase& c : report.cases) {
    cases.push_back({{"case", c.shape.name()},
                     {"block", c.shape.block},
                     {"density_a", c.shape.densityA},
                     {"density_b", c.shape.densityB},
                     {"joint_density", c.jointDensity},
                     {"packed_k", c.packedK},
                     {"baseline", c.baseline},
                     {"cublas_ms", c.baseline == "cublas" ? optional(c.baselineMs) : nlohmann::json(nullptr)},
                     {"baseline_ms", optional(c.baselineMs)},
                     {"ceiling_ms", optional(c.ceilingMs)},
                     {"kernels", ceilingKernelsJson(c.kernels)},
                     {"failures", c.failures}});
  }
  return ceilingSuiteJson(kBlocksparseSchema, "blocksparse", report, std::move(cases), report.runs);
}

int blocksparseExitCode(const BlocksparseReport& report) { return ceilingExitCode(report.runs); }

}  // namespace tileskip
