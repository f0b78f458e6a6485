// The block level of the warp-uniform skipping kernels (the twin of block_skip.glsl), shared by the
// SIMT ones (warp_skip.cuh) and the tensor-core one (S10): for each tile the persistent kernels
// take from the block tile queue (tile_queue.cuh), the K-blocks it must load at all. The block
// decides them from the union of its pattern tiles' bytes and compacts them into a list before
// the main loop. Every thread reads the same bytes, so the list (and every barrier the loop
// passes) is the same for the whole block: a skip that jumps a barrier must be uniform across the
// block, not only the warp. A K-block nobody needs costs neither loads nor barriers: skipping
// loads, not only FMAs. The union of the warps' joint bytes (a_i & b_j over the block's tiles) is
// exactly (union of a_i) & (union of b_j), so the block skips precisely the K-blocks no warp needs.
#pragma once

#include "common.cuh"
#include "tile_queue.cuh"

namespace tileskip::cuda {

// A listed K-block marked whole: every pattern tile of the block keeps its every depth, so no
// warp needs its pattern bytes (gatherKBlocks writes these entries when kMarkWhole).
struct MarkedKBlock {
  int entry;
  __device__ static int of(int kBlock, bool whole) { return kBlock * 2 + (whole ? 1 : 0); }
  __device__ int kBlock() const { return entry >> 1; }
  __device__ bool whole() const { return (entry & 1) != 0; }
};

// Writes, in order, the K-blocks of [first, first + count) that `skip.keptOfWord` keeps into
// `list` and returns how many there are; kMarkWhole: as MarkedKBlock entries, and *everyWhole
// says whether all of them are whole (each pattern byte is read once for both). `first` is a
// multiple of 4: each thread takes four consecutive K-blocks a pass, a tile's bytes of them in one
// 32-bit read where patternWord can (a quarter of the reads of one K-block a thread, all in
// flight together), so thread t's K-blocks precede thread t + 1's. Ballots order the K-blocks
// inside a warp, per-warp totals in shared memory (kThreads / 32 of them) order the warps; every
// thread returns the same count (and the same *everyWhole). The GLSL twin's gatherKBlocks reads
// its pattern words the same way (lab/34-word-gather).
template <int kThreads, class Skip, bool kMarkWhole = false>
__device__ int gatherKBlocks(const Skip& skip, int first, int count, int* list, int* warpTotals,
                             bool* everyWhole = nullptr) {
  constexpr int kWarps = kThreads / 32;
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;
  const unsigned lanesBefore = (1u << lane) - 1u;
  int total = 0;
  bool allWhole = true;  // of the K-blocks this thread listed
  for (int base = 0; base < count; base += 4 * kThreads) {
    const int offset = base + 4 * tid;
    const PatternSpan kept = offset < count ? skip.keptOfWord((first + offset) / 4) : PatternSpan{0u, 0u};
    // One bit per K-block, not an array: the accumulators stay live through the gather.
    unsigned keep = 0u, whole = 0u;
    int before = 0, warpTotal = 0;
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const bool keeps = offset + b < count && ((kept.some >> (8 * b)) & 0xFFu) != 0u;
      const bool isWhole = kMarkWhole && ((kept.every >> (8 * b)) & 0xFFu) == 0xFFu;
      const unsigned votes = __ballot_sync(0xFFFFFFFFu, keeps);
      before += __popc(votes & lanesBefore);
      warpTotal += __popc(votes);
      keep |= keeps ? 1u << b : 0u;
      whole |= isWhole ? 1u << b : 0u;
      allWhole = allWhole && (!keeps || isWhole);
    }
    if (lane == 0) warpTotals[warp] = warpTotal;
    __syncthreads();
    int passTotal = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      before += w < warp ? warpTotals[w] : 0;
      passTotal += warpTotals[w];
    }
    int at = total + before;
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      if ((keep >> b) & 1u) {
        const int kBlock = first + offset + b;
        list[at++] = kMarkWhole ? MarkedKBlock::of(kBlock, ((whole >> b) & 1u) != 0u) : kBlock;
      }
    }
    total += passTotal;
    // warpTotals is rewritten by the next pass; the list is complete
    if constexpr (kMarkWhole) {
      allWhole = __syncthreads_and(allWhole) != 0;
    } else {
      __syncthreads();
    }
  }
  if constexpr (kMarkWhole) *everyWhole = allWhole;
  return total;
}

// The K-blocks of a compacted list, BK / 8 per K-tile.
template <int BK>
struct ListedKBlocks {
  const int* list;
  int count;
  __device__ int steps() const { return (count + BK / kKBlock - 1) / (BK / kKBlock); }
  __device__ void kBlocksOf(int step, int (&out)[BK / kKBlock]) const {
#pragma unroll
    for (int s = 0; s < BK / kKBlock; ++s) {
      const int index = step * (BK / kKBlock) + s;
      out[s] = index < count ? list[index] : -1;
    }
  }
};

