// Launches of the catalogue kernels (the table itself is kernel_table.cuh).
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "bulk_copy_host.hpp"
#include "core/model/catalogue.hpp"
#include "core/model/error.hpp"
#include "cuda_check.hpp"
#include "launch.hpp"

#include "kernel_table.cuh"

namespace tileskip::cuda {

namespace {

// Blocks of `function` that are resident on the current device at once, each with
// `dynamicSharedBytes` of dynamic shared memory.
int residentBlocks(const void* function, int threads, unsigned dynamicSharedBytes) {
  int device = 0, multiprocessors = 0, perMultiprocessor = 0;
  check(cudaGetDevice(&device), "querying the current device");
  check(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device), "querying multiprocessors");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perMultiprocessor, function, threads, dynamicSharedBytes),
        "querying occupancy");
  return std::max(1, perMultiprocessor) * multiprocessors;
}

dim3 gridFor(const GemmKernel& kernel, const KernelInfo& entry, const GemmOperands& op) {
  const TileShape& tile = entry.tile;
  long long blocks = gemmBlockCount(tile, op.m, op.n);
  if (blocks > std::numeric_limits<int>::max()) throw InputError("problem too large: more than 2^31 - 1 thread blocks");
  if (entry.persistent()) {
    blocks = std::min<long long>(blocks, residentBlocks(kernel.function(op.inputs), tile.threads, kernel.sharedBytes(op.inputs)));
  }
  return dim3(static_cast<unsigned>(blocks));
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

// The copy engine's maps of A (M x K) and of B as the kernel reads it, or none where the rows do
// not fit it (bulkCopiesFit): then the kernel copies element by element. 16-bit B is K x N, read
// in boxes of a swizzled row of columns by BK rows; tf32's is transposed, N x K, in boxes of one
// swizzled row of K by all BN rows.
template <class Word>
bool encodeWarpgroupMaps(MmaInput inputs, const KernelInfo& entry, const Word* a, const Word* b, const GemmOperands& op,
                         BulkTensorMap& aMap, BulkTensorMap& bMap) {
  if (!bulkCopiesFit(inputs, op.n, op.k)) return false;
  try {
    aMap = encodeBulkTensorMap(a, op.k, op.m, entry.tile.BM);
    bMap = inputs == MmaInput::Tf32 ? encodeBulkTensorMap(b, op.k, op.n, entry.tile.BN)
                                    : encodeBulkTensorMap(b, op.n, op.k, entry.tile.BK);
  } catch (const std::runtime_error& e) {
    throw UnavailableError(std::string(e.what()));
  }
  return true;
}

void launchWarpgroupKernel(const GemmKernel& kernel, const KernelInfo& entry, const GemmOperands& op, dim3 grid, dim3 block,
                           cudaStream_t stream) {
  if (!currentDeviceIsHopper()) {
    throw UnavailableError("kernel '" + std::string(entry.id) + "' needs a Hopper GPU (compute capability 9.0)");
  }
  const MmaInput inputs = mmaInput(op.inputs);
  const bool bf16 = inputs == MmaInput::Bf16;
  BulkTensorMap aMap{}, bMap{};
  const unsigned shared = kernel.sharedBytes(op.inputs);
  if (inputs == MmaInput::Tf32) {
    const auto* a = reinterpret_cast<const std::uint32_t*>(op.a);
    const auto* bt = reinterpret_cast<const std::uint32_t*>(op.bTransposed);
    const bool bulk = encodeWarpgroupMaps(inputs, entry, a, bt, op, aMap, bMap);
    kernel.tf32Warpgroup<<<grid, block, shared, stream>>>(aMap, bMap, bulk, a, bt, op.c, op.m, op.n, op.k);
    return;
  }
  const bool bulk = encodeWarpgroupMaps(inputs, entry, op.aHalf, op.bHalf, op, aMap, bMap);
  if (kernel.fp16Warpgroup != nullptr) {
    (bf16 ? kernel.bf16Warpgroup : kernel.fp16Warpgroup)<<<grid, block, shared, stream>>>(aMap, bMap, bulk, op.aHalf, op.bHalf,
                                                                                         op.c, op.m, op.n, op.k);
  } else {
    (bf16 ? kernel.bf16WarpgroupSkipping : kernel.fp16WarpgroupSkipping)<<<grid, block, shared, stream>>>(
        aMap, bMap, bulk, op.aHalf, op.bHalf, op.c, op.m, op.n, op.k, op.aPattern, op.bPattern);
  }
}
}  // namespace

bool hasGemmKernel(std::string_view id) { return findGemmKernel(id) != nullptr; }

