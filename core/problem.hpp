// A benchmark problem: sizes, how A and B are generated, and the seed, so that any result can
// be reproduced from what a report prints.
#pragma once

#include <cstdint>
#include <string>

#include "core/generators.hpp"
#include "core/matrix.hpp"

namespace tileskip {

struct ProblemSpec {
  int m = 512, n = 512, k = 512;
  std::string generator = "uniform";
  double densityA = 1.0;
  double densityB = 1.0;
  std::uint64_t seed = 42;
  GeneratorOptions options;

  // Throws InputError on bad sizes, densities or generator names.
  void validate() const;
  std::string describe() const;  // "M=.. N=.. K=.., A: uniform d=0.5, B: ..., seed 42"
};

struct ProblemData {
  Matrix a, b;
};

ProblemData generateProblem(const ProblemSpec& spec);

}  // namespace tileskip
