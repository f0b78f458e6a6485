// S8 warp-joint-64x64: S5's joint skip in a block of one warp. A block of several warps must
// load a K-block whenever any of its pattern bands needs it, so zeros that come in blocks the size
// of a warp tile leave it little to skip loading; a block tile that is one warp tile gathers its
// own K-block list and skips exactly those. The warp keeps K11's warp tile (and its thread
// tile), so per FMA it reads as much shared memory as K11; what it pays is more global loads per
// FMA, since no other warp shares its tiles. Its only barriers are a one-warp block's.
#pragma once

#include "skip_common.cuh"

namespace tileskip::cuda {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kARows, int kBCols, int kList>
__global__ void __launch_bounds__(kThreads, minBlocksPerSM<kThreads>())
    warpJoint64x64(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
                   const std::uint8_t* __restrict__ aPattern, const std::uint8_t* __restrict__ bPattern,
                   unsigned* tileQueue) {
  static_assert(kThreads == 32 && BM == WM && BN == WN, "the block is one warp: its tile is the warp tile");
  static_assert(kARows == BM && kBCols == BN, "one pattern tile per operand and block: the block decides every skip");
  warpTileSkipGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kARows, kBCols, kList>(A, B, C, M, N, K, aPattern, bPattern, tileQueue);
}

}  // namespace tileskip::cuda
