// Warp tiling, from K10 (warptile) on. A warp is 32 consecutive invocations
// (gl_LocalInvocationIndex / 32), whatever the hardware subgroup size, and owns a WM x WN tile
// of C. Its lanes form a LANE_ROWS x LANE_COLS (4 x 8) grid over a WSUBM x WSUBN sub-tile and
// the warp walks WMITER x WNITER sub-tiles (core/model/tile_layout.hpp, as in the CUDA twins), so
// each lane keeps (WMITER·TM) x (WNITER·TN) accumulators in registers. A warp's shared reads
// stay in its own slice of As and Bs: per k, 4 distinct vectors of A and 8 consecutive of B.
#ifndef TILESKIP_PART_WARPTILE
#define TILESKIP_PART_WARPTILE
#include "stage.glsl"

const uint WARP_SIZE = 32u;
const uint LANE_ROWS = WARP_SIZE / LANE_COLS;
const uint WSUBM = LANE_ROWS * TM;
const uint WSUBN = LANE_COLS * TN;
const uint WMITER = WM / WSUBM;
const uint WNITER = WN / WSUBN;
const uint WARPS_N = BN / WN;
const uint LANE_M = WMITER * TM;  // rows of C per lane
const uint LANE_N = WNITER * TN;  // columns of C per lane

// Switches for tuning on a GPU without a rebuild (the backend sets them from the catalogue, or
// from TILESKIP_VULKAN_TILES: docs/vulkan.md). The defaults here only let a file compile alone.
// PREFETCH_FRAGMENTS: K11's inner loop reads depth k + 1's fragments while depth k's FMAs run
// (rank1Updates); off, each depth reads its fragments and then does its FMAs, as K10 does.
layout(constant_id = TILESKIP_SPEC_PREFETCH_FRAGMENTS) const bool PREFETCH_FRAGMENTS = true;
// EXPLICIT_FMA: fma(a, b, acc) as the CUDA twins' fmaf, instead of acc + a * b, which SPIR-V lets
// the driver contract into an FMA or not.
layout(constant_id = TILESKIP_SPEC_EXPLICIT_FMA) const bool EXPLICIT_FMA = false;

float acc[LANE_M * LANE_N];
// Fragments: this lane's values of A and B at one depth. Two register sets, indexed at compile
// time: K11 reads depth k + 1's set while depth k's FMAs run; K10 uses set 0 only.
float regM[2 * LANE_M];
float regN[2 * LANE_N];

// This invocation's place: its warp's tile inside the block tile, its lane inside a sub-tile.
uint warpRow, warpCol, laneRow, laneCol;
// The entries of As and Bs (stage.glsl) that hold this lane's first rows of A and
// first columns of B at depth 0 of stage 0 (laneAFirst, laneBFirst), and of the stage the
// fragments are read from (laneAEntry, laneBVector): fragment reads add constants and a depth to
// the latter. Kernels that name the stage in the depth (K11: stage s is depths s·BK on) read from
// stage 0's; K12's loops move them to the stage they read (fragmentsFromStage). The element
// reads of lanes whose fragments are not vectors add the stage's first depth (readDepth) instead.
uint laneAFirst, laneBFirst, laneAEntry, laneBVector, readDepth;

void placeWarp() {
  uint warp = gl_LocalInvocationIndex / WARP_SIZE, lane = gl_LocalInvocationIndex % WARP_SIZE;
  warpRow = (warp / WARPS_N) * WM;
  warpCol = (warp % WARPS_N) * WN;
  laneRow = lane / LANE_COLS;
  laneCol = lane % LANE_COLS;
  laneAFirst = (warpRow + laneRow * TM) / A_ENTRY_FLOATS;  // exact wherever it is used (TM % A_ENTRY_FLOATS == 0)
  laneBFirst = (warpCol + laneCol * TN) / 4u;             // exact wherever it is used (TN % 4 == 0)
  laneAEntry = laneAFirst;
  laneBVector = laneBFirst;
  readDepth = 0u;
  [[unroll]] for (uint i = 0u; i < LANE_M * LANE_N; ++i) acc[i] = 0.0;
}

// Fragment reads from here on take depth k of stage `stage`: the CUDA twins' readStage pointer.
// A loop that alternates stages moves the lane's entries once per K-tile, so each read is one
// register and an immediate offset; with the stage in the depth, (stage·BK + k)·A_ROW_ENTRIES,
// NVIDIA's driver recomputed every A read's address in each K-tile (with the stage stores' shifts,
// some 70 instructions in K12's loop of 1190, lab/33-glsl-k-loop).
void fragmentsFromStage(uint stage) {
  laneAEntry = laneAFirst + stage * (BK * A_ROW_ENTRIES);
  laneBVector = laneBFirst + stage * (BK * B_ROW_VECTORS);
  readDepth = stage * BK;
}

// First row (in the block tile) of sub-tile wm that this lane computes.
uint subTileRow(uint wm) { return warpRow + wm * WSUBM + laneRow * TM; }
uint subTileCol(uint wn) { return warpCol + wn * WSUBN + laneCol * TN; }

