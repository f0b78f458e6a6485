#include "core/measure/progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tileskip {

std::string formatDuration(double seconds) {
  char text[48];
  seconds = std::max(0.0, seconds);
  if (seconds < 10.0) {
    std::snprintf(text, sizeof text, "%.1f s", seconds);
  } else if (seconds < 60.0) {
    std::snprintf(text, sizeof text, "%.0f s", seconds);
  } else if (seconds < 3600.0) {
    long whole = std::lround(seconds);
    std::snprintf(text, sizeof text, "%ld min %02ld s", whole / 60, whole % 60);
  } else {
    long minutes = std::lround(seconds / 60.0);
    std::snprintf(text, sizeof text, "%ld h %02ld min", minutes / 60, minutes % 60);
  }
  return text;
}

ProgressMeter::ProgressMeter(int total, Sink sink, Clock clock)
    : total_(std::max(total, 0)), sink_(std::move(sink)), clock_(std::move(clock)) {
  if (!clock_) {
    clock_ = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
  }
  start_ = clock_();
}

void ProgressMeter::begin(const std::string& what) {
  ++started_;
  // A run may find more steps than it announced (a kernel that cannot run adds none, a new
  // case adds one): the count grows rather than read "[13/12]".
  total_ = std::max(total_, started_);
  std::string line = "[" + std::to_string(started_) + "/" + std::to_string(total_) + "] " + what;
  int done = started_ - 1;
  if (done > 0) {
    double perStep = (clock_() - start_) / done;
    line += ", about " + formatDuration(perStep * (total_ - done)) + " left";
  }
  if (sink_) sink_(line);
}

}  // namespace tileskip
