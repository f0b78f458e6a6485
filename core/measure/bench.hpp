// The benchmark harness: every kernel is verified against the reference on the same inputs
// before its time counts; then warm-up, repeated device-timed runs, and median/min/max.
// Ratios (vs the dense reference kernel, vs the vendor baseline) come from the same run.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/model/backend.hpp"
#include "core/model/error.hpp"
#include "core/model/problem.hpp"
#include "core/model/reference.hpp"
#include "core/measure/speed_model.hpp"

namespace tileskip {

// Baselines in order of preference for the "vs baseline" column: the vendor library of the
// GPU when it ran, the host BLAS otherwise.
inline constexpr std::string_view kBaselinePreference[] = {"cublas", "cpu"};

struct Timing {
  double median = 0.0, min = 0.0, max = 0.0;
  int runs = 0;
  // The median's 95 % confidence interval, from the order statistics alone (no assumption on
  // how times are distributed): min to max below kIntervalRuns runs, which are too few for one.
  double medianLow = 0.0, medianHigh = 0.0;
  // Half the interval's width over the median: the median's relative uncertainty.
  double spread() const { return median > 0.0 ? 0.5 * (medianHigh - medianLow) / median : 0.0; }
};
inline constexpr int kIntervalRuns = 6;

Timing summarize(std::vector<double> milliseconds);

// Runs `kernel` again, adding to `times`, until the median's interval is within `within` of it
// (Timing::spread) or the limits of BenchOptions::stableWithin are reached; whether it closed.
bool runUntilStable(DeviceProblem& problem, const KernelInfo& kernel, double within, std::vector<double>& times);

// The most --repeat (and --warmup) runs a command takes (checkBenchOptions).
inline constexpr int kMaxRepeat = 100000;

// The product every timed kernel is checked against: A·B and |A|·|B| in float64 (OpenBLAS DGEMM).
struct Reference {
  ReferenceProduct product;
  std::string kind;  // "float64 reference (OpenBLAS DGEMM)"
};
Reference computeReference(const Matrix& a, const Matrix& b);

struct BenchRow {
  std::string backend;
  std::string device;
  std::string driver;         // the device's driver ("580.159.04", "Mesa 22.3.6"; "" for the host BLAS)
  std::string api;            // "Vulkan 1.3.239", "CUDA 13.0", "OpenBLAS 0.3.21"
  std::string tuneOverrides;  // tiles and switches that replaced the catalogue's ("" for none)
  std::string kernel;
  bool verified = false;
  std::string failure;     // why the kernel has no time: verification failed, device error, ...
  ExitCode failureCode = ExitCode::Ok;  // VerificationFailed only for a wrong C; Unavailable, BadInput, ...
  ErrorReport error;
  Timing kernelMs;
  // With --repeat-until-stable: whether the median's interval closed within the limits.
  std::optional<bool> stable;
  Timing prepareMs;        // per-kernel preprocessing (patterns, CSR conversion)
  // The same with A's part built once and kept (DeviceProblem::prepareKeepingA): a static A's
  // per-call preparation. Nothing where the backend does not time it apart.
  std::optional<Timing> prepareKeepingAMs;
  double roundingMs = 0.0;  // the problem's copies of A and B in its dtype (DeviceProblem::roundingMs), once
  double effectiveGflops = 0.0;  // 2·M·N·K / median time
  double usefulGflops = 0.0;     // the rank-1 updates the kernel's joint pattern keeps / median time
  double jointDensity = 1.0;     // at the kernel's granularities (1 for dense kernels)
  double idealSpeedup = 1.0;     // 1 / jointDensity
  std::optional<double> speedupVsDense;  // dense reference median / this median, same backend
  std::optional<double> skipEfficiency;  // speedupVsDense / idealSpeedup (skipping kernels)
  std::optional<double> vsBaseline;      // baseline median / this median (>1: faster than it)
  std::optional<double> endToEndVsBaseline;  // same with preprocessing included in this kernel's time
  double predictedSpeedup = 1.0;  // over the dense reference, by the backend's speed model (core/measure/inspect.hpp)
  SkipFeatures features;          // what the model read (bench/calibrate_model.py fits it from these)
  std::string autoReason;         // set where --kernel auto chose this kernel: why

