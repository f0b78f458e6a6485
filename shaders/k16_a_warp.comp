#version 450
#extension GL_GOOGLE_include_directive : require
// K16 a-warp: K9 that skips by the A-pattern at 32 rows, the rows of one warp (WM = A_ROWS).
// Every invocation of a warp reads the same pattern byte, so the subgroup agrees and the skip
// costs no divergence, at any subgroup size. A step no warp of the workgroup needs is skipped
// whole, loads and barriers included, decided from the pattern every invocation reads alike.
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
      warpWord = aWordOverRows(row0 + warpRow, WM, word);
      blockWord = aWordOverRows(row0, BM, word);
    }
    if (workgroupSkipsStage(blockWord, kTile)) continue;
    stageTiles(row0, col0, kTile);
    barrier();
    warpTileStep(warpWord, kTile);
    barrier();
  }
  storeWarpTile(row0, col0);
}
