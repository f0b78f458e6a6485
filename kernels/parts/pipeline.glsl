// K11's double-buffered main loop (the twin of pipeline.cuh). Shared memory
// holds two stages; while the warps compute on one, the next K-tile is already on its way from
// global memory into registers (fetchKTile) and is written to the other stage afterwards
// (storeKTile). One barrier per K-tile remains, and the latency of the global loads hides
// behind the FMAs instead of stalling every warp.
//
// The K-tiles are named by the K-blocks they hold (a "schedule"), every K-block in order for K11,
// so that a K-tile's K-blocks need not be neighbours (the skipping kernels walk their gathered
// lists in K12's loop instead: warp_skip.glsl). A kernel that includes this file defines the
// four functions declared below; they take the place of the CUDA twin's schedule, prepare and
// compute arguments.
#ifndef TILESKIP_PART_PIPELINE
#define TILESKIP_PART_PIPELINE
// Two stages: the one the warps compute on and the one the next K-tile is written to.
#define TILESKIP_STAGES 2u
#include "warptile.glsl"

// Switches for tuning on a GPU without a rebuild (as in warptile.glsl; docs/vulkan.md):
// STORE_BEFORE_COMPUTE: the K-tile in flight is written to the other stage as soon as it is
// fetched, before the FMAs, so it holds no registers while they run; its loads' latency is then
// exposed (their waits sit before the FMAs) instead of hidden.
layout(constant_id = TILESKIP_SPEC_STORE_BEFORE_COMPUTE) const bool STORE_BEFORE_COMPUTE = false;
// FETCH_EVERY_STEP: no branch around the fetch and store; the last step fetches an empty K-tile
// (all slots -1: no loads, zeros stored into a stage nobody reads), so the loop body is one
// straight block for the compiler to schedule.
layout(constant_id = TILESKIP_SPEC_FETCH_EVERY_STEP) const bool FETCH_EVERY_STEP = true;

const uint K_SLOTS = BK / K_BLOCK;  // K-blocks per K-tile; they need not be neighbours in K
const uint A_QUADS_PER_ROW = BK / 4u, B_QUADS_PER_ROW = BN / 4u;
const uint A_QUADS = BM * A_QUADS_PER_ROW / THREADS;  // vec4 of A per invocation and K-tile
const uint B_QUADS = BK * B_QUADS_PER_ROW / THREADS;  // (the backend checks they split evenly)

// The K-tile in flight, in registers between its global loads and its shared stores.
vec4 stagedA[A_QUADS];
vec4 stagedB[B_QUADS];
// The K-blocks of the K-tile the warps compute and of the one in flight; -1: an empty slot.
int kBlocks[K_SLOTS];
int nextKBlocks[K_SLOTS];

// ---- What the including kernel defines.
// The K-block at position `index` of the schedule; -1 past its end.
int scheduledKBlock(uint index);
// What the warps need to know about the K-tile in flight (nextKBlocks) beyond its data: the
// skipping kernels' pattern bits. It runs one step ahead, beside the global loads, so its
// latency hides too.
void prepareKTile();
// The prepared K-tile becomes the current one.
void advanceKTile();
// The warp's rank-1 updates of the current K-tile, staged at depths depth0 .. depth0 + BK - 1.
void computeKTile(uint depth0);

// The K-block of slot `slot` of the K-tile in flight; a select, not a dynamic register index.
int nextKBlockOfSlot(uint slot) {
  if (K_SLOTS == 1u) return nextKBlocks[0];
  int kBlock = -1;
  [[unroll]] for (uint s = 0u; s < K_SLOTS; ++s) {
    if (s == slot) kBlock = nextKBlocks[s];
  }
  return kBlock;
}

