// S5 joint-64x32: skip by a_pat & b_pat, the joint pattern. A rank-1 update k can be skipped
// when column k of the warp's A rows or row k of its B columns is zero, which clears more than
// either pattern alone. The A-pattern tile is the whole warp tile's rows and the B-pattern tile
// one sub-tile's columns (asserted below): each check reads one byte of each and stays
// warp-uniform. The coarse A tiles rarely clear a whole K-block; S6 and S7 refine them.
#pragma once

#include "skip_common.cuh"

namespace tileskip::cuda {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kARows, int kBCols, int kList>
__global__ void __launch_bounds__(kThreads, minBlocksPerSM<kThreads>())
    joint64x32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
          const std::uint8_t* __restrict__ aPattern, const std::uint8_t* __restrict__ bPattern, unsigned* tileQueue) {
  static_assert(kARows == WM && kBCols == 8 * TN, "A per warp tile rows, B per sub-tile columns");
  warpTileSkipGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kARows, kBCols, kList>(A, B, C, M, N, K, aPattern, bPattern, tileQueue);
}

}  // namespace tileskip::cuda
