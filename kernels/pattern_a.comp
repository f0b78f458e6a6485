#version 450
#extension GL_GOOGLE_include_directive : require
// Builds the A-pattern at A_GRANULARITY rows per tile, bit for bit as core/model/pattern.cpp does. An
// invocation owns one pattern word (32 consecutive K-indices, i.e. 4 K-blocks) over 8 rows: it
// reads them as vec4, sets bit j for a non-zero at K-index 32·word + j, and ORs the word of
// each row tile it touched into the pattern (cleared beforehand) with one atomic per tile.
#define TILESKIP_PATTERN_BUILDER
#include "parts/common.glsl"

layout(local_size_x = 32, local_size_y = 8) in;  // 32 words x 8 row slices: 1024 K x 64 rows
const uint ROWS_PER_INVOCATION = 8u;

// Exact and independent of denormal flushing: -0.0 is zero, NaN and denormals are not.
uint nonZeroBits(vec4 v) {
  uvec4 magnitude = floatBitsToUint(v) & 0x7FFFFFFFu;
  return uint(magnitude.x != 0u) | uint(magnitude.y != 0u) << 1 | uint(magnitude.z != 0u) << 2 |
         uint(magnitude.w != 0u) << 3;
}

void publish(uint tile, uint word, uint bits) {
  if (bits != 0u) atomicOr(aPattern[tile * patternWordsPerTile() + word], bits);
}

void main() {
  uvec2 group = blockCoord();
  uint word = group.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  uint firstRow = (group.y * gl_WorkGroupSize.y + gl_LocalInvocationID.y) * ROWS_PER_INVOCATION;
  if (word >= patternWordsPerTile() || firstRow >= problem.M) return;
  uint endRow = min(firstRow + ROWS_PER_INVOCATION, problem.M);
  uint tile = firstRow / A_TILE_ROWS;
  uint bits = 0u;
  for (uint row = firstRow; row < endRow; ++row) {
    if (row / A_TILE_ROWS != tile) {
      publish(tile, word, bits);
      tile = row / A_TILE_ROWS;
      bits = 0u;
    }
    [[unroll]] for (uint q = 0u; q < 8u; ++q) bits |= nonZeroBits(loadA4(row, word * 32u + q * 4u)) << (q * 4u);
  }
  publish(tile, word, bits);
}
