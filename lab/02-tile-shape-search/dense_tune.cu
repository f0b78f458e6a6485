// Times candidate tile shapes of the K11 pipelined kernel against cuBLAS SGEMM (TF32 off) at
// 4096^3 on the GPU it runs on, after checking each against cuBLAS. A development tool for
// issue 7 (lab/02-tile-shape-search): the winner's shape goes into core/model/catalogue.hpp.
//   nvcc -O3 -std=c++20 -arch=sm_90 -I. -Ibackends/cuda -Ilab/tools lab/02-tile-shape-search/dense_tune.cu -lcublas -o dense_tune
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "check_call.cuh"
#include "k11_pipelined.cuh"

using namespace tileskip::cuda;
using Kernel = void (*)(const float*, const float*, float*, int, int, int);

struct Candidate {
  const char* name;
  Kernel kernel;
  int BM, BN, threads;
};

template <class Launch>
float medianMs(Launch launch, int repeat = 20) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i) launch();
  std::vector<float> times;
  for (int i = 0; i < repeat; ++i) {
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return times[times.size() / 2];
}

#define CANDIDATE(BM, BN, BK, WM, WN, TM, TN, T, MINB, PF)                                                   \
  Candidate{#BM "x" #BN "x" #BK " w" #WM "x" #WN " t" #TM "x" #TN " " #T "thr min" #MINB " prefetch" #PF, \
            pipelined<BM, BN, BK, WM, WN, TM, TN, T, MINB, PF>, BM, BN, T}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  const std::size_t elements = static_cast<std::size_t>(n) * n;
  std::vector<float> host(elements);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float& v : host) v = uniform(rng);
  float *a, *b, *c, *reference;
  CHECK(cudaMalloc(&a, elements * 4));
  CHECK(cudaMalloc(&b, elements * 4));
  CHECK(cudaMalloc(&c, elements * 4));
  CHECK(cudaMalloc(&reference, elements * 4));
  CHECK(cudaMemcpy(a, host.data(), elements * 4, cudaMemcpyHostToDevice));
  for (float& v : host) v = uniform(rng);
  CHECK(cudaMemcpy(b, host.data(), elements * 4, cudaMemcpyHostToDevice));

  cublasHandle_t handle;
  CHECK(cublasCreate(&handle));
  CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
  const float one = 1.0f, zero = 0.0f;
  // Row-major C = A·B is column-major C^T = B^T·A^T.
  auto cublas = [&] { cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, reference, n); };
  const float cublasMs = medianMs(cublas);
  const double flops = 2.0 * n * static_cast<double>(n) * n;
  std::printf("%-44s %8.3f ms %7.1f TFLOPS  1.000\n", "cublas", cublasMs, flops / cublasMs / 1e9);
  std::vector<float> want(elements), got(elements);
  CHECK(cudaMemcpy(want.data(), reference, elements * 4, cudaMemcpyDeviceToHost));

  const Candidate candidates[] = {
      CANDIDATE(128, 128, 8, 64, 64, 8, 4, 128, 1, false), CANDIDATE(128, 128, 8, 64, 64, 8, 4, 128, 1, true),
      CANDIDATE(128, 128, 8, 64, 64, 8, 4, 128, 3, true),  CANDIDATE(128, 128, 8, 64, 64, 8, 4, 128, 3, false),
      CANDIDATE(128, 256, 8, 64, 64, 8, 4, 256, 1, true),  CANDIDATE(128, 128, 8, 32, 64, 8, 4, 256, 2, true),
      CANDIDATE(64, 128, 8, 64, 32, 8, 4, 128, 3, true),   CANDIDATE(128, 64, 8, 64, 32, 8, 4, 128, 3, true),
  };
  for (const Candidate& candidate : candidates) {
    const unsigned blocks = static_cast<unsigned>(((n + candidate.BM - 1) / candidate.BM) * ((n + candidate.BN - 1) / candidate.BN));
    auto launch = [&] { candidate.kernel<<<blocks, candidate.threads>>>(a, b, c, n, n, n); };
    CHECK(cudaMemset(c, 0xff, elements * 4));
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(got.data(), c, elements * 4, cudaMemcpyDeviceToHost));
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < elements; ++i) {
      diff += (got[i] - want[i]) * static_cast<double>(got[i] - want[i]);
      norm += want[i] * static_cast<double>(want[i]);
    }
    const double error = std::sqrt(diff / norm);
    const float ms = medianMs(launch);
    std::printf("%-44s %8.3f ms %7.1f TFLOPS  %.3f  rel.err %.1e%s\n", candidate.name, ms, flops / ms / 1e9,
                cublasMs / ms, error, error < 1e-5 ? "" : "  WRONG");
  }
  return 0;
}
