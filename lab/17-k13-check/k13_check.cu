// Issue 13, before K13 has a catalogue row: on a GPU, checks the fragment layouts the CPU emulator
// assumes (mma.sync m16n8k16 and ldmatrix, backends/cuda/mma_common.cuh) against the hardware,
// checks K13 (backends/cuda/k13_mma.cuh) against an fp64 host product on the emulation tests'
// shapes and a few more, then times K13's candidate shapes against cublasGemmEx in the same dtype.
// Exit 0 when every check passes, 1 when one fails, 3 without a usable GPU. Built on the GPU machine:
//   nvcc -O3 -std=c++20 -arch=sm_90 -I. -Ibackends/cuda lab/17-k13-check/k13_check.cu core/model/dtype.cpp -lcublas -o k13_check
//   ./k13_check [size, default 4096; 0: checks only]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "core/model/dtype.hpp"
#include "k13_mma.cuh"
#include "mma_common.cuh"

using namespace tileskip;
using namespace tileskip::cuda;

namespace {

#define CHECK_CUDA(call)                                                                     \
  do {                                                                                       \
    cudaError_t status_ = (call);                                                            \
    if (status_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(status_));                  \
      std::exit(3);                                                                          \
    }                                                                                        \
  } while (0)

// A K13 build: block tile, K-tile depth, warp tile, pipeline stages; threads follow (a warp per
// warp tile). The first is the one the CPU tests run (tests/test_mma_emulation.cpp).
template <int BM_, int BN_, int BK_, int WM_, int WN_, int kStages_>
struct Shape {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, kStages = kStages_;
  static constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
};
using Checked = Shape<128, 128, 32, 64, 32, 3>;

__host__ __device__ constexpr MmaInput mmaInput(DType type) { return type == DType::Bf16 ? MmaInput::Bf16 : MmaInput::Fp16; }

template <DType kInputs>
__global__ void fragmentMma(const unsigned* a, const unsigned* b, float* d) {
  const unsigned lane = threadIdx.x;
  float acc[4] = {d[lane * 4], d[lane * 4 + 1], d[lane * 4 + 2], d[lane * 4 + 3]};
  const unsigned aRegs[4] = {a[lane * 4], a[lane * 4 + 1], a[lane * 4 + 2], a[lane * 4 + 3]};
  const unsigned bRegs[2] = {b[lane * 2], b[lane * 2 + 1]};
  mmaM16N8K16<mmaInput(kInputs)>(acc, aRegs, bRegs);
  for (int e = 0; e < 4; ++e) d[lane * 4 + e] = acc[e];
}

// Lane l addresses row (37 l + 5) % 64, half (l / 3) % 2 of a 64 x 16 array (as the emulation test).
__global__ void ldmatrixBoth(const std::uint16_t* values, unsigned* plain, unsigned* transposed) {
  __shared__ __align__(16) std::uint16_t rows[64][16];
  for (int i = threadIdx.x; i < 64 * 16; i += 32) rows[i / 16][i % 16] = values[i];
  __syncthreads();
  const int lane = threadIdx.x;
  unsigned r[4], t[4];
  loadMatrixX4(r, &rows[(lane * 37 + 5) % 64][8 * ((lane / 3) % 2)]);
  loadMatrixX4Transposed(t, &rows[(lane * 37 + 5) % 64][8 * ((lane / 3) % 2)]);
  for (int i = 0; i < 4; ++i) plain[lane * 4 + i] = r[i], transposed[lane * 4 + i] = t[i];
}

