// The tensor-core kernels' inputs: A and B as 16-bit words, made on the device from the fp32
// copies the problem uploaded. A problem of a 16-bit dtype holds values that type represents
// exactly (core/model/problem.hpp rounds them on the host), so the conversion loses nothing; it
// is timed as the kernel's preparation, like the skip patterns.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "cuda_check.hpp"
#include "launch.hpp"

namespace tileskip::cuda {

namespace {

constexpr int kConvertThreads = 256;

__global__ void toHalfWords(const float* __restrict__ from, std::uint16_t* __restrict__ to, std::size_t count, bool bf16) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    to[i] = bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(from[i])) : __half_as_ushort(__float2half_rn(from[i]));
  }
}

}  // namespace

void launchToHalf(const float* from, std::uint16_t* to, std::size_t count, bool bf16, cudaStream_t stream) {
  if (count == 0) return;
  // A grid-stride loop: a few waves of blocks cover any count.
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((count + kConvertThreads - 1) / kConvertThreads, 4096));
  toHalfWords<<<blocks, kConvertThreads, 0, stream>>>(from, to, count, bf16);
  checkLaunch("converting inputs to 16 bits");
}

}  // namespace tileskip::cuda
