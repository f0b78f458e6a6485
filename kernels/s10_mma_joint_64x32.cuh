// S10 mma-joint-64x32: K13's tensor cores, skipping by the joint pattern a_pat & b_pat. The
// two decisions of the SIMT joint kernels (parts/warp_skip.cuh) stay, at the MMA's granularity:
//  - the block gathers the K-blocks some warp of its tile needs (gatherKBlocks over the union
//    of its pattern tiles' bytes) and its stage ring loads only those, two to a 16-deep K-tile
//    slot pair, so a K-block nobody needs is never loaded;
//  - a warp's WM x WN tile lies in one A-pattern tile and one B-pattern tile (asserted below), so
//    the warp's joint byte of a K-block is one byte of each. A 16-deep step (one MMA of 16-bit
//    inputs, two of tf32) consumes two K-block slots: where the warp's joint byte is zero in both,
//    it issues none of the step's loads from shared memory and none of its MMAs. The whole warp issues an MMA or none, and
//    every lane reads the same bit: warp-uniform by construction, no vote needed. Beside the
//    gathered list the block writes, once per pass, each K-tile's kept steps for every warp
//    (recordKeptSteps), so a warp's decision in the loop is one shared-memory read: read per
//    step from the patterns, it cost more than the MMAs it saved (lab/20-s10-skip-tensor).
// A block tile whose every pattern tile keeps everything runs K13's loop over every K-block.
// Persistent, as the SIMT joint kernels: blocks take block tiles from a queue. The GLSL twin is
// s10_mma_joint_64x32.comp.
#pragma once

#include <cstdint>

#include "parts/block_skip.cuh"
#include "parts/ring.cuh"

