// S20 bsr-stream-64: a packed A times a few columns of B. With a handful of tokens (decode), a
// weight's bytes decide the time, not its products: S19 stages every kept block in shared memory
// for a 256-column tile that is mostly empty, and gives the device one block per block row, far
// fewer than it can run. Here the kept blocks are split into units of one block row's consecutive
// blocks, about the same number each (BlockStreamPlan), a block per unit and column tile, so the
// device runs them all at once and reads each kept block once. Nothing of A is staged: a thread
// owns TM rows of the block row (a row strip, ThreadMapping::RowStrips) and reads its rows of each
// kept block a K-block at a time straight into registers, 16 bytes a row in 16 bits, and meets
// there the rows of B the block multiplies, which the block stages in shared memory (widened to
// fp32, two stages: the next kept block's while this one's are read). Every FMA is in fp32, from
// fp32 or 16-bit words alike. A block row split over several units leaves each unit's partial
// tile in a slot; the last unit to finish sums the slots in the units' order, so C does not depend
// on which ran first. The GLSL twin is s20_bsr_stream_64.comp.
#pragma once

#include "parts/packed.cuh"

namespace tileskip::cuda {

template <const KernelInfo& Row, DType D>
__global__ void __launch_bounds__(Row.tile.threads)
    s20_bsr_stream_64(PackedA<PackedWord<D>> A, const PackedWord<D>* __restrict__ B, float* __restrict__ C, int M, int N, int K,
                      BlockStream stream) {
  constexpr int BM = Row.tile.BM, BN = Row.tile.BN, BK = Row.tile.BK, TM = Row.tile.TM, TN = Row.tile.TN;
  constexpr int kThreads = Row.tile.threads, kRowThreads = BM / TM;
  static_assert(Row.aGranularity == BM && BK == BM, "a step is one kept block of the block row");
  static_assert(TN % 4 == 0 && (BK * BN) % (4 * kThreads) == 0, "B's staged rows are read and written as vec4s");
  __shared__ __align__(16) float stagedB[2][BK * BN];
  __shared__ int lastUnit;
  const int tid = static_cast<int>(threadIdx.x);
  const int colTiles = (N + BN - 1) / BN;
  const int unit = static_cast<int>(blockIdx.x) / colTiles, colBase = (static_cast<int>(blockIdx.x) % colTiles) * BN;
  const StreamUnit work = stream.unit(unit);
  const int rowStrip = tid % kRowThreads, colStrip = (tid / kRowThreads) * TN;
  float acc[TM][TN] = {};

  // Kept block `kept`'s rows of B (BK of them from its block column, BN columns from colBase) into
  // stage `stage`, widened to fp32: zeros past K and N.
  auto stageB = [&](int kept, int stage) {
    const int kBase = __ldg(A.columnIndices() + kept) * BK;
    constexpr int kQuadsPerRow = BN / 4;
#pragma unroll
    for (int pass = 0; pass < BK * BN / (4 * kThreads); ++pass) {
      const int quad = tid + pass * kThreads, k = quad / kQuadsPerRow, col = (quad % kQuadsPerRow) * 4;
      float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (kBase + k < K) v = loadWidenedQuad<D>(B + static_cast<long long>(kBase + k) * N, colBase + col, N);
      *reinterpret_cast<float4*>(&stagedB[stage][k * BN + col]) = v;
    }
  };

  if (work.keptBlocks > 0) stageB(work.firstBlock, 0);
  for (int step = 0; step < work.keptBlocks; ++step) {
    const int kept = work.firstBlock + step, stage = step % 2;
    __syncthreads();  // this stage is written; the other one's readers are done
    if (step + 1 < work.keptBlocks) stageB(kept + 1, 1 - stage);  // lands while this block is multiplied
    const PackedWord<D>* block = A.values + static_cast<long long>(kept) * BM * BK;
    const float* staged = stagedB[stage];
#pragma unroll 2
    for (int kb = 0; kb < BK; kb += kKBlock) {
      // This thread's rows of the block at K-block kb: 8 values each, widened to fp32.
      float a[TM][kKBlock];
#pragma unroll
      for (int i = 0; i < TM; ++i) loadWidenedKBlock<D>(block + (rowStrip + kRowThreads * i) * BK + kb, a[i]);
#pragma unroll
      for (int j = 0; j < kKBlock; ++j) {
#pragma unroll
        for (int c = 0; c < TN; c += 4) {
          const float4 b = *reinterpret_cast<const float4*>(&staged[(kb + j) * BN + colStrip + c]);
#pragma unroll
          for (int i = 0; i < TM; ++i) {
            acc[i][c] = fmaf(a[i][j], b.x, acc[i][c]);
            acc[i][c + 1] = fmaf(a[i][j], b.y, acc[i][c + 1]);
            acc[i][c + 2] = fmaf(a[i][j], b.z, acc[i][c + 2]);
            acc[i][c + 3] = fmaf(a[i][j], b.w, acc[i][c + 3]);
          }
        }
      }
    }
  }

  const int rowBase = work.blockRow * BM;
  auto store = [&](int i, int c, float value) {
    const int row = rowBase + rowStrip + kRowThreads * i, col = colBase + colStrip + c;
    if (row < M && col < N) C[static_cast<long long>(row) * N + col] = value;
  };
  if (work.slot < 0) {  // the block row's only unit
#pragma unroll
    for (int i = 0; i < TM; ++i) {
#pragma unroll
      for (int c = 0; c < TN; ++c) store(i, c, acc[i][c]);
    }
    return;
  }
  // A block row in several units: this unit's partial tile into its slot; the last unit of the
  // row (and column tile) to arrive sums the slots in order.
  auto slotTile = [&](int slot) { return stream.partials + (static_cast<long long>(slot) * colTiles + colBase / BN) * BM * BN; };
  float* mine = slotTile(work.slot);
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int c = 0; c < TN; ++c) mine[(rowStrip + kRowThreads * i) * BN + colStrip + c] = acc[i][c];
  }
  __threadfence();  // the partial is visible device-wide before the count says it is there
  __syncthreads();
  unsigned* counter = stream.counters + static_cast<long long>(work.blockRow) * colTiles + colBase / BN;
  if (tid == 0) lastUnit = atomicAdd(counter, 1u) == static_cast<unsigned>(work.rowUnits - 1);
  __syncthreads();
  if (!lastUnit) return;
  __threadfence();
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int c = 0; c < TN; ++c) {
      float sum = 0.0f;
      for (int u = 0; u < work.rowUnits; ++u) sum += __ldcg(slotTile(work.rowFirstSlot + u) + (rowStrip + kRowThreads * i) * BN + colStrip + c);
      store(i, c, sum);
    }
  }
  if (tid == 0) *counter = 0u;  // left at zero for the next launch
}

}  // namespace tileskip::cuda
