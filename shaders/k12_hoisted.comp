#version 450
#extension GL_GOOGLE_include_directive : require
// K12 hoisted: K11's double buffering with the loop's bookkeeping taken off the FMAs. Each
// invocation's global vector indices are computed once per block tile, so a K-tile's loads only
// add the K offset (interior tiles load with no bounds checks), and the barrier moves before the
// last depth's FMAs, so depth 0 of the next K-tile is read from shared memory while they run
// instead of every warp waiting for it at the top of each K-tile. The block grows to 128x256,
// eight 64x64 warps: each load and shared store of A feeds twice the FMAs. (bench/NOTES.md step 8.)
//
// A workgroup whose tiles lie inside the matrices runs a K loop with no bounds check: its loads
// step two vector indices one K-tile at a time (the last K-tile loaded again instead of a
// branch), and the two stages swap; edge workgroups run the same loop with bounds checks, as the
// CUDA twin (whose ptxas schedules such a loop as one block: bench/NOTES.md step 29).
//
// Dense only: the skipping kernels keep K11's loop over a schedule of K-blocks.
#define TILESKIP_STAGES 2u
#include "tileskip_common.glsl"
#include "tileskip_stage.glsl"
#include "tileskip_warptile.glsl"

// One K-tile of A (BM x BK) and B (BK x BN) in registers between its global loads and its
// shared stores, loaded in passes whose indices are fixed per invocation: an invocation reads the
// same 4 K-columns of A (aK) in rows A_ROWS_PER_PASS apart, and the same 4 columns of B (bCol) in
// K-rows B_ROWS_PER_PASS apart. Only the K offset changes from one K-tile to the next. (The
// backend checks that the tiles split into whole passes: limits.cpp, pipelineShapeProblem.)
const uint A_QUADS_PER_ROW = BK / 4u, A_ROWS_PER_PASS = THREADS / A_QUADS_PER_ROW;
const uint A_FETCH_PASSES = BM / A_ROWS_PER_PASS;
const uint B_QUADS_PER_ROW = BN / 4u, B_ROWS_PER_PASS = THREADS / B_QUADS_PER_ROW;
const uint B_FETCH_PASSES = BK / B_ROWS_PER_PASS;

vec4 stagedA[A_FETCH_PASSES];
vec4 stagedB[B_FETCH_PASSES];

uint aRow, aK;  // this invocation's first row and its K-column inside the A tile
uint bK, bCol;  // this invocation's first K-row and its column inside the B tile
// Every row of the tile lies inside the matrix and reads as vectors: with a full K-tile, no load
// needs a check. The same for the whole workgroup, so no warp diverges on it.
bool interiorA, interiorB;
// Where the interior loads start at K offset 0, in vectors of A4 and B4, and how far apart their
// passes lie: computed once, so a K-tile's loads are a sum and a constant stride each.
uint aFirstVector, aPassVectors, bFirstVector, bPassVectors;
// The running indices of an interior workgroup (interiorKTiles()): where fetchRunning reads next.
uint aNextVector, bNextVector;

void placeKTile(uint row0, uint col0) {
  uint invocation = gl_LocalInvocationIndex;
  aRow = invocation / A_QUADS_PER_ROW;
  aK = (invocation % A_QUADS_PER_ROW) * 4u;
  bK = invocation / B_QUADS_PER_ROW;
  bCol = (invocation % B_QUADS_PER_ROW) * 4u;
  interiorA = row0 + BM <= problem.M && aRowsAreVectorAligned();
  interiorB = col0 + BN <= problem.N && bRowsAreVectorAligned();
  // Exact where they are used: interior rows are 16-byte aligned and aK, col0, bCol are multiples of 4.
  aFirstVector = (row0 + aRow) * (problem.lda / 4u) + aK / 4u;
  aPassVectors = A_ROWS_PER_PASS * (problem.lda / 4u);
  bFirstVector = bK * (problem.ldb / 4u) + (col0 + bCol) / 4u;
  bPassVectors = B_ROWS_PER_PASS * (problem.ldb / 4u);
  aNextVector = aFirstVector;
  bNextVector = bFirstVector;
}

// Every K-tile of this workgroup is whole and inside both matrices: it may run fetchRunning.
bool interiorKTiles() { return interiorA && interiorB && problem.K % BK == 0u; }

// An interior workgroup's K-tile at the running indices, then the indices step to the next one
// when `advance` (a select, not a branch: past the last K-tile they stay and reload it).
void fetchRunning(bool advance) {
  [[unroll]] for (uint p = 0u; p < A_FETCH_PASSES; ++p) stagedA[p] = A4[aNextVector + p * aPassVectors];
  [[unroll]] for (uint p = 0u; p < B_FETCH_PASSES; ++p) stagedB[p] = B4[bNextVector + p * bPassVectors];
  aNextVector += advance ? BK / 4u : 0u;
  bNextVector += advance ? BK * (problem.ldb / 4u) : 0u;
}

