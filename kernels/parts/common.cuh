// Device helpers the tiled kernels share (the twin of the shaders' common include): where a
// block's tile lies, bounds-checked 128-bit tile loads into shared memory, bounds-checked
// stores of C, and reading skip-pattern bytes. Every load past M, N or K reads zero and every
// store past M or N is dropped, so the kernels take any M, N, K >= 1.
#pragma once

#include <cstdint>

#include "core/model/catalogue.hpp"  // kKBlock, kWarpLanes and the rows the kernels are built from

namespace tileskip::cuda {

// Blocks per multiprocessor that __launch_bounds__ asks register allocation to allow: two for
// 256-thread blocks (128 registers each), one for smaller blocks with large thread tiles.
template <int kThreads>
__host__ __device__ constexpr int minBlocksPerSM() {
  return kThreads >= 256 ? 2 : 1;
}

// Block tiles are numbered along one grid dimension, row tile by row tile (2^31 - 1 tiles, so
// any M and N whose C fits 32-bit indexing); neighbouring tiles share a row tile of A. A block
// works on tile blockIdx.x, or on the tiles it takes from a queue (persistent kernels).
template <int BM, int BN>
struct BlockTile {
  int rowBase, colBase;
  __device__ explicit BlockTile(int n, int index = static_cast<int>(blockIdx.x)) {
    const int colTiles = (n + BN - 1) / BN;
    rowBase = (index / colTiles) * BM;
    colBase = (index % colTiles) * BN;
  }
};

// The same tiles in groups of kGroupRows row tiles, column by column inside a group (K12):
// consecutive blocks, resident together, then cover a few row panels of A and a few column
// panels of B instead of one row panel of A and every column panel of B, so more of what they
// read is still in L2. kGroupRows = 1 is BlockTile's row-major order.
template <int BM, int BN>
__device__ BlockTile<BM, BN> groupedBlockTile(int m, int n, int index, int groupRows) {
  BlockTile<BM, BN> tile(n, index);
  if (groupRows > 1) {
    const int rowTiles = (m + BM - 1) / BM, colTiles = (n + BN - 1) / BN;
    const int group = index / (groupRows * colTiles), inGroup = index % (groupRows * colTiles);
    const int firstRow = group * groupRows;
    const int rows = min(groupRows, rowTiles - firstRow);
    tile.rowBase = (firstRow + inGroup % rows) * BM;
    tile.colBase = (inGroup / rows) * BN;
  }
  return tile;
}

template <int BM, int BN, int kGroupRows>
__device__ BlockTile<BM, BN> groupedBlockTile(int m, int n, int index = static_cast<int>(blockIdx.x)) {
  return groupedBlockTile<BM, BN>(m, n, index, kGroupRows);
}

template <int BM, int BN>
__host__ __device__ inline int blockTileCount(int m, int n) {
  return ((m + BM - 1) / BM) * ((n + BN - 1) / BN);
}

// A lane's 128-bit fragment read from shared memory, written as PTX so that the compiler's
// first stage keeps it where the source puts it: a warp tile loads depth k + 1's fragments
// before depth k's FMAs precisely so that the shared-load latency hides behind them. Written as
// plain C++, ptxas moved some of those loads down to a few FMAs before their first use (0 in
// K11's and K12's loops, where CUTLASS's kernel keeps 15 or more), and a warp stalled on each;
// as PTX in loop order, K12 runs 1.5-2 % faster (lab/12-shared-load-leads). Pinned loads cannot
// be moved to relieve registers, so a kernel already at the register limit (the one-warp
// skipping kernels) would spill more: K12 alone uses it. The emulator reads it plainly.
__device__ __forceinline__ float4 loadSharedQuad(const float* p) {
#if defined(__CUDA_ARCH__)
  float4 v;
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(address));
  return v;
#else
  return *reinterpret_cast<const float4*>(p);
#endif
}

