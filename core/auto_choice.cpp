#include "core/auto_choice.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

#include "core/bench.hpp"
#include "core/error.hpp"
#include "core/report.hpp"

namespace tileskip {

namespace {

const KernelInspection* bestBy(const Inspection& inspection, bool skipping) {
  const KernelInspection* best = nullptr;
  for (const KernelInspection& r : inspection.kernels) {
    if (r.kernel->skips() != skipping || r.kernel->id == "cusparse-csr") continue;
    if (best == nullptr || r.predictedSpeedup > best->predictedSpeedup) best = &r;
  }
  return best;
}

std::string milliseconds(double ms) { return fixed(ms, 4) + " ms"; }

}  // namespace

std::vector<const KernelInfo*> kernelsToMeasure(const Inspection& inspection, const DeviceInfo& device) {
  std::vector<const KernelInfo*> candidates;
  // On a CPU device the model is the uncalibrated defaults and nothing is launch-bound the way a
  // GPU is: the ranking stands (and stays deterministic for the tests).
  if (!device.isGpu || inspection.kernels.empty()) return candidates;
  const double outputs = static_cast<double>(inspection.a.rows) * inspection.b.cols;
  if (outputs < kSmallProblemOutputs) {
    for (const KernelInspection& r : inspection.kernels) candidates.push_back(r.kernel);
    return candidates;
  }
  const auto csr = std::find_if(inspection.kernels.begin(), inspection.kernels.end(),
                                [](const KernelInspection& r) { return r.kernel->id == "cusparse-csr"; });
  if (csr == inspection.kernels.end() || inspection.a.density > kSparseElementDensity) return candidates;
  candidates.push_back(csr->kernel);
  for (bool skipping : {true, false}) {
    if (const KernelInspection* best = bestBy(inspection, skipping)) candidates.push_back(best->kernel);
  }
  if (std::find(candidates.begin(), candidates.end(), inspection.recommendation.kernel) == candidates.end()) {
    candidates.push_back(inspection.recommendation.kernel);
  }
  return candidates;
}

Recommendation fastestMeasured(DeviceProblem& problem, const std::vector<const KernelInfo*>& candidates,
                               const std::string& why) {
  const KernelInfo* fastest = nullptr;
  double fastestMs = std::numeric_limits<double>::infinity();
  std::string skipped;
  for (const KernelInfo* kernel : candidates) {
    try {
      problem.prepare(*kernel);
      problem.run(*kernel);  // warm-up
      std::vector<double> times;
      for (int i = 0; i < kAutoTimedRuns; ++i) times.push_back(problem.run(*kernel));
      const double ms = summarize(std::move(times)).median;
      if (ms < fastestMs) {
        fastestMs = ms;
        fastest = kernel;
      }
    } catch (const UnavailableError& e) {
      skipped += "; " + std::string(kernel->id) + " cannot run here (" + e.what() + ")";
    }
  }
  if (fastest == nullptr) throw UnavailableError("auto: none of the kernels it timed can run here" + skipped);
  return {fastest, why + ": fastest of " + std::to_string(candidates.size()) + " kernels timed here, " +
                       milliseconds(fastestMs) + skipped};
}

AutoChoice chooseKernel(Backend& backend, const Matrix& a, const Matrix& b, std::string aSource, std::string bSource) {
  AutoChoice result;
  const Inspection inspection = inspectOnBackend(backend, a, b, std::move(aSource), std::move(bSource));
  result.choice = inspection.recommendation;
  result.measured = kernelsToMeasure(inspection, backend.device());
  if (result.measured.empty()) return result;
  const double outputs = static_cast<double>(a.rows()) * b.cols();
  const std::string why = outputs < kSmallProblemOutputs
                              ? "measured, as the model is blind to a problem this small (" +
                                    std::to_string(a.rows()) + "x" + std::to_string(b.cols()) + " outputs)"
                              : "measured, as the model is blind to CSR on an A " +
                                    fixed(100.0 * (1.0 - inspection.a.density), 2) + " % zeros";
  const auto start = std::chrono::steady_clock::now();
  {
    std::unique_ptr<DeviceProblem> problem = backend.upload(a, b);
    result.choice = fastestMeasured(*problem, result.measured, why);
  }
  result.measuringMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  result.choice.reason += "; choosing took " + fixed(result.measuringMs, 1) + " ms";
  return result;
}

}  // namespace tileskip
