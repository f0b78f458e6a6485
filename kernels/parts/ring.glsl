// The tensor-core kernels' stage ring, the twin of k13_mma.cuh's loadMmaKTile, MmaWarpTile and
// mmaRingMainLoop: the catalogue's ring of K-tiles, so that while the warps multiply one, the next
// ones are on their way. A K-tile is K_SLOTS K-blocks that need not be neighbours in K (K11's
// slots, pipeline.glsl): every K-block in order for K13, only those a block tile needs
// for S10 (block_skip.glsl); built with TILESKIP_GATHER_RING, a K-tile is BK gathered columns
// instead (S14, gather.glsl).
//
// Where the CUDA twin copies global to shared memory with cp.async, which GLSL does not have, a
// K-tile travels through registers, and the ones on their way wait there. The two halves of the
// workgroup take turns: K-tile t is fetched and stored by half t % 2, so a half fetches a K-tile at
// the top of one step and stores it at the end of the next, and issues no other load in between.
// That matters on NVIDIA's driver, which gives all of a warp's loads one scoreboard: a store that
// followed fresher loads of the same warp waited for those too (lab/25-vulkan-k13-driver), and with
// every warp fetching every step, each step waited for a whole load. So of the catalogue's ring of
// three K-tiles, shared memory holds two stages (RING_STAGES, the backend's glslRingStages): the
// one multiplied and the one the landing K-tile goes into, one fewer than the CUDA twin, which lets
// the driver run two K13 workgroups on an SM instead of one (lab/25-vulkan-k13-driver).
//
// A kernel that includes this file defines the two functions declared below, and enables
// GL_EXT_shader_explicit_arithmetic_types_float16 (an extension is the kernel's to declare).
#ifndef TILESKIP_PART_RING
#define TILESKIP_PART_RING
#include "common.glsl"

layout(constant_id = TILESKIP_SPEC_RING_STAGES) const uint RING_STAGES = 2;  // shared-memory stages of the ring, at least 2

// A and B as fp16 (made from the fp32 A and B by to_half.comp before the kernel runs, as the
// CUDA backend's prepare() makes its 16-bit copies); C is fp32.
layout(set = 0, binding = 6, std430) restrict readonly buffer MatrixAHalf { float16_t AH[]; };
layout(set = 0, binding = 6, std430) restrict readonly buffer MatrixAHalf8 { uvec4 AH8[]; };
layout(set = 0, binding = 7, std430) restrict readonly buffer MatrixBHalf { float16_t BH[]; };
layout(set = 0, binding = 7, std430) restrict readonly buffer MatrixBHalf8 { uvec4 BH8[]; };

// A stage: A's BM x BK tile and B's BK x BN tile, rows padded by one 16-byte chunk (PAD) so that
// the 16 rows a piece reads start in different banks (the CUDA twin's kMmaPad; the catalogue's
// KernelInfo::stageBytes). Offsets count fp16 elements; the stages are arrays of 16-byte chunks
// (eight fp16 values, the lower column in the lower half of each word), so that a chunk lands with
// one 16-byte store, as the CUDA twin's cp.async writes it (eight 16-bit stores were 2.5 % slower
// on the H200: lab/23-vulkan-ring). Every row and piece starts on a chunk.
const uint CHUNK = 8u;  // 16-bit elements per 16-byte copy: one K-block of a row of A
const uint PAD = 8u;
// A_BY_K: A's tile stored K-major, BK rows of BM values (the compaction kernels, whose K-tiles are
// gathered columns, rows of A transposed: gather.glsl; the CUDA twin's kAByK). The build defines
// TILESKIP_GATHER_RING for such a row (the catalogue's glslDefines).
#ifdef TILESKIP_GATHER_RING
const bool A_BY_K = true;
#else
const bool A_BY_K = false;
#endif
const uint A_STRIDE = A_BY_K ? BM + PAD : BK + PAD, B_STRIDE = BN + PAD;
const uint A_ELEMENTS = (A_BY_K ? BK : BM) * A_STRIDE, B_ELEMENTS = BK * B_STRIDE;
const uint WARPS_N = BN / WN;
const uint WARPS = (BM / WM) * WARPS_N;
const uint M_PIECES = WM / 16u, N_PIECES = WN / 16u;
const uint K_SLOTS = BK / K_BLOCK;  // K-blocks per K-tile
shared uvec4 stageA[RING_STAGES * A_ELEMENTS / CHUNK];
shared uvec4 stageB[RING_STAGES * B_ELEMENTS / CHUNK];
#include "mma.glsl"

