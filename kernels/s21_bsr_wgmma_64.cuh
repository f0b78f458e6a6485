// S21 bsr-wgmma-64: a packed block-sparse A on Hopper's warpgroup ring (CUDA only), for many columns
// of B (prefill, training). S17 multiplies the same weights from a dense A: it builds A's pattern
// (or keeps one built once), lists each tile's K-tiles from it and copies them from a matrix that
// is three quarters zeros at density 0.25. Here A is only its kept blocks, in 64-blocks, and a
// consumer warpgroup's 64 rows are one block row: its K-tiles are that row's kept blocks, one
// K-tile each (BK = the block), in the index's order. The producer warp walks the two rows of the
// tile's consumers together, a kept column at a time in K order, and has the copy engine fetch,
// for each, B's 64 rows there and each consumer's kept block straight from the packed values (a
// box of one block: the values a tensor map over them names as a matrix of kept blocks stacked);
// a consumer whose row keeps nothing at that column issues no MMAs for it. Tiles come from a
// queue (S12's roles, notes and stores: parts/warpgroup.cuh's consumeQueue), so a short
// block row does not leave its block idle. With N not a multiple of 8 the copy engine cannot move
// B's rows, and the producer warp copies them, and the kept blocks, value by value.
#pragma once

#include <cstdint>

#include "parts/packed.cuh"
#include "parts/tile_queue.cuh"
#include "parts/warpgroup.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads, 1)
    s21_bsr_wgmma_64(const __grid_constant__ BulkTensorMap aMap, const __grid_constant__ BulkTensorMap bMap, bool bulk,
                     PackedA<std::uint16_t> A, const std::uint16_t* __restrict__ B, float* __restrict__ C, int M, int N, int K,
                     unsigned* tileQueue) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, WM = Row.tile.WM, WN = Row.tile.WN;
  constexpr int kStages = Row.structure.ringStages, kThreads = Row.tile.threads, kBlock = Row.aGranularity;
  // The producer is one warp: it walks the index and copies alone.
  using Ring = WgmmaRing<D, BM, BN, BK, WM, WN, kStages, kThreads, kWarpLanes>;
  static_assert(kBlock == WM && kBlock == BK, "a consumer's rows are one block row, a K-tile one kept block's depth");
  static_assert(Ring::kConsumers <= 8, "a note's byte holds a bit per consumer");

  const Ring ring(dynamicSharedMemory(wgmmaQueueSharedBytes<BM, BN, BK, kStages>()), &aMap, &bMap, bulk, nullptr, B, M, N, K,
                  BlockTile<BM, BN>(N, 0));
  WgmmaStageNote* notes = reinterpret_cast<WgmmaStageNote*>(ring.end());
  const int tiles = blockTileCount<BM, BN>(M, N);
  const int tid = static_cast<int>(threadIdx.x), warpgroup = tid / kWarpgroupThreads;
  const int warp = (tid % kWarpgroupThreads) / kWarpLanes, lane = tid % kWarpLanes;
  const int* rowPointers = A.rowPointers();
  const int* columns = A.columnIndices();
  // The queue's order: row tiles in groups as tall as A's kept fraction lets share L2
  // (queueGroupRows), the kept fraction exact from the index.
  const int blockCols = (K + kBlock - 1) / kBlock;
  const double keptA = static_cast<double>(__ldg(rowPointers + A.blockRows)) / (static_cast<double>(A.blockRows) * blockCols);
  const int groupRows = queueGroupRows((M + BM - 1) / BM, keptA);
  if (tid == 0) ring.initBarriers();
  __syncthreads();  // the last block-wide barrier: from here the roles meet only at mbarriers

  if (warpgroup == 0) {
    keepFewerRegisters<kQueueProducerRegisters<WN>>();
    if (warp != 0) return;
    int entry = 0;  // entries of the ring so far, over every tile
    // Entry `entry` holds block column `column` of tile `index` (-1: nothing to copy): B's rows
    // there and, for each consumer whose bit is set, its kept block `kept[c]`.
    auto post = [&](int index, const BlockTile<BM, BN>& tile, int column, unsigned consumers, const int (&kept)[Ring::kConsumers],
                    bool last) {
      ring.awaitStage(entry);
      if (lane == 0) notes[entry % kStages] = WgmmaStageNote{index, static_cast<std::uint8_t>(consumers), last};
      if (ring.copies(lane)) {
        if (column >= 0) {
          ring.fillPacked(entry, column, consumers, kept, lane, tile, A.values);
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
      // Each consumer's block row: the next of its kept blocks, and where they end. Every lane
      // reads the same index words, so the warp walks them as one.
      int next[Ring::kConsumers], end[Ring::kConsumers];
#pragma unroll
      for (int c = 0; c < Ring::kConsumers; ++c) {
        const int blockRow = tile.rowBase / kBlock + c;
        next[c] = blockRow < A.blockRows ? __ldg(rowPointers + blockRow) : 0;
        end[c] = blockRow < A.blockRows ? __ldg(rowPointers + blockRow + 1) : 0;
      }
      // The tile's last kept column is held back until it is known to be the last.
      int heldColumn = -1, heldKept[Ring::kConsumers] = {};
      unsigned heldConsumers = 0;
      for (;;) {
        // The lowest column a consumer's row keeps next, and which consumers keep it.
        int column = blockCols;
#pragma unroll
        for (int c = 0; c < Ring::kConsumers; ++c) {
          if (next[c] < end[c]) column = min(column, __ldg(columns + next[c]));
        }
        if (column == blockCols) break;
        unsigned consumers = 0;
        int kept[Ring::kConsumers] = {};
#pragma unroll
        for (int c = 0; c < Ring::kConsumers; ++c) {
          if (next[c] < end[c] && __ldg(columns + next[c]) == column) {
            consumers |= 1u << c;
            kept[c] = next[c]++;
          }
        }
        if (heldColumn >= 0) post(index, tile, heldColumn, heldConsumers, heldKept, false);
        heldColumn = column;
        heldConsumers = consumers;
#pragma unroll
        for (int c = 0; c < Ring::kConsumers; ++c) heldKept[c] = kept[c];
      }
      post(index, tile, heldColumn, heldConsumers, heldKept, true);
    }
    const int none[Ring::kConsumers] = {};
    post(-1, BlockTile<BM, BN>(N, 0), -1, 0u, none, true);
    leaveBlockTileQueue(tileQueue, lane == 0);  // the one warp that takes tiles counts the block out
    return;
  }

  takeMoreRegisters<kQueueConsumerRegisters<WN>>();
  ring.consumeQueue(notes, C, groupRows, warpgroup - 1, warp, lane);
}

}  // namespace tileskip::cuda
