// The warp level of the warp-uniform SIMT skipping kernels (the twin of warp_skip.glsl): K12's
// hoisted main loop run over only the K-blocks the block listed (block_skip.cuh), and the skip of
// warp sub-tiles that each lie inside one pattern tile. Each warp decides which of a listed K-block's
// 8 rank-1 updates to do, per sub-tile, from the byte of the pattern tile that sub-tile lies in;
// all 32 lanes work on the same sub-tile at the same time and read that byte alike: a warp-uniform
// branch, no divergence.
#pragma once

#include "block_skip.cuh"
#include "hoisted.cuh"

namespace tileskip::cuda {

// The skip of a warp whose sub-tiles (WSUBM x WSUBN) each lie inside one A-pattern tile
// (kAGranularity rows) and one B-pattern tile (kBGranularity columns); 0 for an operand not inspected.
// kAGranularity = WSUBM is S7's 8-row walk; kAGranularity >= WM makes the byte the same for the whole warp.
template <int BM, int BN, int kAGranularity, int kBGranularity, class Tile>
struct SubTileSkip : BlockPatternTiles<BM, BN, kAGranularity, kBGranularity> {
  using Tiles = BlockPatternTiles<BM, BN, kAGranularity, kBGranularity>;
  static constexpr int WMITER = Tile::WMITER, WNITER = Tile::WNITER;
  static_assert(kAGranularity == 0 || kAGranularity % Tile::WSUBM == 0, "a sub-tile's rows lie in one A-pattern tile");
  static_assert(kBGranularity == 0 || kBGranularity % Tile::WSUBN == 0, "a sub-tile's columns lie in one B-pattern tile");

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

}  // namespace tileskip::cuda
