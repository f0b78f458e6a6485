// Kernels that exist only in the tuning harness (issue 17), to tell the multistage candidate's
// (multistage.cuh) changes apart:
//  - registerStaged: K11's register staging with multistage's hoisted addressing, early barrier
//    and warp fragments (what the rest buys without cp.async; at 128x256 it won, and became the
//    catalogue's K12, backends/cuda/k12_hoisted.cuh);
//  - warpTileMultistage: multistage's cp.async stages driving K10's WarpTile through
//    barrierAfter, the way a skipping kernel would run on them (what cp.async buys without the rest);
//  - hybrid: B through cp.async stages, A through registers as in K11 (A's 4-byte copies or
//    K11's 128-bit loads and scalar shared stores).
// Compiles for the GPU and for the CPU emulator.
#pragma once

#include "multistage.cuh"

namespace tileskip::cuda {

// K11's register staging with every address computed once per block tile: A in 128-bit loads
// (kq fixed per thread), B in the same passes as AsyncKTileCopy's. Interior tiles and full
// K-blocks load with no checks; the rest goes through loadRowQuad's checks.
template <int BM, int BN, int BK, int kThreads>
struct HoistedRegisterKTile {
  static constexpr int kSlots = BK / kKBlock;
  static constexpr int kAQuadsPerRow = BK / 4, kARowsPerPass = kThreads / kAQuadsPerRow;
  static constexpr int kAPasses = BM / kARowsPerPass;
  static constexpr int kBQuadsPerRow = BN / 4, kBRowsPerPass = kThreads / kBQuadsPerRow;
  static constexpr int kBPasses = BK / kBRowsPerPass;
  static_assert(kThreads % kAQuadsPerRow == 0 && BM % kARowsPerPass == 0, "A splits into whole passes");
  static_assert(kThreads % kBQuadsPerRow == 0 && kBRowsPerPass <= kKBlock && kKBlock % kBRowsPerPass == 0,
                "a B pass covers whole rows and stays inside one K-block");

  const float* A;
  const float* B;
  int M, N, K, rowBase, colBase;
  int aK, aRow, bK, bCol;
  bool interiorA, interiorB;
  float4 a[kAPasses], b[kBPasses];

  __device__ HoistedRegisterKTile(const float* A_, const float* B_, int M_, int N_, int K_,
                                  const BlockTile<BM, BN>& block, int tid)
      : A(A_), B(B_), M(M_), N(N_), K(K_), rowBase(block.rowBase), colBase(block.colBase) {
    aK = (tid % kAQuadsPerRow) * 4;
    aRow = tid / kAQuadsPerRow;
    bK = tid / kBQuadsPerRow;
    bCol = (tid % kBQuadsPerRow) * 4;
    interiorA = rowBase + BM <= M && rowsAreVectorAligned(K);
    interiorB = colBase + BN <= N && rowsAreVectorAligned(N);
  }

  __device__ void fetch(const int (&kBlocks)[kSlots]) {
    fetchA(kBlocks);
    fetchB(kBlocks);
  }

  __device__ void fetchA(const int (&kBlocks)[kSlots]) {
    {
      const int kBlock = AsyncKTileCopy<BM, BN, BK, kThreads>::kBlockOfSlot(kBlocks, aK / kKBlock);
      const int k = kBlock * kKBlock + aK % kKBlock;
      if (interiorA && kBlock >= 0 && k + 4 <= K) {
        const float* first = A + static_cast<long long>(rowBase + aRow) * K + k;
#pragma unroll
        for (int p = 0; p < kAPasses; ++p) {
          a[p] = *reinterpret_cast<const float4*>(first + static_cast<long long>(p) * kARowsPerPass * K);
        }
      } else {
#pragma unroll
        for (int p = 0; p < kAPasses; ++p) {
          const int row = rowBase + aRow + p * kARowsPerPass;
          a[p] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
          if (kBlock >= 0 && row < M && k < K) {
            a[p] = loadRowQuad(A + static_cast<long long>(row) * K, k, K, rowsAreVectorAligned(K));
          }
        }
      }
    }
  }