template <class T>
T* upload(const std::vector<T>& host) {
  T* device = nullptr;
  CHECK_CUDA(cudaMalloc(&device, std::max<std::size_t>(host.size(), 1) * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return device;
}

template <class T>
std::vector<T> download(const T* device, std::size_t count) {
  std::vector<T> host(count);
  CHECK_CUDA(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

int failures = 0;
void expect(bool ok, const char* what) {
  if (!ok) ++failures;
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
}

template <DType kInputs>
void checkFragments(std::mt19937& rng) {
  std::uniform_int_distribution<int> small(-8, 8);
  std::vector<unsigned> a(32 * 4, 0), b(32 * 2, 0);
  std::vector<float> c(32 * 4);
  double A[16][16], B[16][8], C[16][8];
  auto put = [](unsigned& word, int half, std::uint16_t bits) { word |= static_cast<unsigned>(bits) << (16 * half); };
  for (int r = 0; r < 16; ++r)
    for (int k = 0; k < 16; ++k) {
      A[r][k] = small(rng);
      put(a[(4 * (r % 8) + (k % 8) / 2) * 4 + r / 8 + 2 * (k / 8)], k % 2, halfBits(kInputs, static_cast<float>(A[r][k])));
    }
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 8; ++n) {
      B[k][n] = small(rng);
      put(b[(4 * n + (k % 8) / 2) * 2 + k / 8], k % 2, halfBits(kInputs, static_cast<float>(B[k][n])));
    }
  for (int r = 0; r < 16; ++r)
    for (int n = 0; n < 8; ++n) {
      C[r][n] = small(rng);
      c[(4 * (r % 8) + n / 2) * 4 + 2 * (r / 8) + n % 2] = static_cast<float>(C[r][n]);
    }
  unsigned *da = upload(a), *db = upload(b);
  float* dc = upload(c);
  fragmentMma<kInputs><<<1, 32>>>(da, db, dc);
  CHECK_CUDA(cudaDeviceSynchronize());
  const std::vector<float> d = download(dc, c.size());
  bool ok = true;
  for (int r = 0; r < 16; ++r)
    for (int n = 0; n < 8; ++n) {
      double expected = C[r][n];
      for (int k = 0; k < 16; ++k) expected += A[r][k] * B[k][n];
      ok &= d[(4 * (r % 8) + n / 2) * 4 + 2 * (r / 8) + n % 2] == expected;
    }
  expect(ok, kInputs == DType::Bf16 ? "mma.sync m16n8k16 bf16 fragment layout" : "mma.sync m16n8k16 fp16 fragment layout");
  cudaFree(da), cudaFree(db), cudaFree(dc);
}

void checkLdmatrix() {
  std::vector<std::uint16_t> values(64 * 16);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint16_t>(i * 7 + 3);
  std::uint16_t* dv = upload(values);
  unsigned *dp = nullptr, *dt = nullptr;
  CHECK_CUDA(cudaMalloc(&dp, 128 * sizeof(unsigned)));
  CHECK_CUDA(cudaMalloc(&dt, 128 * sizeof(unsigned)));
  ldmatrixBoth<<<1, 32>>>(dv, dp, dt);
  CHECK_CUDA(cudaDeviceSynchronize());
  const std::vector<unsigned> plain = download(dp, 128), transposed = download(dt, 128);
  auto element = [&](int matrix, int row, int col) {
    const int lane = 8 * matrix + row;
    return static_cast<unsigned>(values[((lane * 37 + 5) % 64) * 16 + 8 * ((lane / 3) % 2) + col]);
  };
  bool okPlain = true, okTransposed = true;
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; ++i) {
      okPlain &= plain[lane * 4 + i] == (element(i, g, 2 * t) | element(i, g, 2 * t + 1) << 16);
      okTransposed &= transposed[lane * 4 + i] == (element(i, 2 * t, g) | element(i, 2 * t + 1, g) << 16);
    }
  }
  expect(okPlain, "ldmatrix.x4 layout");
  expect(okTransposed, "ldmatrix.x4.trans layout");
  cudaFree(dv), cudaFree(dp), cudaFree(dt);
}

template <DType kInputs, class S>
void launchK13(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k) {
  auto kernel = mmaDense<mmaInput(kInputs), S::BM, S::BN, S::BK, S::WM, S::WN, S::kStages, S::kThreads>;
  constexpr std::size_t bytes = mmaSharedBytes<mmaInput(kInputs), S::BM, S::BN, S::BK, S::kStages>();
  CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  const unsigned blocks = static_cast<unsigned>(((m + S::BM - 1) / S::BM) * ((n + S::BN - 1) / S::BN));
  kernel<<<blocks, S::kThreads, bytes>>>(a, b, c, m, n, k);
  CHECK_CUDA(cudaGetLastError());
}

template <DType kInputs>
void checkK13(int m, int n, int k, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<std::uint16_t> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n);
  for (auto& v : a) v = halfBits(kInputs, normal(rng));
  for (auto& v : b) v = halfBits(kInputs, normal(rng));
  std::uint16_t *da = upload(a), *db = upload(b);
  float* dc = nullptr;
  CHECK_CUDA(cudaMalloc(&dc, static_cast<std::size_t>(m) * n * sizeof(float)));
  CHECK_CUDA(cudaMemset(dc, 0xFF, static_cast<std::size_t>(m) * n * sizeof(float)));  // NaN: an unwritten output fails
  launchK13<kInputs, Checked>(da, db, dc, m, n, k);
  CHECK_CUDA(cudaDeviceSynchronize());
  const std::vector<float> c = download(dc, static_cast<std::size_t>(m) * n);
  bool ok = true;
  for (int r = 0; r < m && ok; ++r)
    for (int col = 0; col < n; ++col) {
      double expected = 0.0, magnitude = 0.0;
      for (int kk = 0; kk < k; ++kk) {
        const double p = static_cast<double>(fromHalfBits(kInputs, a[static_cast<std::size_t>(r) * k + kk])) *
                         fromHalfBits(kInputs, b[static_cast<std::size_t>(kk) * n + col]);
        expected += p, magnitude += std::fabs(p);
      }
      ok &= std::fabs(c[static_cast<std::size_t>(r) * n + col] - expected) <= (k + 1) * 0x1p-24 * magnitude;
    }
  char what[96];
  std::snprintf(what, sizeof what, "K13 %s %dx%dx%d", dtypeName(kInputs).data(), m, n, k);
  expect(ok, what);
  cudaFree(da), cudaFree(db), cudaFree(dc);
}

