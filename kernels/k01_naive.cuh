// K1 naive: one thread per output element, each walking a whole row of A and column of B.
// Neighbouring threads take neighbouring *rows* of C (row t % BM, column t / BM), so with BM = 16
// a warp covers 16 rows by 2 columns: at each k its loads of A hit 16 rows, 16 sectors, and its
// stores of C 16 rows, while B is read at 2 neighbouring addresses. The baseline to beat.
#pragma once

#include "parts/common.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads)
    k01_naive(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, kThreads = Row.tile.threads;
  static_assert(BM * BN == kThreads, "one thread per output of the block tile");
  const BlockTile<BM, BN> block(N);
  const int row = block.rowBase + static_cast<int>(threadIdx.x) % BM;
  const int col = block.colBase + static_cast<int>(threadIdx.x) / BM;
  if (row >= M || col >= N) return;
  float sum = 0.0f;
  for (int k = 0; k < K; ++k) sum = fmaf(A[row * K + k], B[k * N + col], sum);
  C[row * N + col] = sum;
}

}  // namespace tileskip::cuda
