// The warp level of the warp-uniform SIMT skipping kernels (warp_uniform_skip.comp), the twin of
// warp_skip.cuh: K12's hoisted main loop run over only the K-blocks a workgroup needs
// (block_skip.glsl gathers them, hoisted.glsl stages them), and the skip policy of warp
// sub-tiles that lie inside one pattern tile each.
//
// Two decisions, two scopes:
//  - the workgroup decides which K-blocks to load and compute at all, and compacts them into a
//    list before the main loop (block_skip.glsl).
//  - each warp decides which of a listed K-block's 8 rank-1 updates to do, per sub-tile, from
//    the byte of the pattern tile that sub-tile lies in. No barrier sits inside that decision;
//    it goes through a subgroup vote so that a subgroup always takes one branch (below).
// The union of the warps' joint bytes (a_i & b_j over the block's tiles) is exactly
// (union of a_i) & (union of b_j), so the workgroup skips precisely the K-blocks no warp needs.
#ifndef TILESKIP_PART_WARP_SKIP
#define TILESKIP_PART_WARP_SKIP
#include "hoisted.glsl"
#include "block_skip.glsl"

uint warpFirstRow, warpFirstCol; // the warp tile's first row and column in C

// ---- The sub-tile skip (SubTileSkip in the CUDA twin). A sub-tile (WSUBM x WSUBN) lies inside
// one A-pattern tile and one B-pattern tile (the backend checks A_GRANULARITY % WSUBM == 0 and
// B_GRANULARITY % WSUBN == 0): A_GRANULARITY = WSUBM is S7's 8-row walk; A_GRANULARITY >= WM makes the byte the same
// for the whole warp.
//
// Uniform enough: the bytes of a sub-tile come from the pattern tiles of its warp's rows and
// columns and from the listed K-block, so every invocation of one warp reads the same bytes.
// A subgroup that lies inside one warp (subgroup sizes 4 to 32 on every driver we know) agrees
// on them by construction; one that spans two warps (64-wide subgroups) might not, and there
// every bit is kept instead: a rank-1 update a lane's own pattern calls unnecessary only adds
// exact zeros, so doing it is safe and skipping it would not be. The vote is taken once per
// dispatch, on the warp each invocation belongs to, not once per K-block.
bool subgroupInOneWarp;

// The pattern bytes of each sub-tile row (A) and column (B) in one K-block, four to a word
// (SubTileSkip::KBlockBits): those of the K-tile the warps update, and those of the one in
// flight, read a step ahead.
const uint A_BYTE_WORDS = (WMITER + 3u) / 4u;
const uint B_BYTE_WORDS = (WNITER + 3u) / 4u;
const uint BYTE_WORDS = A_BYTE_WORDS + B_BYTE_WORDS;
uint kBlockBits[BYTE_WORDS];
uint nextKBlockBits[BYTE_WORDS];

uint byteOf(uint word, uint b) { return (word >> (8u * b)) & 0xFFu; }

// The bits sub-tile row wm keeps in K-block kBlock: its A-pattern byte.
uint subTileRowBits(uint wm, uint kBlock) {
  if (!USES_A_PATTERN) return 0xFFu;
  return byteOf(aPatternWord((warpFirstRow + wm * WSUBM) / A_TILE_ROWS, kBlock / 4u), kBlock & 3u);
}

uint subTileColBits(uint wn, uint kBlock) {
  if (!USES_B_PATTERN) return 0xFFu;
  return byteOf(bPatternWord((warpFirstCol + wn * WSUBN) / B_TILE_COLS, kBlock / 4u), kBlock & 3u);
}

// SubTileSkip::bitsOf, into nextKBlockBits: this warp's bytes of the listed K-block `entry`,
// none for a K-block marked whole (nor with `onlyWhole`), which needs none.
void readNextKBlockBits(int entry, bool onlyWhole) {
  [[unroll]] for (uint w = 0u; w < BYTE_WORDS; ++w) nextKBlockBits[w] = 0u;
  if (onlyWhole || markedKBlockIsWhole(entry)) return;
  uint kBlock = markedKBlockIndex(entry);
  [[unroll]] for (uint wm = 0u; wm < WMITER; ++wm) {
    uint bits = subgroupInOneWarp ? subTileRowBits(wm, kBlock) : 0xFFu;
    nextKBlockBits[wm / 4u] |= bits << (8u * (wm % 4u));
  }
  [[unroll]] for (uint wn = 0u; wn < WNITER; ++wn) {
    uint bits = subgroupInOneWarp ? subTileColBits(wn, kBlock) : 0xFFu;
    nextKBlockBits[A_BYTE_WORDS + wn / 4u] |= bits << (8u * (wn % 4u));
  }
}

