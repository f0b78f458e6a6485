#version 450
#extension GL_GOOGLE_include_directive : require
// K10 warptile: between the workgroup tile and the invocation's registers
// sits a warp tile, WM x WN outputs per 32 invocations. A warp's shared-memory reads then stay
// within its own rows of As and columns of Bs (fewer bank conflicts, better register reuse),
// and the warp is the unit the skipping kernels decide for.
#include "parts/warptile.glsl"

void main() {
  uvec2 block = blockCoord();
  uint row0 = block.y * BM, col0 = block.x * BN;
  placeWarp();
  for (uint kTile = 0u; kTile < problem.K; kTile += BK) {
    stageTiles(row0, col0, kTile, ALL_K_BLOCKS);
    barrier();
    [[unroll]] for (uint k = 0u; k < BK; ++k) warpTileRank1(k);
    barrier();
  }
  storeWarpTile(row0, col0);
}
