// One MLP layer, Y = act(X·W1)·W2, as `tileskip mlp` and Python's tileskip.mlp ask for it: the
// first GEMM, the activation, and the second GEMM on the hidden activations H, which is where
// an activation's zeros are (a ReLU leaves most of a layer's neurons silent on each token, spread
// out, the sparsity the compaction kernels gather around). Each GEMM is a multiply() of its own
// on the same backend, so each is rounded, chosen (auto inspects H for the second), permuted
// where asked and checked against its float64 reference as `tileskip run` does; H comes back to
// the host between them, where the activation is applied. Where both kernels are named and the
// backend fuses them (Backend::fusesLayer: on CUDA, K14 then S15 in fp16 or bf16), the first
// GEMM's epilogue applies the activation and writes H as the second reads it instead, and H stays
// on the device.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/measure/multiply.hpp"

namespace tileskip {

enum class Activation { None, Relu };

std::string_view activationName(Activation activation);
// "relu" or "none"; InputError naming both for anything else.
Activation parseActivation(std::string_view name);
// Applies the activation in place. ReLU keeps NaN (as PyTorch's does) and writes +0 for every
// other value not above zero, so that the zeros it makes are the ones a pattern sees.
void applyActivation(Matrix& h, Activation activation);

struct MlpRequest {
  Matrix x, w1, w2;  // M x D, D x F, F x N, fp32 as read; rounded to `dtype` by each GEMM
  std::string fileX, fileW1, fileW2;
  DType dtype = DType::Fp32;
  Activation activation = Activation::Relu;
  const KernelInfo* first = nullptr;   // X·W1's kernel; null: auto
  const KernelInfo* second = nullptr;  // H·W2's kernel; null: auto, which inspects H
  // Where set, the same layer again with this kernel for both GEMMs (cublas: the layer a
  // framework runs), timed beside the first.
  const KernelInfo* compare = nullptr;
  bool verify = true;
  // Permute H·W2's operands (K is the layer's neurons: H's columns and W2's rows together, which
  // leaves Y unchanged) as `run --reorder` does; Y comes back in the original order. Fused, the
  // neurons alone, in the order of how many tokens fire each in a first run (W1's columns and W2's
  // rows), and the layer runs again in that order.
  bool reorder = false;
  int repeat = 1;
  std::function<void(const std::string&)> onNote;
};

// One pass through the layer with a pair of kernels. `first.c` and `second.c` are empty: H
// and Y are handed on.
struct MlpPass {
  MultiplyResult first, second;
  // The backend ran the two fused (Backend::uploadLayer): the first GEMM's epilogue applied the
  // activation and wrote H as the second reads it; no activation pass, no preparation of H.
  bool fused = false;
  double activationMs = 0.0;  // host milliseconds
  // Device milliseconds of the layer: both kernels and what H·W2's kernel builds from H on the
  // device (its patterns, A transposed); not the activation, which runs on the host here, nor the
  // 16-bit copies of operands read in fp32 (MultiplyResult::roundingMs).
  double layerMs() const { return first.kernelMs + second.prepareMs + second.kernelMs; }
};

struct MlpResult {
  Matrix y;
  MlpPass layer;
  std::optional<MlpPass> compared;  // with MlpRequest::compare
  double hiddenDensity = 0.0;       // the fraction of H's elements that are non-zero
  // What was done to each GEMM's operands (rounding, reordering), "H·W2: " before the second's;
  // MlpRequest::onNote hears these as they arise, and the first build's note besides.
  std::vector<std::string> notes;
};

// Errors: multiply()'s, with shapes named as X, W1 and W2 ("W1 is 300x64 but X has 256 columns:
// ...") and checked, like the activation, before the backend is opened.
MlpResult runMlp(const std::function<Backend&()>& openBackend, MlpRequest request);

}  // namespace tileskip
