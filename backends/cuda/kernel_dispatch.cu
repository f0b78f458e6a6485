// Launches of the catalogue kernels (the table itself is kernel_table.cuh).
#include <limits>
#include <string>

#include "core/catalogue.hpp"
#include "core/error.hpp"
#include "cuda_check.hpp"
#include "launch.hpp"

#include "kernel_table.cuh"

namespace tileskip::cuda {

namespace {

dim3 gridFor(const TileShape& tile, const GemmOperands& op) {
  const long long blocks = gemmBlockCount(tile, op.m, op.n);
  if (blocks > std::numeric_limits<int>::max()) throw InputError("problem too large: more than 2^31 - 1 thread blocks");
  return dim3(static_cast<unsigned>(blocks));
}
}  // namespace

bool hasGemmKernel(std::string_view id) { return findGemmKernel(id) != nullptr; }

void launchGemmKernel(std::string_view id, const GemmOperands& op, cudaStream_t stream) {
  const GemmKernel* kernel = findGemmKernel(id);
  if (kernel == nullptr) throw InputError("the cuda backend has no kernel '" + std::string(id) + "'");
  const KernelInfo& entry = kernelInfo(id);
  const dim3 grid = gridFor(entry.tile, op);
  const dim3 block(static_cast<unsigned>(entry.tile.threads));
  const std::string name(id);
  if (kernel->dense != nullptr) {
    kernel->dense<<<grid, block, 0, stream>>>(op.a, op.b, op.c, op.m, op.n, op.k);
  } else {
    if ((entry.usesAPattern() && op.aPattern == nullptr) || (entry.usesBPattern() && op.bPattern == nullptr)) {
      throw InputError("kernel '" + name + "' launched before its skip patterns were built");
    }
    kernel->skipping<<<grid, block, 0, stream>>>(op.a, op.b, op.c, op.m, op.n, op.k, op.aPattern, op.bPattern);
  }
  checkLaunch(name.c_str());
}

void checkKernelImages() {
  for (const GemmKernel& k : kGemmKernels) {
    cudaFuncAttributes attributes{};
    const void* function = k.dense != nullptr ? reinterpret_cast<const void*>(k.dense) : reinterpret_cast<const void*>(k.skipping);
    check(cudaFuncGetAttributes(&attributes, function), ("looking up kernel " + std::string(k.id)).c_str());
  }
}

}  // namespace tileskip::cuda
