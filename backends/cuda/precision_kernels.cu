// The tensor-core kernels' inputs: A and B as 16-bit words, made on the device from the fp32
// copies the problem uploaded, and for tf32 B transposed. A problem of a 16-bit dtype holds
// values that type represents exactly (core/model/problem.hpp rounds them on the host), so the
// conversion loses nothing; each is timed as the kernel's preparation, like the skip patterns.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "core/model/catalogue.hpp"
#include "cuda_check.hpp"
#include "launch.hpp"

namespace tileskip::cuda {

namespace {

constexpr int kConvertThreads = 256;

// A square of kTransposeTile x kTransposeTile values passes through shared memory, so that both the
// read of B's rows and the write of B^T's rows are coalesced; the padding column keeps a column's
// reads off one bank.
constexpr int kTransposeTile = 32, kTransposeRows = 8;

template <class Word>
__global__ void transposeTiles(const Word* __restrict__ b, int k, int n, Word* __restrict__ bt, int rowLength) {
  __shared__ Word tile[kTransposeTile][kTransposeTile + 1];
  const int col0 = static_cast<int>(blockIdx.x) * kTransposeTile, x = static_cast<int>(threadIdx.x);
  // Down K in strides of the grid's height, which is capped (65535 blocks), to the out rows' padded
  // length: the padding is written too, as zeros.
  for (int row0 = static_cast<int>(blockIdx.y) * kTransposeTile; row0 < rowLength;
       row0 += static_cast<int>(gridDim.y) * kTransposeTile) {
    for (int r = static_cast<int>(threadIdx.y); r < kTransposeTile; r += kTransposeRows) {
      if (col0 + x < n) tile[r][x] = row0 + r < k ? b[static_cast<std::size_t>(row0 + r) * n + col0 + x] : Word{0};
    }
    __syncthreads();
    for (int r = static_cast<int>(threadIdx.y); r < kTransposeTile; r += kTransposeRows) {
      if (col0 + r < n && row0 + x < rowLength) bt[static_cast<std::size_t>(col0 + r) * rowLength + row0 + x] = tile[x][r];
    }
    __syncthreads();  // the tile is refilled
  }
}

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

namespace {
template <class Word>
void launchTransposeWords(const Word* b, int k, int n, Word* bt, int rowLength, cudaStream_t stream, const char* doing) {
  if (k == 0 || n == 0) return;
  const dim3 grid(static_cast<unsigned>((n + kTransposeTile - 1) / kTransposeTile),
                  static_cast<unsigned>(std::min((rowLength + kTransposeTile - 1) / kTransposeTile, 65535)));
  transposeTiles<<<grid, dim3(kTransposeTile, kTransposeRows), 0, stream>>>(b, k, n, bt, rowLength);
  checkLaunch(doing);
}
}  // namespace

void launchTranspose(const float* values, int rows, int cols, float* out, int outRowLength, cudaStream_t stream) {
  launchTransposeWords(values, rows, cols, out, outRowLength, stream, "transposing an fp32 matrix");
}

void launchTranspose(const std::uint16_t* a, int m, int k, std::uint16_t* at, cudaStream_t stream) {
  launchTransposeWords(a, m, k, at, transposedRowLength(m), stream, "transposing A's 16-bit words");
}

}  // namespace tileskip::cuda
