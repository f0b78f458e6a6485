// The anchor issue 17 measures the dense reference against: CUTLASS's SIMT SGEMM (plain CUDA C++
// templates) beside cuBLAS SGEMM in one process, row-major A, B and C as tileskip multiplies them.
// CUTLASS itself stays out of this repository: build.sh compiles this driver against a fetched
// copy of its headers (CUTLASS_DIR) and the binary travels to the GPU machine.
//
// Prints one line per (size, kernel): median and min of --repeat timed runs after a warm-up, its
// ratio to cuBLAS in the same process, and its largest difference from cuBLAS's C. `--only NAME`
// (cublas, or a CUTLASS shape such as 128x256) runs that kernel alone, for a profiler. `--k K` keeps
// K at K while M = N take each size: a dense problem of only the products a skipping kernel keeps
// (4096 x 4096 x 256 is block-aligned zeros at A = B = 0.25 with every kept K-block packed together):
// what a perfect skip would take on each kernel's main loop (lab/38-kept-work).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cutlass/gemm/device/gemm.h"
#include "cutlass/version.h"
#include "k12_cutlass_warp.cuh"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(3);
  }
}

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: cuBLAS status %d\n", what, static_cast<int>(s));
    std::exit(3);
  }
}

using Row = cutlass::layout::RowMajor;
using Epilogue = cutlass::epilogue::thread::LinearCombination<float, 1, float, float>;

template <int BM, int BN, int WM, int WN, int Stages>
using SimtGemm = cutlass::gemm::device::Gemm<float, Row, float, Row, float, Row, float, cutlass::arch::OpClassSimt,
                                             cutlass::arch::Sm80, cutlass::gemm::GemmShape<BM, BN, 8>,
                                             cutlass::gemm::GemmShape<WM, WN, 8>, cutlass::gemm::GemmShape<1, 1, 1>,
                                             Epilogue, cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, Stages>;

// C (n x n) = A (n x k) B (k x n), row-major.
struct Problem {
  int n, k;
  float *a, *b, *c, *reference;
};

template <class Gemm>
void runCutlass(const Problem& p) {
  typename Gemm::Arguments args({p.n, p.n, p.k}, {p.a, p.k}, {p.b, p.n}, {p.c, p.n}, {p.c, p.n}, {1.0f, 0.0f});
  static Gemm gemm;
  if (gemm.can_implement(args) != cutlass::Status::kSuccess) {
    std::fprintf(stderr, "CUTLASS cannot implement this shape\n");
    std::exit(3);
  }
  if (gemm(args) != cutlass::Status::kSuccess) {
    std::fprintf(stderr, "CUTLASS launch failed\n");
    std::exit(3);
  }
}

// tileskip's K12 as the catalogue builds it, and K12 with CUTLASS's warp level (k12_cutlass_warp.cuh):
// both launch one block per 128 x 256 tile of C in a 1-D grid, as the product does.
template <class Kernel>
void runTileskip(Kernel kernel, const Problem& p) {
  const unsigned blocks = static_cast<unsigned>((p.n / 128) * (p.n / 256));
  kernel<<<blocks, 256>>>(p.a, p.b, p.c, p.n, p.n, p.k);
}

// Row-major C = A·B is column-major C^T = B^T·A^T: cuBLAS multiplies B by A.
void runCublas(cublasHandle_t handle, const Problem& p, float* out) {
  const float one = 1.0f, zero = 0.0f;
  check(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.n, p.k, &one, p.b, p.n, p.a, p.k, &zero, out, p.n),
        "cublasSgemm");
}

struct Times {
  float median, min;
};

Times timeIt(const std::function<void()>& launch, int repeat) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  launch();  // warm-up
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<float> ms;
  for (int i = 0; i < repeat; ++i) {
    check(cudaEventRecord(start), "record");
    launch();
    check(cudaEventRecord(stop), "record");
    check(cudaEventSynchronize(stop), "sync");
    float t = 0;
    check(cudaEventElapsedTime(&t, start, stop), "elapsed");
    ms.push_back(t);
  }
  check(cudaGetLastError(), "launch");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front()};
}

