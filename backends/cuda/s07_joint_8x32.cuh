// S7 joint-8x32: the joint skip with the A-pattern finer than S6's. A warp tile now holds
// several A-pattern tiles along M, so one byte per warp would no longer be uniform. Instead the
// catalogue gives it TM small enough that a sub-tile (4 thread-rows of TM rows) is exactly one
// A-pattern tile (asserted below): while the warp works on a sub-tile all 32 lanes are in the
// same pattern tile and read the same byte, so each check stays warp-uniform.
#pragma once

#include "skip_common.cuh"

namespace tileskip::cuda {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kARows, int kBCols, int kList>
__global__ void __launch_bounds__(kThreads, minBlocksPerSM<kThreads>())
    joint8x32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
              const std::uint8_t* __restrict__ aPattern, const std::uint8_t* __restrict__ bPattern, unsigned* tileQueue) {
  static_assert(kARows == 4 * TM, "one A-pattern tile per sub-tile row: the check is per 8-row walk step");
  warpTileSkipGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kARows, kBCols, kList>(A, B, C, M, N, K, aPattern, bPattern, tileQueue);
}

}  // namespace tileskip::cuda
