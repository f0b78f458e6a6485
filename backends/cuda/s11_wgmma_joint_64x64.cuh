// S11 wgmma-joint-64x64: K14 skipping by the joint pattern (Hopper only, so no GLSL twin). The
// producer warpgroup's first warp looks at the block tile's pattern bytes and gathers the K-tiles
// (64 deep, a stage each) in which some product of the tile is non-zero: a K-tile where
// a_pat & b_pat is zero across the tile is never copied. For each listed K-tile it also records
// which consumer warpgroups have a product there: a consumer whose 64 rows (one A-pattern tile)
// meet none of the tile's B-pattern tiles in that K-tile issues none of its MMAs for it, the
// whole warpgroup alike. The producer then walks the list through K14's ring (WgmmaRing,
// k14_wgmma.cuh) and the consumers walk it beside it.
//
// A list holds kListKBlocks / 8 K-tiles; a longer K takes passes, through two lists: while the
// consumers walk one, the producer may gather the next into the other. Two mbarriers per list
// hand it over: "ready" once gathered, "free" once every consumer warp has walked it. So, as in
// K14, the warpgroups never meet at a block-wide barrier after they split, and each takes the
// registers its role needs (setmaxnreg). One block per tile.
#pragma once

#include <cstdint>

#include "gemm_common.cuh"
#include "hopper_common.cuh"
#include "k14_wgmma.cuh"

