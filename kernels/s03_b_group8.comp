#version 450
#extension GL_GOOGLE_include_directive : require
// S3 b-group8: S1 along N. An invocation's TN columns are exactly one B-pattern tile
// (bGranularity = TN in the catalogue row), so it skips by its own B byte: neighbouring
// invocations own neighbouring column groups, disagree wherever B's zero segments are not as
// wide as a warp's columns, and the warp diverges again. The lesson of S4: decide per warp's
// columns.
#include "parts/stage.glsl"

void main() {
  uvec2 block = blockCoord();
  uint row0 = block.y * BM, col0 = block.x * BN;
  clearThreadTile();
  uint threadWord = 0u;
  for (uint kTile = 0u; kTile < problem.K; kTile += BK) {
    if (kTile % 32u == 0u) threadWord = bWordOverCols(col0 + threadCol() * TN, TN, kTile / 32u);
    stageTiles(row0, col0, kTile, ALL_K_BLOCKS);
    barrier();
    // This invocation's own bits: no subgroup vote, and no barrier inside the divergent part.
    uint bits = stageBits(threadWord, kTile);
    [[unroll]] for (uint k = 0u; k < BK; ++k) {
      if (((bits >> k) & 1u) != 0u) threadTileRank1(k);  // divergent: lanes of a warp disagree
    }
    barrier();
  }
  storeThreadTile(row0, col0);
}