// This lane's TM values of A for sub-tile row wm, at depth k of the staged tiles, into `set`.
void loadRegM(uint k, uint wm, uint set) {
  uint at = set * LANE_M + wm * TM;
  if (TM % 4u == 0u) {
    [[unroll]] for (uint i = 0u; i < TM; i += 4u) {
      vec4 a = sharedA4At(k, laneAEntry + (wm * WSUBM + i) / A_ENTRY_FLOATS);
      [[unroll]] for (uint c = 0u; c < 4u; ++c) regM[at + i + c] = a[c];
    }
  } else if (TM == 2u) {
    // Two rows (joint-8x32): the lane's first row is even, so both sit in one pair.
#ifdef TILESKIP_A_IN_PAIRS
    vec2 pair = sharedA2At(k, laneAEntry + wm * WSUBM / 2u);
#else
    vec2 pair = sharedA2(readDepth + k, subTileRow(wm));
#endif
    regM[at] = pair.x;
    regM[at + 1u] = pair.y;
  } else {
    [[unroll]] for (uint i = 0u; i < TM; ++i) regM[at + i] = sharedA(readDepth + k, subTileRow(wm) + i);
  }
}

// This lane's TN values of B for sub-tile column wn, at depth k, into `set`.
void loadRegN(uint k, uint wn, uint set) {
  uint at = set * LANE_N + wn * TN;
  if (TN % 4u == 0u) {
    [[unroll]] for (uint j = 0u; j < TN; j += 4u) {
      vec4 b = sharedB4At(k, laneBVector + (wn * WSUBN + j) / 4u);
      [[unroll]] for (uint c = 0u; c < 4u; ++c) regN[at + j + c] = b[c];
    }
  } else {
    [[unroll]] for (uint j = 0u; j < TN; ++j) regN[at + j] = sharedB(readDepth + k, subTileCol(wn) + j);
  }
}

// Every fragment of the warp tile at depth k, into `set`.
void loadFragments(uint k, uint set) {
  [[unroll]] for (uint wm = 0u; wm < WMITER; ++wm) loadRegM(k, wm, set);
  [[unroll]] for (uint wn = 0u; wn < WNITER; ++wn) loadRegN(k, wn, set);
}

// sum + a·b, fused on request (EXPLICIT_FMA); a select on a constant, so one form remains.
float multiplyAdd(float a, float b, float sum) { return EXPLICIT_FMA ? fma(a, b, sum) : sum + a * b; }

// The TM x TN outer product of sub-tile (wm, wn) from fragment set `set`.
void fmaSubTile(uint wm, uint wn, uint set) {
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    [[unroll]] for (uint j = 0u; j < TN; ++j) {
      uint at = (wm * TM + i) * LANE_N + wn * TN + j;
      acc[at] = multiplyAdd(regM[set * LANE_M + wm * TM + i], regN[set * LANE_N + wn * TN + j], acc[at]);
    }
  }
}

// The rank-1 update at depth k of the staged tiles over the lane's whole warp tile: LANE_M +
// LANE_N shared loads feed LANE_M·LANE_N FMAs.
void warpTileRank1(uint k) {
  loadFragments(k, 0u);
  [[unroll]] for (uint wm = 0u; wm < WMITER; ++wm) {
    [[unroll]] for (uint wn = 0u; wn < WNITER; ++wn) fmaSubTile(wm, wn, 0u);
  }
}

// The `depths` rank-1 updates at depths kOffset .. kOffset + depths - 1 of the staged tiles,
// with the fragments of depth k + 1 read from shared memory while the FMAs of depth k run:
// K11's inner loop. `depths` is a constant at every call (BK, or the K-block of the skipping
// kernels), so once inlined the loop unrolls and the sets stay compile-time indexed (the CUDA
// twin takes the depth as a template argument).
void rank1UpdatesPrefetched(uint kOffset, uint depths) {
  loadFragments(kOffset, 0u);
  [[unroll]] for (uint k = 0u; k < depths; ++k) {
    if (k + 1u < depths) loadFragments(kOffset + k + 1u, (k + 1u) & 1u);
    [[unroll]] for (uint i = 0u; i < LANE_M; ++i) {
      [[unroll]] for (uint j = 0u; j < LANE_N; ++j) {
        acc[i * LANE_N + j] = multiplyAdd(regM[(k & 1u) * LANE_M + i], regN[(k & 1u) * LANE_N + j], acc[i * LANE_N + j]);
      }
    }
  }
}

// The straight-line rank-1 updates of `depths` staged depths from kOffset on: prefetched, or
// depth by depth (PREFETCH_FRAGMENTS off).
void rank1Updates(uint kOffset, uint depths) {
  if (PREFETCH_FRAGMENTS) {
    rank1UpdatesPrefetched(kOffset, depths);
  } else {
    [[unroll]] for (uint k = 0u; k < depths; ++k) warpTileRank1(kOffset + k);
  }
}

void storeWarpTile(uint row0, uint col0) {
  [[unroll]] for (uint wm = 0u; wm < WMITER; ++wm) {
    [[unroll]] for (uint i = 0u; i < TM; ++i) {
      uint row = row0 + subTileRow(wm) + i;
      [[unroll]] for (uint wn = 0u; wn < WNITER; ++wn) {
        uint col = col0 + subTileCol(wn);
        uint at = (wm * TM + i) * LANE_N + wn * TN;
        if (TN % 4u == 0u) {
          [[unroll]] for (uint j = 0u; j < TN; j += 4u) {
            storeC4(row, col + j, vec4(acc[at + j], acc[at + j + 1u], acc[at + j + 2u], acc[at + j + 3u]));
          }
        } else {
          [[unroll]] for (uint j = 0u; j < TN; ++j) storeC(row, col + j, acc[at + j]);
        }
      }
    }
  }
}

#endif  // TILESKIP_PART_WARPTILE