namespace tileskip::cuda {

// A gathered list: K-tiles, which consumers multiply each, and its length.
template <int BK, int kListKBlocks>
struct WgmmaKTileList {
  static constexpr int kEntries = kListKBlocks / (BK / kKBlock);
  static_assert(kEntries % kWarpThreads == 0, "the list is gathered a warp's width at a time");
  int kTiles[kEntries];
  std::uint8_t consumers[kEntries];  // bit c: consumer warpgroup c has a product in the K-tile
  int count;
};

// Beside the ring: two lists and their ready and free mbarriers.
template <int BK, int kListKBlocks>
struct WgmmaListPair {
  WgmmaKTileList<BK, kListKBlocks> lists[2];
  alignas(8) std::uint64_t ready[2];
  alignas(8) std::uint64_t free[2];
};

template <int BM, int BN, int BK, int kStages, int kListKBlocks>
__host__ __device__ constexpr std::size_t wgmmaJointSharedBytes() {
  return WgmmaLayout<BM, BN, BK, kStages>::kSharedBytes + sizeof(WgmmaListPair<BK, kListKBlocks>);
}

template <MmaInput kInputs, int BM, int BN, int BK, int WM, int WN, int kStages, int kThreads, int kARows, int kBCols,
          int kListKBlocks>
__global__ void __launch_bounds__(kThreads, 1)
    wgmmaJoint64x64(const __grid_constant__ BulkTensorMap aMap, const __grid_constant__ BulkTensorMap bMap, bool bulk,
                    const std::uint16_t* __restrict__ A, const std::uint16_t* __restrict__ B, float* __restrict__ C, int M,
                    int N, int K, const std::uint8_t* __restrict__ aPattern, const std::uint8_t* __restrict__ bPattern) {
  using Ring = WgmmaRing<kInputs, BM, BN, BK, WM, WN, kStages, kThreads>;
  using List = WgmmaKTileList<BK, kListKBlocks>;
  static_assert(kARows == WM, "a consumer's rows are one A-pattern tile");
  static_assert(kBCols > 0 && BN % kBCols == 0, "the tile's columns are whole B-pattern tiles");
  constexpr int kKBlocksPerTile = BK / kKBlock;
  constexpr int kConsumerWarps = Ring::kConsumers * (kWarpgroupThreads / kWarpThreads);

  const Ring ring(dynamicSharedMemory(wgmmaJointSharedBytes<BM, BN, BK, kStages, kListKBlocks>()), &aMap, &bMap, bulk, A, B,
                  M, N, K, groupedBlockTile<BM, BN, kWgmmaGroupRows>(M, N));
  auto& pair = *reinterpret_cast<WgmmaListPair<BK, kListKBlocks>*>(ring.end());
  const int kTiles = (K + BK - 1) / BK, passes = (kTiles + List::kEntries - 1) / List::kEntries;
  const int tid = static_cast<int>(threadIdx.x), warpgroup = tid / kWarpgroupThreads, lane = tid % kWarpThreads;
  if (tid == 0) {
    ring.initBarriers();
    for (int b = 0; b < 2; ++b) {
      barrierInit(&pair.ready[b], 1);
      barrierInit(&pair.free[b], kConsumerWarps);  // lane 0 of every consumer warp
    }
    barrierInitFence();
  }
  __syncthreads();  // the last block-wide barrier

  // Pass p uses list p % 2 for the (p / 2)-th time: ready's phase of parity (p / 2) % 2, and
  // before it is gathered again, free's of the use before.
  if (warpgroup == 0) {
    keepFewerRegisters<kProducerRegisters>();
    if (bulk && tid >= kWarpThreads) return;  // the copy engine needs one thread; the first warp gathers
    // The block's first pattern tiles, and how many there are (patternByte reads 0 past them).
    const int aTiles = (M + kARows - 1) / kARows, bTiles = (N + kBCols - 1) / kBCols, kBlocks = (K + kKBlock - 1) / kKBlock;
    const int firstRowTile = ring.block.rowBase / kARows, firstColTile = ring.block.colBase / kBCols;
    int walked = 0;  // entries of the ring so far, over every pass
    for (int pass = 0; pass < passes; ++pass) {
      List& list = pair.lists[pass % 2];
      if (tid < kWarpThreads) {
        if (pass >= 2) barrierWait(&pair.free[pass % 2], (pass / 2 + 1) & 1);
        // Per K-tile of the pass, which consumers have a product: a_pat of its rows & b_pat of the
        // tile's columns; the listed ones compacted in K order, a warp's width at a time.
        const int first = pass * List::kEntries, passTiles = min(List::kEntries, kTiles - first);
        int count = 0;
        for (int base = 0; base < passTiles; base += kWarpThreads) {
          const int t = first + base + lane;
          unsigned kept = 0;
          for (int c = 0; c < Ring::kConsumers && base + lane < passTiles; ++c) {
            unsigned joint = 0;
            for (int kb = t * kKBlocksPerTile; kb < (t + 1) * kKBlocksPerTile; ++kb) {
              joint |= patternByte(aPattern, firstRowTile + c, aTiles, kb, kBlocks) &
                       patternUnion<BN / kBCols>(bPattern, firstColTile, bTiles, kb, kBlocks);
            }
            if (joint != 0) kept |= 1u << c;
          }
          const unsigned listed = __ballot_sync(0xFFFFFFFFu, kept != 0);
          if (kept != 0) {
            const int at = count + __popc(listed & ((1u << lane) - 1u));
            list.kTiles[at] = t;
            list.consumers[at] = static_cast<std::uint8_t>(kept);
          }
          count += __popc(listed);
        }
        if (lane == 0) list.count = count;
        __syncwarp();
        if (lane == 0) barrierArrive(&pair.ready[pass % 2]);
      } else {
        barrierWait(&pair.ready[pass % 2], (pass / 2) & 1);  // element copies: every producer thread walks
      }
      const int count = list.count;
      if (ring.copies(tid)) {
        for (int i = 0; i < count; ++i) ring.produce(walked + i, list.kTiles[i], tid);
      }
      walked += count;
    }
    return;
  }

  takeMoreRegisters<kConsumerRegisters>();
  const int consumer = warpgroup - 1, warp = (tid % kWarpgroupThreads) / kWarpThreads;
  float acc[kWgmmaAccumulators];
#pragma unroll
  for (int i = 0; i < kWgmmaAccumulators; ++i) acc[i] = 0.0f;
  int walked = 0;
  for (int pass = 0; pass < passes; ++pass) {
    const List& list = pair.lists[pass % 2];
    barrierWait(&pair.ready[pass % 2], (pass / 2) & 1);
    const int count = list.count;
    for (int i = 0; i < count; ++i) ring.consume(walked + i, ((list.consumers[i] >> consumer) & 1u) != 0, acc, consumer, lane);
    walked += count;
    if (lane == 0) barrierArrive(&pair.free[pass % 2]);
  }
  wgmmaWait<0>();
  ring.store(acc, C, consumer, warp, lane);
}

}  // namespace tileskip::cuda