// ---- What the including kernel defines.
#ifdef TILESKIP_GATHER_RING
// The column at position `index` of the schedule; -1 past its end.
int scheduledColumn(uint index);
#else
// The K-block at position `index` of the schedule; -1 past its end.
int scheduledKBlock(uint index);
#endif
// The warp's multiplies of K-tile `step` of the schedule, staged in `stage`.
void computeKTile(uint stage, uint step);

// A K-tile in flight: this invocation's chunks of A (chunk c: row c / K_SLOTS of the tile, the
// K-block of slot c % K_SLOTS) and of B (K-row c / (BN/8), its (c % (BN/8))-th 8 columns), as the
// CUDA twin's loadMmaKTile numbers them, c counted within the half of the workgroup whose turn it
// is (HALF invocations: whole warps, K13 and S10 having eight).
const uint B_CHUNKS_PER_ROW = BN / CHUNK;
const uint A_CHUNKS_PER_K_ROW = BM / CHUNK;  // A_BY_K: a gathered column's chunks
const uint HALF = THREADS / 2u;
const uint A_PASSES = (A_BY_K ? BK * A_CHUNKS_PER_K_ROW : BM * K_SLOTS) / HALF, B_PASSES = BK * B_CHUNKS_PER_ROW / HALF;
struct KTileChunks {
  uvec4 a[A_PASSES];
  uvec4 b[B_PASSES];
};
int fetchedKBlocks[K_SLOTS];  // the K-blocks of the K-tile being fetched; -1: an empty slot

// The K-block of slot `slot` of the K-tile in flight; a select, not a dynamic register index.
int fetchedKBlockOfSlot(uint slot) {
  int kBlock = -1;
  [[unroll]] for (uint s = 0u; s < K_SLOTS; ++s) {
    if (s == slot) kBlock = fetchedKBlocks[s];
  }
  return kBlock;
}

// 16-byte chunks where every row starts 16-byte aligned (K and N multiples of 8), each wholly
// inside or wholly outside the matrix; element by element otherwise. Zero outside the matrix
// and in an empty slot (kBlock < 0).
bool chunked;

uvec4 halvesAsChunk(float16_t h[8]) {
  return uvec4(packFloat2x16(f16vec2(h[0], h[1])), packFloat2x16(f16vec2(h[2], h[3])), packFloat2x16(f16vec2(h[4], h[5])),
               packFloat2x16(f16vec2(h[6], h[7])));
}

uvec4 fetchAChunk(uint row, int kBlock) {
  uint k = uint(kBlock) * K_BLOCK;
  if (kBlock < 0 || row >= problem.M) return uvec4(0u);
  if (chunked) return k < problem.K ? AH8[(row * problem.K + k) / CHUNK] : uvec4(0u);
  float16_t h[8];
  [[unroll]] for (uint e = 0u; e < CHUNK; ++e) h[e] = k + e < problem.K ? AH[row * problem.K + k + e] : float16_t(0.0);
  return halvesAsChunk(h);
}

uvec4 fetchBChunk(int kBlock, uint kInBlock, uint col) {
  uint k = uint(kBlock) * K_BLOCK + kInBlock;
  if (kBlock < 0 || k >= problem.K) return uvec4(0u);
  if (chunked) return col < problem.N ? BH8[(k * problem.N + col) / CHUNK] : uvec4(0u);
  float16_t h[8];
  [[unroll]] for (uint e = 0u; e < CHUNK; ++e) h[e] = col + e < problem.N ? BH[k * problem.N + col + e] : float16_t(0.0);
  return halvesAsChunk(h);
}

// Whether K-tile `step` is this invocation's half's to fetch and store: the same in a whole warp.
bool myTurn(uint step) { return gl_LocalInvocationIndex / HALF == step % 2u; }

