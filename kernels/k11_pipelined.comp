#version 450
#extension GL_GOOGLE_include_directive : require
// K11 pipelined: K10's warp tiling, double-buffered. While the warps compute one K-tile from
// shared memory, the next one travels from global memory into registers and is written to the
// other stage afterwards, and each depth's fragments are read while the previous depth's FMAs
// run: the latency of both loads hides behind the FMAs instead of stalling every warp. One
// barrier per K-tile remains. The schedule is every K-block in order (parts/pipeline.glsl).
#include "parts/pipeline.glsl"

uint kBlockCount;  // K-blocks of the problem

int scheduledKBlock(uint index) { return index < kBlockCount ? int(index) : -1; }
void prepareKTile() {}  // the dense kernel needs nothing beside the data
void advanceKTile() {}

// The whole K-tile in one prefetched run, as the CUDA twin: only the first depth's fragments
// wait after the barrier.
void computeKTile(uint depth0) { rank1Updates(depth0, BK); }

void main() {
  uvec2 block = blockCoord();
  uint row0 = block.y * BM, col0 = block.x * BN;
  placeWarp();
  kBlockCount = (problem.K + K_BLOCK - 1u) / K_BLOCK;
  pipelinedMainLoop(row0, col0, (kBlockCount + K_SLOTS - 1u) / K_SLOTS);
  storeWarpTile(row0, col0);
}
