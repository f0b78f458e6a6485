// A Backend that runs the CUDA backend's own kernels (backends/cuda/kernel_table.cuh and the
// pattern kernels) on the CPU through cuda_emulation.hpp, so the core verify suite checks their
// logic on machines without a GPU. Buffers are exact-size heap blocks, so AddressSanitizer (the
// sanitize preset) sees any read or write past the end of A, B, C or a pattern.
#pragma once

#include <memory>

#include "core/model/backend.hpp"

namespace tileskip::testing {

std::unique_ptr<Backend> makeEmulatedCudaBackend();

}  // namespace tileskip::testing
