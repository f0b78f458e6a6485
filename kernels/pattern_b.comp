#version 450
#extension GL_GOOGLE_include_directive : require
// Builds the B-pattern at B_GRANULARITY columns per tile, bit for bit as core/model/pattern.cpp does. An
// invocation owns 4 consecutive columns over one pattern word (32 consecutive K rows): it reads
// each row as one vec4 (neighbouring invocations read neighbouring vectors, so a subgroup reads
// a contiguous run), sets bit j of a column's word for a non-zero in row 32·word + j, merges the
// columns of one tile and ORs that into the pattern (cleared beforehand) with one atomic.
#define TILESKIP_PATTERN_BUILDER
#include "parts/common.glsl"

layout(local_size_x = 256) in;
const uint COLS_PER_INVOCATION = 4u;

uint columnBits[COLS_PER_INVOCATION];

void publish(uint tile, uint word, uint bits) {
  if (bits != 0u) atomicOr(bPattern[tile * patternWordsPerTile() + word], bits);
}

void main() {
  uvec2 group = blockCoord();
  uint firstCol = (group.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x) * COLS_PER_INVOCATION;
  uint word = group.y;
  if (firstCol >= problem.N || word >= patternWordsPerTile()) return;
  [[unroll]] for (uint c = 0u; c < COLS_PER_INVOCATION; ++c) columnBits[c] = 0u;
  for (uint j = 0u; j < 32u; ++j) {
    uvec4 magnitude = floatBitsToUint(loadB4(word * 32u + j, firstCol)) & 0x7FFFFFFFu;
    [[unroll]] for (uint c = 0u; c < COLS_PER_INVOCATION; ++c) columnBits[c] |= uint(magnitude[c] != 0u) << j;
  }
  uint endCol = min(firstCol + COLS_PER_INVOCATION, problem.N);
  uint tile = firstCol / B_TILE_COLS;
  uint bits = 0u;
  for (uint col = firstCol; col < endCol; ++col) {
    if (col / B_TILE_COLS != tile) {
      publish(tile, word, bits);
      tile = col / B_TILE_COLS;
      bits = 0u;
    }
    bits |= columnBits[col - firstCol];
  }
  publish(tile, word, bits);
}
