// K16 a-warp: K9's warp tiling with the A-pattern at 32 rows, the rows of one warp tile. All
// 32 lanes of a warp read the same pattern byte, so skipping a rank-1 update is a warp-uniform
// branch (no divergence, unlike K10), and a K-block that no warp of the block needs is not
// even loaded. Each warp tile is 32 rows x 64 columns: one row tile of the pattern.
#pragma once

#include "skip_common.cuh"

namespace tileskip::cuda {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kARows>
__global__ void __launch_bounds__(kThreads)
    aWarp(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
          const std::uint8_t* __restrict__ aPattern, const std::uint8_t* __restrict__ bPattern) {
  warpTileSkipGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kARows, 0>(A, B, C, M, N, K, aPattern, bPattern);
}

}  // namespace tileskip::cuda
