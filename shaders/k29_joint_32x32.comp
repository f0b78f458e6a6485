#version 450
#extension GL_GOOGLE_include_directive : require
// K29 joint-32x32: K24 with the A-pattern at 32 rows and a 32 x 32 warp tile, one pattern tile
// of each operand per warp. Finer tiles clear more K-blocks, and the smaller 64 x 64 workgroup
// tile lets its union (what skips loads) clear more often too.
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
