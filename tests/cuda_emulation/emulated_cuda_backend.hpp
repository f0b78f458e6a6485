// A Backend that runs the CUDA backend's own kernels (the instance table the build generates from
// the catalogue, backends/cuda/gemm_instance.cuh, and the pattern kernels) on the CPU through cuda_emulation.hpp, so the core verify suite checks their
// logic on machines without a GPU. Buffers are exact-size heap blocks, so AddressSanitizer (the
// sanitize preset) sees any read or write past the end of A, B, C or a pattern.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "core/model/backend.hpp"
#include "core/model/dtype.hpp"

namespace tileskip::cuda {
struct GemmInstance;
}

namespace tileskip::testing {

std::unique_ptr<Backend> makeEmulatedCudaBackend();

// The instance of the row `id` for inputs of `dtype`, or null where the table has none.
const cuda::GemmInstance* findEmulatedInstance(std::string_view id, DType dtype);

// How many instances the table holds. The table itself is compiled in one translation unit only:
// every kernel instantiated for the emulator is the slowest compile of the sanitizer build.
std::size_t emulatedInstanceCount();

}  // namespace tileskip::testing
