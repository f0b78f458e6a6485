#include "core/measure/bench.hpp"
#include "core/io/provenance.hpp"

#include <unistd.h>

#include <algorithm>
#include <limits>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <map>
#include <thread>

#include "core/model/error.hpp"
#include "core/measure/inspect.hpp"
#include "core/measure/progress.hpp"
#include "core/model/pattern.hpp"

namespace tileskip {

namespace {


const BenchRow* findTimedRow(const std::vector<BenchRow>& rows, std::string_view backend, std::string_view kernel) {
  for (const BenchRow& row : rows) {
    if ((backend.empty() || row.backend == backend) && row.kernel == kernel && row.timed()) return &row;
  }
  return nullptr;
}

void addRatios(BenchReport& report) {
  const BenchRow* baseline = nullptr;
  for (std::string_view id : kBaselinePreference) {
    if ((baseline = findTimedRow(report.rows, "", id)) != nullptr) break;
  }
  report.baselineKernel = baseline != nullptr ? baseline->kernel : "";
  for (BenchRow& row : report.rows) {
    if (!row.timed()) continue;
    const KernelInfo& info = kernelInfo(row.kernel);
    if (const BenchRow* dense = findTimedRow(report.rows, row.backend, denseReferenceKernel(report.problem.dtype));
        dense != nullptr && !info.isBaseline()) {
      row.speedupVsDense = dense->kernelMs.median / row.kernelMs.median;
      if (info.skips() && std::isfinite(row.idealSpeedup)) row.skipEfficiency = *row.speedupVsDense / row.idealSpeedup;
    }
    if (baseline != nullptr) {
      row.vsBaseline = baseline->kernelMs.median / row.kernelMs.median;
      row.endToEndVsBaseline = baseline->kernelMs.median / (row.kernelMs.median + row.prepareMs.median);
    }
  }
}

}  // namespace

Timing summarize(std::vector<double> milliseconds) {
  Timing t;
  if (milliseconds.empty()) return t;
  std::sort(milliseconds.begin(), milliseconds.end());
  std::size_t n = milliseconds.size();
  t.median = n % 2 == 1 ? milliseconds[n / 2] : 0.5 * (milliseconds[n / 2 - 1] + milliseconds[n / 2]);
  t.min = milliseconds.front();
  t.max = milliseconds.back();
  t.runs = static_cast<int>(n);
  t.medianLow = t.min;
  t.medianHigh = t.max;
  if (t.runs >= kIntervalRuns) {
    // The ranks n/2 -+ 1.96 sqrt(n)/2 (1-based) bound the median with 95 % confidence: the number
    // of runs below the true median is Binomial(n, 1/2).
    const double half = 0.98 * std::sqrt(static_cast<double>(n));
    const auto low = static_cast<std::size_t>(std::max(0.0, std::floor(0.5 * static_cast<double>(n) - half) - 1.0));
    const auto high = static_cast<std::size_t>(std::min(static_cast<double>(n) - 1.0, std::ceil(0.5 * static_cast<double>(n) + half)));
    t.medianLow = milliseconds[low];
    t.medianHigh = milliseconds[high];
  }
  return t;
}

bool runUntilStable(DeviceProblem& problem, const KernelInfo& kernel, double within, std::vector<double>& times) {
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    const Timing t = summarize(times);
    if (t.runs >= kIntervalRuns && t.spread() <= within) return true;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (t.runs >= kMaxStableRuns || seconds >= kMaxStableSeconds) return false;
    times.push_back(problem.run(kernel));
  }
}

const BenchRow* timedRow(const BenchReport& report, std::string_view backend, std::string_view kernel) {
  const BenchRow* best = nullptr;
  for (const BenchRow& row : report.rows) {
    if (!row.timed() || row.kernel != kernel || (!backend.empty() && row.backend != backend)) continue;
    if (best == nullptr || row.kernelMs.median < best->kernelMs.median) best = &row;
  }
  return best;
}

std::string utcTimestamp() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

std::string hostDescription() {
  char name[256] = "unknown";
  gethostname(name, sizeof name - 1);
  std::string cpu;
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);) {
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  }
  return std::string(name) + " (" + (cpu.empty() ? "unknown CPU" : cpu) + ", " +
         std::to_string(std::thread::hardware_concurrency()) + " threads)";
}

