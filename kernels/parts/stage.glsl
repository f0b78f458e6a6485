// Shared-memory staging with 128-bit loads, from K6 (vectorized) on. Each step copies a BM x BK
// tile of A and a BK x BN tile of B into shared memory with vec4 global loads (scalar at ragged
// edges). A is stored transposed, As[k][row], so the inner loop reads TM consecutive rows of one
// k as vectors, just as it reads TN consecutive columns of Bs[k][col]. Its rows are A_STRIDE =
// BM + 4 floats apart: the padding spreads the transposing stores over more banks and keeps
// every row 16-byte aligned (the CUDA twins pad alike).
// A kernel may define before including this file:
//  - TILESKIP_STAGES: how many BK-deep tiles the arrays hold (default 1). The pipelined kernels
//    (K11 on) keep two; stage s is depths s·BK .. s·BK + BK - 1 of the same arrays, so every
//    reader below takes a stage by its depth.
//  - TILESKIP_A_IN_PAIRS: As holds pairs of rows (vec2), for TM = 2 (joint-8x32): a lane's two
//    rows are one 64-bit read, as in the CUDA twin, instead of a vector read and a select.
#ifndef TILESKIP_PART_STAGE
#define TILESKIP_PART_STAGE
#include "common.glsl"

#ifndef TILESKIP_STAGES
#define TILESKIP_STAGES 1u
#endif

const uint A_STRIDE = BM + 4u;
#ifdef TILESKIP_A_IN_PAIRS
shared vec2 As[TILESKIP_STAGES * BK * A_STRIDE / 2];
#else
shared vec4 As[TILESKIP_STAGES * BK * A_STRIDE / 4];
#endif
shared vec4 Bs[TILESKIP_STAGES * BK * BN / 4];

// Element, pair (2-aligned `row`) or vector (4-aligned `row`) of the staged A tile at depth k.
#ifdef TILESKIP_A_IN_PAIRS
void storeSharedA(uint at, float value) { As[at >> 1][at & 1u] = value; }
float sharedA(uint k, uint row) {
  uint at = k * A_STRIDE + row;
  return As[at >> 1][at & 1u];
}
vec2 sharedA2(uint k, uint row) { return As[(k * A_STRIDE + row) >> 1]; }
vec4 sharedA4(uint k, uint row) {
  uint at = (k * A_STRIDE + row) >> 1;
  return vec4(As[at], As[at + 1u]);
}
#else
void storeSharedA(uint at, float value) { As[at >> 2][at & 3u] = value; }
float sharedA(uint k, uint row) {
  uint at = k * A_STRIDE + row;
  return As[at >> 2][at & 3u];
}
vec2 sharedA2(uint k, uint row) {
  uint at = k * A_STRIDE + row;
  vec4 a = As[at >> 2];
  return (at & 2u) != 0u ? a.zw : a.xy;
}
vec4 sharedA4(uint k, uint row) { return As[(k * A_STRIDE + row) >> 2]; }
#endif
float sharedB(uint k, uint col) {
  uint at = k * BN + col;
  return Bs[at >> 2][at & 3u];
}
vec4 sharedB4(uint k, uint col) { return Bs[(k * BN + col) >> 2]; }

// The same reads by entry of the arrays (a vec4, or a pair of As in TILESKIP_A_IN_PAIRS), for the
// warp tiles' inner loops: entry `e` at depth k is rows (columns) e·A_ENTRY_FLOATS (e·4) on.
// Their index is depth·stride + a lane's base + a constant, which the compiler folds into one
// address per lane and immediate offsets. The element forms above shift a sum instead, and
// under uint wrap-around (x + c) >> 2 is not (x >> 2) + (c >> 2): a shift and an add per read.
#ifdef TILESKIP_A_IN_PAIRS
const uint A_ENTRY_FLOATS = 2u;
#else
const uint A_ENTRY_FLOATS = 4u;
#endif
const uint A_ROW_ENTRIES = A_STRIDE / A_ENTRY_FLOATS;  // entries per depth of the staged A tile
const uint B_ROW_VECTORS = BN / 4u;

