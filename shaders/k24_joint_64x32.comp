#version 450
#extension GL_GOOGLE_include_directive : require
// K24 joint-64x32: skip only where a_pat & b_pat is zero, the joint pattern of the warp's
// 64-row A tile and 32-column B tile (WM = A_ROWS, WN = B_COLS). A product needs both factors,
// so the joint pattern clears more than either alone; but 64 rows is coarse, and a coarse A
// tile seldom has a zero K-block.
#include "tileskip_common.glsl"
#include "tileskip_stage.glsl"
#include "tileskip_warptile.glsl"

void main() {
  uvec2 block = blockCoord();
  uint row0 = block.y * BM, col0 = block.x * BN;
  placeWarp();
  uint blockWord = 0u, warpWord = 0u;
  for (uint kTile = 0u; kTile < problem.K; kTile += BK) {
    if (kTile % 32u == 0u) {
      uint word = kTile / 32u;
      warpWord = jointWordOver(row0 + warpRow, WM, col0 + warpCol, WN, word);
      blockWord = jointWordOver(row0, BM, col0, BN, word);
    }
    uint kBlockMask = stageKBlockMask(blockWord, kTile);
    if (kBlockMask == 0u) continue;  // no warp of the workgroup needs this step: skip its loads and barriers
    stageTiles(row0, col0, kTile, kBlockMask);
    barrier();
    warpTileStep(warpWord, kTile, kBlockMask);
    barrier();
  }
  storeWarpTile(row0, col0);
}
