// K11's double-buffered main loop (the twin of pipeline.glsl): two shared-memory stages; while the
// warps compute on one, the next K-tile travels from global memory into registers and is written
// to the other afterwards. The K-tiles are named by the K-blocks they hold (a schedule), every
// K-block in order for the dense kernels (AllKBlocks).
#pragma once

#include "stage.cuh"

namespace tileskip::cuda {

// One K-tile of A (BM x BK) and B (BK x BN) on its way through registers. A K-tile is BK / 8
// K-blocks that need not be neighbours in K; a negative K-block is an empty slot (zeros).
template <int BM, int BN, int BK, int kThreads>
struct StagedKTile {
  static constexpr int kSlots = BK / kKBlock;
  static constexpr int kAQuadsPerRow = BK / 4, kBQuadsPerRow = BN / 4;
  static constexpr int kAQuads = BM * kAQuadsPerRow / kThreads;
  static constexpr int kBQuads = BK * kBQuadsPerRow / kThreads;
  static_assert(BK % kKBlock == 0, "a K-tile holds whole K-blocks");
  static_assert((BM * kAQuadsPerRow) % kThreads == 0 && (BK * kBQuadsPerRow) % kThreads == 0,
                "the tiles split evenly into 128-bit loads");

  float4 a[kAQuads];
  float4 b[kBQuads];

  // Global loads of the K-tile whose slots hold K-blocks kBlocks[0 .. kSlots).
  __device__ void fetch(const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K, int rowBase,
                        int colBase, const int (&kBlocks)[kSlots], int tid) {
    const bool alignedA = rowsAreVectorAligned(K), alignedB = rowsAreVectorAligned(N);
#pragma unroll
    for (int i = 0; i < kAQuads; ++i) {
      const int quad = tid + i * kThreads;
      const int m = quad / kAQuadsPerRow, kq = (quad % kAQuadsPerRow) * 4;
      const int kBlock = kBlocks[kq / kKBlock];
      const int row = rowBase + m, k = kBlock * kKBlock + kq % kKBlock;
      a[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (kBlock >= 0 && row < M && k < K) a[i] = loadRowQuad(A + row * K, k, K, alignedA);
    }
#pragma unroll
    for (int i = 0; i < kBQuads; ++i) {
      const int quad = tid + i * kThreads;
      const int kk = quad / kBQuadsPerRow, nq = (quad % kBQuadsPerRow) * 4;
      const int kBlock = kBlocks[kk / kKBlock];
      const int k = kBlock * kKBlock + kk % kKBlock, col = colBase + nq;
      b[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (kBlock >= 0 && k < K && col < N) b[i] = loadRowQuad(B + k * N, col, N, alignedB);
    }
  }

  // Writes the K-tile into a stage: A transposed (As[k][m], stride BM + kAPad), B row-major.
  __device__ void store(float* As, float* Bs, int tid) const {
#pragma unroll
    for (int i = 0; i < kAQuads; ++i) {
      const int quad = tid + i * kThreads;
      const int m = quad / kAQuadsPerRow, kq = (quad % kAQuadsPerRow) * 4;
      float* column = As + kq * transposedAStride<BM>() + m;
      column[0 * transposedAStride<BM>()] = a[i].x;
      column[1 * transposedAStride<BM>()] = a[i].y;
      column[2 * transposedAStride<BM>()] = a[i].z;
      column[3 * transposedAStride<BM>()] = a[i].w;
    }
#pragma unroll
    for (int i = 0; i < kBQuads; ++i) {
      const int quad = tid + i * kThreads;
      const int kk = quad / kBQuadsPerRow, nq = (quad % kBQuadsPerRow) * 4;
      *reinterpret_cast<float4*>(Bs + kk * BN + nq) = b[i];
    }
  }
};

// What a step needs beside its staged tiles; the dense kernel needs nothing.
struct NoStepData {};

// The double-buffered main loop. `schedule` names the K-blocks of each K-tile:
//   int steps() const;  void kBlocksOf(int step, int (&kBlocks)[BK / 8]) const;
// `prepare(kBlocks)` returns what the warp needs to know about a K-tile beyond its data (the
// skipping kernels' pattern bits); it runs one step ahead, beside the global loads, so its
// latency hides too. `compute(As, Bs, kBlocks, stepData)` does the warp's rank-1 updates of
// the staged K-tile. Every thread of the block runs the same steps, so the single barrier per
// step is block-uniform.
template <int BM, int BN, int BK, int kThreads, class Schedule, class Prepare, class Compute>
__device__ void pipelinedMainLoop(const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K,
                                  const BlockTile<BM, BN>& block, const Schedule& schedule, Prepare&& prepare,
                                  Compute&& compute, float* stages) {
  using Staged = StagedKTile<BM, BN, BK, kThreads>;
  constexpr int kStage = stageFloats<BM, BN, BK>();
  const int tid = static_cast<int>(threadIdx.x);
  const int steps = schedule.steps();
  if (steps == 0) return;
  Staged staged;
  int kBlocks[Staged::kSlots] = {}, nextKBlocks[Staged::kSlots] = {};
  schedule.kBlocksOf(0, kBlocks);
  staged.fetch(A, B, M, N, K, block.rowBase, block.colBase, kBlocks, tid);
  auto stepData = prepare(kBlocks);
  staged.store(stages, stages + BK * transposedAStride<BM>(), tid);
  __syncthreads();
  for (int step = 0; step < steps; ++step) {
    float* current = stages + (step & 1) * kStage;
    float* next = stages + ((step + 1) & 1) * kStage;
    const bool more = step + 1 < steps;
    decltype(stepData) nextStepData{};
    if (more) {  // in flight while the FMAs below run
      schedule.kBlocksOf(step + 1, nextKBlocks);
      staged.fetch(A, B, M, N, K, block.rowBase, block.colBase, nextKBlocks, tid);
      nextStepData = prepare(nextKBlocks);
    }
    compute(current, current + BK * transposedAStride<BM>(), kBlocks, stepData);
    if (more) {
      staged.store(next, next + BK * transposedAStride<BM>(), tid);
#pragma unroll
      for (int s = 0; s < Staged::kSlots; ++s) kBlocks[s] = nextKBlocks[s];
      stepData = nextStepData;
    }
    __syncthreads();
  }
}

// Every K-block in order: the dense schedule.
template <int BK>
struct AllKBlocks {
  int kBlocks;
  __device__ int steps() const { return (kBlocks + BK / kKBlock - 1) / (BK / kKBlock); }
  __device__ void kBlocksOf(int step, int (&out)[BK / kKBlock]) const {
#pragma unroll
    for (int s = 0; s < BK / kKBlock; ++s) {
      const int kBlock = step * (BK / kKBlock) + s;
      out[s] = kBlock < kBlocks ? kBlock : -1;
    }
  }
};

}  // namespace tileskip::cuda