// Median of 20 timed runs after 3 warm-ups, K13 in shape S and cublasGemmEx on the same operands.
template <DType kInputs, class S>
void timeK13(int size) {
  const std::size_t count = static_cast<std::size_t>(size) * size;
  std::vector<std::uint16_t> host(count);
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (auto& v : host) v = halfBits(kInputs, normal(rng));
  std::uint16_t *da = upload(host), *db = upload(host);
  float *dc = nullptr, *dref = nullptr;
  CHECK_CUDA(cudaMalloc(&dc, count * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dref, count * sizeof(float)));
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) std::exit(3);
  const cudaDataType type = kInputs == DType::Bf16 ? CUDA_R_16BF : CUDA_R_16F;
  const float alpha = 1.0f, beta = 0.0f;
  auto cublas = [&] {  // row-major C = A B as column-major C^T = B^T A^T
    if (cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, size, size, size, &alpha, db, type, size, da, type, size, &beta,
                     dref, CUDA_R_32F, size, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS) {
      std::exit(3);
    }
  };
  auto ours = [&] { launchK13<kInputs, S>(da, db, dc, size, size, size); };
  auto median = [&](auto&& run) {
    cudaEvent_t start, stop;
    cudaEventCreate(&start), cudaEventCreate(&stop);
    for (int i = 0; i < 3; ++i) run();
    std::vector<float> ms(20);
    for (float& t : ms) {
      cudaEventRecord(start);
      run();
      cudaEventRecord(stop);
      cudaEventSynchronize(stop);
      cudaEventElapsedTime(&t, start, stop);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  const float cublasMs = median(cublas), oursMs = median(ours);
  const std::vector<float> c = download(dc, count), reference = download(dref, count);
  double worst = 0.0;
  for (std::size_t i = 0; i < count; ++i) worst = std::max(worst, std::fabs(static_cast<double>(c[i]) - reference[i]));
  const double tflops = 2.0 * size * size * static_cast<double>(size) / 1e9;
  std::printf("time %s %d^3: K13 %dx%dx%d warp %dx%d %d stages: %.3f ms (%.0f TFLOPS), cublasGemmEx %.3f ms (%.0f TFLOPS), K13/cuBLAS speed %.2f, "
              "max |K13 - cuBLAS| %.3g\n",
              dtypeName(kInputs).data(), size, S::BM, S::BN, S::BK, S::WM, S::WN, S::kStages, oursMs, tflops / oursMs, cublasMs, tflops / cublasMs, cublasMs / oursMs,
              worst);
  cublasDestroy(handle);
  cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dref);
}

}  // namespace

int main(int argc, char** argv) {
  const int size = argc > 1 ? std::atoi(argv[1]) : 4096;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "no CUDA device\n");
    return 3;
  }
  std::mt19937 rng(13);
  checkFragments<DType::Fp16>(rng);
  checkFragments<DType::Bf16>(rng);
  checkLdmatrix();
  const int shapes[][3] = {{37, 45, 70}, {128, 128, 32}, {130, 136, 48}, {1, 1, 1}, {24, 40, 2048}, {20, 17, 1003}, {515, 259, 333}};
  for (const auto& s : shapes) {
    checkK13<DType::Fp16>(s[0], s[1], s[2], rng);
    checkK13<DType::Bf16>(s[0], s[1], s[2], rng);
  }
  if (failures == 0 && size > 0) {
    timeK13<DType::Bf16, Checked>(size);
    timeK13<DType::Fp16, Checked>(size);
    timeK13<DType::Bf16, Shape<128, 128, 32, 64, 32, 4>>(size);
    timeK13<DType::Bf16, Shape<128, 128, 64, 64, 32, 3>>(size);
    timeK13<DType::Bf16, Shape<128, 128, 64, 64, 64, 3>>(size);
    timeK13<DType::Bf16, Shape<128, 256, 32, 64, 64, 3>>(size);
    timeK13<DType::Bf16, Shape<128, 256, 64, 64, 64, 3>>(size);
    timeK13<DType::Fp16, Shape<128, 256, 64, 64, 64, 3>>(size);
  }
  std::printf("%d check(s) failed\n", failures);
  return failures == 0 ? 0 : 1;
}
