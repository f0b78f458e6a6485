// Launchers of the pattern preprocessing kernels (pattern_a.cuh, pattern_b.cuh, pattern_halves.cuh).
#include <limits>
#include <string>

#include "core/model/error.hpp"
#include "cuda_check.hpp"
#include "launch.hpp"
#include "kernels/pattern_a.cuh"
#include "kernels/pattern_b.cuh"
#include "kernels/pattern_halves.cuh"

namespace tileskip::cuda {

namespace {

dim3 patternBlocks(long long blocks) {
  if (blocks > std::numeric_limits<int>::max()) throw InputError("problem too large for the pattern kernels");
  return dim3(static_cast<unsigned>(blocks));
}

}  // namespace

void launchAPattern(const float* a, int m, int k, int aGranularity, std::uint8_t* pattern, cudaStream_t stream) {
  if (aGranularity < 1) throw InputError("A-pattern granularity must be at least 1");
  const APatternGrid grid = aPatternGrid(m, k, aGranularity);
  buildAPattern<<<patternBlocks(grid.blocks), kPatternThreads, 0, stream>>>(a, m, k, aGranularity, grid.rowTiles,
                                                                            grid.kChunks, pattern);
  checkLaunch("buildAPattern");
}

void launchBPattern(const float* b, int k, int n, int bGranularity, std::uint8_t* pattern, cudaStream_t stream) {
  const BPatternLaunch launch = bPatternLaunch(bGranularity, k, n);
  if (launch.kernel == nullptr) {
    throw InputError("the cuda backend builds B-patterns at 8, 16, 32 or 64 columns, not " +
                     std::to_string(bGranularity));
  }
  launch.kernel<<<patternBlocks(launch.blocks), kPatternThreads, 0, stream>>>(b, k, n, launch.colWarps,
                                                                              launch.kBlockGroups, pattern);
  checkLaunch("buildBPattern");
}

bool launchPatternsFromHalves(const std::uint16_t* aHalf, const std::uint16_t* bHalf, int m, int k, int n, int aGranularity,
                              int bGranularity, std::uint8_t* aPattern, std::uint8_t* bPattern, cudaStream_t stream) {
  if (bPattern == nullptr) bGranularity = 8;  // any instantiation: B's blocks are none
  if (!halvesPatternShape(k, n, bGranularity)) return false;
  if (aPattern != nullptr && aGranularity < 1) throw InputError("A-pattern granularity must be at least 1");
  const HalvesPatternGrid grid = halvesPatternGrid(m, k, n, aGranularity, aPattern != nullptr, bPattern != nullptr);
  if (grid.blocks() == 0) return true;
  halvesPatternKernel(bGranularity)<<<patternBlocks(grid.blocks()), kPatternThreads, 0, stream>>>(aHalf, bHalf, m, k, n, aGranularity,
                                                                                                 grid, aPattern, bPattern);
  checkLaunch("buildPatternsFromHalves");
  return true;
}

}  // namespace tileskip::cuda
