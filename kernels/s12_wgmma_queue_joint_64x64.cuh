// S12 wgmma-queue-joint-64x64: S11's skip on tiles that fit the zeros, taken from a queue. S11 runs
// one 128 x 256 tile per block and copies a K-tile wherever any of its 2 x 4 pattern-tile pairs
// has a product there: with zeros in 64-blocks at 0.25 / 0.25 that is about 30 % of the K-tiles
// for 6 % of the products (`tileskip inspect`'s union waste). Here a tile is 128 x 128 (two
// consumers of m64n128: the narrowest MMA whose operands leave shared memory room for the copy
// engine's writes, lab/40-s11-per-box), so a K-tile is copied where one of 2 x 2 pairs needs it.
//
// S13 wgmma-queue-wide-64x64 is the same kernel on S11's 128 x 256 tile (its row's tile, consumers
// of m64n256): where B's columns keep the same K-tiles (B dense, or B's zeros in blocks wider than
// a pattern tile) it has no more union waste than S12 and copies a quarter fewer bytes per
// product, which is what the L2 that bounds S12 carries (lab/44-s12-prefetch).
//
// S17 wgmma-queue-a-64 is S13 by A's pattern alone (its row inspects no B): a K-tile is kept where
// a consumer's rows have a product in it, as if every B column had. For a block-sparse A (a weight)
// beside a dense B (activations), S13 keeps the same K-tiles, but its B-pattern costs a pass over B
// on every call; S17 needs none, and with A's pattern prepared once a call prepares nothing.
// S18 wgmma-queue-b-64 is S12 by B's pattern alone, for the other way round: dense activations
// times a block-sparse weight, a sparse layer's x times W transposed. Its K-tile is kept for both
// consumers where the tile's columns have a product in it, and its queue groups row tiles as for a
// dense A.
//
// The block stays resident and the roles split once: one producer warp takes tiles from the
// queue, decides each tile's K-tiles a warp's width at a time (a lane a K-tile, a ballot to list
// them in K order) and feeds the kept ones through the ring, straight on into the next tile's;
// the two consumer warpgroups multiply what lands and store a tile when its last K-tile has.
// What the consumers need to know travels with each stage in a note (the tile, which consumers
// multiply, whether it ends the tile), so nothing but the stage's mbarriers stands between the
// roles: the producer fills the next tile's first stages while the consumers store the last
// one's C, and a block that drew short lists takes more tiles instead of idling at the end.
//
// The queue hands out tiles in groups of row tiles, a column band at a time. How tall a group is
// depends on A's zeros (queueGroupRows): a group's A panel stays in L2 while it sweeps the bands,
// and the fewer K-blocks A keeps, the more row tiles share that panel's bytes and the fewer times
// each band of B is read again from DRAM.
//
// The producer holds a K-tile back until it knows whether another follows, so that the tile's
// last copy carries the "last" mark; a tile with no kept K-tile at all gets one note with nothing
// copied, for its store of zeros. A final note with no tile sends the consumers home.
#pragma once

#include <cstdint>