// The pattern tiles of one block tile (kAGranularity rows of A, kBGranularity columns of B; 0 for an operand
// not inspected): which K-blocks some warp of the block needs (keptOf, what gatherKBlocks
// compacts) and whether every tile keeps everything (the dense path). Read alike by every
// thread of the block. Shared by the SIMT skipping kernels (SubTileSkip) and the tensor-core one.
template <int BM, int BN, int kAGranularity, int kBGranularity>
struct BlockPatternTiles {
  static constexpr int kRows = kAGranularity > 0 ? kAGranularity : BM, kCols = kBGranularity > 0 ? kBGranularity : BN;
  static_assert(BM % kRows == 0 || kRows % BM == 0, "pattern tiles and block tiles nest");
  static_assert(BN % kCols == 0 || kCols % BN == 0, "pattern tiles and block tiles nest");
  static_assert(kAGranularity > 0 || kBGranularity > 0, "a skipping kernel inspects at least one operand");
  static constexpr int kBlockRowTiles = BM >= kRows ? BM / kRows : 1, kBlockColTiles = BN >= kCols ? BN / kCols : 1;

  const std::uint8_t* aPattern;  // null when A is not inspected (patternByte reads 0xFF)
  const std::uint8_t* bPattern;
  int aTiles, bTiles, kBlocks;
  int blockRowTile, blockColTile;  // the block's first pattern tiles

  __device__ BlockPatternTiles(const std::uint8_t* a, const std::uint8_t* b, int M, int N, int K, const BlockTile<BM, BN>& block)
      : aPattern(kAGranularity > 0 ? a : nullptr), bPattern(kBGranularity > 0 ? b : nullptr) {
    aTiles = (M + kRows - 1) / kRows;
    bTiles = (N + kCols - 1) / kCols;
    kBlocks = (K + kKBlock - 1) / kKBlock;
    blockRowTile = block.rowBase / kRows;
    blockColTile = block.colBase / kCols;
  }

  // What the block keeps of a K-block, each pattern byte read once: `some`, the depths some warp
  // needs (the gather lists the K-block when any); `every`, the depths every pattern tile of the
  // block keeps (0xFF: a whole K-block).
  __device__ PatternSpan keptOf(int kBlock) const {
    const PatternSpan a = patternSpan<kBlockRowTiles>(aPattern, blockRowTile, aTiles, kBlock, kBlocks);
    const PatternSpan b = patternSpan<kBlockColTiles>(bPattern, blockColTile, bTiles, kBlock, kBlocks);
    return {a.some & b.some, a.every & b.every};
  }

  // keptOf of K-blocks 4·word .. 4·word + 3, K-block 4·word + b in byte b (what gatherKBlocks
  // reads; the GLSL twin's blockKept). One branch for both operands, taken alike by every thread,
  // so that all the pattern reads of a K-block issue back to back: with the choice made at each
  // read, each waited for the one before (5 % of joint-64x32's samples at 0.25 / 0.25 went to the
  // gather, lab/34-word-gather). S7's sixteen 8-row tiles of A read bytes and its B chooses
  // at each read: every other form tried (A's words all in flight at once, one branch for both)
  // made ptxas spill in S7's dense loop, up to 6 % slower there.
  __device__ PatternSpan keptOfWord(int word) const {
    if constexpr (kBlockRowTiles > 4) {
      return keptOfWordRead<WordRead::Bytes, WordRead::EachChecks>(word);
    } else {
      if ((aPattern == nullptr || patternTilesOnWords(aPattern, kBlocks)) &&
          (bPattern == nullptr || patternTilesOnWords(bPattern, kBlocks))) {
        return keptOfWordRead<WordRead::OneRead, WordRead::OneRead>(word);
      }
      return keptOfWordRead<WordRead::Bytes, WordRead::Bytes>(word);
    }
  }

  template <WordRead kARead, WordRead kBRead>
  __device__ PatternSpan keptOfWordRead(int word) const {
    const PatternSpan a = patternWordSpan<kBlockRowTiles, kARead>(aPattern, blockRowTile, aTiles, word, kBlocks);
    const PatternSpan b = patternWordSpan<kBlockColTiles, kBRead>(bPattern, blockColTile, bTiles, word, kBlocks);
    return {a.some & b.some, a.every & b.every};
  }

  // Whether every pattern tile of the block keeps every depth of every K-block: then nothing is
  // left to skip, and the block runs the dense kernel's loop instead (skipping must cost nothing
  // when it finds nothing). Every thread returns the same answer.
  template <int kThreads>
  __device__ bool keepsEverything(int K) const {
    bool every = true;
    for (int kBlock = static_cast<int>(threadIdx.x); kBlock < kBlocks; kBlock += kThreads) {
      const unsigned real = (1u << min(kKBlock, K - kBlock * kKBlock)) - 1u;  // a last K-block may be partial
      every = (keptOf(kBlock).every & real) == real;
      if (!every) break;  // a tile with something to skip says so at its first such K-block
    }
    return __syncthreads_and(every) != 0;
  }
};

// Every K-block of [first, first + count) into `list`, marked whole: the tiles keepsEverything
// found nothing to skip in run the same loop as the others without reading a pattern byte.
template <int kThreads>
__device__ int listEveryKBlock(int first, int count, int* list) {
  for (int i = static_cast<int>(threadIdx.x); i < count; i += kThreads) list[i] = MarkedKBlock::of(first + i, true);
  __syncthreads();
  return count;
}

}  // namespace tileskip::cuda
