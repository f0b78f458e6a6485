// The FMA order of a thread's outer product (fma_order.cuh; lab/18-fma-order-stalls): K12, K11 and
// the lean cp.async build on CUTLASS's warp level, each under the three orders. Everything else
// is the kernel as the catalogue (or copy_schedule.cuh) builds it.
#include "copy_schedule.cuh"
#include "dense_variants.cuh"
#include "fma_order.cuh"

#include <type_traits>

namespace tileskip::cuda {

template <FmaOrder kOrder, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads>
struct OrderedHoistedTile : HoistedWarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads> {
  using Base = HoistedWarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads>;
  using Tile = typename Base::Tile;
  __device__ explicit OrderedHoistedTile(int tid) : Base(tid) {}
  __device__ void multiply(int set) { outerProduct<kOrder>(this->acc, this->regM[set], this->regN[set]); }
};

// B's columns swapped in pairs in shared memory (column n stored at n ^ 1), so that a 128-bit
// fragment read puts column j of B in a register of the other parity than the accumulators of
// column j, which the 128-bit stores of C keep in aligned quads: with A's value reused, an FFMA
// then reads its other two operands from different register banks.
template <int BM, int BN, int BK, int kThreads>
struct PairSwappedKTile : HoistedKTile<BM, BN, BK, kThreads> {
  using Base = HoistedKTile<BM, BN, BK, kThreads>;
  using Base::Base;
  __device__ void store(float* As, float* Bs) const {
#pragma unroll
    for (int p = 0; p < Base::kAFetchPasses; ++p) {
      float* column = As + this->aK * transposedAStride<BM>() + this->aRow + p * Base::kARowsPerPass;
      column[0 * transposedAStride<BM>()] = this->a[p].x;
      column[1 * transposedAStride<BM>()] = this->a[p].y;
      column[2 * transposedAStride<BM>()] = this->a[p].z;
      column[3 * transposedAStride<BM>()] = this->a[p].w;
    }
#pragma unroll
    for (int p = 0; p < Base::kBFetchPasses; ++p) {
      const float4 b = this->b[p];
      *reinterpret_cast<float4*>(Bs + (this->bK + p * Base::kBRowsPerPass) * BN + this->bCol) =
          make_float4(b.y, b.x, b.w, b.z);
    }
  }
};

template <FmaOrder kOrder, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads>
struct PairSwappedHoistedTile : OrderedHoistedTile<kOrder, BM, BN, BK, WM, WN, TM, TN, kThreads> {
  using Base = OrderedHoistedTile<kOrder, BM, BN, BK, WM, WN, TM, TN, kThreads>;
  using Tile = typename Base::Tile;
  __device__ explicit PairSwappedHoistedTile(int tid) : Base(tid) {}
  __device__ void loadFragments(const float* As, const float* Bs, int k, int set) {
#pragma unroll
    for (int wn = 0; wn < Tile::WNITER; ++wn) {
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        const float4 b = loadSharedQuad(Bs + k * BN + this->warpCol + wn * Tile::WSUBN + this->threadCol * TN + j);
        float* to = this->regN[set] + wn * TN + j;
        to[0] = b.y, to[1] = b.x, to[2] = b.w, to[3] = b.z;
      }
    }
#pragma unroll
    for (int wm = 0; wm < Tile::WMITER; ++wm) {
      const float* a = As + k * transposedAStride<BM>() + this->subTileRow(wm) + this->threadRow * TM;
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        const float4 v = loadSharedQuad(a + i);
        float* to = this->regM[set] + wm * TM + i;
        to[0] = v.x, to[1] = v.y, to[2] = v.z, to[3] = v.w;
      }
    }
  }
};

