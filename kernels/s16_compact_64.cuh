// S16 compact-64: S14's compaction in fp32, on K12's loop. Where A's zeros fall one by one (ReLU
// activations: each a token's inactive neuron), no K-block of a tile is empty and the warp-uniform
// skipping kernels find nothing; but a K column that no row of a 64-row tile needs still costs
// nothing to leave out. So the block lists its live columns (parts/gather.cuh, from the A-pattern at
// its height) and runs K12's two stages and warp tiles over those alone, packed BK to a K-tile
// (parts/gathered_stage.cuh): every rank-1 update it makes is one some row needs.
// A live column must arrive as fast as a K-tile of K12 does. Column k of A is row k of A transposed
// (made in the preparation, K x M, its rows padded to whole vectors), so it arrives in 128-bit
// loads, as row k of B does, and lands in
// the transposed stage as it is. A tile with every column live lists them all and runs at the dense
// loop's pace, so it needs no dense path of its own. K longer than a list is walked in passes; the
// sum runs in K order, so the result is deterministic. The GLSL twin is s16_compact_64.comp.
#pragma once

#include <cstdint>

#include "parts/gather.cuh"
#include "parts/gathered_stage.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads)
    s16_compact_64(const float* __restrict__ At, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
                   const std::uint8_t* __restrict__ aPattern, const std::uint8_t* __restrict__ /*bPattern: B is not inspected*/,
                   unsigned* /*tileQueue: a tile per block*/) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, WM = Row.tile.WM, WN = Row.tile.WN;
  constexpr int TM = Row.tile.TM, TN = Row.tile.TN, kThreads = Row.tile.threads, kList = Row.structure.kBlockList;
  static_assert(Row.aGranularity == BM, "the block's rows are one A-pattern tile: its bytes are the block's live columns");
  static_assert(kList % 4 == 0 && kList * kKBlock % BK == 0, "each pass starts on a pattern word, and pads to whole K-tiles in place");
  __shared__ __align__(16) float stages[2 * stageFloats<BM, BN, BK>()];
  __shared__ int liveColumns[kList * kKBlock];
  __shared__ int warpTotals[kThreads / 32];
  const int tid = static_cast<int>(threadIdx.x);
  const BlockTile<BM, BN> block = groupedBlockTile<BM, BN, kHoistedGroupRows>(M, N);
  HoistedWarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads> tile(tid);
  GatheredKTile<BM, BN, BK, kThreads> staged(At, B, M, N, block, tid);
  const int kBlocks = (K + kKBlock - 1) / kKBlock, aTiles = (M + BM - 1) / BM;
  for (int first = 0; first < kBlocks; first += kList) {
    // Its barriers also keep this pass's list and stages from the last pass's readers.
    const int count = gatherLiveColumns<kThreads>(aPattern, block.rowBase / BM, aTiles, K, first, min(kList, kBlocks - first),
                                                  liveColumns, warpTotals, [] { __syncthreads(); });
    if (count > 0) gatheredKLoop(tile, staged, stages, liveColumns, count);
  }
  tile.store(C, M, N, block.rowBase, block.colBase);
}

}  // namespace tileskip::cuda
