#include "ui/live_session.hpp"

#include <algorithm>
#include <cmath>

#include "core/measure/bench.hpp"
#include "core/measure/multiply.hpp"
#include "core/model/error.hpp"
#include "core/model/reference.hpp"

namespace tileskip::ui {

namespace {

constexpr int kSkipMapCells = 160;
constexpr double kSampleHistorySeconds = 60.0;
constexpr std::size_t kMaxDiagnostics = 20;

// Share of the worker's time each role gets when several are due: a slow baseline (OpenBLAS
// at 4096 on a laptop takes seconds) must not starve the kernel being watched.
double timeShare(SeriesRole role) {
  switch (role) {
    case SeriesRole::Kernel: return 0.5;
    case SeriesRole::DenseReference: return 0.3;
    case SeriesRole::Baseline: return 0.2;
  }
  return 0.2;
}

std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  return summarize(std::move(values)).median;
}

// The samples of the last `window` seconds, or the last 3 when fewer fall inside.
template <typename Field>
std::optional<double> recentMedian(const std::vector<Sample>& samples, double now, double window, Field field) {
  std::vector<double> values;
  for (const Sample& s : samples) {
    if (s.seconds >= now - window) values.push_back(field(s));
  }
  if (values.size() < 3) {
    values.clear();
    std::size_t first = samples.size() > 3 ? samples.size() - 3 : 0;
    for (std::size_t i = first; i < samples.size(); ++i) values.push_back(field(samples[i]));
  }
  return median(std::move(values));
}

}  // namespace

bool sameProblem(const ProblemSpec& a, const ProblemSpec& b) {
  return a == b;
}

std::shared_ptr<const ProblemAnalysis> analyseProblem(const ProblemSpec& spec, const ProblemData& data,
                                                      const KernelInfo& kernel, int patternGranularity) {
  auto analysis = std::make_shared<ProblemAnalysis>();
  analysis->spec = spec;
  analysis->kernel = &kernel;
  analysis->patternGranularity = patternGranularity;
  analysis->nonZeroA = static_cast<double>(data.a.countNonZeros()) / static_cast<double>(data.a.size());
  analysis->nonZeroB = static_cast<double>(data.b.countNonZeros()) / static_cast<double>(data.b.size());
  analysis->a = nonZeroHeatmap(data.a, kHeatmapCells);
  analysis->b = nonZeroHeatmap(data.b, kHeatmapCells);
  analysis->aPattern = buildAPattern(data.a, patternGranularity);
  analysis->bPattern = buildBPattern(data.b, patternGranularity);
  analysis->aPatternMap = patternHeatmap(analysis->aPattern, kHeatmapCells);
  analysis->bPatternMap = patternHeatmap(analysis->bPattern, kHeatmapCells);
  analysis->kernelPatterns = kernelPatterns(kernel, data.a, data.b);
  analysis->skipMap = buildSkipMap(kernel, analysis->kernelPatterns, kSkipMapCells);
  analysis->teachBlock = mostInstructiveBlock(kernel, analysis->kernelPatterns, 256);
  return analysis;
}

const char* seriesRoleName(SeriesRole role) {
  switch (role) {
    case SeriesRole::Kernel: return "kernel";
    case SeriesRole::DenseReference: return "dense reference";
    case SeriesRole::Baseline: return "baseline";
  }
  return "?";
}

const char* seriesStateName(Series::State state) {
  switch (state) {
    case Series::State::Verified: return "verified";
    case Series::State::Failed: return "failed";
    case Series::State::Refused: return "refused";
    case Series::State::Waiting:
    case Series::State::Unavailable: return "not run";
  }
  return "?";
}

std::optional<double> Series::medianMs(double now, double window) const {
  return recentMedian(samples, now, window, [](const Sample& s) { return s.milliseconds; });
}

std::optional<double> Series::medianGflops(double now, double window) const {
  return recentMedian(samples, now, window, [](const Sample& s) { return s.gflops; });
}

const Series* SessionSnapshot::find(SeriesRole role) const {
  for (const Series& s : series) {
    if (s.role == role) return &s;
  }
  return nullptr;
}

