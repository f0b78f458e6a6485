// K12 builds that test what the SASS comparison with CUTLASS's kernel found (bench/NOTES.md step
// 12): ptxas issues some of K12's fragment loads (LDS.128) only a few FFMAs before their first
// use, where CUTLASS's loads lead by 15 or more; a warp then waits out the shared-memory latency
// unless the one other warp of its scheduler has work. Each build below changes one thing
// that could move ptxas's choice; bench/tune/sass_load_distance.py measures the lead in each.
#include "dense_variants.cuh"

#include "k12_hoisted.cuh"

namespace tileskip::tune {

namespace {

using namespace tileskip::cuda;

// A 128-bit shared load written as PTX, so NVVM keeps it where the source puts it (ptxas may
// still move it: that is what the build measures).
__device__ __forceinline__ float4 sharedLoadInOrder(const float* p) {
  float4 v;
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(address));
  return v;
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads>
struct InOrderWarpTile : HoistedWarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads> {
  using Base = HoistedWarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads>;
  using Tile = typename Base::Tile;
  __device__ explicit InOrderWarpTile(int tid) : Base(tid) {}

  __device__ void loadFragments(const float* As, const float* Bs, int k, int set) {
    static_assert(TM % 4 == 0 && TN % 4 == 0, "128-bit fragment loads");
#pragma unroll
    for (int wn = 0; wn < Tile::WNITER; ++wn) {
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        const float4 b = sharedLoadInOrder(Bs + k * BN + this->warpCol + wn * Tile::WSUBN + this->threadCol * TN + j);
        float* to = this->regN[set] + wn * TN + j;
        to[0] = b.x, to[1] = b.y, to[2] = b.z, to[3] = b.w;
      }
    }
#pragma unroll
    for (int wm = 0; wm < Tile::WMITER; ++wm) {
      const float* a = As + k * transposedAStride<BM>() + this->subTileRow(wm) + this->threadRow * TM;
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        const float4 v = sharedLoadInOrder(a + i);
        float* to = this->regM[set] + wm * TM + i;
        to[0] = v.x, to[1] = v.y, to[2] = v.z, to[3] = v.w;
      }
    }
  }
};

// K12's loop, on either warp tile; kInteriorLoop adds a loop for blocks whose every load is in
// bounds and whose K is whole K-tiles: no branch in it but its own, so ptxas schedules each
// K-tile as one basic block, as CUTLASS's predicated copies let it.
template <class WarpTileT, bool kInteriorLoop, int BM, int BN, int BK, int kThreads>
__device__ void hoistedLoop(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                            int N, int K) {
  constexpr int kStage = stageFloats<BM, BN, BK>(), kBOffset = BK * transposedAStride<BM>();
  __shared__ __align__(16) float stages[2 * kStage];
  const int tid = static_cast<int>(threadIdx.x);
  const BlockTile<BM, BN> block = groupedBlockTile<BM, BN, kHoistedGroupRows>(M, N);
  WarpTileT tile(tid);
  using Staged = HoistedKTile<BM, BN, BK, kThreads>;
  Staged staged(A, B, M, N, K, block, tid);
  const int steps = (K + BK - 1) / BK;
  staged.fetch(0);
  staged.store(stages, stages + kBOffset);
  __syncthreads();
  if (steps > 1) staged.fetch(BK);
  tile.loadFragments(stages, stages + kBOffset, 0, 0);
  auto depths = [&](const float* As) {
#pragma unroll
    for (int k = 0; k < BK - 1; ++k) {
      tile.loadFragments(As, As + kBOffset, k + 1, (k + 1) % 2);
      tile.multiply(k % 2);
    }
  };
  int step = 0;
  if (kInteriorLoop && staged.interiorA && staged.interiorB && K % BK == 0) {
    const float* aFirst = A + static_cast<long long>(block.rowBase + staged.aRow) * K + staged.aK;
    const float* bFirst = B + static_cast<long long>(staged.bK) * N + block.colBase + staged.bCol;
    for (; step + 2 < steps; ++step) {
      float* next = stages + ((step + 1) & 1) * kStage;
      depths(stages + (step & 1) * kStage);
      staged.store(next, next + kBOffset);
      __syncthreads();
      const long long kBase = static_cast<long long>(step + 2) * BK;
#pragma unroll
      for (int p = 0; p < Staged::kAFetchPasses; ++p) {
        staged.a[p] = *reinterpret_cast<const float4*>(aFirst + kBase + static_cast<long long>(p) * Staged::kARowsPerPass * K);
      }
#pragma unroll
      for (int p = 0; p < Staged::kBFetchPasses; ++p) {
        staged.b[p] = *reinterpret_cast<const float4*>(bFirst + (kBase + p * Staged::kBRowsPerPass) * N);
      }
      tile.loadFragments(next, next + kBOffset, 0, 0);
      tile.multiply((BK - 1) % 2);
    }
  }
  for (; step < steps; ++step) {
    float* next = stages + ((step + 1) & 1) * kStage;
    depths(stages + (step & 1) * kStage);
    const bool more = step + 1 < steps;
    if (more) staged.store(next, next + kBOffset);
    __syncthreads();
    if (step + 2 < steps) staged.fetch((step + 2) * BK);
    if (more) tile.loadFragments(next, next + kBOffset, 0, 0);
    tile.multiply((BK - 1) % 2);
  }
  tile.store(C, M, N, block.rowBase, block.colBase);
}

template <bool kInOrder, bool kInteriorLoop>
__global__ void __launch_bounds__(256, 1)
    k12Schedule(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  using Plain = HoistedWarpTile<128, 256, 8, 64, 64, 8, 4, 256>;
  using InOrder = InOrderWarpTile<128, 256, 8, 64, 64, 8, 4, 256>;
  using WarpTileT = std::conditional_t<kInOrder, InOrder, Plain>;
  hoistedLoop<WarpTileT, kInteriorLoop, 128, 256, 8, 256>(A, B, C, M, N, K);
}

}  // namespace

void addScheduleVariants(std::vector<Variant>& into) {
  addVariant(into, "k12 interior loop without branches",
             "ptxas schedules a K-tile as one basic block (CUTLASS's loop has one branch, K12's 20); "
             "the SASS here still puts 13 of 48 LDS under 16 FFMAs ahead of use: predicted no faster than k12",
             k12Schedule<false, true>, 128, 256, 256, 0);
  addVariant(into, "k12 fragment loads as PTX in loop order",
             "the closest LDS now leads its use by 6 FFMAs (K12: 1); if the exposed shared-load latency is "
             "what separates K12 from CUTLASS, this gains 1-3 %",
             k12Schedule<true, false>, 128, 256, 256, 0);
  addVariant(into, "k12 fragment loads as PTX, interior loop without branches",
             "both changes together", k12Schedule<true, true>, 128, 256, 256, 0);
}

}  // namespace tileskip::tune
