// S3 b-group8: S1's per-thread skip along N. A thread's TN columns are exactly one B-pattern
// tile (asserted below), so it reads its own byte of the B-pattern; neighbouring threads own
// neighbouring column groups, disagree wherever B's zero segments are narrower than a warp's
// columns, and the warp diverges, as in S1. The thread layout is K6's (VectorThreadTile), as
// in the GLSL twin. The lesson of S4: decide per warp's columns.
#pragma once

#include "parts/stage.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads)
    s03_b_group8(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
                 const std::uint8_t* __restrict__ /*aPattern*/, const std::uint8_t* __restrict__ bPattern,
                 unsigned* /*tileQueue: one block per tile, blockIdx.x*/) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, TM = Row.tile.TM, TN = Row.tile.TN;
  constexpr int kThreads = Row.tile.threads, kBGranularity = Row.bGranularity;
  static_assert(BM * BN == kThreads * TM * TN, "each thread owns TM x TN outputs");
  static_assert(TN == kBGranularity, "a thread's columns are exactly one B-pattern tile");
  static_assert(BK == kKBlock, "one K-block per staged tile: the skip sits between the barriers, never across one");
  __shared__ __align__(16) float As[BK * transposedAStride<BM>()];
  __shared__ __align__(16) float Bs[BK * BN];
  const BlockTile<BM, BN> block(N);
  const int tid = static_cast<int>(threadIdx.x);
  VectorThreadTile<BM, BN, TM, TN> tile(tid);
  const int kBlocks = (K + kKBlock - 1) / kKBlock;
  const int bTiles = (N + kBGranularity - 1) / kBGranularity;
  const int colTile = (block.colBase + tile.firstCol()) / kBGranularity;

  for (int kBase = 0; kBase < K; kBase += BK) {
    const unsigned bBits = patternByte(bPattern, colTile, bTiles, kBase / kKBlock, kBlocks);  // this thread's own
    loadATileTransposed<BM, BK, kThreads>(A, M, K, block.rowBase, kBase, As, ~0u, tid);
    loadBTile<BK, BN, kThreads>(B, K, N, kBase, block.colBase, Bs, ~0u, tid);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      if ((bBits >> k) & 1u) tile.rank1Update(As, Bs, k);  // divergent: lanes of a warp disagree
    }
    __syncthreads();
  }
  tile.store(C, M, N, block.rowBase, block.colBase);
}

}  // namespace tileskip::cuda
