#include "core/measure/auto_choice.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

#include "core/measure/bench.hpp"
#include "core/model/error.hpp"
#include "core/io/report.hpp"

namespace tileskip {

namespace {

const KernelInspection* bestBy(const Inspection& inspection, bool skipping) {
  const KernelInspection* best = nullptr;
  for (const KernelInspection& r : inspection.kernels) {
    if (r.kernel->skips() != skipping || r.kernel->runs(VendorRoutine::CusparseCsrSpmm)) continue;
    if (best == nullptr || r.predictedSpeedup > best->predictedSpeedup) best = &r;
  }
  return best;
}

std::string milliseconds(double ms) { return fixed(ms, 4) + " ms"; }

// CSR SpMM on an A this sparse: the model has no calibration there.
bool csrIsAGuess(const Inspection& inspection) {
  return inspection.a.density <= kSparseElementDensity &&
         std::any_of(inspection.kernels.begin(), inspection.kernels.end(),
                     [](const KernelInspection& r) { return r.kernel->runs(VendorRoutine::CusparseCsrSpmm); });
}

}  // namespace

std::vector<const KernelInfo*> kernelsToMeasure(const Inspection& inspection, const DeviceInfo& device) {
  std::vector<const KernelInfo*> candidates;
  // On a CPU device the model is the uncalibrated defaults and nothing is launch-bound the way a
  // GPU is: the ranking stands (and stays deterministic for the tests).
  if (!device.isGpu || inspection.kernels.empty()) return candidates;
  const double outputs = static_cast<double>(inspection.a.rows) * inspection.b.cols;
  if (outputs < kSmallProblemOutputs) {
    for (const KernelInspection& r : inspection.kernels) {
      if (r.refusal.empty()) candidates.push_back(r.kernel);
    }
    if (candidates.size() < 2) candidates.clear();
    return candidates;
  }
  std::vector<const KernelInfo*> wanted = {inspection.recommendation.kernel};
  double fastest = 0.0;
  for (const KernelInspection& r : inspection.kernels) {
    if (r.refusal.empty()) fastest = std::max(fastest, r.predictedSpeedup);
  }
  for (const KernelInspection& r : inspection.kernels) {
    if (r.predictedSpeedup * kModelError >= fastest) wanted.push_back(r.kernel);
  }
  if (csrIsAGuess(inspection)) {
    for (const KernelInspection& r : inspection.kernels) {
      if (r.kernel->runs(VendorRoutine::CusparseCsrSpmm)) wanted.push_back(r.kernel);
    }
    for (bool skipping : {true, false}) {
      if (const KernelInspection* best = bestBy(inspection, skipping)) wanted.push_back(best->kernel);
    }
  }
  for (const KernelInspection& r : inspection.kernels) {
    if (r.refusal.empty() && std::find(wanted.begin(), wanted.end(), r.kernel) != wanted.end()) candidates.push_back(r.kernel);
  }
  if (candidates.size() < 2) candidates.clear();  // one candidate: the model's choice stands
  return candidates;
}

Recommendation fastestMeasured(DeviceProblem& problem, const std::vector<const KernelInfo*>& candidates,
                               const std::string& why) {
  const KernelInfo* fastest = nullptr;
  double fastestMs = std::numeric_limits<double>::infinity();
  const KernelInfo* vendor = nullptr;  // the vendor's dense GEMM, where it was timed
  double vendorMs = std::numeric_limits<double>::infinity();
  std::string skipped;
  bool warm = false;
  problem.buildAhead(candidates);
  for (const KernelInfo* kernel : candidates) {
    try {
      problem.prepare(*kernel);
      // The first kernel brings the device's clock up (warmUp says why); the rest follow at once.
      if (!warm) {
        warmUp(problem, *kernel, BenchOptions{.warmup = 1}, true);
        warm = true;
      } else {
        problem.run(*kernel);
      }
      std::vector<double> times;
      for (int i = 0; i < kAutoTimedRuns; ++i) times.push_back(problem.run(*kernel));
      const double ms = summarize(std::move(times)).median;
      if (kernel->isVendorGemm()) {
        vendor = kernel;
        vendorMs = ms;
      }
      if (ms < fastestMs) {
        fastestMs = ms;
        fastest = kernel;
      }
    } catch (const UnavailableError& e) {
      skipped += "; " + std::string(kernel->id) + " cannot run here (" + e.what() + ")";
    }
  }
  if (fastest == nullptr) throw UnavailableError("auto: none of the kernels it timed can run here" + skipped);
  std::string kept;
  if (vendor != nullptr && fastest != vendor && fastestMs * kVendorMargin > vendorMs) {
    kept = "; " + std::string(vendor->id) + " kept at " + milliseconds(vendorMs) + ", " + std::string(fastest->id) +
           " not faster by " + fixed(100.0 * (kVendorMargin - 1.0), 0) + " %";
    fastest = vendor;
  }
  return {fastest, why + ": fastest of " + std::to_string(candidates.size()) + " kernels timed here, " +
                       milliseconds(fastestMs) + kept + skipped};
}

AutoChoice chooseKernel(Backend& backend, const Matrix& a, const Matrix& b, std::string aSource, std::string bSource,
                        DType dtype) {
  AutoChoice result;
  const Inspection inspection = inspectOnBackend(backend, a, b, std::move(aSource), std::move(bSource), dtype);
  result.choice = inspection.recommendation;
  if (inspection.ranked) {
    result.measured = kernelsToMeasure(inspection, backend.device());
  } else if (backend.device().isGpu) {
    for (const KernelInspection& k : inspection.kernels) {
      if (k.refusal.empty()) result.measured.push_back(k.kernel);
    }
    if (result.measured.size() < 2) result.measured.clear();
  }
  if (result.measured.empty()) return result;
  const double outputs = static_cast<double>(a.rows()) * b.cols();
  std::string why;
  if (!inspection.ranked) {
    why = "measured, as no model ranks kernels on " + std::string(dtypeName(dtype)) + " inputs here";
  } else if (outputs < kSmallProblemOutputs) {
    why = "measured, as the model is blind to a problem this small (" + std::to_string(a.rows()) + "x" +
          std::to_string(b.cols()) + " outputs)";
  } else if (csrIsAGuess(inspection)) {
    why = "measured, as the model is blind to CSR on an A " + fixed(100.0 * (1.0 - inspection.a.density), 2) +
          " % zeros";
  } else if (const auto divergent = std::find_if(result.measured.begin(), result.measured.end(),
                                                 [](const KernelInfo* k) { return k->divergent(); });
             divergent != result.measured.end()) {
    why = "measured, as " + std::string((*divergent)->id) + " skips per thread, whose divergence the model does not see";
  } else {
    why = "measured, as the model predicts these within its error of each other (" +
          fixed(100.0 * (kModelError - 1.0), 0) + " %)";
  }
  const auto start = std::chrono::steady_clock::now();
  {
    std::unique_ptr<DeviceProblem> problem = backend.upload(a, b, dtype);
    result.choice = fastestMeasured(*problem, result.measured, why);
  }
  result.measuringMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  result.choice.reason += "; choosing took " + fixed(result.measuringMs, 1) + " ms";
  return result;
}

}  // namespace tileskip
