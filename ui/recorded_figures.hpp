// The dense ladder as recorded on a GPU, for teaching mode where no GPU is present: on lavapipe
// K2 and K3 run slower than K1, and the lesson's ladder would read backwards. The figures are
// bench/results/latest/*-teaching.json (made from its .md record by scripts/recorded_figures.py and
// checked against it by a test), embedded at build time, so the binary needs nothing beside it.
#pragma once

#include <string>
#include <vector>

namespace tileskip::ui {

struct RecordedKernel {
  std::string backend, kernel, number;  // "cuda", "naive", "K1"
  double ms = 0.0, gflops = 0.0;
};

struct RecordedFigures {
  std::string source;  // the record, "bench/results/latest/h200-teaching.md"
  std::string device;  // "NVIDIA H200"
  std::string date;    // the day it was recorded, YYYY-MM-DD
  int size = 0;        // M = N = K
  std::vector<RecordedKernel> kernels;

  // The backend's rows in catalogue order; empty when it has none.
  std::vector<RecordedKernel> of(const std::string& backend) const;
};

// The embedded figures; throws InputError if the embedded JSON does not parse (a build error).
const RecordedFigures& recordedFigures();

}  // namespace tileskip::ui
