// S11 wgmma-joint-64x64: K14 skipping by the joint pattern (Hopper only, so no GLSL twin). Before
// its ring runs, the whole block looks at its tile's pattern bytes and gathers the K-tiles (64
// deep, a stage each) in which some product of the tile is non-zero: a K-tile where a_pat & b_pat
// is zero across the tile is never copied. For each listed K-tile it also records which consumer
// warpgroups have a product there: a consumer whose 64 rows (one A-pattern tile) meet none of the
// tile's B-pattern tiles in that K-tile issues none of its MMAs for it, the whole warpgroup alike.
// The producer then walks the list through K14's ring (WgmmaRing, parts/warpgroup.cuh) and the
// consumers walk it beside it. A list holds kListKBlocks / (BK / kKBlock) K-tiles; a longer K
// takes passes.
//
// One block per tile: the list is gathered by all of the block's threads before the warpgroups
// split, so a block does not carry a ring across tiles (which the persistent kernels do). The
// accumulators are the consumers' alone, but every thread declares them: the registers are shared
// out per kernel, not per role, without setmaxnreg.
#pragma once

#include <cstdint>

#include "parts/warpgroup.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads, 1)
    s11_wgmma_joint_64x64(const __grid_constant__ BulkTensorMap aMap, const __grid_constant__ BulkTensorMap bMap, bool bulk,
                          const std::uint16_t* __restrict__ A, const std::uint16_t* __restrict__ B, float* __restrict__ C,
                          int M, int N, int K, const std::uint8_t* __restrict__ aPattern,
                          const std::uint8_t* __restrict__ bPattern, unsigned* /*tileQueue: one block per tile*/) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, WM = Row.tile.WM, WN = Row.tile.WN;
  constexpr int kStages = Row.structure.ringStages, kThreads = Row.tile.threads, kAGranularity = Row.aGranularity;
  constexpr int kBGranularity = Row.bGranularity, kListKBlocks = Row.structure.kBlockList;
  using Ring = WgmmaRing<D, BM, BN, BK, WM, WN, kStages, kThreads>;
  using List = WgmmaKTileList<BK, kListKBlocks>;
  static_assert(kAGranularity == WM, "a consumer's rows are one A-pattern tile");
  static_assert(kBGranularity > 0 && BN % kBGranularity == 0, "the tile's columns are whole B-pattern tiles");
  constexpr int kKBlocksPerTile = BK / kKBlock;

  const Ring ring(dynamicSharedMemory(wgmmaJointSharedBytes<BM, BN, BK, kStages, kListKBlocks>()), &aMap, &bMap, bulk, A, B,
                  M, N, K, groupedBlockTile<BM, BN, kWgmmaGroupRows>(M, N));
  List& list = *reinterpret_cast<List*>(ring.end());
  // The block's first pattern tiles, and how many there are (patternByte reads 0 past them).
  const int aTiles = (M + kAGranularity - 1) / kAGranularity, bTiles = (N + kBGranularity - 1) / kBGranularity;
  const int kBlocks = (K + kKBlock - 1) / kKBlock;
  const int firstRowTile = ring.block.rowBase / kAGranularity, firstColTile = ring.block.colBase / kBGranularity;
  const int kTiles = (K + BK - 1) / BK;
  const int tid = static_cast<int>(threadIdx.x), warpgroup = tid / kWarpgroupThreads;
  const int consumer = warpgroup - 1, warp = (tid % kWarpgroupThreads) / kWarpLanes, lane = tid % kWarpLanes;
  if (tid == 0) ring.initBarriers();
  __syncthreads();
  // No setmaxnreg here: the roles meet again at every pass's barrier, so they are not the two
  // branches of one if/else that the instruction needs. A variant that split them once (one
  // producer warp gathering into two lists handed over by mbarriers) ran 8-14 % slower: a warp
  // gathers what the whole block gathers here (lab/21-wgmma).

  float acc[Ring::kAccumulators];
#pragma unroll
  for (int i = 0; i < Ring::kAccumulators; ++i) acc[i] = 0.0f;
  int walked = 0;  // entries of the ring so far, over every pass
  for (int first = 0; first < kTiles; first += List::kEntries) {
    const int passTiles = min(List::kEntries, kTiles - first);
    // Which consumers have a product in each K-tile of the pass: a_pat of its rows & b_pat of the tile's columns.
    for (int t = tid; t < passTiles; t += kThreads) {
      unsigned kept = 0;
      for (int c = 0; c < Ring::kConsumers; ++c) {
        unsigned joint = 0;
        for (int kb = (first + t) * kKBlocksPerTile; kb < (first + t + 1) * kKBlocksPerTile; ++kb) {
          joint |= patternByte(aPattern, firstRowTile + c, aTiles, kb, kBlocks) &
                   patternUnion<BN / kBGranularity>(bPattern, firstColTile, bTiles, kb, kBlocks);
        }
        if (joint != 0) kept |= 1u << c;
      }
      list.keptOf[t] = static_cast<std::uint8_t>(kept);
    }
    __syncthreads();
    // The first warp compacts them in K order, a warp's width at a time.
    if (tid < kWarpLanes) {
      int count = 0;
      for (int base = 0; base < passTiles; base += kWarpLanes) {
        const int t = base + lane;
        const unsigned kept = t < passTiles ? list.keptOf[t] : 0u;
        const unsigned listed = __ballot_sync(0xFFFFFFFFu, kept != 0);
        if (kept != 0) {
          const int at = count + __popc(listed & ((1u << lane) - 1u));
          list.kTiles[at] = first + t;
          list.consumers[at] = static_cast<std::uint8_t>(kept);
        }
        count += __popc(listed);
      }
      if (lane == 0) list.count = count;
    }
    __syncthreads();
    const int count = list.count;
    if (warpgroup == 0) {
      if (ring.copies(tid)) {
        for (int i = 0; i < count; ++i) ring.produce(walked + i, list.kTiles[i], tid);
      }
    } else {
      for (int i = 0; i < count; ++i) {
        // The same bit for every lane, said so through lane 0: ptxas then takes the MMAs it guards
        // as the whole warpgroup's instead of serializing them (its note C7520).
        const bool mine = __shfl_sync(0xFFFFFFFFu, (list.consumers[i] >> consumer) & 1u, 0) != 0;
        ring.consume(walked + i, mine, acc, consumer, lane);
      }
    }
    walked += count;
    __syncthreads();  // every thread is done with this pass's list before the next is gathered
  }
  if (warpgroup == 0) return;
  wgmmaWait<0>();
  ring.store(acc, C, consumer, warp, lane);
}

}  // namespace tileskip::cuda
