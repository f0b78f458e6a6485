// One problem on the device, as every GEMM kernel instance takes it, without a CUDA header: the
// CUDA module launches from it and the tests' CPU emulator calls the same instances with it.
#pragma once

#include <cstdint>

#include "core/model/dtype.hpp"

namespace tileskip::cuda {

// Row-major A (M x K), B (K x N) and C (M x N), the problem's dtype (which instance of a kernel
// runs), the copies of A and B its tensor-core kernels read, and the skip patterns at the kernel's
// granularities (null where it inspects none).
struct GemmOperands {
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
  DType dtype = DType::Fp32;
  // A and B as 16-bit words of `dtype` (fp16 or bf16), for the 16-bit tensor-core kernels.
  const std::uint16_t* aHalf = nullptr;
  const std::uint16_t* bHalf = nullptr;
  // B transposed (N x K), for the tf32 tensor-core kernels, which read `a` and this.
  const float* bTransposed = nullptr;
  // A transposed (K x M), for the compaction kernels: a live column is one row. The 16-bit
  // kernels read its words in `dtype`, the fp32 one its floats.
  const std::uint16_t* aHalfTransposed = nullptr;
  const float* aTransposed = nullptr;
  int m = 0, n = 0, k = 0;
  // A packed in square blocks, for the bsr kernels: the kept blocks' values (words of `dtype`, or
  // fp32) and the index (row pointers, then column indices: packedIndexWords()), blockRows block rows.
  const void* packedValues = nullptr;
  const int* packedIndex = nullptr;
  int packedBlockRows = 0;
  int packedKeptBlocks = 0;
  // A streaming bsr kernel's schedule (Scheduling::SplitBlocks): its plan's units (BlockStreamPlan's
  // words) and how many, a counter per block row and column tile (zero between launches), and the
  // partial tiles of the block rows it splits.
  const int* streamUnits = nullptr;
  int streamUnitCount = 0;
  unsigned* streamCounters = nullptr;
  float* streamPartials = nullptr;
  const std::uint8_t* aPattern = nullptr;
  const std::uint8_t* bPattern = nullptr;
  unsigned* tileQueue = nullptr;  // two zeroed counters, for the persistent kernels
};

}  // namespace tileskip::cuda
