// Launches of the catalogue's kernels: the instance of a row and the problem's dtype, from the
// table generated from the catalogue (kernel_instances.cuh), with its grid and shared memory.
#include <algorithm>
#include <limits>
#include <string>

#include "core/model/catalogue.hpp"
#include "core/model/error.hpp"
#include "cuda_check.hpp"
#include "launch.hpp"

#include "kernel_instances.cuh"

namespace tileskip::cuda {

namespace {

const GemmInstance* findInstance(std::string_view id, DType dtype) {
  for (const GemmInstance& instance : kGemmInstances) {
    if (instance.row->id == id && instance.dtype == dtype) return &instance;
  }
  return nullptr;
}

// Blocks of `instance` that are resident on the current device at once.
int residentBlocks(const GemmInstance& instance) {
  int device = 0, multiprocessors = 0, perMultiprocessor = 0;
  check(cudaGetDevice(&device), "querying the current device");
  check(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device), "querying multiprocessors");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perMultiprocessor, instance.function, instance.row->tile.threads,
                                                      instance.dynamicSharedBytes),
        "querying occupancy");
  return std::max(1, perMultiprocessor) * multiprocessors;
}

// One block per block tile, or for a persistent kernel as many as are resident at once.
unsigned gridFor(const GemmInstance& instance, const GemmOperands& op) {
  long long blocks = gemmBlockCount(instance.row->tile, op.m, op.n);
  if (blocks > std::numeric_limits<int>::max()) throw InputError("problem too large: more than 2^31 - 1 thread blocks");
  if (instance.row->persistent()) blocks = std::min<long long>(blocks, residentBlocks(instance));
  return static_cast<unsigned>(blocks);
}

// Whether the current device is a Hopper GPU (compute capability 9.0), the only one whose
// instructions the warpgroup kernels' sm_90a code uses.
bool currentDeviceIsHopper() {
  int device = 0, major = 0, minor = 0;
  check(cudaGetDevice(&device), "querying the current device");
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "querying the compute capability");
  check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "querying the compute capability");
  return major == 9 && minor == 0;
}

}  // namespace

bool hasGemmKernel(std::string_view id) {
  return std::any_of(std::begin(kGemmInstances), std::end(kGemmInstances),
                     [&](const GemmInstance& instance) { return instance.row->id == id; });
}

void launchGemmKernel(std::string_view id, const GemmOperands& op, cudaStream_t stream) {
  const GemmInstance* instance = findInstance(id, op.dtype);
  if (instance == nullptr) {
    throw InputError(hasGemmKernel(id) ? "kernel '" + std::string(id) + "' takes no " + std::string(dtypeName(op.dtype)) + " inputs"
                                       : "the cuda backend has no kernel '" + std::string(id) + "'");
  }
  if (instance->row->needsHopper() && !currentDeviceIsHopper()) {
    throw UnavailableError("kernel '" + std::string(id) + "' needs a Hopper GPU (compute capability 9.0)");
  }
  instance->launch(*instance, op, gridFor(*instance, op), stream);
}

void checkKernelImages() {
  const bool hopper = currentDeviceIsHopper();
  for (const GemmInstance& instance : kGemmInstances) {
    // A Hopper kernel asks for more shared memory than other GPUs have; elsewhere it is not offered.
    if (instance.row->needsHopper() && !hopper) continue;
    const std::string what = "looking up kernel " + std::string(instance.row->id);
    cudaFuncAttributes attributes{};
    check(cudaFuncGetAttributes(&attributes, instance.function), what.c_str());
    // A stage ring past 48 KiB of shared memory needs the opt-in (parts/mma.cuh's dynamicSharedMemory).
    if (instance.dynamicSharedBytes > 0) {
      check(cudaFuncSetAttribute(instance.function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(instance.dynamicSharedBytes)),
            ("allowing kernel " + std::string(instance.row->id) + " its shared memory").c_str());
    }
  }
}

}  // namespace tileskip::cuda
