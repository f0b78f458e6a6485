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
float regM[LANE_M];
float regN[LANE_N];

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

void loadRegM(uint k, uint wm) {
  if (TM % 4u == 0u) {
    [[unroll]] for (uint i = 0u; i < TM; i += 4u) {
      vec4 a = sharedA4(k, subTileRow(wm) + i);
      [[unroll]] for (uint c = 0u; c < 4u; ++c) regM[wm * TM + i + c] = a[c];
    }
  } else if (TM == 2u) {
    // Two rows (joint-8x32): one 128-bit read and the half that holds them, as the CUDA twin's
    // 64-bit read; the lane's first row is even, so both rows sit in one vector.
    vec4 a = sharedA4(k, subTileRow(wm) & ~3u);
    vec2 pair = (subTileRow(wm) & 2u) != 0u ? a.zw : a.xy;
    regM[wm * TM] = pair.x;
    regM[wm * TM + 1u] = pair.y;
  } else {
    [[unroll]] for (uint i = 0u; i < TM; ++i) regM[wm * TM + i] = sharedA(k, subTileRow(wm) + i);
  }
}

void loadRegN(uint k, uint wn) {
  if (TN % 4u == 0u) {
    [[unroll]] for (uint j = 0u; j < TN; j += 4u) {
      vec4 b = sharedB4(k, subTileCol(wn) + j);
      [[unroll]] for (uint c = 0u; c < 4u; ++c) regN[wn * TN + j + c] = b[c];
    }
  } else {
    [[unroll]] for (uint j = 0u; j < TN; ++j) regN[wn * TN + j] = sharedB(k, subTileCol(wn) + j);
  }
}

void outerProduct(uint wm) {
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    [[unroll]] for (uint j = 0u; j < LANE_N; ++j) acc[(wm * TM + i) * LANE_N + j] += regM[wm * TM + i] * regN[j];
  }
}

// The rank-1 update at depth k of the step over the lane's whole warp tile: LANE_M + LANE_N
// shared loads feed LANE_M·LANE_N FMAs.
void warpTileRank1(uint k) {
  [[unroll]] for (uint wm = 0u; wm < WMITER; ++wm) loadRegM(k, wm);
  [[unroll]] for (uint wn = 0u; wn < WNITER; ++wn) loadRegN(k, wn);
  [[unroll]] for (uint wm = 0u; wm < WMITER; ++wm) outerProduct(wm);
}

// The rank-1 updates of K-block `kBlock` of the step (depths 8·kBlock ..) whose bits are set in
// `bits`, a value the whole subgroup agreed on, so every branch here is subgroup-uniform. A full
// byte takes the same straight-line code as the dense kernel.
void warpTileKBlock(uint kBlock, uint bits) {
  uint k0 = kBlock * K_BLOCK;
  if (bits == 0xFFu) {
    [[unroll]] for (uint j = 0u; j < K_BLOCK; ++j) warpTileRank1(k0 + j);
  } else if (bits != 0u) {
    [[unroll]] for (uint j = 0u; j < K_BLOCK; ++j) {
      if (((bits >> j) & 1u) != 0u) warpTileRank1(k0 + j);
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

// The compute of one staged step of a warp-uniform skipping kernel: for each K-block the
// workgroup staged (`kBlockMask`), the bits of `warpWord` (the warp's pattern word: a_pat &
// b_pat, or one operand's pattern) that the subgroup agrees on, and only those updates. No
// barrier inside: the caller's barriers stay outside every per-subgroup decision.
void warpTileStep(uint warpWord, uint kTile, uint kBlockMask) {
  uint stage = stageBits(warpWord, kTile);
  [[dont_unroll]] for (uint kBlock = 0u; kBlock < BK / K_BLOCK; ++kBlock) {
    if (((kBlockMask >> kBlock) & 1u) == 0u) continue;
    uint jointPattern = subgroupAgreedBits((stage >> (kBlock * K_BLOCK)) & 0xFFu);
    warpTileKBlock(kBlock, jointPattern);
  }
}
