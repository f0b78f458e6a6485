#version 450
#extension GL_GOOGLE_include_directive : require
// K4 blocktile1d: each invocation computes TM outputs down one column. The B value of a depth k
// is loaded from shared memory once into a register and reused TM times, so shared-memory
// traffic per FMA drops TM-fold; that traffic, not global memory, limited K3.
#include "parts/common.glsl"

shared float As[BM * BK];
shared float Bs[BK * BN];

float acc[TM];

void main() {
  uvec2 block = blockCoord();
  uint row0 = block.y * BM, col0 = block.x * BN;
  uint tid = gl_LocalInvocationIndex;
  uint threadCol = tid % BN, threadRow = tid / BN;  // rows threadRow·TM .. threadRow·TM + TM-1
  [[unroll]] for (uint i = 0u; i < TM; ++i) acc[i] = 0.0;
  for (uint kTile = 0u; kTile < problem.K; kTile += BK) {
    for (uint i = tid; i < BM * BK; i += THREADS) As[i] = loadA(row0 + i / BK, kTile + i % BK);
    for (uint i = tid; i < BK * BN; i += THREADS) Bs[i] = loadB(kTile + i / BN, col0 + i % BN);
    barrier();
    [[unroll]] for (uint k = 0u; k < BK; ++k) {
      float b = Bs[k * BN + threadCol];
      // A subgroup shares threadRow, so these reads are broadcasts.
      [[unroll]] for (uint i = 0u; i < TM; ++i) acc[i] += As[(threadRow * TM + i) * BK + k] * b;
    }
    barrier();
  }
  [[unroll]] for (uint i = 0u; i < TM; ++i) storeC(row0 + threadRow * TM + i, col0 + threadCol, acc[i]);
}
