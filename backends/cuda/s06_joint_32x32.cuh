// S6 joint-32x32: S5's joint skip with the A-pattern at the rows of one warp sub-tile instead
// of the whole warp tile (asserted below). Smaller pattern tiles hold fewer non-zeros, so more
// joint bytes clear; each sub-tile is still one pattern tile pair, so every lane reads the same
// two bytes.
#pragma once

#include "skip_common.cuh"

namespace tileskip::cuda {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kARows, int kBCols, int kList>
__global__ void __launch_bounds__(kThreads, minBlocksPerSM<kThreads>())
    joint32x32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
          const std::uint8_t* __restrict__ aPattern, const std::uint8_t* __restrict__ bPattern, unsigned* tileQueue) {
  static_assert(kARows == 4 * TM && kBCols == 8 * TN, "one pattern tile pair per warp sub-tile");
  warpTileSkipGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kARows, kBCols, kList>(A, B, C, M, N, K, aPattern, bPattern, tileQueue);
}

}  // namespace tileskip::cuda