float largestDifference(const Problem& p) {
  const std::size_t count = static_cast<std::size_t>(p.n) * p.n;
  std::vector<float> c(count), r(count);
  check(cudaMemcpy(c.data(), p.c, count * sizeof(float), cudaMemcpyDeviceToHost), "copy C");
  check(cudaMemcpy(r.data(), p.reference, count * sizeof(float), cudaMemcpyDeviceToHost), "copy reference");
  float worst = 0.0f;
  for (std::size_t i = 0; i < count; ++i) worst = std::max(worst, std::fabs(c[i] - r[i]) / (1.0f + std::fabs(r[i])));
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {2048, 4096, 8192};
  int repeat = 15;
  std::string only;
  int fixedK = 0;  // 0: K = the size
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--repeat" && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
      if (repeat < 1) {
        std::fprintf(stderr, "--repeat must be at least 1\n");
        return 2;
      }
    } else if (arg == "--only" && i + 1 < argc) {
      only = argv[++i];
      const std::string known[] = {"cublas", "128x256", "128x256s2", "256x128", "128x128", "128x128w32", "k12", "k12-cutlass-warp",
                                   "k12-cutlass-warp-copy", "k12-cutlass-warp-order", "k12-cutlass-warp-copy-order",
                                   "k12-cutlass-warp-l2line", "k12-cutlass-warp-copy-order-l2line"};
      if (std::find(std::begin(known), std::end(known), only) == std::end(known)) {
        std::fprintf(stderr, "--only %s: not one of cublas, 128x256, 128x256s2, 256x128, 128x128, 128x128w32, k12, k12-cutlass-warp(-copy, -order, -copy-order, -l2line, -copy-order-l2line)\n",
                     only.c_str());
        return 2;
      }
    } else if (arg == "--k" && i + 1 < argc) {
      fixedK = std::atoi(argv[++i]);
      if (fixedK <= 0 || fixedK % 8 != 0) {
        std::fprintf(stderr, "--k must be a positive multiple of 8 (the K-tile)\n");
        return 2;
      }
    } else if (arg == "--sizes" && i + 1 < argc) {
      sizes.clear();
      std::string list = argv[++i];
      for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        const int n = std::atoi(list.substr(at, comma - at).c_str());
        if (n <= 0 || n % 256 != 0) {
          std::fprintf(stderr, "--sizes: %s is not a positive multiple of 256\n", list.substr(at, comma - at).c_str());
          return 2;
        }
        sizes.push_back(n);
        at = comma + 1;
      }
    } else {
      std::fprintf(stderr, "usage: %s [--repeat N] [--sizes 2048,4096,8192] [--k K] [--only cublas|128x256|...]\n", argv[0]);
      return 2;
    }
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "device");
  int driver = 0;
  cudaDriverGetVersion(&driver);
  cublasHandle_t handle;
  check(cublasCreate(&handle), "cublasCreate");
  int cublasVersion = 0;
  cublasGetVersion(handle, &cublasVersion);
  std::printf("device %s, %d SMs, CUDA driver API %d, cuBLAS %d, CUTLASS %d.%d.%d, median of %d after a warm-up\n",
              prop.name, prop.multiProcessorCount, driver, cublasVersion, CUTLASS_MAJOR, CUTLASS_MINOR, CUTLASS_PATCH,
              repeat);
  std::printf("%-11s %-44s %10s %10s %10s %12s\n", "MxNxK", "kernel", "median ms", "min ms", "/ cuBLAS", "max rel diff");
  for (int n : sizes) {
    Problem p{n, fixedK > 0 ? fixedK : n};
    const std::string shape = std::to_string(n) + "x" + std::to_string(n) + "x" + std::to_string(p.k);
    const std::size_t bytes = static_cast<std::size_t>(n) * n * sizeof(float);
    const std::size_t operandBytes = static_cast<std::size_t>(n) * p.k * sizeof(float);
    for (float** buffer : {&p.a, &p.b}) check(cudaMalloc(buffer, operandBytes), "cudaMalloc");
    for (float** buffer : {&p.c, &p.reference}) check(cudaMalloc(buffer, bytes), "cudaMalloc");
    std::vector<float> host(static_cast<std::size_t>(n) * p.k);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (float* target : {p.a, p.b}) {
      for (float& x : host) x = value(rng);
      check(cudaMemcpy(target, host.data(), operandBytes, cudaMemcpyHostToDevice), "upload");
    }
    const bool all = only.empty();
    Times cublas{0.0f, 0.0f};
    if (all || only == "cublas") {
      cublas = timeIt([&] { runCublas(handle, p, p.reference); }, repeat);
      std::printf("%-11s %-44s %10.3f %10.3f %10.3f %12s\n", shape.c_str(), "cuBLAS SGEMM", cublas.median, cublas.min, 1.0, "-");
    }
    struct Variant {
      const char* shape;
      const char* name;
      std::function<void()> run;
    };
    const Variant variants[] = {
        {"128x256", "CUTLASS SIMT 128x256x8, warp 64x64, 3 stages", [&] { runCutlass<SimtGemm<128, 256, 64, 64, 3>>(p); }},
        {"128x256s2", "CUTLASS SIMT 128x256x8, warp 64x64, 2 stages", [&] { runCutlass<SimtGemm<128, 256, 64, 64, 2>>(p); }},
        {"256x128", "CUTLASS SIMT 256x128x8, warp 64x64, 2 stages", [&] { runCutlass<SimtGemm<256, 128, 64, 64, 2>>(p); }},
        {"128x128", "CUTLASS SIMT 128x128x8, warp 64x64, 2 stages", [&] { runCutlass<SimtGemm<128, 128, 64, 64, 2>>(p); }},
        {"128x128w32", "CUTLASS SIMT 128x128x8, warp 32x64, 3 stages",
         [&] { runCutlass<SimtGemm<128, 128, 32, 64, 3>>(p); }},
        {"k12", "tileskip K12 128x256x8 (catalogue)",
         [&] { runTileskip(tileskip::cuda::hoisted<128, 256, 8, 64, 64, 8, 4, 256>, p); }},
        {"k12-cutlass-warp", "K12's block level, CUTLASS's warp level",
         [&] { runTileskip(tileskip::anchor::hoistedCutlassWarp<128, 256, 8, 256>, p); }},
        {"k12-cutlass-warp-copy", "... and CUTLASS's scalar K-tile copies",
         [&] { runTileskip(tileskip::anchor::hoistedCutlassWarp<128, 256, 8, 256, true>, p); }},
        {"k12-cutlass-warp-order", "... and CUTLASS's block order",
         [&] { runTileskip(tileskip::anchor::hoistedCutlassWarp<128, 256, 8, 256, false, true>, p); }},
        {"k12-cutlass-warp-copy-order", "... and CUTLASS's copies and block order",
         [&] { runTileskip(tileskip::anchor::hoistedCutlassWarp<128, 256, 8, 256, true, true>, p); }},
        {"k12-cutlass-warp-l2line", "K12 block, CUTLASS warp, loads of whole L2 lines",
         [&] { runTileskip(tileskip::anchor::hoistedCutlassWarp<128, 256, 8, 256, false, false, true>, p); }},
        {"k12-cutlass-warp-copy-order-l2line", "... CUTLASS's copies, order, whole L2 lines",
         [&] { runTileskip(tileskip::anchor::hoistedCutlassWarp<128, 256, 8, 256, true, true, true>, p); }},
    };
    for (const Variant& v : variants) {
      if (!all && only != v.shape) continue;
      check(cudaMemset(p.c, 0, bytes), "memset");
      const Times t = timeIt(v.run, repeat);
      if (all) {
        std::printf("%-11s %-44s %10.3f %10.3f %10.3f %12.2e\n", shape.c_str(), v.name, t.median, t.min, cublas.median / t.median,
                    largestDifference(p));
      } else {
        std::printf("%-11s %-44s %10.3f %10.3f %10s %12s\n", shape.c_str(), v.name, t.median, t.min, "-", "-");
      }
    }
    for (float* buffer : {p.a, p.b, p.c, p.reference}) cudaFree(buffer);
  }
  cublasDestroy(handle);
  return 0;
}
