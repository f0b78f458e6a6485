// What the warp-uniform SIMT skipping kernels (S2, S4-S9) share, the twin of
// backends/cuda/skip_common.cuh: K11's pipelined main loop run over only the K-blocks a
// workgroup needs (tileskip_block_skip.glsl), and the skip policy of warp sub-tiles that lie
// inside one pattern tile each.
//
// Two decisions, two scopes:
//  - the workgroup decides which K-blocks to load and compute at all, and compacts them into a
//    list before the main loop (tileskip_block_skip.glsl).
//  - each warp decides which of a listed K-block's 8 rank-1 updates to do, per sub-tile, from
//    the byte of the pattern tile that sub-tile lies in. No barrier sits inside that decision;
//    it goes through a subgroup vote so that a subgroup always takes one branch (below).
// The union of the warps' joint bytes (a_i & b_j over the block's tiles) is exactly
// (union of a_i) & (union of b_j), so the workgroup skips precisely the K-blocks no warp needs.
// Needs tileskip_common.glsl, tileskip_stage.glsl (TILESKIP_STAGES 2u), tileskip_warptile.glsl
// and tileskip_pipeline.glsl first.
#include "tileskip_block_skip.glsl"

uint warpFirstRow, warpFirstCol; // the warp tile's first row and column in C

// ---- The sub-tile skip (SubTileSkip in the CUDA twin). A sub-tile (WSUBM x WSUBN) lies inside
// one A-pattern tile and one B-pattern tile (the backend checks A_ROWS % WSUBM == 0 and
// B_COLS % WSUBN == 0): A_ROWS = WSUBM is S7's 8-row walk; A_ROWS >= WM makes the byte the same
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

// The pattern bytes of each sub-tile row (A) and column (B) in one K-block, four to a word.
const uint A_BYTE_WORDS = (WMITER + 3u) / 4u;
const uint B_BYTE_WORDS = (WNITER + 3u) / 4u;
const uint STEP_WORDS = A_BYTE_WORDS + B_BYTE_WORDS;
uint stepBits[K_SLOTS * STEP_WORDS];      // of the current K-tile, per slot
uint nextStepBits[K_SLOTS * STEP_WORDS];  // of the K-tile in flight

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

// SubTileSkip::bitsOf for every slot of the K-tile in flight.
void prepareKTile() {
  if (denseBlock) return;
  [[unroll]] for (uint s = 0u; s < K_SLOTS; ++s) {
    int kBlock = nextKBlocks[s];
    [[unroll]] for (uint w = 0u; w < STEP_WORDS; ++w) nextStepBits[s * STEP_WORDS + w] = 0u;
    if (kBlock >= 0) {  // an empty slot keeps nothing
      [[unroll]] for (uint wm = 0u; wm < WMITER; ++wm) {
        uint bits = subgroupInOneWarp ? subTileRowBits(wm, uint(kBlock)) : 0xFFu;
        nextStepBits[s * STEP_WORDS + wm / 4u] |= bits << (8u * (wm % 4u));
      }
      [[unroll]] for (uint wn = 0u; wn < WNITER; ++wn) {
        uint bits = subgroupInOneWarp ? subTileColBits(wn, uint(kBlock)) : 0xFFu;
        nextStepBits[s * STEP_WORDS + A_BYTE_WORDS + wn / 4u] |= bits << (8u * (wn % 4u));
      }
    }
  }
}

void advanceKTile() {
  [[unroll]] for (uint i = 0u; i < K_SLOTS * STEP_WORDS; ++i) stepBits[i] = nextStepBits[i];
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

// This warp's rank-1 updates of the K-block in slot `slot`, staged at depths kOffset ..
// kOffset + 7. Every branch here is the same for a whole subgroup (see subgroupInOneWarp).
void updateKBlock(uint kOffset, uint slot) {
  uint aAny = 0u, bAny = 0u;
  bool everyKept = true;
  [[unroll]] for (uint w = 0u; w < A_BYTE_WORDS; ++w) {
    uint word = stepBits[slot * STEP_WORDS + w];
    aAny |= anyByte(word);
    everyKept = everyKept && (word | unusedBytes(w, WMITER)) == ~0u;
  }
  [[unroll]] for (uint w = 0u; w < B_BYTE_WORDS; ++w) {
    uint word = stepBits[slot * STEP_WORDS + A_BYTE_WORDS + w];
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
    // crowd the straight-line path above out of the instruction cache.
    [[dont_unroll]] for (uint k = 0u; k < K_BLOCK; ++k) {
      if (((jointPattern >> k) & 1u) == 0u) continue;
      [[unroll]] for (uint wn = 0u; wn < WNITER; ++wn) loadRegN(kOffset + k, wn, 0u);
      [[unroll]] for (uint wm = 0u; wm < WMITER; ++wm) {
        if (((stepBits[slot * STEP_WORDS + wm / 4u] >> (8u * (wm % 4u) + k)) & 1u) != 0u) {
          loadRegM(kOffset + k, wm, 0u);
          [[unroll]] for (uint wn = 0u; wn < WNITER; ++wn) {
            if (((stepBits[slot * STEP_WORDS + A_BYTE_WORDS + wn / 4u] >> (8u * (wn % 4u) + k)) & 1u) != 0u) fmaSubTile(wm, wn, 0u);
          }
        }
      }
    }
  }
}

void computeKTile(uint depth0) {
  if (denseBlock) {  // K11's straight-line updates (empty slots hold zeros)
    rank1Updates(depth0, BK);
    return;
  }
  [[unroll]] for (uint s = 0u; s < K_SLOTS; ++s) {
    if (kBlocks[s] >= 0) updateKBlock(depth0 + s * K_BLOCK, s);
  }
}

// The whole kernel (warpTileSkipGemm in the CUDA twin): a persistent workgroup takes block
// tiles from the queue; for each it gathers the K-blocks the tile needs, then runs K11's
// pipeline over them with the sub-tile skip deciding each warp's updates.
void warpTileSkipGemm() {
  subgroupInOneWarp = subgroupAllEqual(gl_LocalInvocationIndex / WARP_SIZE);
#ifdef TILESKIP_TEST_SUBGROUP_SPANS_WARPS
  // Test build only (embedded as a separate module): what a subgroup spanning two warps does,
  // on a device whose subgroups never do.
  subgroupInOneWarp = false;
#endif
  uint colTiles = (problem.N + BN - 1u) / BN;
  uint tiles = ((problem.M + BM - 1u) / BM) * colTiles;
  startPatternTiles();
  for (uint index = takeBlockTile(); index < tiles; index = takeBlockTile()) {
    uint row0 = (index / colTiles) * BM, col0 = (index % colTiles) * BN;
    placeWarp();
    warpFirstRow = row0 + warpRow;
    warpFirstCol = col0 + warpCol;
    placeBlockPatternTiles(row0, col0);
    if (denseBlock) {
      pipelinedMainLoop(row0, col0, (kBlocksTotal + K_SLOTS - 1u) / K_SLOTS);
    } else {
      for (uint first = 0u; first < kBlocksTotal; first += K_BLOCK_LIST_LENGTH) {
        kBlockListCount = gatherKBlocks(first, min(K_BLOCK_LIST_LENGTH, kBlocksTotal - first));
        pipelinedMainLoop(row0, col0, (kBlockListCount + K_SLOTS - 1u) / K_SLOTS);
      }
    }
    storeWarpTile(row0, col0);
  }
  leaveBlockTileQueue();
}
