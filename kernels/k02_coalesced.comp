#version 450
#extension GL_GOOGLE_include_directive : require
// K2 coalesced: the same dot product, but neighbouring invocations take neighbouring columns.
// At each k a subgroup now reads one A element (a broadcast) and a contiguous run of B, and
// writes a contiguous run of C: every global access coalesces.
#include "parts/common.glsl"

void main() {
  uvec2 block = blockCoord();
  uint row = block.y * BM + gl_LocalInvocationIndex / BN;
  uint col = block.x * BN + gl_LocalInvocationIndex % BN;
  if (row >= problem.M || col >= problem.N) return;
  float sum = 0.0;
  for (uint k = 0u; k < problem.K; ++k) sum += A[row * problem.lda + k] * B[k * problem.ldb + col];
  storeC(row, col, sum);
}
