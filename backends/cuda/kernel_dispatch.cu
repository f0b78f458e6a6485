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
#include "kernels/layer_first_gemm.cuh"

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
  long long blocks = gridBlocks(*instance.row, op);
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

namespace {

template <DType D>
void launchLayerFirstGemmOf(const std::uint16_t* x, const std::uint16_t* w1, std::uint16_t* ht, unsigned* hPattern, int m,
                            int f, int d, bool relu, cudaStream_t stream) {
  constexpr const KernelInfo& Row = kTileskipRowWgmma;
  static_assert(Row.id == kLayerFirstGemm, "the layer's first GEMM runs the catalogue's layer row");
  GemmOperands op;
  op.m = m, op.n = f, op.k = d, op.dtype = D;
  const WarpgroupMaps maps = warpgroupMaps<Row, D>(x, w1, op);
  constexpr unsigned bytes = dynamicSharedBytes<Row, D>();
  auto* kernel = layer_first_gemm<Row, D>;
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
        "allowing the layer's first GEMM its shared memory");
  const long long blocks = gemmBlockCount(Row.tile, m, f);
  if (blocks > std::numeric_limits<int>::max()) throw InputError("problem too large: more than 2^31 - 1 thread blocks");
  kernel<<<static_cast<unsigned>(blocks), static_cast<unsigned>(Row.tile.threads), bytes, stream>>>(
      maps.a, maps.b, maps.bulk, x, w1, ht, hPattern, m, f, d, relu);
  checkLaunch("running the layer's first GEMM");
}

}  // namespace

void launchLayerFirstGemm(DType dtype, const std::uint16_t* x, const std::uint16_t* w1, std::uint16_t* ht, unsigned* hPattern,
                          std::size_t patternWords, int m, int f, int d, bool relu, cudaStream_t stream) {
  if (!currentDeviceIsHopper()) throw UnavailableError("the layer's first GEMM runs K14's block, which needs a Hopper GPU");
  check(cudaMemsetAsync(hPattern, 0, patternWords * sizeof(unsigned), stream), "clearing the hidden layer's pattern");
  if (dtype == DType::Bf16) {
    launchLayerFirstGemmOf<DType::Bf16>(x, w1, ht, hPattern, m, f, d, relu, stream);
  } else if (dtype == DType::Fp16) {
    launchLayerFirstGemmOf<DType::Fp16>(x, w1, ht, hPattern, m, f, d, relu, stream);
  } else {
    throw InputError("the layer's first GEMM keeps H in fp16 or bf16, not " + std::string(dtypeName(dtype)));
  }
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