// Four rows of A from entry `entry` (its first row a multiple of 4).
vec4 sharedA4At(uint k, uint entry) {
#ifdef TILESKIP_A_IN_PAIRS
  uint at = k * A_ROW_ENTRIES + entry;
  return vec4(As[at], As[at + 1u]);
#else
  return As[k * A_ROW_ENTRIES + entry];
#endif
}
#ifdef TILESKIP_A_IN_PAIRS
vec2 sharedA2At(uint k, uint entry) { return As[k * A_ROW_ENTRIES + entry]; }
#endif
vec4 sharedB4At(uint k, uint vector) { return Bs[k * B_ROW_VECTORS + vector]; }

const uint A_VECTORS = BM * BK / 4;  // vec4 of A per step, each 4 consecutive k of one row
const uint B_VECTORS = BK * BN / 4;  // vec4 of B per step, each 4 consecutive columns of one k
const uint A_PASSES = (A_VECTORS + THREADS - 1) / THREADS;
const uint B_PASSES = (B_VECTORS + THREADS - 1) / THREADS;

// Vector i of the A tile holds k .. k+3 of one row: neighbouring invocations take neighbouring
// vectors of a row, BK/4 of them cover its segment.
uint stagedRowA(uint i) { return i / (BK / 4u); }
uint stagedKA(uint i) { return (i % (BK / 4u)) * 4u; }
// Vector i of the B tile holds 4 consecutive columns of one k.
uint stagedKB(uint i) { return i / (BN / 4u); }
uint stagedColB(uint i) { return (i % (BN / 4u)) * 4u; }

bool kBlockStaged(uint kInStep, uint kBlockMask) { return ((kBlockMask >> (kInStep / K_BLOCK)) & 1u) != 0u; }

// Stages the step at kTile. K-blocks whose bit in `kBlockMask` is clear are not loaded: their
// shared memory keeps stale values, which no warp of the workgroup reads.
void stageTiles(uint row0, uint col0, uint kTile, uint kBlockMask) {
  // Inside the matrices with 16-byte aligned rows (the common case of a large problem), every
  // load is an unconditional vec4 and all of them are issued before the first shared store, so
  // their latencies overlap. The tests are the same for the whole workgroup: no divergence.
  bool aInside = row0 + BM <= problem.M && kTile + BK <= problem.K && problem.lda % 4u == 0u;
  bool bInside = col0 + BN <= problem.N && kTile + BK <= problem.K && problem.ldb % 4u == 0u;
  vec4 aVectors[A_PASSES];
  vec4 bVectors[B_PASSES];
  if (aInside) {
    [[unroll]] for (uint pass = 0u; pass < A_PASSES; ++pass) {
      uint i = min(pass * THREADS + gl_LocalInvocationIndex, A_VECTORS - 1u);
      if (kBlockStaged(stagedKA(i), kBlockMask)) {
        aVectors[pass] = A4[((row0 + stagedRowA(i)) * problem.lda + kTile + stagedKA(i)) >> 2];
      }
    }
  } else {
    [[unroll]] for (uint pass = 0u; pass < A_PASSES; ++pass) {
      uint i = min(pass * THREADS + gl_LocalInvocationIndex, A_VECTORS - 1u);
      if (kBlockStaged(stagedKA(i), kBlockMask)) aVectors[pass] = loadA4(row0 + stagedRowA(i), kTile + stagedKA(i));
    }
  }
  if (bInside) {
    [[unroll]] for (uint pass = 0u; pass < B_PASSES; ++pass) {
      uint i = min(pass * THREADS + gl_LocalInvocationIndex, B_VECTORS - 1u);
      if (kBlockStaged(stagedKB(i), kBlockMask)) {
        bVectors[pass] = B4[((kTile + stagedKB(i)) * problem.ldb + col0 + stagedColB(i)) >> 2];
      }
    }
  } else {
    [[unroll]] for (uint pass = 0u; pass < B_PASSES; ++pass) {
      uint i = min(pass * THREADS + gl_LocalInvocationIndex, B_VECTORS - 1u);
      if (kBlockStaged(stagedKB(i), kBlockMask)) bVectors[pass] = loadB4(kTile + stagedKB(i), col0 + stagedColB(i));
    }
  }
  [[unroll]] for (uint pass = 0u; pass < A_PASSES; ++pass) {
    uint i = pass * THREADS + gl_LocalInvocationIndex;
    if (i >= A_VECTORS || !kBlockStaged(stagedKA(i), kBlockMask)) continue;
    [[unroll]] for (uint c = 0u; c < 4u; ++c) storeSharedA((stagedKA(i) + c) * A_STRIDE + stagedRowA(i), aVectors[pass][c]);
  }
  [[unroll]] for (uint pass = 0u; pass < B_PASSES; ++pass) {
    uint i = pass * THREADS + gl_LocalInvocationIndex;
    if (i < B_VECTORS && kBlockStaged(stagedKB(i), kBlockMask)) Bs[i] = bVectors[pass];
  }
}

