#version 450
#extension GL_GOOGLE_include_directive : require
// S16 compact-64: S14's compaction in fp32, on K12's loop. Where A's zeros fall one by one (ReLU
// activations: each a token's inactive neuron), no K-block of a tile is empty and the warp-uniform
// skipping kernels find nothing; but a K column that no row of a 64-row tile needs still costs
// nothing to leave out. So the workgroup lists its live columns (parts/gather.glsl, from the
// A-pattern at its height) and runs K12's two stages and warp tiles over those alone, packed BK to
// a K-tile (parts/gathered_stage.glsl): every rank-1 update it makes is one some row needs.
// A live column must arrive as fast as a K-tile of K12 does. Column k of A is row k of A transposed
// (made in the preparation, K x M, binding 6), so it arrives in vector loads, as row k of B does,
// and lands in the transposed stage as it is. A tile with every column live lists them all and
// runs at the dense loop's pace, so it needs no dense path of its own. K longer than a list is
// walked in passes; the sum runs in K order, so the result is deterministic. The CUDA twin is
// s16_compact_64.cuh.
#include "parts/gather.glsl"
#include "parts/gathered_stage.glsl"

// Tiles in groups of 8 row tiles, as the CUDA twin's kHoistedGroupRows.
const uint GROUP_ROWS = 8u;

void main() {
  uvec2 block = groupedBlockCoord(GROUP_ROWS);
  uint row0 = block.y * BM, col0 = block.x * BN;
  placeWarp();
  placeGatheredKTile(row0, col0);
  uint kBlocks = (problem.K + K_BLOCK - 1u) / K_BLOCK;
  for (uint first = 0u; first < kBlocks; first += K_BLOCK_LIST_LENGTH) {
    // Its barriers also keep this pass's list and stages from the last pass's readers.
    liveColumnCount = gatherLiveColumns(row0 / BM, first, min(K_BLOCK_LIST_LENGTH, kBlocks - first));
    if (liveColumnCount > 0u && gatheredInterior) {
      gatheredKLoop(true);
    } else if (liveColumnCount > 0u) {
      gatheredKLoop(false);
    }
  }
  storeWarpTile(row0, col0);
}