// Global loads of the K-tile whose slots hold nextKBlocks: zero outside the matrices and in
// empty slots. Nothing waits for them here; storeKTile consumes them after the FMAs.
// With aligned rows the vector index is row·(lda / 4) + k / 4, both exact: a product and a sum
// the compiler can strength-reduce, not a shift of a sum.
void fetchKTile(uint row0, uint col0) {
  bool alignedA = aRowsAreVectorAligned(), alignedB = bRowsAreVectorAligned();
  uint aRowVectors = problem.lda / 4u, bRowVectors = problem.ldb / 4u;
  [[unroll]] for (uint i = 0u; i < A_QUADS; ++i) {
    uint quad = gl_LocalInvocationIndex + i * THREADS;
    uint m = quad / A_QUADS_PER_ROW, kq = (quad % A_QUADS_PER_ROW) * 4u;
    int kBlock = nextKBlockOfSlot(kq / K_BLOCK);
    uint row = row0 + m, k = uint(kBlock) * K_BLOCK + kq % K_BLOCK;
    stagedA[i] = vec4(0.0);
    if (kBlock >= 0 && row < problem.M && k < problem.K) {
      stagedA[i] = alignedA ? A4[row * aRowVectors + k / 4u] : loadA4(row, k);
    }
  }
  [[unroll]] for (uint i = 0u; i < B_QUADS; ++i) {
    uint quad = gl_LocalInvocationIndex + i * THREADS;
    uint kk = quad / B_QUADS_PER_ROW, nq = (quad % B_QUADS_PER_ROW) * 4u;
    int kBlock = nextKBlockOfSlot(kk / K_BLOCK);
    uint k = uint(kBlock) * K_BLOCK + kk % K_BLOCK, col = col0 + nq;
    stagedB[i] = vec4(0.0);
    if (kBlock >= 0 && k < problem.K && col < problem.N) {
      stagedB[i] = alignedB ? B4[k * bRowVectors + col / 4u] : loadB4(k, col);
    }
  }
}

// Writes the K-tile in flight into stage `stage`: A transposed (As[k][m], stride A_STRIDE), B
// row-major with vector stores. With the catalogue's 128 x 8 A tile, the two invocations of a
// row write 4·A_STRIDE floats apart, 16 banks: a warp's 32 scalar stores hit 32 banks.
void storeKTile(uint stage) {
  [[unroll]] for (uint i = 0u; i < A_QUADS; ++i) {
    uint quad = gl_LocalInvocationIndex + i * THREADS;
    uint m = quad / A_QUADS_PER_ROW, kq = (quad % A_QUADS_PER_ROW) * 4u;
    uint at = (stage * BK + kq) * A_STRIDE + m;
    [[unroll]] for (uint c = 0u; c < 4u; ++c) storeSharedA(at + c * A_STRIDE, stagedA[i][c]);
  }
  [[unroll]] for (uint i = 0u; i < B_QUADS; ++i) {
    uint quad = gl_LocalInvocationIndex + i * THREADS;
    uint kk = quad / B_QUADS_PER_ROW;
    Bs[(stage * BK + kk) * B_ROW_VECTORS + quad % B_QUADS_PER_ROW] = stagedB[i];
  }
}

void scheduleKTile(uint step) {
  [[unroll]] for (uint s = 0u; s < K_SLOTS; ++s) nextKBlocks[s] = scheduledKBlock(step * K_SLOTS + s);
}

void advanceSchedule() {
  [[unroll]] for (uint s = 0u; s < K_SLOTS; ++s) kBlocks[s] = nextKBlocks[s];
  advanceKTile();
}

// The double-buffered loop over `steps` K-tiles of the block tile at (row0, col0). `steps` is
// the same in every invocation of the workgroup, so the single barrier per step is uniform.
// Stage s is read in step i and rewritten in step i + 1 only after the barrier that ends step
// i, so one barrier per step is enough (with STORE_BEFORE_COMPUTE too: the rewrite still
// follows that barrier).
void pipelinedMainLoop(uint row0, uint col0, uint steps) {
  if (steps == 0u) return;
  scheduleKTile(0u);
  fetchKTile(row0, col0);
  prepareKTile();
  storeKTile(0u);
  advanceSchedule();
  barrier();
  for (uint step = 0u; step < steps; ++step) {
    uint current = step & 1u;
    bool more = FETCH_EVERY_STEP || step + 1u < steps;
    if (more) {  // in flight while the FMAs below run
      scheduleKTile(step + 1u);
      fetchKTile(row0, col0);
      prepareKTile();
      if (STORE_BEFORE_COMPUTE) storeKTile(current ^ 1u);
    }
    computeKTile(current * BK);
    if (more) {
      if (!STORE_BEFORE_COMPUTE) storeKTile(current ^ 1u);
      advanceSchedule();
    }
    barrier();
  }
}

#endif  // TILESKIP_PART_PIPELINE
