// One multiply, C = A·B, as a user asks for it: `tileskip run`, Python's matmul and the viewer's
// live session all go through here, so the steps are written once. In order: A and B rounded
// to the inputs' precision, host memory checked, the backend opened, the operands reordered
// where asked, the kernel chosen (a named one, or auto), the problem uploaded and prepared, C
// poisoned and computed (a warm-up and the median of repeats where asked), C downloaded and put
// back in the original order, then checked against the float64 reference.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/measure/verify_suite.hpp"
#include "core/model/backend.hpp"
#include "core/model/dtype.hpp"
#include "core/model/matrix.hpp"
#include "core/model/problem.hpp"
#include "core/model/reference.hpp"
#include "core/model/reorder.hpp"

namespace tileskip {

struct MultiplyRequest {
  // The operands on the host, fp32 as read or converted. multiply() rounds them to `dtype` in
  // place, so callers move them in rather than copy.
  Matrix a, b;
  // Where they came from ("a.npy"), for auto's inspection; empty for arrays.
  std::string fileA, fileB;
  // Operands that already live in the caller's device memory (the Python module's CUDA
  // tensors): the kernel runs on them in place and C stays there. Then `a` and `b`, where
  // given, are host copies that only auto reads, the inputs must be fp32, and the caller checks
  // C with verifyProduct() once it has it on the host: `verify` and `reorder` must be off.
  std::optional<DeviceOperands> inPlace;
  DType dtype = DType::Fp32;
  // A as a packed block-sparse weight (its topology kept: attachPackedA), `a` the dense matrix it
  // stands for: the bsr kernels of its block read it as it is. Not with `reorder` or `inPlace`.
  std::optional<BlockSparseMatrix> packedA;
  const KernelInfo* kernel = nullptr;  // null: auto (core/measure/auto_choice.hpp)
  bool verify = true;
  // Permute A's rows, B's columns and K to gather zeros into skippable tiles; C comes back in
  // the original order and is checked against the unpermuted product.
  bool reorder = false;
  // 1: time the single run. More: that run is a warm-up, and the median of `repeat` more runs
  // is reported.
  int repeat = 1;
  // Told each note as it arises (the command prints them at once, before a long run); every
  // note is also in MultiplyResult::notes.
  std::function<void(const std::string&)> onNote;
};

struct MultiplyResult {
  Matrix c;  // empty where C stayed in the caller's device memory
  const KernelInfo* kernel = nullptr;
  bool automatic = false;  // auto chose the kernel
  std::string why;         // auto's reason, or "requested"
  // Device milliseconds. prepareMs: the kernel's per-problem preprocessing (the patterns a
  // skipping kernel reads, cusparse-csr's CSR), 0 where it needs none or where it ran inside
  // the in-place multiply. kernelMs: one launch, the median of `timedRuns` where there were
  // repeats. roundingMs: the 16-bit copies of A and B a 16-bit problem's kernel reads, made from
  // the fp32 values once (DeviceProblem::roundingMs); 0 for fp32.
  double prepareMs = 0.0;
  double kernelMs = 0.0;
  double roundingMs = 0.0;
  int timedRuns = 1;
  // What was done to the operands before the kernel saw them (rounding, reordering), in order.
  std::vector<std::string> notes;
  std::optional<ErrorReport> verification;  // nullopt where not verified
  // NaN and Inf are computed with, not refused. inA and inB count the rounded operands' (in the
  // original order), inC the result's.
  NonFiniteCount inA, inB, inC;
  // Says what the result holds where NaN or Inf are involved ("the inputs hold NaN/Inf (A: ...;
  // B: ...), computed with IEEE arithmetic: C holds ..."); empty where A, B and C are finite.
  std::string nonFiniteNote;

