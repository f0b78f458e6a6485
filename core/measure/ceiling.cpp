#include "core/measure/ceiling.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "core/io/report.hpp"
#include "core/measure/auto_choice.hpp"
#include "core/model/error.hpp"

namespace tileskip {

std::vector<const KernelInfo*> fastKernels(Backend& backend, DType dtype) {
  std::vector<const KernelInfo*> kernels;
  for (const KernelInfo* k : backend.kernels()) {
    if (!backend.takes(*k, dtype)) continue;
    if (k->hasWarpTile() || k->usesTensorCores() || k->isVendorGemm()) kernels.push_back(k);
  }
  return kernels;
}

namespace {

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

std::string label(const std::string& backend, const std::string& kernel) { return backend + " " + kernel; }

// The dense kernel a skipping kernel's main loop is built on, on the same backend: the row that
// skips nothing with the same loop and thread mapping (S10's is K13, S11's to S13's K14; a
// compaction kernel's loop of gathered columns is the loop it gathers into: S14's K13's, S15's
// K14's, S16's K12's; a bsr kernel's loop over its kept blocks likewise, S19's K12's), where the backend has
// it for the dtype; null for a dense kernel or where there is none.
const KernelInfo* denseLoopOf(const Backend& backend, const KernelInfo& kernel, DType dtype) {
  if (!kernel.skips()) return nullptr;
  MainLoop loop = kernel.structure.loop;
  if (loop == MainLoop::GatherHoisted || loop == MainLoop::PackedBlocks) loop = MainLoop::Hoisted;
  if (loop == MainLoop::GatherRing) loop = MainLoop::StageRing;
  if (loop == MainLoop::SwizzledGatherRing) loop = MainLoop::BulkCopyRing;
  for (const KernelInfo& row : kCatalogue) {
    if (row.skips() || row.isBaseline() || row.structure.loop != loop || row.structure.mapping != kernel.structure.mapping) {
      continue;
    }
    if (backend.implements(row.id) && backend.takes(row, dtype)) return &row;
  }
  return nullptr;
}

}  // namespace

CeilingMeasurement measureAgainstCeiling(const std::vector<Backend*>& backends, const ProblemSpec& spec, const ProblemData& data,
                                         double keptFraction, const BenchOptions& bench, const std::string& name,
                                         ProgressMeter& meter, const ProgressCallback& progress, const SuiteKernels& select) {
  CeilingMeasurement c;
  const DType dtype = spec.dtype;
  Backend* baselineBackend = nullptr;
  const KernelInfo* baseline = vendorGemm(backends, dtype, &baselineBackend);
  meter.begin(name + ": " + spec.describe());
  std::vector<BenchTarget> targets;
  for (Backend* backend : backends) {
    BenchTarget target{backend, select(*backend, dtype)};
    if (target.kernels.empty()) continue;
    const AutoChoice choice = chooseKernel(*backend, data.a, data.b, "", "", dtype);
    target.autoKernel = choice.choice.kernel;
    target.autoReason = choice.choice.reason;
    if (target.autoKernel != nullptr &&
        std::find(target.kernels.begin(), target.kernels.end(), target.autoKernel) == target.kernels.end()) {
      target.kernels.push_back(target.autoKernel);
    }
    targets.push_back(std::move(target));
  }
  BenchReport run = runBench(targets, spec, data, bench, progress);

  // The ceiling: the vendor GEMM on the kept products packed, K' = K · the kept fraction in whole
  // K-blocks (a dense problem of that K runs at the vendor's speed for that K, which is less than
  // its speed at K: small-K GEMMs are less efficient).
  c.packedK = std::max(kKBlock, static_cast<int>(std::lround(spec.k * keptFraction / kKBlock)) * kKBlock);
  meter.begin(name + ": the packed ceiling, K' = " + std::to_string(c.packedK));
  std::optional<BenchReport> ceilingRun;
  ProblemSpec packed;
  packed.m = spec.m;
  packed.n = spec.n;
  packed.k = c.packedK;
  packed.generator = "uniform";
  packed.seed = spec.seed;
  packed.dtype = dtype;
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
      const KernelInfo* dense = denseLoopOf(*target.backend, *kernel, dtype);
      if (dense == nullptr) continue;
      denseLoops[{std::string(target.backend->name()), kernel->id}] = dense;
      if (std::find(own.kernels.begin(), own.kernels.end(), dense) == own.kernels.end()) own.kernels.push_back(dense);
    }
    if (!own.kernels.empty()) ownTargets.push_back(std::move(own));
  }
  meter.begin(name + ": each skipping loop's own ceiling, K' = " + std::to_string(c.packedK));
  std::optional<BenchReport> ownCeilingRun;
  if (!ownTargets.empty()) ownCeilingRun = runBench(ownTargets, packed, packedData, bench, progress);

  const BenchRow* baselineRow = baseline != nullptr ? timedRow(run, baselineBackend->name(), baseline->id) : nullptr;
  for (const BenchRow& row : run.rows) {
    if (!row.timed()) {
      c.failures.push_back(label(row.backend, row.kernel) + ": " + row.failure);
      continue;
    }
    CeilingKernel k;
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
    if (baselineRow != nullptr && row.backend == baselineRow->backend && std::isfinite(row.predictedSpeedup) &&
        std::isfinite(baselineRow->predictedSpeedup) && baselineRow->predictedSpeedup > 0.0) {
      k.predictedSpeedup = row.predictedSpeedup / baselineRow->predictedSpeedup;
    }
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
  std::stable_sort(c.kernels.begin(), c.kernels.end(), [](const CeilingKernel& x, const CeilingKernel& y) { return x.kernelMs < y.kernelMs; });
  c.runs.push_back(std::move(run));
  if (ceilingRun) c.runs.push_back(std::move(*ceilingRun));
  if (ownCeilingRun) c.runs.push_back(std::move(*ownCeilingRun));
  return c;
}