  __device__ void fetchB(const int (&kBlocks)[kSlots]) {
#pragma unroll
    for (int p = 0; p < kBPasses; ++p) {
      const int kk = bK + p * kBRowsPerPass;
      const int kBlock = kBlocks[p * kBRowsPerPass / kKBlock];
      const int k = kBlock * kKBlock + kk % kKBlock, col = colBase + bCol;
      b[p] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (kBlock >= 0 && k < K) {
        if (interiorB) {
          b[p] = *reinterpret_cast<const float4*>(B + static_cast<long long>(k) * N + col);
        } else if (col < N) {
          b[p] = loadRowQuad(B + static_cast<long long>(k) * N, col, N, rowsAreVectorAligned(N));
        }
      }
    }
  }

  __device__ void store(float* As, float* Bs) const {
    storeA(As);
    storeB(Bs);
  }

  __device__ void storeA(float* As) const {
#pragma unroll
    for (int p = 0; p < kAPasses; ++p) {
      float* column = As + aK * transposedAStride<BM>() + aRow + p * kARowsPerPass;
      column[0 * transposedAStride<BM>()] = a[p].x;
      column[1 * transposedAStride<BM>()] = a[p].y;
      column[2 * transposedAStride<BM>()] = a[p].z;
      column[3 * transposedAStride<BM>()] = a[p].w;
    }
  }

