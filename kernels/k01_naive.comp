#version 450
#extension GL_GOOGLE_include_directive : require
// K1 naive: one invocation per output of C, a plain dot product over K. Neighbouring invocations
// take neighbouring rows (row i % BM, column i / BM), so with BM = 16 a warp's 32 invocations cover
// 16 rows by 2 columns: at each k they read A down a column (16 rows apart) and B at 2 neighbouring
// addresses, and store C in 16 rows. The baseline every later kernel improves on.
#include "parts/common.glsl"

void main() {
  uvec2 block = blockCoord();
  uint row = block.y * BM + gl_LocalInvocationIndex % BM;
  uint col = block.x * BN + gl_LocalInvocationIndex / BM;
  if (row >= problem.M || col >= problem.N) return;
  float sum = 0.0;
  for (uint k = 0u; k < problem.K; ++k) sum += A[row * problem.lda + k] * B[k * problem.ldb + col];
  storeC(row, col, sum);
}
