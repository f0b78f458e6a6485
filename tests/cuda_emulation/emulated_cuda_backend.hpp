// A Backend that runs the CUDA backend's own kernels (backends/cuda/kernel_table.cuh and the
// pattern kernels) on the CPU through cuda_emulation.hpp, so the core verify suite checks their
// logic on machines without a GPU. Buffers are exact-size heap blocks, so AddressSanitizer (the
// sanitize preset) sees any read or write past the end of A, B, C or a pattern.
#pragma once

#include <cstdint>
#include <memory>

#include "core/model/backend.hpp"
#include "core/model/dtype.hpp"

namespace tileskip::cuda {
struct GemmKernel;
}

namespace tileskip::testing {

std::unique_ptr<Backend> makeEmulatedCudaBackend();

// One problem's operands in every form a kernel of backends/cuda/kernel_table.cuh takes them.
struct EmulatedOperands {
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
  int m = 0, n = 0, k = 0;
  DType inputs = DType::Fp32;            // which instance of a tensor-core kernel runs
  const std::uint16_t* aHalf = nullptr;  // the 16-bit tensor-core kernels' words of A and B
  const std::uint16_t* bHalf = nullptr;
  const float* bTransposed = nullptr;    // B as N x K, for the tf32 warpgroup kernel (with `a`)
  const std::uint8_t* aPattern = nullptr;
  const std::uint8_t* bPattern = nullptr;
  unsigned* tileQueue = nullptr;
};

// Calls `entry`'s kernel (of `kernel`'s row) with the operands its kind takes, as
// kernel_dispatch.cu launches it, from inside an emulated thread (cuda_emulation.hpp's launch).
void callEmulatedKernel(const cuda::GemmKernel& entry, const KernelInfo& kernel, const EmulatedOperands& op);

}  // namespace tileskip::testing
