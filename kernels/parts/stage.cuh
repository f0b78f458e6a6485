// Shared-memory staging with 128-bit loads, from K6 (vectorized) on (the twin of stage.glsl): a BM x BK
// tile of A stored transposed, As[k][m], its rows padded so the transposing stores spread over the
// banks and every row stays 16-byte aligned, beside a BK x BN tile of B; and the thread tile of
// ThreadMapping::ThreadTile that reads them as vectors.
#pragma once

#include "common.cuh"

namespace tileskip::cuda {

// The transposed A tile is stored As[k][m] with this many floats of padding per k-row: the
// 4 scalar stores of one float4 then spread over two bank groups instead of one, and the
// rows stay 16-byte aligned for the 128-bit reads of the inner loop.
inline constexpr int kAPad = 4;

template <int BM>
__host__ __device__ constexpr int transposedAStride() {
  return BM + kAPad;
}

// Floats of one shared-memory stage (A transposed and padded, then B).
template <int BM, int BN, int BK>
__host__ __device__ constexpr int stageFloats() {
  return BK * transposedAStride<BM>() + BK * BN;
}

// Loads the BM x BK tile of A at (rowBase, kBase) into As[k][m] (transposed, stride BM + kAPad)
// with one 128-bit global load per 4 elements of a row. K-blocks whose bit in `kBlockMask` is
// clear are not loaded (their shared memory is stale, and no warp of the block reads it).
template <int BM, int BK, int kThreads>
__device__ void loadATileTransposed(const float* __restrict__ A, int M, int K, int rowBase, int kBase, float* As,
                                    unsigned kBlockMask, int tid) {
  constexpr int kQuadsPerRow = BK / 4;
  constexpr int kQuads = BM * kQuadsPerRow;
  static_assert(BK % kKBlock == 0 && kQuads % kThreads == 0, "the A tile must split evenly into 128-bit loads");
  const bool aligned = rowsAreVectorAligned(K);
#pragma unroll
  for (int i = 0; i < kQuads / kThreads; ++i) {
    const int quad = tid + i * kThreads;
    const int m = quad / kQuadsPerRow;
    const int kq = (quad % kQuadsPerRow) * 4;
    if (((kBlockMask >> (kq / kKBlock)) & 1u) == 0) continue;
    const int row = rowBase + m, k = kBase + kq;
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (row < M && k < K) v = loadRowQuad(A + row * K, k, K, aligned);
    float* column = As + kq * transposedAStride<BM>() + m;
    column[0 * transposedAStride<BM>()] = v.x;
    column[1 * transposedAStride<BM>()] = v.y;
    column[2 * transposedAStride<BM>()] = v.z;
    column[3 * transposedAStride<BM>()] = v.w;
  }
}

// Loads the BK x BN tile of B at (kBase, colBase) into Bs[k][n] (row-major, stride BN) with
// 128-bit loads and 128-bit shared stores; `kBlockMask` as for A.
template <int BK, int BN, int kThreads>
__device__ void loadBTile(const float* __restrict__ B, int K, int N, int kBase, int colBase, float* Bs,
                          unsigned kBlockMask, int tid) {
  constexpr int kQuadsPerRow = BN / 4;
  constexpr int kQuads = BK * kQuadsPerRow;
  static_assert(BN % 4 == 0 && kQuads % kThreads == 0, "the B tile must split evenly into 128-bit loads");
  const bool aligned = rowsAreVectorAligned(N);
#pragma unroll
  for (int i = 0; i < kQuads / kThreads; ++i) {
    const int quad = tid + i * kThreads;
    const int kk = quad / kQuadsPerRow;
    const int nq = (quad % kQuadsPerRow) * 4;
    if (((kBlockMask >> (kk / kKBlock)) & 1u) == 0) continue;
    const int k = kBase + kk, col = colBase + nq;
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (k < K && col < N) v = loadRowQuad(B + k * N, col, N, aligned);
    *reinterpret_cast<float4*>(Bs + kk * BN + nq) = v;
  }
}

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

}  // namespace tileskip::cuda
