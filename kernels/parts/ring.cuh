// The tensor cores' stage ring (the twin of ring.glsl): K-tiles of 16-bit (or tf32) values copied
// by cp.async into a ring of stages, so that the next ones are on their way while the warps multiply
// one; the warp tile of ThreadMapping::MmaTiles that multiplies them. Shared by K13, S10 and, over
// gathered columns instead of K-blocks, S14.
#pragma once

#include <cstdint>
#include <type_traits>
#include "common.cuh"
#include "mma.cuh"
#include "pipeline.cuh"  // AllKBlocks: K-tiles as slots of K-blocks, the dense schedule

namespace tileskip::cuda {

// A stage of the ring: A's tile (BM rows of BK values) and B's, BK rows of BN values, or for an
// input read along K (tf32) BN rows of BK values, as A's. A 16-byte copy is a chunk (8 16-bit
// values, 4 tf32 ones), and every row is padded by one chunk: with rows of 48 or 80 bytes (BK 16,
// 16-bit or tf32) the 8 rows one ldmatrix matrix reads start 12 or 20 banks apart, which covers
// all 32 banks once: no conflict. The same holds for 16-bit B's rows of BN + 8 values (272
// bytes for BN 128, 4 banks apart mod 32).
template <DType kDType>
inline constexpr int kMmaChunk = 16 / static_cast<int>(sizeof(typename MmaInputType<kDType>::Word));  // values per copy

// kAByK: A's tile stored K-major, BK rows of BM values (the compaction kernels', whose K-tiles are
// rows of A transposed, parts/gather.cuh); its rows padded by a chunk as B's.
template <DType kDType, int BM, int BN, int BK, bool kAByK = false>
struct MmaStageLayout {
  using Input = MmaInputType<kDType>;
  using Word = typename Input::Word;
  static constexpr int kChunk = kMmaChunk<kDType>;
  static constexpr int kARows = kAByK ? BK : BM, kAStride = kAByK ? BM + kChunk : BK + kChunk;  // values per row
  static constexpr int kBRows = Input::kBAlongK ? BN : BK, kBStride = Input::kBAlongK ? BK + kChunk : BN + kChunk;
  static constexpr int kAElements = kARows * kAStride, kBElements = kBRows * kBStride;
  static constexpr int kElements = kAElements + kBElements;
  static_assert(kKBlock % kChunk == 0, "a K-block of a row is whole chunks");
};

template <DType kDType, int BM, int BN, int BK, int kStages, bool kAByK = false>
__host__ __device__ constexpr std::size_t mmaSharedBytes() {
  using Layout = MmaStageLayout<kDType, BM, BN, BK, kAByK>;
  return static_cast<std::size_t>(kStages) * Layout::kElements * sizeof(typename Layout::Word);
}

// Copies one K-tile into a stage. A K-tile is BK / 8 K-blocks that need not be neighbours in K
// (K11's slots, pipeline.cuh): slot s holds K-block kBlocks[s], a negative one zeros. A
// 16-byte chunk is part of a K-block of a row along K (A's, and B^T's for tf32: one chunk of 16-bit
// values, two of tf32), or 8 columns of a K-row of 16-bit B. Where every row starts 16-byte aligned
// (K, and N for 16-bit B, multiples of a chunk), 16-byte cp.async chunks, each wholly inside or
// wholly outside the matrix; otherwise element by element, plain loads and stores, which the
// barrier before the stage is read publishes all the same.
// kBlocks[slot] for a slot that depends on the thread: a select over the slots, so the array
// stays in registers. Indexed directly, it went to local memory, and every chunk's address waited
// on a load from it (K13 14 % slower on the H200, lab/20-s10-skip-tensor).
template <int kSlots>
__device__ int kBlockOfSlot(const int (&kBlocks)[kSlots], int slot) {
  int kBlock = kBlocks[0];
#pragma unroll
  for (int s = 1; s < kSlots; ++s) kBlock = slot == s ? kBlocks[s] : kBlock;
  return kBlock;
}

// The K-tile's slots of kRows rows along K (A, or B^T), from row `rowBase` of a matrix of `rows`
// rows of K values, into a stage tile of kStride values per row.
template <DType kDType, int kRows, int kStride, int BK, int kThreads>
__device__ void loadRowsAlongK(const typename MmaInputType<kDType>::Word* __restrict__ source, int rows, int K, int rowBase,
                               const int (&kBlocks)[BK / kKBlock], typename MmaInputType<kDType>::Word* tile, bool chunked,
                               int tid) {
  using Word = typename MmaInputType<kDType>::Word;
  constexpr int kChunk = kMmaChunk<kDType>;
  constexpr int kSlots = BK / kKBlock, kChunksPerSlot = kKBlock / kChunk, kChunks = kRows * kSlots * kChunksPerSlot;
  static_assert(kChunks % kThreads == 0, "the tile must split evenly into chunks");
#pragma unroll
  for (int i = 0; i < kChunks / kThreads; ++i) {
    const int chunk = tid + i * kThreads;
    const int r = chunk / (kSlots * kChunksPerSlot), slot = chunk / kChunksPerSlot % kSlots, part = chunk % kChunksPerSlot;
    const int row = rowBase + r, kBlock = kBlockOfSlot(kBlocks, slot);  // negative for an empty slot
    const int k = kBlock * kKBlock + part * kChunk;
    Word* destination = tile + r * kStride + slot * kKBlock + part * kChunk;
    if (chunked) {
      const bool inside = row < rows && kBlock >= 0 && k < K;
      copyAsync16(destination, inside ? source + row * K + k : source, inside ? 16 : 0);
    } else {
      for (int e = 0; e < kChunk; ++e) {
        destination[e] = row < rows && kBlock >= 0 && k + e < K ? source[row * K + k + e] : Word{0};
      }
    }
  }
}

template <DType kDType, int BM, int BN, int BK, int kThreads>
__device__ void loadMmaKTile(const typename MmaInputType<kDType>::Word* __restrict__ A,
                             const typename MmaInputType<kDType>::Word* __restrict__ B, int M, int N, int K, int rowBase,
                             int colBase, const int (&kBlocks)[BK / kKBlock], typename MmaInputType<kDType>::Word* As,
                             typename MmaInputType<kDType>::Word* Bs, bool chunked, int tid) {
  using Layout = MmaStageLayout<kDType, BM, BN, BK>;
  using Word = typename Layout::Word;
  loadRowsAlongK<kDType, BM, Layout::kAStride, BK, kThreads>(A, M, K, rowBase, kBlocks, As, chunked, tid);
  if constexpr (Layout::Input::kBAlongK) {
    loadRowsAlongK<kDType, BN, Layout::kBStride, BK, kThreads>(B, N, K, colBase, kBlocks, Bs, chunked, tid);
  } else {
    constexpr int kChunk = Layout::kChunk, kBChunksPerRow = BN / kChunk, kBChunks = BK * kBChunksPerRow;
    static_assert(kBChunks % kThreads == 0, "the tile must split evenly into chunks");
#pragma unroll
    for (int i = 0; i < kBChunks / kThreads; ++i) {
      const int chunk = tid + i * kThreads;
      const int kk = chunk / kBChunksPerRow, nn = (chunk % kBChunksPerRow) * kChunk;
      const int kBlock = kBlockOfSlot(kBlocks, kk / kKBlock), k = kBlock * kKBlock + kk % kKBlock, col = colBase + nn;
      Word* destination = Bs + kk * Layout::kBStride + nn;
      if (chunked) {
        const bool inside = kBlock >= 0 && k < K && col < N;
        copyAsync16(destination, inside ? B + k * N + col : B, inside ? 16 : 0);
      } else {
        for (int e = 0; e < kChunk; ++e) {
          destination[e] = kBlock >= 0 && k < K && col + e < N ? B[k * N + col + e] : Word{0};
        }
      }
    }
  }
}

// Copies one K-tile of gathered columns into a stage (the compaction kernels): depth kk of the
// K-tile is column schedule.columnOf(kTile, kk) of the problem (negative: zeros), which is row
// `column` of A transposed (K rows of transposedRowLength(M), `At`) and row `column` of B, each
// copied BM or BN values wide in chunks, so A's stage is K-major (MmaStageLayout's kAByK). Chunked
// where N is a multiple of a chunk (every row of At and B 16-byte aligned, each chunk wholly inside
// or outside: At's rows are padded to whole chunks), element by element otherwise, as loadMmaKTile.
template <DType kDType, int BM, int BN, int BK, int kThreads, class Schedule>
__device__ void loadGatheredKTile(const typename MmaInputType<kDType>::Word* __restrict__ At,
                                  const typename MmaInputType<kDType>::Word* __restrict__ B, int M, int N, int rowBase,
                                  int colBase, const Schedule& schedule, int kTile, typename MmaInputType<kDType>::Word* As,
                                  typename MmaInputType<kDType>::Word* Bs, bool chunked, int tid) {
  using Layout = MmaStageLayout<kDType, BM, BN, BK, true>;
  using Word = typename Layout::Word;
  static_assert(!Layout::Input::kBAlongK, "gathered columns are rows of 16-bit B");
  // One operand's rows: `width` values of row `column` from `first` on, chunk by chunk.
  auto copyRows = [&](const Word* __restrict__ source, int width, int first, Word* tile, int stride, auto chunksPerRow) {
    constexpr int kPerRow = decltype(chunksPerRow)::value, kChunks = BK * kPerRow, kChunk = Layout::kChunk;
    static_assert(kChunks % kThreads == 0, "the tile must split evenly into chunks");
#pragma unroll
    for (int i = 0; i < kChunks / kThreads; ++i) {
      const int chunk = tid + i * kThreads;
      const int kk = chunk / kPerRow, at = (chunk % kPerRow) * kChunk;
      const int column = schedule.columnOf(kTile, kk);  // the same for a row's chunks: a shared read
      Word* destination = tile + kk * stride + at;
      if (chunked) {
        const bool inside = column >= 0 && first + at < width;
        copyAsync16(destination, inside ? source + static_cast<long long>(column) * width + first + at : source, inside ? 16 : 0);
      } else {
        for (int e = 0; e < kChunk; ++e) {
          destination[e] = column >= 0 && first + at + e < width ? source[static_cast<long long>(column) * width + first + at + e]
                                                                 : Word{0};
        }
      }
    }
  };
  copyRows(At, transposedRowLength(M), rowBase, As, Layout::kAStride, std::integral_constant<int, BM / Layout::kChunk>{});
  copyRows(B, N, colBase, Bs, Layout::kBStride, std::integral_constant<int, BN / Layout::kChunk>{});
}

// One warp's tile of the tensor-core kernels: kMTiles x kNTiles MMA tiles of 16 x 8, their
// accumulators in the fragment layout of mma.cuh (the catalogue's ThreadMapping::MmaTiles).
template <DType kDType, int BM, int BN, int BK, int WM, int WN, int kThreads, bool kAByK = false>
struct MmaWarpTile {
  using Layout = MmaStageLayout<kDType, BM, BN, BK, kAByK>;
  using Word = typename Layout::Word;
  static constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
  static constexpr int kMTiles = WM / kMmaM, kNTiles = WN / kMmaN;
  static_assert(kWarpsM * kWarpsN * 32 == kThreads, "one warp per warp tile");
  static_assert(WM % kMmaM == 0 && WN % (2 * kMmaN) == 0 && BK % kMmaK == 0,
                "warp tiles are whole mma tiles; B's fragments come two column tiles per ldmatrix.x4");

