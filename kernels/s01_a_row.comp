#version 450
#extension GL_GOOGLE_include_directive : require
// S1 a-row: K6 with a skip. An invocation's TM rows are exactly one A-pattern tile
// (aGranularity = TM in the catalogue row), so each invocation reads its own pattern byte and skips the rank-1 updates whose bit is
// clear. That is a per-invocation decision: the row groups of a warp read different bytes,
// disagree, and the warp runs both paths one after the other (divergence), so little time is
// saved; loads are not skipped either. The lesson of S2: make the decision warp-sized.
#include "parts/stage.glsl"

void main() {
  uvec2 block = blockCoord();
  uint row0 = block.y * BM, col0 = block.x * BN;
  clearThreadTile();
  uint threadWord = 0u;
  for (uint kTile = 0u; kTile < problem.K; kTile += BK) {
    if (kTile % 32u == 0u) threadWord = aWordOverRows(row0 + threadRow() * TM, TM, kTile / 32u);
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
