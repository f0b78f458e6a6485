// The compaction kernels' list of live columns, the twin of gather.cuh: the K columns some row of a
// workgroup's tile needs, read from the A-pattern at the tile's height (a pattern word holds one bit
// per K column, so the tile's words are its live columns), written in K order so that the sum over
// them runs in a fixed order and the result is deterministic. The ring (ring.glsl, built with
// TILESKIP_GATHER_RING) copies them BK to a K-tile through the kernel's scheduledColumn.
#ifndef TILESKIP_PART_GATHER
#define TILESKIP_PART_GATHER
#include "common.glsl"

// The K-blocks one pass lists the columns of (the catalogue's kBlockList, or fewer where the
// device's shared memory is smaller: backends/vulkan/limits.hpp). Longer K is walked in passes.
layout(constant_id = TILESKIP_SPEC_K_BLOCK_LIST_LENGTH) const uint K_BLOCK_LIST_LENGTH = 512u;
shared int liveColumns[K_BLOCK_LIST_LENGTH * K_BLOCK];
shared uint subgroupLive[THREADS];  // one total per subgroup: at most one per invocation
uint liveColumnCount;

// Writes, in order, the live columns of A-pattern tile `aTile` in K-blocks [first, first + count)
// into liveColumns and returns how many there are (the same in every invocation). `first` is a
// multiple of 4: each invocation takes one pattern word (four K-blocks, 32 columns) a round, so
// invocation i's columns precede invocation i + 1's. Ballots of the bits of the invocations'
// counts order the columns inside a subgroup (a count is at most 32: six bits), per-subgroup totals
// in shared memory order the subgroups; nothing assumes a subgroup size.
uint gatherLiveColumns(uint aTile, uint first, uint count) {
  const uint WORD_COLUMNS = 4u * K_BLOCK, COUNT_BITS = 6u;
  uint aTiles = (problem.M + A_TILE_ROWS - 1u) / A_TILE_ROWS, words = patternWordsPerTile();
  uint total = 0u;
  for (uint base = 0u; base < count; base += 4u * THREADS) {
    uint offset = base + 4u * gl_LocalInvocationIndex, word = (first + offset) / 4u;
    uint live = offset < count && aTile < aTiles ? aPattern[aTile * words + word] : 0u;
    // Columns past K (a last K-block may be partial), and K-blocks past the pass.
    uint inK = problem.K - word * WORD_COLUMNS;
    if (offset < count && inK < WORD_COLUMNS) live &= (1u << inK) - 1u;
    if (offset < count && count - offset < 4u) live &= (1u << (K_BLOCK * (count - offset))) - 1u;
    uint mine = bitCount(live), before = 0u, subgroupTotal = 0u;
    [[unroll]] for (uint b = 0u; b < COUNT_BITS; ++b) {
      uvec4 votes = subgroupBallot(((mine >> b) & 1u) != 0u);
      before += subgroupBallotExclusiveBitCount(votes) << b;
      subgroupTotal += subgroupBallotBitCount(votes) << b;
    }
    if (subgroupElect()) subgroupLive[gl_SubgroupID] = subgroupTotal;
    barrier();
    uint roundTotal = 0u;
    for (uint s = 0u; s < gl_NumSubgroups; ++s) {
      before += s < gl_SubgroupID ? subgroupLive[s] : 0u;
      roundTotal += subgroupLive[s];
    }
    for (uint at = total + before; live != 0u; live &= live - 1u) liveColumns[at++] = int(word * WORD_COLUMNS + uint(findLSB(live)));
    total += roundTotal;
    barrier();  // subgroupLive is rewritten by the next round; the list is complete
  }
  return total;
}

// The column at `index` of the list; -1 past its end (zeros).
int scheduledColumn(uint index) { return index < liveColumnCount ? liveColumns[index] : -1; }

// -1 written past the list's end to a whole K-tile of `depth` columns, by the invocations that
// gathered it, so that a copying invocation reads a column without a bound check (the CUDA twin's
// padToKTiles); the list has room for it (a whole number of K-blocks). The caller meets at a
// barrier before reading.
void padToKTiles(uint depth) {
  uint end = (liveColumnCount + depth - 1u) / depth * depth;
  for (uint i = liveColumnCount + gl_LocalInvocationIndex; i < end; i += THREADS) liveColumns[i] = -1;
}

#endif  // TILESKIP_PART_GATHER
