#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// K13 mma: the dense kernel on tensor cores. K11's block and warp tiling stays; what changes is
// the innermost step and the way tiles arrive. A warp no longer does rank-1 updates with FMAs:
// it multiplies 16 x 16 pieces of A and B with one cooperative-matrix multiply-add each (fp16
// in, fp32 accumulate), loaded from shared memory in the layout the instruction wants. The
// K-tiles pass through a ring of RING_STAGES shared-memory stages, so while the warps multiply
// one, the next ones are already staged or on their way.
//
// Levels, as in the CUDA twin (k13_mma.cuh): a workgroup computes BM x BN of C (one per block
// tile), a warp WM x WN (M_PIECES x N_PIECES pieces), a piece 16 x 16 x 16 (the CUDA twin: two
// m16n8k16 MMAs). A and B arrive as fp16 (bindings 6 and 7, made from the fp32 A and B by
// to_half.comp before the kernel runs, as the CUDA backend's prepare() makes its 16-bit copies);
// C is fp32. Where the CUDA twin copies global to shared memory with cp.async, which GLSL does
// not have, a K-tile travels through registers: fetched before the warps multiply, stored into
// its stage after, one K-tile ahead of what the ring already holds.
#include "tileskip_common.glsl"

layout(constant_id = 16) const uint RING_STAGES = 3;  // shared-memory stages of the ring

layout(set = 0, binding = 6, std430) restrict readonly buffer MatrixAHalf { float16_t AH[]; };
layout(set = 0, binding = 6, std430) restrict readonly buffer MatrixAHalf8 { uvec4 AH8[]; };
layout(set = 0, binding = 7, std430) restrict readonly buffer MatrixBHalf { float16_t BH[]; };
layout(set = 0, binding = 7, std430) restrict readonly buffer MatrixBHalf8 { uvec4 BH8[]; };

// A stage: A's BM x BK tile and B's BK x BN tile, rows padded by one 16-byte chunk (PAD) so that
// the 16 rows a piece reads start in different banks (the CUDA twin's kMmaPad; the catalogue's
// KernelInfo::stageBytes).
const uint CHUNK = 8u;  // 16-bit elements per 16-byte copy
const uint PAD = 8u;
const uint A_STRIDE = BK + PAD, B_STRIDE = BN + PAD;
const uint A_ELEMENTS = BM * A_STRIDE, B_ELEMENTS = BK * B_STRIDE;
const uint WARPS_N = BN / WN;
const uint WARPS = (BM / WM) * WARPS_N;
const uint M_PIECES = WM / 16u, N_PIECES = WN / 16u;
shared float16_t stageA[RING_STAGES * A_ELEMENTS];
shared float16_t stageB[RING_STAGES * B_ELEMENTS];
#include "tileskip_mma.glsl"

// The K-tile in flight: this invocation's chunks of A (chunk c: row c / (BK/8) of the tile, its
// (c % (BK/8))-th 8 elements) and of B (K-row c / (BN/8), its (c % (BN/8))-th 8 elements), as the
// CUDA twin's loadMmaKTile numbers them.
const uint A_CHUNKS_PER_ROW = BK / CHUNK, B_CHUNKS_PER_ROW = BN / CHUNK;
const uint A_PASSES = BM * A_CHUNKS_PER_ROW / THREADS, B_PASSES = BK * B_CHUNKS_PER_ROW / THREADS;
uvec4 aChunk[A_PASSES], bChunk[B_PASSES];

// 16-byte chunks where every row starts 16-byte aligned (K and N multiples of 8), each wholly
// inside or wholly outside the matrix; element by element otherwise. Zero outside the matrix.
bool chunked;

uvec4 halvesAsChunk(float16_t h[8]) {
  return uvec4(packFloat2x16(f16vec2(h[0], h[1])), packFloat2x16(f16vec2(h[2], h[3])), packFloat2x16(f16vec2(h[4], h[5])),
               packFloat2x16(f16vec2(h[6], h[7])));
}

uvec4 fetchAChunk(uint row, uint k) {
  if (chunked) return row < problem.M && k < problem.K ? AH8[(row * problem.K + k) / CHUNK] : uvec4(0u);
  float16_t h[8];
  [[unroll]] for (uint e = 0u; e < CHUNK; ++e) h[e] = row < problem.M && k + e < problem.K ? AH[row * problem.K + k + e] : float16_t(0.0);
  return halvesAsChunk(h);
}

uvec4 fetchBChunk(uint k, uint col) {
  if (chunked) return k < problem.K && col < problem.N ? BH8[(k * problem.N + col) / CHUNK] : uvec4(0u);
  float16_t h[8];
  [[unroll]] for (uint e = 0u; e < CHUNK; ++e) h[e] = k < problem.K && col + e < problem.N ? BH[k * problem.N + col + e] : float16_t(0.0);
  return halvesAsChunk(h);
}

