// S1 a-row: K6 with a skip. A thread's TM rows are exactly one A-pattern tile (asserted below),
// so each thread reads its own pattern byte and skips the rank-1 updates whose bit is clear.
// That is a per-thread decision: the row groups of a warp read different bytes, disagree,
// and the warp runs both paths one after the other (divergence), so little time is saved.
// Loads are not skipped either. The lesson of S2: make the decision warp-sized.
#pragma once

#include "parts/stage.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads)
    s01_a_row(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
              const std::uint8_t* __restrict__ aPattern, const std::uint8_t* __restrict__ /*bPattern*/,
              unsigned* /*tileQueue: one block per tile, blockIdx.x*/) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, TM = Row.tile.TM, TN = Row.tile.TN;
  constexpr int kThreads = Row.tile.threads, kAGranularity = Row.aGranularity;
  static_assert(BM * BN == kThreads * TM * TN, "each thread owns TM x TN outputs");
  static_assert(TM == kAGranularity, "a thread's rows are exactly one A-pattern tile");
  static_assert(BK == kKBlock, "one K-block per staged tile: the skip sits between the barriers, never across one");
  __shared__ __align__(16) float As[BK * transposedAStride<BM>()];
  __shared__ __align__(16) float Bs[BK * BN];
  const BlockTile<BM, BN> block(N);
  const int tid = static_cast<int>(threadIdx.x);
  VectorThreadTile<BM, BN, TM, TN> tile(tid);
  const int kBlocks = (K + kKBlock - 1) / kKBlock;
  const int aTiles = (M + kAGranularity - 1) / kAGranularity;
  const int rowTile = (block.rowBase + tile.firstRow()) / kAGranularity;

  for (int kBase = 0; kBase < K; kBase += BK) {
    const unsigned aBits = patternByte(aPattern, rowTile, aTiles, kBase / kKBlock, kBlocks);  // this thread's own
    loadATileTransposed<BM, BK, kThreads>(A, M, K, block.rowBase, kBase, As, ~0u, tid);
    loadBTile<BK, BN, kThreads>(B, K, N, kBase, block.colBase, Bs, ~0u, tid);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      if ((aBits >> k) & 1u) tile.rank1Update(As, Bs, k);  // divergent: lanes of a warp disagree
    }
    __syncthreads();
  }
  tile.store(C, M, N, block.rowBase, block.colBase);
}

}  // namespace tileskip::cuda
