// The compaction kernels' list of live columns (the twin of gather.glsl): the K columns some row of
// a block's tile needs, read from the A-pattern at the block's height (a pattern byte holds one bit
// per K column, so the tile's bytes are its live columns), written in K order so that the sum over
// them runs in a fixed order and the result is deterministic. The ring (ring.cuh) copies them BK to
// a K-tile through the schedule GatheredColumns.
#pragma once

#include "common.cuh"
#include "ring.cuh"

namespace tileskip::cuda {

// Writes, in order, the live columns of A-pattern tile `aTile` in K-blocks [first, first + count)
// into `list` and returns how many there are; every thread returns the same count. `first` is a
// multiple of 4: each thread takes one pattern word (four K-blocks, 32 columns) a round, so
// thread t's columns precede thread t + 1's. Ballots of the bits of the lanes' counts order the
// columns inside a warp (a count is at most 32: six bits), per-warp totals in shared memory
// (kThreads / 32 of them) order the warps. The threads are the block's first kThreads, and
// `meet()` is their barrier: the whole block's where they are the block, a warpgroup's own where
// the roles have split (S15's producer). `keep(word)` masks a pattern word's columns (S15 leaves
// out the ranges it copies whole).
template <int kThreads, class Meet, class Keep>
__device__ int gatherLiveColumns(const std::uint8_t* __restrict__ aPattern, int aTile, int aTiles, int K, int first, int count,
                                 int* list, int* warpTotals, Meet&& meet, Keep&& keep) {
  constexpr int kWarps = kThreads / 32, kWordColumns = 4 * kKBlock, kCountBits = 6;
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;
  const unsigned lanesBefore = (1u << lane) - 1u;
  const int kBlocks = (K + kKBlock - 1) / kKBlock;
  int total = 0;
  for (int base = 0; base < count; base += 4 * kThreads) {
    const int offset = base + 4 * tid, word = (first + offset) / 4;
    unsigned live = offset < count ? patternWord<WordRead::EachChecks>(aPattern, aTile, aTiles, word, kBlocks) & keep(word) : 0u;
    const int inK = K - word * kWordColumns;  // columns of this word inside K; a last K-block may be partial
    if (inK < kWordColumns) live &= inK > 0 ? (1u << inK) - 1u : 0u;
    if (offset < count && count - offset < 4) live &= (1u << (kKBlock * (count - offset))) - 1u;  // the pass ends inside
    const int mine = __popc(live);
    int before = 0, warpTotal = 0;
#pragma unroll
    for (int b = 0; b < kCountBits; ++b) {
      const unsigned votes = __ballot_sync(0xFFFFFFFFu, ((mine >> b) & 1) != 0);
      before += __popc(votes & lanesBefore) << b;
      warpTotal += __popc(votes) << b;
    }
    if (lane == 0) warpTotals[warp] = warpTotal;
    meet();
    int roundTotal = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      before += w < warp ? warpTotals[w] : 0;
      roundTotal += warpTotals[w];
    }
    for (int at = total + before; live != 0u; live &= live - 1u) list[at++] = word * kWordColumns + __ffs(live) - 1;
    total += roundTotal;
    meet();  // warpTotals is rewritten by the next round; the list is complete
  }
  return total;
}

template <int kThreads, class Meet>
__device__ int gatherLiveColumns(const std::uint8_t* __restrict__ aPattern, int aTile, int aTiles, int K, int first, int count,
                                 int* list, int* warpTotals, Meet&& meet) {
  return gatherLiveColumns<kThreads>(aPattern, aTile, aTiles, K, first, count, list, warpTotals, meet, [](int) { return ~0u; });
}

// The columns of a gathered list, BK per K-tile in list order; -1 past its end (zeros).
template <int BK>
struct GatheredColumns {
  const int* list;
  int count;
  __device__ int steps() const { return (count + BK - 1) / BK; }
  __device__ int columnOf(int step, int depth) const {
    const int index = step * BK + depth;
    return index < count ? list[index] : -1;
  }
};

// The same list with -1 written past its end to a whole K-tile (padToKTiles, by the threads that
// gathered it), so that a copying thread reads a column without a bound check.
template <int BK>
struct PaddedGatheredColumns {
  const int* list;
  int count;
  __device__ int steps() const { return (count + BK - 1) / BK; }
  __device__ int columnOf(int step, int depth) const { return list[step * BK + depth]; }
};

template <int BK, int kThreads>
__device__ void padToKTiles(int* list, int count) {
  for (int i = count + static_cast<int>(threadIdx.x); i < (count + BK - 1) / BK * BK; i += kThreads) list[i] = -1;
}

}  // namespace tileskip::cuda
