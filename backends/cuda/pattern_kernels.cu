// Launchers of the pattern preprocessing kernels (pattern_a.cuh, pattern_b.cuh).
#include <limits>
#include <string>

#include "core/error.hpp"
#include "cuda_check.hpp"
#include "launch.hpp"
#include "pattern_a.cuh"
#include "pattern_b.cuh"

namespace tileskip::cuda {

namespace {

constexpr int kPatternThreads = 256;

unsigned blocksForWarps(long long warps) {
  const long long blocks = (warps * 32 + kPatternThreads - 1) / kPatternThreads;
  if (blocks > std::numeric_limits<int>::max()) throw InputError("problem too large for the pattern kernels");
  return static_cast<unsigned>(blocks);
}

}  // namespace

void launchAPattern(const float* a, int m, int k, int rowGranularity, std::uint8_t* pattern, cudaStream_t stream) {
  if (rowGranularity < 1) throw InputError("A-pattern granularity must be at least 1");
  const int rowTiles = (m + rowGranularity - 1) / rowGranularity;
  const int kChunks = (k + kPatternKChunk - 1) / kPatternKChunk;
  buildAPattern<<<blocksForWarps(static_cast<long long>(rowTiles) * kChunks), kPatternThreads, 0, stream>>>(
      a, m, k, rowGranularity, rowTiles, kChunks, pattern);
  checkLaunch("buildAPattern");
}

namespace {

template <int kCols>
void launchBPatternAt(const float* b, int k, int n, std::uint8_t* pattern, cudaStream_t stream) {
  constexpr int kSpan = kCols > 32 ? kCols : 32;
  const int colWarps = (n + kSpan - 1) / kSpan;
  const int kBlocks = (k + kKBlock - 1) / kKBlock;
  const int kBlockGroups = (kBlocks + kPatternKBlocksPerWarp - 1) / kPatternKBlocksPerWarp;
  buildBPattern<kCols><<<blocksForWarps(static_cast<long long>(colWarps) * kBlockGroups), kPatternThreads, 0, stream>>>(
      b, k, n, colWarps, kBlockGroups, pattern);
  checkLaunch("buildBPattern");
}

}  // namespace

void launchBPattern(const float* b, int k, int n, int colGranularity, std::uint8_t* pattern, cudaStream_t stream) {
  switch (colGranularity) {
    case 8: return launchBPatternAt<8>(b, k, n, pattern, stream);
    case 16: return launchBPatternAt<16>(b, k, n, pattern, stream);
    case 32: return launchBPatternAt<32>(b, k, n, pattern, stream);
    case 64: return launchBPatternAt<64>(b, k, n, pattern, stream);
    default:
      throw InputError("the cuda backend builds B-patterns at 8, 16, 32 or 64 columns, not " +
                       std::to_string(colGranularity));
  }
}

}  // namespace tileskip::cuda