// A 128-bit global read through the coherent path (PTX ld.global, SASS LDG.E.128), where a
// plain read of a const __restrict__ operand takes the read-only one (ld.global.nc,
// LDG.E.CONSTANT). ptxas keeps coherent loads after the __syncthreads() before them; the
// read-only ones it lifts above it and then sinks the barrier itself a hundred FMAs past the
// shared stores, so depth 0 of the next stage is read late and the warps wait on it. K12's
// interior loop reads through it (lab/29-barrier-placement: 0.92-0.93 of cuBLAS SGEMM against
// 0.89-0.90 with the read-only loads). The emulator reads plainly.
__device__ __forceinline__ float4 loadGlobalQuadInOrder(const float* p) {
#if defined(__CUDA_ARCH__)
  float4 v;
  asm("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
#else
  return *reinterpret_cast<const float4*>(p);
#endif
}

// A float4 read of 4 consecutive elements needs the row length to be a multiple of 4 (the
// buffers themselves are 256-byte aligned by cudaMalloc); otherwise the scalar path runs.
__device__ inline bool rowsAreVectorAligned(int rowLength) { return (rowLength & 3) == 0; }

// The length of a row of A transposed, the compaction kernels' copy of A: the core's
// transposedRowLength (catalogue.hpp, which says why rows are padded), callable on the device.
__host__ __device__ constexpr int transposedRowLength(int m) {
  return (m + kTransposedRowAlign - 1) / kTransposedRowAlign * kTransposedRowAlign;
}

// Elements [index, index + 4) of a row of length `rowLength`, where element `first` of the row
// sits at `index`; zero past the end of the row.
__device__ inline float4 loadRowQuad(const float* __restrict__ row, int first, int rowLength, bool vectorAligned) {
  float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (vectorAligned) return *reinterpret_cast<const float4*>(row + first);  // first + 4 <= rowLength
  if (first + 0 < rowLength) v.x = row[first + 0];
  if (first + 1 < rowLength) v.y = row[first + 1];
  if (first + 2 < rowLength) v.z = row[first + 2];
  if (first + 3 < rowLength) v.w = row[first + 3];
  return v;
}

// Stores 4 consecutive outputs C[row][col .. col+3]; `col` is a multiple of 4.
__device__ inline void storeQuad(float* __restrict__ C, int M, int N, int row, int col, float4 v) {
  if (row >= M || col >= N) return;
  float* out = C + row * N;
  if (rowsAreVectorAligned(N)) {
    *reinterpret_cast<float4*>(out + col) = v;
    return;
  }
  out[col] = v.x;
  if (col + 1 < N) out[col + 1] = v.y;
  if (col + 2 < N) out[col + 2] = v.z;
  if (col + 3 < N) out[col + 3] = v.w;
}

__device__ inline void storeScalar(float* __restrict__ C, int M, int N, int row, int col, float v) {
  if (row < M && col < N) C[row * N + col] = v;
}

// ---- skip patterns: one byte per (tile, K-block), tile-major, as core/model/pattern.hpp lays out ----

// The pattern byte of (tile, kBlock); 0 for a tile past M or N or a K-block past K, so the
// partial edges of a problem skip exactly what is not there. Without a branch: outside, it reads
// the pattern's first byte and drops it, so that a caller's several reads issue back to back
// instead of each behind a branch of its own (the gather reads six to twelve per K-block).
__device__ inline unsigned patternByte(const std::uint8_t* __restrict__ pattern, int tile, int tiles, int kBlock,
                                       int kBlocks) {
  if (pattern == nullptr) return 0xFFu;  // the operand is not inspected: nothing is skipped for it
  const bool inside = tile < tiles && kBlock < kBlocks;
  const unsigned byte = __ldg(pattern + (inside ? tile * kBlocks + kBlock : 0));
  return inside ? byte : 0u;
}

// What kCount consecutive tiles keep of one K-block, each byte read once: the bits some of them
// keeps (their OR) and the bits every one of them keeps (their AND).
struct PatternSpan {
  unsigned some, every;
};

// The span of kCount tiles whose bits `bitsOf(t)` reads, `all` being every bit of one read.
template <int kCount, class BitsOf>
__device__ PatternSpan spanOfTiles(unsigned all, BitsOf bitsOf) {
  PatternSpan span{0u, all};
#pragma unroll
  for (int t = 0; t < kCount; ++t) {
    const unsigned bits = bitsOf(t);
    span.some |= bits;
    span.every &= bits;
  }
  return span;
}

template <int kCount>
__device__ PatternSpan patternSpan(const std::uint8_t* __restrict__ pattern, int firstTile, int tiles, int kBlock,
                                   int kBlocks) {
  return spanOfTiles<kCount>(0xFFu, [&](int t) { return patternByte(pattern, firstTile + t, tiles, kBlock, kBlocks); });
}

// Whether every tile's bytes of a pattern start on a word: kBlocks a multiple of 4, and the
// buffer on a word (a pattern buffer is allocated on its own). The same for every thread.
__device__ inline bool patternTilesOnWords(const std::uint8_t* pattern, int kBlocks) {
  return kBlocks % 4 == 0 && (reinterpret_cast<std::uintptr_t>(pattern) & 3u) == 0u;
}

// How patternWord reads a tile's word: in four byte reads; in one 32-bit read, the caller having
// checked patternTilesOnWords; or choosing between the two at each read.
enum class WordRead { Bytes, OneRead, EachChecks };

// The bytes of K-blocks 4·word .. 4·word + 3 of a tile, K-block 4·word + b in byte b; 0 for a
// tile past M or N and for K-blocks past K, 0xFFFFFFFF for an operand not inspected.
template <WordRead kRead>
__device__ inline unsigned patternWord(const std::uint8_t* __restrict__ pattern, int tile, int tiles, int word,
                                       int kBlocks) {
  if (pattern == nullptr) return 0xFFFFFFFFu;
  if (kRead == WordRead::OneRead || (kRead == WordRead::EachChecks && patternTilesOnWords(pattern, kBlocks))) {
    const bool inside = tile < tiles && 4 * word < kBlocks;
    const unsigned bits = __ldg(reinterpret_cast<const unsigned*>(pattern) + (inside ? tile * (kBlocks / 4) + word : 0));
    return inside ? bits : 0u;
  }
  unsigned bits = 0u;
#pragma unroll
  for (int b = 0; b < 4; ++b) bits |= patternByte(pattern, tile, tiles, 4 * word + b, kBlocks) << (8 * b);
  return bits;
}

// patternSpan of four K-blocks at once: byte b of `some` and `every` is K-block 4·word + b's.
template <int kCount, WordRead kRead>
__device__ PatternSpan patternWordSpan(const std::uint8_t* __restrict__ pattern, int firstTile, int tiles, int word,
                                       int kBlocks) {
  return spanOfTiles<kCount>(0xFFFFFFFFu,
                             [&](int t) { return patternWord<kRead>(pattern, firstTile + t, tiles, word, kBlocks); });
}

// OR of kCount consecutive tiles' bytes: the K-block bits any of them keeps.
template <int kCount>
__device__ unsigned patternUnion(const std::uint8_t* __restrict__ pattern, int firstTile, int tiles, int kBlock,
                                 int kBlocks) {
  return patternSpan<kCount>(pattern, firstTile, tiles, kBlock, kBlocks).some;
}

}  // namespace tileskip::cuda