// The bytes of word w of a group of `bytes` bytes that hold nothing: all ones, so that "every
// byte is 0xFF" is a test of whole words.
uint unusedBytes(uint w, uint bytes) {
  uint used = min(bytes - 4u * w, 4u);
  return used == 4u ? 0u : ~0u << (8u * used);
}

// The OR of a word's four bytes.
uint anyByte(uint word) {
  word |= word >> 16;
  return (word | (word >> 8)) & 0xFFu;
}

// This warp's rank-1 updates of the K-block staged at depths kOffset .. kOffset + 7, from its
// bytes in kBlockBits. Every branch here is the same for a whole subgroup (see subgroupInOneWarp).
void updateKBlock(uint kOffset) {
  uint aAny = 0u, bAny = 0u;
  bool everyKept = true;
  [[unroll]] for (uint w = 0u; w < A_BYTE_WORDS; ++w) {
    uint word = kBlockBits[w];
    aAny |= anyByte(word);
    everyKept = everyKept && (word | unusedBytes(w, WMITER)) == ~0u;
  }
  [[unroll]] for (uint w = 0u; w < B_BYTE_WORDS; ++w) {
    uint word = kBlockBits[A_BYTE_WORDS + w];
    bAny |= anyByte(word);
    everyKept = everyKept && (word | unusedBytes(w, WNITER)) == ~0u;
  }
  uint jointPattern = aAny & bAny;  // the depths some sub-tile of this warp keeps
#ifdef TILESKIP_TEST_TOO_EAGER
  // Test build only (embedded as a separate module): also drop K-blocks where the warp keeps a
  // single depth, a skip that is too eager, which the verify suite must catch.
  if (!everyKept && bitCount(jointPattern) == 1) jointPattern = 0u;
#endif
  if (everyKept) {  // every sub-tile keeps every depth: K11's straight-line updates
    rank1Updates(kOffset, K_BLOCK);
  } else if (jointPattern != 0u) {
    // Not unrolled: this path runs only for partly kept K-blocks, and eight copies of it would
    // crowd the straight-line paths out of the instruction cache.
    [[dont_unroll]] for (uint k = 0u; k < K_BLOCK; ++k) {
      if (((jointPattern >> k) & 1u) == 0u) continue;
      [[unroll]] for (uint wn = 0u; wn < WNITER; ++wn) loadRegN(kOffset + k, wn, 0u);
      [[unroll]] for (uint wm = 0u; wm < WMITER; ++wm) {
        if (((kBlockBits[wm / 4u] >> (8u * (wm % 4u) + k)) & 1u) != 0u) {
          loadRegM(kOffset + k, wm, 0u);
          [[unroll]] for (uint wn = 0u; wn < WNITER; ++wn) {
            if (((kBlockBits[A_BYTE_WORDS + wn / 4u] >> (8u * (wn % 4u) + k)) & 1u) != 0u) fmaSubTile(wm, wn, 0u);
          }
        }
      }
    }
  }
}

// ---- The K loop over a workgroup's listed K-blocks, one K-tile each (BK = K_BLOCK, which the
// backend checks): K12's hoistedKLoop with its K-tiles taken from the list (hoistedListLoop in
// the CUDA twin). Every step stores the K-tile in flight, passes the barrier and reads depth 0 of
// the next stage, as K12's; only the warp's updates of a step depend on the pattern. A K-block the
// list marks whole takes K12's split (depths 0 .. BK - 2 before the barrier, the last after it,
// depth 0 of the next stage read meanwhile), with no pattern byte read at all; any other K-block
// the warp updates through updateKBlock, from bytes read a step ahead, all before the barrier.
// Turned by one depth as K12's loop (k12_hoisted.comp says why): a whole K-block's last depth is
// multiplied at the top of the next step, while depth 0 of that step's stage is read.
// interior: the K-tiles load unchecked (interiorKTiles()). onlyWhole: the list holds only whole
// K-blocks, and the loop has no branch on the pattern. Each call is a loop of its own once the
// driver inlines it, specialized where its arguments are constants, as the CUDA twin's template
// parameters are; walkKBlocks makes two calls, not the twin's three, because every inlined copy
// of the unrolled body adds to the driver's compile of the pipeline: on lavapipe three took the
// 128-invocation kernels' compile from about 4 s (K11's loop) to 13, two to 7; on a fresh NVIDIA
// H100 a bench whose first step compiled seven kernels of three copies had not ended after five
// minutes, where with the driver's cache warm it took a second (lab/31-glsl-skip-hoisted).
// Sub-tiles narrower than a vector (S7's TM = 2), and the one-warp workgroups (S8, S9), update
// whole K-blocks in K11's way instead, all depths before the barrier: the split needs vector
// fragments, and registers for them across the barrier beside a one-warp workgroup's eight
// quads in flight.
const bool SPLIT_LAST_DEPTH = TM % 4u == 0u && A_FETCH_PASSES + B_FETCH_PASSES <= 4u;

