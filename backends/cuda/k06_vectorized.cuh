// K6 vectorized: K5's 2-D register blocking with 128-bit memory operations. Global loads of A
// and B move 4 floats each; A is stored transposed (As[k][m]), so a thread's TM values of A
// for one k are consecutive and come in as TM / 4 shared loads of 128 bits, like its values
// of B. A thread's outputs are K5's: TM consecutive rows by TN consecutive columns
// (ThreadMapping::ThreadTile), read and stored as quads.
#pragma once

#include "gemm_common.cuh"

namespace tileskip::cuda {

// One thread's TM x TN outputs by ThreadMapping::ThreadTile (threadOutputs() in
// core/model/tile_layout.hpp): TM consecutive rows, TN consecutive columns, threads along N. S1 and
// S3 share it, so their per-thread pattern tiles are the thread's own rows or columns.
template <int BM, int BN, int TM, int TN>
struct VectorThreadTile {
  static constexpr int kThreadCols = BN / TN;
  static constexpr int kQuads = TN / 4;
  static_assert(TM % 4 == 0 && TN % 4 == 0, "rows and columns are read as 128-bit quads");

  int threadRow, threadCol;
  float acc[TM][TN] = {};

  __device__ explicit VectorThreadTile(int tid) : threadRow(tid / kThreadCols), threadCol(tid % kThreadCols) {}

  __device__ int firstRow() const { return threadRow * TM; }
  __device__ int firstCol() const { return threadCol * TN; }

  // acc += (column k of the A tile) x (row k of the B tile), for this thread's outputs.
  __device__ void rank1Update(const float* As, const float* Bs, int k) {
    float regM[TM], regN[TN];
#pragma unroll
    for (int i = 0; i < TM; i += 4) {
      const float4 a = *reinterpret_cast<const float4*>(As + k * transposedAStride<BM>() + threadRow * TM + i);
      regM[i] = a.x, regM[i + 1] = a.y, regM[i + 2] = a.z, regM[i + 3] = a.w;
    }
#pragma unroll
    for (int q = 0; q < kQuads; ++q) {
      const float4 b = *reinterpret_cast<const float4*>(Bs + k * BN + threadCol * TN + 4 * q);
      regN[4 * q] = b.x, regN[4 * q + 1] = b.y, regN[4 * q + 2] = b.z, regN[4 * q + 3] = b.w;
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(regM[i], regN[j], acc[i][j]);
    }
  }

  __device__ void store(float* C, int M, int N, int rowBase, int colBase) const {
#pragma unroll
    for (int i = 0; i < TM; ++i) {
#pragma unroll
      for (int q = 0; q < kQuads; ++q) {
        storeQuad(C, M, N, rowBase + threadRow * TM + i, colBase + threadCol * TN + 4 * q,
                  make_float4(acc[i][4 * q], acc[i][4 * q + 1], acc[i][4 * q + 2], acc[i][4 * q + 3]));
      }
    }
  }
};

template <int BM, int BN, int BK, int TM, int TN, int kThreads>
__global__ void __launch_bounds__(kThreads)
    vectorized(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
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
