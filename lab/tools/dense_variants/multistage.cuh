// The multistage candidate of issue 17 (tuning harness only: it lost to register staging, see
// lab/08-dense-variants-plan, and the catalogue's K12 is backends/cuda/k12_hoisted.cuh).
// K11's pipeline without the staging registers. K-tiles go from global to shared
// memory with cp.async, kStages - 1 in flight at once, so more global latency hides at no
// register cost; the barrier moves before the last depth's FMAs, so no warp waits on shared
// memory at the top of a K-tile (lab/03-dense-bound: short-scoreboard stalls).
//
// Beside that: every copy's address is computed once per block tile (interior tiles copy with no
// bounds checks; the K loop only adds the K-block offset), A lands transposed through 4-byte
// copies (a 16-byte copy cannot transpose), and block tiles are rastered in groups of
// kGroupRows row tiles so the blocks resident together share A and B panels in L2. The main
// loop runs over a schedule of K-blocks as K11's does, so the skipping kernels can run it over
// their gathered K-block lists (barrierAfter adapts their K11-style compute).
#pragma once

#include "fma_order.cuh"
#include "k11_pipelined.cuh"

namespace tileskip::cuda {

// ---- cp.async: asynchronous global -> shared copies (sm_80 and later) ----
// `bytes` of the source are read (0 = none); the rest of the destination is filled with zeros.
// The emulator (tests/cuda_emulation) has no asynchronous copies: there they are plain copies
// that land at once, which keeps every indexing and barrier check meaningful; they read the
// source even for a zero fill, so a sanitizer sees a source address outside the matrix.
__device__ inline void copyAsync4(float* sharedDst, const float* globalSrc, int bytes) {
#if defined(__CUDACC__)
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(sharedDst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(globalSrc), "r"(bytes) : "memory");
#else
  const float value = *static_cast<const volatile float*>(globalSrc);
  *sharedDst = bytes == 4 ? value : 0.0f;
#endif
}

__device__ inline void copyAsync16(float* sharedDst, const float* globalSrc, int bytes) {
#if defined(__CUDACC__)
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(sharedDst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(globalSrc), "r"(bytes) : "memory");
#else
  for (int i = 0; i < 4; ++i) {
    const float value = *static_cast<const volatile float*>(globalSrc + i);
    sharedDst[i] = bytes == 16 ? value : 0.0f;
  }
#endif
}

// Closes the group of copies this thread issued since the last commit.
__device__ inline void commitCopies() {
#if defined(__CUDACC__)
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most kPending of this thread's committed groups are still in flight. Other
// threads' copies are visible only after a barrier that follows this.
template <int kPending>
__device__ inline void waitForCopies() {
#if defined(__CUDACC__)
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

// ---- the copies of one K-tile, addressed once per block tile ----
// A goes in 4-byte copies because its tile is stored transposed (As[k][m]); each thread copies
// one k of kThreads / BK rows, so a warp reads whole 32-byte row pieces (coalesced) and writes
// 32 different banks. B goes in 16-byte copies, row-major as in global memory.
template <int BM, int BN, int BK, int kThreads>
struct AsyncKTileCopy {
  static constexpr int kSlots = BK / kKBlock;
  static constexpr int kARowsPerPass = kThreads / BK, kAPasses = BM / kARowsPerPass;
  static constexpr int kBQuadsPerRow = BN / 4, kBRowsPerPass = kThreads / kBQuadsPerRow;
  static constexpr int kBPasses = BK / kBRowsPerPass;
  static_assert(BK % kKBlock == 0 && kThreads % BK == 0 && BM % kARowsPerPass == 0, "A splits into whole passes");
  static_assert(kThreads % kBQuadsPerRow == 0 && kBRowsPerPass <= kKBlock && kKBlock % kBRowsPerPass == 0,
                "a B pass covers whole rows and stays inside one K-block");

  const float* A;
  const float* B;
  int M, N, K;
  int aK, aRow;   // this thread's k inside the K-tile and first row inside the block tile
  int bK, bCol;   // this thread's first k inside the K-tile and column inside the block tile
  int rowBase, colBase;
  bool interiorA, interiorB;  // no bounds or alignment checks needed (but K still is)

  __device__ AsyncKTileCopy(const float* A_, const float* B_, int M_, int N_, int K_, const BlockTile<BM, BN>& block,
                            int tid)
      : A(A_), B(B_), M(M_), N(N_), K(K_), rowBase(block.rowBase), colBase(block.colBase) {
    aK = tid % BK;
    aRow = tid / BK;
    bK = tid / kBQuadsPerRow;
    bCol = (tid % kBQuadsPerRow) * 4;
    interiorA = rowBase + BM <= M;
    interiorB = colBase + BN <= N && rowsAreVectorAligned(N);
  }

  // The K-block of slot `slot` without indexing the array at run time (that would put it in
  // local memory).
  __device__ static int kBlockOfSlot(const int (&kBlocks)[kSlots], int slot) {
    int kBlock = kBlocks[0];
#pragma unroll
    for (int s = 1; s < kSlots; ++s) kBlock = slot == s ? kBlocks[s] : kBlock;
    return kBlock;
  }

  // Issues the copies of the K-tile whose slots hold kBlocks into As (transposed, stride
  // BM + kAPad) and Bs (row-major, stride BN). Empty slots and everything past M, N or K land
  // as zeros; the source address of a zero copy stays inside the matrix.
  __device__ void issue(const int (&kBlocks)[kSlots], float* As, float* Bs) const {
    issueA(kBlocks, As);
    issueB(kBlocks, Bs);
  }

  __device__ void issueA(const int (&kBlocks)[kSlots], float* As) const {
    const int kBlock = kBlockOfSlot(kBlocks, aK / kKBlock);
    const int k = kBlock * kKBlock + aK % kKBlock;
    const bool kInside = kBlock >= 0 && k < K;
    const int bytes = kInside ? 4 : 0;
    const float* first = A + static_cast<long long>(rowBase + aRow) * K + (kInside ? k : 0);
    float* dst = As + aK * transposedAStride<BM>() + aRow;
    if (interiorA) {
#pragma unroll
      for (int p = 0; p < kAPasses; ++p) {
        copyAsync4(dst + p * kARowsPerPass, first + static_cast<long long>(p) * kARowsPerPass * K, bytes);
      }
    } else {
#pragma unroll
      for (int p = 0; p < kAPasses; ++p) {
        const int row = rowBase + aRow + p * kARowsPerPass;
        const bool inside = kInside && row < M;
        copyAsync4(dst + p * kARowsPerPass, inside ? A + static_cast<long long>(row) * K + k : A, inside ? 4 : 0);
      }
    }
  }

  __device__ void issueB(const int (&kBlocks)[kSlots], float* Bs) const {
#pragma unroll
    for (int p = 0; p < kBPasses; ++p) {
      const int kk = bK + p * kBRowsPerPass;                    // row inside the K-tile
      const int kBlock = kBlocks[p * kBRowsPerPass / kKBlock];  // a pass stays inside one K-block
      const int k = kBlock * kKBlock + kk % kKBlock;
      const bool kInside = kBlock >= 0 && k < K;
      float* dst = Bs + kk * BN + bCol;
      const int col = colBase + bCol;
      if (interiorB) {
        copyAsync16(dst, B + static_cast<long long>(kInside ? k : 0) * N + col, kInside ? 16 : 0);
      } else {
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const bool inside = kInside && col + c < N;
          copyAsync4(dst + c, inside ? B + static_cast<long long>(k) * N + col + c : B, inside ? 4 : 0);
        }
      }
    }
  }
};

// ---- the warp's share of the block tile ----
// A warp owns WM x WN outputs; its lanes form kLaneRows x (32 / kLaneRows) and each lane holds
// fragments of TM rows x TN columns, repeated across the warp tile. TM = TN = 4 is CUTLASS's
// SIMT arrangement (a lane's rows in 4-row pieces strided across the warp tile); TM = 8 with
// 4 x 8 lanes is K10's. kInterleave = 2 puts lane pairs in neighbouring lane rows, so the 8 lanes
// of a quarter warp read 2 A and 4 B fragments instead of 1 and 8.
// The fragments are double-buffered in registers, across K-tiles too: depth 0 of the next
// K-tile is read while the FMAs of the last depth of this one run.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kLaneRows = 4,
          int kInterleave = 1, FmaOrder kOrder = FmaOrder::RowMajor>
struct WarpFragments {
  static constexpr int kLaneCols = 32 / kLaneRows;
  static constexpr int kWarpCols = BN / WN;
  static constexpr int kRepeatM = WM / (kLaneRows * TM), kRepeatN = WN / (kLaneCols * TN);
  static constexpr int kRegM = kRepeatM * TM, kRegN = kRepeatN * TN;
  static_assert(kThreads % 32 == 0 && (BM / WM) * (BN / WN) == kThreads / 32, "the warp tiles cover the block tile");
  static_assert(WM % (kLaneRows * TM) == 0 && WN % (kLaneCols * TN) == 0, "the lane fragments cover the warp tile");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "fragments are read as 128-bit shared loads");
  static_assert(kInterleave == 1 || (kInterleave == 2 && kLaneRows % 2 == 0), "lane pairs need an even lane grid");
  static_assert(BK % 2 == 0, "depth 0 of the next K-tile goes into buffer 0");

  int rowOffset, colOffset;  // this lane's first row and column inside the block tile
  float acc[kRegM][kRegN] = {};
  float fragA[2][kRegM], fragB[2][kRegN];

  __device__ explicit WarpFragments(int tid) {
    const int warp = tid / 32, lane = tid % 32;
    int laneRow, laneCol;
    if constexpr (kInterleave == 1) {
      laneRow = lane / kLaneCols;
      laneCol = lane % kLaneCols;
    } else {
      laneRow = (lane / (2 * kLaneCols)) * 2 + lane % 2;
      laneCol = (lane / 2) % kLaneCols;
    }
    rowOffset = (warp / kWarpCols) * WM + laneRow * TM;
    colOffset = (warp % kWarpCols) * WN + laneCol * TN;
  }

  __device__ void load(const float* As, const float* Bs, int k, int buffer) {
#pragma unroll
    for (int r = 0; r < kRepeatM; ++r) {
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        const float4 v = *reinterpret_cast<const float4*>(As + k * transposedAStride<BM>() + rowOffset +
                                                          r * kLaneRows * TM + i);
        fragA[buffer][r * TM + i] = v.x, fragA[buffer][r * TM + i + 1] = v.y;
        fragA[buffer][r * TM + i + 2] = v.z, fragA[buffer][r * TM + i + 3] = v.w;
      }
    }
#pragma unroll
    for (int r = 0; r < kRepeatN; ++r) {
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        const float4 v = *reinterpret_cast<const float4*>(Bs + k * BN + colOffset + r * kLaneCols * TN + j);
        fragB[buffer][r * TN + j] = v.x, fragB[buffer][r * TN + j + 1] = v.y;
        fragB[buffer][r * TN + j + 2] = v.z, fragB[buffer][r * TN + j + 3] = v.w;
      }
    }
  }

  __device__ void multiply(int buffer) { outerProduct<kOrder>(acc, fragA[buffer], fragB[buffer]); }

  // The BK rank-1 updates of one staged K-tile. `advance()` is the main loop's barrier: it
  // returns the next K-tile's stage (not valid when there is none), and is called once, after the
  // last read of this stage. kEarlyBarrier calls it before the last depth's FMAs, so they run
  // while depth 0 of the next K-tile is read; otherwise after every FMA (K11's order).
  template <bool kEarlyBarrier = true, class Advance>
  __device__ void multiplyKTile(const float* As, const float* Bs, bool first, Advance&& advance) {
    if (first) load(As, Bs, 0, 0);
#pragma unroll
    for (int k = 0; k < BK - 1; ++k) {
      load(As, Bs, k + 1, (k + 1) % 2);
      multiply(k % 2);
    }
    if constexpr (kEarlyBarrier) {
      const auto next = advance();
      if (next.valid) load(next.As, next.Bs, 0, 0);
      multiply((BK - 1) % 2);
    } else {
      multiply((BK - 1) % 2);
      const auto next = advance();
      if (next.valid) load(next.As, next.Bs, 0, 0);
    }
  }

  __device__ void store(float* C, int M, int N, int rowBase, int colBase) const {
#pragma unroll
    for (int i = 0; i < kRegM; ++i) {
      const int row = rowBase + rowOffset + (i / TM) * kLaneRows * TM + i % TM;
#pragma unroll
      for (int j = 0; j < kRegN; j += 4) {
        const int col = colBase + colOffset + (j / TN) * kLaneCols * TN + j % TN;
        storeQuad(C, M, N, row, col, make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]));
      }
    }
  }
};