// K12's kernel (k12_hoisted.cuh) with the tile's multiply in kOrder (and B's pairs swapped).
template <FmaOrder kOrder, bool kSwapPairs, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads>
__global__ void __launch_bounds__(kThreads, 1)
    hoistedOrdered(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  constexpr int kStage = stageFloats<BM, BN, BK>(), kBOffset = BK * transposedAStride<BM>();
  __shared__ __align__(16) float stages[2 * kStage];
  const int tid = static_cast<int>(threadIdx.x);
  const BlockTile<BM, BN> block = groupedBlockTile<BM, BN, kHoistedGroupRows>(M, N);
  std::conditional_t<kSwapPairs, PairSwappedHoistedTile<kOrder, BM, BN, BK, WM, WN, TM, TN, kThreads>,
                     OrderedHoistedTile<kOrder, BM, BN, BK, WM, WN, TM, TN, kThreads>>
      tile(tid);
  std::conditional_t<kSwapPairs, PairSwappedKTile<BM, BN, BK, kThreads>, HoistedKTile<BM, BN, BK, kThreads>> staged(
      A, B, M, N, K, block, tid);
  const int steps = (K + BK - 1) / BK;
  staged.fetch(0);
  staged.store(stages, stages + kBOffset);
  __syncthreads();
  if (steps > 1) staged.fetch(BK);
  tile.loadFragments(stages, stages + kBOffset, 0, 0);
  for (int step = 0; step < steps; ++step) {
    const float* As = stages + (step & 1) * kStage;
    float* next = stages + ((step + 1) & 1) * kStage;
#pragma unroll
    for (int k = 0; k < BK - 1; ++k) {
      tile.loadFragments(As, As + kBOffset, k + 1, (k + 1) % 2);
      tile.multiply(k % 2);
    }
    const bool more = step + 1 < steps;
    if (more) staged.store(next, next + kBOffset);
    __syncthreads();
    if (step + 2 < steps) staged.fetch((step + 2) * BK);
    if (more) tile.loadFragments(next, next + kBOffset, 0, 0);
    tile.multiply((BK - 1) % 2);
  }
  tile.store(C, M, N, block.rowBase, block.colBase);
}

template <FmaOrder kOrder, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads>
struct OrderedWarpTile : WarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads> {
  using Base = WarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads>;
  static constexpr int kRegM = Base::WMITER * TM, kRegN = Base::WNITER * TN;
  __device__ explicit OrderedWarpTile(int tid) : Base(tid) {}
  // K11's rank1UpdatesPrefetched with the FMAs of one depth in kOrder.
  template <int kDepth>
  __device__ void rank1UpdatesPrefetched(const float* As, const float* Bs) {
    float regM[2][kRegM], regN[2][kRegN];
    auto load = [&](int k, float(&m)[kRegM], float(&n)[kRegN]) {
      this->loadRegN(Bs, k, n);
#pragma unroll
      for (int wm = 0; wm < Base::WMITER; ++wm) {
        float part[TM];
        this->loadRegM(As, k, wm, part);
#pragma unroll
        for (int i = 0; i < TM; ++i) m[wm * TM + i] = part[i];
      }
    };
    load(0, regM[0], regN[0]);
#pragma unroll
    for (int k = 0; k < kDepth; ++k) {
      if (k + 1 < kDepth) load(k + 1, regM[(k + 1) % 2], regN[(k + 1) % 2]);
      outerProduct<kOrder>(this->acc, regM[k % 2], regN[k % 2]);
    }
  }
};

template <FmaOrder kOrder, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads>
struct PairSwappedWarpTile : OrderedWarpTile<kOrder, BM, BN, BK, WM, WN, TM, TN, kThreads> {
  using Base = OrderedWarpTile<kOrder, BM, BN, BK, WM, WN, TM, TN, kThreads>;
  __device__ explicit PairSwappedWarpTile(int tid) : Base(tid) {}
  // loadRegN with B's pairs swapped back (PairSwappedKTile says why they are swapped).
  __device__ void loadRegN(const float* Bs, int k, float (&regN)[Base::WNITER * TN]) const {
#pragma unroll
    for (int wn = 0; wn < Base::WNITER; ++wn) {
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        const float4 b = *reinterpret_cast<const float4*>(Bs + k * BN + this->warpCol + wn * Base::WSUBN +
                                                          this->threadCol * TN + j);
        regN[wn * TN + j] = b.y, regN[wn * TN + j + 1] = b.x, regN[wn * TN + j + 2] = b.w, regN[wn * TN + j + 3] = b.z;
      }
    }
  }
  template <int kDepth>
  __device__ void rank1UpdatesPrefetched(const float* As, const float* Bs) {
    float regM[2][Base::kRegM], regN[2][Base::kRegN];
    auto load = [&](int k, float(&m)[Base::kRegM], float(&n)[Base::kRegN]) {
      loadRegN(Bs, k, n);
#pragma unroll
      for (int wm = 0; wm < Base::WMITER; ++wm) {
        float part[TM];
        this->loadRegM(As, k, wm, part);
#pragma unroll
        for (int i = 0; i < TM; ++i) m[wm * TM + i] = part[i];
      }
    };
    load(0, regM[0], regN[0]);
#pragma unroll
    for (int k = 0; k < kDepth; ++k) {
      if (k + 1 < kDepth) load(k + 1, regM[(k + 1) % 2], regN[(k + 1) % 2]);
      outerProduct<kOrder>(this->acc, regM[k % 2], regN[k % 2]);
    }
  }
};