// Global loads of the K-tile at kBase, into registers.
void fetchKTile(uint row0, uint col0, uint kBase) {
  [[unroll]] for (uint p = 0u; p < A_PASSES; ++p) {
    uint c = gl_LocalInvocationIndex + p * THREADS;
    aChunk[p] = fetchAChunk(row0 + c / A_CHUNKS_PER_ROW, kBase + (c % A_CHUNKS_PER_ROW) * CHUNK);
  }
  [[unroll]] for (uint p = 0u; p < B_PASSES; ++p) {
    uint c = gl_LocalInvocationIndex + p * THREADS;
    bChunk[p] = fetchBChunk(kBase + c / B_CHUNKS_PER_ROW, col0 + (c % B_CHUNKS_PER_ROW) * CHUNK);
  }
}

void storeChunk(bool toA, uint at, uvec4 chunk) {
  [[unroll]] for (uint w = 0u; w < 4u; ++w) {
    f16vec2 pair = unpackFloat2x16(chunk[w]);
    if (toA) {
      stageA[at + 2u * w] = pair.x;
      stageA[at + 2u * w + 1u] = pair.y;
    } else {
      stageB[at + 2u * w] = pair.x;
      stageB[at + 2u * w + 1u] = pair.y;
    }
  }
}

// The K-tile in registers into `stage` of the ring.
void storeKTile(uint stage) {
  [[unroll]] for (uint p = 0u; p < A_PASSES; ++p) {
    uint c = gl_LocalInvocationIndex + p * THREADS;
    storeChunk(true, stage * A_ELEMENTS + (c / A_CHUNKS_PER_ROW) * A_STRIDE + (c % A_CHUNKS_PER_ROW) * CHUNK, aChunk[p]);
  }
  [[unroll]] for (uint p = 0u; p < B_PASSES; ++p) {
    uint c = gl_LocalInvocationIndex + p * THREADS;
    storeChunk(false, stage * B_ELEMENTS + (c / B_CHUNKS_PER_ROW) * B_STRIDE + (c % B_CHUNKS_PER_ROW) * CHUNK, bChunk[p]);
  }
}

uint warpRow, warpCol;  // this warp's tile inside the block tile

// The warp's pieces of the K-tile in `stage`: 16 deep at a time, every piece of A with every one of B.
void multiplyKTile(uint stage) {
  [[unroll]] for (uint kk = 0u; kk < BK; kk += MMA_PIECE) {
    [[unroll]] for (uint i = 0u; i < M_PIECES; ++i) mmaLoadA(i, stage * A_ELEMENTS + (warpRow + i * MMA_PIECE) * A_STRIDE + kk, A_STRIDE);
    [[unroll]] for (uint j = 0u; j < N_PIECES; ++j) mmaLoadB(j, stage * B_ELEMENTS + kk * B_STRIDE + warpCol + j * MMA_PIECE, B_STRIDE);
    [[unroll]] for (uint i = 0u; i < M_PIECES; ++i) {
      [[unroll]] for (uint j = 0u; j < N_PIECES; ++j) mmaMultiplyAdd(i, j);
    }
  }
}

void main() {
  uvec2 block = blockCoord();
  uint row0 = block.y * BM, col0 = block.x * BN;
  uint warp = gl_LocalInvocationIndex / 32u;
  warpRow = (warp / WARPS_N) * WM;
  warpCol = (warp % WARPS_N) * WN;
  chunked = problem.K % CHUNK == 0u && problem.N % CHUNK == 0u;
  mmaZeroAccumulators();
  uint kTiles = (problem.K + BK - 1u) / BK;

  // Prologue: K-tiles 0 .. RING_STAGES - 2 into their stages.
  for (uint t = 0u; t + 1u < RING_STAGES; ++t) {
    if (t < kTiles) {
      fetchKTile(row0, col0, t * BK);
      storeKTile(t);
    }
  }
  barrier();
  for (uint kTile = 0u; kTile < kTiles; ++kTile) {
    // K-tile kTile + RING_STAGES - 1 goes into the stage kTile - 1 used, which every warp
    // finished reading before the last barrier. Every invocation takes the same branch.
    uint incoming = kTile + RING_STAGES - 1u;
    if (incoming < kTiles) fetchKTile(row0, col0, incoming * BK);  // in flight during the multiplies
    multiplyKTile(kTile % RING_STAGES);
    if (incoming < kTiles) storeKTile(incoming % RING_STAGES);
    barrier();
  }

  [[unroll]] for (uint i = 0u; i < M_PIECES; ++i) {
    [[unroll]] for (uint j = 0u; j < N_PIECES; ++j) mmaStore(i, j, row0 + warpRow + i * MMA_PIECE, col0 + warpCol + j * MMA_PIECE);
  }
}
