// S15 compact-wgmma-128: S14's compaction on Hopper's warpgroup MMAs. S14 gathers the live columns
// nearly for free, but multiplies them at K13's mma.sync pace, a third of what the vendor's GEMM
// does on the same packed columns (lab/52-compact-mma). Here K14's roles take over: a producer
// warpgroup gathers, two consumer warpgroups multiply 64 x 256 each with warpgroup MMAs, a full and
// an empty mbarrier per stage between them.
//
// What changes is how a K-tile arrives. The copy engine moves boxes, and a gathered K-tile is 64
// scattered rows of A transposed and of B, so a box a row would be a copy instruction per 128 bytes;
// the producer's 128 threads issue 16-byte asynchronous copies instead (warpgroup.cuh's
// copyGatheredKTile), into the same swizzled layout. A column of A is a row of A transposed (K x M,
// made in the preparation, as S14's, its rows padded to whole 16-byte chunks), so A's stage is
// M-major, laid out as B's is and read by MMAs
// that take A transposed (hopper.cuh's kAByM). A thread's copies land in its own time: it waits for
// the copies of the K-tile kStages - 2 entries back, fences them for the MMAs and only then arrives
// at that stage's full mbarrier, so kStages - 2 K-tiles stay on their way while it issues the next.
//
// A gather of scattered rows moves half as many bytes a second as the copy engine moves boxes
// (lab/53-compact-wgmma: 3.7 against 7.5 TB/s on an H200), so a range of BK consecutive columns that
// the tile needs at least the row's wholeRangeColumns of is copied whole, as K14 copies a K-tile:
// two boxes of A transposed and BN / 64 of B, dead columns and all (A's zeros there multiply), with
// the stage's bytes announced at its full mbarrier by one thread. The other ranges' live columns are
// gathered. Per pass, the whole ranges come first, in K order, then the gathered K-tiles: a fixed
// order, so the result is still deterministic.
//
// The block's rows are one A-pattern tile, 128 of them: the list is the union of two consumers'
// needs, which costs multiplications where their rows fire differently (inspect's live fraction at
// this height says how many) but copies each B row once for both. The producer lists the columns
// (gather.cuh, meeting at an mbarrier of its own: the consumers are already waiting on the ring),
// kBlockList K-blocks a pass, padded to whole K-tiles. Every entry carries a note saying whether it
// ends the tile: the last is an entry with nothing copied, after which the consumers store (zeros,
// where no column was live).
#pragma once

#include <cstdint>

#include "parts/gather.cuh"
#include "parts/warpgroup.cuh"