// K11's main loop (pipelinedMainLoop, dense schedule) with B's pairs swapped in shared memory.
template <int BM, int BN, int BK, int kThreads, class Tile>
__device__ void pairSwappedMainLoop(const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K,
                                    const BlockTile<BM, BN>& block, Tile& tile, float* stages) {
  using Staged = StagedKTile<BM, BN, BK, kThreads>;
  constexpr int kStage = stageFloats<BM, BN, BK>(), kBOffset = BK * transposedAStride<BM>();
  const int tid = static_cast<int>(threadIdx.x);
  const AllKBlocks<BK> schedule{(K + kKBlock - 1) / kKBlock};
  const int steps = schedule.steps();
  Staged staged;
  int kBlocks[Staged::kSlots] = {};
  auto store = [&](float* stage) {
#pragma unroll
    for (int i = 0; i < Staged::kBQuads; ++i) {
      const float4 b = staged.b[i];
      staged.b[i] = make_float4(b.y, b.x, b.w, b.z);
    }
    staged.store(stage, stage + kBOffset, tid);
  };
  schedule.kBlocksOf(0, kBlocks);
  staged.fetch(A, B, M, N, K, block.rowBase, block.colBase, kBlocks, tid);
  store(stages);
  __syncthreads();
  for (int step = 0; step < steps; ++step) {
    float* current = stages + (step & 1) * kStage;
    float* next = stages + ((step + 1) & 1) * kStage;
    const bool more = step + 1 < steps;
    if (more) {
      schedule.kBlocksOf(step + 1, kBlocks);
      staged.fetch(A, B, M, N, K, block.rowBase, block.colBase, kBlocks, tid);
    }
    tile.template rank1UpdatesPrefetched<BK>(current, current + kBOffset);
    if (more) store(next);
    __syncthreads();
  }
}

// K11's kernel (k11_pipelined.cuh) with the FMAs in kOrder (and B's pairs swapped).
template <FmaOrder kOrder, bool kSwapPairs, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads>
__global__ void __launch_bounds__(kThreads, minBlocksPerSM<kThreads>())
    pipelinedOrdered(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(16) float stages[2 * stageFloats<BM, BN, BK>()];
  const BlockTile<BM, BN> block(N);
  if constexpr (kSwapPairs) {
    PairSwappedWarpTile<kOrder, BM, BN, BK, WM, WN, TM, TN, kThreads> tile(static_cast<int>(threadIdx.x));
    pairSwappedMainLoop<BM, BN, BK, kThreads>(A, B, M, N, K, block, tile, stages);
    tile.store(C, M, N, block.rowBase, block.colBase);
  } else {
    OrderedWarpTile<kOrder, BM, BN, BK, WM, WN, TM, TN, kThreads> tile(static_cast<int>(threadIdx.x));
    const AllKBlocks<BK> schedule{(K + kKBlock - 1) / kKBlock};
    pipelinedMainLoop<BM, BN, BK, kThreads>(
        A, B, M, N, K, block, schedule, [](const int (&)[BK / kKBlock]) { return NoStepData{}; },
        [&](const float* As, const float* Bs, const int (&)[BK / kKBlock], NoStepData) {
          tile.template rank1UpdatesPrefetched<BK>(As, Bs);
        },
        stages);
    tile.store(C, M, N, block.rowBase, block.colBase);
  }
}

}  // namespace tileskip::cuda