// Global loads of the K-tile at kTile; zeros past M, N or K (a kTile past K loads nothing).
// Nothing waits for them here: storeKTile consumes them after the FMAs of the current K-tile.
void fetchKTile(uint row0, uint col0, uint kTile) {
  bool fullK = kTile + BK <= problem.K;
  if (interiorA && fullK) {
    uint first = aFirstVector + kTile / 4u;
    [[unroll]] for (uint p = 0u; p < A_FETCH_PASSES; ++p) stagedA[p] = A4[first + p * aPassVectors];
  } else {
    [[unroll]] for (uint p = 0u; p < A_FETCH_PASSES; ++p) stagedA[p] = loadA4(row0 + aRow + p * A_ROWS_PER_PASS, kTile + aK);
  }
  if (interiorB && fullK) {
    uint first = bFirstVector + kTile * (problem.ldb / 4u);
    [[unroll]] for (uint p = 0u; p < B_FETCH_PASSES; ++p) stagedB[p] = B4[first + p * bPassVectors];
  } else {
    [[unroll]] for (uint p = 0u; p < B_FETCH_PASSES; ++p) stagedB[p] = loadB4(kTile + bK + p * B_ROWS_PER_PASS, col0 + bCol);
  }
}

// Writes the K-tile in flight into stage `stage`: A transposed (As[k][m], stride A_STRIDE), B
// row-major with vector stores.
void storeKTile(uint stage) {
  [[unroll]] for (uint p = 0u; p < A_FETCH_PASSES; ++p) {
    uint at = (stage * BK + aK) * A_STRIDE + aRow + p * A_ROWS_PER_PASS;
    [[unroll]] for (uint c = 0u; c < 4u; ++c) storeSharedA(at + c * A_STRIDE, stagedA[p][c]);
  }
  [[unroll]] for (uint p = 0u; p < B_FETCH_PASSES; ++p) {
    Bs[(stage * BK + bK + p * B_ROWS_PER_PASS) * B_ROW_VECTORS + bCol / 4u] = stagedB[p];
  }
}

// The rank-1 update of the fragments in `set` (tileskip_warptile.glsl's regM, regN): their two
// sets live across K-tiles, so depth 0 of the next K-tile goes into set 0 while the last depth of
// this one is multiplied from set 1 (BK is even).
void multiplyFragments(uint set) {
  [[unroll]] for (uint i = 0u; i < LANE_M; ++i) {
    [[unroll]] for (uint j = 0u; j < LANE_N; ++j) {
      acc[i * LANE_N + j] = multiplyAdd(regM[set * LANE_M + i], regN[set * LANE_N + j], acc[i * LANE_N + j]);
    }
  }
}

// Tiles in groups of 8 row tiles, as the CUDA twin's kHoistedGroupRows.
const uint GROUP_ROWS = 8u;

// The K-tile `index` into registers: an interior workgroup steps its indices while one lies
// ahead; the others load at index * BK with bounds checks (zeros past K).
void fetchTile(uint row0, uint col0, uint index, uint steps, bool interior) {
  if (interior) {
    fetchRunning(index + 1u < steps);
  } else {
    fetchKTile(row0, col0, index * BK);
  }
}

// The K loop over a workgroup's K-tiles, the CUDA twin's hoistedKLoop: the body always stores
// the K-tile in flight and reads depth 0 of the next stage (past the last K-tile those move data
// nobody reads again), so it has no branch but the fetch's interior/edge choice, which is the
// same for every step and every invocation.
void hoistedKLoop(uint row0, uint col0, uint steps, bool interior) {
  fetchTile(row0, col0, 0u, steps, interior);
  storeKTile(0u);
  barrier();
  fetchTile(row0, col0, 1u, steps, interior);  // in flight during the first K-tile's FMAs
  uint readStage = 0u, writeStage = 1u;
  loadFragments(readStage * BK, 0u);
  for (uint step = 0u; step < steps; ++step) {
    // K11's inner loop: depth k + 1's fragments are read while depth k's FMAs run.
    [[unroll]] for (uint k = 0u; k + 1u < BK; ++k) {
      loadFragments(readStage * BK + k + 1u, (k + 1u) & 1u);
      multiplyFragments(k & 1u);
    }
    // Every read of this stage is done, so the barrier comes now, not after the last FMAs. The
    // other stage was last read before the previous barrier: the K-tile in flight goes there.
    storeKTile(writeStage);
    barrier();
    fetchTile(row0, col0, step + 2u, steps, interior);  // in flight during the next K-tile
    uint nowRead = writeStage;
    writeStage = readStage;
    readStage = nowRead;
    loadFragments(readStage * BK, 0u);
    multiplyFragments((BK - 1u) & 1u);  // its latency covers depth 0's shared reads
  }
}

void main() {
  uvec2 block = groupedBlockCoord(GROUP_ROWS);
  uint row0 = block.y * BM, col0 = block.x * BN;
  placeWarp();
  placeKTile(row0, col0);
  uint steps = (problem.K + BK - 1u) / BK;  // K >= 1: at least one
  if (interiorKTiles()) {
    hoistedKLoop(row0, col0, steps, true);
  } else {
    hoistedKLoop(row0, col0, steps, false);
  }
  storeWarpTile(row0, col0);
}
