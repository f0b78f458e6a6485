// One part of the CUDA instance table (kernel_instances.cuh) compiled for the CPU emulator.
// tests/CMakeLists.txt compiles this file once per part, TILESKIP_EMULATED_PART naming it, so
// that the parts' kernels (the slowest compile of the sanitizer build) compile side by side.
// clang-format off
#include "cuda_emulation.hpp"  // first: the kernel sources need its stand-ins
// clang-format on

#define TILESKIP_GEMM_INSTANCE_PARTS_ONLY
#include "kernel_instances.cuh"

#include "emulated_cuda_backend.hpp"

#define TILESKIP_EMULATED_PART_LIST(part) TILESKIP_EMULATED_PART_LIST_OF(part)
#define TILESKIP_EMULATED_PART_LIST_OF(part) TILESKIP_GEMM_INSTANCES_PART_##part

namespace tileskip::cuda {
namespace {
const GemmInstance kEmulatedPart[] = {TILESKIP_EMULATED_PART_LIST(TILESKIP_EMULATED_PART)};
}  // namespace
}  // namespace tileskip::cuda

namespace tileskip::testing {

template <>
std::span<const cuda::GemmInstance> emulatedInstancePart<TILESKIP_EMULATED_PART>() {
  return cuda::kEmulatedPart;
}

}  // namespace tileskip::testing
