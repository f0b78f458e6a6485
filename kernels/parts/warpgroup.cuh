// Hopper's warpgroup ring (CUDA only: Vulkan has neither warpgroup MMAs nor the copy engine): a
// producer warpgroup has the copy engine fill a ring of swizzled stages, consumer warpgroups
// multiply them with warpgroup MMAs. Shared by K14, S11 and S12.
#pragma once

#include <cstddef>
#include <cstdint>
#include "common.cuh"
#include "hopper.cuh"
#include "mma.cuh"

namespace tileskip::cuda {

// Whether the copy engine can move A and B as the kernel reads them: each row must start 16-byte
// aligned (cudaMalloc'd bases are), so 16-bit rows of K and N values multiples of 8, tf32 rows
// (A's and transposed B's, K values each) multiples of 4; the kernel's element copies take every
// other shape.
__host__ __device__ constexpr bool bulkCopiesFit(DType dtype, int n, int k) {
  return dtype == DType::Tf32 ? k % 4 == 0 : k % 8 == 0 && n % 8 == 0;
}

// A row's K-tile for dtype D (KernelInfo::kTileDepth), as a constant device code may read: nvcc
// evaluates a host function's call in a kernel only where it is not device code.
template <const KernelInfo& Row, DType D>
inline constexpr int kRowKTileDepth = Row.kTileDepth(D);

// The K-tile of kDType: one swizzled row, however many values that holds.
template <DType kDType>
inline constexpr int kWgmmaKTile = kRowValues<kDType>;

// A stage: A's BM rows of one K-tile (one swizzled row each), then B: for 16-bit inputs in boxes
// of one swizzled row of columns, each BK K-rows; for tf32 BN rows of transposed B, one swizzled
// row of K each. After the ring, a full and an empty mbarrier per stage. The block asks for an
// atom more than it uses, to start the ring on a 1024-byte boundary.
template <DType kDType, int BM, int BN, int BK, int kStages>
struct WgmmaLayout {
  static_assert(BK == kWgmmaKTile<kDType>, "a K-tile is one swizzled row of A");
  static_assert(BN % kRowValues<kDType> == 0, "B comes in whole swizzled rows");
  static constexpr int kABytes = BM * kSwizzleRowBytes;
  static constexpr int kBBoxBytes = BK * kSwizzleRowBytes;  // 16-bit B's box of one swizzled row of columns
  static constexpr int kBBytes = BN * kSwizzleRowBytes;      // either way: BN x BK values
  static constexpr int kStageBytes = kABytes + kBBytes;
  static_assert(kABytes % kSwizzleAtomBytes == 0 && kBBoxBytes % kSwizzleAtomBytes == 0, "every box starts on an atom");
  static constexpr std::size_t kSharedBytes =
      static_cast<std::size_t>(kStages) * kStageBytes + 2 * kStages * sizeof(std::uint64_t) + kSwizzleAtomBytes;
};

// The element-by-element copies of a K-tile into a stage, by the producer's copying thread
// `thread` (0 .. kCopyThreads - 1): zeros outside the matrices, each value where the copy engine
// would put it. A's rows [rowBase, rowBase + kRows) of an M x K matrix at K-tile kTile, K-major in
// swizzled rows from `aStage`:
template <DType kDType, int kRows, int BK, int kCopyThreads>
__device__ void copyWgmmaARowsByElements(const typename MmaInputType<kDType>::Word* __restrict__ A, int M, int K, int rowBase, int kTile,
                                         unsigned char* aStage, int thread) {
  using Word = typename MmaInputType<kDType>::Word;
  constexpr int kWordBytes = sizeof(Word);
  const int k0 = kTile * BK;
  for (int e = thread; e < kRows * BK; e += kCopyThreads) {
    const int r = e / BK, c = e % BK, row = rowBase + r, k = k0 + c;
    const Word v = row < M && k < K ? A[static_cast<std::size_t>(row) * K + k] : Word{0};
    *reinterpret_cast<Word*>(aStage + swizzled(r * kSwizzleRowBytes + c * kWordBytes)) = v;
  }
}

// B's K-tile kTile, BK rows of BN columns from colBase (transposed where the MMA reads B along K),
// into `bStage` as the copy engine lays it out.
template <DType kDType, int BN, int BK, int kCopyThreads>
__device__ void copyWgmmaBByElements(const typename MmaInputType<kDType>::Word* __restrict__ B, int N, int K, int colBase, int kTile,
                                     unsigned char* bStage, int thread) {
  using Word = typename MmaInputType<kDType>::Word;
  constexpr int kWordBytes = sizeof(Word), kBBoxBytes = BK * kSwizzleRowBytes;
  const int k0 = kTile * BK;
  for (int e = thread; e < BK * BN; e += kCopyThreads) {
    if constexpr (MmaInputType<kDType>::kBAlongK) {
      // Transposed B: row c (a column of B) holds the K-tile's values along K, as A's rows do.
      const int c = e / BK, kk = e % BK, k = k0 + kk, col = colBase + c;
      const Word v = k < K && col < N ? B[static_cast<std::size_t>(col) * K + k] : Word{0};
      *reinterpret_cast<Word*>(bStage + swizzled(c * kSwizzleRowBytes + kk * kWordBytes)) = v;
    } else {
      const int kk = e / BN, c = e % BN, k = k0 + kk, col = colBase + c;
      const Word v = k < K && col < N ? B[static_cast<std::size_t>(k) * N + col] : Word{0};
      unsigned char* box = bStage + (c / kRowValues<kDType>) * kBBoxBytes;
      *reinterpret_cast<Word*>(box + swizzled(kk * kSwizzleRowBytes + (c % kRowValues<kDType>) * kWordBytes)) = v;
    }
  }
}

// Both operands' K-tile `kTile` of the tile at (rowBase, colBase).
template <DType kDType, int BM, int BN, int BK, int kStages, int kCopyThreads>
__device__ void copyWgmmaKTileByElements(const typename MmaInputType<kDType>::Word* __restrict__ A,
                                         const typename MmaInputType<kDType>::Word* __restrict__ B, int M, int N, int K,
                                         int rowBase, int colBase, int kTile, unsigned char* stage, int thread) {
  using Layout = WgmmaLayout<kDType, BM, BN, BK, kStages>;
  copyWgmmaARowsByElements<kDType, BM, BK, kCopyThreads>(A, M, K, rowBase, kTile, stage, thread);
  copyWgmmaBByElements<kDType, BN, BK, kCopyThreads>(B, N, K, colBase, kTile, stage + Layout::kABytes, thread);
}

// What a queue kernel's producer tells the consumers with each entry of its ring, in a note per
// stage: the tile (its queue index; negative: no tiles are left), which consumers multiply the
// stage (bit c: consumer warpgroup c), and whether it is the tile's last, after which they store it.
struct WgmmaStageNote {
  int tile;
  std::uint8_t consumers;
  bool last;
};

// Step `step` of a gathered list of columns (gather.cuh's PaddedGatheredColumns: BK of them a
// K-tile, -1 past the list's end) into a stage, by the producer's copying thread `thread` (0 ..
// kCopyThreads - 1), for a ring whose A is M-major (kAByM): K-row j of the stage holds column j's
// row of A transposed (At, K rows of transposedRowLength(M)) and its row of B, each in boxes of one
// swizzled row of the tile's rows or columns, as 16-byte asynchronous copies where `chunks` (N a
// multiple of 8, so every copy's source is 16-byte aligned, as At's padded rows always are, and
// At's and B's sizes below 2^32, so a row's offset is 32 bits), value by value otherwise. Zeros
// past At's rows, N and the list's end. The caller commits the copies and,
// once they have landed, fences them for the MMAs.
template <DType kDType, int BM, int BN, int BK, int kStages, int kCopyThreads, class Columns>
__device__ void copyGatheredKTile(const typename MmaInputType<kDType>::Word* __restrict__ At,
                                  const typename MmaInputType<kDType>::Word* __restrict__ B, int M, int N, int rowBase,
                                  int colBase, const Columns& columns, int step, bool chunks, unsigned char* stage, int thread) {
  using Layout = WgmmaLayout<kDType, BM, BN, BK, kStages>;
  using Word = typename MmaInputType<kDType>::Word;
  static_assert(!MmaInputType<kDType>::kBAlongK, "gathered rows are 16-bit values");
  constexpr int kWordBytes = sizeof(Word), kChunkValues = 16 / kWordBytes, kBoxValues = kRowValues<kDType>;
  // One operand's K-rows: kWidth values of each listed column's row of `matrix` (`extent` values a
  // row), from `base` on, into boxes of kBoxValues at `boxes`.
  auto copyRows = [&]<int kWidth>(const Word* __restrict__ matrix, int extent, int base, unsigned char* boxes) {
    if (chunks) {
      // The producer's copies issue as fast as the MMAs consume them only if each is a few
      // instructions (lab/53-compact-wgmma): a thread keeps one chunk of the row, the same in every
      // K-row it copies, so its destination, its source within a row and whether it lies inside the
      // matrix (a chunk is wholly inside or outside: At's padded rows and N are multiples of 8) are
      // fixed for the tile; only the column changes from K-row to K-row. Its K-rows are kRowsPerPass
      // apart, so
      // their swizzle takes at most 8 / kRowsPerPass values (kRowsPerPass divides 8: whole atoms).
      constexpr int kPerRow = kWidth / kChunkValues, kRowsPerPass = kCopyThreads / kPerRow;
      constexpr int kSwizzles = kRowsPerPass >= 8 ? 1 : 8 / kRowsPerPass;
      static_assert(kCopyThreads % kPerRow == 0 && BK % kRowsPerPass == 0 && (kRowsPerPass % 8 == 0 || 8 % kRowsPerPass == 0),
                    "whole K-rows a pass of the copying threads, passes in step with the swizzle's atoms");
      const int c = (thread % kPerRow) * kChunkValues, firstRow = thread / kPerRow;
      const int outside = base + c >= extent ? -1 : 0;  // or-ed into a column: negative, the chunk is zeros
      const Word* __restrict__ from = matrix + base + c;
      unsigned char* to[kSwizzles];
#pragma unroll
      for (int i = 0; i < kSwizzles; ++i) {
        to[i] = boxes + (c / kBoxValues) * Layout::kBBoxBytes +
                swizzled((firstRow + i * kRowsPerPass) * kSwizzleRowBytes + (c % kBoxValues) * kWordBytes) -
                (firstRow + i * kRowsPerPass) * kSwizzleRowBytes;
      }
#pragma unroll 4
      for (int pass = 0; pass < BK / kRowsPerPass; ++pass) {
        const int j = firstRow + pass * kRowsPerPass, k = columns.columnOf(step, j) | outside;
        const unsigned row = k < 0 ? 0u : static_cast<unsigned>(k) * static_cast<unsigned>(extent);
        copyAsync16OrZeros(to[pass % kSwizzles] + j * kSwizzleRowBytes, from + row, k < 0);
      }
      return;
    }
    for (int e = thread; e < BK * kWidth; e += kCopyThreads) {
      const int j = e / kWidth, c = e % kWidth, k = columns.columnOf(step, j);
      const Word v = k >= 0 && base + c < extent ? matrix[static_cast<std::size_t>(k) * extent + base + c] : Word{0};
      *reinterpret_cast<Word*>(boxes + (c / kBoxValues) * Layout::kBBoxBytes +
                               swizzled(j * kSwizzleRowBytes + (c % kBoxValues) * kWordBytes)) = v;
    }
  };
  copyRows.template operator()<BM>(At, transposedRowLength(M), rowBase, stage);
  copyRows.template operator()<BN>(B, N, colBase, stage + Layout::kABytes);
}

// The ring the warpgroup kernels run (K14 over every K-tile, S11 over its gathered list, S12 over
// the lists of the tiles it takes, S15 over its tile's gathered columns and whole ranges): entry i of the walk goes to stage i % kStages, its n-th use of
// that stage being parity n % 2 of the stage's full and empty mbarriers. The block's shared
// memory starts with it. Where the copy engine cannot move the operands, kCopyThreads threads of
// the producer (its warpgroup, or S12's one warp) copy them element by element.
// With kAByM (S15) A's stage is M-major, in boxes of one swizzled row of rows as 16-bit B's are of
// columns, and its producer fills it itself (copyGatheredKTile).
template <DType kDType, int BM, int BN, int BK, int WM, int WN, int kStages, int kThreads, int kCopyThreads = kWarpgroupThreads,
          bool kAByM = false>
struct WgmmaRing {
  using Layout = WgmmaLayout<kDType, BM, BN, BK, kStages>;
  using Input = MmaInputType<kDType>;
  using Word = typename Input::Word;
  static_assert(WM == kWgmmaM && (WN == 128 || WN == kWgmmaN) && BN == WN && BM % WM == 0,
                "consumer warpgroups of one m64n128 or m64n256 MMA, down the tile");
  static_assert(kCopyThreads % kWarpLanes == 0 && kCopyThreads <= kWarpgroupThreads, "whole warps of the producer copy");
  static_assert(!kAByM || (WM == kRowValues<kDType> && !Input::kBAlongK), "an M-major A: a consumer's rows are one box of 16-bit values");
  static constexpr int kConsumers = BM / WM;
  static constexpr int kAccumulators = kWgmmaAccumulatorsOf<WN>;
  static_assert(kThreads == kWarpgroupThreads * (1 + kConsumers), "a producer warpgroup and one per consumer tile");
  static_assert(BK % Input::kStepK == 0, "whole MMA steps per K-tile");