SkipFigures skipFigures(const SessionSnapshot& snapshot) {
  SkipFigures f;
  if (snapshot.analysis) {
    f.jointDensity = snapshot.analysis->skipMap.stats.jointDensity;
    f.predictedSpeedup = snapshot.analysis->skipMap.stats.idealSpeedup();
    f.loadBound = snapshot.analysis->skipMap.loads.loadBound();
  }
  auto medianOf = [&](SeriesRole role) -> std::optional<double> {
    const Series* s = snapshot.find(role);
    return s != nullptr ? s->medianMs(snapshot.now) : std::nullopt;
  };
  std::optional<double> kernel = medianOf(SeriesRole::Kernel);
  std::optional<double> dense = medianOf(SeriesRole::DenseReference);
  std::optional<double> baseline = medianOf(SeriesRole::Baseline);
  if (kernel && *kernel > 0.0) {
    if (const Series* s = snapshot.find(SeriesRole::Kernel)) {
      if (std::optional<double> g = s->medianGflops(snapshot.now)) f.usefulGflops = *g * f.jointDensity;
    }
    if (dense) {
      f.measuredSpeedup = *dense / *kernel;
      if (std::isfinite(f.predictedSpeedup)) f.skipEfficiency = *f.measuredSpeedup / f.predictedSpeedup;
    }
    if (baseline) f.vsBaseline = *baseline / *kernel;
  }
  return f;
}

// State only the stepping thread touches.
struct LiveSession::Worker {
  struct Target {
    Backend* backend = nullptr;
    bool onBaselineBackend = false;
    const KernelInfo* kernel = nullptr;
    double secondsSpent = 0.0;
  };
  std::uint64_t servedId = 0;
  SessionRequest served;
  std::unique_ptr<Backend> backend;
  std::string backendName;
  bool backendTried = false;
  std::unique_ptr<Backend> baselineBackend;  // the host BLAS, when the main backend has no vendor baseline
  std::optional<ProblemData> data;
  std::optional<ReferenceProduct> reference;
  // A and B on the main backend's device and on the baseline's: uploaded once per problem.
  std::unique_ptr<MultiplySession> onDevice, onBaselineDevice;
  std::vector<Target> targets;  // one per snapshot series, in the same order
  double pauseSeconds = 0.0;  // how long the thread rests after the last launch
};

LiveSession::LiveSession(BackendOpener opener)
    : opener_(std::move(opener)), start_(std::chrono::steady_clock::now()), worker_(std::make_unique<Worker>()) {}

LiveSession::~LiveSession() { stop(); }

double LiveSession::clock() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void LiveSession::request(const SessionRequest& request) {
  {
    std::lock_guard lock(mutex_);
    latest_ = request;
    latestId_ += 1;
    snapshot_.caughtUp = false;
  }
  wake_.notify_all();
}

SessionSnapshot LiveSession::snapshot() const {
  std::lock_guard lock(mutex_);
  SessionSnapshot copy = snapshot_;
  copy.now = deviceClock_ ? deviceSeconds_ : clock();
  copy.deviceClock = deviceClock_;
  return copy;
}

void LiveSession::useDeviceClock() {
  std::lock_guard lock(mutex_);
  deviceClock_ = true;
}

void LiveSession::publish(const std::function<void(SessionSnapshot&)>& change) {
  std::lock_guard lock(mutex_);
  change(snapshot_);
}

bool LiveSession::settled(int samples) const {
  std::lock_guard lock(mutex_);
  if (!snapshot_.caughtUp || !snapshot_.analysis) return false;
  if (!snapshot_.served.measuring) return true;
  return std::all_of(snapshot_.series.begin(), snapshot_.series.end(), [&](const Series& s) {
    return s.state == Series::State::Failed || s.state == Series::State::Refused || s.state == Series::State::Unavailable ||
           static_cast<int>(s.samples.size()) >= samples;
  });
}

bool LiveSession::step() {
  SessionRequest latest;
  std::uint64_t id = 0;
  {
    std::lock_guard lock(mutex_);
    latest = latest_;
    id = latestId_;
  }
  if (id == 0) return false;  // nothing asked yet
  Worker& w = *worker_;
  if (w.servedId != id) {
    catchUp(latest);
    w.servedId = id;
    std::lock_guard lock(mutex_);
    snapshot_.caughtUp = latestId_ == id;
    return true;
  }
  return measureOne();
}