  __device__ void storeB(float* Bs) const {
#pragma unroll
    for (int p = 0; p < kBPasses; ++p) {
      *reinterpret_cast<float4*>(Bs + (bK + p * kBRowsPerPass) * BN + bCol) = b[p];
    }
  }
};

// Two stages, the next K-tile in registers: the same contract as multistageMainLoop (compute
// calls advance() once, after its last read of the stage), so the same warp code runs on it.
template <int BM, int BN, int BK, int kThreads, class Schedule, class Prepare, class Compute>
__device__ void registerStagedMainLoop(const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K,
                                       const BlockTile<BM, BN>& block, const Schedule& schedule, Prepare&& prepare,
                                       Compute&& compute, float* stages) {
  constexpr int kSlots = BK / kKBlock;
  constexpr int kStage = stageFloats<BM, BN, BK>(), kBOffset = BK * transposedAStride<BM>();
  const int steps = schedule.steps();
  if (steps == 0) return;
  HoistedRegisterKTile<BM, BN, BK, kThreads> staged(A, B, M, N, K, block, static_cast<int>(threadIdx.x));
  int kBlocks[kSlots], nextKBlocks[kSlots] = {}, laterKBlocks[kSlots] = {};
  schedule.kBlocksOf(0, kBlocks);
  staged.fetch(kBlocks);
  auto stepData = prepare(kBlocks);
  staged.store(stages, stages + kBOffset);
  __syncthreads();
  if (steps > 1) {
    schedule.kBlocksOf(1, nextKBlocks);
    staged.fetch(nextKBlocks);
  }
  for (int step = 0; step < steps; ++step) {
    float* current = stages + (step & 1) * kStage;
    float* next = stages + ((step + 1) & 1) * kStage;
    decltype(stepData) nextStepData{};
    auto advance = [&]() -> StageView {
      const bool more = step + 1 < steps;
      if (more) {
        nextStepData = prepare(nextKBlocks);
        staged.store(next, next + kBOffset);  // nobody reads `next` since the last barrier
      }
      __syncthreads();
      if (step + 2 < steps) {  // in flight during the next K-tile's FMAs
        schedule.kBlocksOf(step + 2, laterKBlocks);
        staged.fetch(laterKBlocks);
      }
      return StageView{next, next + kBOffset, more};
    };
    compute(static_cast<const float*>(current), static_cast<const float*>(current + kBOffset), kBlocks, stepData,
            step == 0, advance);
#pragma unroll
    for (int s = 0; s < kSlots; ++s) kBlocks[s] = nextKBlocks[s], nextKBlocks[s] = laterKBlocks[s];
    stepData = nextStepData;
  }
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kLaneRows = 4, int kInterleave = 1,
          int kGroupRows = 8, bool kEarlyBarrier = true>
__device__ void registerStagedGemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                   int M, int N, int K, float* stages) {
  const BlockTile<BM, BN> block = groupedBlockTile<BM, BN, kGroupRows>(M, N);
  WarpFragments<BM, BN, BK, WM, WN, TM, TN, kThreads, kLaneRows, kInterleave> tile(static_cast<int>(threadIdx.x));
  const AllKBlocks<BK> schedule{(K + kKBlock - 1) / kKBlock};
  registerStagedMainLoop<BM, BN, BK, kThreads>(
      A, B, M, N, K, block, schedule, [](const int (&)[BK / kKBlock]) { return NoStepData{}; },
      [&](const float* As, const float* Bs, const int (&)[BK / kKBlock], NoStepData, bool first, auto&& advance) {
        tile.template multiplyKTile<kEarlyBarrier>(As, Bs, first, advance);
      },
      stages);
  tile.store(C, M, N, block.rowBase, block.colBase);
}

#if defined(__CUDACC__)  // dynamic shared memory: the emulator runs registerStagedGemm instead
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kMinBlocks = 1,
          int kLaneRows = 4, int kInterleave = 1, int kGroupRows = 8, bool kEarlyBarrier = true>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    registerStaged(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                   int K) {
  extern __shared__ __align__(16) float stages[];
  registerStagedGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kLaneRows, kInterleave, kGroupRows, kEarlyBarrier>(
      A, B, C, M, N, K, stages);
}
#endif

// K10's WarpTile with K11's prefetched fragments, on multistage's stages: the dense twin of a skipping
// kernel moved onto multistageMainLoop with barrierAfter.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kStages, int kGroupRows = 8>
__device__ void warpTileMultistageGemm(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int M, int N, int K, float* stages) {
  const BlockTile<BM, BN> block = groupedBlockTile<BM, BN, kGroupRows>(M, N);
  WarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads> tile(static_cast<int>(threadIdx.x));
  const AllKBlocks<BK> schedule{(K + kKBlock - 1) / kKBlock};
  multistageMainLoop<BM, BN, BK, kThreads, kStages>(
      A, B, M, N, K, block, schedule, [](const int (&)[BK / kKBlock]) { return NoStepData{}; },
      barrierAfter([&](const float* As, const float* Bs, const int (&)[BK / kKBlock], NoStepData) {
        tile.template rank1UpdatesPrefetched<BK>(As, Bs);
      }),
      stages);
  tile.store(C, M, N, block.rowBase, block.colBase);
}

#if defined(__CUDACC__)
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kStages, int kGroupRows = 8>
__global__ void __launch_bounds__(kThreads)
    warpTileMultistage(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                       int K) {
  extern __shared__ __align__(16) float stages[];
  warpTileMultistageGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kStages, kGroupRows>(A, B, C, M, N, K, stages);
}
#endif

// A through registers one K-tile ahead (128-bit loads, transposed by scalar stores as in K11),
// B through cp.async kStages - 1 K-tiles ahead: the alternative to A's 4-byte copies. Same
// contract as multistageMainLoop.
template <int BM, int BN, int BK, int kThreads, int kStages, class Schedule, class Prepare, class Compute>
__device__ void hybridMainLoop(const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K,
                               const BlockTile<BM, BN>& block, const Schedule& schedule, Prepare&& prepare,
                               Compute&& compute, float* stages) {
  static_assert(kStages >= 2, "one K-tile in shared memory and one in flight, at least");
  constexpr int kSlots = BK / kKBlock;
  constexpr int kStage = stageFloats<BM, BN, BK>(), kBOffset = BK * transposedAStride<BM>();
  const int steps = schedule.steps();
  if (steps == 0) return;
  const int tid = static_cast<int>(threadIdx.x);
  const AsyncKTileCopy<BM, BN, BK, kThreads> copyB(A, B, M, N, K, block, tid);
  HoistedRegisterKTile<BM, BN, BK, kThreads> stagedA(A, B, M, N, K, block, tid);
  auto issueB = [&](int step, float* stage) {
    if (step < steps) {
      int kBlocks[kSlots];
      schedule.kBlocksOf(step, kBlocks);
      copyB.issueB(kBlocks, stage + kBOffset);
    }
    commitCopies();
  };
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) issueB(s, stages + s * kStage);
  int kBlocks[kSlots], nextKBlocks[kSlots] = {}, laterKBlocks[kSlots] = {};
  schedule.kBlocksOf(0, kBlocks);
  stagedA.fetchA(kBlocks);
  auto stepData = prepare(kBlocks);
  stagedA.storeA(stages);
  if (steps > 1) {
    schedule.kBlocksOf(1, nextKBlocks);
    stagedA.fetchA(nextKBlocks);
  }
  waitForCopies<kStages - 2>();
  __syncthreads();
  issueB(kStages - 1, stages + (kStages - 1) * kStage);
  int readStage = 0;
  for (int step = 0; step < steps; ++step) {
    float* current = stages + readStage * kStage;
    const int nextStage = readStage + 1 == kStages ? 0 : readStage + 1;
    decltype(stepData) nextStepData{};
    auto advance = [&]() -> StageView {
      const bool more = step + 1 < steps;
      if (more) {
        nextStepData = prepare(nextKBlocks);
        stagedA.storeA(stages + nextStage * kStage);  // its last reader passed the previous barrier
      }
      waitForCopies<kStages - 2>();
      __syncthreads();
      issueB(step + kStages, current);
      if (step + 2 < steps) {
        schedule.kBlocksOf(step + 2, laterKBlocks);
        stagedA.fetchA(laterKBlocks);
      }
      readStage = nextStage;
      const float* next = stages + nextStage * kStage;
      return StageView{next, next + kBOffset, more};
    };
    compute(static_cast<const float*>(current), static_cast<const float*>(current + kBOffset), kBlocks, stepData,
            step == 0, advance);
#pragma unroll
    for (int s = 0; s < kSlots; ++s) kBlocks[s] = nextKBlocks[s], nextKBlocks[s] = laterKBlocks[s];
    stepData = nextStepData;
  }
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kStages, int kLaneRows = 4,
          int kInterleave = 1, int kGroupRows = 8>
__device__ void hybridGemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                           int N, int K, float* stages) {
  const BlockTile<BM, BN> block = groupedBlockTile<BM, BN, kGroupRows>(M, N);
  WarpFragments<BM, BN, BK, WM, WN, TM, TN, kThreads, kLaneRows, kInterleave> tile(static_cast<int>(threadIdx.x));
  const AllKBlocks<BK> schedule{(K + kKBlock - 1) / kKBlock};
  hybridMainLoop<BM, BN, BK, kThreads, kStages>(
      A, B, M, N, K, block, schedule, [](const int (&)[BK / kKBlock]) { return NoStepData{}; },
      [&](const float* As, const float* Bs, const int (&)[BK / kKBlock], NoStepData, bool first, auto&& advance) {
        tile.multiplyKTile(As, Bs, first, advance);
      },
      stages);
  tile.store(C, M, N, block.rowBase, block.colBase);
}

#if defined(__CUDACC__)
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kStages, int kLaneRows = 4,
          int kInterleave = 1, int kGroupRows = 8>
__global__ void __launch_bounds__(kThreads)
    hybrid(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  extern __shared__ __align__(16) float stages[];
  hybridGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kStages, kLaneRows, kInterleave, kGroupRows>(A, B, C, M, N, K,
                                                                                               stages);
}
#endif

}  // namespace tileskip::cuda
