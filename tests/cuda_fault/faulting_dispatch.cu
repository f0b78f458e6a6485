// A stand-in for backends/cuda/kernel_dispatch.cu in a test-only build of the CUDA module
// (libtileskip_cuda_faulting.so, never installed): every catalogue kernel runs as one that fails,
// so a test on a GPU sees how a failure the driver reports reaches the user (exit 3 with the
// driver's reason, and no output file) with the rest of the module exactly the product's.
// TILESKIP_TEST_CUDA_FAULT picks the failure:
//   kernel (the default)  the kernel stores to an address no allocation holds: the error is
//                         sticky, the context is lost, and it surfaces at the next synchronisation
//   launch                a block larger than any GPU allows: the launch itself is refused
#include <cstdlib>
#include <string>

#include "core/model/catalogue.hpp"
#include "cuda_check.hpp"
#include "launch.hpp"

namespace tileskip::cuda {

namespace {

__global__ void storeOutsideEveryAllocation() {
  // The first page is never mapped on the device, as on the host.
  *reinterpret_cast<volatile float*>(static_cast<unsigned long long>(threadIdx.x) * 4 + 16) = 1.0f;
}

bool launchRefused() {
  const char* fault = std::getenv("TILESKIP_TEST_CUDA_FAULT");
  return fault != nullptr && std::string(fault) == "launch";
}

}  // namespace

bool hasGemmKernel(std::string_view id) { return findKernelInfo(id) != nullptr && !findKernelInfo(id)->isBaseline(); }

void launchGemmKernel(std::string_view id, const GemmOperands&, cudaStream_t stream) {
  const std::string name(id);
  if (launchRefused()) {
    storeOutsideEveryAllocation<<<1, 1u << 16, 0, stream>>>();
  } else {
    storeOutsideEveryAllocation<<<1, 32, 0, stream>>>();
  }
  checkLaunch(name.c_str());
}

void launchLayerFirstGemm(DType, const std::uint16_t*, const std::uint16_t*, std::uint16_t*, unsigned*, std::size_t, int, int, int,
                          bool, cudaStream_t stream) {
  launchGemmKernel(kLayerFirstGemm, GemmOperands{}, stream);
}

void checkKernelImages() {}

}  // namespace tileskip::cuda
