// The warp-uniform SIMT skipping kernels, S2 and S4 to S9: one source, each catalogue row a variant
// of it that differs only in its tile and its pattern tiles. Each warp sub-tile lies inside one
// A-pattern and one B-pattern tile, so every lane of a warp reads the same pattern bytes while it
// works on a sub-tile and a skip is a warp-uniform branch: no divergence, unlike S1 and S3. The
// rows say what each variant teaches by its shape (tileskip list, docs/teaching.md): A or B alone
// (S2, S4), both at coarser or finer pattern tiles (S5 to S7), a block of one warp whose K-block
// list is its own (S8, S9).
//
// A persistent block takes block tiles from `tileQueue` (parts/block_skip.cuh); for each it gathers
// the K-blocks the tile needs, then runs K12's loop over them (parts/warp_skip.cuh's
// hoistedListLoop) with SubTileSkip deciding each warp's updates of the K-blocks that are not whole.
// A tile with nothing to skip gathers every K-block, each marked whole, so its loop reads no
// pattern byte: K12's, but for the K offset each K-tile looks up. (The list loop, not K12's own
// loop beside it: with both, the kernels spilled 600-750 bytes at 255 registers; and no scan of the
// pattern before the gather to find such tiles: in joint-64x32 at joint density 0.06 that scan
// took 5 % of the warps' samples.) The next tile is asked for before the C store (askBlockTile).
// The catalogue's kBlockList is the K-blocks listed per pass; longer K is walked in passes, the
// accumulators carrying over.
#pragma once

#include "parts/warp_skip.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads, minBlocksPerSM<Row.tile.threads>())
    warp_uniform_skip(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
                      const std::uint8_t* __restrict__ aPattern, const std::uint8_t* __restrict__ bPattern,
                      unsigned* tileQueue) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, WM = Row.tile.WM, WN = Row.tile.WN;
  constexpr int TM = Row.tile.TM, TN = Row.tile.TN, kThreads = Row.tile.threads;
  constexpr int kList = Row.structure.kBlockList;
  using Tile = HoistedWarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads>;
  using Skip = SubTileSkip<BM, BN, Row.aGranularity, Row.bGranularity, Tile>;
  using Staged = HoistedKTile<BM, BN, BK, kThreads>;
  // K11's thread tile (TM = 8) where the warp tile takes it: the dense tiles of a kernel whose own
  // sub-tiles are finer (S7's 8-row walk) then run at K12's speed, not at its own. Only such a
  // kernel scans a tile's pattern first (keepsEverything), to pick the lane arrangement.
  constexpr int kDenseTM = WM % (4 * 8) == 0 ? 8 : TM;
  using DenseTile = HoistedWarpTile<BM, BN, BK, WM, WN, kDenseTM, TN, kThreads>;
  __shared__ __align__(16) float stages[2 * stageFloats<BM, BN, BK>()];
  __shared__ int kBlockList[kList];
  __shared__ int warpTotals[kThreads / 32];
  __shared__ int takenTile;
  const int tid = static_cast<int>(threadIdx.x);
  const int tiles = blockTileCount<BM, BN>(M, N);
  for (int index = takeBlockTile(tileQueue, &takenTile); index < tiles;) {
    const BlockTile<BM, BN> block(N, index);
    const Skip skip(aPattern, bPattern, M, N, K, block, Tile(tid));
    Staged staged(A, B, M, N, K, block, tid);
    if constexpr (kDenseTM != TM) {
      if (skip.template keepsEverything<kThreads>(K)) {  // in K11's lane arrangement (DenseTile)
        DenseTile denseTile(tid);
        walkKBlocks<true, kThreads, kList>(skip, denseTile, staged, stages, kBlockList, warpTotals);
        const unsigned asked = askBlockTile(tileQueue);
        denseTile.store(C, M, N, block.rowBase, block.colBase);
        index = passBlockTile(asked, &takenTile);
        continue;
      }
    }
    Tile tile(tid);
    walkKBlocks<false, kThreads, kList>(skip, tile, staged, stages, kBlockList, warpTotals);
    const unsigned asked = askBlockTile(tileQueue);
    tile.store(C, M, N, block.rowBase, block.colBase);
    index = passBlockTile(asked, &takenTile);
  }
  leaveBlockTileQueue(tileQueue);
}

}  // namespace tileskip::cuda
