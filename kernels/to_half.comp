#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// A and B as fp16 for the tensor-core kernels (k13_mma.comp, bindings 6 and 7), the twin of the
// CUDA backend's launchToHalf (precision_kernels.cu). A problem of fp16 inputs holds values fp16
// represents exactly (core/model/problem.hpp rounds them on the host), so nothing is lost.
// Workgroup row 0 converts A, row 1 B, each in a grid-stride loop over its elements. Built with
// TRANSPOSE_A, row 0 writes A transposed (K rows of transposedRowLength(), zeros past M) instead,
// for the compaction kernels, which copy a live column of A as one row of it (the CUDA backend's
// launchTranspose of the 16-bit words).
#define TILESKIP_PATTERN_BUILDER  // not a GEMM kernel: it picks its own workgroup shape
#include "parts/common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = TILESKIP_SPEC_TRANSPOSE_A) const bool TRANSPOSE_A = false;
layout(set = 0, binding = 6, std430) restrict writeonly buffer MatrixAHalf { float16_t AH[]; };
layout(set = 0, binding = 7, std430) restrict writeonly buffer MatrixBHalf { float16_t BH[]; };

void main() {
  bool toA = gl_WorkGroupID.y == 0u;
  uint rowLength = transposedRowLength();
  uint count = toA ? (TRANSPOSE_A ? rowLength : problem.M) * problem.K : problem.K * problem.N;
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) {
    if (toA && TRANSPOSE_A) {
      // Consecutive invocations write consecutive elements of a row of A transposed.
      uint m = i % rowLength;
      AH[i] = m < problem.M ? float16_t(A[m * problem.K + i / rowLength]) : float16_t(0.0);
    } else if (toA) {
      AH[i] = float16_t(A[i]);
    } else {
      BH[i] = float16_t(B[i]);
    }
  }
}
