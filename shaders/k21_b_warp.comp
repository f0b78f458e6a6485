#version 450
#extension GL_GOOGLE_include_directive : require
// K21 b-warp: K16 along N, with the B-pattern at 32 columns, the columns of one warp tile:
// unlike K18 the whole warp reads one byte and agrees, and a K-block that no warp of the
// workgroup needs is not loaded.
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
      warpWord = bWordOverCols(col0 + warpCol, WN, word);
      blockWord = bWordOverCols(col0, BN, word);
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
