// The ladder as recorded on a GPU, for teaching mode where no GPU is present: on lavapipe K2 and
// K3 run slower than K1, and the lesson's ladder would read backwards. The dense kernels in fp32
// and the tensor-core ones in 16 bits, each beside cuBLAS. The figures are
// bench/results/latest/*-ladder.json (made from its .md record by scripts/recorded_figures.py and
// checked against it by a test), embedded at build time, so the binary needs nothing beside it.
#pragma once

#include <string>
#include <vector>

namespace tileskip::ui {

struct RecordedKernel {
  std::string backend, kernel, dtype;  // "cuda", "naive", "fp32"
  double ms = 0.0, gflops = 0.0;
  // "K1", from the catalogue (never stored with the figures); a baseline's name where it has
  // no number: "cuBLAS".
  std::string label() const;
};

struct RecordedFigures {
  std::string source;  // the record, "bench/results/latest/h200-ladder.md"
  std::string device;  // "NVIDIA H200"
  std::string date;    // the day it was recorded, YYYY-MM-DD
  int size = 0;        // M = N = K
  std::vector<RecordedKernel> kernels;

  // The backend's rows in `dtype`, in catalogue order; empty when it has none.
  std::vector<RecordedKernel> of(const std::string& backend, const std::string& dtype = "fp32") const;
};

// The embedded figures; throws InputError if the embedded JSON does not parse (a build error).
const RecordedFigures& recordedFigures();

}  // namespace tileskip::ui
