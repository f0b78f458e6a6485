// Issue 17's bisection between K12 and CUTLASS's SIMT SGEMM, first cut: K12's block level as the
// catalogue builds it (its register-staged K-tile, its two stages, its barrier before the last
// depth, its block order) with CUTLASS's warp level in place of ours (MmaSimt: CUTLASS's lane
// arrangement, fragment iterators and thread-level FMA order, as its default SIMT core picks them
// for a 64x64 warp tile). If this runs at CUTLASS's speed, the warp level is the piece that differs;
// if it runs at K12's, the block level is (lab/28-k12-cutlass-bisect: it is the block level). The
// next cuts swap pieces of that block level for CUTLASS's: its K-tile copies, its block order, its
// loads of whole L2 lines (step 29: none of them gains; the piece was where ptxas puts K12's
// barrier). Interior problems only (M, N multiples of the block tile, K of BK): a probe for the
// anchor binary, not a kernel of the product.
#pragma once

#include <type_traits>

#include "lab/tools/dense_variants/l2_line_loads.cuh"
#include "cutlass/gemm/warp/mma_simt.h"
#include "k12_hoisted.cuh"

namespace tileskip::anchor {

// CUTLASS's default SIMT policy for a 64x64 fp32 warp tile: 4 x 8 lanes, 4 x 4 elements a lane
// per outer product, lane pairs interleaved.
using CutlassWarpPolicy = cutlass::gemm::warp::MmaSimtPolicy<cutlass::MatrixShape<4, 8>, cutlass::layout::RowMajorInterleaved<2>,
                                                             cutlass::gemm::GemmShape<4, 4, 1>>;
// A staged transposed (column-major M x K, as K12 stages it), B row-major.
using CutlassWarpMma = cutlass::gemm::warp::MmaSimt<cutlass::gemm::GemmShape<64, 64, 8>, float, cutlass::layout::ColumnMajor, float,
                                                    cutlass::layout::RowMajor, float, cutlass::layout::RowMajor, CutlassWarpPolicy>;

// The K-tile copied as CUTLASS's SIMT kernels copy it: one float per load and per shared store,
// A's threads BK along K by kThreads / BK rows a pass, B's threads one column each down the K-tile;
// kL2Line: each load asks L2 for its whole 128-byte line, as CUTLASS's do (l2_line_loads.cuh).
template <int BM, int BN, int BK, int kThreads, bool kL2Line = false>
struct ScalarKTile {
  static constexpr int kAPasses = BM * BK / kThreads, kBPasses = BK * BN / kThreads;
  static_assert(kThreads == BN && kThreads % BK == 0, "one B column a thread; A rows in whole passes");
  const float* A;
  const float* B;
  int K, N, rowBase, colBase, tid;
  float a[kAPasses], b[kBPasses];

  // HoistedKTile's constructor, so the kernel builds either copy alike (M is not needed: interior only).
  __device__ ScalarKTile(const float* A_, const float* B_, int, int N_, int K_, const tileskip::cuda::BlockTile<BM, BN>& block,
                         int tid_)
      : A(A_), B(B_), K(K_), N(N_), rowBase(block.rowBase), colBase(block.colBase), tid(tid_) {}

  __device__ void fetch(int kBase) {
    const float* a0 = A + static_cast<long long>(rowBase + tid / BK) * K + kBase + tid % BK;
    const float* b0 = B + static_cast<long long>(kBase) * N + colBase + tid;
    const long long aPass = static_cast<long long>(kThreads / BK) * K;
#pragma unroll
    for (int p = 0; p < kAPasses; ++p) a[p] = tune::loadGlobal<kL2Line>(a0 + p * aPass);
#pragma unroll
    for (int p = 0; p < kBPasses; ++p) b[p] = tune::loadGlobal<kL2Line>(b0 + static_cast<long long>(p) * N);
  }

