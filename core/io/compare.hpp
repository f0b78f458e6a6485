// `tileskip compare BASE.json NEW.json`: what changed between two result files of one kind, measure
// by measure, and whether anything got worse by more than a threshold (a CI gate between a
// baseline run and this one). Google Benchmark's compare.py and NVBench's compare script do this
// for their own formats; these are tileskip's:
//   tileskip.headline/1     each measure by its id: its value (higher is better, or lower for `<=`);
//   tileskip.bench/1        each verified row by backend and kernel: its median kernel time;
//   tileskip.blocksparse/1  each case's verified kernels by case, backend and kernel: the same;
//   tileskip.activations/1  likewise.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tileskip {

struct ComparedMeasure {
  std::string key;                  // "dense-cuda-vs-cublas", "cuda pipelined", "A 0.25, 64-blocks: cuda cublas"
  std::string unit;                 // "x" (a ratio) or "ms"
  bool higherIsBetter = true;       // ratios (but a `<=` target); times are better lower
  std::optional<double> base, now;  // nothing where the file lacks it (or it was not measured)
  // now over base, in per cent of base; positive is better whichever way the measure points.
  std::optional<double> gainPercent() const;
};

struct Comparison {
  std::string schema;  // the files' schema id (the same in both)
  std::vector<ComparedMeasure> measures;  // in the base file's order, then those only the new one has
};

// InputError for a file that is not a tileskip result, or two files of different kinds.
Comparison compareResults(const std::string& baseText, const std::string& newText);

// Measures that lost more than `thresholdPercent` of their base value, one line each.
std::vector<std::string> regressions(const Comparison& comparison, double thresholdPercent);

// A table: measure, base, new, change, and "worse" past the threshold.
std::string formatComparison(const Comparison& comparison, double thresholdPercent);

}  // namespace tileskip