namespace tileskip::tune {

namespace {

const char* orderName(cuda::FmaOrder order) {
  switch (order) {
    case cuda::FmaOrder::RowMajor: return "rowmajor";
    case cuda::FmaOrder::Serpentine: return "serpentine";
    case cuda::FmaOrder::Zigzag2x2: return "zigzag";
  }
  return "?";
}

template <cuda::FmaOrder kOrder>
void addOrdered(std::vector<Variant>& into) {
  using cuda::FmaOrder;
  const std::string order = orderName(kOrder);
  addVariant(into, "order " + order + " k12 128x256x8 w64x64 t8x4 l4x8 256thr",
             "K12 with its FMAs in this order: rowmajor = K12 (0.905 of cuBLAS); zigzag (CUTLASS's order) "
             "+5-10 % if operand reuse is what K12's 23 % of cycles without an eligible warp wait on",
             cuda::hoistedOrdered<kOrder, false, 128, 256, 8, 64, 64, 8, 4, 256>, 128, 256, 256, 0);
  addVariant(into, "order " + order + " pairs k12 128x256x8 w64x64 t8x4 l4x8 256thr",
             "the same with B's columns swapped in pairs in shared memory: with A's value reused (rowmajor) "
             "no FFMA reads two operands from one register bank",
             cuda::hoistedOrdered<kOrder, true, 128, 256, 8, 64, 64, 8, 4, 256>, 128, 256, 256, 0);
  addVariant(into, "order " + order + " k11 128x128x8 w64x64 t8x4 l4x8",
             "K11 (the skipping kernels' loop) in this order: moves as K12 does",
             cuda::pipelinedOrdered<kOrder, false, 128, 128, 8, 64, 64, 8, 4, 128>, 128, 128, 128, 0);
  addVariant(into, "order " + order + " pairs k11 128x128x8 w64x64 t8x4 l4x8",
             "K11 with B's pairs swapped: as K12 pairs",
             cuda::pipelinedOrdered<kOrder, true, 128, 128, 8, 64, 64, 8, 4, 128>, 128, 128, 128, 0);
}

}  // namespace

void addOrderVariants(std::vector<Variant>& into) {
  addOrdered<cuda::FmaOrder::RowMajor>(into);
  addOrdered<cuda::FmaOrder::Serpentine>(into);
  addOrdered<cuda::FmaOrder::Zigzag2x2>(into);
  addVariant(into, "order zigzag lean3 128x256x8 w64x64 t4x4 l4x8il2 256thr g1",
             "lean3 on CUTLASS's warp level (0.78 of cuBLAS in step 11) with CUTLASS's FMA order: "
             "CUTLASS's kernel in all but its epilogue; ~1.0 if the order is the 20 % step 11 left open",
             cuda::leanCopy<128, 256, 8, 64, 64, 4, 4, 256, 3, 1, 4, 2, cuda::FmaOrder::Zigzag2x2>, 128, 256, 256,
             cuda::multistageSharedBytes<128, 256, 8, 3>());
  addVariant(into, "order zigzag lean3 branchfree 128x256x8 w64x64 t4x4 l4x8il2 256thr g1",
             "the same with CUTLASS's branch-free main loop (copies past the last K-tile zero-filled, not skipped): "
             "if the seven branches per K-tile are what separates it from CUTLASS, ~1.0",
             cuda::leanCopy<128, 256, 8, 64, 64, 4, 4, 256, 3, 1, 4, 2, cuda::FmaOrder::Zigzag2x2, true>, 128, 256, 256,
             cuda::multistageSharedBytes<128, 256, 8, 3>());
  addVariant(into, "order rowmajor lean3 branchfree 128x256x8 w64x64 t8x4 l4x8 256thr",
             "branch-free lean3 on K12's warp level and FMA order",
             cuda::leanCopy<128, 256, 8, 64, 64, 8, 4, 256, 3, 8, 4, 1, cuda::FmaOrder::RowMajor, true>, 128, 256, 256,
             cuda::multistageSharedBytes<128, 256, 8, 3>());
}

}  // namespace tileskip::tune