#ifdef TILESKIP_GATHER_RING
// A_BY_K: the chunk at `row` of column `column`'s row of A transposed (K rows of
// transposedRowLength(), whole chunks, zeros past M); zeros past the row and for an empty place
// (column < 0). Chunked where B is (a row of A transposed always starts on a chunk).
uvec4 fetchGatheredAChunk(int column, uint row) {
  uint rowLength = transposedRowLength();
  if (column < 0 || row >= rowLength) return uvec4(0u);
  uint first = uint(column) * rowLength + row;
  if (chunked) return AH8[first / CHUNK];
  float16_t h[8];
  [[unroll]] for (uint e = 0u; e < CHUNK; ++e) h[e] = AH[first + e];
  return halvesAsChunk(h);
}

// Global loads of this half's chunks of K-tile `step` of gathered columns, into registers: A's
// chunk c is place c / (BM/8) of the K-tile, its (c % (BM/8))-th 8 rows; B's as in the K-block ring.
void fetchKTile(uint row0, uint col0, uint step, out KTileChunks tile) {
  [[unroll]] for (uint p = 0u; p < A_PASSES; ++p) {
    uint c = gl_LocalInvocationIndex % HALF + p * HALF;
    tile.a[p] = fetchGatheredAChunk(scheduledColumn(step * BK + c / A_CHUNKS_PER_K_ROW), row0 + (c % A_CHUNKS_PER_K_ROW) * CHUNK);
  }
  [[unroll]] for (uint p = 0u; p < B_PASSES; ++p) {
    uint c = gl_LocalInvocationIndex % HALF + p * HALF;
    int column = scheduledColumn(step * BK + c / B_CHUNKS_PER_ROW);
    tile.b[p] = fetchBChunk(column < 0 ? -1 : column / int(K_BLOCK), uint(max(column, 0)) % K_BLOCK,
                            col0 + (c % B_CHUNKS_PER_ROW) * CHUNK);
  }
}
#else
// Global loads of this half's chunks of K-tile `step` of the schedule, into registers.
void fetchKTile(uint row0, uint col0, uint step, out KTileChunks tile) {
  [[unroll]] for (uint s = 0u; s < K_SLOTS; ++s) fetchedKBlocks[s] = scheduledKBlock(step * K_SLOTS + s);
  [[unroll]] for (uint p = 0u; p < A_PASSES; ++p) {
    uint c = gl_LocalInvocationIndex % HALF + p * HALF;
    tile.a[p] = fetchAChunk(row0 + c / K_SLOTS, fetchedKBlockOfSlot(c % K_SLOTS));
  }
  [[unroll]] for (uint p = 0u; p < B_PASSES; ++p) {
    uint c = gl_LocalInvocationIndex % HALF + p * HALF;
    uint kk = c / B_CHUNKS_PER_ROW;
    tile.b[p] = fetchBChunk(fetchedKBlockOfSlot(kk / K_BLOCK), kk % K_BLOCK, col0 + (c % B_CHUNKS_PER_ROW) * CHUNK);
  }
}
#endif

// A chunk to stage element `at` (a multiple of CHUNK).
void storeChunk(bool toA, uint at, uvec4 chunk) {
  if (toA) {
    stageA[at / CHUNK] = chunk;
  } else {
    stageB[at / CHUNK] = chunk;
  }
}

// This half's chunks of a K-tile in registers into `stage` of the ring: slot s of A's rows at
// columns 8s .. 8s + 7.
void storeKTile(uint stage, KTileChunks tile) {
  [[unroll]] for (uint p = 0u; p < A_PASSES; ++p) {
    uint c = gl_LocalInvocationIndex % HALF + p * HALF;
    uint at = A_BY_K ? (c / A_CHUNKS_PER_K_ROW) * A_STRIDE + (c % A_CHUNKS_PER_K_ROW) * CHUNK
                     : (c / K_SLOTS) * A_STRIDE + (c % K_SLOTS) * CHUNK;
    storeChunk(true, stage * A_ELEMENTS + at, tile.a[p]);
  }
  [[unroll]] for (uint p = 0u; p < B_PASSES; ++p) {
    uint c = gl_LocalInvocationIndex % HALF + p * HALF;
    storeChunk(false, stage * B_ELEMENTS + (c / B_CHUNKS_PER_ROW) * B_STRIDE + (c % B_CHUNKS_PER_ROW) * CHUNK, tile.b[p]);
  }
}

