#version 450
#extension GL_GOOGLE_include_directive : require
// K6 vectorized: K5's register tile, fed by 128-bit loads. Global loads of A and B are vec4, and
// the A tile is stored transposed in shared memory (As[k][row]) so that the TM values of A a
// depth needs are consecutive and read as vectors too, like the TN values of B.
#include "parts/stage.glsl"

void main() {
  uvec2 block = blockCoord();
  uint row0 = block.y * BM, col0 = block.x * BN;
  clearThreadTile();
  for (uint kTile = 0u; kTile < problem.K; kTile += BK) {
    stageTiles(row0, col0, kTile, ALL_K_BLOCKS);
    barrier();
    [[unroll]] for (uint k = 0u; k < BK; ++k) threadTileRank1(k);
    barrier();
  }
  storeThreadTile(row0, col0);
}
