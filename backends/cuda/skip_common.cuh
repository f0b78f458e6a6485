// What the warp-uniform skipping kernels (K16, K21, K24, K29, K28) share: the main loop over
// staged K tiles, and the skip policy of a warp tile that is exactly one pattern tile.
//
// Two decisions, two scopes:
//  - the block decides whether to load (and compute) a K-block at all from the union of its
//    pattern tiles' bytes. Every thread reads the same bytes, so a skip that jumps over
//    __syncthreads() is taken by the whole block or by none of it (DESIGN.md: "uniform
//    enough?"); a per-warp vote there would be wrong.
//  - each warp decides which of the K-block's 8 rank-1 updates to do from its own pattern
//    tile's byte, which all 32 lanes read alike: a warp-uniform branch, no divergence.
// The union of the warps' joint bytes (a_i & b_j over the block's tiles) is exactly
// (union of a_i) & (union of b_j), so the block skips precisely the K-blocks no warp needs.
#pragma once

#include "gemm_common.cuh"
#include "k09_warptile.cuh"

namespace tileskip::cuda {

// Skip policy interface used by skippingMainLoop:
//   unsigned blockBits(int kBlock)  the K-block's bits that some warp of the block keeps
//   void updateKBlock(Tile&, As, Bs, int kOffset, int kBlock)  this warp's updates of it
template <int BM, int BN, int BK, int kThreads, class Tile, class Skip>
__device__ void skippingMainLoop(const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K,
                                 const BlockTile<BM, BN>& block, Tile& tile, const Skip& skip, float* As, float* Bs) {
  constexpr int kKBlocksPerStage = BK / kKBlock;
  static_assert(BK % kKBlock == 0, "a staged tile holds whole K-blocks");
  const int tid = static_cast<int>(threadIdx.x);
  for (int kBase = 0; kBase < K; kBase += BK) {
    const int firstKBlock = kBase / kKBlock;
    unsigned stageMask = 0;  // bit s: K-block firstKBlock + s is loaded and computed
#pragma unroll
    for (int s = 0; s < kKBlocksPerStage; ++s) {
      if (skip.blockBits(firstKBlock + s) != 0u) stageMask |= 1u << s;
    }
    if (stageMask == 0u) continue;  // block-uniform: jumps both barriers for every thread alike
    loadATileTransposed<BM, BK, kThreads>(A, M, K, block.rowBase, kBase, As, stageMask, tid);
    loadBTile<BK, BN, kThreads>(B, K, N, kBase, block.colBase, Bs, stageMask, tid);
    __syncthreads();
#pragma unroll
    for (int s = 0; s < kKBlocksPerStage; ++s) {
      if ((stageMask >> s) & 1u) skip.updateKBlock(tile, As, Bs, s * kKBlock, firstKBlock + s);
    }
    __syncthreads();
  }
}

// The skip of a warp tile that is exactly one A-pattern tile (WM rows) and/or one B-pattern
// tile (WN columns). kARows or kBCols is 0 for an operand the kernel does not inspect.
template <int BM, int BN, int WM, int WN, int kARows, int kBCols>
struct WarpTileSkip {
  static_assert(kARows == 0 || kARows == WM, "a warp's rows are one A-pattern tile: all lanes read one byte");
  static_assert(kBCols == 0 || kBCols == WN, "a warp's columns are one B-pattern tile: all lanes read one byte");
  static_assert(kARows > 0 || kBCols > 0, "a skipping kernel inspects at least one operand");

  const std::uint8_t* aPattern;  // null when A is not inspected (patternByte reads 0xFF)
  const std::uint8_t* bPattern;
  int aTiles, bTiles, kBlocks;
  int blockRowTile, blockColTile;  // the block's first pattern tiles
  int warpRowTile, warpColTile;    // this warp's pattern tiles

  template <class Tile>
  __device__ WarpTileSkip(const std::uint8_t* a, const std::uint8_t* b, int M, int N, int K,
                          const BlockTile<BM, BN>& block, const Tile& tile)
      : aPattern(kARows > 0 ? a : nullptr), bPattern(kBCols > 0 ? b : nullptr) {
    constexpr int rows = kARows > 0 ? kARows : BM, cols = kBCols > 0 ? kBCols : BN;
    aTiles = (M + rows - 1) / rows;
    bTiles = (N + cols - 1) / cols;
    kBlocks = (K + kKBlock - 1) / kKBlock;
    blockRowTile = block.rowBase / rows;
    blockColTile = block.colBase / cols;
    warpRowTile = (block.rowBase + tile.warpRow) / rows;
    warpColTile = (block.colBase + tile.warpCol) / cols;
  }

  __device__ unsigned blockBits(int kBlock) const {
    constexpr int rowTiles = kARows > 0 ? BM / kARows : 1, colTiles = kBCols > 0 ? BN / kBCols : 1;
    return patternUnion<rowTiles>(aPattern, blockRowTile, aTiles, kBlock, kBlocks) &
           patternUnion<colTiles>(bPattern, blockColTile, bTiles, kBlock, kBlocks);
  }

  template <class Tile>
  __device__ void updateKBlock(Tile& tile, const float* As, const float* Bs, int kOffset, int kBlock) const {
    const unsigned jointPattern = patternByte(aPattern, warpRowTile, aTiles, kBlock, kBlocks) &
                                  patternByte(bPattern, warpColTile, bTiles, kBlock, kBlocks);
    tile.rank1UpdatesOfKBlock(As, Bs, kOffset, jointPattern);
  }
};

// The whole kernel for a warp tile that is one pattern tile (K16, K21, K24, K29): K9's warp
// tiling with WarpTileSkip deciding what to load and compute.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kARows, int kBCols>
__device__ void warpTileSkipGemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                 int M, int N, int K, const std::uint8_t* __restrict__ aPattern,
                                 const std::uint8_t* __restrict__ bPattern) {
  __shared__ __align__(16) float As[BK * transposedAStride<BM>()];
  __shared__ __align__(16) float Bs[BK * BN];
  const BlockTile<BM, BN> block(N);
  WarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads> tile(static_cast<int>(threadIdx.x));
  const WarpTileSkip<BM, BN, WM, WN, kARows, kBCols> skip(aPattern, bPattern, M, N, K, block, tile);
  skippingMainLoop<BM, BN, BK, kThreads>(A, B, M, N, K, block, tile, skip, As, Bs);
  tile.store(C, M, N, block.rowBase, block.colBase);
}

}  // namespace tileskip::cuda
