// The block level of the warp-uniform skipping kernels, shared by the SIMT ones
// (warp_skip.glsl) and the tensor-core one (s10_mma_joint_64x32.comp): the twin of
// tile_queue.cuh's block tile queue and block_skip.cuh's gatherKBlocks, BlockPatternTiles and K-block schedules. The kernels are persistent: a dispatch has only as many
// workgroups as run at once, and each takes block tiles from a queue until none is left. For
// each, the workgroup decides which K-blocks to load and compute at all, from the union of its
// pattern tiles' bytes, and compacts them into a list before the main loop. Every invocation
// reads the same pattern words, so the list (and every barrier the loop passes) is the same for
// the whole workgroup (a skip that jumps a barrier must be uniform across the workgroup, not only the subgroup). A K-block nobody needs costs neither
// loads nor barriers: skipping loads, not only the multiplies.
#ifndef TILESKIP_PART_BLOCK_SKIP
#define TILESKIP_PART_BLOCK_SKIP
#include "common.glsl"

// ---- The block tile queue (tile_queue.cuh's takeBlockTile and leaveBlockTileQueue): the
// next tile to take and the workgroups that have finished. The last workgroup out resets both,
// so the next dispatch starts from zero without a fill of its own. The backend zeroes it once,
// when it creates the problem.
// Unlike the CUDA twin, a dispatch may hand out only a range of the block tiles
// (problem.tileRange): lavapipe ends a shader invocation's loops after a fixed count of
// iterations, all loops together, and one workgroup may take every tile of a dispatch, so there
// the backend splits the tiles over dispatches (backends/vulkan/limits.hpp's
// blockTilesPerDispatch). The queue counts from the range's first tile.
layout(set = 0, binding = 5, std430) coherent buffer BlockTileQueue {
  uint nextTile;
  uint finishedWorkgroups;
} tileQueue;

// Each of this file's shared scalars takes 16 bytes (a uvec4 of which .x is used): NVIDIA's driver
// lays shared variables out in an order of its own, and with a 4-byte one before them the stages
// S10 loads cooperative matrices from were misaligned (every case of its verify suite was wrong;
// lab/20-s10-skip-tensor). Sizes that are multiples of 16 keep every variable 16-byte aligned.
shared uvec4 takenTile;

// The end of this dispatch's block tiles, of `tiles` in all.
uint dispatchTilesEnd(uint tiles) { return min(tiles, problem.tileRange.x + problem.tileRange.y); }

uint takeBlockTile() {
  if (gl_LocalInvocationIndex == 0u) takenTile.x = problem.tileRange.x + atomicAdd(tileQueue.nextTile, 1u);
  barrier();
  uint tile = takenTile.x;
  barrier();  // every invocation has read it before invocation 0 writes the next one
  return tile;
}

// takeBlockTile split in two for a workgroup that has work left when it asks (askBlockTile and
// passBlockTile in the CUDA twin): invocation 0 asks for the next tile before the C store, so that
// the atomic's round trip overlaps the store, and passBlockTile hands the answer to every
// invocation after it. One barrier, where takeBlockTile needs two: the next tile's gather passes
// barriers before invocation 0 writes again.
uint askBlockTile() { return gl_LocalInvocationIndex == 0u ? problem.tileRange.x + atomicAdd(tileQueue.nextTile, 1u) : 0u; }

uint passBlockTile(uint asked) {
  if (gl_LocalInvocationIndex == 0u) takenTile.x = asked;
  barrier();
  return takenTile.x;
}

void leaveBlockTileQueue() {
  if (gl_LocalInvocationIndex != 0u) return;
  // This workgroup's takes are ordered before its leave; the last one's reset after every leave.
  memoryBarrierBuffer();
  if (atomicAdd(tileQueue.finishedWorkgroups, 1u) == gl_NumWorkGroups.x * gl_NumWorkGroups.y - 1u) {
    memoryBarrierBuffer();
    atomicExchange(tileQueue.nextTile, 0u);  // no workgroup of this dispatch touches the queue any more
    atomicExchange(tileQueue.finishedWorkgroups, 0u);
  }
}

// ---- Pattern tiles.
// Row (column) tiles per block tile: pattern tiles and block tiles nest (the backend checks it).
const uint BLOCK_A_TILES = BM >= A_TILE_ROWS ? BM / A_TILE_ROWS : 1u;
const uint BLOCK_B_TILES = BN >= B_TILE_COLS ? BN / B_TILE_COLS : 1u;

