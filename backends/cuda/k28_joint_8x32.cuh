// K28 joint-8x32: the joint skip with the A-pattern at 8 rows, four times finer than K29. A
// 32 x 32 warp tile now holds four A-pattern tiles, so one byte per warp would no longer be
// uniform. Instead the warp walks its tile in sub-tiles of exactly 8 rows (TM = 2: 4
// thread-rows x 2 rows, WSUBM = 8): while it works on sub-tile wm all 32 lanes are in the same
// 8-row pattern tile and read the same byte, so each check stays warp-uniform.
#pragma once

#include "k09_warptile.cuh"
#include "skip_common.cuh"

namespace tileskip::cuda {

// The skip of a warp whose sub-tile rows (WSUBM) are each one A-pattern tile and whose
// columns (WN) are one B-pattern tile.
template <int BM, int BN, int kARows, int kBCols, class Tile>
struct SubTileRowSkip {
  static constexpr int WMITER = Tile::WMITER;
  static_assert(Tile::WSUBM == kARows, "a sub-tile's rows are one A-pattern tile: all lanes read one byte");
  static_assert(Tile::WMITER * Tile::WSUBM <= BM && BN % kBCols == 0, "pattern tiles cover the block tile");

  const std::uint8_t* aPattern;
  const std::uint8_t* bPattern;
  int aTiles, bTiles, kBlocks;
  int blockRowTile, blockColTile;
  int warpRowTile, warpColTile;  // the warp's first 8-row tile (sub-tile wm is warpRowTile + wm)

  __device__ SubTileRowSkip(const std::uint8_t* a, const std::uint8_t* b, int M, int N, int K,
                            const BlockTile<BM, BN>& block, const Tile& tile)
      : aPattern(a), bPattern(b) {
    aTiles = (M + kARows - 1) / kARows;
    bTiles = (N + kBCols - 1) / kBCols;
    kBlocks = (K + kKBlock - 1) / kKBlock;
    blockRowTile = block.rowBase / kARows;
    blockColTile = block.colBase / kBCols;
    warpRowTile = (block.rowBase + tile.warpRow) / kARows;
    warpColTile = (block.colBase + tile.warpCol) / kBCols;
  }

  __device__ unsigned blockBits(int kBlock) const {
    return patternUnion<BM / kARows>(aPattern, blockRowTile, aTiles, kBlock, kBlocks) &
           patternUnion<BN / kBCols>(bPattern, blockColTile, bTiles, kBlock, kBlocks);
  }

  __device__ void updateKBlock(Tile& tile, const float* As, const float* Bs, int kOffset, int kBlock) const {
    const unsigned bBits = patternByte(bPattern, warpColTile, bTiles, kBlock, kBlocks);
    unsigned jointPattern[WMITER];  // per sub-tile row: uniform across the warp
    unsigned anyRow = 0u, everyRow = 0xFFu;
#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm) {
      jointPattern[wm] = patternByte(aPattern, warpRowTile + wm, aTiles, kBlock, kBlocks) & bBits;
      anyRow |= jointPattern[wm];
      everyRow &= jointPattern[wm];
    }
    if (everyRow == 0xFFu) {  // dense K-block for the whole warp: K9's straight-line updates
      tile.rank1UpdatesOfKBlock(As, Bs, kOffset, 0xFFu);
      return;
    }
#pragma unroll
    for (int k = 0; k < kKBlock; ++k) {
      if (((anyRow >> k) & 1u) == 0u) continue;
      float regN[Tile::WNITER * Tile::kTN];
      tile.loadRegN(Bs, kOffset + k, regN);  // B's values serve every sub-tile row that keeps k
#pragma unroll
      for (int wm = 0; wm < WMITER; ++wm) {
        if ((jointPattern[wm] >> k) & 1u) tile.updateSubTileRow(As, kOffset + k, wm, regN);
      }
    }
  }
};

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kARows, int kBCols>
__global__ void __launch_bounds__(kThreads)
    joint8x32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
              const std::uint8_t* __restrict__ aPattern, const std::uint8_t* __restrict__ bPattern) {
  using Tile = WarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads>;
  static_assert(kBCols == WN, "a warp's columns are one B-pattern tile");
  __shared__ __align__(16) float As[BK * transposedAStride<BM>()];
  __shared__ __align__(16) float Bs[BK * BN];
  const BlockTile<BM, BN> block(N);
  Tile tile(static_cast<int>(threadIdx.x));
  const SubTileRowSkip<BM, BN, kARows, kBCols, Tile> skip(aPattern, bPattern, M, N, K, block, tile);
  skippingMainLoop<BM, BN, BK, kThreads>(A, B, M, N, K, block, tile, skip, As, Bs);
  tile.store(C, M, N, block.rowBase, block.colBase);
}

}  // namespace tileskip::cuda
