#version 450
#extension GL_GOOGLE_include_directive : require
// The warp-uniform SIMT skipping kernels, S2 and S4 to S9 (the twin of warp_uniform_skip.cuh): one
// source, each catalogue row a variant of it that differs only in its tile and its pattern tiles.
// Each warp sub-tile lies inside one A-pattern and one B-pattern tile, so while a warp works on a
// sub-tile all its invocations read the same pattern bytes, and a skip is a uniform branch at any
// subgroup size (no divergence, unlike S1 and S3). A persistent workgroup takes block tiles from
// the queue; for each it gathers the K-blocks the tile needs, then runs K12's loop over them
// (hoistedListLoop) with the sub-tile skip deciding each warp's updates of the K-blocks that are not
// whole. A tile with nothing to skip gathers every K-block, each marked whole, so its loop reads no
// pattern byte. The next tile is asked for before the C store (askBlockTile).
#include "parts/warp_skip.glsl"

void main() {
  subgroupInOneWarp = subgroupAllEqual(gl_LocalInvocationIndex / WARP_SIZE);
#ifdef TILESKIP_TEST_SUBGROUP_SPANS_WARPS
  // Test build only (embedded as a separate module): what a subgroup spanning two warps does,
  // on a device whose subgroups never do.
  subgroupInOneWarp = false;
#endif
  uint colTiles = (problem.N + BN - 1u) / BN;
  uint tiles = dispatchTilesEnd(((problem.M + BM - 1u) / BM) * colTiles);
  startPatternTiles();
  for (uint index = takeBlockTile(); index < tiles;) {
    uint row0 = (index / colTiles) * BM, col0 = (index % colTiles) * BN;
    placeWarp();
    warpFirstRow = row0 + warpRow;
    warpFirstCol = col0 + warpCol;
    placeKTile(row0, col0);
    placeBlockPatternTiles(row0, col0);
    walkKBlocks(row0, col0);
    uint asked = askBlockTile();
    storeWarpTile(row0, col0);
    index = passBlockTile(asked);
  }
  leaveBlockTileQueue();
}