uint patternWords;               // words per pattern tile
uint aTiles, bTiles;             // pattern tiles along M and N
uint blockRowTile, blockColTile; // the block tile's first pattern tiles

// The pattern word `word` of A-tile `tile`, 0 past M (a K-block past K is 0 in the word).
// Without a branch: past M it reads the pattern's first word and drops it, so that a caller's
// several reads issue back to back (the CUDA twin's patternByte).
uint aPatternWord(uint tile, uint word) {
  uint bits = aPattern[tile < aTiles ? tile * patternWords + word : 0u];
  return tile < aTiles ? bits : 0u;
}
uint bPatternWord(uint tile, uint word) {
  uint bits = bPattern[tile < bTiles ? tile * patternWords + word : 0u];
  return tile < bTiles ? bits : 0u;
}

// What the block keeps of the K-blocks of pattern word `word` (4 of them, a byte each), each
// word read once (BlockPatternTiles::keptOf in the CUDA twin): the returned bits some warp
// needs, the OR over the block's A tiles AND the OR over its B tiles; `every`, the bits every
// pattern tile of the block keeps (a byte of ones: a whole K-block). An operand the kernel does
// not inspect counts as all ones.
uint blockKept(uint word, out uint every) {
  uint aSome = ~0u, aEvery = ~0u, bSome = ~0u, bEvery = ~0u;
  if (USES_A_PATTERN) {
    aSome = 0u;
    [[unroll]] for (uint t = 0u; t < BLOCK_A_TILES; ++t) {
      uint bits = aPatternWord(blockRowTile + t, word);
      aSome |= bits;
      aEvery &= bits;
    }
  }
  if (USES_B_PATTERN) {
    bSome = 0u;
    [[unroll]] for (uint t = 0u; t < BLOCK_B_TILES; ++t) {
      uint bits = bPatternWord(blockColTile + t, word);
      bSome |= bits;
      bEvery &= bits;
    }
  }
  every = aEvery & bEvery;
  return aSome & bSome;
}

// ---- Nothing to skip: S10 runs a block tile whose every pattern tile keeps every depth of
// every K-block through K13's ring over all K-blocks, without the warps' pattern reads: skipping
// must cost nothing when it finds nothing (block_skip.cuh's keepsEverything in the CUDA twin).
// The SIMT kernels need no such scan: their gather marks every K-block of such a tile whole
// (warp_skip.glsl).
bool denseBlock;     // the same in every invocation of the workgroup
uint kBlocksTotal;   // K-blocks of the problem
shared uvec4 denseVetoes;  // .x, 16 bytes as takenTile

// Whether every K index of the block's pattern words is kept (bits past K do not exist).
bool blockKeepsEverything() {
  bool every = true;
  for (uint word = gl_LocalInvocationIndex; word < patternWords; word += THREADS) {
    uint realBits = problem.K - 32u * word;
    uint real = realBits >= 32u ? ~0u : (1u << realBits) - 1u;
    uint everyBits;
    blockKept(word, everyBits);
    every = (everyBits & real) == real;
    if (!every) break;  // a tile with something to skip says so at its first such word
  }
  if (gl_LocalInvocationIndex == 0u) denseVetoes.x = 0u;
  barrier();
  if (!every) atomicAdd(denseVetoes.x, 1u);
  barrier();
  bool result = denseVetoes.x == 0u;
  barrier();  // every invocation has read it before the next block tile resets it
  return result;
}

// ---- Gathering the K-blocks a block tile needs.
// K-blocks compacted per pass (a specialization constant, so the backend can shorten it where
// shared memory is scarce; a multiple of 4). Longer K is walked in passes, the accumulators
// carrying over.
layout(constant_id = TILESKIP_SPEC_K_BLOCK_LIST_LENGTH) const uint K_BLOCK_LIST_LENGTH = 1024u;
shared int kBlockList[K_BLOCK_LIST_LENGTH];
shared uint subgroupTotals[THREADS];  // one per subgroup: at most one per invocation
uint kBlockListCount;

// A listed K-block marked whole: every pattern tile of the block keeps its every depth, so no
// warp needs its pattern bytes (the CUDA twin's MarkedKBlock; gatherKBlocks writes these entries
// when markWhole, and the SIMT skipping kernels' list loop reads them, warp_skip.glsl).
int markedKBlock(uint kBlock, bool whole) { return int(kBlock * 2u + (whole ? 1u : 0u)); }
uint markedKBlockIndex(int entry) { return uint(entry) >> 1; }
bool markedKBlockIsWhole(int entry) { return (entry & 1) != 0; }

