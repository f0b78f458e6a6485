#version 450
#extension GL_GOOGLE_include_directive : require
// S19 bsr-64: K12's loop over a packed block-sparse A. Every skipping kernel before it finds A's
// zeros again on each call, from a dense A: it builds a pattern, then lists the K-blocks a tile
// needs. A pruned or block-sparse-trained weight knows its zeros once and for all; packed
// (core/model/block_sparse.hpp), it is only its kept blocks and an index, a quarter of the bytes at
// density 0.25. The workgroup's tile is one block row tall, so its list of K-blocks is that row's
// slice of the index, read as it is: no pattern, no gather, no union waste, and every value it
// loads is one it multiplies. It runs the kept blocks through K12's two stages and warp tiles
// (parts/packed_stage.glsl), BK deep a K-tile in the index's order, so the sum is deterministic; a block
// row that keeps nothing stores zeros. The CUDA twin is s19_bsr_64.cuh.
#include "parts/packed_stage.glsl"

// Tiles in groups of 8 row tiles, as the CUDA twin's kHoistedGroupRows.
const uint GROUP_ROWS = 8u;

void main() {
  uvec2 block = groupedBlockCoord(GROUP_ROWS);
  uint row0 = block.y * BM, col0 = block.x * BN;
  placeWarp();
  placePackedKTile(row0, col0);
  // The same count for the whole workgroup, so every invocation takes the loop, and its barriers, or none.
  uint steps = packedSteps();
  if (steps > 0u) packedKLoop(steps);
  storeWarpTile(row0, col0);
}
