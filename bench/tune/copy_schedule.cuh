// CUTLASS's copy schedule on K12's shape (issue 17; bench/NOTES.md step 11). Nsight Compute put
// K12 at 77 % of cycles with a warp ready to issue against CUTLASS's 91.5 %, at the same
// occupancy: K12's next K-tile waits in registers for the stores that end every K-tile, while
// CUTLASS keeps kStages - 1 K-tiles in flight in shared memory and issues each K-tile's copies a
// few at a time between the depths of the one being multiplied, not in one burst after the
// barrier as our multistage build does. This builds that schedule on multistage.cuh's pieces
// (AsyncKTileCopy, WarpFragments): tuning harness only.
#pragma once

#include "multistage.cuh"

namespace tileskip::cuda {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kStages, int kGroupRows = 8>
__device__ void spreadCopyGemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                               int N, int K, float* stages) {
  using Copy = AsyncKTileCopy<BM, BN, BK, kThreads>;
  static_assert(BK == kKBlock, "a K-tile is one K-block: its copies are addressed by that K-block");
  static_assert(Copy::kAPasses + Copy::kBPasses <= BK - 1, "a K-tile's copies fit between its depths");
  static_assert(kStages >= 3, "one stage read, one landing, one being issued");
  constexpr int kStage = stageFloats<BM, BN, BK>(), kBOffset = BK * transposedAStride<BM>();
  const int tid = static_cast<int>(threadIdx.x);
  const BlockTile<BM, BN> block = groupedBlockTile<BM, BN, kGroupRows>(M, N);
  WarpFragments<BM, BN, BK, WM, WN, TM, TN, kThreads> tile(tid);
  const Copy copy(A, B, M, N, K, block, tid);
  const int kTiles = (K + BK - 1) / BK;

  // K-tile t lives in stage t % kStages. One commit per K-tile, empty or not, keeps the group
  // count that waitForCopies relies on the same in every step.
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < kTiles) {
      const int kBlocks[1] = {s};
      copy.issue(kBlocks, stages + s * kStage, stages + s * kStage + kBOffset);
    }
    commitCopies();
  }
  waitForCopies<kStages - 2>();
  __syncthreads();
  tile.load(stages, stages + kBOffset, 0, 0);

  int readStage = 0;
  for (int kt = 0; kt < kTiles; ++kt) {
    const float* As = stages + readStage * kStage;
    const float* Bs = As + kBOffset;
    // The K-tile kStages - 1 ahead goes into the stage K-tile kt - 1 was read from: every warp
    // passed the barrier after its last read of it.
    const int writeStage = readStage == 0 ? kStages - 1 : readStage - 1;
    float* Aw = stages + writeStage * kStage;
    float* Bw = Aw + kBOffset;
    const int incoming = kt + kStages - 1;
    const int kBlocks[1] = {incoming};
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      if (k < BK - 1) {
        tile.load(As, Bs, k + 1, (k + 1) % 2);
        if (incoming < kTiles) {
          if (k < Copy::kAPasses) {
            copy.issueAPass(kBlocks, Aw, k);
          } else if (k < Copy::kAPasses + Copy::kBPasses) {
            copy.issueBPass(kBlocks, Bw, k - Copy::kAPasses);
          }
        }
        if (k == BK - 2) commitCopies();
      } else {
        // K-tile kt + 1 has landed for everyone, and nobody reads K-tile kt's stage any more;
        // depth 0 of K-tile kt + 1 is read while the last depth of kt is multiplied.
        waitForCopies<kStages - 2>();
        __syncthreads();
        readStage = readStage + 1 == kStages ? 0 : readStage + 1;
        if (kt + 1 < kTiles) {
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
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kStages, int kGroupRows = 8>
__global__ void __launch_bounds__(kThreads, 1)
    spreadCopy(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  extern __shared__ __align__(16) float stages[];
  spreadCopyGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kStages, kGroupRows>(A, B, C, M, N, K, stages);
}
#endif

}  // namespace tileskip::cuda