void requireSuiteKernels(const std::vector<Backend*>& backends, DType dtype, const char* suite) {
  for (Backend* backend : backends) {
    if (!fastKernels(*backend, dtype).empty()) return;
  }
  throw InputError(std::string("--suite ") + suite + ": no selected backend has a kernel that takes " + std::string(dtypeName(dtype)) +
                   " inputs (see `tileskip list`); choose another --dtype (fp32 runs everywhere)");
}

nlohmann::json ceilingKernelsJson(const std::vector<CeilingKernel>& kernels) {
  auto optional = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json out = nlohmann::json::array();
  for (const CeilingKernel& k : kernels) {
    out.push_back({{"backend", k.backend},
                   {"kernel", k.kernel},
                   {"auto", !k.autoReason.empty()},
                   {"auto_reason", k.autoReason},
                   {"kernel_ms", k.kernelMs},
                   {"prepare_ms", k.prepareMs},
                   {"e2e_ms", k.e2eMs},
                   {"e2e_static_a_ms", optional(k.e2eStaticAMs)},
                   {"rounding_ms", k.roundingMs},
                   {"speedup", optional(k.speedup)},
                   {"predicted_speedup", optional(k.predictedSpeedup)},
                   {"ceiling_fraction", optional(k.ceilingFraction)},
                   {"own_ceiling", k.ownCeiling.empty() ? nlohmann::json(nullptr) : nlohmann::json(k.ownCeiling)},
                   {"own_ceiling_ms", optional(k.ownCeilingMs)},
                   {"own_ceiling_fraction", optional(k.ownCeilingFraction)}});
  }
  return out;
}

std::vector<std::vector<std::string>> ceilingKernelCells(const std::vector<CeilingKernel>& kernels) {
  std::vector<std::vector<std::string>> cells = {
      {"backend", "kernel", "auto", "kernel ms", "e2e ms", "static A", "speedup", "predicted", "of ceiling", "of own"}};
  for (const CeilingKernel& k : kernels) {
    cells.push_back({k.backend, k.kernel, k.autoReason.empty() ? "" : "auto", fixed(k.kernelMs, 4), fixed(k.e2eMs, 4),
                     k.e2eStaticAMs ? fixed(*k.e2eStaticAMs, 4) : "-", k.speedup ? fixed(*k.speedup, 2) + "x" : "-",
                     k.predictedSpeedup ? fixed(*k.predictedSpeedup, 2) + "x" : "-", k.ceilingFraction ? fixed(*k.ceilingFraction, 2) : "-", k.ownCeilingFraction ? fixed(*k.ownCeilingFraction, 2) : "-"});
  }
  return cells;
}

int ceilingExitCode(const std::vector<BenchReport>& runs) {
  std::vector<BenchRow> rows;
  for (const BenchReport& run : runs) rows.insert(rows.end(), run.rows.begin(), run.rows.end());
  return benchExitCode(rows);
}

}  // namespace tileskip