void LiveSession::catchUp(const SessionRequest& latest) {
  Worker& w = *worker_;
  auto activity = [&](const std::string& text) { publish([&](SessionSnapshot& s) { s.activity = text; }); };
  bool seriesStale = false;

  if (!w.backendTried || w.backendName != latest.backend) {
    activity("opening the " + latest.backend + " backend");
    w.onDevice.reset();
    w.onBaselineDevice.reset();
    w.baselineBackend.reset();
    w.backend.reset();
    w.backendName = latest.backend;
    w.backendTried = true;
    std::string error;
    try {
      w.backend = opener_(latest.backend);
    } catch (const std::exception& e) {
      error = e.what();
    }
    DeviceInfo device = w.backend ? w.backend->device() : DeviceInfo{};
    std::vector<std::string> implemented;
    for (const KernelInfo& k : kCatalogue) {
      if (w.backend && w.backend->implements(k.id)) implemented.emplace_back(k.id);
    }
    publish([&](SessionSnapshot& s) {
      s.backendName = latest.backend;
      s.device = device;
      s.implementedKernels = std::move(implemented);
      s.backendError = error;
    });
    seriesStale = true;
  }

  const KernelInfo* kernel = findKernelInfo(latest.kernel);
  if (kernel == nullptr) kernel = &kernelInfo(kDenseReferenceKernel);
  bool problemChanged = !w.data || !sameProblem(w.served.spec, latest.spec);
  if (problemChanged) {
    activity("generating A and B: " + latest.spec.describe());
    w.onDevice.reset();
    w.onBaselineDevice.reset();
    w.reference.reset();
    w.data.reset();
    std::string error;
    try {
      w.data = generateProblem(latest.spec);
    } catch (const std::bad_alloc&) {
      error = "not enough host memory for A and B at " + latest.spec.describe();
    } catch (const std::exception& e) {
      error = e.what();
    }
    publish([&](SessionSnapshot& s) {
      s.problemError = error;
      if (!error.empty()) s.analysis.reset();
    });
    seriesStale = true;
  }
  seriesStale = seriesStale || w.served.kernel != latest.kernel;

  if (w.data) {
    std::shared_ptr<const ProblemAnalysis> current = snapshot().analysis;
    if (problemChanged || !current || current->kernel != kernel || current->patternGranularity != latest.patternGranularity) {
      activity("analysing patterns and skips");
      auto analysis = analyseProblem(latest.spec, *w.data, *kernel, latest.patternGranularity);
      publish([&](SessionSnapshot& s) { s.analysis = std::move(analysis); });
    }
  }

  if (seriesStale) {
    std::vector<Series> series;
    w.targets.clear();
    auto add = [&](SeriesRole role, const KernelInfo& k) {
      Series s;
      s.role = role;
      s.kernel = k.id;
      s.backend = latest.backend;
      Worker::Target t;
      t.kernel = &k;
      if (!w.data) {
        s.state = Series::State::Unavailable;
        s.message = "no problem";
      } else if (!w.backend) {
        s.state = Series::State::Unavailable;
        s.message = "the " + latest.backend + " backend is unavailable";
      } else if (!k.takes(latest.spec.dtype)) {
        s.state = Series::State::Unavailable;
        s.message = std::string(k.id) + " does not take " + std::string(dtypeName(latest.spec.dtype)) + " inputs";
      } else if (w.backend->implements(k.id)) {
        t.backend = w.backend.get();
      } else if (role == SeriesRole::Baseline && k.runs(VendorRoutine::OpenblasSgemm) && latest.backend != "cpu") {
        // Borrow the host BLAS from the cpu backend, as `bench` does.
        try {
          if (!w.baselineBackend) w.baselineBackend = opener_("cpu");
          t.backend = w.baselineBackend.get();
          t.onBaselineBackend = true;
          s.backend = "cpu";
        } catch (const std::exception& e) {
          s.state = Series::State::Unavailable;
          s.message = e.what();
        }
      } else {
        s.state = Series::State::Unavailable;
        s.message = "the " + latest.backend + " backend does not implement " + std::string(k.id);
      }
      series.push_back(std::move(s));
      w.targets.push_back(t);
    };
    add(SeriesRole::Kernel, *kernel);
    const KernelInfo& dense = kernelInfo(denseReferenceKernel(latest.spec.dtype));
    if (kernel != &dense && !kernel->isBaseline()) add(SeriesRole::DenseReference, dense);
    // The vendor baseline of this backend if it has one, else the host BLAS.
    const KernelInfo* baseline = &kernelInfo(kBaselinePreference[std::size(kBaselinePreference) - 1]);
    for (std::string_view id : kBaselinePreference) {
      if (w.backend && w.backend->implements(id)) {
        baseline = &kernelInfo(id);
        break;
      }
    }
    if (baseline != kernel) add(SeriesRole::Baseline, *baseline);
    publish([&](SessionSnapshot& s) { s.series = std::move(series); });
  }

  w.served = latest;
  publish([&](SessionSnapshot& s) {
    s.served = latest;
    s.activity = latest.measuring ? "measuring" : "paused";
  });
}

