// A packed A's K-tiles through K12's stages, the twin of packed_stage.cuh: S19's loop over the kept
// blocks of its block row.
#ifndef TILESKIP_PART_PACKED_STAGE
#define TILESKIP_PART_PACKED_STAGE
#include "hoisted.glsl"
#include "packed.glsl"

const uint PACKED_BLOCK = BM;  // a square block as tall as the tile
const uint PACKED_TILES_PER_BLOCK = PACKED_BLOCK / BK;

uint packedFirstBlock, packedKeptBlocks;  // the workgroup's block row: where its kept blocks start, how many
uint packedColumnsAt;                     // where the column indices start in the index
uint packedCol0;
bool packedInteriorB;  // the tile's columns lie inside B, whose rows read as vectors

// The block tile at (row0, col0), PackedKTile's constructor: its block row's slice of the index and
// this invocation's place in the K-tiles (hoisted.glsl's placeKTile: the same passes and stores).
void placePackedKTile(uint row0, uint col0) {
  placeKTile(row0, col0);
  uint blockRow = row0 / PACKED_BLOCK;
  packedFirstBlock = uint(packedIndex[blockRow]);
  packedKeptBlocks = uint(packedIndex[blockRow + 1u]) - packedFirstBlock;
  packedColumnsAt = packedColumnsStart(PACKED_BLOCK);
  packedCol0 = col0;
  packedInteriorB = col0 + BN <= problem.N && bRowsAreVectorAligned();
}

uint packedSteps() { return packedKeptBlocks * PACKED_TILES_PER_BLOCK; }

// K-tile `step` of the block row into hoisted.glsl's registers: depth (step % tiles per block) · BK
// of its kept block step / tiles per block. A block holds zeros where it passes M or K, so A's
// loads need no check; B's rows do where a block passes K, and its columns where the tile passes N.
void fetchPackedKTile(uint step) {
  uint kept = packedFirstBlock + step / PACKED_TILES_PER_BLOCK, depth = (step % PACKED_TILES_PER_BLOCK) * BK;
  uint kBase = uint(packedIndex[packedColumnsAt + kept]) * PACKED_BLOCK + depth;
  uint aFrom = (kept * PACKED_BLOCK * PACKED_BLOCK + aRow * PACKED_BLOCK + depth + aK) / 4u;
  [[unroll]] for (uint p = 0u; p < A_FETCH_PASSES; ++p) stagedA[p] = A4[aFrom + p * (A_ROWS_PER_PASS * PACKED_BLOCK / 4u)];
  if (packedInteriorB && kBase + BK <= problem.K) {
    uint bFrom = bFirstVector + kBase * (problem.ldb / 4u);
    [[unroll]] for (uint p = 0u; p < B_FETCH_PASSES; ++p) stagedB[p] = B4[bFrom + p * bPassVectors];
  } else {
    [[unroll]] for (uint p = 0u; p < B_FETCH_PASSES; ++p) stagedB[p] = loadB4(kBase + bK + p * B_ROWS_PER_PASS, packedCol0 + bCol);
  }
}

// The block row's K-tiles through K12's two stages, turned by one depth as k12_hoisted.comp's
// hoistedKLoop is (a step starts after the barrier; lab/33-glsl-k-loop says why the CUDA twin's
// differs). Past the last K-tile the fetch loads the last one again, which nothing reads.
void packedKLoop(uint steps) {
  fetchPackedKTile(0u);
  storeKTile(0u);
  barrier();
  fetchPackedKTile(min(1u, steps - 1u));  // in flight during the first K-tile's FMAs
  uint readStage = 0u, writeStage = 1u;
  fragmentsFromStage(readStage);
  zeroFragments((BK - 1u) & 1u);  // the first step's "previous last depth" adds nothing
  for (uint step = 0u; step < steps; ++step) {
    loadFragments(0u, 0u);
    multiplyFragments((BK - 1u) & 1u);  // the previous K-tile's last depth: covers depth 0's shared reads
    [[unroll]] for (uint k = 0u; k + 1u < BK; ++k) {
      loadFragments(k + 1u, (k + 1u) & 1u);
      multiplyFragments(k & 1u);
    }
    storeKTile(writeStage);
    barrier();
    fetchPackedKTile(min(step + 2u, steps - 1u));  // in flight during the next K-tile
    uint nowRead = writeStage;
    writeStage = readStage;
    readStage = nowRead;
    fragmentsFromStage(readStage);
  }
  multiplyFragments((BK - 1u) & 1u);  // the last K-tile's last depth
}

#endif  // TILESKIP_PART_PACKED_STAGE
