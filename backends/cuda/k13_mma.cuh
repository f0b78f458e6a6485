// K13 mma: the dense kernel on tensor cores. K11's block and warp tiling stays; what changes is
// the innermost step and the way tiles arrive. A warp no longer does rank-1 updates with FMAs:
// it multiplies 16x8x16 tiles with one mma.sync each (fp16 or bf16 in, fp32 accumulate), its
// operands loaded from shared memory by ldmatrix in exactly the registers mma expects. Global
// tiles come in by cp.async, three stages deep, so two K-tiles are in flight while the warps
// multiply the third, and no register holds a tile on its way.
//
// Levels: a block computes BM x BN of C (grid: one block per tile, BlockTile's order), a warp
// WM x WN (kMTiles x kNTiles mma tiles), an instruction 16 x 8 x 16. A and B arrive as 16-bit
// words of kInputs, row-major (A: M x K, B: K x N); C is fp32, row-major.
//
// Not a catalogue row yet (it needs the dtype in the problem and a Vulkan twin): checked in the
// CPU emulator (tests/test_mma_emulation.cpp) and on the GPU (bench/tune/k13_check.cu, which
// also times it against cuBLAS; bench/NOTES.md step 17).
#pragma once

#include <cstdint>

#include "gemm_common.cuh"
#include "mma_common.cuh"