  const BulkTensorMap* aMap;
  const BulkTensorMap* bMap;
  bool bulk;  // the copy engine (bulkCopiesFit), else the producer's element copies
  const Word* A;
  const Word* B;  // as the MMA reads it: K x N, or N x K where Input::kBAlongK
  int M, N, K;
  BlockTile<BM, BN> block;
  unsigned char* stages;
  std::uint64_t* full;
  std::uint64_t* empty;

  // `raw`: the block's dynamic shared memory; the ring starts at its first 1024-byte boundary.
  __device__ WgmmaRing(unsigned char* raw, const BulkTensorMap* aMap_, const BulkTensorMap* bMap_, bool bulk_,
                       const Word* A_, const Word* B_, int M_, int N_, int K_, const BlockTile<BM, BN>& block_)
      : aMap(aMap_), bMap(bMap_), bulk(bulk_), A(A_), B(B_), M(M_), N(N_), K(K_), block(block_) {
    const std::uint32_t misaligned = sharedAddress(raw) % kSwizzleAtomBytes;
    stages = raw + (misaligned == 0 ? 0 : kSwizzleAtomBytes - misaligned);
    full = reinterpret_cast<std::uint64_t*>(stages + kStages * Layout::kStageBytes);
    empty = full + kStages;
  }
  // Shared memory past the ring and its mbarriers (S11's list).
  __device__ unsigned char* end() const { return reinterpret_cast<unsigned char*>(empty + kStages); }