// A subgroup's total in subgroupTotals carries in this bit that one of the K-blocks its
// invocations listed so far was not whole, so that the barrier each gather pass passes anyway
// also tells every invocation whether all of them were (the CUDA twin's __syncthreads_and).
const uint SUBGROUP_NOT_WHOLE = 0x80000000u;

// Writes, in order, the K-blocks of [first, first + count) that blockKept keeps into kBlockList
// and returns how many there are (the same in every invocation); markWhole: as markedKBlock
// entries, and everyWhole says whether all of them are whole (the same in every invocation; each
// pattern word is read once for both).
// `first` is a multiple of 4: each invocation reads one pattern word, four K-blocks. Ballots
// order the K-blocks inside a subgroup, per-subgroup totals in shared memory order the
// subgroups; nothing assumes a subgroup size. Invocation i's K-blocks precede invocation
// i + 1's, so the list is in K order where subgroups hold consecutive invocations (every driver
// we know); it holds each kept K-block exactly once whatever the driver does.
uint gatherKBlocks(uint first, uint count, bool markWhole, out bool everyWhole) {
  uint total = 0u;
  bool allWhole = true;  // of the K-blocks this invocation listed
  everyWhole = true;
  for (uint base = 0u; base < count; base += 4u * THREADS) {
    uint offset = base + 4u * gl_LocalInvocationIndex;
    uint word = (first + offset) / 4u;
    uint every = 0u, bits = 0u;
    if (offset < count) bits = blockKept(word, every);
    every = markWhole ? every : 0u;
    uint before = 0u, subgroupTotal = 0u, kept = 0u, whole = 0u;
    [[unroll]] for (uint b = 0u; b < 4u; ++b) {
      bool keep = offset + b < count && ((bits >> (8u * b)) & 0xFFu) != 0u;
      uvec4 votes = subgroupBallot(keep);
      before += subgroupBallotExclusiveBitCount(votes);
      subgroupTotal += subgroupBallotBitCount(votes);
      kept |= keep ? 1u << b : 0u;
      bool everyDepth = ((every >> (8u * b)) & 0xFFu) == 0xFFu;
      whole |= everyDepth ? 1u << b : 0u;
      allWhole = allWhole && (!keep || everyDepth);
    }
    bool subgroupWhole = subgroupAll(allWhole);
    if (subgroupElect()) subgroupTotals[gl_SubgroupID] = subgroupTotal | (subgroupWhole ? 0u : SUBGROUP_NOT_WHOLE);
    barrier();
    uint passTotal = 0u;
    for (uint s = 0u; s < gl_NumSubgroups; ++s) {
      uint t = subgroupTotals[s];
      everyWhole = everyWhole && (t & SUBGROUP_NOT_WHOLE) == 0u;
      t &= ~SUBGROUP_NOT_WHOLE;
      passTotal += t;
      before += s < gl_SubgroupID ? t : 0u;
    }
    uint at = total + before;
    [[unroll]] for (uint b = 0u; b < 4u; ++b) {
      uint kBlock = first + offset + b;
      if (((kept >> b) & 1u) != 0u) kBlockList[at++] = markWhole ? markedKBlock(kBlock, ((whole >> b) & 1u) != 0u) : int(kBlock);
    }
    total += passTotal;
    barrier();  // subgroupTotals is rewritten by the next pass; the list is complete
  }
  return total;
}

// The K-block at `index` of S10's ring: every K-block of a dense tile, else the list's.
int scheduledKBlock(uint index) {
  if (denseBlock) return index < kBlocksTotal ? int(index) : -1;
  return index < kBlockListCount ? kBlockList[index] : -1;
}

// ---- Per dispatch and per block tile (BlockPatternTiles' constructor in the CUDA twin).
// The problem's K-blocks and pattern tiles.
void startPatternTiles() {
  kBlocksTotal = (problem.K + K_BLOCK - 1u) / K_BLOCK;
  patternWords = patternWordsPerTile();
  aTiles = (problem.M + A_TILE_ROWS - 1u) / A_TILE_ROWS;
  bTiles = (problem.N + B_TILE_COLS - 1u) / B_TILE_COLS;
}

// The block tile at (row0, col0): its first pattern tiles.
void placeBlockPatternTiles(uint row0, uint col0) {
  blockRowTile = row0 / A_TILE_ROWS;
  blockColTile = col0 / B_TILE_COLS;
}

#endif  // TILESKIP_PART_BLOCK_SKIP