  // Where warp `warp` of the block sits in the block tile: the one rule, for this warp and for
  // code that works out every warp's share (S10's recordKeptSteps).
  static __device__ constexpr int rowOf(int warp) { return (warp / kWarpsN) * WM; }
  static __device__ constexpr int colOf(int warp) { return (warp % kWarpsN) * WN; }

  int index, warpRow, warpCol, lane;  // index: the warp in its block
  float acc[kMTiles][kNTiles][4] = {};

  __device__ explicit MmaWarpTile(int tid) : index(tid / 32), warpRow(rowOf(tid / 32)), warpCol(colOf(tid / 32)), lane(tid % 32) {}

  // The MMAs of the 16 depths kk .. kk + 15 of a stage: one MMA step of 16-bit inputs, two of tf32.
  __device__ void multiplyStep(const Word* As, const Word* Bs, int kk) {
    constexpr int kChunk = Layout::kChunk;
#pragma unroll
    for (int depth = kk; depth < kk + kMmaK; depth += Layout::Input::kStepK) {
      // A's fragment of m tile i: its four 8-row quarters, lane l addressing row l % 16 of the
      // tile a chunk along K past `depth` for l >= 16 (mma.cuh's order: rows 0-7/8-15, then
      // the step's second half of K: 8 16-bit values, or 4 tf32).
      unsigned aFragments[kMTiles][4];
#pragma unroll
      for (int i = 0; i < kMTiles; ++i) {
        if constexpr (kAByK) {
          // The same four quarters from a K-major tile, each transposed as it loads: lane l
          // addresses K-row l % 8 (+ 8 for l >= 16) at the quarter's rows, 8 * ((l / 8) % 2) on.
          loadMatrixX4Transposed(aFragments[i], As + (depth + lane % 8 + 8 * (lane / 16)) * Layout::kAStride + warpRow +
                                                    i * kMmaM + 8 * (lane / 8 % 2));
        } else {
          loadMatrixX4(aFragments[i], As + (warpRow + i * kMmaM + lane % 16) * Layout::kAStride + depth + kChunk * (lane / 16));
        }
      }
      unsigned bFragments[kNTiles][2];
#pragma unroll
      for (int j = 0; j < kNTiles; j += 2) {
        unsigned pair[4];
        if constexpr (Layout::Input::kBAlongK) {
          // B^T's rows are A's: lane l addresses column l % 16 of tiles j and j + 1 a chunk past
          // `depth` for l >= 16 (registers 0 and 2: tile j's K halves, 1 and 3: tile j + 1's).
          loadMatrixX4(pair, Bs + (warpCol + j * kMmaN + lane % 16) * Layout::kBStride + depth + kChunk * (lane / 16));
          bFragments[j][0] = pair[0];
          bFragments[j][1] = pair[2];
          bFragments[j + 1][0] = pair[1];
          bFragments[j + 1][1] = pair[3];
        } else {
          // Column tiles j and j + 1 in one x4.trans: lane l addresses k-row l % 16 at column
          // 8 * (l / 16) of the pair (registers 0-1: tile j, 2-3: tile j + 1).
          loadMatrixX4Transposed(pair, Bs + (depth + lane % 16) * Layout::kBStride + warpCol + j * kMmaN + 8 * (lane / 16));
          bFragments[j][0] = pair[0];
          bFragments[j][1] = pair[1];
          bFragments[j + 1][0] = pair[2];
          bFragments[j + 1][1] = pair[3];
        }
      }
#pragma unroll
      for (int i = 0; i < kMTiles; ++i) {
#pragma unroll
        for (int j = 0; j < kNTiles; ++j) mmaStep<kDType>(acc[i][j], aFragments[i], bFragments[j]);
      }
    }
  }