namespace tileskip::cuda {

// Which of a K-tile's 16-deep MMA steps a warp keeps, bit i for step i: the warp's joint byte of
// either K-block slot of the step is non-zero.
template <int BK, class Tiles>
__device__ unsigned warpKeptSteps(const Tiles& skip, int aTile, int bTile, const int (&kBlocks)[BK / kKBlock]) {
  constexpr int kSlotsPerStep = kMmaK / kKBlock;
  unsigned kept = 0u;
#pragma unroll
  for (int s = 0; s < BK / kKBlock; ++s) {
    const int kBlock = kBlocks[s];
    const unsigned joint = kBlock < 0 ? 0u
                                      : patternByte(skip.aPattern, aTile, skip.aTiles, kBlock, skip.kBlocks) &
                                            patternByte(skip.bPattern, bTile, skip.bTiles, kBlock, skip.kBlocks);
    kept |= joint != 0u ? 1u << (s / kSlotsPerStep) : 0u;
  }
  return kept;
}

// Every warp's kept steps of every K-tile of `schedule` into stepKept: warp w's bits of K-tile t
// at bit w * kStepsPerTile of stepKept[t]. Each thread fills K-tiles of its own; the ring's first
// barrier comes before any warp reads them.
template <int BK, class Warp, class Tiles, class Schedule, int BM, int BN>
__device__ void recordKeptSteps(const Tiles& skip, const BlockTile<BM, BN>& block, const Schedule& schedule,
                                unsigned* stepKept) {
  constexpr int kStepsPerTile = BK / kMmaK;
  static_assert(Warp::kWarpsM * Warp::kWarpsN * kStepsPerTile <= 32, "every warp's steps of a K-tile in one word");
  for (int step = static_cast<int>(threadIdx.x); step < schedule.steps(); step += static_cast<int>(blockDim.x)) {
    int kBlocks[BK / kKBlock];
    schedule.kBlocksOf(step, kBlocks);
    unsigned bits = 0u;
#pragma unroll
    for (int w = 0; w < Warp::kWarpsM * Warp::kWarpsN; ++w) {
      const int aTile = (block.rowBase + Warp::rowOf(w)) / Tiles::kRows;
      const int bTile = (block.colBase + Warp::colOf(w)) / Tiles::kCols;
      bits |= warpKeptSteps<BK>(skip, aTile, bTile, kBlocks) << (w * kStepsPerTile);
    }
    stepKept[step] = bits;
  }
}

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads)
    s10_mma_joint_64x32(const typename MmaInputType<D>::Word* __restrict__ A, const typename MmaInputType<D>::Word* __restrict__ B,
                        float* __restrict__ C, int M, int N, int K, const std::uint8_t* __restrict__ aPattern,
                        const std::uint8_t* __restrict__ bPattern, unsigned* tileQueue) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, WM = Row.tile.WM, WN = Row.tile.WN;
  constexpr int kStages = Row.structure.ringStages, kThreads = Row.tile.threads, kAGranularity = Row.aGranularity;
  constexpr int kBGranularity = Row.bGranularity, kList = Row.structure.kBlockList;
  using Word = typename MmaInputType<D>::Word;
  static_assert(kAGranularity % WM == 0 && kBGranularity % WN == 0, "a warp tile lies in one A-pattern tile and one B-pattern tile");
  static_assert(kMmaK % kKBlock == 0 && BK % kMmaK == 0, "an MMA step is whole K-block slots; a K-tile whole steps");
  using Tiles = BlockPatternTiles<BM, BN, kAGranularity, kBGranularity>;
  using Warp = MmaWarpTile<D, BM, BN, BK, WM, WN, kThreads>;
  auto* stages = reinterpret_cast<Word*>(dynamicSharedMemory(mmaSharedBytes<D, BM, BN, BK, kStages>()));
  constexpr int kStepsPerTile = BK / kMmaK;
  __shared__ int kBlockList[kList];
  __shared__ unsigned stepKept[kList / (BK / kKBlock)];  // recordKeptSteps
  __shared__ int warpTotals[kThreads / 32];
  static_assert(kList % 4 == 0, "each pass of lists starts on a pattern word (gatherKBlocks)");
  __shared__ int takenTile;
  const int tiles = blockTileCount<BM, BN>(M, N);
  for (int index = takeBlockTile(tileQueue, &takenTile); index < tiles; index = takeBlockTile(tileQueue, &takenTile)) {
    const BlockTile<BM, BN> block(N, index);
    const Tiles skip(aPattern, bPattern, M, N, K, block);
    Warp warp(static_cast<int>(threadIdx.x));
    if (skip.template keepsEverything<kThreads>(K)) {  // K13 exactly, over every K-block
      mmaRingMainLoop<D, BM, BN, BK, kStages, kThreads>(
          A, B, M, N, K, block, AllKBlocks<BK>{skip.kBlocks},
          [&](const Word* As, const Word* Bs, int) {
#pragma unroll
            for (int kk = 0; kk < BK; kk += kMmaK) warp.multiplyStep(As, Bs, kk);
          },
          stages);
      warp.store(C, M, N, block.rowBase, block.colBase);
      continue;
    }
    for (int first = 0; first < skip.kBlocks; first += kList) {
      const int count = gatherKBlocks<kThreads>(skip, first, min(kList, skip.kBlocks - first), kBlockList, warpTotals);
      const ListedKBlocks<BK> schedule{kBlockList, count};
      recordKeptSteps<BK, Warp>(skip, block, schedule, stepKept);
      mmaRingMainLoop<D, BM, BN, BK, kStages, kThreads>(
          A, B, M, N, K, block, schedule,
          [&](const Word* As, const Word* Bs, int step) {
            const unsigned kept = stepKept[step] >> (warp.index * kStepsPerTile);
#pragma unroll
            for (int kk = 0; kk < BK; kk += kMmaK) {
              if ((kept >> (kk / kMmaK)) & 1u) warp.multiplyStep(As, Bs, kk);
            }
          },
          stages);
    }
    warp.store(C, M, N, block.rowBase, block.colBase);
  }
  leaveBlockTileQueue(tileQueue);
}

}  // namespace tileskip::cuda
