// The viewer's live session: everything behind the panels that is not drawing. It turns what
// the person asked for (backend, kernel, problem) into an analysis (heatmaps, skip map, the
// block to teach with) and into device-timed GFLOPS of the chosen kernel, the dense reference
// kernel and the vendor baseline, each verified against the CPU reference before any of its
// times counts. It talks to kernels only through the Backend interface, so it runs whatever
// backends the build has. No ImGui, no Vulkan: tests drive it with the fake backend.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/model/backend.hpp"
#include "core/view/heatmap.hpp"
#include "core/model/problem.hpp"
#include "core/view/skip_map.hpp"

namespace tileskip::ui {

// What the person asked for; the session catches up with the latest request.
struct SessionRequest {
  std::string backend;          // a compiled backend's name
  std::string kernel;           // a catalogue id; one the backend lacks is analysed but not timed
  ProblemSpec spec;
  int patternGranularity = 32;  // of the pattern heatmaps
  bool measuring = true;        // false: keep the analysis, stop launching kernels
};

bool sameProblem(const ProblemSpec& a, const ProblemSpec& b);

// Heatmaps are aggregated to at most this many cells per side.
inline constexpr int kHeatmapCells = 128;

// Everything drawn about one problem and kernel; immutable once published.
struct ProblemAnalysis {
  ProblemSpec spec;
  const KernelInfo* kernel = nullptr;
  int patternGranularity = 32;
  double nonZeroA = 0.0, nonZeroB = 0.0;  // measured fractions of non-zero elements
  Heatmap a, b;                           // non-zeros
  Pattern aPattern, bPattern;             // at patternGranularity
  Heatmap aPatternMap, bPatternMap;
  KernelPatterns kernelPatterns;          // what the kernel reads
  SkipMap skipMap;
  std::pair<int, int> teachBlock{0, 0};   // the block teaching mode starts on
};

std::shared_ptr<const ProblemAnalysis> analyseProblem(const ProblemSpec& spec, const ProblemData& data,
                                                      const KernelInfo& kernel, int patternGranularity);

// Why a series is on the plot.
enum class SeriesRole { Kernel, DenseReference, Baseline };

struct Sample {
  double seconds = 0.0;  // since the session started
  double milliseconds = 0.0;
  double gflops = 0.0;   // effective: 2·M·N·K / time
};

struct Series {
  // Refused: the device cannot run it on this problem (a limit, such as lavapipe's loop limit);
  // Failed: it ran and gave a wrong C, or broke. Never one shown as the other.
  enum class State { Waiting, Verified, Failed, Refused, Unavailable };
  SeriesRole role = SeriesRole::Kernel;
  std::string backend;
  std::string kernel;
  State state = State::Waiting;
  std::string message;  // why it failed, was refused or is unavailable
  std::vector<Sample> samples;

  // Median time and GFLOPS of the samples of the last `window` seconds (all of them when fewer
  // than 3 fall inside); nullopt without samples.
  std::optional<double> medianMs(double now, double window = 2.0) const;
  std::optional<double> medianGflops(double now, double window = 2.0) const;
};

const char* seriesRoleName(SeriesRole role);
// The state as `view --facts` writes it: verified, failed, refused, or not run (unavailable, or
// waiting: not verified yet).
const char* seriesStateName(Series::State state);

struct SessionSnapshot {
  SessionRequest served;  // the request the figures below belong to
  bool caughtUp = false;  // served is the latest request
  std::string backendName;
  DeviceInfo device;
  std::vector<std::string> implementedKernels;  // catalogue ids the backend runs
  std::string backendError;  // the backend could not be opened
  std::string problemError;  // the problem could not be generated (too big for host memory, ...)
  std::string activity;      // what the worker is doing now, for a status line
  std::shared_ptr<const ProblemAnalysis> analysis;
  std::vector<Series> series;  // chosen kernel, dense reference, baseline (those that apply)
  std::vector<std::string> diagnostics;  // driver / validation messages, most recent last
  double now = 0.0;                       // session clock when the snapshot was taken
  bool deviceClock = false;               // the clock is device time, not wall time (LiveSession::useDeviceClock)

  const Series* find(SeriesRole role) const;
};

// The predicted and measured effect of skipping, from one snapshot.
struct SkipFigures {
  double jointDensity = 1.0;
  double predictedSpeedup = 1.0;           // 1 / joint density: the compute bound
  double loadBound = 1.0;                  // 1 / fraction of block K-blocks loaded
  std::optional<double> measuredSpeedup;   // dense reference median / kernel median
  std::optional<double> skipEfficiency;    // measured / predicted
  std::optional<double> usefulGflops;      // kernel GFLOPS x joint density
  std::optional<double> vsBaseline;        // baseline median / kernel median
};
SkipFigures skipFigures(const SessionSnapshot& snapshot);

class LiveSession {
 public:
  using BackendOpener = std::function<std::unique_ptr<Backend>(const std::string& name)>;

  explicit LiveSession(BackendOpener opener);
  ~LiveSession();
  LiveSession(const LiveSession&) = delete;
  LiveSession& operator=(const LiveSession&) = delete;

  void request(const SessionRequest& request);  // thread-safe
  SessionSnapshot snapshot() const;             // thread-safe

  // One unit of work: catch up with the latest request, or verify or time one kernel once.
  // Returns false when there is nothing to do. Never throws: failures land in the snapshot.
  bool step();
  // True once the latest request is served and every series has `samples` samples or cannot
  // get any (failed verification, not implemented, backend unavailable).
  bool settled(int samples) const;

  // Runs step() on a worker thread until stop() (or destruction), resting after each launch as
  // long as it took (at most 50 ms on a GPU, 0.5 s on a CPU device such as lavapipe), so the
  // UI keeps its share of the device.
  void start();
  void stop();

  // From now on the session's clock is the device time its timed runs reported, summed: a
  // sample is stamped with it, a snapshot's clock stands at it, and the scheduler shares it out
  // among the series instead of wall time. The offscreen viewer asks for this, so that its picture
  // is the same however busy the machine is (on a loaded CI machine wall time squeezed the
  // dense reference's samples into a sliver of the throughput plot). A window keeps the wall clock.
  void useDeviceClock();

 private:
  struct Worker;
  double clock() const;
  void publish(const std::function<void(SessionSnapshot&)>& change);
  void catchUp(const SessionRequest& latest);
  bool measureOne();

  BackendOpener opener_;
  std::chrono::steady_clock::time_point start_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  SessionRequest latest_;
  std::uint64_t latestId_ = 0;
  SessionSnapshot snapshot_;
  std::unique_ptr<Worker> worker_;  // state only the stepping thread touches
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  bool deviceClock_ = false;   // guarded by mutex_
  double deviceSeconds_ = 0.0; // the device clock: guarded by mutex_
};

}  // namespace tileskip::ui
