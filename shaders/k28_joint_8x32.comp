#version 450
#extension GL_GOOGLE_include_directive : require
// K28 joint-8x32: joint skipping with the A-pattern at 8 rows, finer than the 32-row warp tile.
// The warp walks 8-row sub-tiles (WSUBM = A_ROWS = 8, core/tile_layout.hpp), each with its own
// joint byte a_pat & b_pat; every invocation of the warp reads the same sub-tile's byte at the
// same time, so each check stays warp-uniform while the skip follows A at 8-row resolution.
#include "tileskip_common.glsl"
#include "tileskip_stage.glsl"
#include "tileskip_warptile.glsl"

uint subTileWord[WMITER];  // joint pattern word of each 8-row sub-tile of the warp

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
    if (workgroupSkipsStage(blockWord, kTile)) continue;
    stageTiles(row0, col0, kTile);
    barrier();
    [[dont_unroll]] for (uint kBlock = 0u; kBlock < BK / K_BLOCK; ++kBlock) {
      uint jointPattern[WMITER];
      uint anyBits = 0u, allBits = 0xFFu;
      [[unroll]] for (uint wm = 0u; wm < WMITER; ++wm) {
        jointPattern[wm] = subgroupAgreedBits((stageBits(subTileWord[wm], kTile) >> (kBlock * K_BLOCK)) & 0xFFu);
        anyBits |= jointPattern[wm];
        allBits &= jointPattern[wm];
      }
      if (allBits == 0xFFu) {
        warpTileKBlock(kBlock, 0xFFu);  // every sub-tile needs every depth: one pass over the warp tile
      } else if (anyBits != 0u) {
        [[unroll]] for (uint wm = 0u; wm < WMITER; ++wm) {
          if (jointPattern[wm] != 0u) subTileKBlock(kBlock, wm, jointPattern[wm]);
        }
      }
    }
    barrier();
  }
  storeWarpTile(row0, col0);
}
