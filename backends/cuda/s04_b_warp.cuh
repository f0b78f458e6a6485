// S4 b-warp: the B side of S2. The B-pattern is kept per the columns of one warp sub-tile
// (bColGranularity = 8·TN, asserted below), so every lane of a warp reads the same byte and the
// skip along N is warp-uniform, where S3's per-thread skip diverged.
#pragma once

#include "skip_common.cuh"

namespace tileskip::cuda {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kBCols, int kList>
__global__ void __launch_bounds__(kThreads, minBlocksPerSM<kThreads>())
    bWarp(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
          const std::uint8_t* __restrict__ aPattern, const std::uint8_t* __restrict__ bPattern, unsigned* tileQueue) {
  static_assert(kBCols == 8 * TN, "one B-pattern tile per sub-tile column: every lane of a sub-tile reads one B byte");
  warpTileSkipGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, 0, kBCols, kList>(A, B, C, M, N, K, aPattern, bPattern, tileQueue);
}

}  // namespace tileskip::cuda
