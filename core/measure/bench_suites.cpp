#include "core/measure/bench_suites.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/model/error.hpp"
#include "core/model/pattern.hpp"
#include "core/measure/progress.hpp"
#include "core/io/provenance.hpp"
#include "core/io/report.hpp"

namespace tileskip {

namespace {

constexpr const char* kDenseCandidates[] = {"vectorized", "warptile", "pipelined", "hoisted"};
// Every joint kernel, the one-warp ones included: "best joint kernel" is whichever runs fastest.
constexpr const char* kJointCandidates[] = {"joint-64x32", "joint-32x32", "joint-8x32", "warp-joint-64x64", "warp-joint-32x32"};
// The tensor-core kernels: dense, and skipping by the joint pattern.
constexpr const char* kTensorDense = "mma";
constexpr const char* kTensorJoint = "mma-joint-64x32";
// The same on Hopper's own instructions (CUDA on compute capability 9.0 only), timed in the same runs.
constexpr const char* kHopperDense = "wgmma";
// Every Hopper joint kernel (a tile per block, and the queue on two tile widths): "the Hopper joint
// kernel" is whichever runs fastest, as for the SIMT joint kernels.
constexpr const char* kHopperJointCandidates[] = {"wgmma-joint-64x64", "wgmma-queue-joint-64x64", "wgmma-queue-wide-64x64"};

constexpr bool hopperJointsShareTheBlock() {
  for (const char* id : kHopperJointCandidates) {
    if (findKernelInfo(id)->aGranularity != findKernelInfo(kTensorJoint)->aGranularity) return false;
  }
  return true;
}

// Targets: every kernel in `ids` on every backend that implements it for `dtype`.
std::vector<BenchTarget> targetsFor(const std::vector<Backend*>& backends, const std::vector<std::string>& ids,
                                    DType dtype = DType::Fp32) {
  std::vector<BenchTarget> targets;
  for (Backend* backend : backends) {
    BenchTarget target{backend, {}};
    for (const std::string& id : ids) {
      if (backend->implements(id) && backend->takes(kernelInfo(id), dtype)) target.kernels.push_back(&kernelInfo(id));
    }
    if (!target.kernels.empty()) targets.push_back(std::move(target));
  }
  return targets;
}

template <std::size_t N>
std::vector<std::string> ids(const char* const (&list)[N], std::initializer_list<const char*> more = {}) {
  std::vector<std::string> out(std::begin(list), std::end(list));
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

// The fastest verified row among `kernels` on `backend` ("" for any backend).
const BenchRow* fastest(const BenchReport& report, const std::string& backend, const std::vector<std::string>& kernels) {
  const BenchRow* best = nullptr;
  for (const BenchRow& row : report.rows) {
    if (!row.timed() || (!backend.empty() && row.backend != backend)) continue;
    if (std::find(kernels.begin(), kernels.end(), row.kernel) == kernels.end()) continue;
    if (best == nullptr || row.kernelMs.median < best->kernelMs.median) best = &row;
  }
  return best;
}

std::string label(const BenchRow& row) { return row.backend + " " + row.kernel; }

ProblemSpec segments(int size, double density, int block, std::uint64_t seed) {
  ProblemSpec spec;
  spec.m = spec.n = spec.k = size;
  spec.generator = density >= 1.0 ? "uniform" : "segments";
  spec.densityA = spec.densityB = density;
  spec.seed = seed;
  spec.options.block = block;
  return spec;
}

// The joint-kernel-vs-cuBLAS measure of one bench run.
HeadlineMeasure jointVsCublas(const BenchReport& run, const std::string& id, const std::string& what, const std::string& target,
                              std::optional<double> threshold) {
  HeadlineMeasure m{what, target, std::nullopt, threshold, false, "", id};
  const BenchRow* joint = fastest(run, "", ids(kJointCandidates));
  const BenchRow* cublas = timedRow(run, "", "cublas");
  if (joint == nullptr || cublas == nullptr) {
    m.detail = "needs a joint kernel and cuBLAS in one run";
    return m;
  }
  m.value = cublas->kernelMs.median / joint->kernelMs.median;
  m.detail = label(*joint) + " " + fixed(joint->kernelMs.median, 3) + " ms vs cuBLAS " + fixed(cublas->kernelMs.median, 3) +
             " ms; joint density " + fixed(joint->jointDensity, 3) + "; end to end (patterns included) " +
             fixed(cublas->kernelMs.median / (joint->kernelMs.median + joint->prepareMs.median), 2) + "x";
  return m;
}

// How many times faster the fastest of `fastKernels` runs than `slowKernel` in one run: the slow
// one's time over the fast one's, each the fastest verified row of those kernels on its backend
// ("" for any).
HeadlineMeasure speedRatio(const BenchReport& run, const std::string& id, const std::string& what, const std::string& target,
                           std::optional<double> threshold, const std::string& slowBackend, const char* slowKernel,
                           const std::string& fastBackend, const std::vector<std::string>& fastKernels) {
  HeadlineMeasure m{what, target, std::nullopt, threshold, false, "", id};
  const BenchRow* slow = fastest(run, slowBackend, {slowKernel});
  const BenchRow* fast = fastest(run, fastBackend, fastKernels);
  if (slow == nullptr || fast == nullptr) {
    std::string named;
    for (const std::string& k : fastKernels) named += (named.empty() ? "" : " or ") + k;
    m.detail = std::string("needs ") + (fastBackend.empty() ? "" : fastBackend + " ") + named + " and " +
               (slowBackend.empty() ? "" : slowBackend + " ") + slowKernel + " in one run";
    return m;
  }
  m.value = slow->kernelMs.median / fast->kernelMs.median;
  m.detail = label(*fast) + " " + fixed(fast->kernelMs.median, 3) + " ms vs " + label(*slow) + " " +
             fixed(slow->kernelMs.median, 3) + " ms";
  if (fast->jointDensity < 1.0) {
    m.detail += "; joint density " + fixed(fast->jointDensity, 3) + "; end to end (its preparation included) " +
                fixed(slow->kernelMs.median / (fast->kernelMs.median + fast->prepareMs.median), 2) + "x";
  }
  return m;
}

// The same for one fast kernel.
HeadlineMeasure speedRatio(const BenchReport& run, const std::string& id, const std::string& what, const std::string& target,
                           std::optional<double> threshold, const std::string& slowBackend, const char* slowKernel,
                           const std::string& fastBackend, const char* fastKernel) {
  return speedRatio(run, id, what, target, threshold, slowBackend, slowKernel, fastBackend, std::vector<std::string>{fastKernel});
}

}  // namespace

std::optional<bool> HeadlineMeasure::met() const {
  if (!value || !threshold) return std::nullopt;
  return atMost ? *value <= *threshold : *value >= *threshold;
}

HeadlineReport runHeadlineSuite(const std::vector<Backend*>& backends, const SuiteOptions& options,
                                const ProgressCallback& progress) {
  HeadlineReport report;
  report.date = utcTimestamp();
  report.host = hostDescription();
  report.options = options;
  for (Backend* b : backends) report.devices.push_back(std::string(b->name()) + ": " + b->device().describe());
  const BenchOptions bench{.warmup = options.warmup, .repeat = options.repeat, .warmupMilliseconds = options.warmupMilliseconds,
                           .stableWithin = options.stableWithin};
  // Dense; joint at 0.5 and 0.25, aligned and not; skip efficiency at 0.707 and 0.354; the
  // tensor cores: dense bf16 and fp16, joint bf16 at 0.5 and 0.25; dense tf32.
  constexpr int kHeadlineRuns = 12;
  ProgressMeter meter(kHeadlineRuns, progress);
  // Runs one bench and returns its index in report.runs (indices, not references: the vector grows).
  auto run = [&](const ProblemSpec& spec, const std::vector<std::string>& kernels) {
    meter.begin("headline: " + spec.describe());
    report.runs.push_back(runBench(targetsFor(backends, kernels, spec.dtype), spec, generateProblem(spec), bench, progress));
    return report.runs.size() - 1;
  };
  // Block-aligned zero tiles: segments as tall (A) and wide (B) as the kernels' 128 x 128 block
  // tiles. Not aligned: 32-row / 32-column segments, which a block tile rarely skips whole.
  const int aligned = kernelInfo(kJointCandidates[0]).tile.BM;
  constexpr int kUnaligned = 32;
  const int n = options.size;

  // 1, 2: dense.
  const BenchReport& dense = report.runs[run(segments(n, 1.0, aligned, options.seed), ids(kDenseCandidates, {"cublas"}))];
  const BenchRow* bestCuda = fastest(dense, "cuda", ids(kDenseCandidates));
  const BenchRow* bestVulkan = fastest(dense, "vulkan", ids(kDenseCandidates));
  const BenchRow* cublas = timedRow(dense, "", "cublas");
  HeadlineMeasure denseVsCublas{"best dense CUDA kernel / cuBLAS SGEMM (TF32 off)", ">= 0.95", std::nullopt, 0.95, false, "",
                                "dense-cuda-vs-cublas"};
  if (bestCuda && cublas) {
    denseVsCublas.value = cublas->kernelMs.median / bestCuda->kernelMs.median;
    denseVsCublas.detail = label(*bestCuda) + " " + fixed(bestCuda->effectiveGflops / 1000, 1) + " TFLOPS vs cuBLAS " +
                           fixed(cublas->effectiveGflops / 1000, 1);
  } else {
    denseVsCublas.detail = "needs the cuda backend";
  }
  report.measures.push_back(denseVsCublas);
  HeadlineMeasure vulkanVsCuda{"best dense Vulkan kernel / best dense CUDA kernel", ">= 0.95", std::nullopt, 0.95, false, "",
                               "dense-vulkan-vs-cuda"};
  if (bestCuda && bestVulkan) {
    vulkanVsCuda.value = bestCuda->kernelMs.median / bestVulkan->kernelMs.median;
    vulkanVsCuda.detail = label(*bestVulkan) + " " + fixed(bestVulkan->effectiveGflops / 1000, 1) + " TFLOPS vs " +
                          label(*bestCuda) + " " + fixed(bestCuda->effectiveGflops / 1000, 1);
  } else {
    vulkanVsCuda.detail = "needs the cuda and vulkan backends on one GPU";
  }
  report.measures.push_back(vulkanVsCuda);

  // 3, 4: joint kernels against cuBLAS, block-aligned and not.
  const std::vector<std::string> jointRun = ids(kJointCandidates, {"pipelined", "cublas", "cusparse-csr"});
  struct JointCase {
    double density;
    const char* target;
    std::optional<double> threshold;
  };
  std::map<double, std::size_t> alignedRuns;
  for (JointCase c : {JointCase{0.5, ">= 2.5", 2.5}, JointCase{0.25, ">= 5", 5.0}}) {
    alignedRuns[c.density] = run(segments(n, c.density, aligned, options.seed), jointRun);
    report.measures.push_back(jointVsCublas(report.runs[alignedRuns[c.density]], "joint-aligned-" + fixed(c.density, 2) + "-vs-cublas",
                                            "best joint kernel / cuBLAS, A and B at density " + fixed(c.density, 2) +
                                                ", block-aligned " + std::to_string(aligned) + "-wide tiles",
                                            c.target, c.threshold));
    const std::size_t unalignedRun = run(segments(n, c.density, kUnaligned, options.seed), jointRun);
    report.measures.push_back(jointVsCublas(report.runs[unalignedRun], "joint-unaligned-" + fixed(c.density, 2) + "-vs-cublas",
                                            "same, " + std::to_string(kUnaligned) + "-wide tiles (not block-aligned)",
                                            "(reported)", std::nullopt));
  }

  // 5: skip efficiency from joint density 0.5 to 0.06 (per-operand densities 0.71 .. 0.25).
  HeadlineMeasure efficiency{"skip efficiency, block-aligned tiles, joint density 0.5 -> 0.06 (worst)", ">= 0.85",
                             std::nullopt, 0.85, false, "", "skip-efficiency"};
  for (double d : {0.707, 0.5, 0.354, 0.25}) {
    const std::size_t r = alignedRuns.count(d) ? alignedRuns[d]
                                               : run(segments(n, d, aligned, options.seed), ids(kJointCandidates, {"pipelined"}));
    const BenchRow* best = fastest(report.runs[r], "", ids(kJointCandidates));
    if (best == nullptr || !best->skipEfficiency) continue;
    efficiency.value = efficiency.value ? std::min(*efficiency.value, *best->skipEfficiency) : *best->skipEfficiency;
    efficiency.detail += (efficiency.detail.empty() ? "" : "; ") + fixed(best->jointDensity, 3) + ": " +
                         fixed(*best->skipEfficiency, 2) + " (" + label(*best) + ")";
  }
  if (!efficiency.value) efficiency.detail = "needs a joint kernel and the dense reference in one run";
  report.measures.push_back(efficiency);

  // 6: pattern preprocessing against the dense kernel, at density 0.5.
  HeadlineMeasure preprocessing{"pattern preprocessing / dense kernel time", "<= 0.02", std::nullopt, 0.02, true, "",
                                "pattern-preprocessing"};
  const BenchReport& half = report.runs[alignedRuns[0.5]];
  if (const BenchRow* joint = fastest(half, "", ids(kJointCandidates))) {
    if (const BenchRow* ref = timedRow(half, joint->backend, std::string(kDenseReferenceKernel))) {
      preprocessing.value = joint->prepareMs.median / ref->kernelMs.median;
      preprocessing.detail = label(*joint) + " patterns " + fixed(joint->prepareMs.median * 1000, 1) + " us vs " +
                             std::string(kDenseReferenceKernel) + " " + fixed(ref->kernelMs.median, 3) + " ms";
    }
  }
  if (!preprocessing.value) preprocessing.detail = "needs a joint kernel and the dense reference in one run";
  report.measures.push_back(preprocessing);

  // 7, 8: the dense tensor-core kernel against cuBLAS in bf16, and its Vulkan twin (cooperative
  // matrices, fp16 only) against it in fp16.
  ProblemSpec tensorDense = segments(n, 1.0, aligned, options.seed);
  tensorDense.dtype = DType::Bf16;
  const std::size_t tensorDenseRun = run(tensorDense, {kTensorDense, kHopperDense, "cublas"});
  report.measures.push_back(speedRatio(report.runs[tensorDenseRun], "mma-bf16-vs-cublas", "dense tensor-core kernel / cuBLAS, bf16",
                                       ">= 0.6", 0.6, "",
                                       "cublas", "cuda", kTensorDense));
  tensorDense.dtype = DType::Fp16;
  report.measures.push_back(speedRatio(report.runs[run(tensorDense, {kTensorDense})], "mma-fp16-vulkan-vs-cuda",
                                       "dense tensor-core kernel, Vulkan / CUDA, fp16", ">= 0.9", 0.9, "cuda", kTensorDense,
                                       "vulkan", kTensorDense));
  // 9, 10: the joint tensor-core kernel against cuBLAS bf16 on zeros in 64 x 64 blocks, the
  // granularity its warps skip at (A and B at density 0.5, joint 0.25; and 0.25, joint 0.0625). The
  // targets are the Hopper kernel's; the portable one's line is reported beside it. A target above
  // the packed ceiling (cuBLAS on the kept products alone: 1.85x and 7.63x faster than 4096^3 on an
  // H100 at joint 0.5 and 0.0625, `bench --suite blocksparse` measures it) would be physics, not work.
  const int tensorBlock = kernelInfo(kTensorJoint).aGranularity;
  static_assert(hopperJointsShareTheBlock(), "one block size for every joint tensor-core kernel");
  const std::string blocksText = std::to_string(tensorBlock) + " x " + std::to_string(tensorBlock) + " blocks";
  const JointCase tensorCases[] = {{0.5, ">= 1.8", 1.8}, {0.25, ">= 5", 5.0}};
  std::vector<std::size_t> tensorJointRuns;
  for (const JointCase& c : tensorCases) {
    ProblemSpec spec = segments(n, c.density, tensorBlock, options.seed);
    spec.generator = "blocks";
    spec.dtype = DType::Bf16;
    tensorJointRuns.push_back(run(spec, ids(kHopperJointCandidates, {kTensorJoint, kTensorDense, kHopperDense, "cublas"})));
    report.measures.push_back(speedRatio(report.runs[tensorJointRuns.back()], "mma-joint-" + fixed(c.density, 2) + "-vs-cublas",
                                         "joint tensor-core kernel / cuBLAS, bf16, A and B at density " + fixed(c.density, 2) +
                                             ", " + blocksText,
                                         "(reported)", std::nullopt, "", "cublas", "", kTensorJoint));
  }
  // 12-14: the Hopper kernels in the same runs (said missing elsewhere, not invented).
  report.measures.push_back(speedRatio(report.runs[tensorDenseRun], "wgmma-bf16-vs-cublas",
                                       "Hopper dense tensor-core kernel (wgmma) / cuBLAS, bf16",
                                       ">= 0.8", 0.8, "", "cublas", "cuda", kHopperDense));
  for (std::size_t i = 0; i < tensorJointRuns.size(); ++i) {
    const JointCase& c = tensorCases[i];
    report.measures.push_back(speedRatio(report.runs[tensorJointRuns[i]], "wgmma-joint-" + fixed(c.density, 2) + "-vs-cublas",
                                         "best Hopper joint tensor-core kernel / cuBLAS, bf16, A and B at density " +
                                             fixed(c.density, 2) + ", " + blocksText,
                                         c.target, c.threshold, "", "cublas", "", ids(kHopperJointCandidates)));
  }
  // 15, 16: tf32 on the Hopper kernel and the portable one, each against cuBLAS TF32 (B transposed
  // in their preparation: end to end beside).
  tensorDense.dtype = DType::Tf32;
  const BenchReport& tf32 = report.runs[run(tensorDense, {kHopperDense, kTensorDense, "cublas"})];
  const BenchRow* tf32Cublas = fastest(tf32, "", {"cublas"});
  for (const auto& [name, id] : {std::pair{"Hopper dense tensor-core kernel (wgmma)", kHopperDense},
                                 std::pair{"dense tensor-core kernel (mma)", kTensorDense}}) {
    HeadlineMeasure line = speedRatio(tf32, std::string(id) + "-tf32-vs-cublas", std::string(name) + " / cuBLAS TF32, tf32",
                                      ">= 0.8", 0.8, "", "cublas", "cuda", id);
    const BenchRow* kernel = fastest(tf32, "cuda", {id});
    if (line.value && kernel != nullptr && tf32Cublas != nullptr) {
      line.detail += "; end to end (B transposed included) " +
                     fixed(tf32Cublas->kernelMs.median / (kernel->kernelMs.median + kernel->prepareMs.median), 3) + "x";
    }
    report.measures.push_back(line);
  }
  return report;
}

std::string formatHeadlineTable(const HeadlineReport& report) {
  std::ostringstream out;
  out << "tileskip bench --suite headline  " << report.date << "\n";
  for (const std::string& d : report.devices) out << "device    " << d << "\n";
  out << "host      " << report.host << "\n";
  out << "problem   M = N = K = " << report.options.size << ", seed " << report.options.seed << "; "
      << report.options.warmup << " warm-up (on a GPU: until " << report.options.warmupMilliseconds
      << " ms of work and until its times settle), median of " << report.options.repeat << " device-timed runs; every kernel verified first\n\n";
  std::vector<std::vector<std::string>> cells = {{"measure", "target", "measured", "met", "detail"}};
  for (const HeadlineMeasure& m : report.measures) {
    std::optional<bool> met = m.met();
    cells.push_back({m.measure, m.target, m.value ? fixed(*m.value, 3) : "-", met ? (*met ? "yes" : "NO") : "-",
                     m.detail});
  }
  out << alignColumns(cells, 5);
  out << "\nThe bench runs behind these ratios:\n";
  for (const BenchReport& r : report.runs) out << "\n" << formatTable(r);
  return out.str();
}

std::vector<std::string> missedTargets(const HeadlineReport& report) {
  std::vector<std::string> missed;
  for (const HeadlineMeasure& m : report.measures) {
    std::optional<bool> met = m.met();
    if (met && !*met) missed.push_back(m.measure + ": " + fixed(*m.value, 3) + ", target " + m.target);
  }
  return missed;
}

int headlineExitCode(const HeadlineReport& report, bool failOnTarget) {
  std::vector<BenchRow> rows;
  for (const BenchReport& run : report.runs) rows.insert(rows.end(), run.rows.begin(), run.rows.end());
  if (int code = benchExitCode(rows); code != 0) return code;
  if (failOnTarget && !missedTargets(report).empty()) return static_cast<int>(ExitCode::TargetMissed);
  return 0;
}

std::string formatHeadlineJson(const HeadlineReport& report) {
  nlohmann::json measures = nlohmann::json::array();
  for (const HeadlineMeasure& m : report.measures) {
    std::optional<bool> met = m.met();
    measures.push_back({{"id", m.id},
                        {"measure", m.measure},
                        {"target", m.target},
                        {"threshold", m.threshold ? nlohmann::json(*m.threshold) : nlohmann::json(nullptr)},
                        {"op", m.threshold ? nlohmann::json(m.atMost ? "<=" : ">=") : nlohmann::json(nullptr)},
                        {"value", m.value ? nlohmann::json(*m.value) : nlohmann::json(nullptr)},
                        {"met", met ? nlohmann::json(*met) : nlohmann::json(nullptr)},
                        {"detail", m.detail}});
  }
  nlohmann::json runs = nlohmann::json::array();
  for (const BenchReport& r : report.runs) runs.push_back(nlohmann::json::parse(formatJson(r)));
  nlohmann::json doc = {{"schema", kHeadlineSchema},
                        {"suite", "headline"},
                        {"tool", {{"version", toolVersion()}, {"commit", toolCommit()}}},
                        {"dtype", kDtype},
                        {"date", report.date},
                        {"host", report.host},
                        {"devices", report.devices},
                        {"size", report.options.size},
                        {"timing", {{"warmup", report.options.warmup}, {"repeat", report.options.repeat},
                                    {"until_stable", report.options.stableWithin > 0.0 ? nlohmann::json(report.options.stableWithin)
                                                                                       : nlohmann::json(nullptr)}}},
                        {"seed", report.options.seed},
                        {"measures", measures},
                        {"runs", runs}};
  return jsonDocumentText(doc);
}

SweepReport runSweepSuite(const std::vector<Backend*>& backends, const SweepOptions& options,
                          const ProgressCallback& progress) {
  SweepReport report;
  report.date = utcTimestamp();
  report.host = hostDescription();
  report.block = options.block;
  report.warmup = options.warmup;
  report.repeat = options.repeat;
  report.warmupMilliseconds = options.warmupMilliseconds;
  for (Backend* b : backends) report.devices.push_back(std::string(b->name()) + ": " + b->device().describe());
  const std::vector<std::string> kernels = ids(kJointCandidates, {"pipelined", "cublas"});
  ProgressMeter meter(static_cast<int>(options.sizes.size() * options.densities.size()), progress);
  for (int size : options.sizes) {
    for (double density : options.densities) {
      ProblemSpec spec = segments(size, density, options.block, options.seed);
      meter.begin("sweep: " + spec.describe());
      ProblemData data = generateProblem(spec);
      BenchReport run = runBench(targetsFor(backends, kernels), spec, data,
                                 {.warmup = options.warmup, .repeat = options.repeat,
                                  .warmupMilliseconds = options.warmupMilliseconds, .stableWithin = options.stableWithin},
                                 progress);
      // The load bound of a 128 x 128 block tile: 1 / the fraction of its K-blocks it must load.
      const TileShape& tile = kernelInfo(kJointCandidates[0]).tile;
      JointStats blockLoads = computeJointStats(buildAPattern(data.a, tile.BM), buildBPattern(data.b, tile.BN));
      double loadFraction = 1.0 - blockLoads.skippedKBlockFraction;
      for (const BenchRow& row : run.rows) {
        if (!row.timed()) {
          report.failures.push_back(std::to_string(size) + " d=" + fixed(density, 3) + " " + label(row) + ": " + row.failure);
          report.failedRows.push_back(row);
          continue;
        }
        if (kernelInfo(row.kernel).isBaseline()) continue;
        const BenchRow* dense = timedRow(run, row.backend, std::string(kDenseReferenceKernel));
        SweepPoint p;
        p.backend = row.backend;
        p.kernel = row.kernel;
        p.size = size;
        p.density = density;
        p.jointDensity = row.jointDensity;
        p.milliseconds = row.kernelMs.median;
        p.denseMilliseconds = dense ? dense->kernelMs.median : 0.0;
        p.speedup = dense ? dense->kernelMs.median / row.kernelMs.median : 0.0;
        p.idealSpeedup = row.idealSpeedup;
        p.loadBoundSpeedup = loadFraction > 0.0 ? 1.0 / loadFraction : INFINITY;
        p.vsBaseline = row.vsBaseline.value_or(0.0);
        p.driver = row.driver;
        p.api = row.api;
        p.tuneOverrides = row.tuneOverrides;
        p.tolerance = row.error.tolerance;
        report.points.push_back(p);
      }
    }
  }
  return report;
}

std::string formatSweepCsv(const SweepReport& report) {
  std::ostringstream out;
  out << "date,backend,kernel,size,density,joint_density,ms,dense_ms,speedup,ideal_speedup,load_bound_speedup,"
         "vs_baseline,block_a,block_b,dtype,tool_version,tool_commit,driver,tune_overrides,warmup,repeat,"
         "tolerance,host,api,warmup_ms\n";  // api and warmup_ms came later: a CSV only grows at its end
  for (const SweepPoint& p : report.points) {
    out << report.date << ',' << p.backend << ',' << p.kernel << ',' << p.size << ',' << p.density << ','
        << p.jointDensity << ',' << p.milliseconds << ',' << p.denseMilliseconds << ',' << p.speedup << ','
        << p.idealSpeedup << ',' << p.loadBoundSpeedup << ',' << p.vsBaseline << ',' << report.block << ','
        << report.block << ',' << kDtype << ',' << csvField(toolVersion()) << ',' << csvField(toolCommit()) << ','
        << csvField(p.driver) << ',' << csvField(p.tuneOverrides) << ',' << report.warmup << ',' << report.repeat << ','
        << p.tolerance << ',' << csvField(report.host) << ',' << csvField(p.api) << ',' << report.warmupMilliseconds << '\n';
  }
  return out.str();
}

}  // namespace tileskip