namespace tileskip::cuda {

// Eight 16-bit elements per 16-byte copy; rows of shared memory are padded by one such chunk.
// With a row of BK + 8 elements (80 bytes for BK 32) the 8 rows one ldmatrix matrix reads start
// 20 banks apart, which covers all 32 banks once: no conflict. The same holds for B's rows of
// BN + 8 elements (272 bytes, 4 banks apart mod 32).
inline constexpr int kMmaChunk = 8;
inline constexpr int kMmaPad = 8;

template <int BM, int BN, int BK>
struct MmaStageLayout {
  static constexpr int kAStride = BK + kMmaPad, kBStride = BN + kMmaPad;  // elements per row
  static constexpr int kAElements = BM * kAStride, kBElements = BK * kBStride;
  static constexpr int kElements = kAElements + kBElements;
  static_assert((kAStride * 2) % 16 == 0 && (kBStride * 2) % 16 == 0, "ldmatrix rows must stay 16-byte aligned");
};

template <int BM, int BN, int BK, int kStages>
__host__ __device__ constexpr std::size_t mmaSharedBytes() {
  return static_cast<std::size_t>(kStages) * MmaStageLayout<BM, BN, BK>::kElements * sizeof(std::uint16_t);
}

// Copies one K-tile (A: BM x BK at (rowBase, kBase), B: BK x BN at (kBase, colBase)) into a
// stage. Where every row starts 16-byte aligned (K and N multiples of 8), 16-byte cp.async
// chunks, each wholly inside or wholly outside the matrix; otherwise element by element, plain
// loads and stores, which the barrier before the stage is read publishes all the same.
template <int BM, int BN, int BK, int kThreads>
__device__ void loadMmaKTile(const std::uint16_t* __restrict__ A, const std::uint16_t* __restrict__ B, int M, int N,
                             int K, int rowBase, int colBase, int kBase, std::uint16_t* As, std::uint16_t* Bs,
                             bool chunked, int tid) {
  using Layout = MmaStageLayout<BM, BN, BK>;
  constexpr int kAChunksPerRow = BK / kMmaChunk, kBChunksPerRow = BN / kMmaChunk;
  constexpr int kAChunks = BM * kAChunksPerRow, kBChunks = BK * kBChunksPerRow;
  static_assert(kAChunks % kThreads == 0 && kBChunks % kThreads == 0, "the tiles must split evenly into chunks");
#pragma unroll
  for (int i = 0; i < kAChunks / kThreads; ++i) {
    const int chunk = tid + i * kThreads;
    const int m = chunk / kAChunksPerRow, kk = (chunk % kAChunksPerRow) * kMmaChunk;
    const int row = rowBase + m, k = kBase + kk;
    std::uint16_t* destination = As + m * Layout::kAStride + kk;
    if (chunked) {
      const bool inside = row < M && k < K;
      copyAsync16(destination, inside ? A + row * K + k : A, inside ? 16 : 0);
    } else {
      for (int e = 0; e < kMmaChunk; ++e) {
        destination[e] = row < M && k + e < K ? A[row * K + k + e] : std::uint16_t{0};
      }
    }
  }
#pragma unroll
  for (int i = 0; i < kBChunks / kThreads; ++i) {
    const int chunk = tid + i * kThreads;
    const int kk = chunk / kBChunksPerRow, nn = (chunk % kBChunksPerRow) * kMmaChunk;
    const int k = kBase + kk, col = colBase + nn;
    std::uint16_t* destination = Bs + kk * Layout::kBStride + nn;
    if (chunked) {
      const bool inside = k < K && col < N;
      copyAsync16(destination, inside ? B + k * N + col : B, inside ? 16 : 0);
    } else {
      for (int e = 0; e < kMmaChunk; ++e) {
        destination[e] = k < K && col + e < N ? B[k * N + col + e] : std::uint16_t{0};
      }
    }
  }
}

template <MmaInput kInputs, int BM, int BN, int BK, int WM, int WN, int kStages, int kThreads>
__global__ void __launch_bounds__(kThreads)
    mmaDense(const std::uint16_t* __restrict__ A, const std::uint16_t* __restrict__ B, float* __restrict__ C, int M,
             int N, int K) {
  using Layout = MmaStageLayout<BM, BN, BK>;
  constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
  constexpr int kMTiles = WM / kMmaM, kNTiles = WN / kMmaN;
  static_assert(kWarpsM * kWarpsN * 32 == kThreads, "one warp per warp tile");
  static_assert(WM % kMmaM == 0 && WN % (2 * kMmaN) == 0 && BK % kMmaK == 0,
                "warp tiles are whole mma tiles; B's fragments come two column tiles per ldmatrix.x4");
  static_assert(kStages >= 2, "a pipeline needs a stage to fill while another is read");

  const BlockTile<BM, BN> block(N);
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32, lane = tid % 32;
  const int warpRow = (warp / kWarpsN) * WM, warpCol = (warp % kWarpsN) * WN;
  auto* stages = reinterpret_cast<std::uint16_t*>(dynamicSharedMemory(mmaSharedBytes<BM, BN, BK, kStages>()));
  auto stageA = [&](int stage) { return stages + stage * Layout::kElements; };
  auto stageB = [&](int stage) { return stages + stage * Layout::kElements + Layout::kAElements; };

  // 16-byte copies need every row of A and B to start 16-byte aligned: K and N multiples of 8
  // (cudaMalloc'd bases are 256-byte aligned). The decision is the same for every thread.
  const bool chunked = K % kMmaChunk == 0 && N % kMmaChunk == 0 &&
                       (reinterpret_cast<std::uintptr_t>(A) | reinterpret_cast<std::uintptr_t>(B)) % 16 == 0;
  const int kTiles = (K + BK - 1) / BK;
  auto load = [&](int kTile) {
    const int stage = kTile % kStages;
    loadMmaKTile<BM, BN, BK, kThreads>(A, B, M, N, K, block.rowBase, block.colBase, kTile * BK, stageA(stage),
                                       stageB(stage), chunked, tid);
  };

  float acc[kMTiles][kNTiles][4] = {};

  // Prologue: K-tiles 0 .. kStages-2 in flight. Every thread commits one group per K-tile slot,
  // empty or not, so "the group of K-tile t" is the same count of commits in every thread.
  for (int t = 0; t < kStages - 1; ++t) {
    if (t < kTiles) load(t);
    commitCopies();
  }
  for (int kTile = 0; kTile < kTiles; ++kTile) {
    // This thread's copies of kTile have landed; the barrier makes everyone's visible, and
    // tells that every warp has finished reading the stage the next load overwrites (kTile-1's).
    waitCopies<kStages - 2>();
    __syncthreads();
    if (kTile + kStages - 1 < kTiles) load(kTile + kStages - 1);
    commitCopies();

    const std::uint16_t* As = stageA(kTile % kStages);
    const std::uint16_t* Bs = stageB(kTile % kStages);
#pragma unroll
    for (int kk = 0; kk < BK; kk += kMmaK) {
      // A's fragment of m tile i: its four 8x8 quarters, lane l addressing row l % 16 of the
      // tile at column 8 * (l / 16) (mma_common.cuh's order: rows 0-7/8-15, then columns 8-15).
      unsigned aFragments[kMTiles][4];
#pragma unroll
      for (int i = 0; i < kMTiles; ++i) {
        loadMatrixX4(aFragments[i], As + (warpRow + i * kMmaM + lane % 16) * Layout::kAStride + kk + 8 * (lane / 16));
      }
      // B's fragments of column tiles j and j + 1 in one x4.trans: lane l addresses k-row l % 16
      // at column 8 * (l / 16) of the pair (registers 0-1: tile j, 2-3: tile j + 1).
      unsigned bFragments[kNTiles][2];
#pragma unroll
      for (int j = 0; j < kNTiles; j += 2) {
        unsigned pair[4];
        loadMatrixX4Transposed(pair, Bs + (kk + lane % 16) * Layout::kBStride + warpCol + j * kMmaN + 8 * (lane / 16));
        bFragments[j][0] = pair[0];
        bFragments[j][1] = pair[1];
        bFragments[j + 1][0] = pair[2];
        bFragments[j + 1][1] = pair[3];
      }
#pragma unroll
      for (int i = 0; i < kMTiles; ++i) {
#pragma unroll
        for (int j = 0; j < kNTiles; ++j) mmaM16N8K16<kInputs>(acc[i][j], aFragments[i], bFragments[j]);
      }
    }
  }
  waitCopies<0>();  // no copy may still target shared memory when the block exits

  // acc[i][j] holds C rows g and g + 8, columns 2t and 2t + 1 of mma tile (i, j).
  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int i = 0; i < kMTiles; ++i) {
#pragma unroll
    for (int j = 0; j < kNTiles; ++j) {
      const int row = block.rowBase + warpRow + i * kMmaM + g;
      const int col = block.colBase + warpCol + j * kMmaN + 2 * t;
      storeScalar(C, M, N, row, col, acc[i][j][0]);
      storeScalar(C, M, N, row, col + 1, acc[i][j][1]);
      storeScalar(C, M, N, row + 8, col, acc[i][j][2]);
      storeScalar(C, M, N, row + 8, col + 1, acc[i][j][3]);
    }
  }
}

}  // namespace tileskip::cuda
