#version 450
#extension GL_GOOGLE_include_directive : require
// A transposed (K rows of transposedRowLength(), zeros past M) in fp32 for the fp32 compaction
// kernel (s16_compact_64.comp, binding 6),
// which loads a live column of A as one row of it: the twin of the CUDA backend's launchTranspose
// of fp32 values. to_half.comp's TRANSPOSE_A makes the 16-bit kernels' copy the same way.
#define TILESKIP_PATTERN_BUILDER  // not a GEMM kernel: it picks its own workgroup shape
#include "parts/common.glsl"

layout(local_size_x = 256) in;
layout(set = 0, binding = 6, std430) restrict writeonly buffer MatrixATransposed { float AT[]; };

void main() {
  uint rowLength = transposedRowLength(), count = rowLength * problem.K, stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  // Consecutive invocations write consecutive elements of a row of A transposed.
  for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) {
    uint m = i % rowLength;
    AT[i] = m < problem.M ? A[m * problem.lda + i / rowLength] : 0.0;
  }
}
