// A packed A's K-tiles through K12's stages (the twin of packed_stage.glsl): S19's loop over the kept
// blocks of its block row.
#pragma once

#include "hoisted.cuh"
#include "packed.cuh"

namespace tileskip::cuda {

// One K-tile of a kept block (BM x BK of its values) and the BK rows of B it multiplies, through
// K12's stages (HoistedKTile's registers, passes and shared stores). The block row's K-tiles are
// its kept blocks cut BK deep, in the index's order, so the sum runs in K order: deterministic.
// A block holds zeros where it passes M or K, so A's loads need no check; B's rows do where a
// block passes K, and its columns where the tile passes N.
template <int BM, int BN, int BK, int kThreads>
struct PackedKTile : HoistedKTileStage<BM, BN, BK, kThreads> {
  using Stage = HoistedKTileStage<BM, BN, BK, kThreads>;
  static constexpr int kBlock = BM;  // a square block as tall as the tile
  static constexpr int kTilesPerBlock = kBlock / BK;
  static_assert(kBlock % BK == 0, "a block is whole K-tiles deep");

  const float* values;
  const int* columns;  // the block row's kept blocks' block columns
  const float* B;
  int N, K, colBase, firstBlock, keptBlocks;
  bool interiorB;  // the tile's columns lie inside B, whose rows read as 128-bit vectors

  __device__ PackedKTile(const PackedA<float>& packed, const float* B_, int N_, int K_, const BlockTile<BM, BN>& block, int tid)
      : Stage(tid), values(packed.values), columns(packed.columnIndices()), B(B_), N(N_), K(K_), colBase(block.colBase) {
    const int blockRow = block.rowBase / kBlock;
    firstBlock = __ldg(packed.rowPointers() + blockRow);
    keptBlocks = __ldg(packed.rowPointers() + blockRow + 1) - firstBlock;
    interiorB = colBase + BN <= N && rowsAreVectorAligned(N);
  }

  __device__ int steps() const { return keptBlocks * kTilesPerBlock; }

  // K-tile `step` of the block row: depth (step % kTilesPerBlock) · BK of its kept block
  // step / kTilesPerBlock. Nothing waits for the loads here: store() consumes them after the FMAs.
  __device__ void fetch(int step) {
    const int kept = firstBlock + step / kTilesPerBlock, depth = (step % kTilesPerBlock) * BK;
    const int kBase = __ldg(columns + kept) * kBlock + depth;
    const float* aFrom = values + static_cast<long long>(kept) * kBlock * kBlock + this->aRow * kBlock + depth + this->aK;
#pragma unroll
    for (int p = 0; p < Stage::kAFetchPasses; ++p) this->a[p] = loadGlobalQuadInOrder(aFrom + p * Stage::kARowsPerPass * kBlock);
    if (interiorB && kBase + BK <= K) {
      const float* bFrom = B + static_cast<long long>(kBase + this->bK) * N + colBase + this->bCol;
#pragma unroll
      for (int p = 0; p < Stage::kBFetchPasses; ++p) {
        this->b[p] = loadGlobalQuadInOrder(bFrom + static_cast<long long>(p) * Stage::kBRowsPerPass * N);
      }
    } else {
#pragma unroll
      for (int p = 0; p < Stage::kBFetchPasses; ++p) {
        const int k = kBase + this->bK + p * Stage::kBRowsPerPass, col = colBase + this->bCol;
        this->b[p] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (k < K && col < N) this->b[p] = loadRowQuad(B + static_cast<long long>(k) * N, col, N, rowsAreVectorAligned(N));
      }
    }
  }
};

}  // namespace tileskip::cuda
