// What the warp-uniform skipping kernels (S2, S4-S9, and the block level of S10) share: K11's pipelined main
// loop run over only the K-blocks a block needs, and the skip policy of warp sub-tiles that lie
// inside one pattern tile each.
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
#include "k11_pipelined.cuh"

namespace tileskip::cuda {

// K-blocks each thread votes on per round of the gather: their pattern loads are in flight
// together, so a one-warp block does not pay a load latency per 32 K-blocks.
inline constexpr int kGatherPerThread = 4;

// Writes, in order, the K-blocks of [first, first + count) that `skip.blockBits` keeps into
// `list` and returns how many there are. Ballots order the K-blocks inside a warp, per-warp
// totals in shared memory (kGatherPerThread x warps of them) order the warps; every thread
// returns the same count.
template <int kThreads, class Skip>
__device__ int gatherKBlocks(const Skip& skip, int first, int count, int* list, int* warpTotals) {
  constexpr int kWarps = kThreads / 32;
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;
  int total = 0;
  for (int base = 0; base < count; base += kThreads * kGatherPerThread) {
    // One bit per vote, not an array: the accumulators stay live through the gather, so its
    // registers are few. A ballot is cheap enough to take twice instead of keeping its result.
    unsigned keep = 0u;
#pragma unroll
    for (int j = 0; j < kGatherPerThread; ++j) {
      const int offset = base + j * kThreads + tid;
      keep |= (offset < count && skip.blockBits(first + offset) != 0u) ? 1u << j : 0u;
    }
#pragma unroll
    for (int j = 0; j < kGatherPerThread; ++j) {
      const unsigned votes = __ballot_sync(0xFFFFFFFFu, (keep >> j) & 1u);
      if (lane == 0) warpTotals[j * kWarps + warp] = __popc(votes);
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kGatherPerThread; ++j) {
      const unsigned votes = __ballot_sync(0xFFFFFFFFu, (keep >> j) & 1u);
      int before = total, slice = 0;
#pragma unroll
      for (int w = 0; w < kWarps; ++w) {
        before += w < warp ? warpTotals[j * kWarps + w] : 0;
        slice += warpTotals[j * kWarps + w];
      }
      if ((keep >> j) & 1u) list[before + __popc(votes & ((1u << lane) - 1u))] = first + base + j * kThreads + tid;
      total += slice;
    }
    __syncthreads();  // warpTotals is rewritten by the next round; the list is complete
  }
  return total;
}

// The K-blocks [first, first + count) in order, BK / 8 per K-tile: a block tile that keeps them all.
template <int BK>
struct KBlockRange {
  int first, count;
  __device__ int steps() const { return (count + BK / kKBlock - 1) / (BK / kKBlock); }
  __device__ void kBlocksOf(int step, int (&out)[BK / kKBlock]) const {
#pragma unroll
    for (int s = 0; s < BK / kKBlock; ++s) {
      const int index = step * (BK / kKBlock) + s;
      out[s] = index < count ? first + index : -1;
    }
  }
};

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
// not inspected): which K-blocks some warp of the block needs (blockBits, what gatherKBlocks
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

  __device__ unsigned blockBits(int kBlock) const {
    return patternUnion<kBlockRowTiles>(aPattern, blockRowTile, aTiles, kBlock, kBlocks) &
           patternUnion<kBlockColTiles>(bPattern, blockColTile, bTiles, kBlock, kBlocks);
  }

