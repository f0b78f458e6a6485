// Global loads that ask L2 for the whole 128-byte line (PTX `ld.global.L2::128B`), as CUTLASS's
// SIMT kernels load A and B (their SASS: LDG.E.LTC128B; tileskip's kernels issue LDG.E.CONSTANT).
// With BK = 8 fp32 a K-tile reads 32 bytes of each row of A, a quarter of a line: the hint brings
// the next three K-tiles' bytes into L2 with the first (lab/28-k12-cutlass-bisect). For the probes of
// lab/tools/dense_variants and lab/tools/cutlass_anchor. Measured in step 29: in the product's loads every SIMT
// kernel ran 0.5-9 % slower with it, so the product does not use it; what the hinted variants
// gained came from their loads no longer taking the read-only path (gemm_common.cuh's
// loadGlobalQuadInOrder says why that matters).
#pragma once

namespace tileskip::tune {

__device__ __forceinline__ float4 loadGlobalQuadL2Line(const float* from) {
  float4 v;
  asm("ld.global.L2::128B.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(from));
  return v;
}

// The same through the read-only path (ld.global.nc, what our plain loads of const __restrict__
// operands compile to: LDG.E.CONSTANT), for telling the line hint from the loss of .nc.
__device__ __forceinline__ float4 loadGlobalQuadL2LineNc(const float* from) {
  float4 v;
  asm("ld.global.nc.L2::128B.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(from));
  return v;
}

__device__ __forceinline__ float loadGlobalL2Line(const float* from) {
  float v;
  asm("ld.global.L2::128B.f32 %0, [%1];" : "=f"(v) : "l"(from));
  return v;
}

// A float4 or a float from global memory, with the line hint where kL2Line says so: the variants
// that compare the two pick the load by this flag.
template <bool kL2Line>
__device__ __forceinline__ float4 loadGlobalQuad(const float* from) {
  if constexpr (kL2Line) {
    return loadGlobalQuadL2Line(from);
  } else {
    return *reinterpret_cast<const float4*>(from);
  }
}

template <bool kL2Line>
__device__ __forceinline__ float loadGlobal(const float* from) {
  if constexpr (kL2Line) {
    return loadGlobalL2Line(from);
  } else {
    return *from;
  }
}

}  // namespace tileskip::tune
