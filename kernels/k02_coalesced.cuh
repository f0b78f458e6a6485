// K2 coalesced: the same work as K1, but neighbouring threads take neighbouring *columns* of
// C. A warp now reads one element of A (a broadcast) and consecutive elements of B, and writes
// consecutive elements of C, so each of its memory requests is a few full cache lines.
#pragma once

#include "parts/common.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads)
    k02_coalesced(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, kThreads = Row.tile.threads;
  static_assert(BM * BN == kThreads, "one thread per output of the block tile");
  const BlockTile<BM, BN> block(N);
  const int row = block.rowBase + static_cast<int>(threadIdx.x) / BN;
  const int col = block.colBase + static_cast<int>(threadIdx.x) % BN;
  if (row >= M || col >= N) return;
  float sum = 0.0f;
  for (int k = 0; k < K; ++k) sum = fmaf(A[row * K + k], B[k * N + col], sum);
  C[row * N + col] = sum;
}

}  // namespace tileskip::cuda
