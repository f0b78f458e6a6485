// K12 with a main loop that is one basic block (lab/18-fma-order-stalls). Nsight Compute's
// per-instruction sampling put a third of K12's extra stalls against CUTLASS in the code between
// its barrier and its next FFMAs: the fetch's address arithmetic (a chain of dependent integer
// instructions, "wait"), its interior/edge branches ("branch resolving", and "no instruction" at
// their targets) and the stage addresses recomputed each K-tile; all eight warps leave the
// barrier together, so neither warp of a scheduler has an FFMA to issue meanwhile. Here, for a
// block whose tiles lie inside the matrices (K a multiple of BK, rows 16-byte aligned), the K
// loop has no branch but its back edge: the global loads run from two pointers advanced by one
// K-tile a step (clamped to the last K-tile, so the loop's last two steps reload it instead of
// branching), the stores and the next fragments always happen (past the last K-tile they touch
// a stage nobody reads again), and the two stage pointers swap. Other blocks run K12 as it is.
#include "dense_variants.cuh"
#include "l2_line_loads.cuh"

namespace tileskip::cuda {

// kL2Line: the interior's loads ask L2 for whole 128-byte lines, as CUTLASS's do (l2_line_loads.cuh);
// kL2LineNc: through the read-only path too. kPlainFragments: the warp tile's shared reads are plain
// C++ (ptxas may move them), not loadSharedQuad's pinned PTX.
// kFetchAtStart: a K-tile's fetch is issued after the step's second fragment load, where CUTLASS's
// MmaPipelined issues it (lab/29-barrier-placement), instead of right after the barrier: warps leaving
// the barrier find the last depth's FFMAs before the fetch's address arithmetic.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, bool kL2Line, bool kFetchAtStart,
          bool kL2LineNc, bool kPlainFragments>
__device__ void streamlinedInterior(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                    int M, int N, int K, const BlockTile<BM, BN>& block, float* stages) {
  using Staged = HoistedKTile<BM, BN, BK, kThreads>;
  constexpr int kStage = stageFloats<BM, BN, BK>(), kBOffset = BK * transposedAStride<BM>();
  const int tid = static_cast<int>(threadIdx.x);
  HoistedWarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads> tile(tid);
  Staged staged(A, B, M, N, K, block, tid);  // its addresses, and its registers for the K-tile in flight
  const float* aNext = A + static_cast<long long>(block.rowBase + staged.aRow) * K + staged.aK;
  const float* bNext = B + static_cast<long long>(staged.bK) * N + block.colBase + staged.bCol;
  const long long aPass = static_cast<long long>(Staged::kARowsPerPass) * K;
  const long long bPass = static_cast<long long>(Staged::kBRowsPerPass) * N, bStep = static_cast<long long>(BK) * N;
  auto load = [](const float* from) {
    if constexpr (kL2LineNc) return tune::loadGlobalQuadL2LineNc(from);
    else return tune::loadGlobalQuad<kL2Line>(from);
  };
  auto fetch = [&] {
#pragma unroll
    for (int p = 0; p < Staged::kAFetchPasses; ++p) staged.a[p] = load(aNext + p * aPass);
#pragma unroll
    for (int p = 0; p < Staged::kBFetchPasses; ++p) staged.b[p] = load(bNext + p * bPass);
  };
  const int steps = K / BK;
  fetch();
  staged.store(stages, stages + kBOffset);
  __syncthreads();
  if constexpr (!kFetchAtStart) {
    if (steps > 1) aNext += BK, bNext += bStep;
    fetch();  // K-tile 1 (or 0 again when there is one)
  }
  const float* readStage = stages;
  float* writeStage = stages + kStage;
  tile.template loadFragments<!kPlainFragments>(readStage, readStage + kBOffset, 0, 0);
  for (int step = 0; step < steps; ++step) {
#pragma unroll
    for (int k = 0; k < BK - 1; ++k) {
      tile.template loadFragments<!kPlainFragments>(readStage, readStage + kBOffset, k + 1, (k + 1) % 2);
      if (kFetchAtStart && k == 0) {
        const bool ahead = step + 1 < steps;  // K-tile step + 1; the last step loads its own again
        aNext += ahead ? BK : 0;
        bNext += ahead ? bStep : 0;
        fetch();
      }
      tile.multiply(k % 2);
    }
    staged.store(writeStage, writeStage + kBOffset);
    __syncthreads();
    if constexpr (!kFetchAtStart) {
      const bool ahead = step + 2 < steps;  // a select, not a branch: the last K-tile is loaded again
      aNext += ahead ? BK : 0;
      bNext += ahead ? bStep : 0;
      fetch();
    }
    const float* nowRead = writeStage;
    writeStage = const_cast<float*>(readStage);
    readStage = nowRead;
    tile.template loadFragments<!kPlainFragments>(readStage, readStage + kBOffset, 0, 0);
    tile.multiply((BK - 1) % 2);
  }
  tile.store(C, M, N, block.rowBase, block.colBase);
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, bool kL2Line = false,
          bool kFetchAtStart = false, bool kL2LineNc = false, bool kPlainFragments = false>
__global__ void __launch_bounds__(kThreads, 1)
    hoistedStreamlined(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                       int K) {
  constexpr int kStage = stageFloats<BM, BN, BK>();
  __shared__ __align__(16) float stages[2 * kStage];
  const BlockTile<BM, BN> block = groupedBlockTile<BM, BN, kHoistedGroupRows>(M, N);
  const bool interior = block.rowBase + BM <= M && block.colBase + BN <= N && K % BK == 0 &&
                        rowsAreVectorAligned(K) && rowsAreVectorAligned(N);
  if (interior) {
    streamlinedInterior<BM, BN, BK, WM, WN, TM, TN, kThreads, kL2Line, kFetchAtStart, kL2LineNc, kPlainFragments>(A, B, C, M, N, K, block, stages);
    return;
  }
  // K12's own loop for the blocks at the matrices' edges.
  const int tid = static_cast<int>(threadIdx.x);
  constexpr int kBOffset = BK * transposedAStride<BM>();
  HoistedWarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads> tile(tid);
  HoistedKTile<BM, BN, BK, kThreads> staged(A, B, M, N, K, block, tid);
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

}  // namespace tileskip::cuda

namespace tileskip::tune {

void addStreamlinedVariants(std::vector<Variant>& into) {
  addVariant(into, "stream k12 128x256x8 w64x64 t8x4 l4x8 256thr",
             "K12 with a branch-free interior K loop (running pointers, clamped fetch, swapped stage pointers): "
             "the fetch's wait/branch/no-instruction stalls after each barrier (~5 % of K12's samples) go; "
             "0.93-0.95 of cuBLAS",
             cuda::hoistedStreamlined<128, 256, 8, 64, 64, 8, 4, 256>, 128, 256, 256, 0);
  addVariant(into, "stream l2line k12 128x256x8 w64x64 t8x4 l4x8 256thr",
             "stream k12 with its loads asking L2 for whole 128-byte lines (ld.global.L2::128B, CUTLASS's "
             "LDG.E.LTC128B): a K-tile reads a quarter line of each row of A, so the next three hit L2; "
             "K12 read L2 at a 75.7 % hit rate against CUTLASS's 88.8 % (step 11): 0.93-0.97 of cuBLAS",
             cuda::hoistedStreamlined<128, 256, 8, 64, 64, 8, 4, 256, true>, 128, 256, 256, 0);
  addVariant(into, "stream l2line start k12 128x256x8 w64x64 t8x4 l4x8 256thr",
             "stream l2line k12 with each K-tile fetched after the step's second fragment load, where "
             "CUTLASS's MmaPipelined fetches (step 29): the warps leaving the barrier issue the last "
             "depth's FFMAs, not the fetch's address arithmetic; 0.93-0.96 of cuBLAS",
             cuda::hoistedStreamlined<128, 256, 8, 64, 64, 8, 4, 256, true, true>, 128, 256, 256, 0);
  addVariant(into, "stream start k12 128x256x8 w64x64 t8x4 l4x8 256thr",
             "stream k12 fetching where CUTLASS's MmaPipelined does, plain loads: separates the fetch's "
             "position from the line hint; 0.91-0.94 of cuBLAS",
             cuda::hoistedStreamlined<128, 256, 8, 64, 64, 8, 4, 256, false, true>, 128, 256, 256, 0);
  addVariant(into, "stream l2line-nc k12 128x256x8 w64x64 t8x4 l4x8 256thr",
             "stream l2line k12 with the hinted loads on the read-only path (ld.global.nc.L2::128B): tells "
             "the line hint from the loss of LDG.E.CONSTANT; 0.92-0.93 of cuBLAS",
             cuda::hoistedStreamlined<128, 256, 8, 64, 64, 8, 4, 256, false, false, true>, 128, 256, 256, 0);
  addVariant(into, "stream l2line plain-lds k12 128x256x8 w64x64 t8x4 l4x8 256thr",
             "stream l2line k12 with fragment reads ptxas may move (CUTLASS's warp level reads plainly and "
             "ran 2.3 % faster than K12 at level 8, step 29); 0.92-0.94 of cuBLAS",
             cuda::hoistedStreamlined<128, 256, 8, 64, 64, 8, 4, 256, true, false, false, true>, 128, 256, 256, 0);
}

}  // namespace tileskip::tune