// The entry at list position `index`; past the list's end the last one again (read, unused).
int listedKBlock(uint index, uint count) { return kBlockList[min(index, count - 1u)]; }

void fetchListedKTile(uint row0, uint col0, int entry, bool interior) {
  uint kTile = markedKBlockIndex(entry) * BK;
  if (interior) {
    fetchInteriorAt(kTile);
  } else {
    fetchKTile(row0, col0, kTile);
  }
}

void hoistedListLoop(uint row0, uint col0, uint count, bool interior, bool onlyWhole) {
  int current = listedKBlock(0u, count), next = listedKBlock(1u, count);
  fetchListedKTile(row0, col0, current, interior);
  readNextKBlockBits(current, onlyWhole);
  storeKTile(0u);
  barrier();
  fetchListedKTile(row0, col0, next, interior);  // in flight during the first K-tile's FMAs
  uint readStage = 0u, writeStage = 1u;
  fragmentsFromStage(readStage);
  // The previous K-tile's last depth is multiplied at the top of a step (lastDepthPending: it
  // took K12's split); before the first step that depth is zeros, which add nothing.
  if (SPLIT_LAST_DEPTH) zeroFragments((BK - 1u) & 1u);
  bool lastDepthPending = true;
  for (uint step = 0u; step < count; ++step) {
    int after = listedKBlock(step + 2u, count);
    if (SPLIT_LAST_DEPTH) {
      loadFragments(0u, 0u);
      // the previous K-tile's last depth: its latency covers depth 0's shared reads
      if (onlyWhole || lastDepthPending) multiplyFragments((BK - 1u) & 1u);
    }
    // This K-tile's bytes become current; the next one's are read a whole step before they are
    // needed (none past the list's end).
    [[unroll]] for (uint w = 0u; w < BYTE_WORDS; ++w) kBlockBits[w] = nextKBlockBits[w];
    readNextKBlockBits(next, onlyWhole || step + 1u >= count);
    bool whole = onlyWhole || markedKBlockIsWhole(current);
    bool split = SPLIT_LAST_DEPTH && whole;
    if (split) {
      [[unroll]] for (uint k = 0u; k + 1u < BK; ++k) {
        loadFragments(k + 1u, (k + 1u) & 1u);
        multiplyFragments(k & 1u);
      }
    } else if (whole) {
      rank1Updates(0u, BK);
    } else if (!onlyWhole) {
      updateKBlock(0u);
    }
    storeKTile(writeStage);
    barrier();
    fetchListedKTile(row0, col0, after, interior);  // in flight during the next K-tile
    uint nowRead = writeStage;
    writeStage = readStage;
    readStage = nowRead;
    fragmentsFromStage(readStage);
    lastDepthPending = split;
    current = next;
    next = after;
  }
  if (SPLIT_LAST_DEPTH && (onlyWhole || lastDepthPending)) multiplyFragments((BK - 1u) & 1u);
}

// A block tile's K-blocks, a list at a time (K_BLOCK_LIST_LENGTH of them at most), each list
// through hoistedListLoop: those gatherKBlocks keeps (every K-block of a tile with nothing to
// skip, each marked whole).
void walkKBlocks(uint row0, uint col0) {
  for (uint first = 0u; first < kBlocksTotal; first += K_BLOCK_LIST_LENGTH) {
    uint length = min(K_BLOCK_LIST_LENGTH, kBlocksTotal - first);
    bool everyWhole = true;
    uint count = gatherKBlocks(first, length, true, everyWhole);
    if (count == 0u) continue;
    if (interiorKTiles() && everyWhole) {
      // A loop with no branch on the pattern: zeros in blocks of the pattern tiles' size, and
      // tiles with nothing to skip, list only whole K-blocks.
      hoistedListLoop(row0, col0, count, true, true);
    } else {
      // Interior or not, one loop: the CUDA twin's third copy (kInterior without kOnlyWhole)
      // would be a third inlined loop body here, and the driver compiles each (below).
      hoistedListLoop(row0, col0, count, interiorKTiles(), false);
    }
  }
}

#endif  // TILESKIP_PART_WARP_SKIP
