#version 450
#extension GL_GOOGLE_include_directive : require
// K1 naive: one invocation per output of C, a plain dot product over K. Neighbouring invocations
// take neighbouring rows, so at each k a subgroup reads A down a column (one row apart) and B at
// one address: nothing coalesces. The baseline every later kernel improves on.
#include "tileskip_common.glsl"

void main() {
  uvec2 block = blockCoord();
  uint row = block.y * BM + gl_LocalInvocationIndex % BM;
  uint col = block.x * BN + gl_LocalInvocationIndex / BM;
  if (row >= problem.M || col >= problem.N) return;
  float sum = 0.0;
  for (uint k = 0u; k < problem.K; ++k) sum += A[row * problem.lda + k] * B[k * problem.ldb + col];
  storeC(row, col, sum);
}
