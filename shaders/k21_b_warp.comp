#version 450
#extension GL_GOOGLE_include_directive : require
// K21 b-warp: K9 that skips by the B-pattern at 32 columns, the columns of one warp
// (WN = B_COLS): the warp-uniform skip of K16, now along N. A step no warp of the workgroup
// needs is skipped whole, decided from the pattern every invocation reads alike.
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
    if (workgroupSkipsStage(blockWord, kTile)) continue;
    stageTiles(row0, col0, kTile);
    barrier();
    warpTileStep(warpWord, kTile);
    barrier();
  }
  storeWarpTile(row0, col0);
}
