// Warp tiling, from K9 (warptile) on. A warp is 32 consecutive invocations
// (gl_LocalInvocationIndex / 32), whatever the hardware subgroup size, and owns a WM x WN tile
// of C. Its lanes form a LANE_ROWS x LANE_COLS (4 x 8) grid over a WSUBM x WSUBN sub-tile and
// the warp walks WMITER x WNITER sub-tiles (core/tile_layout.hpp, as in the CUDA twins), so
// each lane keeps (WMITER·TM) x (WNITER·TN) accumulators in registers. A warp's shared reads
// stay in its own slice of As and Bs: per k, 4 distinct vectors of A and 8 consecutive of B.
// Needs tileskip_common.glsl and tileskip_stage.glsl first.

const uint WARP_SIZE = 32u;
const uint LANE_ROWS = WARP_SIZE / LANE_COLS;
const uint WSUBM = LANE_ROWS * TM;
const uint WSUBN = LANE_COLS * TN;
const uint WMITER = WM / WSUBM;
const uint WNITER = WN / WSUBN;
const uint WARPS_N = BN / WN;
const uint LANE_M = WMITER * TM;  // rows of C per lane
const uint LANE_N = WNITER * TN;  // columns of C per lane

float acc[LANE_M * LANE_N];
// Fragments: this lane's values of A and B at one depth. Two register sets, indexed at compile
// time: K11 reads depth k + 1's set while depth k's FMAs run; K9 uses set 0 only.
float regM[2 * LANE_M];
float regN[2 * LANE_N];

// This invocation's place: its warp's tile inside the block tile, its lane inside a sub-tile.
uint warpRow, warpCol, laneRow, laneCol;

void placeWarp() {
  uint warp = gl_LocalInvocationIndex / WARP_SIZE, lane = gl_LocalInvocationIndex % WARP_SIZE;
  warpRow = (warp / WARPS_N) * WM;
  warpCol = (warp % WARPS_N) * WN;
  laneRow = lane / LANE_COLS;
  laneCol = lane % LANE_COLS;
  [[unroll]] for (uint i = 0u; i < LANE_M * LANE_N; ++i) acc[i] = 0.0;
}

// First row (in the block tile) of sub-tile wm that this lane computes.
uint subTileRow(uint wm) { return warpRow + wm * WSUBM + laneRow * TM; }
uint subTileCol(uint wn) { return warpCol + wn * WSUBN + laneCol * TN; }

// This lane's TM values of A for sub-tile row wm, at depth k of the staged tiles, into `set`.
void loadRegM(uint k, uint wm, uint set) {
  uint at = set * LANE_M + wm * TM;
  if (TM % 4u == 0u) {
    [[unroll]] for (uint i = 0u; i < TM; i += 4u) {
      vec4 a = sharedA4(k, subTileRow(wm) + i);
      [[unroll]] for (uint c = 0u; c < 4u; ++c) regM[at + i + c] = a[c];
    }
  } else if (TM == 2u) {
    // Two rows (joint-8x32): the lane's first row is even, so both sit in one pair.
    vec2 pair = sharedA2(k, subTileRow(wm));
    regM[at] = pair.x;
    regM[at + 1u] = pair.y;
  } else {
    [[unroll]] for (uint i = 0u; i < TM; ++i) regM[at + i] = sharedA(k, subTileRow(wm) + i);
  }
}

// This lane's TN values of B for sub-tile column wn, at depth k, into `set`.
void loadRegN(uint k, uint wn, uint set) {
  uint at = set * LANE_N + wn * TN;
  if (TN % 4u == 0u) {
    [[unroll]] for (uint j = 0u; j < TN; j += 4u) {
      vec4 b = sharedB4(k, subTileCol(wn) + j);
      [[unroll]] for (uint c = 0u; c < 4u; ++c) regN[at + j + c] = b[c];
    }
  } else {
    [[unroll]] for (uint j = 0u; j < TN; ++j) regN[at + j] = sharedB(k, subTileCol(wn) + j);
  }
}

// Every fragment of the warp tile at depth k, into `set`.
void loadFragments(uint k, uint set) {
  [[unroll]] for (uint wm = 0u; wm < WMITER; ++wm) loadRegM(k, wm, set);
  [[unroll]] for (uint wn = 0u; wn < WNITER; ++wn) loadRegN(k, wn, set);
}

// The TM x TN outer product of sub-tile (wm, wn) from fragment set `set`.
void fmaSubTile(uint wm, uint wn, uint set) {
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    [[unroll]] for (uint j = 0u; j < TN; ++j) {
      acc[(wm * TM + i) * LANE_N + wn * TN + j] += regM[set * LANE_M + wm * TM + i] * regN[set * LANE_N + wn * TN + j];
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

// The 8 rank-1 updates of one K-block, at depths kOffset .. kOffset + 7 of the staged tiles,
// with the fragments of depth k + 1 read from shared memory while the FMAs of depth k run:
// K11's inner loop. Its depth is the K-block, a constant, so the sets stay compile-time indexed
// (the CUDA twin takes the depth as a template argument).
void rank1UpdatesPrefetched(uint kOffset) {
  loadFragments(kOffset, 0u);
  [[unroll]] for (uint k = 0u; k < K_BLOCK; ++k) {
    if (k + 1u < K_BLOCK) loadFragments(kOffset + k + 1u, (k + 1u) & 1u);
    [[unroll]] for (uint i = 0u; i < LANE_M; ++i) {
      [[unroll]] for (uint j = 0u; j < LANE_N; ++j) acc[i * LANE_N + j] += regM[(k & 1u) * LANE_M + i] * regN[(k & 1u) * LANE_N + j];
    }
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
