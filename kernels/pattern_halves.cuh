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

// A: one warp per (row tile, kHalvesAKBlocks K-blocks); lane l reads K-block l of the warp's run
// down the tile's rows, kHalvesRowsInFlight rows at a time, and stops once all 8 bits are set.
inline constexpr int kHalvesAKBlocks = 32;
inline constexpr int kHalvesRowsInFlight = 8;

__global__ void buildAPatternFromHalves(const std::uint16_t* __restrict__ A, int M, int K, int aGranularity, int rowTiles,
                                        int kGroups, std::uint8_t* __restrict__ pattern) {
  const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (warp >= static_cast<long long>(rowTiles) * kGroups) return;
  const int tile = static_cast<int>(warp / kGroups);
  const int kBlocks = K / kKBlock;
  const int kBlock = static_cast<int>(warp % kGroups) * kHalvesAKBlocks + lane;
  if (kBlock >= kBlocks) return;  // no collectives below: lanes may leave alone
  const int firstRow = tile * aGranularity, endRow = min(firstRow + aGranularity, M);
  const uint4* blocks = reinterpret_cast<const uint4*>(A) + kBlock;  // row r's K-block: blocks[r * kBlocks]
  unsigned bits = 0u;
  for (int row = firstRow; row < endRow && bits != 0xFFu; row += kHalvesRowsInFlight) {
    uint4 values[kHalvesRowsInFlight];
#pragma unroll
    for (int r = 0; r < kHalvesRowsInFlight; ++r) {
      values[r] = row + r < endRow ? __ldg(blocks + static_cast<long long>(row + r) * kBlocks) : make_uint4(0u, 0u, 0u, 0u);
    }
#pragma unroll
    for (int r = 0; r < kHalvesRowsInFlight; ++r) bits |= nonZeroHalves(values[r]);
  }
  pattern[static_cast<long long>(tile) * kBlocks + kBlock] = static_cast<std::uint8_t>(bits);
}

// B: one warp per (256 columns, kHalvesBKBlocks K-blocks); lane l reads columns 8l .. 8l + 7 of
// the warp's span down the 8 rows of each K-block, and the kCols / 8 lanes of a column tile OR
// their bytes with shuffles.
inline constexpr int kHalvesBSpan = 32 * 8;
inline constexpr int kHalvesBKBlocks = 4;

template <int kCols>
__global__ void buildBPatternFromHalves(const std::uint16_t* __restrict__ B, int K, int N, int spans, int kGroups,
                                        std::uint8_t* __restrict__ pattern) {
  static_assert(kCols >= 8 && (kCols & (kCols - 1)) == 0 && kCols <= kHalvesBSpan, "a power of two of 8 to 256 columns");
  constexpr int kLanesPerTile = kCols / 8;
  const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (warp >= static_cast<long long>(spans) * kGroups) return;  // the whole warp leaves together
  const int kBlocks = K / kKBlock, firstKBlock = static_cast<int>(warp % kGroups) * kHalvesBKBlocks;
  const int col = static_cast<int>(warp / kGroups) * kHalvesBSpan + lane * 8;
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

// Whether the 16-bit builders take a problem of this shape (16-byte rows) at this B granularity.
inline bool halvesPatternShape(int k, int n, int bGranularity) {
  const bool bColumns = bGranularity == 8 || bGranularity == 16 || bGranularity == 32 || bGranularity == 64;
  return k % kKBlock == 0 && n % 8 == 0 && bColumns;
}

struct HalvesPatternGrid {
  int tilesOrSpans, kGroups;
  long long blocks;
};

inline HalvesPatternGrid aHalvesPatternGrid(int m, int k, int aGranularity) {
  HalvesPatternGrid grid;
  grid.tilesOrSpans = (m + aGranularity - 1) / aGranularity;
  grid.kGroups = (k / kKBlock + kHalvesAKBlocks - 1) / kHalvesAKBlocks;
  grid.blocks = patternWarpBlocks(grid.tilesOrSpans, grid.kGroups);
  return grid;
}

inline HalvesPatternGrid bHalvesPatternGrid(int k, int n) {
  HalvesPatternGrid grid;
  grid.tilesOrSpans = (n + kHalvesBSpan - 1) / kHalvesBSpan;
  grid.kGroups = (k / kKBlock + kHalvesBKBlocks - 1) / kHalvesBKBlocks;
  grid.blocks = patternWarpBlocks(grid.tilesOrSpans, grid.kGroups);
  return grid;
}

using BHalvesPatternKernel = void (*)(const std::uint16_t*, int, int, int, int, std::uint8_t*);

// The instantiation for a B granularity halvesPatternShape takes.
inline BHalvesPatternKernel bHalvesPatternKernel(int bGranularity) {
  switch (bGranularity) {
    case 8: return buildBPatternFromHalves<8>;
    case 16: return buildBPatternFromHalves<16>;
    case 32: return buildBPatternFromHalves<32>;
    case 64: return buildBPatternFromHalves<64>;
    default: return nullptr;
  }
}

}  // namespace tileskip::cuda
