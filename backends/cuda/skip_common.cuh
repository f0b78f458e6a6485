// What the warp-uniform skipping kernels (S2, S4-S9, and the block level of S10) share: K12's
// hoisted main loop run over only the K-blocks a block needs (S10 runs K13's ring over them),
// and the skip policy of warp sub-tiles that lie inside one pattern tile each.
//
// Two decisions, two scopes:
//  - the block decides which K-blocks to load and compute at all, from the union of its pattern
//    tiles' bytes, and compacts them into a list before the main loop. Every thread reads the
//    same bytes, so the list (and every barrier the loop passes) is the same for the whole block
//    (DESIGN.md: "uniform enough?"). A K-block nobody needs costs neither loads nor barriers:
//    skipping loads, not only FMAs.
//  - each warp decides which of a listed K-block's 8 rank-1 updates to do, per sub-tile, from the
//    byte of the pattern tile that sub-tile lies in; all 32 lanes work on the same sub-tile at
//    the same time and read that byte alike: a warp-uniform branch, no divergence.
// The union of the warps' joint bytes (a_i & b_j over the block's tiles) is exactly
// (union of a_i) & (union of b_j), so the block skips precisely the K-blocks no warp needs.
#pragma once

#include "gemm_common.cuh"
#include "k12_hoisted.cuh"

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
// its pattern words the same way (bench/NOTES.md step 34).
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

// The pattern tiles of one block tile (kARows rows of A, kBCols columns of B; 0 for an operand
// not inspected): which K-blocks some warp of the block needs (keptOf, what gatherKBlocks
// compacts) and whether every tile keeps everything (the dense path). Read alike by every
// thread of the block. Shared by the SIMT skipping kernels (SubTileSkip) and the tensor-core one.
template <int BM, int BN, int kARows, int kBCols>
struct BlockPatternTiles {
  static constexpr int kRows = kARows > 0 ? kARows : BM, kCols = kBCols > 0 ? kBCols : BN;
  static_assert(BM % kRows == 0 || kRows % BM == 0, "pattern tiles and block tiles nest");
  static_assert(BN % kCols == 0 || kCols % BN == 0, "pattern tiles and block tiles nest");
  static_assert(kARows > 0 || kBCols > 0, "a skipping kernel inspects at least one operand");
  static constexpr int kBlockRowTiles = BM >= kRows ? BM / kRows : 1, kBlockColTiles = BN >= kCols ? BN / kCols : 1;

  const std::uint8_t* aPattern;  // null when A is not inspected (patternByte reads 0xFF)
  const std::uint8_t* bPattern;
  int aTiles, bTiles, kBlocks;
  int blockRowTile, blockColTile;  // the block's first pattern tiles

