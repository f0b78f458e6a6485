// K12 hoisted: K11's double buffering with the loop's bookkeeping taken off the FMAs. Each
// thread's global addresses are computed once per block tile, so a K-tile's loads only add the
// K offset (interior tiles load with no bounds checks), and the barrier moves before the last
// depth's FMAs, so depth 0 of the next K-tile is read from shared memory while they run instead
// of every warp waiting for it at the top of each K-tile. The block grows to 128x256, eight
// 64x64 warps: each load and shared store of A feeds twice the FMAs. (lab/09-dense-variants.)
//
// A block whose tiles lie inside the matrices runs a K loop of one basic block: its loads step
// two pointers one K-tile at a time (the last K-tile loaded again instead of a branch), its
// stores and depth 0's reads always happen, and the two stages swap pointers; so ptxas schedules
// a whole K-tile at once, and nothing between the barrier and the next FMAs waits on address
// arithmetic (lab/18-fma-order-stalls, lab/29-barrier-placement). Edge blocks run the same loop with bounds checks.
//
// Its fragment reads are pinned in loop order (loadSharedQuad, lab/12-shared-load-leads). The warp-uniform
// skipping kernels run the same K-tile staging and barrier order over the K-blocks they list
// (parts/warp_skip.cuh's hoistedListLoop), at K11's 128 x 128 block: a 128 x 256 one would halve what
// a block skips on 128-wide zeros.
#pragma once

#include "parts/hoisted.cuh"

namespace tileskip::cuda {

// One block per multiprocessor: the 128 accumulators, two fragment sets and the K-tile in
// flight take some 230 registers a thread, which 256 threads get only one block at a time
// (minBlocksPerSM's two would cap them at 128 and spill).
template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads, 1)
    k12_hoisted(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, WM = Row.tile.WM, WN = Row.tile.WN;
  constexpr int TM = Row.tile.TM, TN = Row.tile.TN, kThreads = Row.tile.threads;
  __shared__ __align__(16) float stages[2 * stageFloats<BM, BN, BK>()];
  const int tid = static_cast<int>(threadIdx.x);
  const BlockTile<BM, BN> block = groupedBlockTile<BM, BN, kHoistedGroupRows>(M, N);
  HoistedWarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads> tile(tid);
  HoistedKTile<BM, BN, BK, kThreads> staged(A, B, M, N, K, block, tid);
  const int steps = (K + BK - 1) / BK;  // K >= 1: at least one
  if (staged.interiorKTiles()) {
    hoistedKLoop<true>(tile, staged, stages, steps);
  } else {
    hoistedKLoop<false>(tile, staged, stages, steps);
  }
  tile.store(C, M, N, block.rowBase, block.colBase);
}

}  // namespace tileskip::cuda