  // By thread 0, before a block-wide barrier.
  __device__ void initBarriers() const {
    for (int s = 0; s < kStages; ++s) {
      barrierInit(&full[s], bulk ? 1 : kCopyThreads);
      barrierInit(&empty[s], kConsumers * (kWarpgroupThreads / kWarpLanes));  // lane 0 of every consumer warp
    }
    barrierInitFence();
  }
  // Whether producer thread `tid` copies (the copy engine needs one thread, element copies all).
  __device__ bool copies(int tid) const { return bulk ? tid == 0 : tid < kCopyThreads; }

  // Entry `entry` of the walk is K-tile `kTile` of the block's tile.
  __device__ void produce(int entry, int kTile, int tid) const {
    awaitStage(entry);
    fill(entry, kTile, tid, block);
  }
  // Returns once the consumers have released the stage of entry `entry` from its previous use
  // (the n-th fill, n >= 1, waits for parity (n - 1) % 2 of its empty mbarrier).
  __device__ void awaitStage(int entry) const {
    if (entry >= kStages) barrierWait(&empty[entry % kStages], (entry / kStages + 1) & 1);
  }
  // Fills entry `entry`'s stage (awaited) with K-tile `kTile` of `tile`, by the threads that copies().
  __device__ void fill(int entry, int kTile, int tid, const BlockTile<BM, BN>& tile) const {
    const int s = entry % kStages;
    unsigned char* stage = stages + s * Layout::kStageBytes;
    if (bulk) {
      barrierArriveExpectingBytes(&full[s], Layout::kStageBytes);
      copyBox(stage, aMap, kTile * BK, tile.rowBase, &full[s]);
      if constexpr (Input::kBAlongK) {
        copyBox(stage + Layout::kABytes, bMap, kTile * BK, tile.colBase, &full[s]);
      } else {
#pragma unroll
        for (int box = 0; box < BN / kRowValues<kDType>; ++box) {
          copyBox(stage + Layout::kABytes + box * Layout::kBBoxBytes, bMap, tile.colBase + box * kRowValues<kDType>, kTile * BK,
                  &full[s]);
        }
      }
    } else {
      copyWgmmaKTileByElements<kDType, BM, BN, BK, kStages, kCopyThreads>(A, B, M, N, K, tile.rowBase, tile.colBase, kTile,
                                                                         stage, tid);
      fenceSharedForAsync();
      barrierArrive(&full[s]);
    }
  }
  // Fills entry `entry`'s stage (awaited) with block column `column` of a packed A whose blocks are
  // a K-tile deep and a consumer's rows tall (S21): B's K-tile there, and for each consumer c of the
  // bits `consumers` its kept block kept[c], a box of aMap, which names the packed values as the
  // kept blocks stacked; by the threads that copies(). The other consumers' rows are left as they
  // are: they multiply none of this entry.
  __device__ void fillPacked(int entry, int column, unsigned consumers, const int (&kept)[kConsumers], int tid,
                             const BlockTile<BM, BN>& tile, const Word* packedValues) const {
    static_assert(!Input::kBAlongK && !kAByM, "a packed A's blocks are K-major 16-bit rows beside a K x N B");
    const int s = entry % kStages;
    unsigned char* stage = stages + s * Layout::kStageBytes;
    constexpr int kConsumerABytes = WM * kSwizzleRowBytes;
    if (bulk) {
      barrierArriveExpectingBytes(&full[s], Layout::kBBytes + __popc(consumers) * kConsumerABytes);
#pragma unroll
      for (int c = 0; c < kConsumers; ++c) {
        if ((consumers >> c) & 1u) copyBox(stage + c * kConsumerABytes, aMap, 0, kept[c] * WM, &full[s]);
      }
#pragma unroll
      for (int box = 0; box < BN / kRowValues<kDType>; ++box) {
        copyBox(stage + Layout::kABytes + box * Layout::kBBoxBytes, bMap, tile.colBase + box * kRowValues<kDType>,
                column * BK, &full[s]);
      }
    } else {
      for (int c = 0; c < kConsumers; ++c) {
        if ((consumers >> c) & 1u) {
          copyWgmmaARowsByElements<kDType, WM, BK, kCopyThreads>(packedValues + static_cast<std::size_t>(kept[c]) * WM * BK, WM, BK, 0, 0,
                                                                 stage + c * kConsumerABytes, tid);
        }
      }
      copyWgmmaBByElements<kDType, BN, BK, kCopyThreads>(B, N, K, tile.colBase, column, stage + Layout::kABytes, tid);
      fenceSharedForAsync();
      barrierArrive(&full[s]);
    }
  }
  // Completes entry `entry`'s stage (awaited) with nothing copied into it, by the threads that copies().
  __device__ void fillNothing(int entry) const { barrierArrive(&full[entry % kStages]); }

