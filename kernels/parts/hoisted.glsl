// K12's staging of a K-tile, the twin of hoisted.cuh's HoistedKTile and HoistedWarpTile::multiply:
// shared by K12's own loop (k12_hoisted.comp) and the warp-uniform skipping kernels' loop over
// their K-block list (warp_skip.glsl's hoistedListLoop).
#ifndef TILESKIP_PART_HOISTED
#define TILESKIP_PART_HOISTED
// Two stages: the one the warps compute on and the one the next K-tile is written to.
#define TILESKIP_STAGES 2u
#include "warptile.glsl"

// One K-tile of A (BM x BK) and B (BK x BN) in registers between its global loads and its
// shared stores, loaded in passes whose indices are fixed per invocation: an invocation reads the
// same 4 K-columns of A (aK) in rows A_ROWS_PER_PASS apart, and the same 4 columns of B (bCol) in
// K-rows B_ROWS_PER_PASS apart. Only the K offset changes from one K-tile to the next. (The
// backend checks that the tiles split into whole passes: shapeProblem, core/model/shape_rules.hpp.)
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
// The entry of As (stage.glsl) and the element in it where this invocation's first
// value of A goes in stage 0. Its other values lie whole entries on (a pass's rows and a depth's
// stride are multiples of A_ENTRY_FLOATS: limits.cpp), so a store adds a stage's entries and a
// constant to one index; NVIDIA's driver recomputed the shift and mask of each store's element
// index in every K-tile (lab/33-glsl-k-loop).
uint aStoreEntry, aStoreElement;

// The block tile at (row0, col0): this invocation's place in its K-tiles (HoistedKTile's constructor).
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
  uint aStoreAt = aK * A_STRIDE + aRow;
  aStoreEntry = aStoreAt / A_ENTRY_FLOATS;
  aStoreElement = aStoreAt % A_ENTRY_FLOATS;
}

// Every K-tile of this workgroup is whole and inside both matrices: it may run fetchInteriorAt.
bool interiorKTiles() { return interiorA && interiorB && problem.K % BK == 0u; }

// An interior workgroup's K-tile at K offset kTile, unchecked: one multiply-add per operand finds
// it (K12's K-tiles, and the skipping kernels' listed ones, which do not follow one another).
void fetchInteriorAt(uint kTile) {
  uint aFrom = aFirstVector + kTile / 4u, bFrom = bFirstVector + kTile * (problem.ldb / 4u);
  [[unroll]] for (uint p = 0u; p < A_FETCH_PASSES; ++p) stagedA[p] = A4[aFrom + p * aPassVectors];
  [[unroll]] for (uint p = 0u; p < B_FETCH_PASSES; ++p) stagedB[p] = B4[bFrom + p * bPassVectors];
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
  uint first = stage * (BK * A_ROW_ENTRIES) + aStoreEntry;
  [[unroll]] for (uint p = 0u; p < A_FETCH_PASSES; ++p) {
    [[unroll]] for (uint c = 0u; c < 4u; ++c) {
      As[first + (p * A_ROWS_PER_PASS + c * A_STRIDE) / A_ENTRY_FLOATS][aStoreElement] = stagedA[p][c];
    }
  }
  [[unroll]] for (uint p = 0u; p < B_FETCH_PASSES; ++p) {
    Bs[(stage * BK + bK + p * B_ROWS_PER_PASS) * B_ROW_VECTORS + bCol / 4u] = stagedB[p];
  }
}

// The rank-1 update of the fragments in `set` (warptile.glsl's regM, regN): their two
// sets live across K-tiles, so depth 0 of the next K-tile goes into set 0 while the last depth of
// this one is multiplied from set 1 (BK is even).
void multiplyFragments(uint set) {
  [[unroll]] for (uint i = 0u; i < LANE_M; ++i) {
    [[unroll]] for (uint j = 0u; j < LANE_N; ++j) {
      acc[i * LANE_N + j] = multiplyAdd(regM[set * LANE_M + i], regN[set * LANE_N + j], acc[i * LANE_N + j]);
    }
  }
}

// Zeros into fragment set `set`, whose rank-1 update then adds exactly nothing (accumulators that
// start at +0 never become -0 under round-to-nearest, so acc + 0·0 is acc): the turned loops'
// first step multiplies "the previous K-tile's last depth" unconditionally.
void zeroFragments(uint set) {
  [[unroll]] for (uint i = 0u; i < LANE_M; ++i) regM[set * LANE_M + i] = 0.0;
  [[unroll]] for (uint j = 0u; j < LANE_N; ++j) regN[set * LANE_N + j] = 0.0;
}

#endif  // TILESKIP_PART_HOISTED
