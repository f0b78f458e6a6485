// The order in which a persistent skipping kernel's blocks take their block tiles: heaviest first.
// A tile's work is the K-blocks its gather lists, and on sparse operands that varies from tile to
// tile; taken in index order, the blocks that draw the last heavy tiles still run while the others
// have nothing left, and at joint density 0.06 a tenth of the multiprocessors' time went idle so
// (bench/NOTES.md step 35). Taken heaviest first, what is left at the end is the lightest work
// (the longest-processing-time-first rule of scheduling on parallel machines). Only a few levels
// of weight, each in index order: neighbouring tiles, which read the same panels of A and B, still
// run together, and a level's tiles are in the same order on every launch.
//
// Launched before the kernel, on the same patterns: a warp per block tile counts the K-blocks it
// will list (BlockPatternTiles::keptOfWord, what gatherKBlocks reads), and the last block to
// finish sorts the tiles into the queue's order (gemm_common.cuh). Its GLSL twin is
// shaders/tile_order.comp.
#pragma once

#include "skip_common.cuh"

namespace tileskip::cuda {

inline constexpr int kOrderThreads = 128;
inline constexpr int kOrderTilesPerBlock = kOrderThreads / 32;  // a warp each
inline constexpr int kOrderMaxLevels = 16;

template <int BM, int BN, int kARows, int kBCols>
__global__ void __launch_bounds__(kOrderThreads)
    orderBlockTiles(const std::uint8_t* __restrict__ aPattern, const std::uint8_t* __restrict__ bPattern, int M, int N,
                    int K, unsigned* queue, int levels) {
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;
  const int tiles = blockTileCount<BM, BN>(M, N);
  unsigned* const order = queue + kQueueOrder;
  unsigned* const listed = order + tiles;  // the scratch words: each tile's K-blocks listed
  __shared__ unsigned warpListed[kOrderTilesPerBlock];
  __shared__ unsigned levelTiles[kOrderMaxLevels][kOrderThreads];  // per level, the tiles of each thread's span
  __shared__ unsigned heaviest;
  __shared__ bool lastBlock;

  // Weigh tile blockIdx.x · kOrderTilesPerBlock + warp: a lane per pattern word, four K-blocks each.
  const int tile = static_cast<int>(blockIdx.x) * kOrderTilesPerBlock + warp;
  if (lane == 0) warpListed[warp] = 0u;
  __syncthreads();
  if (tile < tiles) {
    const BlockPatternTiles<BM, BN, kARows, kBCols> pattern(aPattern, bPattern, M, N, K, BlockTile<BM, BN>(N, tile));
    unsigned mine = 0u;
    for (int word = lane; 4 * word < pattern.kBlocks; word += 32) {
      const unsigned some = pattern.keptOfWord(word).some;  // 0 past K
#pragma unroll
      for (int b = 0; b < 4; ++b) mine += ((some >> (8 * b)) & 0xFFu) != 0u ? 1u : 0u;
    }
    if (mine > 0u) atomicAdd(&warpListed[warp], mine);
  }
  __syncthreads();
  if (tid == 0) {
    for (int w = 0; w < kOrderTilesPerBlock; ++w) {
      if (static_cast<int>(blockIdx.x) * kOrderTilesPerBlock + w < tiles) listed[blockIdx.x * kOrderTilesPerBlock + w] = warpListed[w];
    }
    __threadfence();  // the counts are visible before this block counts as done
    lastBlock = atomicAdd(&queue[kQueueWeighed], 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!lastBlock) return;
  __threadfence();  // every other block's counts are read after its done

  // The last block sorts: each thread takes a span of consecutive tiles, and a tile's level is
  // its share of the heaviest tile's count. Levels from the heaviest down, tiles of one level in
  // index order (a stable counting sort).
  const int span = (tiles + kOrderThreads - 1) / kOrderThreads;
  const int first = min(tiles, tid * span), end = min(tiles, first + span);
  if (tid == 0) heaviest = 0u;
  __syncthreads();
  unsigned mostListed = 0u;
  for (int t = first; t < end; ++t) mostListed = max(mostListed, listed[t]);
  atomicMax(&heaviest, mostListed);
  __syncthreads();
  auto levelOf = [&](int t) {
    return static_cast<int>(static_cast<unsigned long long>(listed[t]) * levels / (heaviest + 1u));
  };
  unsigned own[kOrderMaxLevels] = {};
  for (int t = first; t < end; ++t) ++own[levelOf(t)];
  for (int l = 0; l < levels; ++l) levelTiles[l][tid] = own[l];
  __syncthreads();
  // Inclusive prefix sums over the threads, each level (Hillis and Steele's scan).
  for (int stride = 1; stride < kOrderThreads; stride *= 2) {
    unsigned add[kOrderMaxLevels];
    for (int l = 0; l < levels; ++l) add[l] = tid >= stride ? levelTiles[l][tid - stride] : 0u;
    __syncthreads();
    for (int l = 0; l < levels; ++l) levelTiles[l][tid] += add[l];
    __syncthreads();
  }
  // This thread's first place in each level: after every heavier level's tiles and the level's
  // tiles of the threads before it.
  unsigned at[kOrderMaxLevels];
  unsigned heavier = 0u;
  for (int l = levels - 1; l >= 0; --l) {
    at[l] = heavier + levelTiles[l][tid] - own[l];
    heavier += levelTiles[l][kOrderThreads - 1];
  }
  for (int t = first; t < end; ++t) order[at[levelOf(t)]++] = static_cast<unsigned>(t);
  if (tid == 0) queue[kQueueWeighed] = 0u;  // for the next launch; its kernel starts after this one
}

}  // namespace tileskip::cuda
