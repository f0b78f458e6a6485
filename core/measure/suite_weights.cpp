#include "core/measure/suite_weights.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/io/report.hpp"
#include "core/measure/progress.hpp"
#include "core/model/block_sparse.hpp"
#include "core/model/error.hpp"

namespace tileskip {

namespace {

// LLaMA's MLP is 11008 wide beside its 4096.
constexpr double kMlpRatio = 11008.0 / 4096.0;

// The suite's kernels on a backend: the fast ones, and every bsr kernel, the ones built for a
// packed weight (the streaming ones for a few tokens).
std::vector<const KernelInfo*> weightsKernels(Backend& backend, DType dtype) {
  std::vector<const KernelInfo*> kernels = fastKernels(backend, dtype);
  for (const KernelInfo* k : backend.kernels()) {
    if (k->readsPackedA() && backend.takes(*k, dtype) && std::find(kernels.begin(), kernels.end(), k) == kernels.end()) kernels.push_back(k);
  }
  return kernels;
}

std::string caseName(const WeightsCase& c) {
  return std::to_string(c.m) + "x" + std::to_string(c.k) + " W, " + std::to_string(c.block) + "-blocks at " + fixed(c.density, 2) + ", " +
         std::to_string(c.n) + " tokens";
}

double wordBytes(DType dtype) { return dtype == DType::Fp16 || dtype == DType::Bf16 ? 2.0 : 4.0; }

}  // namespace

std::vector<std::array<int, 2>> weightsShapes(int size) {
  const int wide = std::max(16, static_cast<int>(std::lround(size * kMlpRatio / 16.0)) * 16);
  return {{size, size}, {wide, size}, {size, wide}};
}

std::vector<int> weightsTokens(int size) {
  std::vector<int> tokens;
  for (int n : {1, 16, 64, size / 8, size}) {
    if (n >= 1 && n <= size && std::find(tokens.begin(), tokens.end(), n) == tokens.end()) tokens.push_back(n);
  }
  return tokens;
}

std::optional<double> WeightsCase::boundMs() const {
  if (bytesBoundMs && ceilingMs) return std::max(*bytesBoundMs, *ceilingMs);
  return bytesBoundMs ? bytesBoundMs : ceilingMs;
}

WeightsReport runWeightsSuite(const std::vector<Backend*>& backends, const WeightsOptions& options, const ProgressCallback& progress) {
  if (options.size < 1) throw InputError("--suite weights needs a size of at least 1");
  for (int block : options.blocks) {
    if (!isPackedBlockSize(block)) {
      throw InputError("--suite weights: block " + std::to_string(block) + " is not one the packed format takes (" + packedBlockSizeList() + ")");
    }
  }
  for (double density : options.densities) checkDensity(density, "--suite weights' densities");
  const std::vector<int> tokens = options.tokens.empty() ? weightsTokens(options.size) : options.tokens;
  for (int n : tokens) {
    if (n < 1) throw InputError("--suite weights: a token count must be positive, not " + std::to_string(n));
  }
  if (options.blocks.empty() || options.densities.empty() || tokens.empty()) throw InputError("--suite weights has no case to run");
  WeightsReport report = startCeilingSuite<WeightsReport>(backends, options, "weights");
  report.options.tokens = tokens;
  // The bandwidth of the device the vendor GEMM runs on (cuBLAS's where there is one): the bytes bound's.
  for (std::string_view vendor : kBaselinePreference) {
    for (Backend* backend : backends) {
      if (report.copyBandwidth || !backend->implements(vendor)) continue;
      if ((report.copyBandwidth = backend->copyBandwidth())) report.bandwidthDevice = std::string(backend->name());
    }
  }
  for (Backend* backend : backends) {
    if (!report.copyBandwidth && (report.copyBandwidth = backend->copyBandwidth())) report.bandwidthDevice = std::string(backend->name());
  }
  const BenchOptions bench = ceilingBenchOptions(options);
  const std::vector<std::array<int, 2>> shapes = weightsShapes(options.size);
  const int cases = static_cast<int>(shapes.size() * options.blocks.size() * options.densities.size() * tokens.size());
  ProgressMeter meter(3 * cases, progress);  // the kernels, the ceiling, their own ceilings
  for (const auto& [m, k] : shapes) {
    for (int block : options.blocks) {
      for (double density : options.densities) {
        ProblemSpec spec;
        spec.m = m, spec.k = k;
        spec.generator = "blocks";
        spec.densityA = density;
        spec.options.block = block;
        spec.generatorB = "uniform";
        spec.densityB = 1.0;
        spec.seed = options.seed;
        spec.dtype = options.dtype;
        std::optional<Matrix> weight;  // one weight for every token count
        double kept = 0.0;
        for (int n : tokens) {
          spec.n = n;
          ProblemData data = generateProblem(spec);
          if (!weight) {
            weight = data.a;
            kept = packBlocks(data.a, block, DType::Fp32).density();
          }
          data.a = *weight;
          WeightsCase c;
          c.m = m, c.k = k, c.n = n, c.block = block, c.density = density, c.keptFraction = kept;
          const double keptBytes = kept * std::ceil(static_cast<double>(m) / block) * std::ceil(static_cast<double>(k) / block) *
                                   block * block * wordBytes(options.dtype);
          c.bytes = static_cast<std::int64_t>(keptBytes + static_cast<double>(k) * n * wordBytes(options.dtype) + 4.0 * m * n);
          if (report.copyBandwidth) c.bytesBoundMs = static_cast<double>(c.bytes) / *report.copyBandwidth * 1e3;
          CeilingMeasurement measured =
              measureAgainstCeiling(backends, spec, data, kept, bench, "weights: " + caseName(c), meter, progress, weightsKernels);
          c.packedK = measured.packedK;
          c.baseline = measured.baseline;
          c.baselineMs = measured.baselineMs;
          c.ceilingMs = measured.ceilingMs;
          c.kernels = std::move(measured.kernels);
          c.failures = std::move(measured.failures);
          report.cases.push_back(std::move(c));
          for (BenchReport& run : measured.runs) report.runs.push_back(std::move(run));
        }
      }
    }
  }
  return report;
}

std::string formatWeightsTable(const WeightsReport& report) {
  std::ostringstream out;
  out << ceilingSuiteTableHead("weights", report);
  out << "problem   C = W·X, W block-sparse (out x in), X tokens wide, " << dtypeName(report.options.dtype) << ", seed "
      << report.options.seed << "; median of " << report.options.repeat
      << " device-timed runs; every kernel verified first. speedup: over the vendor GEMM; ceiling: the vendor GEMM on the kept "
         "products packed; bytes: the kept blocks, X and C once each at the copy bandwidth";
  if (report.copyBandwidth) out << " (" << fixed(*report.copyBandwidth / 1e9, 0) << " GB/s on " << report.bandwidthDevice << ")";
  out << "; of bound: the fraction of the longer of the two a kernel reaches\n";
  for (const WeightsCase& c : report.cases) {
    out << "\n" << caseName(c) << ": kept " << fixed(c.keptFraction, 3);
    if (c.baselineMs) out << "; " << c.baseline << " " << fixed(*c.baselineMs, 4) << " ms";
    if (c.ceilingMs) out << ", ceiling " << fixed(*c.ceilingMs, 4) << " ms";
    if (c.bytesBoundMs) out << ", bytes " << fixed(*c.bytesBoundMs, 4) << " ms";
    out << "\n";
    std::vector<std::vector<std::string>> cells = {{"backend", "kernel", "auto", "kernel ms", "speedup", "of ceiling", "of bytes", "of bound"}};
    for (const CeilingKernel& k : c.kernels) {
      auto fraction = [&](const std::optional<double>& bound) { return bound && k.kernelMs > 0.0 ? fixed(*bound / k.kernelMs, 2) : "-"; };
      cells.push_back({k.backend, k.kernel, k.autoReason.empty() ? "" : "auto", fixed(k.kernelMs, 4), k.speedup ? fixed(*k.speedup, 2) + "x" : "-",
                       fraction(c.ceilingMs), fraction(c.bytesBoundMs), fraction(c.boundMs())});
    }
    out << alignColumns(cells, 3);
    for (const std::string& failure : c.failures) out << "  FAILED " << failure << "\n";
  }
  return out.str();
}

std::string formatWeightsJson(const WeightsReport& report) {
  auto optional = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json cases = nlohmann::json::array();
  for (const WeightsCase& c : report.cases) {
    nlohmann::json kernels = ceilingKernelsJson(c.kernels);
    for (std::size_t i = 0; i < c.kernels.size(); ++i) {
      const double ms = c.kernels[i].kernelMs;
      auto fraction = [&](const std::optional<double>& bound) { return bound && ms > 0.0 ? nlohmann::json(*bound / ms) : nlohmann::json(nullptr); };
      kernels[i]["ms"] = ms;
      kernels[i]["bandwidth_fraction"] = fraction(c.bytesBoundMs);
      kernels[i]["bound_fraction"] = fraction(c.boundMs());
    }
    cases.push_back({{"case", caseName(c)},
                     {"m", c.m},
                     {"k", c.k},
                     {"n", c.n},
                     {"block", c.block},
                     {"density", c.density},
                     {"kept_fraction", c.keptFraction},
                     {"bytes", c.bytes},
                     {"packed_k", c.packedK},
                     {"baseline", c.baseline},
                     {"cublas_ms", c.baseline == "cublas" ? optional(c.baselineMs) : nlohmann::json(nullptr)},
                     {"baseline_ms", optional(c.baselineMs)},
                     {"ceiling_ms", optional(c.ceilingMs)},
                     {"bytes_bound_ms", optional(c.bytesBoundMs)},
                     {"bound_ms", optional(c.boundMs())},
                     {"kernels", std::move(kernels)},
                     {"failures", c.failures}});
  }
  nlohmann::json doc = nlohmann::json::parse(ceilingSuiteJson(kWeightsSchema, "weights", report, std::move(cases), report.runs));
  doc["copy_bandwidth"] = optional(report.copyBandwidth);
  doc["copy_bandwidth_backend"] = report.bandwidthDevice.empty() ? nlohmann::json(nullptr) : nlohmann::json(report.bandwidthDevice);
  doc["blocks"] = report.options.blocks;
  doc["densities"] = report.options.densities;
  doc["tokens"] = report.options.tokens;
  return jsonDocumentText(doc);
}

int weightsExitCode(const WeightsReport& report) { return ceilingExitCode(report.runs); }

}  // namespace tileskip
