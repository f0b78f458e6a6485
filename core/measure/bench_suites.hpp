// Benchmark suites built on the harness (core/measure/bench.hpp): `headline`, the project's performance
// targets measured as ratios in one process, and `sweep`, speedup against density and size with
// the ideal and load-bound curves. Every number comes from runBench, so every kernel is verified
// before its time counts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/backend.hpp"
#include "core/measure/bench.hpp"

namespace tileskip {

struct SuiteOptions {
  int size = 4096;  // headline: M = N = K
  int warmup = 2;
  int repeat = 10;
  // On a GPU, warm-up also lasts this long (BenchOptions::warmupMilliseconds).
  double warmupMilliseconds = BenchOptions{}.warmupMilliseconds;
  std::uint64_t seed = 42;
  double stableWithin = 0.0;  // BenchOptions::stableWithin: a gate on a device whose times wander
};

// One row of the headline table: a measured ratio beside its target.
struct HeadlineMeasure {
  std::string measure;   // what is compared, e.g. "best dense CUDA kernel / cuBLAS"
  std::string target;    // e.g. ">= 0.95"
  std::optional<double> value;
  std::optional<double> threshold;  // value must be >= threshold (or <= when `atMost`)
  bool atMost = false;
  std::string detail;    // which kernels, densities, or why it could not be measured
  // Stable across runs and wording changes ("dense-cuda-vs-cublas"): what a CI system keys on.
  std::string id;

  std::optional<bool> met() const;
};

struct HeadlineReport {
  std::string date;
  std::string host;
  std::vector<std::string> devices;
  SuiteOptions options;
  std::vector<HeadlineMeasure> measures;
  std::vector<BenchReport> runs;  // every bench run the measures were computed from
};

// Runs the headline suite on every backend given (CUDA with cuBLAS/cuSPARSE, Vulkan; others are
// used where they implement a kernel). Measures whose kernels no backend implements say so.
HeadlineReport runHeadlineSuite(const std::vector<Backend*>& backends, const SuiteOptions& options,
                                const ProgressCallback& progress = {});

std::string formatHeadlineTable(const HeadlineReport& report);

// The exit code of a headline run: 1 where a kernel failed verification, else the first other
// failure's code (benchExitCode); otherwise, with `failOnTarget`, 4 (TargetMissed) where a
// measured ratio missed its target. A target that could not be measured here (no backend ran
// its kernels) is not a miss: --require makes a missing backend fail instead.
int headlineExitCode(const HeadlineReport& report, bool failOnTarget);

// The measures that missed their targets, one line each ("best dense CUDA kernel / cuBLAS: 0.83, target >= 0.95").
std::vector<std::string> missedTargets(const HeadlineReport& report);
std::string formatHeadlineJson(const HeadlineReport& report);

// One point of the sweep: a kernel at a size and per-operand density.
struct SweepPoint {
  std::string backend;
  std::string kernel;
  int size = 0;
  double density = 0.0;       // of A and of B
  double jointDensity = 1.0;  // at the kernel's granularities
  double milliseconds = 0.0;
  double denseMilliseconds = 0.0;  // the dense reference on the same backend, same run
  double speedup = 0.0;            // over that dense reference
  double idealSpeedup = 1.0;       // 1 / jointDensity
  double loadBoundSpeedup = 1.0;   // 1 / fraction of (block tile, K-block) pairs a block must load
  double vsBaseline = 0.0;
  std::string driver;         // of the point's device
  std::string api;            // ... and its API ("Vulkan 1.3.239", "CUDA 13.0")
  std::string tuneOverrides;  // that device's tiles replacing the catalogue's ("" for none)
  double tolerance = 0.0;     // the error bound's factor its verification used (core/model/reference.hpp)
};

struct SweepReport {
  std::string date;
  std::string host;
  int block = 0;  // of the generated zero segments, A's and B's
  int warmup = 0, repeat = 0;
  double warmupMilliseconds = 0.0;  // the least a GPU's warm-up lasts
  std::vector<std::string> devices;
  std::vector<SweepPoint> points;
  std::vector<std::string> failures;  // kernels that did not verify or could not run
  std::vector<BenchRow> failedRows;   // their rows, for the exit code (benchExitCode)
};

struct SweepOptions {
  std::vector<int> sizes = {1024, 2048, 4096, 8192};
  std::vector<double> densities = {1.0, 0.7, 0.5, 0.35, 0.25, 0.18, 0.125, 0.09, 0.06, 0.03};
  int block = 128;  // of the generated zero segments: block-aligned for the 128x128 tiles
  int warmup = 1;
  int repeat = 5;
  // On a GPU, warm-up also lasts this long (BenchOptions::warmupMilliseconds).
  double warmupMilliseconds = BenchOptions{}.warmupMilliseconds;
  std::uint64_t seed = 42;
  double stableWithin = 0.0;  // BenchOptions::stableWithin
};

SweepReport runSweepSuite(const std::vector<Backend*>& backends, const SweepOptions& options,
                          const ProgressCallback& progress = {});

// The sweep's points as CSV; scripts/plot_sweep.py draws them (core/measure/sweep_plot.hpp): speedup
// over the dense reference against density, one panel per size, with the ideal and load-bound curves.
std::string formatSweepCsv(const SweepReport& report);

}  // namespace tileskip
