// The one shape-legality rule of the twins: whether a catalogue row's tile can be built as its
// structure says, in CUDA and in GLSL alike. Every catalogue row passes it at compile time (below);
// the CUDA instances assert it where they are made (backends/cuda/gemm_instance.cuh); the Vulkan
// backend checks it at run time for the shapes that need not come from the catalogue (tuned tiles,
// tileShapeProblem() in core/model/tile_layout.hpp says why with the numbers).
#pragma once

#include "core/model/catalogue.hpp"

namespace tileskip {

// A warp's 32 lanes form a kWarpLaneRows x kWarpLaneCols grid over each sub-tile it walks.
inline constexpr int kWarpLaneRows = 4;
inline constexpr int kWarpLaneCols = 8;

// The output tile of one tensor-core MMA (m16n8k16): ThreadMapping::MmaTiles.
inline constexpr int kMmaTileRows = 16;
inline constexpr int kMmaTileCols = 8;

struct WarpLayout {
  int laneRows = 0, laneCols = 0;
  int subM = 0, subN = 0;    // sub-tile: laneRows·TM x laneCols·TN
  int iterM = 0, iterN = 0;  // WMITER, WNITER
};

constexpr bool divides(int part, int whole) { return part > 0 && whole % part == 0; }

// The warp layout of a WarpTile row, unchecked (warpLayoutProblem says whether it holds together).
constexpr WarpLayout warpLayoutOf(const TileShape& t) {
  WarpLayout w{kWarpLaneRows, kWarpLaneCols, kWarpLaneRows * t.TM, kWarpLaneCols * t.TN, 0, 0};
  if (w.subM > 0 && w.subN > 0) w.iterM = t.WM / w.subM, w.iterN = t.WN / w.subN;
  return w;
}

// Why a warp tile does not split into the lane grid's sub-tiles, or a pattern tile finer than the
// warp tile would be straddled by a sub-tile (a sub-tile must read one pattern byte); nullptr when fine.
constexpr const char* warpLayoutProblem(const KernelInfo& k) {
  const TileShape& t = k.tile;
  if (t.WM <= 0 || t.WN <= 0 || t.TM <= 0 || t.TN <= 0) return "no warp tile";
  const WarpLayout w = warpLayoutOf(t);
  if (!divides(w.subM, t.WM) || !divides(w.subN, t.WN)) return "sub-tiles of 4 x 8 lanes of TM x TN do not divide the warp tile";
  if (k.aGranularity > 0 && k.aGranularity < t.WM && !divides(w.subM, k.aGranularity)) {
    return "a sub-tile of 4·TM rows would straddle A-pattern tiles";
  }
  if (k.bGranularity > 0 && k.bGranularity < t.WN && !divides(w.subN, k.bGranularity)) {
    return "a sub-tile of 8·TN columns would straddle B-pattern tiles";
  }
  return nullptr;
}

// Why the row's tile cannot be built by its structure in both twins, or nullptr: threads that do
// not match the tile, tiles that do not divide, loads that do not split into whole passes, pattern
// tiles that sub-tiles would straddle or that do not nest with the block tile.
constexpr const char* shapeProblem(const KernelInfo& k) {
  const TileShape& t = k.tile;
  const KernelStructure& s = k.structure;
  if (s.mapping == ThreadMapping::None) return "not a tiled twin kernel";
  const bool threadTile = s.mapping != ThreadMapping::MmaTiles && s.mapping != ThreadMapping::WarpgroupMmaTiles;
  if (t.BM < 1 || t.BN < 1 || t.BK < 1 || (threadTile && (t.TM < 1 || t.TN < 1)) || t.threads < 1) {
    return "every size must be positive";
  }
  // (A warpgroup ring stages whole 64-deep K-tiles instead: structureContradiction's rule.)
  if (k.skips() && !k.needsHopper() && !k.readsPackedA() && t.BK != 8 && t.BK != 16 && t.BK != 32) {
    return "a skipping kernel stages whole K-blocks of one pattern word: BK must be 8, 16 or 32";
  }
  switch (s.mapping) {
    case ThreadMapping::None: break;
    case ThreadMapping::OutputDownColumns:
    case ThreadMapping::OutputAlongRows:
      if (t.threads != t.BM * t.BN) return "needs one thread per output: threads = BM·BN";
      break;
    case ThreadMapping::ColumnOfOutputs:
      if (!divides(t.TM, t.BM) || t.TN != 1) return "needs TM to divide BM and TN = 1";
      if (t.threads != (t.BM / t.TM) * t.BN) return "needs threads = (BM/TM)·BN";
      break;
    case ThreadMapping::ThreadTile:
      if (!divides(t.TM, t.BM) || !divides(t.TN, t.BN)) return "needs TM to divide BM and TN to divide BN";
      if (t.threads != (t.BM / t.TM) * (t.BN / t.TN)) return "needs threads = (BM/TM)·(BN/TN)";
      if (k.transposesA() && (t.BM % 4 != 0 || t.BN % 4 != 0 || t.BK % 4 != 0)) {
        return "stages 128-bit vectors: BM, BN and BK must be multiples of 4";
      }
      break;
    case ThreadMapping::WarpTile:
      if (!divides(t.WM, t.BM) || !divides(t.WN, t.BN)) return "needs WM to divide BM and WN to divide BN";
      if (t.threads != kWarpLanes * (t.BM / t.WM) * (t.BN / t.WN)) return "needs threads = 32·(BM/WM)·(BN/WN)";
      if (t.BM % 4 != 0 || t.BN % 4 != 0 || t.BK % 4 != 0) return "stages 128-bit vectors: BM, BN and BK must be multiples of 4";
      if (const char* why = warpLayoutProblem(k)) return why;
      break;
    case ThreadMapping::MmaTiles:
      if (!divides(t.WM, t.BM) || !divides(t.WN, t.BN)) return "needs WM to divide BM and WN to divide BN";
      if (t.threads != kWarpLanes * (t.BM / t.WM) * (t.BN / t.WN)) return "needs threads = 32·(BM/WM)·(BN/WN)";
      if (t.WM % 16 != 0 || t.WN % 16 != 0 || t.BK % 16 != 0 || t.TM != 0 || t.TN != 0) {
        return "needs WM, WN and BK in whole 16s and TM = TN = 0 (the MMA's tiles are the thread mapping)";
      }
      break;
    case ThreadMapping::RowStrips:
      if (!divides(t.TM, t.BM) || !divides(t.TN, t.BN)) return "needs TM to divide BM and TN to divide BN";
      if (t.threads != (t.BM / t.TM) * (t.BN / t.TN) || t.threads % kWarpLanes != 0) {
        return "needs threads = (BM/TM)·(BN/TN), whole warps";
      }
      if (t.TN % 4 != 0 || t.BK % kKBlock != 0) return "reads B's staged rows as vec4s (TN a multiple of 4) and A by K-blocks";
      // B's rows for a step, BK x BN, staged in whole passes of one vec4 per thread.
      if ((t.BK * t.BN) % (4 * t.threads) != 0) return "needs BK·BN a multiple of 4·threads: B's rows staged in whole passes";
      break;
    case ThreadMapping::WarpgroupMmaTiles:
      if (!divides(t.WM, t.BM) || !divides(t.WN, t.BN)) return "needs WM to divide BM and WN to divide BN";
      if (t.threads != kWarpgroupThreads * (1 + (t.BM / t.WM) * (t.BN / t.WN))) {
        return "needs threads = 128·(1 + (BM/WM)·(BN/WN)): a producer warpgroup and one per warpgroup tile";
      }
      if (t.WM != 4 * kMmaTileRows || t.TM != 0 || t.TN != 0) {
        return "needs WM = 64 (four warps of 16 rows) and TM = TN = 0 (the MMA's tiles are the thread mapping)";
      }
      break;
  }
  // How the main loop stages its tiles (the parts stage, pipeline, hoisted and ring of both twins).
  auto nests = [](int pattern, int block) { return pattern % block == 0 || block % pattern == 0; };
  if (s.loop == MainLoop::StageRing || s.loop == MainLoop::GatherRing) {
    // A chunk is 16 bytes: 8 16-bit values, one per invocation and pass (a gathered A tile is BK
    // rows of BM: the same count of chunks).
    if (t.BK % 8 != 0 || t.BN % 8 != 0 || (t.BM * t.BK / 8) % t.threads != 0 || (t.BK * t.BN / 8) % t.threads != 0) {
      return "the A and B tiles must split evenly into one 8-element chunk per invocation and pass";
    }
    // Each warp reads one byte of each pattern per K-block.
    if ((k.usesAPattern() && (k.aGranularity % t.WM != 0 || !nests(k.aGranularity, t.BM))) ||
        (k.usesBPattern() && (k.bGranularity % t.WN != 0 || !nests(k.bGranularity, t.BN)))) {
      return "each warp tile must lie in one A-pattern tile and one B-pattern tile, and pattern tiles must nest with block "
             "tiles";
    }
    return nullptr;
  }
  if (s.loop == MainLoop::GatherHoisted) {
    // A gathered K-tile is BK rows of A transposed (BM wide) and BK rows of B: each pass of vec4
    // loads covers whole rows of both (parts/gathered_stage), and the passes the whole tiles.
    const bool wholeRows = t.BM >= 4 && t.BN >= 4 && t.threads % (t.BM / 4) == 0 && t.threads % (t.BN / 4) == 0;
    if (!wholeRows || t.BK % (t.threads / (t.BM / 4)) != 0 || t.BK % (t.threads / (t.BN / 4)) != 0) {
      return "each pass of vec4 loads must cover whole rows of A transposed (BM/4 invocations each) and of the B tile "
             "(BN/4 each), and the passes the BK rows of both";
    }
    return nullptr;
  }
  if (s.loop != MainLoop::DoubleBuffered && s.loop != MainLoop::KBlockList && s.loop != MainLoop::Hoisted &&
      s.loop != MainLoop::PackedBlocks) {
    return nullptr;
  }
  if (t.BK % kKBlock != 0) return "a K-tile holds whole K-blocks: BK must be a multiple of 8";
  if ((t.BM * t.BK / 4) % t.threads != 0 || (t.BK * t.BN / 4) % t.threads != 0) {
    return "the A and B tiles must split evenly into one vec4 load per invocation and pass";
  }
  if (s.loop == MainLoop::KBlockList && t.BK != kKBlock) return "a listed K-tile is one K-block (the list loop): BK must be 8";
  if (s.loop == MainLoop::Hoisted || s.loop == MainLoop::KBlockList || s.loop == MainLoop::PackedBlocks) {
    // Each invocation loads the same 4 columns of a row in every pass (parts/hoisted), so a pass
    // covers whole rows of the A tile (BK / 4 vectors each) and of the B tile (BN / 4); and its
    // stores of A lie whole vectors apart from pass to pass.
    const bool wholeRows = t.BK >= 4 && t.BN >= 4 && t.threads % (t.BK / 4) == 0 && t.threads % (t.BN / 4) == 0;
    if (!wholeRows || t.BM % (t.threads / (t.BK / 4)) != 0 || t.BK % (t.threads / (t.BN / 4)) != 0 ||
        (t.threads / (t.BK / 4)) % 4 != 0) {
      return "each pass of vec4 loads must cover whole rows of the A tile (BK/4 invocations each, a multiple of 4 rows a "
             "pass) and of the B tile (BN/4 each), and the passes the whole tiles";
    }
  }
  if (s.loop != MainLoop::KBlockList) return nullptr;
  const WarpLayout w = warpLayoutOf(t);
  if (k.usesAPattern() && (k.aGranularity % w.subM != 0 || !nests(k.aGranularity, t.BM))) {
    return "A-pattern tiles must hold whole sub-tiles of 4·TM rows and nest with the block's rows";
  }
  if (k.usesBPattern() && (k.bGranularity % w.subN != 0 || !nests(k.bGranularity, t.BN))) {
    return "B-pattern tiles must hold whole sub-tiles of 8·TN columns and nest with the block's columns";
  }
  return nullptr;
}

constexpr bool everyRowHasALegalShape() {
  for (const KernelInfo& k : twinKernels()) {
    if (shapeProblem(k) != nullptr) return false;
  }
  return true;
}
static_assert(everyRowHasALegalShape(), "a catalogue row's tile cannot be built by its structure (shapeProblem names why)");

}  // namespace tileskip
