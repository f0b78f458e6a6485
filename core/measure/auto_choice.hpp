// `--kernel auto`: the kernel to run for A·B on a backend. The speed model (core/measure/inspect.hpp)
// decides where it has seen problems like this one; where it is blind, auto measures.
//
// The model was fitted at 4096^3 (bench/calibrate_model.py), where a kernel's time follows the
// work its patterns leave. It is blind to two things bench --suite real showed on the H200: a
// problem too small to fill the GPU (launch cost and idle multiprocessors decide, and the small
// teaching kernels or cuBLAS won), and cuSPARSE on an A that is mostly zeros (its time follows
// A's non-zeros and N, not tiles); and it cannot rank kernels it predicts closer together than
// its own error (lab/10-skip-nothing-one-warp-model). There, on a GPU, auto times the kernels it
// cannot rank and runs the fastest; the choice costs a few runs of each, once
// (lab/11-auto-cutlass-anchor).
#pragma once

#include <string>
#include <vector>

#include "core/model/backend.hpp"
#include "core/measure/inspect.hpp"

namespace tileskip {

// Kernels the model predicts within this factor of its fastest are near ties: its error on the
// H200 calibration runs reached 10-20 % for the skipping kernels (lab/10-skip-nothing-one-warp-model).
inline constexpr double kModelError = 1.2;
// Timed runs of each candidate after one warm-up; their median decides. On the H200 the small
// problems auto measures run in microseconds, where three runs left auto up to 6 % behind the
// fastest kernel of a five-run bench (lab/11-auto-cutlass-anchor).
inline constexpr int kAutoTimedRuns = 10;
// A kernel replaces the vendor's dense GEMM among the timed ones only where it is this much faster:
// on an H200's blocksparse suite auto's ten runs once timed K14 ahead of cuBLAS bf16 that the
// suite's own runs put 4 % ahead of it (lab/48-s13-wide-queue), and the vendor's GEMM is what a
// user runs where tileskip has nothing better.
inline constexpr double kVendorMargin = 1.03;

struct AutoChoice {
  Recommendation choice;
  // The kernels timed to choose (empty where the model chose), and how long that took on the host.
  std::vector<const KernelInfo*> measured;
  double measuringMs = 0.0;
};

// The kernels auto must time rather than rank, for this inspection on this device, in catalogue
// order, none the device refuses; empty where the model's ranking stands. Small problems on a GPU: every kernel. Else the
// near ties of the model's fastest, and on a backend with cusparse-csr and a sparse A: CSR, the
// best skipping and the best dense kernel by the model.
std::vector<const KernelInfo*> kernelsToMeasure(const Inspection& inspection, const DeviceInfo& device);

// Times each of `candidates` on a GPU's `problem` (prepare, a warm-up, kAutoTimedRuns runs; the
// first candidate's warm-up lasts until the device's clock has settled, as bench's does) and
// returns the fastest by median, with the times in its reason. A candidate the device cannot run
// (UnavailableError) is left out; throws UnavailableError if none runs.
Recommendation fastestMeasured(DeviceProblem& problem, const std::vector<const KernelInfo*>& candidates,
                               const std::string& why);

// Inspects A·B on `backend` and chooses: the model's recommendation, or the fastest measured
// where kernelsToMeasure() names candidates (the problem is uploaded for that and released).
// For inputs other than fp32, which the model was never calibrated on, a GPU times every kernel
// of the backend that takes them; another device takes inspect's recommendation.
AutoChoice chooseKernel(Backend& backend, const Matrix& a, const Matrix& b, std::string aSource, std::string bSource,
                        DType dtype = DType::Fp32);

}  // namespace tileskip
