// K5 blocktile2d: each thread computes a TM x TN block of outputs. Per k it reads TM values of
// A and TN values of B from shared memory into registers and does TM * TN multiply-adds with
// them (an outer product), so TM + TN shared loads feed TM * TN FMAs. A thread's outputs are
// consecutive rows and columns (ThreadMapping::ThreadTile, threadOutputs() in
// core/model/tile_layout.hpp), as in the GLSL twin.
#pragma once

#include "parts/common.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads)
    k05_blocktile2d(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, TM = Row.tile.TM, TN = Row.tile.TN;
  constexpr int kThreads = Row.tile.threads;
  constexpr int kThreadCols = BN / TN;
  static_assert(BM * BN == kThreads * TM * TN, "each thread owns TM x TN outputs");
  static_assert((BM * BK) % kThreads == 0 && (BK * BN) % kThreads == 0, "the tiles split evenly over the threads");
  __shared__ float As[BM][BK];
  __shared__ float Bs[BK][BN];
  const BlockTile<BM, BN> block(N);
  const int tid = static_cast<int>(threadIdx.x);
  const int threadRow = tid / kThreadCols;  // rows threadRow * TM + i
  const int threadCol = tid % kThreadCols;  // columns threadCol * TN + j

  float acc[TM][TN] = {};
  float regM[TM], regN[TN];
  for (int kBase = 0; kBase < K; kBase += BK) {
#pragma unroll
    for (int i = 0; i < BM * BK / kThreads; ++i) {
      const int e = tid + i * kThreads, r = e / BK, c = e % BK;
      const int row = block.rowBase + r, k = kBase + c;
      As[r][c] = (row < M && k < K) ? A[row * K + k] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < BK * BN / kThreads; ++i) {
      const int e = tid + i * kThreads, r = e / BN, c = e % BN;
      const int k = kBase + r, col = block.colBase + c;
      Bs[r][c] = (k < K && col < N) ? B[k * N + col] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; ++i) regM[i] = As[threadRow * TM + i][k];
#pragma unroll
      for (int j = 0; j < TN; ++j) regN[j] = Bs[k][threadCol * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(regM[i], regN[j], acc[i][j]);
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      storeScalar(C, M, N, block.rowBase + threadRow * TM + i, block.colBase + threadCol * TN + j, acc[i][j]);
    }
  }
}

}  // namespace tileskip::cuda
