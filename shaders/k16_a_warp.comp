#version 450
#extension GL_GOOGLE_include_directive : require
// K16 a-warp: K9's warp tiling with the A-pattern at 32 rows, the rows of one warp tile. All
// invocations of a warp read the same pattern byte, so the subgroup agrees and skipping a
// rank-1 update is a uniform branch at any subgroup size (no divergence, unlike K10); a K-block
// that no warp of the workgroup needs is not even loaded.
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
    uint kBlockMask = stageKBlockMask(blockWord, kTile);
    if (kBlockMask == 0u) continue;  // no warp of the workgroup needs this step: skip its loads and barriers
    stageTiles(row0, col0, kTile, kBlockMask);
    barrier();
    warpTileStep(warpWord, kTile, kBlockMask);
    barrier();
  }
  storeWarpTile(row0, col0);
}
