#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// S14 compact-mma-64: compaction, for zeros that are spread out. Where A's zeros fall one by one
// (ReLU activations: each a token's inactive neuron), no K-block of a tile is empty, and the
// skipping kernels before this one find nothing; but a K column that no row of a 64-row tile needs
// still costs nothing to leave out. So the workgroup lists its live columns (parts/gather.glsl,
// from the A-pattern at its height) and runs K13's ring and warp tiles over those alone, packed BK
// to a K-tile: the tensor cores multiply dense tiles, only fewer of them.
// A live column must arrive as fast as a K-block does. Column k of A is row k of A transposed (made
// in the preparation, K x M, binding 6), so it arrives as BM / 8 16-byte loads, as row k of B does;
// A's stage is K-major and its pieces are loaded column-major (ring.glsl's A_BY_K). A tile with
// every column live lists them all and runs at the dense ring's pace, so it needs no dense path of
// its own. K longer than a list is walked in passes; the sum runs in K order, so the result is
// deterministic. The CUDA twin is s14_compact_mma_64.cuh.
#include "parts/ring.glsl"
#include "parts/gather.glsl"

void computeKTile(uint stage, uint step) {
  [[unroll]] for (uint kk = 0u; kk < BK; kk += MMA_PIECE) multiplyStep(stage, kk);
}

void main() {
  uvec2 block = blockCoord();
  uint row0 = block.y * BM, col0 = block.x * BN;
  placeMmaWarp();
  mmaZeroAccumulators();
  uint kBlocks = (problem.K + K_BLOCK - 1u) / K_BLOCK;
  for (uint first = 0u; first < kBlocks; first += K_BLOCK_LIST_LENGTH) {
    liveColumnCount = gatherLiveColumns(row0 / BM, first, min(K_BLOCK_LIST_LENGTH, kBlocks - first));
    mmaRingMainLoop(row0, col0, (liveColumnCount + BK - 1u) / BK);
  }
  storeMmaWarpTile(row0, col0);
}