  // Consumer warpgroup `consumer` takes entry `entry`: waits for it to land, issues its MMAs where
  // `multiply` (the same for the whole warpgroup), and releases the previous entry's stage once
  // that entry's MMAs have retired.
  __device__ void consume(int entry, bool multiply, float (&acc)[kAccumulators], int consumer, int lane) const {
    awaitFull(entry);
    multiplyAndRelease(entry, multiply, acc, consumer, lane);
  }
  // Returns once entry `entry` has landed in its stage.
  __device__ void awaitFull(int entry) const { barrierWait(&full[entry % kStages], (entry / kStages) & 1); }
  // consume() after awaitFull(); where `fresh`, the first MMA overwrites the accumulators (a tile's first).
  __device__ void multiplyAndRelease(int entry, bool multiply, float (&acc)[kAccumulators], int consumer, int lane,
                                     bool fresh = false) const {
    const int s = entry % kStages;
    // K-major, the consumer's WM rows; M-major, its box of them (WM is one swizzled row of rows).
    const unsigned char* aStage = stages + s * Layout::kStageBytes + consumer * (kAByM ? Layout::kBBoxBytes : WM * kSwizzleRowBytes);
    const unsigned char* bStage = stages + s * Layout::kStageBytes + Layout::kABytes;
    wgmmaFence();
#pragma unroll
    for (int step = 0; step < BK / Input::kStepK; ++step) {
      // Along K a step is 32 bytes of the swizzled rows (A; tf32's B). 16-bit B, and A where
      // M-major: kStepK K-rows (two atoms) down.
      constexpr int kStepBytes = Input::kStepK * static_cast<int>(sizeof(Word));
      const std::uint64_t aDescriptor =
          kAByM ? swizzledDescriptor(aStage + step * Input::kStepK * kSwizzleRowBytes, Layout::kBBoxBytes, kSwizzleAtomBytes)
                : swizzledDescriptor(aStage + step * kStepBytes, 16, kSwizzleAtomBytes);
      const std::uint64_t bDescriptor =
          Input::kBAlongK ? swizzledDescriptor(bStage + step * kStepBytes, 16, kSwizzleAtomBytes)
                          : swizzledDescriptor(bStage + step * Input::kStepK * kSwizzleRowBytes, Layout::kBBoxBytes,
                                               kSwizzleAtomBytes);
      wgmmaM64N<WN, kDType, kAByM>(acc, aDescriptor, bDescriptor, multiply, step > 0 || !fresh);
    }
    wgmmaCommit();
    wgmmaWait<1>();  // entry - 1's MMAs have retired: its stage may be refilled
    if (entry > 0 && lane == 0) barrierArrive(&empty[(entry - 1) % kStages]);
  }

