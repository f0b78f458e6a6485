// K18 b-group8: K10's per-thread skip along N. A thread's TN = 8 columns are exactly one
// B-pattern tile of 8 columns, so it reads its own byte of the B-pattern; the two column
// groups in a warp disagree and the warp diverges, as in K10. To keep a thread's 8 columns
// consecutive, the thread layout is K6's turned around: 8 consecutive columns per thread,
// rows in quads strided by BM / (TM / 4), so the reads of As stay free of bank conflicts.
#pragma once

#include "gemm_common.cuh"

namespace tileskip::cuda {

template <int BM, int BN, int BK, int TM, int TN, int kThreads, int kBCols>
__global__ void __launch_bounds__(kThreads)
    bGroup8(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
            const std::uint8_t* __restrict__ /*aPattern*/, const std::uint8_t* __restrict__ bPattern) {
  constexpr int kThreadRows = BM / TM;
  constexpr int kQuads = TM / 4;
  constexpr int kQuadStride = BM / kQuads;
  static_assert(BM * BN == kThreads * TM * TN, "each thread owns TM x TN outputs");
  static_assert(TN == kBCols && TN % 4 == 0 && TM % 4 == 0, "a thread's columns are exactly one B-pattern tile");
  static_assert(BK == kKBlock, "one K-block per staged tile: the skip sits between the barriers, never across one");
  __shared__ __align__(16) float As[BK * transposedAStride<BM>()];
  __shared__ __align__(16) float Bs[BK * BN];
  const BlockTile<BM, BN> block(N);
  const int tid = static_cast<int>(threadIdx.x);
  const int threadRow = tid % kThreadRows;  // 16 consecutive row quads per half-warp: conflict-free As reads
  const int threadCol = tid / kThreadRows;  // 2 column groups per warp: Bs reads are broadcasts
  const int kBlocks = (K + kKBlock - 1) / kKBlock;
  const int bTiles = (N + kBCols - 1) / kBCols;
  const int colTile = (block.colBase + threadCol * TN) / kBCols;

  float acc[TM][TN] = {};
  float regM[TM], regN[TN];
  for (int kBase = 0; kBase < K; kBase += BK) {
    const unsigned bBits = patternByte(bPattern, colTile, bTiles, kBase / kKBlock, kBlocks);  // this thread's own
    loadATileTransposed<BM, BK, kThreads>(A, M, K, block.rowBase, kBase, As, ~0u, tid);
    loadBTile<BK, BN, kThreads>(B, K, N, kBase, block.colBase, Bs, ~0u, tid);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      if (((bBits >> k) & 1u) == 0u) continue;  // divergent: lanes of a warp disagree
#pragma unroll
      for (int q = 0; q < kQuads; ++q) {
        const float4 a = *reinterpret_cast<const float4*>(As + k * transposedAStride<BM>() + q * kQuadStride + threadRow * 4);
        regM[4 * q] = a.x, regM[4 * q + 1] = a.y, regM[4 * q + 2] = a.z, regM[4 * q + 3] = a.w;
      }
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        const float4 b = *reinterpret_cast<const float4*>(Bs + k * BN + threadCol * TN + j);
        regN[j] = b.x, regN[j + 1] = b.y, regN[j + 2] = b.z, regN[j + 3] = b.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(regM[i], regN[j], acc[i][j]);
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int q = 0; q < kQuads; ++q) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int row = block.rowBase + q * kQuadStride + threadRow * 4 + i;
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        const int r = 4 * q + i;
        storeQuad(C, M, N, row, block.colBase + threadCol * TN + j,
                  make_float4(acc[r][j], acc[r][j + 1], acc[r][j + 2], acc[r][j + 3]));
      }
    }
  }
}

}  // namespace tileskip::cuda
