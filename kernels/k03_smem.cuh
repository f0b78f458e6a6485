// K3 smem: the block stages a BM x BK tile of A and a BK x BN tile of B in shared memory, one
// element per thread, and every thread then reads its row and column from there. Each global
// load now feeds BK (32) multiply-adds instead of one.
#pragma once

#include "parts/common.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads)
    k03_smem(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, kThreads = Row.tile.threads;
  static_assert(BM * BN == kThreads && BM == BK && BN == BK, "one thread per element of each square tile");
  __shared__ float As[BM][BK];
  __shared__ float Bs[BK][BN];
  const BlockTile<BM, BN> block(N);
  // threadCol runs fastest, so a warp reads consecutive elements of a row of A, of B and of
  // Bs (no bank conflicts), and one element of As (a broadcast).
  const int threadRow = static_cast<int>(threadIdx.x) / BN;
  const int threadCol = static_cast<int>(threadIdx.x) % BN;
  const int row = block.rowBase + threadRow, col = block.colBase + threadCol;

  float sum = 0.0f;
  for (int kBase = 0; kBase < K; kBase += BK) {
    const int kA = kBase + threadCol, kB = kBase + threadRow;
    As[threadRow][threadCol] = (row < M && kA < K) ? A[row * K + kA] : 0.0f;
    Bs[threadRow][threadCol] = (kB < K && col < N) ? B[kB * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) sum = fmaf(As[threadRow][k], Bs[k][threadCol], sum);
    __syncthreads();
  }
  storeScalar(C, M, N, row, col, sum);
}

}  // namespace tileskip::cuda