void launchGemmKernel(std::string_view id, const GemmOperands& op, cudaStream_t stream) {
  const GemmKernel* kernel = findGemmKernel(id);
  if (kernel == nullptr) throw InputError("the cuda backend has no kernel '" + std::string(id) + "'");
  const KernelInfo& entry = kernelInfo(id);
  const dim3 grid = gridFor(*kernel, entry, op);
  const dim3 block(static_cast<unsigned>(entry.tile.threads));
  const std::string name(id);
  if (kernel->dense != nullptr) {
    kernel->dense<<<grid, block, 0, stream>>>(op.a, op.b, op.c, op.m, op.n, op.k);
  } else {
    if (kernel->usesTensorCores() && op.inputs == DType::Tf32 && (!kernel->hasTf32Instance() || op.bTransposed == nullptr)) {
      throw InputError(!kernel->hasTf32Instance() ? "kernel '" + name + "' takes no tf32 inputs"
                                                  : "kernel '" + name + "' launched before its transposed B was made");
    }
    if (kernel->usesTensorCores() && op.inputs != DType::Tf32 && (op.aHalf == nullptr || op.bHalf == nullptr)) {
      throw InputError("kernel '" + name + "' launched before its 16-bit inputs were made");
    }
    if ((entry.usesAPattern() && op.aPattern == nullptr) || (entry.usesBPattern() && op.bPattern == nullptr)) {
      throw InputError("kernel '" + name + "' launched before its skip patterns were built");
    }
    if (entry.persistent() && op.tileQueue == nullptr) throw InputError("kernel '" + name + "' needs a block tile queue");
    const unsigned shared = kernel->sharedBytes(op.inputs);
    // tf32: A and transposed B as fp32 words (mma_common.cuh's MmaInputType).
    const auto* aWords = reinterpret_cast<const std::uint32_t*>(op.a);
    const auto* btWords = reinterpret_cast<const std::uint32_t*>(op.bTransposed);
    if (kernel->onHopper()) {
      launchWarpgroupKernel(*kernel, entry, op, grid, block, stream);
    } else if (kernel->fp16 != nullptr && op.inputs == DType::Tf32) {
      kernel->tf32<<<grid, block, shared, stream>>>(aWords, btWords, op.c, op.m, op.n, op.k);
    } else if (kernel->fp16Skipping != nullptr && op.inputs == DType::Tf32) {
      kernel->tf32Skipping<<<grid, block, shared, stream>>>(aWords, btWords, op.c, op.m, op.n, op.k, op.aPattern, op.bPattern,
                                                            op.tileQueue);
    } else if (kernel->fp16 != nullptr) {
      (op.inputs == DType::Bf16 ? kernel->bf16 : kernel->fp16)<<<grid, block, shared, stream>>>(op.aHalf, op.bHalf, op.c, op.m, op.n, op.k);
    } else if (kernel->fp16Skipping != nullptr) {
      (op.inputs == DType::Bf16 ? kernel->bf16Skipping : kernel->fp16Skipping)<<<grid, block, shared, stream>>>(
          op.aHalf, op.bHalf, op.c, op.m, op.n, op.k, op.aPattern, op.bPattern, op.tileQueue);
    } else {
      kernel->skipping<<<grid, block, 0, stream>>>(op.a, op.b, op.c, op.m, op.n, op.k, op.aPattern, op.bPattern,
                                                   op.tileQueue);
    }
  }
  checkLaunch(name.c_str());
}

void checkKernelImages() {
  const bool hopper = currentDeviceIsHopper();
  for (const GemmKernel& k : kGemmKernels) {
    // A Hopper kernel asks for more shared memory than other GPUs have; elsewhere it is not offered.
    if (k.onHopper() && !hopper) continue;
    const std::string what = "looking up kernel " + std::string(k.id);
    std::vector<DType> instances{DType::Fp32};
    if (k.usesTensorCores()) instances = {DType::Fp16, DType::Bf16};
    if (k.hasTf32Instance()) instances.push_back(DType::Tf32);
    for (DType type : instances) {
      const void* function = k.function(type);
      cudaFuncAttributes attributes{};
      check(cudaFuncGetAttributes(&attributes, function), what.c_str());
      // A stage ring past 48 KiB of shared memory needs the opt-in (mma_common.cuh's dynamicSharedMemory).
      if (k.sharedBytes(type) > 0) {
        check(cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(k.sharedBytes(type))),
              ("allowing kernel " + std::string(k.id) + " its shared memory").c_str());
      }
    }
  }
}

}  // namespace tileskip::cuda
