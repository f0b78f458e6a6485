// K29 joint-32x32: K24's joint skip with 32 x 32 warp tiles in a 64 x 64 block, so the A
// pattern is kept per 32 rows. Smaller pattern tiles hold fewer non-zeros, so more joint
// bytes clear, and the smaller block clears whole K-blocks (no load at all) more often. Still
// one pattern tile per warp tile: every lane reads the same two bytes.
#pragma once

#include "skip_common.cuh"

namespace tileskip::cuda {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kARows, int kBCols>
__global__ void __launch_bounds__(kThreads)
    joint32x32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
          const std::uint8_t* __restrict__ aPattern, const std::uint8_t* __restrict__ bPattern) {
  warpTileSkipGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kARows, kBCols>(A, B, C, M, N, K, aPattern, bPattern);
}

}  // namespace tileskip::cuda
