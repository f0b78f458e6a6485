// The A- and B-patterns of a 16-bit problem, built from the fp16 / bf16 copies the tensor-core
// kernels read (the same bits pattern_a.cuh and pattern_b.cuh build from the fp32 values, which
// hold the same rounded numbers): half the bytes to read, and every read 16 bytes wide, so a
// pattern costs about the time to read its operand once. A 16-byte read is 8 values: for A (M x K,
// row-major) one row's K-block, for B (K x N) 8 columns of one K row. So both need rows that start
// on 16 bytes: K % 8 == 0 for A, N % 8 == 0 for B; other shapes use the fp32 builders.
//
// CUDA only: Vulkan's fp16 problems build their patterns from the fp32 values (pattern_a.comp,
// pattern_b.comp), as its tensor-core kernels are not the ones whose preparation this saves.
#pragma once

#include <cstdint>

#include "parts/common.cuh"
#include "pattern_a.cuh"  // kPatternThreads, patternWarpBlocks

namespace tileskip::cuda {

// Bit j set where value j of the 8 in `v` is not zero (NaN counts, -0 does not: the fp32
// builders' `!= 0.0f`). The low half of each word is the earlier value in memory.
__device__ __forceinline__ unsigned nonZeroPair(unsigned word) {
  return ((word & 0x7FFFu) != 0u ? 1u : 0u) | ((word & 0x7FFF0000u) != 0u ? 2u : 0u);
}
// Written out word by word: the same as a loop over an array of the four words, built by GCC 12
// at -Og with the sanitizers (the emulator's sanitizer build), indexed the array out of bounds.
__device__ __forceinline__ unsigned nonZeroHalves(uint4 v) {
  return nonZeroPair(v.x) | nonZeroPair(v.y) << 2 | nonZeroPair(v.z) << 4 | nonZeroPair(v.w) << 6;
}

// Both operands' patterns come from one launch (buildPatternsFromHalves): its first blocks build
// A's, the rest B's, so neither waits for the other and no second launch starts. Each warp issues
// all its reads at once where it can (one round trip to memory, not a chain of them), and the grid
// holds enough warps to keep the bytes in flight that HBM needs: one warp per row tile of A, or
// per four K-blocks of B, ran both builders at half of HBM's bandwidth.
inline constexpr int kHalvesAKBlocks = 32;     // K-blocks of one A block: lane l reads the l-th
inline constexpr int kHalvesRowsInFlight = 8;  // rows a warp reads at once
inline constexpr int kHalvesWarps = kPatternThreads / 32;

// A: one block per (run of kHalvesAKBlocks K-blocks, kHalvesWarps / slices row tiles): the
// `slices` warps of a row tile take its rows in turn (warp s rows s, s + slices, ...), lane l
// reading K-block l of the run, kHalvesRowsInFlight rows at a time until all 8 bits are set; the
// slices' bytes meet in shared memory. A tile of 8 · kHalvesWarps rows or fewer is one round of
// reads for each warp.
struct HalvesAShape {
  int rowTiles, kGroups, slices;
  long long blocks;
};

inline HalvesAShape halvesAShape(int m, int k, int aGranularity) {
  HalvesAShape shape;
  shape.rowTiles = (m + aGranularity - 1) / aGranularity;
  shape.kGroups = (k / kKBlock + kHalvesAKBlocks - 1) / kHalvesAKBlocks;
  shape.slices = 1;  // a power of two up to kHalvesWarps: warps per row tile
  while (shape.slices < kHalvesWarps && shape.slices * kHalvesRowsInFlight < aGranularity) shape.slices *= 2;
  const long long tilesPerBlock = kHalvesWarps / shape.slices;
  shape.blocks = (static_cast<long long>(shape.rowTiles) + tilesPerBlock - 1) / tilesPerBlock * shape.kGroups;
  return shape;
}

__device__ __forceinline__ void aPatternBlock(const std::uint16_t* __restrict__ A, int M, int K, int aGranularity,
                                              HalvesAShape shape, long long block, std::uint8_t (*sliceBits)[32],
                                              std::uint8_t* __restrict__ pattern) {
  const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
  const int tilesPerBlock = kHalvesWarps / shape.slices;
  const int tile = static_cast<int>(block / shape.kGroups) * tilesPerBlock + warp / shape.slices;
  const int slice = warp % shape.slices;
  const int kBlocks = K / kKBlock;
  const int kBlock = static_cast<int>(block % shape.kGroups) * kHalvesAKBlocks + lane;
  unsigned bits = 0u;
  if (tile < shape.rowTiles && kBlock < kBlocks) {
    const int endRow = min((tile + 1) * aGranularity, M);
    const uint4* blocks = reinterpret_cast<const uint4*>(A) + kBlock;  // row r's K-block: blocks[r * kBlocks]
    for (int row = tile * aGranularity + slice; row < endRow && bits != 0xFFu; row += kHalvesRowsInFlight * shape.slices) {
      uint4 values[kHalvesRowsInFlight];
#pragma unroll
      for (int r = 0; r < kHalvesRowsInFlight; ++r) {
        const int at = row + r * shape.slices;
        values[r] = at < endRow ? __ldg(blocks + static_cast<long long>(at) * kBlocks) : make_uint4(0u, 0u, 0u, 0u);
      }
#pragma unroll
      for (int r = 0; r < kHalvesRowsInFlight; ++r) bits |= nonZeroHalves(values[r]);
    }
  }
  sliceBits[warp][lane] = static_cast<std::uint8_t>(bits);
  __syncthreads();
  if (slice == 0 && tile < shape.rowTiles && kBlock < kBlocks) {
    for (int s = 1; s < shape.slices; ++s) bits |= sliceBits[warp + s][lane];
    pattern[static_cast<long long>(tile) * kBlocks + kBlock] = static_cast<std::uint8_t>(bits);
  }
}

// B: one warp per (kHalvesBSpan columns, kHalvesBKBlocks K-blocks); lane l reads columns 8l ..
// 8l + 7 of the warp's span down the 8 rows of each K-block, and the kCols / 8 lanes of a column
// tile OR their bytes with shuffles.
inline constexpr int kHalvesBSpan = 32 * 8;
inline constexpr int kHalvesBKBlocks = 1;

struct HalvesBShape {
  int spans, kGroups;
  long long blocks;
};

inline HalvesBShape halvesBShape(int k, int n) {
  HalvesBShape shape;
  shape.spans = (n + kHalvesBSpan - 1) / kHalvesBSpan;
  shape.kGroups = (k / kKBlock + kHalvesBKBlocks - 1) / kHalvesBKBlocks;
  shape.blocks = patternWarpBlocks(shape.spans, shape.kGroups);
  return shape;
}

template <int kCols>
__device__ __forceinline__ void bPatternWarp(const std::uint16_t* __restrict__ B, int K, int N, HalvesBShape shape,
                                             long long block, std::uint8_t* __restrict__ pattern) {
  static_assert(kCols >= 8 && (kCols & (kCols - 1)) == 0 && kCols <= kHalvesBSpan, "a power of two of 8 to 256 columns");
  constexpr int kLanesPerTile = kCols / 8;
  const long long warp = (block * kPatternThreads + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (warp >= static_cast<long long>(shape.spans) * shape.kGroups) return;  // the whole warp leaves together
  const int kBlocks = K / kKBlock, firstKBlock = static_cast<int>(warp % shape.kGroups) * kHalvesBKBlocks;
  const int col = static_cast<int>(warp / shape.kGroups) * kHalvesBSpan + lane * 8;
  const int rowWords = N / 8;  // 16-byte words in a row of B
  const uint4* words = reinterpret_cast<const uint4*>(B) + col / 8;  // row k's: words[k * rowWords]
  for (int kBlock = firstKBlock; kBlock < min(firstKBlock + kHalvesBKBlocks, kBlocks); ++kBlock) {  // the same for every lane
    uint4 values[kKBlock];
#pragma unroll
    for (int j = 0; j < kKBlock; ++j) {
      values[j] = col < N ? __ldg(words + static_cast<long long>(kBlock * kKBlock + j) * rowWords) : make_uint4(0u, 0u, 0u, 0u);
    }
    unsigned bits = 0u;
#pragma unroll
    for (int j = 0; j < kKBlock; ++j) bits |= (nonZeroHalves(values[j]) != 0u ? 1u : 0u) << j;
#pragma unroll
    for (int offset = kLanesPerTile / 2; offset > 0; offset /= 2) bits |= __shfl_xor_sync(0xFFFFFFFFu, bits, offset);
    if (lane % kLanesPerTile == 0 && col < N) pattern[static_cast<long long>(col / kCols) * kBlocks + kBlock] = static_cast<std::uint8_t>(bits);
  }
}

// The grid of one launch for both patterns: A's blocks, then B's; a null pattern has no blocks.
struct HalvesPatternGrid {
  HalvesAShape a;
  HalvesBShape b;
  long long aBlocks, bBlocks;
  long long blocks() const { return aBlocks + bBlocks; }
};

inline HalvesPatternGrid halvesPatternGrid(int m, int k, int n, int aGranularity, bool aPattern, bool bPattern) {
  HalvesPatternGrid grid;
  // No A-pattern (a row that inspects B alone, aGranularity 0): no A blocks, and no shape to divide by.
  grid.a = aPattern ? halvesAShape(m, k, aGranularity) : HalvesAShape{0, 0, 1, 0};
  grid.b = halvesBShape(k, n);
  grid.aBlocks = aPattern ? grid.a.blocks : 0;
  grid.bBlocks = bPattern ? grid.b.blocks : 0;
  return grid;
}

// Blocks of kPatternThreads threads. The branch is uniform over a block, so A's __syncthreads
// is reached by all of its threads.
template <int kCols>
__global__ void buildPatternsFromHalves(const std::uint16_t* __restrict__ A, const std::uint16_t* __restrict__ B, int M,
                                        int K, int N, int aGranularity, HalvesPatternGrid grid,
                                        std::uint8_t* __restrict__ aPattern, std::uint8_t* __restrict__ bPattern) {
  __shared__ std::uint8_t sliceBits[kHalvesWarps][32];  // A's: each warp's 32 bytes
  const long long block = blockIdx.x;
  if (block < grid.aBlocks) {
    aPatternBlock(A, M, K, aGranularity, grid.a, block, sliceBits, aPattern);
  } else {
    bPatternWarp<kCols>(B, K, N, grid.b, block - grid.aBlocks, bPattern);
  }
}

// Whether the 16-bit builders take a problem of this shape (16-byte rows) at this B granularity.
inline bool halvesPatternShape(int k, int n, int bGranularity) {
  const bool bColumns = bGranularity == 8 || bGranularity == 16 || bGranularity == 32 || bGranularity == 64;
  return k % kKBlock == 0 && n % 8 == 0 && bColumns;
}

using HalvesPatternKernel = void (*)(const std::uint16_t*, const std::uint16_t*, int, int, int, int, HalvesPatternGrid,
                                     std::uint8_t*, std::uint8_t*);

// The instantiation for a B granularity halvesPatternShape takes (any of them where B has no pattern).
inline HalvesPatternKernel halvesPatternKernel(int bGranularity) {
  switch (bGranularity) {
    case 8: return buildPatternsFromHalves<8>;
    case 16: return buildPatternsFromHalves<16>;
    case 32: return buildPatternsFromHalves<32>;
    case 64: return buildPatternsFromHalves<64>;
    default: return nullptr;
  }
}

}  // namespace tileskip::cuda