bool LiveSession::measureOne() {
  Worker& w = *worker_;
  if (!w.served.measuring || !w.data) return false;
  std::vector<std::pair<Series::State, SeriesRole>> states;
  bool deviceClock = false;
  {
    std::lock_guard lock(mutex_);
    for (const Series& s : snapshot_.series) states.emplace_back(s.state, s.role);
    deviceClock = deviceClock_;
  }
  // Series not yet verified go first; then the one with the least time spent for its share.
  int pick = -1;
  double best = 0.0;
  for (std::size_t i = 0; i < w.targets.size() && i < states.size(); ++i) {
    auto [state, role] = states[i];
    if (state != Series::State::Waiting && state != Series::State::Verified) continue;
    double score = state == Series::State::Waiting ? -1.0 : w.targets[i].secondsSpent / timeShare(role);
    if (pick < 0 || score < best) {
      pick = static_cast<int>(i);
      best = score;
    }
  }
  if (pick < 0) return false;
  auto index = static_cast<std::size_t>(pick);
  Worker::Target& target = w.targets[index];
  Backend& backend = *target.backend;
  std::unique_ptr<MultiplySession>& onDevice = target.onBaselineBackend ? w.onBaselineDevice : w.onDevice;
  auto started = std::chrono::steady_clock::now();

  Series::State state = states[index].first;
  std::string failure;
  std::optional<Sample> sample;
  try {
    if (!onDevice) {
      publish([&](SessionSnapshot& s) { s.activity = "uploading A and B to " + std::string(backend.name()); });
      onDevice = std::make_unique<MultiplySession>(backend, w.data->a, w.data->b, w.served.spec.dtype);
    }
    if (state == Series::State::Waiting) {
      if (!w.reference) {
        publish([&](SessionSnapshot& s) { s.activity = "computing the reference C (float64)"; });
        w.reference = referenceProduct(w.data->a, w.data->b);
      }
      publish([&](SessionSnapshot& s) { s.activity = "verifying " + std::string(target.kernel->id); });
      VerifyResult result = onDevice->verify(*target.kernel, *w.data, *w.reference);
      state = result.passed() ? Series::State::Verified : result.refused ? Series::State::Refused : Series::State::Failed;
      failure = result.failure;
    } else {
      double ms = onDevice->time(*target.kernel);
      const ProblemSpec& p = w.served.spec;
      double flops = 2.0 * static_cast<double>(p.m) * p.n * p.k;
      sample = Sample{clock(), ms, ms > 0.0 ? flops / (ms * 1e6) : 0.0};  // a device clock stamps it as it lands
    }
  } catch (const UnavailableError& e) {
    state = Series::State::Refused;  // a limit of this device, not a wrong answer
    failure = e.what();
  } catch (const std::exception& e) {
    state = Series::State::Failed;
    failure = e.what();
  }
  double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // On the device clock a verification costs nothing and a run what the device reported.
  target.secondsSpent += deviceClock ? (sample ? sample->milliseconds / 1000.0 : 0.0) : spent;
  // Rest as long as the launch took: a GPU kernel of a few ms leaves the GPU to the UI's frames,
  // and a CPU device (lavapipe, OpenBLAS) leaves the UI half the cores.
  w.pauseSeconds = std::min(spent, backend.device().isGpu ? 0.05 : 0.5);
  std::vector<std::string> diagnostics = backend.takeDiagnostics();

  publish([&](SessionSnapshot& s) {
    if (index >= s.series.size()) return;
    Series& series = s.series[index];
    series.state = state;
    if (!failure.empty()) series.message = failure;
    if (sample) {
      if (deviceClock_) {
        deviceSeconds_ += sample->milliseconds / 1000.0;
        sample->seconds = deviceSeconds_;
      }
      series.samples.push_back(*sample);
      auto old = std::find_if(series.samples.begin(), series.samples.end(),
                              [&](const Sample& x) { return x.seconds >= sample->seconds - kSampleHistorySeconds; });
      series.samples.erase(series.samples.begin(), old);
    }
    for (std::string& d : diagnostics) s.diagnostics.push_back(std::string(backend.name()) + ": " + d);
    if (s.diagnostics.size() > kMaxDiagnostics) {
      s.diagnostics.erase(s.diagnostics.begin(), s.diagnostics.end() - static_cast<long>(kMaxDiagnostics));
    }
    s.activity = "measuring";
  });
  return true;
}

void LiveSession::start() {
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] {
    while (!stopping_) {
      bool worked = step();
      double pause = worker_->pauseSeconds;
      worker_->pauseSeconds = 0.0;
      std::unique_lock lock(mutex_);
      // A new request ends the rest at once: the person is waiting to see its effect.
      auto wait = std::chrono::duration<double>(worked ? pause : 0.05);
      wake_.wait_for(lock, wait, [&] { return stopping_.load() || latestId_ != worker_->servedId; });
    }
  });
}

void LiveSession::stop() {
  stopping_ = true;
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace tileskip::ui