// ---- A TM x TN register tile per invocation (K6 and the divergent S1, S3): invocation
// (threadRow, threadCol) owns rows threadRow·TM.. and columns threadCol·TN.. of the block tile.
const uint THREAD_COLS = BN / TN;
float threadAcc[TM * TN];
float threadRegM[TM];
float threadRegN[TN];

uint threadRow() { return gl_LocalInvocationIndex / THREAD_COLS; }
uint threadCol() { return gl_LocalInvocationIndex % THREAD_COLS; }

void clearThreadTile() {
  [[unroll]] for (uint i = 0u; i < TM * TN; ++i) threadAcc[i] = 0.0;
}

// One rank-1 update at depth k: TM + TN shared loads (vectors where TM, TN allow) feed TM·TN FMAs.
void threadTileRank1(uint k) {
  uint row = threadRow() * TM, col = threadCol() * TN;
  if (TM % 4u == 0u) {
    [[unroll]] for (uint i = 0u; i < TM; i += 4u) {
      vec4 a = sharedA4(k, row + i);
      [[unroll]] for (uint c = 0u; c < 4u; ++c) threadRegM[i + c] = a[c];
    }
  } else {
    [[unroll]] for (uint i = 0u; i < TM; ++i) threadRegM[i] = sharedA(k, row + i);
  }
  if (TN % 4u == 0u) {
    [[unroll]] for (uint j = 0u; j < TN; j += 4u) {
      vec4 b = sharedB4(k, col + j);
      [[unroll]] for (uint c = 0u; c < 4u; ++c) threadRegN[j + c] = b[c];
    }
  } else {
    [[unroll]] for (uint j = 0u; j < TN; ++j) threadRegN[j] = sharedB(k, col + j);
  }
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    [[unroll]] for (uint j = 0u; j < TN; ++j) threadAcc[i * TN + j] += threadRegM[i] * threadRegN[j];
  }
}

void storeThreadTile(uint row0, uint col0) {
  uint row = row0 + threadRow() * TM, col = col0 + threadCol() * TN;
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    if (TN % 4u == 0u) {
      [[unroll]] for (uint j = 0u; j < TN; j += 4u) {
        storeC4(row + i, col + j,
                vec4(threadAcc[i * TN + j], threadAcc[i * TN + j + 1u], threadAcc[i * TN + j + 2u], threadAcc[i * TN + j + 3u]));
      }
    } else {
      [[unroll]] for (uint j = 0u; j < TN; ++j) storeC(row + i, col + j, threadAcc[i * TN + j]);
    }
  }
}

#endif  // TILESKIP_PART_STAGE
