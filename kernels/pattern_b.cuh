// The B-pattern on the device: bit j of byte (column tile t, K-block kb) is set iff some
// B[8 kb + j][c] != 0 for a column c of tile t (core/model/pattern.hpp). One warp covers 32 columns
// (or one tile of kCols > 32 columns) and kKBlocksPerWarp K-blocks: each lane reads its
// columns down the 8 rows of a K-block (coalesced along the row) and builds their byte, then
// the lanes of one tile OR their bytes with shuffles and the tile's first lane writes it.
#pragma once

#include <cstdint>

#include "parts/common.cuh"
#include "pattern_a.cuh"  // kPatternThreads, patternWarpBlocks

namespace tileskip::cuda {

inline constexpr int kPatternKBlocksPerWarp = 8;

template <int kCols>
__global__ void buildBPattern(const float* __restrict__ B, int K, int N, int colWarps, int kBlockGroups,
                              std::uint8_t* __restrict__ pattern) {
  static_assert(kCols > 0 && (kCols & (kCols - 1)) == 0 && kCols <= 64, "a power of two up to 64 columns");
  constexpr int kSpan = kCols > 32 ? kCols : 32;       // columns one warp covers
  constexpr int kLanesPerTile = kCols < 32 ? kCols : 32;
  const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (warp >= static_cast<long long>(colWarps) * kBlockGroups) return;  // the whole warp leaves together
  const int colWarp = static_cast<int>(warp / kBlockGroups);
  const int kBlockGroup = static_cast<int>(warp % kBlockGroups);
  const int kBlocks = (K + kKBlock - 1) / kKBlock;
  const int colTiles = (N + kCols - 1) / kCols;
  const int firstCol = colWarp * kSpan;
  const int tile = (firstCol + lane) / kCols;

  for (int g = 0; g < kPatternKBlocksPerWarp; ++g) {
    const int kBlock = kBlockGroup * kPatternKBlocksPerWarp + g;
    if (kBlock >= kBlocks) break;  // the same for every lane
    unsigned bits = 0u;
#pragma unroll
    for (int j = 0; j < kKBlock; ++j) {
      const int k = kBlock * kKBlock + j;
#pragma unroll
      for (int s = 0; s < kSpan / 32; ++s) {
        const int c = firstCol + s * 32 + lane;
        if (k < K && c < N && B[k * N + c] != 0.0f) bits |= 1u << j;
      }
    }
#pragma unroll
    for (int offset = kLanesPerTile / 2; offset > 0; offset /= 2) bits |= __shfl_xor_sync(0xFFFFFFFFu, bits, offset);
    if (lane % kLanesPerTile == 0 && tile < colTiles) pattern[tile * kBlocks + kBlock] = static_cast<std::uint8_t>(bits);
  }
}

using BPatternKernel = void (*)(const float*, int, int, int, int, std::uint8_t*);

// The instantiation of buildBPattern for a granularity and the launch it needs (blocks of
// kPatternThreads threads, from pattern_a.cuh); kernel is null for an unsupported granularity.
struct BPatternLaunch {
  BPatternKernel kernel = nullptr;
  int colWarps = 0, kBlockGroups = 0;
  long long blocks = 0;
};

template <int kCols>
BPatternLaunch bPatternLaunchAt(int k, int n) {
  constexpr int kSpan = kCols > 32 ? kCols : 32;
  BPatternLaunch launch;
  launch.kernel = buildBPattern<kCols>;
  launch.colWarps = (n + kSpan - 1) / kSpan;
  const int kBlocks = (k + kKBlock - 1) / kKBlock;
  launch.kBlockGroups = (kBlocks + kPatternKBlocksPerWarp - 1) / kPatternKBlocksPerWarp;
  launch.blocks = patternWarpBlocks(launch.colWarps, launch.kBlockGroups);
  return launch;
}

inline BPatternLaunch bPatternLaunch(int bGranularity, int k, int n) {
  switch (bGranularity) {
    case 8: return bPatternLaunchAt<8>(k, n);
    case 16: return bPatternLaunchAt<16>(k, n);
    case 32: return bPatternLaunchAt<32>(k, n);
    case 64: return bPatternLaunchAt<64>(k, n);
    default: return {};
  }
}

}  // namespace tileskip::cuda
