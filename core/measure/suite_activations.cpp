#include "core/measure/suite_activations.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/io/report.hpp"
#include "core/measure/mlp.hpp"
#include "core/measure/multiply.hpp"
#include "core/measure/progress.hpp"
#include "core/model/error.hpp"
#include "core/model/generators.hpp"
#include "core/model/live_columns.hpp"
#include "core/model/pattern.hpp"
#include "core/model/reorder.hpp"

namespace tileskip {

namespace {

// LLaMA-2-7B's MLP: 4096 wide, 11008 hidden; its down projection multiplies the hidden
// activations (tokens x 11008) by W2 (11008 x 4096).
constexpr int kLlamaWidth = 4096, kLlamaHidden = 11008;
// Each token's inactive neurons: about 90 % for ReLU-fied LLMs (TurboSparse reports ~90 % of
// Mistral-7B's, ProSparse ~89 % of LLaMA-2-7B's; the generator's comment cites them).
constexpr double kInactive = 0.9;

ProblemSpec caseSpec(const ActivationsShape& shape, const ActivationsOptions& options) {
  ProblemSpec spec;
  spec.m = shape.m;
  spec.n = shape.n;
  spec.k = shape.k;
  spec.generator = shape.inactive > 0.0 ? "neurons" : "uniform";
  spec.densityA = 1.0 - shape.inactive;
  spec.options.skew = shape.skew;
  spec.generatorB = "uniform";
  spec.densityB = 1.0;
  spec.seed = options.seed;
  spec.dtype = options.dtype;
  spec.reordered = shape.sorted;
  return spec;
}

// The vendor GEMM of `backend` for `dtype`, by the reports' preference (cuBLAS, else the host's
// BLAS), or null.
const KernelInfo* vendorGemmOf(Backend& backend, DType dtype) {
  for (std::string_view id : kBaselinePreference) {
    const KernelInfo& k = kernelInfo(id);
    if (k.isVendorGemm() && backend.implements(id) && backend.takes(k, dtype)) return &k;
  }
  return nullptr;
}

// The down projection's whole layer on each backend (LayerMeasurement); a backend where it fails
// adds "<backend> layer: why" to the case's failures.
void measureLayer(const std::vector<Backend*>& backends, const ActivationsShape& shape, const ActivationsOptions& options,
                  ActivationsCase& c) {
  const MlpLayerOperands operands = generateMlpLayer(shape.m, shape.n, shape.k, shape.n, 1.0 - shape.inactive, shape.skew, options.seed);
  for (Backend* backend : backends) {
    // A backend with no kernel for the dtype (Vulkan and the host in bf16) has no layer to run.
    const std::vector<const KernelInfo*> kernels = backend->kernels();
    if (std::none_of(kernels.begin(), kernels.end(), [&](const KernelInfo* k) { return backend->takes(*k, options.dtype); })) continue;
    LayerMeasurement layer;
    layer.backend = std::string(backend->name());
    const KernelInfo& fusedFirst = kernelInfo(kLayerFirstGemm);
    const KernelInfo* fusedSecond = nullptr;
    for (const KernelInfo& k : twinKernels()) {
      if (backend->fusesLayer(fusedFirst, k, options.dtype)) fusedSecond = &k;
    }
    MlpRequest request;
    request.x = operands.x, request.w1 = operands.w1, request.w2 = operands.w2;
    request.dtype = options.dtype;
    request.first = fusedSecond != nullptr ? &fusedFirst : nullptr;
    request.second = fusedSecond;
    request.compare = vendorGemmOf(*backend, options.dtype);
    request.repeat = options.repeat;
    request.reorder = shape.sorted;
    try {
      const MlpResult result = runMlp([&]() -> Backend& { return *backend; }, std::move(request));
      layer.first = std::string(result.layer.first.kernel->id);
      layer.second = std::string(result.layer.second.kernel->id);
      layer.fused = result.layer.fused;
      layer.hiddenDensity = result.hiddenDensity;
      layer.mlpMs = result.layer.layerMs();
      if (result.compared) {
        layer.baseline = std::string(result.compared->first.kernel->id);
        layer.baselineMs = result.compared->layerMs();
      }
      c.layers.push_back(std::move(layer));
    } catch (const Error& e) {
      c.measured.failures.push_back(layer.backend + " layer: " + e.what());
    }
  }
}

}  // namespace

std::string ActivationsShape::name() const {
  std::string what = inactive > 0.0 ? fixed(100.0 * inactive, 0) + " % inactive, exponent " + fixed(skew, 1) : "dense A";
  if (llamaDownProjection) what = "LLaMA-2-7B down projection, " + what;
  if (sorted) what += ", sorted by firing";
  return what + ", " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

std::vector<ActivationsShape> activationsShapes(int size) {
  std::vector<ActivationsShape> shapes{{size, size, size, 0.0, 1.0}};
  auto asGeneratedThenSorted = [&](ActivationsShape shape) {
    shapes.push_back(shape);
    shape.sorted = true;
    shapes.push_back(shape);
  };
  for (double skew : {1.0, 1.5, 2.0, 2.5}) asGeneratedThenSorted({size, size, size, kInactive, skew});
  const int hidden = std::max(kKBlock, static_cast<int>(static_cast<long long>(size) * kLlamaHidden / kLlamaWidth) / kKBlock * kKBlock);
  asGeneratedThenSorted({size, size, hidden, kInactive, 2.0, true});
  return shapes;
}

int compactionRowHeight() {
  for (const KernelInfo& k : twinKernels()) {
    if (k.compacts()) return k.aGranularity;
  }
  return kCompactionRows[0];
}

ActivationsReport runActivationsSuite(const std::vector<Backend*>& backends, const ActivationsOptions& options,
                                      const ProgressCallback& progress) {
  if (options.size < 1) throw InputError("--suite activations needs a size of at least 1");
  ActivationsReport report = startCeilingSuite<ActivationsReport>(backends, options, "activations");
  const BenchOptions bench = ceilingBenchOptions(options);
  const int rows = compactionRowHeight();
  const std::vector<ActivationsShape> shapes = activationsShapes(options.size);
  ProgressMeter meter(static_cast<int>(3 * shapes.size()), progress);  // the kernels, the ceiling, their own ceilings
  for (const ActivationsShape& shape : shapes) {
    ActivationsCase c;
    c.shape = shape;
    const ProblemSpec spec = caseSpec(shape, options);
    ProblemData data = generateProblem(spec);
    if (shape.sorted) {
      const std::vector<int> order = firingOrder(data.a);
      data.a = permuteCols(data.a, order);
      data.b = permuteRows(data.b, order);
    }
    // Two counts of one quantity: the kernels' own pattern bits (area-weighted, B dense), and
    // inspect's scan of A for single live columns.
    c.liveFraction = computeJointStats(buildAPattern(data.a, rows), buildBPattern(data.b, kKBlock)).jointDensity;
    c.predictedLiveFraction = findLiveColumns(data.a, rows, 1).meanLiveFraction();
    c.liveGroupFraction = findLiveColumns(data.a, rows, kFiringGroup).meanLiveFraction();
    c.measured = measureAgainstCeiling(backends, spec, data, c.liveFraction, bench, "activations: " + shape.name(), meter, progress);
    if (shape.llamaDownProjection) measureLayer(backends, shape, options, c);
    report.cases.push_back(std::move(c));
  }
  return report;
}

std::string formatActivationsTable(const ActivationsReport& report) {
  std::ostringstream out;
  out << ceilingSuiteTableHead("activations", report);
  out << "problem   A from the neurons generator (B dense), " << dtypeName(report.options.dtype) << ", seed " << report.options.seed
      << "; median of " << report.options.repeat
      << " device-timed runs; every kernel verified first. live: the fraction of K some row of a " << compactionRowHeight()
      << "-row tile needs; ceiling: the vendor GEMM on the live columns packed (K' = K x live); speedup, of ceiling and of "
         "own as in --suite blocksparse\n";
  for (const ActivationsCase& c : report.cases) {
    const CeilingMeasurement& m = c.measured;
    out << "\n" << c.shape.name() << ": live " << fixed(c.liveFraction, 4) << " (inspect " << fixed(c.predictedLiveFraction, 4)
        << "; in " << kFiringGroup << "-column groups " << fixed(c.liveGroupFraction, 4) << "), K' = " << m.packedK;
    if (m.baselineMs) out << "; " << m.baseline << " " << fixed(*m.baselineMs, 4) << " ms";
    if (m.ceilingMs && m.baselineMs) out << ", ceiling " << fixed(*m.ceilingMs, 4) << " ms (" << fixed(*m.baselineMs / *m.ceilingMs, 2) << "x)";
    out << "\n" << alignColumns(ceilingKernelCells(m.kernels), 3);
    for (const LayerMeasurement& layer : c.layers) {
      out << "  the whole layer, relu(X·W1)·W2 (" << c.shape.m << " tokens, " << c.shape.n << " -> " << c.shape.k << " -> "
          << c.shape.n << ", H " << fixed(layer.hiddenDensity, 3) << " non-zero): " << layer.backend << " " << layer.first << " + "
          << layer.second << (layer.fused ? " fused" : "") << " " << fixed(layer.mlpMs, 4) << " ms";
      if (layer.baselineMs) {
        out << ", " << layer.baseline << " twice " << fixed(*layer.baselineMs, 4) << " ms (" << fixed(*layer.baselineMs / layer.mlpMs, 2)
            << "x)";
      }
      out << "\n";
    }
    for (const std::string& failure : m.failures) out << "  FAILED " << failure << "\n";
  }
  return out.str();
}

namespace {

nlohmann::json layersJson(const std::vector<LayerMeasurement>& layers) {
  nlohmann::json out = nlohmann::json::array();
  for (const LayerMeasurement& l : layers) {
    out.push_back({{"backend", l.backend},
                   {"first", l.first},
                   {"second", l.second},
                   {"fused", l.fused},
                   {"hidden_density", l.hiddenDensity},
                   {"mlp_ms", l.mlpMs},
                   {"baseline", l.baseline.empty() ? nlohmann::json(nullptr) : nlohmann::json(l.baseline)},
                   {"baseline_ms", l.baselineMs ? nlohmann::json(*l.baselineMs) : nlohmann::json(nullptr)}});
  }
  return out;
}

// The layer the case's `mlp_ms` reports: the one that ran beside cuBLAS (CUDA's), else the first.
const LayerMeasurement* reportedLayer(const std::vector<LayerMeasurement>& layers) {
  for (const LayerMeasurement& l : layers) {
    if (l.baseline == "cublas" && l.baselineMs) return &l;
  }
  return layers.empty() ? nullptr : &layers.front();
}

// That layer's time by cuBLAS twice, where it ran beside it.
nlohmann::json twoCublasMs(const LayerMeasurement* layer) {
  if (layer == nullptr || layer->baseline != "cublas" || !layer->baselineMs) return nullptr;
  return *layer->baselineMs;
}

}  // namespace

std::string formatActivationsJson(const ActivationsReport& report) {
  auto optional = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json cases = nlohmann::json::array();
  std::vector<BenchReport> runs;
  for (const ActivationsCase& c : report.cases) {
    const CeilingMeasurement& m = c.measured;
    const LayerMeasurement* layer = reportedLayer(c.layers);
    cases.push_back({{"case", c.shape.name()},
                     {"m", c.shape.m},
                     {"n", c.shape.n},
                     {"k", c.shape.k},
                     {"inactive", c.shape.inactive},
                     {"skew", c.shape.skew},
                     {"sorted", c.shape.sorted},
                     {"rows", compactionRowHeight()},
                     {"live_fraction", c.liveFraction},
                     {"predicted_live_fraction", c.predictedLiveFraction},
                     {"live_group_fraction", c.liveGroupFraction},
                     {"live_group_columns", kFiringGroup},
                     {"packed_k", m.packedK},
                     {"baseline", m.baseline},
                     {"cublas_ms", m.baseline == "cublas" ? optional(m.baselineMs) : nlohmann::json(nullptr)},
                     {"baseline_ms", optional(m.baselineMs)},
                     {"ceiling_ms", optional(m.ceilingMs)},
                     {"kernels", ceilingKernelsJson(m.kernels)},
                     {"mlp_ms", layer != nullptr ? nlohmann::json(layer->mlpMs) : nlohmann::json(nullptr)},
                     {"two_cublas_ms", twoCublasMs(layer)},
                     {"layers", layersJson(c.layers)},
                     {"failures", m.failures}});
    runs.insert(runs.end(), m.runs.begin(), m.runs.end());
  }
  return ceilingSuiteJson(kActivationsSchema, "activations", report, std::move(cases), runs);
}

int activationsExitCode(const ActivationsReport& report) {
  std::vector<BenchReport> runs;
  for (const ActivationsCase& c : report.cases) runs.insert(runs.end(), c.measured.runs.begin(), c.measured.runs.end());
  return ceilingExitCode(runs);
}

}  // namespace tileskip