  // The consumer's tile into C, in hopper.cuh's accumulator layout: rows g and g + 8 of the
  // warp's 16, columns 2t, 2t + 1 of every 8. Its MMAs must have retired (wgmmaWait<0>).
  __device__ void store(const float (&acc)[kAccumulators], float* __restrict__ C, int consumer, int warp, int lane) const {
    store(acc, C, consumer, warp, lane, block);
  }
  __device__ void store(const float (&acc)[kAccumulators], float* __restrict__ C, int consumer, int warp, int lane,
                        const BlockTile<BM, BN>& tile, bool zeros = false) const {
    const int g = lane / 4, t2 = 2 * (lane % 4);
    const int row = tile.rowBase + consumer * WM + warp * 16 + g;
    const bool pairs = N % 2 == 0;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int col = tile.colBase + j * 8 + t2;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = row + 8 * half;
        const float x = zeros ? 0.0f : acc[4 * j + 2 * half], y = zeros ? 0.0f : acc[4 * j + 2 * half + 1];
        if (pairs && r < M && col + 1 < N) {
          *reinterpret_cast<float2*>(C + static_cast<std::size_t>(r) * N + col) = float2{x, y};
        } else {
          storeScalar(C, M, N, r, col, x);
          storeScalar(C, M, N, r, col + 1, y);
        }
      }
    }
  }

  // A queue kernel's consumer warpgroup `consumer` (S12, S21): takes the ring's entries as their
  // notes say, multiplies those of its bit, and stores a tile when its last entry has landed. A
  // tile's first MMA overwrites the accumulators instead of adding to them (`fresh`), so they are
  // never zeroed between tiles; a consumer that multiplied nothing of a tile stores zeros. Returns
  // at the note with no tile.
  __device__ void consumeQueue(const WgmmaStageNote* notes, float* __restrict__ C, int groupRows, int consumer, int warp, int lane) const {
    float acc[kAccumulators];
#pragma unroll
    for (int i = 0; i < kAccumulators; ++i) acc[i] = 0.0f;
    bool fresh = true;
    for (int entry = 0;; ++entry) {
      awaitFull(entry);
      // Lane 0 alone reads the note and hands it to the warp: the lane that releases the stage to
      // the producer is then the only one that read it, so the next note written into its slot is
      // ordered after every read by that lane's own program order (with each lane reading it, a
      // __syncwarp before lane 0's release still left racecheck a hazard in S13's timing).
      int tile = 0;
      unsigned marks = 0;  // bits 0-7: the note's consumers; bit 8: the tile's last
      if (lane == 0) {
        const WgmmaStageNote& held = notes[entry % kStages];
        tile = held.tile;
        marks = held.consumers | (held.last ? 0x100u : 0u);
      }
      tile = __shfl_sync(0xFFFFFFFFu, tile, 0);
      if (tile < 0) break;
      // Said through lane 0, the bit is the same for every lane and ptxas treats the MMAs it guards
      // as the whole warpgroup's.
      const bool mine = __shfl_sync(0xFFFFFFFFu, (marks >> consumer) & 1u, 0) != 0;
      const bool last = __shfl_sync(0xFFFFFFFFu, marks >> 8, 0) != 0;
      multiplyAndRelease(entry, mine, acc, consumer, lane, fresh);
      fresh = fresh && !mine;
      if (last) {
        wgmmaWait<0>();
        store(acc, C, consumer, warp, lane, groupedBlockTile<BM, BN>(M, N, tile, groupRows), fresh);
        fresh = true;
      }
    }
  }
};