void checkBenchOptions(const BenchOptions& options) {
  if (options.warmup < 0) throw InputError("--warmup must be 0 or more");
  if (options.repeat < 1) throw InputError("--repeat must be at least 1");
  // A typo of a few digits must not mean hours of timing; a median needs nowhere near this.
  if (options.warmup > kMaxRepeat) throw InputError("--warmup must be at most " + std::to_string(kMaxRepeat));
  if (options.repeat > kMaxRepeat) throw InputError("--repeat must be at most " + std::to_string(kMaxRepeat));
  if (!(options.stableWithin >= 0.0 && options.stableWithin < 1.0)) {
    throw InputError("--repeat-until-stable takes a percentage above 0 and below 100");
  }
}

Reference computeReference(const Matrix& a, const Matrix& b) {
  return {referenceProduct(a, b), "float64 reference (OpenBLAS DGEMM)"};
}

int benchExitCode(const std::vector<BenchRow>& rows) {
  int code = 0;
  for (const BenchRow& row : rows) {
    if (row.timed()) continue;
    ExitCode failure = row.failureCode == ExitCode::Ok ? ExitCode::VerificationFailed : row.failureCode;
    if (failure == ExitCode::VerificationFailed) return static_cast<int>(failure);
    if (code == 0) code = static_cast<int>(failure);
  }
  return code;
}

namespace {

// Whether the last kSettleRuns times are not faster (beyond kSettleFaster) than the ones before.
bool settled(const std::vector<double>& times) {
  if (times.size() < 2 * static_cast<std::size_t>(kSettleRuns)) return false;
  auto last = times.end() - kSettleRuns;
  const double recent = summarize({last, times.end()}).median, before = summarize({last - kSettleRuns, last}).median;
  return recent >= (1.0 - kSettleFaster) * before;
}

}  // namespace

double steadyMilliseconds() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int warmUp(DeviceProblem& onDevice, const KernelInfo& kernel, const BenchOptions& options, bool isGpu,
           const WallClock& wall) {
  const double start = wall();
  std::vector<double> times;
  double busyMs = 0.0;
  auto wanted = [&] {
    const int runs = static_cast<int>(times.size());
    if (runs < options.warmup) return true;
    if (!isGpu) return false;
    if (busyMs < options.warmupMilliseconds && runs < kMaxWarmupRuns) return true;
    // A warm-up by count alone (warmupMilliseconds 0) asked for none of this; a device kept
    // busy for kClockClimbedMilliseconds has had time to climb.
    if (options.warmupMilliseconds <= 0.0 || busyMs >= kClockClimbedMilliseconds) return false;
    return !settled(times) && wall() - start < kMaxWarmupMilliseconds;
  };
  while (wanted()) {
    times.push_back(onDevice.run(kernel));
    busyMs += times.back();
  }
  return static_cast<int>(times.size());
}

