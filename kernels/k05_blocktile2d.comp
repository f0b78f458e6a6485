#version 450
#extension GL_GOOGLE_include_directive : require
// K5 blocktile2d: each invocation computes a TM x TN block of outputs. Per depth k it loads TM
// values of A and TN of B into registers and does TM·TN FMAs with them (an outer product), so
// TM + TN shared loads feed TM·TN FMAs. An invocation's outputs are consecutive rows and
// columns (ThreadMapping::ThreadTile, threadOutputs() in core/model/tile_layout.hpp), as in the CUDA twin.
#include "parts/common.glsl"

shared float As[BM * BK];
shared float Bs[BK * BN];

const uint THREAD_COLS = BN / TN;
float acc[TM * TN];
float regM[TM];
float regN[TN];

void main() {
  uvec2 block = blockCoord();
  uint row0 = block.y * BM, col0 = block.x * BN;
  uint tid = gl_LocalInvocationIndex;
  uint threadRow = tid / THREAD_COLS, threadCol = tid % THREAD_COLS;
  [[unroll]] for (uint i = 0u; i < TM * TN; ++i) acc[i] = 0.0;
  for (uint kTile = 0u; kTile < problem.K; kTile += BK) {
    [[unroll]] for (uint pass = 0u; pass < (BM * BK + THREADS - 1u) / THREADS; ++pass) {
      uint i = pass * THREADS + tid;
      if (i < BM * BK) As[i] = loadA(row0 + i / BK, kTile + i % BK);
    }
    [[unroll]] for (uint pass = 0u; pass < (BK * BN + THREADS - 1u) / THREADS; ++pass) {
      uint i = pass * THREADS + tid;
      if (i < BK * BN) Bs[i] = loadB(kTile + i / BN, col0 + i % BN);
    }
    barrier();
    [[unroll]] for (uint k = 0u; k < BK; ++k) {
      [[unroll]] for (uint i = 0u; i < TM; ++i) regM[i] = As[(threadRow * TM + i) * BK + k];
      [[unroll]] for (uint j = 0u; j < TN; ++j) regN[j] = Bs[k * BN + threadCol * TN + j];
      [[unroll]] for (uint i = 0u; i < TM; ++i) {
        [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i * TN + j] += regM[i] * regN[j];
      }
    }
    barrier();
  }
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    [[unroll]] for (uint j = 0u; j < TN; ++j) storeC(row0 + threadRow * TM + i, col0 + threadCol * TN + j, acc[i * TN + j]);
  }
}