  // acc[i][j] holds C rows g and g + 8, columns 2t and 2t + 1 of mma tile (i, j).
  __device__ void store(float* C, int M, int N, int rowBase, int colBase) const {
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < kMTiles; ++i) {
#pragma unroll
      for (int j = 0; j < kNTiles; ++j) {
        const int row = rowBase + warpRow + i * kMmaM + g;
        const int col = colBase + warpCol + j * kMmaN + 2 * t;
        storeScalar(C, M, N, row, col, acc[i][j][0]);
        storeScalar(C, M, N, row, col + 1, acc[i][j][1]);
        storeScalar(C, M, N, row + 8, col, acc[i][j][2]);
        storeScalar(C, M, N, row + 8, col + 1, acc[i][j][3]);
      }
    }
  }
};

// The ring main loop, the tensor cores' pipelinedMainLoop: `schedule` names the K-blocks of each
// K-tile (steps(), kBlocksOf(step, kBlocks)), K-tiles 0 .. kStages - 2 are in flight before the
// first is multiplied, and `compute(As, Bs, step)` does the warp's MMAs of the staged K-tile. The
// stage pointers are shared memory of mmaSharedBytes(); every thread runs the same steps, so the
// barrier per K-tile is block-uniform.
// A schedule of gathered columns (parts/gather.cuh) names each K-tile's columns instead
// (columnOf(step, depth)); A is then transposed, K x M, and its stages K-major.
template <class Schedule>
concept GathersColumns = requires(const Schedule& schedule) { schedule.columnOf(0, 0); };