#include "parts/tile_queue.cuh"
#include "parts/warpgroup.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads, 1)
    s12_wgmma_queue_joint_64x64(const __grid_constant__ BulkTensorMap aMap, const __grid_constant__ BulkTensorMap bMap,
                                bool bulk, const std::uint16_t* __restrict__ A, const std::uint16_t* __restrict__ B,
                                float* __restrict__ C, int M, int N, int K, const std::uint8_t* __restrict__ aPattern,
                                const std::uint8_t* __restrict__ bPattern, unsigned* tileQueue) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, WM = Row.tile.WM, WN = Row.tile.WN;
  constexpr int kStages = Row.structure.ringStages, kThreads = Row.tile.threads, kAGranularity = Row.aGranularity;
  constexpr int kBGranularity = Row.bGranularity, kKBlocksPerTile = BK / kKBlock;
  // The producer is one warp: it decides a round of K-tiles a lane each, and copies alone.
  using Ring = WgmmaRing<D, BM, BN, BK, WM, WN, kStages, kThreads, kWarpLanes>;
  static_assert(kAGranularity == 0 || kAGranularity == WM, "a consumer's rows are one A-pattern tile (or A is not inspected)");
  static_assert(kBGranularity == 0 || BN % kBGranularity == 0, "the tile's columns are whole B-pattern tiles (or B is not inspected)");
  static_assert(Row.structure.kBlockList == kWarpLanes * kKBlocksPerTile, "a round decides one K-tile a lane");
  static_assert(Ring::kConsumers <= 8, "a note's byte holds a bit per consumer");
  static_assert(kKBlocksPerTile == 8, "a K-tile's pattern bytes are one 64-bit word");
  constexpr int kBTilesPerTile = kBGranularity > 0 ? BN / kBGranularity : 0;

  const Ring ring(dynamicSharedMemory(wgmmaQueueSharedBytes<BM, BN, BK, kStages>()), &aMap, &bMap, bulk, A, B, M, N, K,
                  BlockTile<BM, BN>(N, 0));
  WgmmaStageNote* notes = reinterpret_cast<WgmmaStageNote*>(ring.end());
  const int tiles = blockTileCount<BM, BN>(M, N), kTiles = (K + BK - 1) / BK;
  const int tid = static_cast<int>(threadIdx.x), warpgroup = tid / kWarpgroupThreads;
  const int warp = (tid % kWarpgroupThreads) / kWarpLanes, lane = tid % kWarpLanes;
  const int aTiles = kAGranularity > 0 ? (M + kAGranularity - 1) / kAGranularity : 0, kBlocks = (K + kKBlock - 1) / kKBlock;
  // The queue's order: row tiles in groups as tall as A's zeros let share L2 (queueGroupRows), from
  // a sample of A's pattern the producer reads before the roles split.
  __shared__ int groupRows;
  if (warpgroup == 0 && warp == 0) {
    const double keptA = kAGranularity > 0 ? sampledKeptFraction<kGroupSamplesPerLane>(aPattern, aTiles, kBlocks, lane) : 1.0;
    if (lane == 0) groupRows = queueGroupRows((M + BM - 1) / BM, keptA);
  }
  if (tid == 0) ring.initBarriers();
  __syncthreads();  // the last block-wide barrier: from here the roles meet only at mbarriers

  if (warpgroup == 0) {
    keepFewerRegisters<kQueueProducerRegisters<WN>>();
    if (warp != 0) return;
    const int bTiles = kBGranularity > 0 ? (N + kBGranularity - 1) / kBGranularity : 0;
    // A K-tile's pattern bytes of one pattern tile, byte i K-block 8t + i's: one 8-byte read where
    // every tile's K-tiles start on a word (K a multiple of 64, the buffer aligned), byte reads
    // otherwise; 0 past M, N or K. The producer warp is the whole block's decision: on bytes it
    // waited on its reads half the time (lab/42-s12-queue), starving the consumers.
    const bool wordReads = kBlocks % kKBlocksPerTile == 0 &&
                           (reinterpret_cast<std::uintptr_t>(aPattern) | reinterpret_cast<std::uintptr_t>(bPattern)) % 8 == 0;
    auto kTilePattern = [&](const std::uint8_t* __restrict__ pattern, int patternTile, int patternTiles, int t) {
      if (wordReads) {
        const std::uint64_t* row = reinterpret_cast<const std::uint64_t*>(pattern + static_cast<std::size_t>(patternTile) * kBlocks);
        return patternTile < patternTiles ? __ldg(row + t) : std::uint64_t{0};
      }
      std::uint64_t bytes = 0;
      for (int i = 0; i < kKBlocksPerTile; ++i) {
        bytes |= static_cast<std::uint64_t>(patternByte(pattern, patternTile, patternTiles, t * kKBlocksPerTile + i, kBlocks)) << (8 * i);
      }
      return bytes;
    };
    int entry = 0;  // entries of the ring so far, over every tile
    // Entry `entry` is K-tile `kTile` of tile `index` (-1: nothing to copy), multiplied by the
    // consumers of bits `consumers`, the tile's last where `last`.
    auto post = [&](int index, const BlockTile<BM, BN>& tile, int kTile, unsigned consumers, bool last) {
      ring.awaitStage(entry);
      if (lane == 0) notes[entry % kStages] = WgmmaStageNote{index, static_cast<std::uint8_t>(consumers), last};
      if (ring.copies(lane)) {
        if (kTile >= 0) {
          ring.fill(entry, kTile, lane, tile);
        } else {
          ring.fillNothing(entry);
        }
      }
      ++entry;
    };
    for (;;) {
      const int index = static_cast<int>(__shfl_sync(0xFFFFFFFFu, lane == 0 ? atomicAdd(&tileQueue[0], 1u) : 0u, 0));
      if (index >= tiles) break;
      const BlockTile<BM, BN> tile = groupedBlockTile<BM, BN>(M, N, index, groupRows);
      const int firstRowTile = kAGranularity > 0 ? tile.rowBase / kAGranularity : 0;
      const int firstColTile = kBGranularity > 0 ? tile.colBase / kBGranularity : 0;
      int heldKTile = -1;  // the last kept K-tile found, not yet posted
      unsigned heldConsumers = 0;
      for (int round = 0; round < kTiles; round += kWarpLanes) {
        // Lane l: which consumers have a product in K-tile round + l (a_pat of their rows & b_pat of
        // the tile's columns, the K-tile's eight K-blocks a byte each of one word; every K-block of
        // an operand that is not inspected).
        const int t = round + lane;
        unsigned kept = 0;
        if (t < kTiles) {
          std::uint64_t columns = kBGranularity > 0 ? 0 : ~std::uint64_t{0};
          for (int j = 0; j < kBTilesPerTile; ++j) columns |= kTilePattern(bPattern, firstColTile + j, bTiles, t);
          for (int c = 0; c < Ring::kConsumers; ++c) {
            const std::uint64_t rows = kAGranularity > 0 ? kTilePattern(aPattern, firstRowTile + c, aTiles, t) : ~std::uint64_t{0};
            const std::uint64_t joint = rows & columns;
            if (joint != 0) kept |= 1u << c;
          }
        }
        // In K order, a listed lane at a time: the warp agrees on each, so it posts together.
        for (unsigned listed = __ballot_sync(0xFFFFFFFFu, kept != 0); listed != 0; listed &= listed - 1) {
          const int from = __ffs(listed) - 1;
          const unsigned consumers = __shfl_sync(0xFFFFFFFFu, kept, from);
          if (heldKTile >= 0) post(index, tile, heldKTile, heldConsumers, false);
          heldKTile = round + from;
          heldConsumers = consumers;
        }
      }
      post(index, tile, heldKTile, heldConsumers, true);
    }
    post(-1, BlockTile<BM, BN>(N, 0), -1, 0u, true);
    leaveBlockTileQueue(tileQueue, lane == 0);  // the one warp that takes tiles counts the block out
    return;
  }

  takeMoreRegisters<kQueueConsumerRegisters<WN>>();
  ring.consumeQueue(notes, C, groupRows, warpgroup - 1, warp, lane);
}

}  // namespace tileskip::cuda
