// S9 warp-joint-32x32: S8's one-warp block with the patterns at one warp sub-tile each (asserted
// below), so zeros narrower than the block still skip: the block loads a K-block when any of its
// sub-tiles' pattern tile pairs needs it, and each sub-tile skips the rank-1 updates its own
// bytes clear.
#pragma once

#include "skip_common.cuh"

namespace tileskip::cuda {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kARows, int kBCols, int kList>
__global__ void __launch_bounds__(kThreads, minBlocksPerSM<kThreads>())
    warpJoint32x32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
                   const std::uint8_t* __restrict__ aPattern, const std::uint8_t* __restrict__ bPattern,
                   unsigned* tileQueue) {
  static_assert(kThreads == 32 && BM == WM && BN == WN, "the block is one warp: its tile is the warp tile");
  static_assert(kARows == 4 * TM && kBCols == 8 * TN, "one pattern tile pair per warp sub-tile");
  warpTileSkipGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kARows, kBCols, kList>(A, B, C, M, N, K, aPattern, bPattern, tileQueue);
}

}  // namespace tileskip::cuda
