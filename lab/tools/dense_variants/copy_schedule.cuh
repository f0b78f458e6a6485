// CUTLASS's copy schedule on K12's shape (issue 17; lab/11-auto-cutlass-anchor). Nsight Compute put
// K12 at 77 % of cycles with a warp ready to issue against CUTLASS's 91.5 %, at the same
// occupancy: K12's next K-tile waits in registers for the stores that end every K-tile, while
// CUTLASS keeps kStages - 1 K-tiles in flight in shared memory and issues each K-tile's copies a
// few at a time between the depths of the one being multiplied, not in one burst after the
// barrier as our multistage build does. This builds that schedule with multistage.cuh's warp
// fragments: tuning harness only. (Its first build, on multistage.cuh's AsyncKTileCopy, spilled
// and was removed after measuring: commit abd6c6c.)
#pragma once

#include "multistage.cuh"

namespace tileskip::cuda {

// CUTLASS's lean copy state: 4-byte copies of both operands (a thread
// copies one column of B down the K-tile, and one k of A down its rows), two source pointers
// advanced one K-tile per step, and the bounds as a row mask and a column flag fixed per thread
// plus one compare against K per copy. AsyncKTileCopy carries addresses, flags and a K-block
// schedule through the loop, and with this schedule it spilled (step 11).
template <int BM, int BN, int BK, int kThreads>
struct LeanKTileCopy {
  static constexpr int kARowsPerPass = kThreads / BK, kAPasses = BM / kARowsPerPass;
  static constexpr int kBRowsPerPass = kThreads / BN, kBPasses = BK / kBRowsPerPass;
  static constexpr int kCopies = kAPasses + kBPasses;
  static_assert(kThreads % BK == 0 && BM % kARowsPerPass == 0, "A splits into whole passes of rows");
  static_assert(kThreads % BN == 0 && BK % kBRowsPerPass == 0, "B splits into whole passes of K-rows");
  static_assert(kAPasses <= 32, "the row mask holds a bit per pass");

  const float* A;
  const float* B;
  const float* aSrc;  // this thread's A element of the K-tile being copied: row aRow, column aK
  const float* bSrc;  // and its B element: K-row bK, column bCol
  int K, N, kBase;
  int aK, bK, aDst, bDst;
  unsigned rowsInside;  // bit p: pass p's row lies inside A
  bool colInside;

  __device__ LeanKTileCopy(const float* A_, const float* B_, int M, int N_, int K_, const BlockTile<BM, BN>& block,
                           int tid)
      : A(A_), B(B_), K(K_), N(N_), kBase(0) {
    aK = tid % BK;
    const int aRow = tid / BK;
    bK = tid / BN;
    const int bCol = tid % BN;
    aSrc = A + static_cast<long long>(block.rowBase + aRow) * K + aK;
    bSrc = B + static_cast<long long>(bK) * N + block.colBase + bCol;
    aDst = aK * transposedAStride<BM>() + aRow;
    bDst = bK * BN + bCol;
    rowsInside = 0;
#pragma unroll
    for (int p = 0; p < kAPasses; ++p) rowsInside |= (block.rowBase + aRow + p * kARowsPerPass < M ? 1u : 0u) << p;
    colInside = block.colBase + bCol < N;
  }

  // Copy c of the K-tile at kBase into a stage: A's passes first, then B's. A copy outside the
  // matrix reads nothing and lands a zero.
  __device__ void issue(int c, float* As, float* Bs) const {
    if (c < kAPasses) {
      const bool inside = ((rowsInside >> c) & 1u) != 0 && kBase + aK < K;
      copyAsync4(As + aDst + c * kARowsPerPass, inside ? aSrc + static_cast<long long>(c) * kARowsPerPass * K : A,
                 inside ? 4 : 0);
    } else {
      const int p = c - kAPasses;
      const bool inside = colInside && kBase + bK + p * kBRowsPerPass < K;
      copyAsync4(Bs + bDst + p * kBRowsPerPass * BN, inside ? bSrc + static_cast<long long>(p) * kBRowsPerPass * N : B,
                 inside ? 4 : 0);
    }
  }

