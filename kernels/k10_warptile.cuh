// K10 warptile: a third level of tiling between the block and the thread.
// Each warp owns a WM x WN tile of the block's outputs; its 32 lanes form 4 thread-rows x 8
// thread-columns and step over that tile in sub-tiles of (4 TM) x (8 TN), each lane computing
// TM x TN outputs per sub-tile. A warp's shared reads then touch only its own slice of As and
// Bs (4 and 8 distinct 128-bit addresses per k: no bank conflicts), and warp-sized tiles are
// what the skipping kernels need: a pattern tile the size of a warp's tile (or sub-tile) is a
// decision every lane shares.
#pragma once

#include "parts/warptile.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads)
    k10_warptile(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, WM = Row.tile.WM, WN = Row.tile.WN;
  constexpr int TM = Row.tile.TM, TN = Row.tile.TN, kThreads = Row.tile.threads;
  __shared__ __align__(16) float As[BK * transposedAStride<BM>()];
  __shared__ __align__(16) float Bs[BK * BN];
  const BlockTile<BM, BN> block(N);
  const int tid = static_cast<int>(threadIdx.x);
  WarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads> tile(tid);

  for (int kBase = 0; kBase < K; kBase += BK) {
    loadATileTransposed<BM, BK, kThreads>(A, M, K, block.rowBase, kBase, As, ~0u, tid);
    loadBTile<BK, BN, kThreads>(B, K, N, kBase, block.colBase, Bs, ~0u, tid);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) tile.rank1Update(As, Bs, k);
    __syncthreads();
  }
  tile.store(C, M, N, block.rowBase, block.colBase);
}

}  // namespace tileskip::cuda
