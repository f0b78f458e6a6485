// Host-side entry points to the kernels: the GEMM catalogue (kernel_dispatch.cu) and the
// pattern preprocessing (pattern_kernels.cu). Launches are asynchronous on `stream`; a bad
// launch throws at once (checkLaunch), a fault inside a kernel at the next synchronisation.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string_view>

#include "backends/cuda/gemm_operands.hpp"
#include "core/model/dtype.hpp"

namespace tileskip::cuda {

// Whether kernel_dispatch.cu has a kernel for this catalogue id (every twin id has one).
bool hasGemmKernel(std::string_view id);

// Launches the catalogue kernel `id`; InputError for an id with no CUDA kernel.
void launchGemmKernel(std::string_view id, const GemmOperands& operands, cudaStream_t stream);

// Throws UnavailableError when this build holds no code the current device can run.
void checkKernelImages();

// An MLP layer's first GEMM (kernels/layer_first_gemm.cuh), on the block of row kLayerFirstGemm:
// H = act(X·W1) for X (m x d) and W1 (d x f) as 16-bit words of `dtype`, written transposed
// into `ht` (f rows of transposedRowLength(m) words, as launchTranspose writes A) with its
// A-pattern at the row's BM rows into `hPattern`, which is cleared
// first (`patternWords`: its bytes, patternBytes(m, f, BM), rounded up to 32-bit words).
void launchLayerFirstGemm(DType dtype, const std::uint16_t* x, const std::uint16_t* w1, std::uint16_t* ht, unsigned* hPattern,
                          std::size_t patternWords, int m, int f, int d, bool relu, cudaStream_t stream);

// Writes `count` fp32 values as fp16 (or bf16) words, rounded to nearest even (cvt.rn): exact for
// values a problem of that dtype holds. The tensor-core kernels' inputs.
void launchToHalf(const float* from, std::uint16_t* to, std::size_t count, bool bf16, cudaStream_t stream);

// Writes an fp32 matrix (rows x cols, row-major) transposed into `out` (cols rows of outRowLength
// >= rows values, the values past `rows` zeros): the tensor-core kernels read tf32 B only along K
// (parts/mma.cuh's MmaInputType; rows long), and the fp32 compaction kernel copies a live column of
// A as one row of A transposed (transposedRowLength(rows) long).
void launchTranspose(const float* values, int rows, int cols, float* out, int outRowLength, cudaStream_t stream);
// Writes A's 16-bit words (M x K) transposed into `at` (K rows of transposedRowLength(M) words, the
// padding zeros): the compaction kernels copy a live column of A as one row of this.
void launchTranspose(const std::uint16_t* a, int m, int k, std::uint16_t* at, cudaStream_t stream);

// Builds the A-pattern (row tiles of `aGranularity`) or B-pattern (column tiles of
// `bGranularity`) into `pattern`, byte for byte as core/model/pattern.cpp does on the host. Every
// byte is written, so the buffer needs no clearing first.
void launchAPattern(const float* a, int m, int k, int aGranularity, std::uint8_t* pattern, cudaStream_t stream);
void launchBPattern(const float* b, int k, int n, int bGranularity, std::uint8_t* pattern, cudaStream_t stream);
// The same from the 16-bit copies (launchToHalf's words), reading half the bytes, where
// halvesPatternShape (kernels/pattern_halves.cuh) takes the shape: false where it does not, and
// nothing is launched.
bool launchPatternsFromHalves(const std::uint16_t* aHalf, const std::uint16_t* bHalf, int m, int k, int n, int aGranularity,
                              int bGranularity, std::uint8_t* aPattern, std::uint8_t* bPattern, cudaStream_t stream);

}  // namespace tileskip::cuda
