// S2 a-warp: K10's warp tiling with the A-pattern at the rows of one warp sub-tile
// (aRowGranularity = 4·TM, asserted below). While a warp works on a sub-tile, all 32 lanes read
// the same A byte, so skipping a rank-1 update is a warp-uniform branch (no divergence, unlike
// S1), and a K-block that no warp of the block needs is not even loaded (skip_common.cuh).
#pragma once

#include "skip_common.cuh"

namespace tileskip::cuda {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kARows, int kList>
__global__ void __launch_bounds__(kThreads, minBlocksPerSM<kThreads>())
    aWarp(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
          const std::uint8_t* __restrict__ aPattern, const std::uint8_t* __restrict__ bPattern, unsigned* tileQueue) {
  static_assert(kARows == 4 * TM, "one A-pattern tile per sub-tile row: every lane of a sub-tile reads one A byte");
  warpTileSkipGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kARows, 0, kList>(A, B, C, M, N, K, aPattern, bPattern, tileQueue);
}

}  // namespace tileskip::cuda
