// The fp32 compaction kernel's K-tiles of gathered columns (the twin of gathered_stage.glsl): K12's
// two stages (hoisted.cuh's twoStageKLoop) fed from the block's list of live K columns
// (gather.cuh), BK of them a K-tile in K order. Column k of A is row k of A transposed (K rows of
// transposedRowLength(M), made in the preparation) and pairs with row k of B: a thread loads 4
// consecutive values of either row
// as one 128-bit load, and A's go into the transposed stage (As[k][m]) as they are, with no
// transposing stores.
#pragma once

#include "gather.cuh"
#include "hoisted.cuh"

namespace tileskip::cuda {

// One gathered K-tile of A transposed (BK x BM) and of B (BK x BN) in registers between its
// global loads and its shared stores, loaded in passes fixed per thread: a thread reads the same
// 4 rows of A (aRow) at depths kADepthsPerPass apart, and the same 4 columns of B (bCol) at depths
// kBDepthsPerPass apart; only the listed columns change from one K-tile to the next.
template <int BM, int BN, int BK, int kThreads>
struct GatheredKTile {
  static constexpr int kAQuadsPerDepth = BM / 4, kADepthsPerPass = kThreads / kAQuadsPerDepth;
  static constexpr int kAFetchPasses = BK / kADepthsPerPass;
  static constexpr int kBQuadsPerDepth = BN / 4, kBDepthsPerPass = kThreads / kBQuadsPerDepth;
  static constexpr int kBFetchPasses = BK / kBDepthsPerPass;
  static_assert(BM % 4 == 0 && BN % 4 == 0, "the rows are loaded as 128-bit quads");
  static_assert(kThreads % kAQuadsPerDepth == 0 && BK % kADepthsPerPass == 0, "A transposed's tile splits into whole passes of depths");
  static_assert(kThreads % kBQuadsPerDepth == 0 && BK % kBDepthsPerPass == 0, "B's tile splits into whole passes of depths");

  const float* At;
  const float* B;
  int aRowLength, N, rowBase, colBase;  // aRowLength: a row of At, M padded to whole vectors
  int aDepth, aRow;  // this thread's first depth of the K-tile and its first row of A (4 of them)
  int bDepth, bCol;  // this thread's first depth and its first column of B (4 of them)
  // The block's rows lie inside At's padded rows (its columns inside B, whose rows read as 128-bit
  // vectors): no load needs a check. The same for the whole block, so no warp diverges on it.
  bool interiorA, interiorB;
  float4 a[kAFetchPasses], b[kBFetchPasses];

  __device__ GatheredKTile(const float* At_, const float* B_, int M_, int N_, const BlockTile<BM, BN>& block, int tid)
      : At(At_), B(B_), aRowLength(transposedRowLength(M_)), N(N_), rowBase(block.rowBase), colBase(block.colBase) {
    aDepth = tid / kAQuadsPerDepth;
    aRow = (tid % kAQuadsPerDepth) * 4;
    bDepth = tid / kBQuadsPerDepth;
    bCol = (tid % kBQuadsPerDepth) * 4;
    interiorA = rowBase + BM <= aRowLength;
    interiorB = colBase + BN <= N && rowsAreVectorAligned(N);
  }

  // The K-tile `step` of `columns` (gather.cuh's PaddedGatheredColumns: -1 past the list's end,
  // which loads zeros). Nothing waits for the loads here: store() consumes them after the FMAs.
  template <class Columns>
  __device__ void fetch(const Columns& columns, int step) {
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int p = 0; p < kAFetchPasses; ++p) {
      const int k = columns.columnOf(step, aDepth + p * kADepthsPerPass), row = rowBase + aRow;
      // At's rows are whole vectors (zeros past M), so a quad lies wholly inside one or past it.
      // The interior blocks' quads load in order, the edge blocks' as plain C++ (a whole vector):
      // with one of the two for both, ptxas spilled 100 bytes of S16's registers.
      const float* from = At + static_cast<long long>(k) * aRowLength;
      a[p] = k < 0 || row >= aRowLength ? zero : interiorA ? loadGlobalQuadInOrder(from + row) : loadRowQuad(from, row, aRowLength, true);
    }
#pragma unroll
    for (int p = 0; p < kBFetchPasses; ++p) {
      const int k = columns.columnOf(step, bDepth + p * kBDepthsPerPass), col = colBase + bCol;
      const float* from = B + static_cast<long long>(k) * N;
      b[p] = k < 0 || col >= N ? zero : interiorB ? loadGlobalQuadInOrder(from + col) : loadRowQuad(from, col, N, rowsAreVectorAligned(N));
    }
  }

  // Writes the K-tile into a stage: A transposed as it came (As[k][m], stride BM + kAPad), B row-major.
  __device__ void store(float* As, float* Bs) const {
#pragma unroll
    for (int p = 0; p < kAFetchPasses; ++p) {
      *reinterpret_cast<float4*>(As + (aDepth + p * kADepthsPerPass) * transposedAStride<BM>() + aRow) = a[p];
    }
#pragma unroll
    for (int p = 0; p < kBFetchPasses; ++p) *reinterpret_cast<float4*>(Bs + (bDepth + p * kBDepthsPerPass) * BN + bCol) = b[p];
  }
};

// One pass's list of live columns through K12's loop, BK to a K-tile: `list` holds `count` columns
// and room to pad them to whole K-tiles with -1 (zeros). Past the last K-tile, the loop's fetch
// loads the last one again, which nothing reads.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads>
__device__ __forceinline__ void gatheredKLoop(HoistedWarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads>& tile,
                                              GatheredKTile<BM, BN, BK, kThreads>& staged, float* stages, int* list, int count) {
  padToKTiles<BK, kThreads>(list, count);
  __syncthreads();  // the padding is read by other threads' fetches
  const PaddedGatheredColumns<BK> columns{list, count};
  const int steps = columns.steps();
  twoStageKLoop(tile, staged, stages, steps, [&](int index) { staged.fetch(columns, min(index, steps - 1)); });
}

}  // namespace tileskip::cuda