BenchReport runBench(const std::vector<BenchTarget>& targets, const ProblemSpec& problem, const ProblemData& data,
                     const BenchOptions& options, const ProgressCallback& progress) {
  checkBenchOptions(options);
  auto say = [&](const std::string& text) {
    if (progress) progress(text);
  };

  BenchReport report;
  report.problem = problem;
  report.options = options;
  report.date = utcTimestamp();
  report.host = hostDescription();
  report.toolVersion = toolVersion();
  report.toolCommit = toolCommit();
  report.patternDensityA = buildAPattern(data.a, 8).density();
  report.elementDensityA = data.a.nonZeroFraction();
  report.elementDensityB = data.b.nonZeroFraction();
  report.sha256A = data.sha256A;
  report.sha256B = data.sha256B;
  report.patternDensityB = buildBPattern(data.b, 8).density();

  const double multiplyAdds = static_cast<double>(problem.m) * problem.n * problem.k;
  say("computing the reference (float64)");
  Reference computed = computeReference(data.a, data.b);
  const ReferenceProduct& reference = computed.product;
  report.referenceKind = computed.kind;

  // Statistics depend on the kernel and the operands only, not on the backend.
  std::map<const KernelInfo*, KernelInspection> inspected;
  ProblemInspector inspector(data.a, data.b);
  // One step per kernel of each target: "[i/N] backend kernel", with the time left.
  int steps = 0;
  for (const BenchTarget& target : targets) steps += static_cast<int>(target.kernels.size());
  ProgressMeter meter(steps, progress);

  for (const BenchTarget& target : targets) {
    Backend& backend = *target.backend;
    // The inputs' precision's model; where none ranks it, the predicted column is empty (the
    // features are still the fp32 model's, which reads the same patterns).
    const std::optional<SpeedModel> ranking =
        SpeedModel::forInputs(backend.name(), backend.device().name, backend.device().isGpu, problem.dtype);
    const SpeedModel model = ranking ? *ranking : SpeedModel::uncalibrated();
    const std::string modelLine = ranking ? model.name() : "none for " + std::string(dtypeName(problem.dtype)) + " inputs here";
    // A backend can be two targets (its kernels, and the baseline borrowed from it): one line each.
    for (auto [lines, line] : {std::pair{&report.devices, std::string(backend.name()) + ": " + backend.device().describe()},
                               std::pair{&report.models, std::string(backend.name()) + ": " + modelLine}}) {
      if (std::find(lines->begin(), lines->end(), line) == lines->end()) lines->push_back(line);
    }
    std::unique_ptr<DeviceProblem> onDevice;
    if (std::optional<std::string> note = backend.takeFirstBuildNote()) say(*note);
    try {
      onDevice = backend.upload(data.a, data.b, problem.dtype);
      if (data.packedA) attachWherePacked(backend, *onDevice, *data.packedA);
      onDevice->buildAhead(target.kernels);
    } catch (const Error& e) {
      for (const KernelInfo* kernel : target.kernels) {
        BenchRow row;
        row.backend = backend.name();
        row.device = backend.device().name;
        row.driver = backend.device().driver;
        row.api = backend.device().api;
        row.kernel = kernel->id;
        row.failure = e.what();
        row.failureCode = e.code();
        report.rows.push_back(std::move(row));
      }
      continue;
    }
    for (const KernelInfo* kernel : target.kernels) {
      BenchRow row;
      row.backend = backend.name();
      row.device = backend.device().name;
      row.driver = backend.device().driver;
      row.api = backend.device().api;
      row.tuneOverrides = onDevice->variantOf(*kernel);
      row.kernel = kernel->id;
      if (kernel == target.autoKernel) row.autoReason = target.autoReason;
      {
        auto it = inspected.find(kernel);
        if (it == inspected.end()) it = inspected.emplace(kernel, inspector.inspect(*kernel, model)).first;
        row.features = it->second.features;
        row.predictedSpeedup = ranking ? ranking->predictedSpeedup(*kernel, row.features) : std::numeric_limits<double>::quiet_NaN();
        if (kernel->skips()) {
          row.jointDensity = it->second.jointDensity;
          row.idealSpeedup = it->second.idealSpeedup;
        }
      }
      try {
        meter.begin(std::string(backend.name()) + " " + std::string(kernel->id) + ": verifying, then timing");
        onDevice->prepare(*kernel);
        row.roundingMs = onDevice->roundingMs();
        onDevice->poisonC();
        onDevice->run(*kernel);
        row.error = compareToReference(onDevice->downloadC(), reference);
        row.verified = row.error.passed;
        if (!row.verified) {
          row.failure = "verification failed: " + row.error.summary();
          row.failureCode = ExitCode::VerificationFailed;
        } else {
          // Before the prepare times too, so the pattern kernels are timed on a warm device as well.
          warmUp(*onDevice, *kernel, options, backend.device().isGpu);
          std::vector<double> prepareTimes, kernelTimes;
          for (int i = 0; i < options.repeat; ++i) prepareTimes.push_back(onDevice->prepare(*kernel));
          for (int i = 0; i < options.repeat; ++i) kernelTimes.push_back(onDevice->run(*kernel));
          if (options.stableWithin > 0.0) row.stable = runUntilStable(*onDevice, *kernel, options.stableWithin, kernelTimes);
          row.prepareMs = summarize(prepareTimes);
          std::vector<double> keepingATimes;
          for (int i = 0; i < options.repeat; ++i) {
            const std::optional<double> ms = onDevice->prepareKeepingA(*kernel);
            if (!ms) break;
            keepingATimes.push_back(*ms);
          }
          if (!keepingATimes.empty()) row.prepareKeepingAMs = summarize(keepingATimes);
          row.kernelMs = summarize(kernelTimes);
          if (row.kernelMs.median > 0.0) {
            row.effectiveGflops = 2.0 * multiplyAdds / (row.kernelMs.median * 1e6);
            row.usefulGflops = row.effectiveGflops * row.jointDensity;
          }
        }
      } catch (const Error& e) {
        row.verified = false;
        row.failure = e.what();
        row.failureCode = e.code();
      }
      report.rows.push_back(std::move(row));
    }
    for (std::string& message : backend.takeDiagnostics()) {
      report.diagnostics.push_back(std::string(backend.name()) + ": " + message);
    }
  }
  addRatios(report);
  return report;
}

}  // namespace tileskip
