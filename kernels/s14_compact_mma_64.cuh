// S14 compact-mma-64: compaction, for zeros that are spread out. Where A's zeros fall one by one
// (ReLU activations: each a token's inactive neuron), no K-block of a tile is empty, and the
// skipping kernels before this one find nothing; but a K column that no row of a 64-row tile needs
// still costs nothing to leave out. So the block lists its live columns (parts/gather.cuh, from the
// A-pattern at its height) and runs K13's ring and warp tiles over those alone, packed BK to a
// K-tile: the tensor cores multiply dense tiles, only fewer of them.
// A live column must arrive as fast as a K-block does. Column k of A is row k of A transposed (made
// in the preparation, K x M, its rows padded to whole chunks), so it arrives as BM / 8 16-byte
// copies, as row k of B does; A's stage
// is K-major and its fragments are read by transposing ldmatrix loads (ring.cuh's kAByK). A tile
// with every column live lists them all and runs at the dense ring's pace, so it needs no dense
// path of its own. K longer than a list is walked in passes; the sum runs in K order, so the result
// is deterministic. The GLSL twin is s14_compact_mma_64.comp.
#pragma once

#include <cstdint>

#include "parts/gather.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads)
    s14_compact_mma_64(const typename MmaInputType<D>::Word* __restrict__ At, const typename MmaInputType<D>::Word* __restrict__ B,
                       float* __restrict__ C, int M, int N, int K, const std::uint8_t* __restrict__ aPattern,
                       const std::uint8_t* __restrict__ /*bPattern: B is not inspected*/, unsigned* /*tileQueue: a tile per block*/) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, WM = Row.tile.WM, WN = Row.tile.WN;
  constexpr int kStages = Row.structure.ringStages, kThreads = Row.tile.threads, kList = Row.structure.kBlockList;
  using Word = typename MmaInputType<D>::Word;
  static_assert(Row.aGranularity == BM, "the block's rows are one A-pattern tile: its bytes are the block's live columns");
  static_assert(kList % 4 == 0, "each pass starts on a pattern word (gatherLiveColumns)");
  const BlockTile<BM, BN> block(N);
  auto* stages = reinterpret_cast<Word*>(dynamicSharedMemory(mmaSharedBytes<D, BM, BN, BK, kStages, true>()));
  __shared__ int liveColumns[kList * kKBlock];
  __shared__ int warpTotals[kThreads / 32];
  MmaWarpTile<D, BM, BN, BK, WM, WN, kThreads, true> warp(static_cast<int>(threadIdx.x));
  const int kBlocks = (K + kKBlock - 1) / kKBlock, aTiles = (M + BM - 1) / BM;
  for (int first = 0; first < kBlocks; first += kList) {
    const int count = gatherLiveColumns<kThreads>(aPattern, block.rowBase / BM, aTiles, K, first, min(kList, kBlocks - first),
                                                  liveColumns, warpTotals, [] { __syncthreads(); });
    mmaRingMainLoop<D, BM, BN, BK, kStages, kThreads>(
        At, B, M, N, K, block, GatheredColumns<BK>{liveColumns, count},
        [&](const Word* As, const Word* Bs, int) {
#pragma unroll
          for (int kk = 0; kk < BK; kk += kMmaK) warp.multiplyStep(As, Bs, kk);
        },
        stages);
  }
  warp.store(C, M, N, block.rowBase, block.colBase);
}

}  // namespace tileskip::cuda