namespace tileskip::cuda {

// What S15 keeps beside its ring: the producer's own barrier, its list, which ranges of the pass
// it copies whole, and the per-stage notes.
template <int kListKBlocks, int kStages, int BK>
struct WgmmaGatherSide {
  std::uint64_t producerMeeting;
  int warpTotals[kWarpgroupThreads / kWarpLanes];
  int columns[kListKBlocks * kKBlock];
  bool whole[kListKBlocks * kKBlock / BK];
  bool last[kStages];  // the entry in the stage ends the tile
};

template <int BM, int BN, int BK, int kStages, int kListKBlocks>
__host__ __device__ constexpr std::size_t wgmmaGatherSharedBytes() {
  return WgmmaLayout<DType::Bf16, BM, BN, BK, kStages>::kSharedBytes + sizeof(WgmmaGatherSide<kListKBlocks, kStages, BK>);
}

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads, 1)
    s15_compact_wgmma_128(const __grid_constant__ BulkTensorMap atMap, const __grid_constant__ BulkTensorMap bMap, bool bulk,
                          const std::uint16_t* __restrict__ At, const std::uint16_t* __restrict__ B, float* __restrict__ C,
                          int M, int N, int K, const std::uint8_t* __restrict__ aPattern,
                          const std::uint8_t* __restrict__ /*bPattern: B is not inspected*/, unsigned* /*tileQueue: a tile per block*/) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, WM = Row.tile.WM, WN = Row.tile.WN;
  constexpr int kStages = Row.structure.ringStages, kThreads = Row.tile.threads, kList = Row.structure.kBlockList;
  // Entries whose copies may still be in flight: the consumers release entry e - kStages while they
  // multiply e - kStages + 1, which must have been completed before entry e waits for that stage.
  constexpr int kInFlight = kStages - 2;
  using Ring = WgmmaRing<D, BM, BN, BK, WM, WN, kStages, kThreads, kWarpgroupThreads, true>;
  using Side = WgmmaGatherSide<kList, kStages, BK>;
  constexpr int kRangeBlocks = BK / kKBlock, kRangeWords = kRangeBlocks / 4, kWhole = Row.structure.wholeRangeColumns;
  static_assert(kList % kRangeBlocks == 0 && kRangeBlocks % 4 == 0, "a pass is whole ranges, a range whole pattern words");
  static_assert(Row.aGranularity == BM, "the block's rows are one A-pattern tile: its bytes are the block's live columns");
  static_assert(kList % 4 == 0, "each pass starts on a pattern word (gatherLiveColumns)");
  static_assert(kInFlight >= 1, "a K-tile on its way while the next is issued");

  const BlockTile<BM, BN> block = groupedBlockTile<BM, BN, kWgmmaGroupRows>(M, N);
  // The ring's own copies are the producer's (its full mbarriers count every producer thread); the
  // whole ranges' boxes add their bytes to the same phases.
  const Ring ring(dynamicSharedMemory(wgmmaGatherSharedBytes<BM, BN, BK, kStages, kList>()), nullptr, nullptr, false, At, B, M, N,
                  K, block);
  Side& side = *reinterpret_cast<Side*>(ring.end());
  const int tid = static_cast<int>(threadIdx.x), warpgroup = tid / kWarpgroupThreads;
  const int warp = (tid % kWarpgroupThreads) / kWarpLanes, lane = tid % kWarpLanes;
  if (tid == 0) {
    ring.initBarriers();
    barrierInit(&side.producerMeeting, kWarpgroupThreads);
    barrierInitFence();
  }
  __syncthreads();  // the last block-wide barrier: from here the roles meet only at mbarriers

  if (warpgroup == 0) {
    keepFewerRegisters<kQueueProducerRegisters<WN>>();
    int meetings = 0;
    auto meet = [&] {
      barrierArrive(&side.producerMeeting);
      barrierWait(&side.producerMeeting, meetings++ & 1);
    };
    // An entry's copies have landed: fenced for the MMAs, announced by this thread's arrival.
    auto complete = [&](int entry) {
      fenceSharedForAsync();
      barrierArrive(&ring.full[entry % kStages]);
    };
    // 16-byte copies where every chunk starts aligned (A transposed's padded rows always do) and a
    // row's offset fits 32 bits.
    const bool chunks = N % 8 == 0 && static_cast<std::size_t>(K) * max(transposedRowLength(M), N) <= 0xFFFFFFFFu;
    const int kBlocks = (K + kKBlock - 1) / kKBlock, aTiles = (M + BM - 1) / BM;
    const int rowTile = block.rowBase / BM;
    int entry = 0;
    // Entry `entry`: the range of columns from `wholeFrom` copied whole, or (wholeFrom < 0) step
    // `step` of the gathered list.
    auto post = [&](int wholeFrom, const PaddedGatheredColumns<BK>& gathered, int step) {
      const int s = entry % kStages;
      unsigned char* stage = ring.stages + s * Ring::Layout::kStageBytes;
      ring.awaitStage(entry);
      if (tid == 0) side.last[s] = false;
      if (wholeFrom >= 0) {
        if (tid == 0) {
          barrierExpectBytes(&ring.full[s], Ring::Layout::kStageBytes);
#pragma unroll
          for (int box = 0; box < BM / kRowValues<D>; ++box) {
            copyBox(stage + box * Ring::Layout::kBBoxBytes, &atMap, block.rowBase + box * kRowValues<D>, wholeFrom, &ring.full[s]);
          }
#pragma unroll
          for (int box = 0; box < BN / kRowValues<D>; ++box) {
            copyBox(stage + Ring::Layout::kABytes + box * Ring::Layout::kBBoxBytes, &bMap, block.colBase + box * kRowValues<D>,
                    wholeFrom, &ring.full[s]);
          }
        }
      } else {
        copyGatheredKTile<D, BM, BN, BK, kStages, kWarpgroupThreads>(At, B, M, N, block.rowBase, block.colBase, gathered, step, chunks,
                                                                     stage, tid);
      }
      commitCopies();
      waitCopies<kInFlight>();
      if (entry >= kInFlight) complete(entry - kInFlight);
      ++entry;
    };
    for (int first = 0; first < kBlocks; first += kList) {
      const int passBlocks = min(kList, kBlocks - first), ranges = (passBlocks + kRangeBlocks - 1) / kRangeBlocks;
      // Which ranges are copied whole: a thread a range, counting the tile's live columns in it.
      for (int r = tid; r < ranges; r += kWarpgroupThreads) {
        int live = 0;
#pragma unroll
        for (int w = 0; w < kRangeWords; ++w) {
          live += __popc(patternWord<WordRead::EachChecks>(aPattern, rowTile, aTiles, (first + r * kRangeBlocks) / 4 + w, kBlocks));
        }
        side.whole[r] = bulk && kWhole > 0 && live >= kWhole;
      }
      meet();
      const int count = gatherLiveColumns<kWarpgroupThreads>(
          aPattern, rowTile, aTiles, K, first, passBlocks, side.columns, side.warpTotals, meet,
          [&](int word) { return side.whole[(word - first / 4) / kRangeWords] ? 0u : ~0u; });
      padToKTiles<BK, kWarpgroupThreads>(side.columns, count);
      meet();
      const PaddedGatheredColumns<BK> gathered{side.columns, count};
      for (int r = 0; r < ranges; ++r) {
        if (side.whole[r]) post((first + r * kRangeBlocks) * kKBlock, gathered, 0);
      }
      for (int step = 0; step < gathered.steps(); ++step) post(-1, gathered, step);
      meet();  // every thread has issued the pass's copies (read its list) before the next rewrites it
    }
    waitCopies<0>();
    for (int e = max(entry - kInFlight, 0); e < entry; ++e) complete(e);
    ring.awaitStage(entry);
    if (tid == 0) side.last[entry % kStages] = true;
    complete(entry);
    return;
  }

  takeMoreRegisters<kQueueConsumerRegisters<WN>>();
  const int consumer = warpgroup - 1;
  float acc[Ring::kAccumulators];
#pragma unroll
  for (int i = 0; i < Ring::kAccumulators; ++i) acc[i] = 0.0f;
  bool fresh = true;  // nothing multiplied yet: the first MMA overwrites, and a tile with no live column stores zeros
  for (int entry = 0;; ++entry) {
    ring.awaitFull(entry);
    // Lane 0 alone reads the note, as S12's consumers do: the lane that releases the stage is then
    // the only one that read it.
    const bool last = __shfl_sync(0xFFFFFFFFu, lane == 0 && side.last[entry % kStages] ? 1 : 0, 0) != 0;
    if (last) break;
    ring.multiplyAndRelease(entry, true, acc, consumer, lane, fresh);
    fresh = false;
  }
  wgmmaWait<0>();
  ring.store(acc, C, consumer, warp, lane, block, fresh);
}

}  // namespace tileskip::cuda