  // Whether every pattern tile of the block keeps every depth of every K-block: then nothing is
  // left to skip, and the block runs the dense kernel's loop instead (skipping must cost nothing
  // when it finds nothing). Every thread returns the same answer.
  template <int kThreads>
  __device__ bool keepsEverything(int K) const {
    bool every = true;
    for (int kBlock = static_cast<int>(threadIdx.x); kBlock < kBlocks; kBlock += kThreads) {
      const unsigned real = (1u << min(kKBlock, K - kBlock * kKBlock)) - 1u;  // a last K-block may be partial
      const unsigned kept = patternIntersection<kBlockRowTiles>(aPattern, blockRowTile, aTiles, kBlock, kBlocks) &
                            patternIntersection<kBlockColTiles>(bPattern, blockColTile, bTiles, kBlock, kBlocks);
      every = (kept & real) == real;
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

// The whole kernel for the warp-uniform skipping kernels: a persistent block takes block tiles
// from `tileQueue`; for each it gathers the K-blocks the tile needs, then runs K11's pipeline
// over them with SubTileSkip deciding each warp's updates.
// kList: the K-blocks compacted per pass (the catalogue's KernelStructure::kBlockList); longer K
// is walked in passes, the accumulators carrying over.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kARows, int kBCols, int kList>
__device__ void warpTileSkipGemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                 int M, int N, int K, const std::uint8_t* __restrict__ aPattern,
                                 const std::uint8_t* __restrict__ bPattern, unsigned* tileQueue) {
  using Tile = WarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads>;
  using Skip = SubTileSkip<BM, BN, kARows, kBCols, Tile>;
  // K11's thread tile (TM = 8) where the warp tile takes it: the dense path of a kernel whose own
  // sub-tiles are finer (S7's 8-row walk) then runs at K11's speed, not at its own.
  using DenseTile = WarpTile<BM, BN, BK, WM, WN, (WM % (4 * 8) == 0 ? 8 : TM), TN, kThreads>;
  __shared__ __align__(16) float stages[2 * stageFloats<BM, BN, BK>()];
  __shared__ int kBlockList[kList];
  __shared__ int warpTotals[kGatherPerThread * kThreads / 32];
  __shared__ int takenTile;
  const int tiles = blockTileCount<BM, BN>(M, N);
  for (int index = takeBlockTile(tileQueue, &takenTile); index < tiles; index = takeBlockTile(tileQueue, &takenTile)) {
    const BlockTile<BM, BN> block(N, index);
    const Skip skip(aPattern, bPattern, M, N, K, block, Tile(static_cast<int>(threadIdx.x)));
    if (skip.template keepsEverything<kThreads>(K)) {
      // K11 exactly, in K11's own lane arrangement (DenseTile), over every K-block.
      DenseTile dense(static_cast<int>(threadIdx.x));
      pipelinedMainLoop<BM, BN, BK, kThreads>(
          A, B, M, N, K, block, KBlockRange<BK>{0, skip.kBlocks}, [](const int (&)[BK / kKBlock]) { return NoStepData{}; },
          [&](const float* As, const float* Bs, const int (&)[BK / kKBlock], NoStepData) {
            dense.template rank1UpdatesPrefetched<BK>(As, Bs);
          },
          stages);
      dense.store(C, M, N, block.rowBase, block.colBase);
      continue;
    }
    Tile tile(static_cast<int>(threadIdx.x));
    for (int first = 0; first < skip.kBlocks; first += kList) {
      const int count = gatherKBlocks<kThreads>(skip, first, min(kList, skip.kBlocks - first), kBlockList,
                                                warpTotals);
      const ListedKBlocks<BK> schedule{kBlockList, count};
      struct StepBits {
        typename Skip::KBlockBits slot[BK / kKBlock];
      };
      pipelinedMainLoop<BM, BN, BK, kThreads>(
          A, B, M, N, K, block, schedule,
          [&](const int (&kBlocks)[BK / kKBlock]) {
            StepBits bits;
#pragma unroll
            for (int s = 0; s < BK / kKBlock; ++s) bits.slot[s] = skip.bitsOf(kBlocks[s]);
            return bits;
          },
          [&](const float* As, const float* Bs, const int (&kBlocks)[BK / kKBlock], const StepBits& bits) {
#pragma unroll
            for (int s = 0; s < BK / kKBlock; ++s) {
              if (kBlocks[s] >= 0) skip.updateKBlock(tile, As, Bs, s * kKBlock, bits.slot[s]);
            }
          },
          stages);
    }
    tile.store(C, M, N, block.rowBase, block.colBase);
  }
  leaveBlockTileQueue(tileQueue);
}

}  // namespace tileskip::cuda
