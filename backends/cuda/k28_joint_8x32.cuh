// K28 joint-8x32: the joint skip with the A-pattern at 8 rows, four times finer than K29. A
// 64 x 32 warp tile now holds eight A-pattern tiles, so one byte per warp would no longer be
// uniform. Instead the warp walks its tile in sub-tiles of exactly 8 rows (TM = 2: 4
// thread-rows x 2 rows, WSUBM = 8): while it works on sub-tile wm all 32 lanes are in the same
// 8-row pattern tile and read the same byte, so each check stays warp-uniform.
#pragma once

#include "skip_common.cuh"

namespace tileskip::cuda {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kARows, int kBCols>
__global__ void __launch_bounds__(kThreads, minBlocksPerSM<kThreads>())
    joint8x32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
              const std::uint8_t* __restrict__ aPattern, const std::uint8_t* __restrict__ bPattern, unsigned* tileQueue) {
  static_assert(kARows == 4 * TM, "one A-pattern tile per sub-tile row: the check is per 8-row walk step");
  warpTileSkipGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kARows, kBCols>(A, B, C, M, N, K, aPattern, bPattern, tileQueue);
}

}  // namespace tileskip::cuda