  __device__ void advance() {
    aSrc += BK;
    bSrc += static_cast<long long>(BK) * N;
    kBase += BK;
  }
};

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kStages, int kGroupRows = 8,
          int kLaneRows = 4, int kInterleave = 1, FmaOrder kOrder = FmaOrder::RowMajor, bool kBranchFree = false>
__device__ void leanCopyGemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                             int N, int K, float* stages) {
  using Copy = LeanKTileCopy<BM, BN, BK, kThreads>;
  static_assert(kStages >= 3, "one stage read, one landing, one being issued");
  constexpr int kStage = stageFloats<BM, BN, BK>(), kBOffset = BK * transposedAStride<BM>();
  const int tid = static_cast<int>(threadIdx.x);
  const BlockTile<BM, BN> block = groupedBlockTile<BM, BN, kGroupRows>(M, N);
  WarpFragments<BM, BN, BK, WM, WN, TM, TN, kThreads, kLaneRows, kInterleave, kOrder> tile(tid);
  Copy copy(A, B, M, N, K, block, tid);
  const int kTiles = (K + BK - 1) / BK;

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < kTiles) {
#pragma unroll
      for (int c = 0; c < Copy::kCopies; ++c) copy.issue(c, stages + s * kStage, stages + s * kStage + kBOffset);
    }
    commitCopies();
    copy.advance();
  }
  waitForCopies<kStages - 2>();
  __syncthreads();
  tile.load(stages, stages + kBOffset, 0, 0);

  int readStage = 0;
  for (int kt = 0; kt < kTiles; ++kt) {
    const float* As = stages + readStage * kStage;
    const float* Bs = As + kBOffset;
    const int writeStage = readStage == 0 ? kStages - 1 : readStage - 1;
    float* Aw = stages + writeStage * kStage;
    float* Bw = Aw + kBOffset;
    // kBranchFree (CUTLASS's form, step 18): the copies of K-tiles past the last are issued too;
    // their K lies past K, so the bounds predicate makes them read nothing and land zeros in a
    // stage no one reads again, and the loop body has no branch but its back edge.
    const bool incoming = kBranchFree || kt + kStages - 1 < kTiles;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      if (k < BK - 1) {
        tile.load(As, Bs, k + 1, (k + 1) % 2);
        if (incoming) {
#pragma unroll
          for (int c = 0; c < Copy::kCopies; ++c) {
            if (c * (BK - 1) / Copy::kCopies == k) copy.issue(c, Aw, Bw);
          }
        }
        if (k == BK - 2) {
          commitCopies();
          copy.advance();
        }
      } else {
        waitForCopies<kStages - 2>();
        __syncthreads();
        readStage = readStage + 1 == kStages ? 0 : readStage + 1;
        if (kBranchFree || kt + 1 < kTiles) {  // past the last K-tile: reads a stage, harmlessly
          const float* next = stages + readStage * kStage;
          tile.load(next, next + kBOffset, 0, 0);
        }
      }
      tile.multiply(k % 2);
    }
  }
  tile.store(C, M, N, block.rowBase, block.colBase);
}

#if defined(__CUDACC__)
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kStages, int kGroupRows = 8,
          int kLaneRows = 4, int kInterleave = 1, FmaOrder kOrder = FmaOrder::RowMajor, bool kBranchFree = false>
__global__ void __launch_bounds__(kThreads, 1)
    leanCopy(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  extern __shared__ __align__(16) float stages[];
  leanCopyGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kStages, kGroupRows, kLaneRows, kInterleave, kOrder, kBranchFree>(
      A, B, C, M, N, K, stages);
}
#endif

}  // namespace tileskip::cuda
