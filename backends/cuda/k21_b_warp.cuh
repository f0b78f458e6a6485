// K21 b-warp: the B side of K16. The B-pattern is kept per 32 columns, the columns of one warp
// tile (WN = 32), so every lane of a warp reads the same byte and the skip along N is
// warp-uniform, where K18's per-thread 8-column skip diverged.
#pragma once

#include "skip_common.cuh"

namespace tileskip::cuda {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kBCols>
__global__ void __launch_bounds__(kThreads)
    bWarp(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
          const std::uint8_t* __restrict__ aPattern, const std::uint8_t* __restrict__ bPattern) {
  warpTileSkipGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, 0, kBCols>(A, B, C, M, N, K, aPattern, bPattern);
}

}  // namespace tileskip::cuda
