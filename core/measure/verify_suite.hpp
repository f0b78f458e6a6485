// The correctness suite every kernel of every backend must pass: shapes that are not tile
// multiples, adversarial patterns (all zero, a single non-zero product, bits that overlap in a
// K-block but not in a position) and every generator at several densities. The same suite
// backs `tileskip verify` and the test binary, with one error measure (core/model/reference.hpp).
#pragma once

#include <functional>
#include <optional>
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
  DType dtype = DType::Fp32;  // the case's A and B rounded to this before the reference and the kernel
  std::string caseName;
  ErrorReport error;
  bool patternsMatch = true;  // device patterns equal CPU patterns byte for byte
  std::string failure;        // empty when passed
  bool refused = false;       // the device refused the kernel (UnavailableError): a limit, not a wrong C
  double seconds = 0.0;       // wall time of the kernel's preparation, run and check on this case
  bool passed() const { return failure.empty(); }
  // "joint-8x32", or with the inputs where they are not fp32: "mma (bf16)".
  std::string label() const;
};

// One kernel checked on inputs of one precision.
struct VerifyTarget {
  const KernelInfo* kernel = nullptr;
  DType dtype = DType::Fp32;
};

// Each kernel at every dtype `backend` runs it on (Backend::takes), or only at `only` (kernels
// that do not take it left out), in the order given, fp32 first.
std::vector<VerifyTarget> verifyTargets(const Backend& backend, const std::vector<const KernelInfo*>& kernels,
                                        std::optional<DType> only = {});

// verifyKernel's label for a target, as VerifyResult::label() gives it.
std::string verifyLabel(const KernelInfo& kernel, DType dtype);

using VerifyProgress = std::function<void(const VerifyResult&)>;

// Runs every case on every target: per dtype, each case's A and B rounded to it, the float64
// reference of the rounded values, one upload, then every target of that dtype. Never throws for
// a kernel failure (the result says why). The products of rounded inputs are exact in fp32, so
// every dtype is held to the fp32 accumulation bound (core/model/reference.hpp).
std::vector<VerifyResult> runVerifyTargets(Backend& backend, const std::vector<VerifyTarget>& targets,
                                    const std::vector<VerifyCase>& cases, const VerifyProgress& progress = {});
// The same for every dtype the backend runs each kernel on.
std::vector<VerifyResult> runVerify(Backend& backend, const std::vector<const KernelInfo*>& kernels,
                                    const std::vector<VerifyCase>& cases, const VerifyProgress& progress = {});

// Checks one kernel on one problem: patterns byte for byte, then C against `reference`.
VerifyResult verifyKernel(Backend& backend, DeviceProblem& onDevice, const KernelInfo& kernel, const ProblemData& data,
                          const ReferenceProduct& reference);

}  // namespace tileskip