template <DType kDType, int BM, int BN, int BK, int kStages, int kThreads, class Schedule, class Compute>
__device__ void mmaRingMainLoop(const typename MmaInputType<kDType>::Word* __restrict__ A,
                                const typename MmaInputType<kDType>::Word* __restrict__ B, int M, int N, int K,
                                const BlockTile<BM, BN>& block, const Schedule& schedule, Compute&& compute,
                                typename MmaInputType<kDType>::Word* stages) {
  constexpr bool kGathers = GathersColumns<Schedule>;
  using Layout = MmaStageLayout<kDType, BM, BN, BK, kGathers>;
  static_assert(kStages >= 2, "a pipeline needs a stage to fill while another is read");
  const int tid = static_cast<int>(threadIdx.x);
  auto stageA = [&](int stage) { return stages + stage * Layout::kElements; };
  auto stageB = [&](int stage) { return stages + stage * Layout::kElements + Layout::kAElements; };
  // 16-byte copies need every row of A and B to start 16-byte aligned: K, and N where B is read
  // along N, multiples of a chunk (cudaMalloc'd bases are 256-byte aligned). The decision is the
  // same for every thread.
  // (A transposed: its rows are padded to whole chunks, catalogue.hpp's transposedRowLength.)
  const bool chunked = (kGathers || K % Layout::kChunk == 0) && (Layout::Input::kBAlongK || N % Layout::kChunk == 0) &&
                       (reinterpret_cast<std::uintptr_t>(A) | reinterpret_cast<std::uintptr_t>(B)) % 16 == 0;
  const int kTiles = schedule.steps();
  auto load = [&](int kTile) {
    const int stage = kTile % kStages;
    if constexpr (kGathers) {
      loadGatheredKTile<kDType, BM, BN, BK, kThreads>(A, B, M, N, block.rowBase, block.colBase, schedule, kTile,
                                                      stageA(stage), stageB(stage), chunked, tid);
    } else {
      int kBlocks[BK / kKBlock];
      schedule.kBlocksOf(kTile, kBlocks);
      loadMmaKTile<kDType, BM, BN, BK, kThreads>(A, B, M, N, K, block.rowBase, block.colBase, kBlocks, stageA(stage),
                                                 stageB(stage), chunked, tid);
    }
  };
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
    compute(stageA(kTile % kStages), stageB(kTile % kStages), kTile);
  }
  waitCopies<0>();  // no copy may still target shared memory when the loop is left
  __syncthreads();  // nor may a warp still read a stage that the next block tile's prologue fills
}

}  // namespace tileskip::cuda
