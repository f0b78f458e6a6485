// K6 vectorized: K5's 2-D register blocking with 128-bit memory operations. Global loads of A
// and B move 4 floats each; A is stored transposed (As[k][m]), so a thread's TM values of A
// for one k are consecutive and come in as TM / 4 shared loads of 128 bits, like its values
// of B. A thread's outputs are K5's: TM consecutive rows by TN consecutive columns
// (ThreadMapping::ThreadTile), read and stored as quads.
#pragma once

#include "parts/stage.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads)
    k06_vectorized(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, TM = Row.tile.TM, TN = Row.tile.TN;
  constexpr int kThreads = Row.tile.threads;
  static_assert(BM * BN == kThreads * TM * TN, "each thread owns TM x TN outputs");
  __shared__ __align__(16) float As[BK * transposedAStride<BM>()];
  __shared__ __align__(16) float Bs[BK * BN];
  const BlockTile<BM, BN> block(N);
  const int tid = static_cast<int>(threadIdx.x);
  VectorThreadTile<BM, BN, TM, TN> tile(tid);

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
