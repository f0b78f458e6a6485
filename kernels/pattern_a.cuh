// The A-pattern on the device: bit j of byte (row tile t, K-block kb) is set iff some
// A[r][8 kb + j] != 0 for a row r of tile t (core/model/pattern.hpp). One warp builds the 4 bytes of
// one row tile and 32 consecutive K indices: lane l watches K index 32 c + l down the tile's
// rows (each row is one coalesced 128-byte read for the warp), and a ballot packs the 32
// answers into a word whose 4 bytes are exactly the 4 pattern bytes.
#pragma once

#include <cstdint>

#include "parts/common.cuh"

namespace tileskip::cuda {

inline constexpr int kPatternKChunk = 32;  // K indices per warp: 4 K-blocks

__global__ void buildAPattern(const float* __restrict__ A, int M, int K, int aGranularity, int rowTiles,
                              int kChunks, std::uint8_t* __restrict__ pattern) {
  const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (warp >= static_cast<long long>(rowTiles) * kChunks) return;  // the whole warp leaves together
  const int tile = static_cast<int>(warp / kChunks);
  const int chunk = static_cast<int>(warp % kChunks);
  const int k = chunk * kPatternKChunk + lane;
  const int firstRow = tile * aGranularity;
  const int endRow = min(firstRow + aGranularity, M);

  bool nonZero = false;
  if (k < K) {
    // Eight rows' loads in flight at once (one dependent load per row would leave the warp
    // waiting on memory latency 64 times per tile), stopping after the first group with a
    // non-zero (NaN counts, as on the host): a dense A costs one group of reads.
    constexpr int kRowsInFlight = 8;
    for (int row = firstRow; row < endRow && !nonZero; row += kRowsInFlight) {
      float values[kRowsInFlight];
#pragma unroll
      for (int r = 0; r < kRowsInFlight; ++r) values[r] = row + r < endRow ? __ldg(A + (row + r) * K + k) : 0.0f;
#pragma unroll
      for (int r = 0; r < kRowsInFlight; ++r) nonZero = nonZero || values[r] != 0.0f;
    }
  }
  const unsigned bits = __ballot_sync(0xFFFFFFFFu, nonZero);  // bit l: K index 32 c + l
  const int kBlocks = (K + kKBlock - 1) / kKBlock;
  const int kBlock = chunk * (kPatternKChunk / kKBlock) + lane;
  if (lane < kPatternKChunk / kKBlock && kBlock < kBlocks) {
    pattern[tile * kBlocks + kBlock] = static_cast<std::uint8_t>(bits >> (kKBlock * lane));
  }
}

// One warp per (row tile, kPatternKChunk K indices), in blocks of kPatternThreads threads.
inline constexpr int kPatternThreads = 256;

// The blocks of kPatternThreads threads that hold `tiles` x `kGroups` warps, one warp each: every
// pattern builder's grid.
inline long long patternWarpBlocks(long long tiles, long long kGroups) {
  return (tiles * kGroups * 32 + kPatternThreads - 1) / kPatternThreads;
}

struct APatternGrid {
  int rowTiles, kChunks;
  long long blocks;
};

inline APatternGrid aPatternGrid(int m, int k, int aGranularity) {
  APatternGrid grid;
  grid.rowTiles = (m + aGranularity - 1) / aGranularity;
  grid.kChunks = (k + kPatternKChunk - 1) / kPatternKChunk;
  grid.blocks = patternWarpBlocks(grid.rowTiles, grid.kChunks);
  return grid;
}

}  // namespace tileskip::cuda
