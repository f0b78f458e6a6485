// K4 blocktile1d: each thread computes a column of TM outputs. In the inner loop one value of
// B is read from shared memory into a register and reused TM times against TM values of A, so
// shared-memory traffic per multiply-add drops from 2 loads to (TM + 1) / TM.
#pragma once

#include "parts/common.cuh"

namespace tileskip::cuda {

// One block per SM asked for explicitly: left to itself (or asked for two) ptxas squeezes
// this kernel under 64 registers and spills its addresses to local memory.
template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads, 1)
    k04_blocktile1d(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, TM = Row.tile.TM, kThreads = Row.tile.threads;
  static_assert(BM * BN == kThreads * TM, "each thread owns TM outputs of one column");
  static_assert(BM * BK == kThreads && BK * BN == kThreads, "each thread loads one element of A and one of B");
  __shared__ float As[BM][BK];
  __shared__ float Bs[BK][BN];
  const BlockTile<BM, BN> block(N);
  const int tid = static_cast<int>(threadIdx.x);
  const int threadCol = tid % BN;        // a warp spans 32 columns: Bs reads are conflict-free
  const int threadRowGroup = tid / BN;   // and one row group: As reads are broadcasts

  float acc[TM] = {};
  for (int kBase = 0; kBase < K; kBase += BK) {
    const int aRow = block.rowBase + tid / BK, aK = kBase + tid % BK;
    const int bK = kBase + tid / BN, bCol = block.colBase + tid % BN;
    As[tid / BK][tid % BK] = (aRow < M && aK < K) ? A[aRow * K + aK] : 0.0f;
    Bs[tid / BN][tid % BN] = (bK < K && bCol < N) ? B[bK * N + bCol] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const float b = Bs[k][threadCol];
#pragma unroll
      for (int i = 0; i < TM; ++i) acc[i] = fmaf(As[threadRowGroup * TM + i][k], b, acc[i]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    storeScalar(C, M, N, block.rowBase + threadRowGroup * TM + i, block.colBase + threadCol, acc[i]);
  }
}

}  // namespace tileskip::cuda
