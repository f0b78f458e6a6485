// K14 wgmma, Hopper's dense tensor-core kernel (sm_90a only, so it has no GLSL
// twin: Vulkan has neither warpgroup MMAs nor the copy engine).
// What changes from K13 is who feeds the tensor cores. K13's eight warps each load their MMA
// operands from shared memory into registers (ldmatrix) before every mma.sync, and every thread
// issues cp.async copies: at the MMA's rate that is most of what shared memory can deliver
// (lab/16-mma-probe). Here the warps specialize. The first warpgroup (four warps) is the
// producer: one of its threads asks the copy engine for each K-tile's A and B boxes, which land
// swizzled in a ring of stages and count themselves off a "full" mbarrier. The other two
// warpgroups are consumers, each multiplying 64 rows of the block tile by all its columns with
// wgmma, which reads A and B from the stage itself; once the MMAs that read a stage have retired,
// each consumer warp arrives at the stage's "empty" mbarrier and the producer may refill it.
//
// Levels: a block computes BM x BN of C (grid: one block per tile, in groups of kWgmmaGroupRows
// tile rows for L2), a consumer warpgroup WM x WN = 64 x 256 (one m64n256k16 MMA per 16-deep
// step), a warp 16 x WN in mma.sync's fragment layout (the catalogue's WarpgroupMmaTiles). Its
// shape and stages are the catalogue row's . A and B are words of kDType,
// row-major (A: M x K; B: K x N for 16-bit inputs, and for tf32, which the MMA reads only along
// K, B transposed, N x K: mma.cuh's MmaInputType), C fp32 row-major. A K-tile is one
// swizzled row of A whatever the type (64 16-bit values, 32 tf32 ones), so a stage holds the
// same bytes either way.
//
// Any M, N, K: the copy engine fills what lies outside the matrices with zeros, and the stores
// are bounds-checked. It needs every row to start 16-byte aligned (bulkCopiesFit); where one
// does not, the producer warpgroup's threads copy element by element instead, into the same
// swizzled places, and arrive at the full mbarrier themselves.
#pragma once

#include "parts/warpgroup.cuh"

namespace tileskip::cuda {

// One block's tile of K14, whatever becomes of it: the ring filled by the producer warpgroup and
// multiplied by the consumers, then `epilogue(ring, acc, consumer, warp, lane)` by each consumer
// thread once its MMAs have retired (K14 stores C; an MLP layer's first GEMM writes what the
// second reads, kernels/layer_first_gemm.cuh).
template <const KernelInfo& Row, DType D, class Epilogue>
__device__ void wgmmaDenseBlock(const BulkTensorMap& aMap, const BulkTensorMap& bMap, bool bulk,
                                const typename MmaInputType<D>::Word* __restrict__ A,
                                const typename MmaInputType<D>::Word* __restrict__ B, int M, int N, int K, Epilogue&& epilogue) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = kRowKTileDepth<Row, D>, WM = Row.tile.WM, WN = Row.tile.WN;
  constexpr int kStages = Row.structure.ringStages, kThreads = Row.tile.threads;
  using Ring = WgmmaRing<D, BM, BN, BK, WM, WN, kStages, kThreads>;
  const Ring ring(dynamicSharedMemory(Ring::Layout::kSharedBytes), &aMap, &bMap, bulk, A, B, M, N, K,
                  groupedBlockTile<BM, BN, kWgmmaGroupRows>(M, N));
  const int kTiles = (K + BK - 1) / BK;
  const int tid = static_cast<int>(threadIdx.x), warpgroup = tid / kWarpgroupThreads;
  if (tid == 0) ring.initBarriers();
  __syncthreads();  // the last block-wide barrier: from here the warpgroups meet only at mbarriers

  if (warpgroup == 0) {
    keepFewerRegisters<kProducerRegisters>();
    if (ring.copies(tid)) {
      for (int t = 0; t < kTiles; ++t) ring.produce(t, t, tid);
    }
    return;
  }
  takeMoreRegisters<kConsumerRegisters>();
  const int consumer = warpgroup - 1, warp = (tid % kWarpgroupThreads) / kWarpLanes, lane = tid % kWarpLanes;
  float acc[Ring::kAccumulators];
#pragma unroll
  for (int i = 0; i < Ring::kAccumulators; ++i) acc[i] = 0.0f;
  for (int t = 0; t < kTiles; ++t) ring.consume(t, true, acc, consumer, lane);
  wgmmaWait<0>();
  epilogue(ring, acc, consumer, warp, lane);
}

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads, 1)
    k14_wgmma(const __grid_constant__ BulkTensorMap aMap, const __grid_constant__ BulkTensorMap bMap, bool bulk,
              const typename MmaInputType<D>::Word* __restrict__ A, const typename MmaInputType<D>::Word* __restrict__ B,
              float* __restrict__ C, int M, int N, int K) {
  wgmmaDenseBlock<Row, D>(aMap, bMap, bulk, A, B, M, N, K,
                          [&](const auto& ring, const auto& acc, int consumer, int warp, int lane) {
                            ring.store(acc, C, consumer, warp, lane);
                          });
}

}  // namespace tileskip::cuda