// A K-tile's place in shared memory, as the main loop hands it to the warps. `valid` is false
// past the last K-tile; the pointers then still point into shared memory (a null pointer would
// make the compiler treat every stage pointer as generic and read fragments with LD, not LDS).
struct StageView {
  const float* As;
  const float* Bs;
  bool valid;
};

// The multistage main loop. `schedule` and `prepare` as for pipelinedMainLoop (K11);
// `compute(As, Bs, kBlocks, stepData, first, advance)` does the warp's updates of the staged
// K-tile and calls `advance()` exactly once, block-uniformly, after its last read of As and Bs
// (first: this is the first K-tile). advance() waits for the next K-tile, issues the copies
// of the K-tile kStages - 1 ahead into the stage just read, and returns the next K-tile's
// stage, so the loop has one barrier per K-tile. `stages` holds kStages * stageFloats floats.
template <int BM, int BN, int BK, int kThreads, int kStages, class Schedule, class Prepare, class Compute>
__device__ void multistageMainLoop(const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K,
                                   const BlockTile<BM, BN>& block, const Schedule& schedule, Prepare&& prepare,
                                   Compute&& compute, float* stages) {
  static_assert(kStages >= 2, "one K-tile in shared memory and one in flight, at least");
  constexpr int kSlots = BK / kKBlock;
  constexpr int kStage = stageFloats<BM, BN, BK>(), kBOffset = BK * transposedAStride<BM>();
  const int steps = schedule.steps();
  if (steps == 0) return;
  const AsyncKTileCopy<BM, BN, BK, kThreads> copy(A, B, M, N, K, block, static_cast<int>(threadIdx.x));
  // Every call commits a group, empty past the last step, so the count waitForCopies relies
  // on is the same in every step.
  auto issue = [&](int step, float* stage) {
    if (step < steps) {
      int kBlocks[kSlots];
      schedule.kBlocksOf(step, kBlocks);
      copy.issue(kBlocks, stage, stage + kBOffset);
    }
    commitCopies();
  };
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) issue(s, stages + s * kStage);
  int kBlocks[kSlots], nextKBlocks[kSlots] = {};
  schedule.kBlocksOf(0, kBlocks);
  auto stepData = prepare(kBlocks);
  waitForCopies<kStages - 2>();
  __syncthreads();
  issue(kStages - 1, stages + (kStages - 1) * kStage);
  int readStage = 0;  // stage of the K-tile being multiplied; the one issued next reuses it
  for (int step = 0; step < steps; ++step) {
    float* current = stages + readStage * kStage;
    decltype(stepData) nextStepData{};
    auto advance = [&]() -> StageView {
      const bool more = step + 1 < steps;
      if (more) {
        schedule.kBlocksOf(step + 1, nextKBlocks);
        nextStepData = prepare(nextKBlocks);
      }
      waitForCopies<kStages - 2>();  // this thread's copies of K-tile step + 1 have landed
      __syncthreads();               // everyone's have, and nobody reads `current` any more
      issue(step + kStages, current);
      readStage = readStage + 1 == kStages ? 0 : readStage + 1;
      const float* next = stages + readStage * kStage;
      return StageView{next, next + kBOffset, more};
    };
    compute(static_cast<const float*>(current), static_cast<const float*>(current + kBOffset), kBlocks, stepData,
            step == 0, advance);
#pragma unroll
    for (int s = 0; s < kSlots; ++s) kBlocks[s] = nextKBlocks[s];
    stepData = nextStepData;
  }
}