// Consecutive blocks walk this many tile rows of a column band before moving right (L2 reuse).
inline constexpr int kWgmmaGroupRows = 8;

// The queue kernels' group height, from the fraction of A's (pattern tile, K-block) pairs that keep
// something. While a group sweeps B's column bands its A panel stays in L2, and every group reads
// each band of B again: a dense A's panel fills its share of L2 at kWgmmaGroupRows row tiles, and an
// A that keeps a fraction f of its K-blocks lets 1 / f times as many rows share those bytes, so B
// is read 1 / f times less often (lab/56-s13-against-k14: A at 0.25 in groups of 8 read B from
// DRAM about four times over). Never fewer than kWgmmaGroupRows, never more than there are.
__host__ __device__ inline int queueGroupRows(int rowTiles, double keptA) {
  const double rows = keptA > 0.0 ? kWgmmaGroupRows / keptA : static_cast<double>(rowTiles);
  const int clamped = rows < static_cast<double>(rowTiles) ? static_cast<int>(rows) : rowTiles;
  const int fewest = rowTiles < kWgmmaGroupRows ? rowTiles : kWgmmaGroupRows;
  return clamped > fewest ? clamped : fewest;
}

// Pattern bytes each lane of the producer reads for that estimate: 1024 in all, a few hundred
// nanoseconds before a block's first tile.
inline constexpr int kGroupSamplesPerLane = 32;