  __device__ BlockPatternTiles(const std::uint8_t* a, const std::uint8_t* b, int M, int N, int K, const BlockTile<BM, BN>& block)
      : aPattern(kARows > 0 ? a : nullptr), bPattern(kBCols > 0 ? b : nullptr) {
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
  // gather, bench/NOTES.md step 34). S7's sixteen 8-row tiles of A read bytes and its B chooses
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

// The skip of a warp whose sub-tiles (WSUBM x WSUBN) each lie inside one A-pattern tile
// (kARows rows) and one B-pattern tile (kBCols columns); 0 for an operand not inspected.
// kARows = WSUBM is S7's 8-row walk; kARows >= WM makes the byte the same for the whole warp.
template <int BM, int BN, int kARows, int kBCols, class Tile>
struct SubTileSkip : BlockPatternTiles<BM, BN, kARows, kBCols> {
  using Tiles = BlockPatternTiles<BM, BN, kARows, kBCols>;
  static constexpr int WMITER = Tile::WMITER, WNITER = Tile::WNITER;
  static_assert(kARows == 0 || kARows % Tile::WSUBM == 0, "a sub-tile's rows lie in one A-pattern tile");
  static_assert(kBCols == 0 || kBCols % Tile::WSUBN == 0, "a sub-tile's columns lie in one B-pattern tile");

  int subTileRowTile[WMITER];  // the A-pattern tile of each sub-tile row of this warp
  int subTileColTile[WNITER];  // the B-pattern tile of each sub-tile column

  __device__ SubTileSkip(const std::uint8_t* a, const std::uint8_t* b, int M, int N, int K,
                         const BlockTile<BM, BN>& block, const Tile& tile)
      : Tiles(a, b, M, N, K, block) {
#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm) subTileRowTile[wm] = (block.rowBase + tile.subTileRow(wm)) / Tiles::kRows;
#pragma unroll
    for (int wn = 0; wn < WNITER; ++wn) {
      subTileColTile[wn] = (block.colBase + tile.warpCol + wn * Tile::WSUBN) / Tiles::kCols;
    }
  }

  // The pattern bits this warp's sub-tiles keep in one K-block: read one pipeline step ahead.
  struct KBlockBits {
    unsigned a[WMITER];
    unsigned b[WNITER];
  };

  __device__ KBlockBits bitsOf(int kBlock) const {
    KBlockBits bits;
#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm) {
      bits.a[wm] = kBlock < 0 ? 0u : patternByte(this->aPattern, subTileRowTile[wm], this->aTiles, kBlock, this->kBlocks);
    }
#pragma unroll
    for (int wn = 0; wn < WNITER; ++wn) {
      bits.b[wn] = kBlock < 0 ? 0u : patternByte(this->bPattern, subTileColTile[wn], this->bTiles, kBlock, this->kBlocks);
    }
    return bits;
  }

  // This warp's rank-1 updates of the K-block staged at depths kOffset .. kOffset + 7.
  __device__ void updateKBlock(Tile& tile, const float* As, const float* Bs, int kOffset, const KBlockBits& bits) const {
    unsigned aAny = 0u, aEvery = 0xFFu, bAny = 0u, bEvery = 0xFFu;
#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm) aAny |= bits.a[wm], aEvery &= bits.a[wm];
#pragma unroll
    for (int wn = 0; wn < WNITER; ++wn) bAny |= bits.b[wn], bEvery &= bits.b[wn];
    const unsigned jointPattern = aAny & bAny;  // the depths some sub-tile of this warp keeps
    if ((aEvery & bEvery) == 0xFFu) {           // every sub-tile keeps every depth: K11's inner loop
      tile.template rank1UpdatesPrefetched<kKBlock>(As, Bs, kOffset);
      return;
    }
    // Not unrolled: this path runs only for partly kept K-blocks, and eight copies of it would
    // crowd the straight-line path above out of the instruction cache.
#pragma unroll 1
    for (int k = 0; k < kKBlock; ++k) {
      if (((jointPattern >> k) & 1u) == 0u) continue;
      float regN[Tile::WNITER * Tile::kTN];
      tile.loadRegN(Bs, kOffset + k, regN);
#pragma unroll
      for (int wm = 0; wm < WMITER; ++wm) {
        if (((bits.a[wm] >> k) & 1u) == 0u) continue;
        float regM[Tile::kTM];
        tile.loadRegM(As, kOffset + k, wm, regM);
#pragma unroll
        for (int wn = 0; wn < WNITER; ++wn) {
          if ((bits.b[wn] >> k) & 1u) tile.fmaSubTile(wm, wn, regM, regN);
        }
      }
    }
  }
};

// The K loop over a block's listed K-blocks, one K-tile each (BK = 8): K12's hoistedKLoop with
// its K-tiles taken from the list. Every step stores the K-tile in flight, passes the barrier and
// reads depth 0 of the next stage, as K12's; only the warp's updates of a step depend on the
// pattern. A K-block the list marks whole takes K12's split (depths 0 .. BK - 2 before the
// barrier, the last after it, depth 0 of the next stage read meanwhile), with no pattern byte
// read at all; any other K-block the warp updates through SubTileSkip, from bytes read a step
// ahead, all before the barrier. kInterior: the K-tiles load unchecked (interiorKTiles()).
// kOnlyWhole: the list holds only whole K-blocks (a tile with nothing to skip).
// Sub-tiles narrower than a 128-bit fragment (S7's TM = 2), and the one-warp blocks (S8, S9),
// update whole K-blocks in K11's way instead, all depths before the barrier (kSplit).
template <bool kInterior, bool kOnlyWhole, class Skip, class Tile, class Staged>
__device__ __forceinline__ void hoistedListLoop(const Skip& skip, Tile& tile, Staged& staged, float* stages,
                                                const int* list, int count) {
  constexpr int BM = Tile::kBM, BN = Tile::kBN, BK = Tile::kBK;
  constexpr int kStage = stageFloats<BM, BN, BK>(), kBOffset = BK * transposedAStride<BM>();
  // K12's split needs 128-bit fragments (HoistedWarpTile's), and registers for them across the
  // barrier: a one-warp block stages eight quads a thread, and with the split it spills.
  constexpr bool kSplit = Tile::kTM % 4 == 0 && Staged::kAFetchPasses + Staged::kBFetchPasses <= 4;
  static_assert(BK == kKBlock, "a listed K-tile is one K-block");
  // The K-tile at list position `index`; past the list's end the last one again (read, unused).
  auto entryAt = [&](int index) { return MarkedKBlock{list[min(index, count - 1)]}; };
  auto fetchTile = [&](MarkedKBlock at) {
    if constexpr (kInterior) {
      staged.fetchInteriorAt(at.kBlock() * BK);
    } else {
      staged.fetch(at.kBlock() * BK);
    }
  };
  // A K-block not marked whole: this warp's bytes of it (a whole one needs none).
  auto bitsFor = [&](MarkedKBlock at) {
    return kOnlyWhole || at.whole() ? typename Skip::KBlockBits{} : skip.bitsOf(at.kBlock());
  };
  MarkedKBlock current = entryAt(0), next = entryAt(1);
  fetchTile(current);
  typename Skip::KBlockBits bits = bitsFor(current);
  staged.store(stages, stages + kBOffset);
  __syncthreads();
  fetchTile(next);  // in flight during the first K-tile's FMAs (with one K-tile, K-tile 0 again)
  const float* readStage = stages;
  float* writeStage = stages + kStage;
  if constexpr (kSplit) tile.loadFragments(readStage, readStage + kBOffset, 0, 0);
  for (int step = 0; step < count; ++step) {
    const MarkedKBlock after = entryAt(step + 2);
    // The next K-tile's bytes, a whole step before they are needed (none past the list's end).
    const typename Skip::KBlockBits nextBits = step + 1 < count ? bitsFor(next) : typename Skip::KBlockBits{};
    const bool whole = kOnlyWhole || current.whole();
    const bool split = kSplit && whole;
    if (split) {
      if constexpr (kSplit) {
#pragma unroll
        for (int k = 0; k < BK - 1; ++k) {
          tile.loadFragments(readStage, readStage + kBOffset, k + 1, (k + 1) % 2);
          tile.multiply(k % 2);
        }
      }
    } else if (whole) {
      tile.template rank1UpdatesPrefetched<BK>(readStage, readStage + kBOffset);
    } else if constexpr (!kOnlyWhole) {
      skip.updateKBlock(tile, readStage, readStage + kBOffset, 0, bits);
    }
    staged.store(writeStage, writeStage + kBOffset);
    __syncthreads();
    fetchTile(after);  // in flight during the next K-tile
    float* const nowRead = writeStage;
    writeStage = const_cast<float*>(readStage);
    readStage = nowRead;
    if constexpr (kSplit) {
      tile.loadFragments(readStage, readStage + kBOffset, 0, 0);
      if (split) tile.multiply((BK - 1) % 2);  // its latency covers depth 0's shared reads
    }
    current = next;
    next = after;
    bits = nextBits;
  }
}

// Every K-block of [first, first + count) into `list`, marked whole: the tiles keepsEverything
// found nothing to skip in run the same loop as the others without reading a pattern byte.
template <int kThreads>
__device__ int listEveryKBlock(int first, int count, int* list) {
  for (int i = static_cast<int>(threadIdx.x); i < count; i += kThreads) list[i] = MarkedKBlock::of(first + i, true);
  __syncthreads();
  return count;
}

// A block tile's K-blocks, a list at a time (kList of them at most), each list through
// hoistedListLoop: those gatherKBlocks keeps, or with kOnlyWhole every K-block listed whole
// without a pattern read (S7's tiles with nothing to skip) and no SubTileSkip path in the loop.
template <bool kOnlyWhole, int kThreads, int kList, class Skip, class Tile, class Staged>
__device__ __forceinline__ void walkKBlocks(const Skip& skip, Tile& tile, Staged& staged, float* stages, int* list,
                                            int* warpTotals) {
  static_assert(kList % 4 == 0, "each pass of lists starts on a pattern word (gatherKBlocks)");
  for (int first = 0; first < skip.kBlocks; first += kList) {
    const int length = min(kList, skip.kBlocks - first);
    bool everyWhole = true;
    const int count = kOnlyWhole ? listEveryKBlock<kThreads>(first, length, list)
                                 : gatherKBlocks<kThreads, Skip, true>(skip, first, length, list, warpTotals, &everyWhole);
    if (count == 0) continue;
    if (staged.interiorKTiles() && (kOnlyWhole || everyWhole)) {
      // A loop with no branch on the pattern: zeros in blocks of the pattern tiles' size, and
      // tiles with nothing to skip, list only whole K-blocks.
      hoistedListLoop<true, true>(skip, tile, staged, stages, list, count);
    } else if (staged.interiorKTiles()) {
      hoistedListLoop<true, kOnlyWhole>(skip, tile, staged, stages, list, count);
    } else {
      hoistedListLoop<false, kOnlyWhole>(skip, tile, staged, stages, list, count);
    }
  }
}

// The whole kernel for the warp-uniform skipping kernels: a persistent block takes block tiles
// from `tileQueue`; for each it gathers the K-blocks the tile needs, then runs K12's loop over
// them (hoistedListLoop) with SubTileSkip deciding each warp's updates of the K-blocks that are
// not whole. A tile with nothing to skip gathers every K-block, each marked whole, so its loop
// reads no pattern byte: K12's, but for the K offset each K-tile looks up. (The list loop, not
// K12's own loop beside it: with both, the kernels spilled 600-750 bytes at 255 registers; and
// no scan of the pattern before the gather to find such tiles: in joint-64x32 at joint density
// 0.06 that scan took 5 % of the warps' samples, bench/NOTES.md step 32.) The next tile is asked
// for before the C store (askBlockTile). kList: the K-blocks listed per pass (the catalogue's
// KernelStructure::kBlockList); longer K is walked in passes, the accumulators carrying over.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kARows, int kBCols, int kList>
__device__ void warpTileSkipGemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                 int M, int N, int K, const std::uint8_t* __restrict__ aPattern,
                                 const std::uint8_t* __restrict__ bPattern, unsigned* tileQueue) {
  using Tile = HoistedWarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads>;
  using Skip = SubTileSkip<BM, BN, kARows, kBCols, Tile>;
  using Staged = HoistedKTile<BM, BN, BK, kThreads>;
  // K11's thread tile (TM = 8) where the warp tile takes it: the dense tiles of a kernel whose own
  // sub-tiles are finer (S7's 8-row walk) then run at K12's speed, not at its own. Only such a
  // kernel scans a tile's pattern first (keepsEverything), to pick the lane arrangement.
  constexpr int kDenseTM = WM % (4 * 8) == 0 ? 8 : TM;
  using DenseTile = HoistedWarpTile<BM, BN, BK, WM, WN, kDenseTM, TN, kThreads>;
  __shared__ __align__(16) float stages[2 * stageFloats<BM, BN, BK>()];
  __shared__ int kBlockList[kList];
  __shared__ int warpTotals[kThreads / 32];
  __shared__ int takenTile;
  const int tid = static_cast<int>(threadIdx.x);
  const int tiles = blockTileCount<BM, BN>(M, N);
  for (int index = takeBlockTile(tileQueue, &takenTile); index < tiles;) {
    const BlockTile<BM, BN> block(N, index);
    const Skip skip(aPattern, bPattern, M, N, K, block, Tile(tid));
    Staged staged(A, B, M, N, K, block, tid);
    if constexpr (kDenseTM != TM) {
      if (skip.template keepsEverything<kThreads>(K)) {  // in K11's lane arrangement (DenseTile)
        DenseTile denseTile(tid);
        walkKBlocks<true, kThreads, kList>(skip, denseTile, staged, stages, kBlockList, warpTotals);
        const unsigned asked = askBlockTile(tileQueue);
        denseTile.store(C, M, N, block.rowBase, block.colBase);
        index = passBlockTile(asked, &takenTile);
        continue;
      }
    }
    Tile tile(tid);
    walkKBlocks<false, kThreads, kList>(skip, tile, staged, stages, kBlockList, warpTotals);
    const unsigned asked = askBlockTile(tileQueue);
    tile.store(C, M, N, block.rowBase, block.colBase);
    index = passBlockTile(asked, &takenTile);
  }
  leaveBlockTileQueue(tileQueue);
}

}  // namespace tileskip::cuda
