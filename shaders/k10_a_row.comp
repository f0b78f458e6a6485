#version 450
#extension GL_GOOGLE_include_directive : require
// K10 a-row: K6 that skips by the A-pattern of each invocation's own 8 rows (TM = A_ROWS = 8).
// Neighbouring invocations of a warp own different row tiles, so they disagree and the warp
// runs both sides of every branch one after the other: divergence, kept on purpose so the
// viewer can show what it costs. The workgroup still skips a step none of its rows needs.
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
      threadWord = aWordOverRows(row0 + threadRow() * TM, TM, word);
      blockWord = aWordOverRows(row0, BM, word);
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
