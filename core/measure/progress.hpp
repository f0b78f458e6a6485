// Progress of a long run (bench suites, verify, tune), one line per step on stderr:
// "[3/12] vulkan warptile, about 1 min 20 s left". Always printed, not only on a terminal, so
// that a CI log shows how far a run came and tests can read it; the estimate is the mean time of
// the steps done so far times the steps left, and appears from the second step on.
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace tileskip {

// "0.4 s", "42 s", "3 min 05 s", "1 h 02 min".
std::string formatDuration(double seconds);

class ProgressMeter {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic
  using Sink = std::function<void(const std::string&)>;

  // `total` steps; each line goes to `sink`. The clock is steady_clock unless a test gives one.
  ProgressMeter(int total, Sink sink, Clock clock = {});

  // Step `what` begins: prints "[i/total] what" with the estimate of the time left.
  void begin(const std::string& what);
  int total() const { return total_; }
  int started() const { return started_; }

 private:
  int total_;
  int started_ = 0;
  Sink sink_;
  Clock clock_;
  double start_ = 0.0;
};

}  // namespace tileskip
