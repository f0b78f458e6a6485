#include "core/measure/suite_blocksparse.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "core/io/provenance.hpp"
#include "core/io/report.hpp"
#include "core/measure/auto_choice.hpp"
#include "core/measure/progress.hpp"
#include "core/model/error.hpp"
#include "core/model/pattern.hpp"

namespace tileskip {

namespace {

// The kernels a case times on a backend: those that take the dtype and are built to be fast (warp
// tiles or tensor cores), and the vendor's dense GEMM; auto's choice is added where it is another.
std::vector<const KernelInfo*> suiteKernels(Backend& backend, DType dtype) {
  std::vector<const KernelInfo*> kernels;
  for (const KernelInfo* k : backend.kernels()) {
    if (!backend.takes(*k, dtype)) continue;
    if (k->hasWarpTile() || k->usesTensorCores() || k->isVendorGemm()) kernels.push_back(k);
  }
  return kernels;
}

// The vendor's dense GEMM in the dtype, by the reports' preference (cuBLAS, else the host BLAS).
const KernelInfo* vendorGemm(const std::vector<Backend*>& backends, DType dtype, Backend** on) {
  for (std::string_view id : kBaselinePreference) {
    const KernelInfo& kernel = kernelInfo(id);
    for (Backend* backend : backends) {
      if (backend->implements(id) && backend->takes(kernel, dtype)) {
        *on = backend;
        return &kernel;
      }
    }
  }
  return nullptr;
}

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

std::string label(const std::string& backend, const std::string& kernel) { return backend + " " + kernel; }

// The dense kernel a skipping kernel's main loop is built on, on the same backend: the row that
// skips nothing with the same loop and thread mapping (S10's is K13, S11's to S13's K14; a
// compaction kernel's ring of gathered columns is K13's ring of K-blocks), where the backend has
// it for the dtype; null for a dense kernel or where there is none.
const KernelInfo* denseLoopOf(const Backend& backend, const KernelInfo& kernel, DType dtype) {
  if (!kernel.skips()) return nullptr;
  const MainLoop loop = kernel.structure.loop == MainLoop::GatherRing ? MainLoop::StageRing : kernel.structure.loop;
  for (const KernelInfo& row : kCatalogue) {
    if (row.skips() || row.isBaseline() || row.structure.loop != loop ||
        row.structure.mapping != kernel.structure.mapping) {
      continue;
    }
    if (backend.implements(row.id) && backend.takes(row, dtype)) return &row;
  }
  return nullptr;
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
  BlocksparseReport report;
  report.date = utcTimestamp();
  report.host = hostDescription();
  report.options = options;
  for (Backend* b : backends) report.devices.push_back(std::string(b->name()) + ": " + b->device().describe());
  const BenchOptions bench{.warmup = options.warmup, .repeat = options.repeat, .warmupMilliseconds = options.warmupMilliseconds,
                           .stableWithin = options.stableWithin};
  Backend* baselineBackend = nullptr;
  const KernelInfo* baseline = vendorGemm(backends, options.dtype, &baselineBackend);

  const std::vector<BlocksparseShape> shapes = blocksparseShapes(options.blocks);
  ProgressMeter meter(static_cast<int>(3 * shapes.size()), progress);  // the kernels, the ceiling, their own ceilings
  for (const BlocksparseShape& shape : shapes) {
    BlocksparseCase c;
    c.shape = shape;
    const ProblemSpec spec = caseSpec(shape, options);
    meter.begin("blocksparse: " + shape.name() + ": " + spec.describe());
    ProblemData data = generateProblem(spec);
    // The products the zeros leave, counted at the block edge: what a perfect skip computes.
    c.jointDensity = computeJointStats(buildAPattern(data.a, shape.block), buildBPattern(data.b, shape.block)).jointDensity;
    std::vector<BenchTarget> targets;
    for (Backend* backend : backends) {
      BenchTarget target{backend, suiteKernels(*backend, options.dtype)};
      if (target.kernels.empty()) continue;
      const AutoChoice choice = chooseKernel(*backend, data.a, data.b, "", "", options.dtype);
      target.autoKernel = choice.choice.kernel;
      target.autoReason = choice.choice.reason;
      if (target.autoKernel != nullptr &&
          std::find(target.kernels.begin(), target.kernels.end(), target.autoKernel) == target.kernels.end()) {
        target.kernels.push_back(target.autoKernel);
      }
      targets.push_back(std::move(target));
    }
    BenchReport run = runBench(targets, spec, data, bench, progress);

    // The ceiling: the vendor GEMM on the kept products packed, K' = K · joint density in whole
    // K-blocks (a dense problem of that K runs at the vendor's speed for that K, which is less
    // than its speed at K: small-K GEMMs are less efficient).
    c.packedK = std::max(kKBlock, static_cast<int>(std::lround(options.size * c.jointDensity / kKBlock)) * kKBlock);
    meter.begin("blocksparse: " + shape.name() + ": the packed ceiling, K' = " + std::to_string(c.packedK));
    std::optional<BenchReport> ceilingRun;
    ProblemSpec packed;
    packed.m = packed.n = options.size;
    packed.k = c.packedK;
    packed.generator = "uniform";
    packed.seed = options.seed;
    packed.dtype = options.dtype;
    const ProblemData packedData = generateProblem(packed);
    if (baseline != nullptr) {
      c.baseline = std::string(baseline->id);
      if (const BenchRow* row = timedRow(run, baselineBackend->name(), baseline->id)) c.baselineMs = row->kernelMs.median;
      ceilingRun = runBench({{baselineBackend, {baseline}}}, packed, packedData, bench, progress);
      if (const BenchRow* row = timedRow(*ceilingRun, baselineBackend->name(), baseline->id)) c.ceilingMs = row->kernelMs.median;
    }
    // Each skipping kernel's own ceiling: the dense kernel its loop is built on, on the same
    // packed problem and backend: what a perfect skip in that loop would take.
    std::vector<BenchTarget> ownTargets;
    std::map<std::pair<std::string, std::string_view>, const KernelInfo*> denseLoops;  // (backend, kernel) -> its loop's
    for (const BenchTarget& target : targets) {
      BenchTarget own{target.backend, {}};
      for (const KernelInfo* kernel : target.kernels) {
        const KernelInfo* dense = denseLoopOf(*target.backend, *kernel, options.dtype);
        if (dense == nullptr) continue;
        denseLoops[{std::string(target.backend->name()), kernel->id}] = dense;
        if (std::find(own.kernels.begin(), own.kernels.end(), dense) == own.kernels.end()) own.kernels.push_back(dense);
      }
      if (!own.kernels.empty()) ownTargets.push_back(std::move(own));
    }
    meter.begin("blocksparse: " + shape.name() + ": each skipping loop's own ceiling, K' = " + std::to_string(c.packedK));
    std::optional<BenchReport> ownCeilingRun;
    if (!ownTargets.empty()) ownCeilingRun = runBench(ownTargets, packed, packedData, bench, progress);

    for (const BenchRow& row : run.rows) {
      if (!row.timed()) {
        c.failures.push_back(label(row.backend, row.kernel) + ": " + row.failure);
        continue;
      }
      BlocksparseKernel k;
      k.backend = row.backend;
      k.kernel = row.kernel;
      k.autoReason = row.autoReason;
      k.kernelMs = row.kernelMs.median;
      k.prepareMs = row.prepareMs.median;
      k.e2eMs = k.kernelMs + k.prepareMs;
      if (row.prepareKeepingAMs) k.e2eStaticAMs = k.kernelMs + row.prepareKeepingAMs->median;
      k.roundingMs = row.roundingMs;
      if (c.baselineMs && k.kernelMs > 0.0) k.speedup = *c.baselineMs / k.kernelMs;
      if (c.ceilingMs && k.kernelMs > 0.0) k.ceilingFraction = *c.ceilingMs / k.kernelMs;
      const auto dense = denseLoops.find({row.backend, kernelInfo(row.kernel).id});
      if (dense != denseLoops.end() && ownCeilingRun) {
        if (const BenchRow* own = timedRow(*ownCeilingRun, row.backend, dense->second->id)) {
          k.ownCeiling = std::string(dense->second->id);
          k.ownCeilingMs = own->kernelMs.median;
          if (k.kernelMs > 0.0) k.ownCeilingFraction = *k.ownCeilingMs / k.kernelMs;
        }
      }
      c.kernels.push_back(std::move(k));
    }
    std::stable_sort(c.kernels.begin(), c.kernels.end(),
                     [](const BlocksparseKernel& x, const BlocksparseKernel& y) { return x.kernelMs < y.kernelMs; });
    report.cases.push_back(std::move(c));
    report.runs.push_back(std::move(run));
    if (ceilingRun) report.runs.push_back(std::move(*ceilingRun));
    if (ownCeilingRun) report.runs.push_back(std::move(*ownCeilingRun));
  }
  return report;
}

std::string formatBlocksparseTable(const BlocksparseReport& report) {
  std::ostringstream out;
  out << "tileskip bench --suite blocksparse  " << report.date << "\n";
  for (const std::string& d : report.devices) out << "device    " << d << "\n";
  out << "host      " << report.host << "\n";
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
    std::vector<std::vector<std::string>> cells = {
        {"backend", "kernel", "auto", "kernel ms", "e2e ms", "static A", "speedup", "of ceiling", "of own"}};
    for (const BlocksparseKernel& k : c.kernels) {
      cells.push_back({k.backend, k.kernel, k.autoReason.empty() ? "" : "auto", fixed(k.kernelMs, 4), fixed(k.e2eMs, 4),
                       k.e2eStaticAMs ? fixed(*k.e2eStaticAMs, 4) : "-",
                       k.speedup ? fixed(*k.speedup, 2) + "x" : "-", k.ceilingFraction ? fixed(*k.ceilingFraction, 2) : "-",
                       k.ownCeilingFraction ? fixed(*k.ownCeilingFraction, 2) : "-"});
    }
    out << alignColumns(cells, 3);
    for (const std::string& failure : c.failures) out << "  FAILED " << failure << "\n";
  }
  return out.str();
}

std::string formatBlocksparseJson(const BlocksparseReport& report) {
  auto optional = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json cases = nlohmann::json::array();
  for (const BlocksparseCase& c : report.cases) {
    nlohmann::json kernels = nlohmann::json::array();
    for (const BlocksparseKernel& k : c.kernels) {
      kernels.push_back({{"backend", k.backend},
                         {"kernel", k.kernel},
                         {"auto", !k.autoReason.empty()},
                         {"auto_reason", k.autoReason},
                         {"kernel_ms", k.kernelMs},
                         {"prepare_ms", k.prepareMs},
                         {"e2e_ms", k.e2eMs},
                         {"e2e_static_a_ms", optional(k.e2eStaticAMs)},
                         {"rounding_ms", k.roundingMs},
                         {"speedup", optional(k.speedup)},
                         {"ceiling_fraction", optional(k.ceilingFraction)},
                         {"own_ceiling", k.ownCeiling.empty() ? nlohmann::json(nullptr) : nlohmann::json(k.ownCeiling)},
                         {"own_ceiling_ms", optional(k.ownCeilingMs)},
                         {"own_ceiling_fraction", optional(k.ownCeilingFraction)}});
    }
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
                     {"kernels", kernels},
                     {"failures", c.failures}});
  }
  nlohmann::json runs = nlohmann::json::array();
  for (const BenchReport& r : report.runs) runs.push_back(nlohmann::json::parse(formatJson(r)));
  nlohmann::json doc = {{"schema", kBlocksparseSchema},
                        {"suite", "blocksparse"},
                        {"tool", {{"version", toolVersion()}, {"commit", toolCommit()}}},
                        {"dtype", dtypeName(report.options.dtype)},
                        {"date", report.date},
                        {"host", report.host},
                        {"devices", report.devices},
                        {"size", report.options.size},
                        {"timing", {{"warmup", report.options.warmup}, {"repeat", report.options.repeat},
                                    {"until_stable", report.options.stableWithin > 0.0 ? nlohmann::json(report.options.stableWithin)
                                                                                       : nlohmann::json(nullptr)}}},
                        {"seed", report.options.seed},
                        {"cases", cases},
                        {"runs", runs}};
  return jsonDocumentText(doc);
}

int blocksparseExitCode(const BlocksparseReport& report) {
  std::vector<BenchRow> rows;
  for (const BenchReport& run : report.runs) rows.insert(rows.end(), run.rows.begin(), run.rows.end());
  return benchExitCode(rows);
}

}  // namespace tileskip
