// S19 bsr-64: K12's loop over a packed block-sparse A. Every skipping kernel before it finds A's
// zeros again on each call, from a dense A: it builds a pattern, then lists the K-blocks a tile
// needs. A pruned or block-sparse-trained weight knows its zeros once and for all; packed
// (core/model/block_sparse.hpp), it is only its kept blocks and an index, a quarter of the bytes at
// density 0.25. The block tile is one block row tall, so its list of K-blocks is that row's slice
// of the index, read as it is: no pattern, no gather, no union waste, and every value it loads is
// one it multiplies. It runs the kept blocks through K12's two stages and warp tiles
// (parts/packed_stage.cuh), BK deep a K-tile in the index's order, so the sum is deterministic; a block
// row that keeps nothing stores zeros. The GLSL twin is s19_bsr_64.comp.
#pragma once

#include "parts/packed_stage.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads)
    s19_bsr_64(PackedA<float> A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, WM = Row.tile.WM, WN = Row.tile.WN;
  constexpr int TM = Row.tile.TM, TN = Row.tile.TN, kThreads = Row.tile.threads;
  static_assert(Row.aGranularity == BM, "the block tile is one block row tall: its K-blocks are that row's kept blocks");
  __shared__ __align__(16) float stages[2 * stageFloats<BM, BN, BK>()];
  const int tid = static_cast<int>(threadIdx.x);
  const BlockTile<BM, BN> block = groupedBlockTile<BM, BN, kHoistedGroupRows>(M, N);
  HoistedWarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads> tile(tid);
  PackedKTile<BM, BN, BK, kThreads> staged(A, B, N, K, block, tid);
  // The same count for the whole block, so every thread takes the loop, and its barriers, or none.
  const int steps = staged.steps();
  if (steps > 0) twoStageKLoop(tile, staged, stages, steps, [&](int index) { staged.fetch(min(index, steps - 1)); });
  tile.store(C, M, N, block.rowBase, block.colBase);
}

}  // namespace tileskip::cuda
