// The correctness suite every kernel of every backend must pass: shapes that are not tile
// multiples, adversarial patterns (all zero, a single non-zero product, bits that overlap in a
// K-block but not in a position) and every generator at several densities. The same suite
// backs `tileskip verify` and the test binary, with one error measure (core/model/reference.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/model/backend.hpp"
#include "core/model/problem.hpp"
#include "core/model/reference.hpp"

namespace tileskip {

struct VerifyCase {
  std::string name;  // "single-product 100x37x259"
  int m = 0, n = 0, k = 0;
  std::function<ProblemData()> make;
};

// The whole suite. `quick` keeps one shape per adversarial input (for fast smoke runs).
std::vector<VerifyCase> verifyCases(bool quick = false);

struct VerifyResult {
  std::string backend;
  std::string kernel;
  std::string caseName;
  ErrorReport error;
  bool patternsMatch = true;  // device patterns equal CPU patterns byte for byte
  std::string failure;        // empty when passed
  bool passed() const { return failure.empty(); }
};

using VerifyProgress = std::function<void(const VerifyResult&)>;

// Runs every case on every kernel; never throws for a kernel failure (the result says why).
std::vector<VerifyResult> runVerify(Backend& backend, const std::vector<const KernelInfo*>& kernels,
                                    const std::vector<VerifyCase>& cases, const VerifyProgress& progress = {});

// Checks one kernel on one problem: patterns byte for byte, then C against `reference`.
VerifyResult verifyKernel(Backend& backend, DeviceProblem& onDevice, const KernelInfo& kernel, const ProblemData& data,
                          const ReferenceProduct& reference);

}  // namespace tileskip