  __device__ void store(float* As, float* Bs) const {
    using tileskip::cuda::transposedAStride;
#pragma unroll
    for (int p = 0; p < kAPasses; ++p) As[(tid % BK) * transposedAStride<BM>() + tid / BK + p * (kThreads / BK)] = a[p];
#pragma unroll
    for (int p = 0; p < kBPasses; ++p) Bs[p * BN + tid] = b[p];
  }
};

// K12's K-tile whose 128-bit loads ask L2 for whole lines (interior problems only, as the probe).
template <int BM, int BN, int BK, int kThreads>
struct LineHintedKTile : tileskip::cuda::HoistedKTile<BM, BN, BK, kThreads> {
  using Base = tileskip::cuda::HoistedKTile<BM, BN, BK, kThreads>;
  using Base::Base;
  __device__ void fetch(int kBase) {
    const float* a = this->A + static_cast<long long>(this->rowBase + this->aRow) * this->K + kBase + this->aK;
    const float* b = this->B + static_cast<long long>(kBase + this->bK) * this->N + this->colBase + this->bCol;
    const long long aPass = static_cast<long long>(Base::kARowsPerPass) * this->K;
    const long long bPass = static_cast<long long>(Base::kBRowsPerPass) * this->N;
#pragma unroll
    for (int p = 0; p < Base::kAFetchPasses; ++p) this->a[p] = tune::loadGlobalQuadL2Line(a + p * aPass);
#pragma unroll
    for (int p = 0; p < Base::kBFetchPasses; ++p) this->b[p] = tune::loadGlobalQuadL2Line(b + p * bPass);
  }
};

// kCutlassCopy: the K-tile copied by ScalarKTile instead of K12's 128-bit loads; kCutlassOrder:
// CUTLASS's identity block order (consecutive blocks walk down M) instead of K12's groups of rows;
// kL2Line: either copy's loads ask L2 for whole lines.
template <int BM, int BN, int BK, int kThreads, bool kCutlassCopy = false, bool kCutlassOrder = false, bool kL2Line = false>
__global__ void __launch_bounds__(kThreads, 1)
    hoistedCutlassWarp(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  using namespace tileskip::cuda;
  constexpr int kStage = stageFloats<BM, BN, BK>(), kBOffset = BK * transposedAStride<BM>();
  constexpr int kWarpsM = BM / 64;
  static_assert(kStage % 4 == 0 && transposedAStride<BM>() % 4 == 0, "CUTLASS's iterators offset in 128-bit steps");
  __shared__ __align__(16) float stages[2 * kStage];
  const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
  BlockTile<BM, BN> block = groupedBlockTile<BM, BN, kHoistedGroupRows>(M, N);
  if constexpr (kCutlassOrder) {
    block.rowBase = static_cast<int>(blockIdx.x % (M / BM)) * BM;
    block.colBase = static_cast<int>(blockIdx.x / (M / BM)) * BN;
  }
  using Vector = std::conditional_t<kL2Line, LineHintedKTile<BM, BN, BK, kThreads>, HoistedKTile<BM, BN, BK, kThreads>>;
  using Copy = std::conditional_t<kCutlassCopy, ScalarKTile<BM, BN, BK, kThreads, kL2Line>, Vector>;
  Copy staged(A, B, M, N, K, block, tid);
  const int steps = K / BK;

  // Each warp's iterators start at its tile of stage 0; a stage and a depth are pointer offsets.
  typename CutlassWarpMma::IteratorA fragmentsA({stages, transposedAStride<BM>()}, lane);
  typename CutlassWarpMma::IteratorB fragmentsB({stages + kBOffset, BN}, lane);
  fragmentsA.add_tile_offset({warp % kWarpsM, 0});
  fragmentsB.add_tile_offset({0, warp / kWarpsM});
  typename CutlassWarpMma::FragmentA a[2];
  typename CutlassWarpMma::FragmentB b[2];
  typename CutlassWarpMma::FragmentC acc;
  acc.clear();
  CutlassWarpMma mma;
  auto load = [&](int stage, int k, int set) {
    fragmentsA.load_with_pointer_offset(a[set], stage * kStage + k * transposedAStride<BM>());
    fragmentsB.load_with_pointer_offset(b[set], stage * kStage + k * BN);
  };

  // K12's schedule (k12_hoisted.cuh), step for step.
  staged.fetch(0);
  staged.store(stages, stages + kBOffset);
  __syncthreads();
  if (steps > 1) staged.fetch(BK);
  load(0, 0, 0);
  for (int step = 0; step < steps; ++step) {
    const int stage = step & 1;
    float* next = stages + (stage ^ 1) * kStage;
#pragma unroll
    for (int k = 0; k < BK - 1; ++k) {
      load(stage, k + 1, (k + 1) % 2);
      mma(acc, a[k % 2], b[k % 2], acc);
    }
    const bool more = step + 1 < steps;
    if (more) staged.store(next, next + kBOffset);
    __syncthreads();
    if (step + 2 < steps) staged.fetch((step + 2) * BK);
    if (more) load(stage ^ 1, 0, 0);
    mma(acc, a[(BK - 1) % 2], b[(BK - 1) % 2], acc);
  }
  typename CutlassWarpMma::IteratorC out({C + static_cast<long long>(block.rowBase) * N + block.colBase, N}, lane);
  out.add_tile_offset({warp % kWarpsM, warp / kWarpsM});
  out.store(acc);
}

}  // namespace tileskip::anchor
