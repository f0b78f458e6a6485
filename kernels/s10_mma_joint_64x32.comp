#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// S10 mma-joint-64x32: K13's tensor cores, skipping by the joint pattern a_pat & b_pat. The two
// decisions of the SIMT joint kernels stay, at the multiply's granularity:
//  - the workgroup gathers the K-blocks some warp of its tile needs (gatherKBlocks,
//    parts/block_skip.glsl) and its stage ring loads only those, K_SLOTS to a K-tile, so a
//    K-block nobody needs is never loaded;
//  - a warp's WM x WN tile lies in one A-pattern tile and one B-pattern tile (the catalogue
//    checks it), so the warp's joint byte of a K-block is one byte of each. A cooperative-matrix
//    multiply-add consumes a 16-deep step, two K-block slots: where the warp's joint byte is
//    zero in both, it issues none of the step's loads and none of its multiplies. Every
//    invocation of the warp (the subgroup, for a cooperative matrix) reads the same bit:
//    warp-uniform by construction, no vote needed. Beside the gathered list the workgroup
//    writes, once per pass, each K-tile's kept steps for every warp (recordKeptSteps), so a
//    warp's decision in the loop is one shared-memory read (lab/20-s10-skip-tensor).
// A block tile whose every pattern tile keeps everything runs K13's loop over every K-block.
// The CUDA twin is s10_mma_joint_64x32.cuh.
#include "parts/ring.glsl"
#include "parts/block_skip.glsl"

const uint SLOTS_PER_STEP = MMA_PIECE / K_BLOCK;  // K-block slots one multiply-add consumes
const uint STEPS_PER_TILE = BK / MMA_PIECE;        // multiply-add steps per K-tile
// recordKeptSteps' words: warp w's kept steps of K-tile t at bit w * STEPS_PER_TILE of word t.
// Whole 16-byte multiples, as every shared variable here (parts/block_skip.glsl says why).
shared uint stepKept[(K_BLOCK_LIST_LENGTH / K_SLOTS + 3u) / 4u * 4u];

// The depths of K-block `kBlock` a warp whose tile lies in A-tile `aTile` and B-tile `bTile`
// keeps: its A byte & its B byte (all ones for an operand not inspected).
uint warpJointBits(uint aTile, uint bTile, uint kBlock) {
  uint aBits = USES_A_PATTERN ? (aPatternWord(aTile, kBlock / 4u) >> (8u * (kBlock & 3u))) & 0xFFu : 0xFFu;
  uint bBits = USES_B_PATTERN ? (bPatternWord(bTile, kBlock / 4u) >> (8u * (kBlock & 3u))) & 0xFFu : 0xFFu;
  return aBits & bBits;
}

// Which of K-tile `step`'s 16-deep steps such a warp keeps, bit i for step i: its joint byte of
// either K-block slot of the step is non-zero.
uint warpKeptSteps(uint aTile, uint bTile, uint step) {
  uint kept = 0u;
  [[unroll]] for (uint s = 0u; s < K_SLOTS; ++s) {
    int kBlock = scheduledKBlock(step * K_SLOTS + s);
    uint joint = kBlock < 0 ? 0u : warpJointBits(aTile, bTile, uint(kBlock));
    kept |= joint != 0u ? 1u << (s / SLOTS_PER_STEP) : 0u;
  }
  return kept;
}

// Every warp's kept steps of every K-tile of the list into stepKept. Each invocation fills
// K-tiles of its own; the ring's first barrier comes before any warp reads them.
void recordKeptSteps(uint row0, uint col0) {
  uint steps = (kBlockListCount + K_SLOTS - 1u) / K_SLOTS;
  for (uint step = gl_LocalInvocationIndex; step < steps; step += THREADS) {
    uint bits = 0u;
    [[unroll]] for (uint w = 0u; w < WARPS; ++w) {
      uint aTile = (row0 + mmaWarpRow(w)) / A_TILE_ROWS, bTile = (col0 + mmaWarpCol(w)) / B_TILE_COLS;
      bits |= warpKeptSteps(aTile, bTile, step) << (w * STEPS_PER_TILE);
    }
    stepKept[step] = bits;
  }
}

void computeKTile(uint stage, uint step) {
  if (denseBlock) {  // K13's multiplies (empty slots hold zeros)
    [[unroll]] for (uint kk = 0u; kk < BK; kk += MMA_PIECE) multiplyStep(stage, kk);
    return;
  }
  uint kept = stepKept[step] >> (warpIndex * STEPS_PER_TILE);
  [[unroll]] for (uint kk = 0u; kk < BK; kk += MMA_PIECE) {
    if (((kept >> (kk / MMA_PIECE)) & 1u) != 0u) multiplyStep(stage, kk);
  }
}

// A persistent workgroup takes block tiles from the queue; for each it gathers the K-blocks the
// tile needs, then runs K13's ring over them with each warp deciding its multiplies.
void main() {
  uint colTiles = (problem.N + BN - 1u) / BN;
  uint tiles = dispatchTilesEnd(((problem.M + BM - 1u) / BM) * colTiles);
  startPatternTiles();
  placeMmaWarp();
  for (uint index = takeBlockTile(); index < tiles; index = takeBlockTile()) {
    uint row0 = (index / colTiles) * BM, col0 = (index % colTiles) * BN;
    placeBlockPatternTiles(row0, col0);
    denseBlock = blockKeepsEverything();
    mmaZeroAccumulators();
    if (denseBlock) {
      mmaRingMainLoop(row0, col0, (kBlocksTotal + K_SLOTS - 1u) / K_SLOTS);
    } else {
      for (uint first = 0u; first < kBlocksTotal; first += K_BLOCK_LIST_LENGTH) {
        bool everyWhole;  // unused: the ring's steps decide from the warps' bytes (recordKeptSteps)
        kBlockListCount = gatherKBlocks(first, min(K_BLOCK_LIST_LENGTH, kBlocksTotal - first), false, everyWhole);
        recordKeptSteps(row0, col0);
        mmaRingMainLoop(row0, col0, (kBlockListCount + K_SLOTS - 1u) / K_SLOTS);
      }
    }
    storeMmaWarpTile(row0, col0);
  }
  leaveBlockTileQueue();
}
