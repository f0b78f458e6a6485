#version 450
#extension GL_GOOGLE_include_directive : require
// K18 b-group8: K6 that skips by the B-pattern of each invocation's own 8 columns (TN = B_COLS
// = 8): divergence again, now along N. Neighbouring invocations own neighbouring column groups,
// so a warp's lanes disagree wherever B's zero segments are not aligned to the whole warp.
// The workgroup still skips a step none of its columns needs.
#include "tileskip_common.glsl"
#include "tileskip_stage.glsl"

void main() {
  uvec2 block = blockCoord();
  uint row0 = block.y * BM, col0 = block.x * BN;
  clearThreadTile();
  uint blockWord = 0u, threadWord = 0u;
  for (uint kTile = 0u; kTile < problem.K; kTile += BK) {
    if (kTile % 32u == 0u) {
      uint word = kTile / 32u;
      threadWord = bWordOverCols(col0 + threadCol() * TN, TN, word);
      blockWord = bWordOverCols(col0, BN, word);
    }
    if (workgroupSkipsStage(blockWord, kTile)) continue;
    stageTiles(row0, col0, kTile);
    barrier();
    // Each invocation decides alone: no subgroup vote, and no barrier inside the divergent part.
    uint bits = stageBits(threadWord, kTile);
    if (bits == STAGE_MASK) {
      [[unroll]] for (uint k = 0u; k < BK; ++k) threadTileRank1(k);
    } else {
      for (; bits != 0u; bits &= bits - 1u) threadTileRank1(uint(findLSB(bits)));
    }
    barrier();
  }
  storeThreadTile(row0, col0);
}
