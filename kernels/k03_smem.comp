#version 450
#extension GL_GOOGLE_include_directive : require
// K3 smem: the workgroup stages a BM x BK tile of A and a BK x BN tile of B in shared memory,
// then each invocation reads its dot product from there. Every global element is loaded once
// per workgroup instead of once per output: BN-fold reuse of A and BM-fold reuse of B.
#include "parts/common.glsl"

shared float As[BM * BK];
shared float Bs[BK * BN];

void main() {
  uvec2 block = blockCoord();
  uint row0 = block.y * BM, col0 = block.x * BN;
  uint tid = gl_LocalInvocationIndex;
  uint innerRow = tid / BN, innerCol = tid % BN;
  float sum = 0.0;
  for (uint kTile = 0u; kTile < problem.K; kTile += BK) {
    // Consecutive invocations load consecutive k of A and consecutive columns of B; outside the
    // matrix they load zeros, so a partial tile needs no special case below.
    for (uint i = tid; i < BM * BK; i += THREADS) As[i] = loadA(row0 + i / BK, kTile + i % BK);
    for (uint i = tid; i < BK * BN; i += THREADS) Bs[i] = loadB(kTile + i / BN, col0 + i % BN);
    barrier();
    [[unroll]] for (uint k = 0u; k < BK; ++k) sum += As[innerRow * BK + k] * Bs[k * BN + innerCol];
    barrier();
  }
  storeC(row0 + innerRow, col0 + innerCol, sum);
}
