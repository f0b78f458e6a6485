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
// made in the preparation, as S14's), so A's stage is M-major, laid out as B's is and read by MMAs
// that take A transposed (hopper.cuh's kAByM). A thread's copies land in its own time: it waits for
// the copies of the K-tile kStages - 2 entries back, fences them for the MMAs and only then arrives
// at that stage's full mbarrier, so kStages - 2 K-tiles stay on their way while it issues the next.
//
// The block's rows are one A-pattern tile, 128 of them: the list is the union of two consumers'
// needs, which costs multiplications where their rows fire differently (inspect's live fraction at
// this height says how many) but copies each B row once for both. The producer lists the columns
// (gather.cuh, meeting at an mbarrier of its own: the consumers are already waiting on the ring),
// kBlockList K-blocks a pass, padded to whole K-tiles; the sum runs in K order, so the result is deterministic. Every entry
// carries a note saying whether it ends the tile: the last is an entry with nothing copied, after
// which the consumers store (zeros, where no column was live).
#pragma once

#include <cstdint>

#include "parts/gather.cuh"
#include "parts/warpgroup.cuh"

namespace tileskip::cuda {

// What S15 keeps beside its ring: the producer's own barrier, its list and the per-stage notes.
template <int kListKBlocks, int kStages>
struct WgmmaGatherSide {
  std::uint64_t producerMeeting;
  int warpTotals[kWarpgroupThreads / kWarpLanes];
  int columns[kListKBlocks * kKBlock];
  bool last[kStages];  // the entry in the stage ends the tile
};

template <int BM, int BN, int BK, int kStages, int kListKBlocks>
__host__ __device__ constexpr std::size_t wgmmaGatherSharedBytes() {
  return WgmmaLayout<DType::Bf16, BM, BN, BK, kStages>::kSharedBytes + sizeof(WgmmaGatherSide<kListKBlocks, kStages>);
}

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads, 1)
    s15_compact_wgmma_128(const std::uint16_t* __restrict__ At, const std::uint16_t* __restrict__ B, float* __restrict__ C,
                          int M, int N, int K, const std::uint8_t* __restrict__ aPattern,
                          const std::uint8_t* __restrict__ /*bPattern: B is not inspected*/, unsigned* /*tileQueue: a tile per block*/) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, WM = Row.tile.WM, WN = Row.tile.WN;
  constexpr int kStages = Row.structure.ringStages, kThreads = Row.tile.threads, kList = Row.structure.kBlockList;
  // Entries whose copies may still be in flight: the consumers release entry e - kStages while they
  // multiply e - kStages + 1, which must have been completed before entry e waits for that stage.
  constexpr int kInFlight = kStages - 2;
  using Ring = WgmmaRing<D, BM, BN, BK, WM, WN, kStages, kThreads, kWarpgroupThreads, true>;
  using Side = WgmmaGatherSide<kList, kStages>;
  static_assert(Row.aGranularity == BM, "the block's rows are one A-pattern tile: its bytes are the block's live columns");
  static_assert(kList % 4 == 0, "each pass starts on a pattern word (gatherLiveColumns)");
  static_assert(kInFlight >= 1, "a K-tile on its way while the next is issued");

  const BlockTile<BM, BN> block = groupedBlockTile<BM, BN, kWgmmaGroupRows>(M, N);
  const Ring ring(dynamicSharedMemory(wgmmaGatherSharedBytes<BM, BN, BK, kStages, kList>()), nullptr, nullptr, false, At, B, M, N,
                  K, block);
  Side& side = *reinterpret_cast<Side*>(ring.end());
  const int tid = static_cast<int>(threadIdx.x), warpgroup = tid / kWarpgroupThreads;
  const int warp = (tid % kWarpgroupThreads) / kWarpLanes, lane = tid % kWarpLanes;
  if (tid == 0) {
    ring.initBarriers();  // element copies' count: every producer thread arrives at a full mbarrier
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
    // 16-byte copies where every chunk starts aligned and a row's offset fits 32 bits.
    const bool chunks = M % 8 == 0 && N % 8 == 0 && static_cast<std::size_t>(K) * max(M, N) <= 0xFFFFFFFFu;
    const int kBlocks = (K + kKBlock - 1) / kKBlock, aTiles = (M + BM - 1) / BM;
    int entry = 0;
    for (int first = 0; first < kBlocks; first += kList) {
      const int count = gatherLiveColumns<kWarpgroupThreads>(aPattern, block.rowBase / BM, aTiles, K, first,
                                                             min(kList, kBlocks - first), side.columns, side.warpTotals, meet);
      padToKTiles<BK, kWarpgroupThreads>(side.columns, count);
      meet();
      const PaddedGatheredColumns<BK> gathered{side.columns, count};
      for (int step = 0; step < gathered.steps(); ++step, ++entry) {
        ring.awaitStage(entry);
        if (tid == 0) side.last[entry % kStages] = false;
        copyGatheredKTile<D, BM, BN, BK, kStages, kWarpgroupThreads>(At, B, M, N, block.rowBase, block.colBase, gathered, step,
                                                                     chunks, ring.stages + (entry % kStages) * Ring::Layout::kStageBytes,
                                                                     tid);
        commitCopies();
        waitCopies<kInFlight>();
        if (entry >= kInFlight) complete(entry - kInFlight);
      }
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