// ---- The warp's tile (MmaWarpTile in the CUDA twin).
// Where warp `w` of the workgroup sits in the block tile: the one rule, for this warp and for
// code that works out every warp's share (S10's recordKeptSteps).
uint mmaWarpRow(uint w) { return (w / WARPS_N) * WM; }
uint mmaWarpCol(uint w) { return (w % WARPS_N) * WN; }

uint warpIndex, warpRow, warpCol;  // this warp, and its tile inside the block tile

void placeMmaWarp() {
  warpIndex = gl_LocalInvocationIndex / 32u;
  warpRow = mmaWarpRow(warpIndex);
  warpCol = mmaWarpCol(warpIndex);
}

// The warp's pieces of the 16 depths kk .. kk + 15 of `stage`: every piece of A with every one of B.
void multiplyStep(uint stage, uint kk) {
  [[unroll]] for (uint i = 0u; i < M_PIECES; ++i) {
    uint first = A_BY_K ? kk * A_STRIDE + warpRow + i * MMA_PIECE : (warpRow + i * MMA_PIECE) * A_STRIDE + kk;
    mmaLoadA(i, stage * A_ELEMENTS + first, A_STRIDE);
  }
  [[unroll]] for (uint j = 0u; j < N_PIECES; ++j) mmaLoadB(j, stage * B_ELEMENTS + kk * B_STRIDE + warpCol + j * MMA_PIECE, B_STRIDE);
  [[unroll]] for (uint i = 0u; i < M_PIECES; ++i) {
    [[unroll]] for (uint j = 0u; j < N_PIECES; ++j) mmaMultiplyAdd(i, j);
  }
}

// C passes through the A stages (mmaStore), so this comes after the ring's last barrier (the main
// loop ends on one), and a persistent kernel refills the stages only after the next barrier.
void storeMmaWarpTile(uint row0, uint col0) {
  [[unroll]] for (uint i = 0u; i < M_PIECES; ++i) {
    [[unroll]] for (uint j = 0u; j < N_PIECES; ++j) mmaStore(i, j, row0 + warpRow + i * MMA_PIECE, col0 + warpCol + j * MMA_PIECE);
  }
}

// One step of the ring: K-tile `step` is multiplied from its stage; K-tile step + RING_STAGES - 1,
// in the registers of the half whose turn it is since the last step, goes into the stage step - 1
// used, which every warp finished reading before the last barrier; the other half fetches the
// K-tile after it first, to land during these multiplies and the next step's. Every invocation
// meets the same barriers.
void mmaRingStep(uint row0, uint col0, uint steps, uint step, inout KTileChunks mine) {
  uint incoming = step + RING_STAGES - 1u;
  if (incoming + 1u < steps && myTurn(incoming + 1u)) fetchKTile(row0, col0, incoming + 1u, mine);
  computeKTile(step % RING_STAGES, step);
  if (incoming < steps && myTurn(incoming)) storeKTile(incoming % RING_STAGES, mine);
  barrier();
}

// The ring over `steps` K-tiles of the block tile at (row0, col0). `steps` is the same in every
// invocation of the workgroup, so every barrier is uniform. The last barrier also keeps a
// persistent kernel's next block tile from filling a stage a warp still reads.
void mmaRingMainLoop(uint row0, uint col0, uint steps) {
  chunked = (A_BY_K || problem.K % CHUNK == 0u) && problem.N % CHUNK == 0u;  // A transposed: padded rows
  KTileChunks mine;  // this half's chunks of its K-tile on the way
  // Prologue: K-tiles 0 .. RING_STAGES - 2 into their stages, K-tile RING_STAGES - 1 into registers.
  for (uint t = 0u; t + 1u < RING_STAGES; ++t) {
    if (t < steps && myTurn(t)) {
      fetchKTile(row0, col0, t, mine);
      storeKTile(t, mine);
    }
  }
  if (RING_STAGES - 1u < steps && myTurn(RING_STAGES - 1u)) fetchKTile(row0, col0, RING_STAGES - 1u, mine);
  barrier();
  for (uint step = 0u; step < steps; ++step) mmaRingStep(row0, col0, steps, step, mine);
}

#endif  // TILESKIP_PART_RING
