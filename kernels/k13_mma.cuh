// K13 mma: the dense kernel on tensor cores. K11's block and warp tiling stays; what changes is
// the innermost step and the way tiles arrive. A warp no longer does rank-1 updates with FMAs:
// it multiplies 16x8x16 tiles with one mma.sync each (fp16 or bf16 in, fp32 accumulate; tf32
// takes two 16x8x8 ones), its operands loaded from shared memory by ldmatrix in exactly the
// registers mma expects. Global tiles come in by cp.async, three stages deep, so two K-tiles are
// in flight while the warps multiply the third, and no register holds a tile on its way.
//
// Levels: a block computes BM x BN of C (grid: one block per tile, BlockTile's order), a warp
// WM x WN (kMTiles x kNTiles mma tiles), an instruction 16 x 8 x 16 (x 8 for tf32). A and B
// arrive as words of kDType, row-major: A M x K, B K x N for 16-bit inputs and, for tf32, B
// transposed, N x K (mma.cuh's MmaInputType); C is fp32, row-major. BK counts values of
// either type: a tf32 K-tile holds the same K-blocks in twice the bytes.
//
// Its shape, stages and dtypes are the catalogue row's; the GLSL twin is
// k13_mma.comp. The ring main loop over a schedule of K-blocks is shared with the
// joint tensor-core kernel (s10_mma_joint_64x32.cuh), as K12's loop is with the fp32 ones.
#pragma once

#include "parts/ring.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads)
    k13_mma(const typename MmaInputType<D>::Word* __restrict__ A, const typename MmaInputType<D>::Word* __restrict__ B,
            float* __restrict__ C, int M, int N, int K) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, WM = Row.tile.WM, WN = Row.tile.WN;
  constexpr int kStages = Row.structure.ringStages, kThreads = Row.tile.threads;
  using Word = typename MmaInputType<D>::Word;
  const BlockTile<BM, BN> block(N);
  auto* stages = reinterpret_cast<Word*>(dynamicSharedMemory(mmaSharedBytes<D, BM, BN, BK, kStages>()));
  MmaWarpTile<D, BM, BN, BK, WM, WN, kThreads> tile(static_cast<int>(threadIdx.x));
  const AllKBlocks<BK> schedule{(K + kKBlock - 1) / kKBlock};
  mmaRingMainLoop<D, BM, BN, BK, kStages, kThreads>(
      A, B, M, N, K, block, schedule,
      [&](const Word* As, const Word* Bs, int) {
#pragma unroll
        for (int kk = 0; kk < BK; kk += kMmaK) tile.multiplyStep(As, Bs, kk);
      },
      stages);
  tile.store(C, M, N, block.rowBase, block.colBase);
}

}  // namespace tileskip::cuda
