// A Backend that runs the CUDA backend's own kernels (the instance table the build generates from
// the catalogue, backends/cuda/gemm_instance.cuh, and the pattern kernels) on the CPU through cuda_emulation.hpp, so the core verify suite checks their
// logic on machines without a GPU. Buffers are exact-size heap blocks, so AddressSanitizer (the
// sanitize preset) sees any read or write past the end of A, B, C or a pattern.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
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

// How many instances the table holds. The table itself is compiled only in its parts' files
// (emulated_instances.cpp): every kernel instantiated for the emulator is the slowest compile of
// the sanitizer build.
std::size_t emulatedInstanceCount();

// Part `kPart` of the instance table, defined by the file compiled for that part.
template <int kPart>
std::span<const cuda::GemmInstance> emulatedInstancePart();
template <>
std::span<const cuda::GemmInstance> emulatedInstancePart<0>();
template <>
std::span<const cuda::GemmInstance> emulatedInstancePart<1>();

}  // namespace tileskip::testing
