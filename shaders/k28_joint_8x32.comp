#version 450
#extension GL_GOOGLE_include_directive : require
// K28 joint-8x32: the joint skip with the A-pattern at 8 rows, four times finer than K29. A
// 32 x 32 warp tile holds four A-pattern tiles, so one byte per warp would not be uniform.
// Instead the warp walks its tile in sub-tiles of exactly 8 rows (TM = 2: 4 lane rows x 2 rows,
// WSUBM = 8): while it works on sub-tile wm all its invocations are in the same 8-row pattern
// tile and read the same byte, so each check stays warp-uniform.
#include "tileskip_common.glsl"
#include "tileskip_stage.glsl"
#include "tileskip_warptile.glsl"

uint subTileWord[WMITER];  // joint pattern word of each 8-row sub-tile of the warp

// The rank-1 updates of K-block `kBlock` that each sub-tile row keeps: depth by depth, B's
// registers are loaded once and serve every sub-tile row that keeps that depth.
void subTilesKBlock(uint kBlock, uint kTile) {
  uint jointPattern[WMITER];  // per sub-tile row, agreed across the subgroup
  uint anyRow = 0u, everyRow = 0xFFu;
  [[unroll]] for (uint wm = 0u; wm < WMITER; ++wm) {
    jointPattern[wm] = subgroupAgreedBits((stageBits(subTileWord[wm], kTile) >> (kBlock * K_BLOCK)) & 0xFFu);
    anyRow |= jointPattern[wm];
    everyRow &= jointPattern[wm];
  }
  if (everyRow == 0xFFu) {  // dense K-block for the whole warp: K9's straight-line updates
    warpTileKBlock(kBlock, 0xFFu);
    return;
  }
  [[unroll]] for (uint j = 0u; j < K_BLOCK; ++j) {
    if (((anyRow >> j) & 1u) == 0u) continue;
    uint k = kBlock * K_BLOCK + j;
    [[unroll]] for (uint wn = 0u; wn < WNITER; ++wn) loadRegN(k, wn);
    [[unroll]] for (uint wm = 0u; wm < WMITER; ++wm) {
      if (((jointPattern[wm] >> j) & 1u) != 0u) {
        loadRegM(k, wm);
        outerProduct(wm);
      }
    }
  }
}

void main() {
  uvec2 block = blockCoord();
  uint row0 = block.y * BM, col0 = block.x * BN;
  placeWarp();
  uint blockWord = 0u;
  for (uint kTile = 0u; kTile < problem.K; kTile += BK) {
    if (kTile % 32u == 0u) {
      uint word = kTile / 32u;
      [[unroll]] for (uint wm = 0u; wm < WMITER; ++wm) {
        subTileWord[wm] = jointWordOver(row0 + warpRow + wm * WSUBM, WSUBM, col0 + warpCol, WN, word);
      }
      blockWord = jointWordOver(row0, BM, col0, BN, word);
    }
    uint kBlockMask = stageKBlockMask(blockWord, kTile);
    if (kBlockMask == 0u) continue;  // no warp of the workgroup needs this step: skip its loads and barriers
    stageTiles(row0, col0, kTile, kBlockMask);
    barrier();
    [[dont_unroll]] for (uint kBlock = 0u; kBlock < BK / K_BLOCK; ++kBlock) {
      if (((kBlockMask >> kBlock) & 1u) != 0u) subTilesKBlock(kBlock, kTile);
    }
    barrier();
  }
  storeWarpTile(row0, col0);
}
