#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// K13 mma: the dense kernel on tensor cores. K11's block and warp tiling stays; what changes is
// the innermost step and the way tiles arrive. A warp no longer does rank-1 updates with FMAs:
// it multiplies 16 x 16 pieces of A and B with one cooperative-matrix multiply-add each (fp16
// in, fp32 accumulate), loaded from shared memory in the layout the instruction wants. The
// K-tiles pass through the catalogue's ring of three (parts/ring.glsl), so while the warps
// multiply one, the next two are on their way: in registers, where the CUDA twin's cp.async puts
// them in shared memory, which holds two stages here.
//
// Levels, as in the CUDA twin (k13_mma.cuh): a workgroup computes BM x BN of C (one per block
// tile), a warp WM x WN (M_PIECES x N_PIECES pieces), a piece 16 x 16 x 16 (the CUDA twin: two
// m16n8k16 MMAs). A and B arrive as fp16 (bindings 6 and 7); C is fp32.
#include "parts/ring.glsl"

uint kBlocksTotal;  // K-blocks of the problem

// Every K-block in order: the dense schedule (AllKBlocks in the CUDA twin).
int scheduledKBlock(uint index) { return index < kBlocksTotal ? int(index) : -1; }

void computeKTile(uint stage, uint step) {
  [[unroll]] for (uint kk = 0u; kk < BK; kk += MMA_PIECE) multiplyStep(stage, kk);
}

void main() {
  uvec2 block = blockCoord();
  uint row0 = block.y * BM, col0 = block.x * BN;
  placeMmaWarp();
  mmaZeroAccumulators();
  kBlocksTotal = (problem.K + K_BLOCK - 1u) / K_BLOCK;
  mmaRingMainLoop(row0, col0, (kBlocksTotal + K_SLOTS - 1u) / K_SLOTS);
  storeMmaWarpTile(row0, col0);
}