// A K11-style compute(As, Bs, kBlocks, stepData), such as the skipping kernels' per-K-block
// updates, as a multistage compute: all its updates, then the barrier. It keeps K11's exposed
// fragment read at the top of each K-tile but gets the cp.async stages.
template <class Compute>
__device__ auto barrierAfter(Compute compute) {
  return [compute](const float* As, const float* Bs, const auto& kBlocks, const auto& stepData, bool,
                   auto&& advance) {
    compute(As, Bs, kBlocks, stepData);
    advance();
  };
}

// Dynamic shared memory of the kernel below: kStages stages of 16-byte aligned floats.
template <int BM, int BN, int BK, int kStages>
__host__ __device__ constexpr int multistageSharedBytes() {
  return kStages * stageFloats<BM, BN, BK>() * static_cast<int>(sizeof(float));
}

// One block's tile of C = A·B with the multistage main loop over every K-block in order;
// `stages` holds multistageSharedBytes() (the kernel below passes its dynamic shared memory,
// the CPU emulator a static array).
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kStages, int kLaneRows = 4,
          int kInterleave = 1, int kGroupRows = 8, bool kEarlyBarrier = true>
__device__ void multistageGemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                               int N, int K, float* stages) {
  const BlockTile<BM, BN> block = groupedBlockTile<BM, BN, kGroupRows>(M, N);
  WarpFragments<BM, BN, BK, WM, WN, TM, TN, kThreads, kLaneRows, kInterleave> tile(static_cast<int>(threadIdx.x));
  const AllKBlocks<BK> schedule{(K + kKBlock - 1) / kKBlock};
  multistageMainLoop<BM, BN, BK, kThreads, kStages>(
      A, B, M, N, K, block, schedule, [](const int (&)[BK / kKBlock]) { return NoStepData{}; },
      [&](const float* As, const float* Bs, const int (&)[BK / kKBlock], NoStepData, bool first, auto&& advance) {
        tile.template multiplyKTile<kEarlyBarrier>(As, Bs, first, advance);
      },
      stages);
  tile.store(C, M, N, block.rowBase, block.colBase);
}

// Launch with multistageSharedBytes() of dynamic shared memory (above 48 KiB, after
// cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize)). The CPU emulator has no
// dynamic shared memory; it runs multistageGemm on a static array instead.
#if defined(__CUDACC__)
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kStages, int kMinBlocks = 1,
          int kLaneRows = 4, int kInterleave = 1, int kGroupRows = 8, bool kEarlyBarrier = true>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    multistage(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  extern __shared__ __align__(16) float stages[];
  multistageGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kStages, kLaneRows, kInterleave, kGroupRows, kEarlyBarrier>(
      A, B, C, M, N, K, stages);
}
#endif

}  // namespace tileskip::cuda
