// The first GEMM of an MLP layer, H = act(X·W1), written for the second GEMM to compact: K14's
// block (k14_wgmma.cuh: the same ring, roles and MMAs) with an epilogue that, instead of storing C,
// applies the activation to the accumulators, rounds them to the layer's 16-bit type, and writes
//   - H transposed (N x M: hidden unit by token, each row padded with zeros to
//     transposedRowLength(M)), the layout a compaction kernel reads A in, so that a live column of
//     H is one row to copy (s15_compact_wgmma_128.cuh);
//   - H's A-pattern at the block's rows (core/model/pattern.hpp: a bit per column that some row of
//     the row tile keeps), the live-column list the compaction kernel gathers by.
// No pass over H follows: the second GEMM starts from these. The block tile's rows are exactly one
// pattern tile, so a pattern bit depends on this block's outputs alone; its warps combine theirs
// with atomicOr into the pattern, which the launch clears first. A bit is set from the rounded
// word, so the pattern says what the 16-bit H holds (a value that rounds to zero is not live).
#pragma once

#include "core/model/dtype.hpp"
#include "k14_wgmma.cuh"

namespace tileskip::cuda {

// fp32 -> the 16-bit word of D, rounded to nearest even (cvt.rn), as the host's halfBits.
template <DType D>
__device__ inline std::uint16_t toWord(float x) {
  static_assert(D == DType::Fp16 || D == DType::Bf16, "a layer's H is kept in a 16-bit type");
#if defined(__CUDA_ARCH__)
  if constexpr (D == DType::Bf16) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(x));
  } else {
    return __half_as_ushort(__float2half_rn(x));
  }
#elif defined(TILESKIP_CUDA_EMULATION)
  return ::tileskip::halfBits(D, x);
#else
  (void)x;  // nvcc's host pass: never called there
  return 0;
#endif
}

// Whether a 16-bit word is a value other than zero (either sign): what a pattern bit records.
__device__ inline bool liveWord(std::uint16_t word) { return (word & 0x7FFFu) != 0u; }

// ReLU keeps NaN, as the host's applyActivation does.
__device__ inline float activated(float x, bool relu) { return relu && !(x > 0.0f) && x == x ? 0.0f : x; }

// The consumer's part of the tile into Ht and the pattern (hopper.cuh's accumulator layout: rows g
// and g + 8 of the warp's 16, columns 2t and 2t + 1 of every 8, so that pattern byte j of the block
// is column group j, whose bits 2t and 2t + 1 this thread sees).
template <DType D, int BM, int BN, int WM, int kAccumulators>
__device__ void storeActivatedTransposed(const float (&acc)[kAccumulators], const BlockTile<BM, BN>& tile,
                                         std::uint16_t* __restrict__ Ht, unsigned* __restrict__ hPattern, int M, int N,
                                         bool relu, int consumer, int warp, int lane) {
  static_assert(BN / 8 <= kWarpLanes, "a lane per pattern byte of the block's columns");
  const int g = lane / 4, t2 = 2 * (lane % 4);
  const int row = tile.rowBase + consumer * WM + warp * 16 + g;
  const int kBlocks = (N + kKBlock - 1) / kKBlock, rowLength = transposedRowLength(M);
  unsigned mine = 0u;  // lane j's: pattern byte j of the block, from this warp's 16 rows
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const int col = tile.colBase + j * 8 + t2;
    unsigned bits = 0u;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = row + 8 * half;
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const std::uint16_t word = toWord<D>(activated(acc[4 * j + 2 * half + c], relu));
        // The padding past M is written too (zeros): the row tile that holds M's last row holds it.
        if (r < rowLength && col + c < N) {
          Ht[static_cast<std::size_t>(col + c) * static_cast<std::size_t>(rowLength) + static_cast<std::size_t>(r)] =
              r < M ? word : std::uint16_t{0};
          if (r < M && liveWord(word)) bits |= 1u << (t2 + c);
        }
      }
    }
#pragma unroll
    for (int mask = 1; mask < kWarpLanes; mask *= 2) bits |= __shfl_xor_sync(0xFFFFFFFFu, bits, mask);
    if (lane == j) mine = bits;
  }
  const int byte = tile.colBase / 8 + lane;
  if (lane < BN / 8 && byte < kBlocks && mine != 0u) {
    const std::size_t at = static_cast<std::size_t>(tile.rowBase / BM) * static_cast<std::size_t>(kBlocks) + static_cast<std::size_t>(byte);
    atomicOr(hPattern + at / 4, mine << (8 * (at % 4)));
  }
}

// H = act(A·B) for A (X, M x K) and B (W1, K x N) as K14 reads them: Ht (N x M, padded) and hPattern, the
// A-pattern of H at BM rows in 32-bit words, cleared before the launch.
template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads, 1)
    layer_first_gemm(const __grid_constant__ BulkTensorMap aMap, const __grid_constant__ BulkTensorMap bMap, bool bulk,
                     const typename MmaInputType<D>::Word* __restrict__ A, const typename MmaInputType<D>::Word* __restrict__ B,
                     std::uint16_t* __restrict__ Ht, unsigned* __restrict__ hPattern, int M, int N, int K, bool relu) {
  wgmmaDenseBlock<Row, D>(aMap, bMap, bulk, A, B, M, N, K, [&](const auto& ring, const auto& acc, int consumer, int warp, int lane) {
    storeActivatedTransposed<D, Row.tile.BM, Row.tile.BN, Row.tile.WM>(acc, ring.block, Ht, hPattern, M, N, relu, consumer,
                                                                       warp, lane);
  });
}

}  // namespace tileskip::cuda
