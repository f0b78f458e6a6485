// K11 pipelined: K10's warp tiling, double-buffered. Shared memory holds two stages; while the
// warps compute on one, the next K-tile is already on its way from global memory into
// registers and is written to the other stage afterwards. One barrier per K-tile remains, and
// the latency of the global loads hides behind the FMAs instead of stalling every warp.
//
// The K-tiles are named by the K-blocks they hold (a "schedule"): for this dense kernel the
// schedule is simply every K-block in order; the skipping kernels run the same pipeline over
// the K-blocks their block needs and nothing else (parts/warp_skip.cuh).
#pragma once

#include "parts/pipeline.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads, minBlocksPerSM<Row.tile.threads>())
    k11_pipelined(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, WM = Row.tile.WM, WN = Row.tile.WN;
  constexpr int TM = Row.tile.TM, TN = Row.tile.TN, kThreads = Row.tile.threads;
  __shared__ __align__(16) float stages[2 * stageFloats<BM, BN, BK>()];
  const BlockTile<BM, BN> block(N);
  WarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads> tile(static_cast<int>(threadIdx.x));
  const AllKBlocks<BK> schedule{(K + kKBlock - 1) / kKBlock};
  pipelinedMainLoop<BM, BN, BK, kThreads>(
      A, B, M, N, K, block, schedule, [](const int (&)[BK / kKBlock]) { return NoStepData{}; },
      [&](const float* As, const float* Bs, const int (&)[BK / kKBlock], NoStepData) {
        tile.template rank1UpdatesPrefetched<BK>(As, Bs);
      },
      stages);
  tile.store(C, M, N, block.rowBase, block.colBase);
}

}  // namespace tileskip::cuda