  // "verified against the float64 reference (<summary>)", prefixed "its finite elements " where C
  // holds NaN or Inf; "not verified" without a verification.
  std::string checked() const;
};

// The kernel a multiply names: null for "auto" (where `autoAllowed`), else the one catalogue
// row of `name`. parseKernelList's InputError for an unknown id; for "all" or a list:
// "<flag> '<name>': <command> multiplies with one kernel; give a single id[ or auto]".
const KernelInfo* parseMultiplyKernel(const std::string& name, std::string_view flag, std::string_view command,
                                      bool autoAllowed);

// Does the whole use case once. Errors: InputError (bad shapes, a value beyond the dtype, a
// kernel the backend lacks or that does not take the dtype), UnavailableError (host or device
// memory, the backend or device), and Error(VerificationFailed, "kernel <id> gave a wrong C
// (<summary>)") where verification fails.
MultiplyResult multiply(Backend& backend, MultiplyRequest request);
// The same, opening the backend only once the operands are known good (shapes, rounding, host
// memory), so that bad input is refused before a device is touched.
MultiplyResult multiply(const std::function<Backend&()>& openBackend, MultiplyRequest request);

// C checked against the float64 reference of A·B: the report where it passes, else
// Error(VerificationFailed, "kernel <kernel> gave a wrong C (<summary>)"). multiply() checks
// with it; so does a caller whose C was computed in place.
ErrorReport verifyProduct(const Matrix& c, const Matrix& a, const Matrix& b, std::string_view kernel);

// Finds and applies a reordering of A·B at kReorderGranularity in place; the note says what it
// gained ("reordered rows, columns and K in 0.01 s: joint density at 32x32 tiles 0.700 -> 0.300").
// The granularity is the warp-uniform kernels' pattern tile: a 32-row tile also fills 64- and
// 128-row ones when its neighbour does. K alone is put in A's firing order (firingOrder) instead
// where that clears at least kFiringGain of the live K-groups of kFiringGroup columns in the largest
// compaction tile (kCompactionRows) where the tile reordering clears less than that of the joint
// density: zeros spread out as ReLU leaves them, for the compaction kernels.
inline constexpr int kFiringGroup = 8;
inline constexpr double kFiringGain = 0.02;
inline constexpr int kReorderGranularity = 32;
struct GatheredZeros {
  Reordering reordering;
  std::string note;
};
GatheredZeros reorderForSkipping(Matrix& a, Matrix& b);

struct KernelProduct {
  Matrix c;
  double prepareMs = 0.0;
  double kernelMs = 0.0;  // as MultiplyResult::kernelMs
  double roundingMs = 0.0;
  int timedRuns = 1;
};

// A and B uploaded once to a backend's device, multiplied there by any number of kernels any
// number of times: multiply() makes one for its product; the viewer keeps one across frames,
// checking each kernel once and then timing it run after run.
class MultiplySession {
 public:
  // Uploads A and B, whose values `dtype` holds exactly (rounded already), and allocates C; and A
  // packed, where given, for the bsr kernels of its block (attachWherePacked).
  MultiplySession(Backend& backend, const Matrix& a, const Matrix& b, DType dtype, const BlockSparseMatrix* packedA = nullptr);

  Backend& backend() const { return backend_; }

  // C = A·B with `kernel`: prepared (timed), C filled with NaN so that an element the kernel
  // does not write fails verification, one run, and where `repeat` > 1 that run is a warm-up
  // and `repeat` more give the median; then C downloaded.
  KernelProduct product(const KernelInfo& kernel, int repeat = 1);

  // Checks `kernel` before its times count: the patterns it builds on the device byte for byte
  // against the CPU's, and C against `reference` (verifyKernel). Never throws for a kernel's
  // failure: the result says why. `data` holds the A and B uploaded.
  VerifyResult verify(const KernelInfo& kernel, const ProblemData& data, const ReferenceProduct& reference);

  // One more launch of `kernel`: its device milliseconds; C stays on the device.
  double time(const KernelInfo& kernel);

 private:
  Backend& backend_;
  std::unique_ptr<DeviceProblem> problem_;
};

}  // namespace tileskip