// The fraction of a pattern's bytes (tiles x K-blocks, tile-major) that keep something, from
// kSamplesPerLane x 32 of them spread evenly over it and read by the whole warp: the same bytes in
// every block, so every block derives the same group height and the queue's tiles one order. 1
// where the operand is not inspected.
template <int kSamplesPerLane>
__device__ double sampledKeptFraction(const std::uint8_t* __restrict__ pattern, int tiles, int kBlocks, int lane) {
  const long long bytes = static_cast<long long>(tiles) * kBlocks;
  if (pattern == nullptr || bytes == 0) return 1.0;
  const long long samples = static_cast<long long>(kSamplesPerLane) * kWarpLanes;
  int kept = 0;
#pragma unroll
  for (int i = 0; i < kSamplesPerLane; ++i) {
    const long long at = (static_cast<long long>(i) * kWarpLanes + lane) * bytes / samples;
    kept += __popc(__ballot_sync(0xFFFFFFFFu, __ldg(pattern + at) != 0));
  }
  return static_cast<double>(kept) / static_cast<double>(samples);
}

// The registers each warpgroup keeps once roles split: the producer little, the consumers their
// accumulators and the addresses around them.
inline constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;
// S12's producer decides its tiles' K-tiles from the patterns, which needs more registers than
// copying alone (at 40 it spilled 300 bytes); its consumers take what the SM has left: on a
// 128-column tile they hold half K14's accumulators, on a 256-column one as many as K14's.
template <int WN>
inline constexpr int kQueueProducerRegisters = WN == 128 ? 88 : 72;
template <int WN>
inline constexpr int kQueueConsumerRegisters = WN == 128 ? 208 : 216;
static_assert(kWarpgroupThreads * (kQueueProducerRegisters<128> + 2 * kQueueConsumerRegisters<128>) <= 65536 &&
                  kWarpgroupThreads * (kQueueProducerRegisters<256> + 2 * kQueueConsumerRegisters<256>) <= 65536,
              "a producer and two consumer warpgroups within the SM's 64K registers");

// The gathered list beside the ring: K-tiles, which consumers multiply each, and its length.
template <int BK, int kListKBlocks>
struct WgmmaKTileList {
  static constexpr int kEntries = kListKBlocks / (BK / kKBlock);
  static_assert(kEntries % kWarpLanes == 0, "the list is compacted a warp's width at a time");
  int kTiles[kEntries];
  std::uint8_t consumers[kEntries];  // bit c: consumer warpgroup c has a product in the K-tile
  std::uint8_t keptOf[kEntries];     // the same per K-tile of the pass, before compaction
  int count;
};

template <int BM, int BN, int BK, int kStages, int kListKBlocks>
__host__ __device__ constexpr std::size_t wgmmaJointSharedBytes() {
  return WgmmaLayout<DType::Bf16, BM, BN, BK, kStages>::kSharedBytes + sizeof(WgmmaKTileList<BK, kListKBlocks>);
}

template <int BM, int BN, int BK, int kStages>
__host__ __device__ constexpr std::size_t wgmmaQueueSharedBytes() {
  return WgmmaLayout<DType::Bf16, BM, BN, BK, kStages>::kSharedBytes + kStages * sizeof(WgmmaStageNote);
}

}  // namespace tileskip::cuda