  bool timed() const { return verified && failure.empty(); }
};

// The exit code for rows of a run: 0 when every row was timed; 1 (VerificationFailed) when some
// kernel gave a wrong C; otherwise the code of the first failure (3 for a device that cannot run
// the problem, 2 for bad input), so that exit 1 always means a failed verification.
int benchExitCode(const std::vector<BenchRow>& rows);

struct BenchOptions {
  int warmup = 2;
  int repeat = 10;
  // On a GPU, warm-up also lasts until the kernel has kept the device busy this long (within
  // kMaxWarmupRuns), then while its runs are still getting faster (warmUp): caches settle by
  // time, not by count, and a GPU's clock by how long it has been kept at work.
  double warmupMilliseconds = 500.0;
  // --repeat-until-stable PCT (as a fraction; 0: off): after `repeat` runs a kernel goes on
  // running until its median's 95 % interval is within this of the median (Timing::spread), for
  // gates on devices whose times wander, within kMaxStableRuns runs and kMaxStableSeconds.
  double stableWithin = 0.0;
};
inline constexpr int kMaxStableRuns = 1000;
inline constexpr double kMaxStableSeconds = 30.0;

// A GPU left idle (by the CPU's reference, a driver's pipeline compile) drops its clock: an H200
// went from 1980 to 345 MHz after about 2.5 s idle and climbed back only after some 0.3 s of our
// submissions at the low clock and 0.1 s of the climb, so a warm-up of 200 ms of kernel time
// ended before the climb and the timed runs were 3-5x slow (lab/13-gpu-clock). Hence the
// 500 ms default above, a count that lets a short kernel reach it, and then: warm-up goes on
// while the median of the last kSettleRuns runs is more than kSettleFaster faster than that of
// the kSettleRuns before, until the device has been busy kClockClimbedMilliseconds, within
// kMaxWarmupMilliseconds of wall time.
inline constexpr int kMaxWarmupRuns = 2000;
inline constexpr double kClockClimbedMilliseconds = 1000.0;
inline constexpr int kSettleRuns = 3;
inline constexpr double kSettleFaster = 0.02;
inline constexpr double kMaxWarmupMilliseconds = 3000.0;

// Milliseconds on a monotonic clock: the wall time warm-up limits itself by (a test's own).
using WallClock = std::function<double()>;
double steadyMilliseconds();

// Runs `kernel` untimed: options.warmup times and, on a GPU, until it has kept the device busy
// options.warmupMilliseconds (within kMaxWarmupRuns) and its times have settled (above).
// Returns the number of runs.
int warmUp(DeviceProblem& onDevice, const KernelInfo& kernel, const BenchOptions& options, bool isGpu,
           const WallClock& wall = steadyMilliseconds);

// Throws InputError unless warmup >= 0 and repeat >= 1 (runBench checks this first).
void checkBenchOptions(const BenchOptions& options);

struct BenchTarget {
  Backend* backend;
  std::vector<const KernelInfo*> kernels;
  // --kernel auto: the kernel inspect recommended on this backend (one of `kernels`) and why.
  const KernelInfo* autoKernel = nullptr;
  std::string autoReason = {};
};

struct BenchReport {
  ProblemSpec problem;
  BenchOptions options;
  std::string date;            // UTC, ISO 8601
  std::string host;
  std::string toolVersion, toolCommit;  // of the tileskip that ran it (core/io/provenance.hpp)
  std::vector<std::string> devices;  // "backend: device description"
  std::string baselineKernel;  // the row the vsBaseline column divides by ("" if none ran)
  std::vector<std::string> models;  // "backend: speed model" for the predicted column
  std::string referenceKind;   // how C was checked
  double patternDensityA = 0.0, patternDensityB = 0.0;  // at granularity 8, for context
  // The operands' real non-zero fractions: what a file holds, not what a generator was asked for.
  double elementDensityA = 0.0, elementDensityB = 0.0;
  std::string sha256A, sha256B;  // a file operand's SHA-256, empty where generated
  std::vector<BenchRow> rows;
  std::vector<std::string> diagnostics;  // driver / validation messages
};

using ProgressCallback = std::function<void(const std::string&)>;

// Runs every target's kernels on A and B (generated from `problem` by the caller). Never throws
// for a kernel that fails: its row says why. Throws for bad inputs.
BenchReport runBench(const std::vector<BenchTarget>& targets, const ProblemSpec& problem, const ProblemData& data,
                     const BenchOptions& options, const ProgressCallback& progress = {});

// The fastest verified row of `kernel` on `backend` ("" for any backend), or null.
const BenchRow* timedRow(const BenchReport& report, std::string_view backend, std::string_view kernel);

// UTC, to the second: "YYYY-MM-DDThh:mm:ssZ"
std::string utcTimestamp();
std::string hostDescription();

}  // namespace tileskip
