// Times many builds of the dense fp32 SGEMM (issue 17) against cuBLAS SGEMM (TF32 off) in one
// process: every variant is checked first on fresh random inputs at odd and timed sizes, with
// C poisoned with NaN before each run; a variant that fails any check gets no number. Then
// each size is timed in two rounds that alternate all variants and cuBLAS (CUDA events, median
// of --repeat runs after warm-up; the better round is kept, as `tileskip tune` does since the
// H200 showed slow first uploads). Prints one table; --csv writes it too.
// Build and run: lab/tools/dense_variants/run_dense_variants.sh (the build line is in it).
//   dense_variants [--sizes 2048,4096,8192] [--repeat 15] [--filter text|text] [--csv file]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "check_call.cuh"
#include "dense_variants.cuh"

using namespace tileskip;
using tune::Variant;

namespace {

struct Shape {
  int M, N, K;
};

// Uniform in [-1, 1) from a hash of (seed, index): fresh inputs per check without a host copy.
__global__ void fillUniform(float* data, std::size_t count, unsigned seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    unsigned x = static_cast<unsigned>(i) * 0x9E3779B1u ^ seed * 0x85EBCA77u ^ static_cast<unsigned>(i >> 32);
    x ^= x >> 16, x *= 0x7FEB352Du, x ^= x >> 15, x *= 0x846CA68Bu, x ^= x >> 16;
    data[i] = static_cast<float>(x >> 8) * (2.0f / 16777216.0f) - 1.0f;
  }
}

// sums[0] += |got - want|^2 over finite outputs, sums[1] += |want|^2, *bad += non-finite outputs.
__global__ void compareOutputs(const float* got, const float* want, std::size_t count, double* sums, unsigned* bad) {
  double diff = 0, norm = 0;
  unsigned nonFinite = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const double g = got[i], w = want[i];
    if (!isfinite(g)) {
      ++nonFinite;
    } else {
      diff += (g - w) * (g - w);
    }
    norm += w * w;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    diff += __shfl_down_sync(0xFFFFFFFFu, diff, offset);
    norm += __shfl_down_sync(0xFFFFFFFFu, norm, offset);
    nonFinite += __shfl_down_sync(0xFFFFFFFFu, nonFinite, offset);
  }
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&sums[0], diff);
    atomicAdd(&sums[1], norm);
    atomicAdd(bad, nonFinite);
  }
}

struct Device {
  float *a = nullptr, *b = nullptr, *c = nullptr, *reference = nullptr;
  double* sums = nullptr;
  unsigned* bad = nullptr;
  cublasHandle_t handle{};
};

void fill(float* data, std::size_t count, unsigned seed) {
  fillUniform<<<1024, 256>>>(data, count, seed);
  CHECK(cudaGetLastError());
}

// Row-major C = A·B is column-major C^T = B^T·A^T.
void runCublas(Device& d, const Shape& s) {
  const float one = 1.0f, zero = 0.0f;
  CHECK(cublasSgemm(d.handle, CUBLAS_OP_N, CUBLAS_OP_N, s.N, s.M, s.K, &one, d.b, s.N, d.a, s.K, &zero, d.reference,
                    s.N));
}

void launch(const Variant& v, const Device& d, const Shape& s) {
  const unsigned blocks = static_cast<unsigned>(((s.M + v.BM - 1) / v.BM) * ((s.N + v.BN - 1) / v.BN));
  v.kernel<<<blocks, v.threads, v.dynamicSmem>>>(d.a, d.b, d.c, s.M, s.N, s.K);
}

// Relative Frobenius error against cuBLAS; a non-finite output makes it infinite. K rounding
// steps of fp32 grow the error like sqrt(K), hence the tolerance's sqrt(K / 4096).
struct Check {
  double error = 0;
  unsigned nonFinite = 0;
  bool ok = false;
  const char* launchError = nullptr;  // the launch itself was refused (shared memory, threads)
};

Check check(const Variant& v, Device& d, const Shape& s, unsigned seed) {
  const std::size_t sizeA = std::size_t(s.M) * s.K, sizeB = std::size_t(s.K) * s.N, sizeC = std::size_t(s.M) * s.N;
  fill(d.a, sizeA, seed * 2 + 1);
  fill(d.b, sizeB, seed * 2 + 2);
  runCublas(d, s);
  CHECK(cudaMemset(d.c, 0xFF, sizeC * sizeof(float)));  // NaN: an output never written fails
  launch(v, d, s);
  Check result;
  if (const cudaError_t launched = cudaGetLastError(); launched != cudaSuccess) {
    result.launchError = cudaGetErrorString(launched);
    return result;
  }
  CHECK(cudaMemset(d.sums, 0, 2 * sizeof(double)));
  CHECK(cudaMemset(d.bad, 0, sizeof(unsigned)));
  compareOutputs<<<1024, 256>>>(d.c, d.reference, sizeC, d.sums, d.bad);
  CHECK(cudaGetLastError());
  double sums[2];
  CHECK(cudaMemcpy(sums, d.sums, sizeof(sums), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&result.nonFinite, d.bad, sizeof(unsigned), cudaMemcpyDeviceToHost));
  result.error = sums[1] > 0 ? std::sqrt(sums[0] / sums[1]) : std::sqrt(sums[0]);
  const double tolerance = 1e-5 * std::max(1.0, std::sqrt(s.K / 4096.0));
  result.ok = result.nonFinite == 0 && result.error < tolerance;
  return result;
}

template <class Launch>
float medianMs(Launch&& run, int repeat) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i) run();  // warm-up
  CHECK(cudaDeviceSynchronize());
  std::vector<float> times;
  for (int i = 0; i < repeat; ++i) {
    CHECK(cudaEventRecord(start));
    run();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<int> parseList(const char* text) {
  std::vector<int> values;
  for (const char* p = text; *p != '\0';) {
    values.push_back(std::atoi(p));
    while (*p != '\0' && *p != ',') ++p;
    if (*p == ',') ++p;
  }
  return values;
}

struct Row {
  Variant variant;
  cudaFuncAttributes attributes{};
  int blocksPerSM = 0;
  bool verified = true;
  std::string failure;
  std::vector<float> ms;  // per timed size; 0 = not timed
};

// --filter: a variant runs when its name contains any of the |-separated texts (all when empty).
bool matchesFilter(const std::string& name, const std::string& filter) {
  if (filter.empty()) return true;
  for (std::size_t from = 0;;) {
    const std::size_t bar = filter.find('|', from);
    const std::string text = filter.substr(from, bar == std::string::npos ? std::string::npos : bar - from);
    if (!text.empty() && name.find(text) != std::string::npos) return true;
    if (bar == std::string::npos) return false;
    from = bar + 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {2048, 4096, 8192};
  int repeat = 15;
  std::string filter, csvPath;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : "";
    if (arg == "--sizes") sizes = parseList(value), ++i;
    else if (arg == "--repeat") repeat = std::max(1, std::atoi(value)), ++i;
    else if (arg == "--filter") filter = value, ++i;
    else if (arg == "--csv") csvPath = value, ++i;
    else {
      std::fprintf(stderr, "usage: %s [--sizes 2048,4096,8192] [--repeat 15] [--filter text|text] [--csv file]\n", argv[0]);
      return 2;
    }
  }

  std::vector<Variant> variants;
  tune::addReferenceVariants(variants);
  tune::addRegisterVariants(variants);
  tune::addStagesVariants(variants);
  tune::addLanesVariants(variants);
  tune::addDepthVariants(variants);
  tune::addWideVariants(variants);
  tune::addCopyScheduleVariants(variants);
  tune::addOrderVariants(variants);
  tune::addStreamlinedVariants(variants);

  cudaDeviceProp prop{};
  int device = 0, driver = 0, runtime = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaGetDeviceProperties(&prop, device));
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaRuntimeGetVersion(&runtime));
  std::printf("device %s, %d SMs, CC %d.%d, driver %d, runtime %d; repeat %d, fp32 (TF32 off)\n", prop.name,
              prop.multiProcessorCount, prop.major, prop.minor, driver, runtime, repeat);

  std::vector<Row> rows;
  for (const Variant& v : variants) {
    if (!matchesFilter(v.name, filter) && v.name.rfind("k11", 0) != 0) continue;
    Row row;
    row.variant = v;
    if (v.dynamicSmem > 0) {
      CHECK(cudaFuncSetAttribute(v.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, v.dynamicSmem));
    }
    CHECK(cudaFuncGetAttributes(&row.attributes, v.kernel));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&row.blocksPerSM, v.kernel, v.threads, v.dynamicSmem));
    row.ms.assign(sizes.size(), 0.0f);
    rows.push_back(row);
  }

  // Room for the largest problem checked or timed.
  std::vector<Shape> checks = {{1, 1, 1},       {17, 33, 9},     {130, 260, 24},   {300, 200, 100},
                               {129, 257, 4096}, {4095, 4097, 4093}};
  for (int n : sizes) checks.push_back({n, n, n});
  std::size_t maxA = 0, maxB = 0, maxC = 0;
  for (const Shape& s : checks) {
    maxA = std::max(maxA, std::size_t(s.M) * s.K);
    maxB = std::max(maxB, std::size_t(s.K) * s.N);
    maxC = std::max(maxC, std::size_t(s.M) * s.N);
  }
  Device d;
  CHECK(cudaMalloc(&d.a, maxA * sizeof(float)));
  CHECK(cudaMalloc(&d.b, maxB * sizeof(float)));
  CHECK(cudaMalloc(&d.c, maxC * sizeof(float)));
  CHECK(cudaMalloc(&d.reference, maxC * sizeof(float)));
  CHECK(cudaMalloc(&d.sums, 2 * sizeof(double)));
  CHECK(cudaMalloc(&d.bad, sizeof(unsigned)));
  CHECK(cublasCreate(&d.handle));
  CHECK(cublasSetMathMode(d.handle, CUBLAS_DEFAULT_MATH));  // no TF32

  // Checks: every variant, every shape, fresh inputs each time.
  unsigned seed = 1;
  // A kernel that faults ends the process (the context is lost): the line before names it.
  for (Row& row : rows) {
    std::printf("check %-56s ", row.variant.name.c_str());
    std::fflush(stdout);
    for (const Shape& s : checks) {
      const Check result = check(row.variant, d, s, seed++);
      if (!result.ok) {
        row.verified = false;
        char text[200];
        if (result.launchError != nullptr) {
          std::snprintf(text, sizeof text, "%dx%dx%d: launch failed: %s", s.M, s.N, s.K, result.launchError);
        } else {
          std::snprintf(text, sizeof text, "%dx%dx%d: rel.err %.2e, %u non-finite", s.M, s.N, s.K, result.error,
                        result.nonFinite);
        }
        row.failure = text;
        break;
      }
    }
    std::printf("%s %s\n", row.verified ? "ok" : "WRONG", row.failure.c_str());
    std::fflush(stdout);
  }

  // Timing: per size, two rounds over cuBLAS and every verified variant; the better round.
  std::vector<float> cublasMs(sizes.size(), 0.0f);
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    const Shape s{sizes[si], sizes[si], sizes[si]};
    fill(d.a, std::size_t(s.M) * s.K, static_cast<unsigned>(1000 + si));
    fill(d.b, std::size_t(s.K) * s.N, static_cast<unsigned>(2000 + si));
    for (int round = 0; round < 2; ++round) {
      const float c = medianMs([&] { runCublas(d, s); }, repeat);
      cublasMs[si] = round == 0 ? c : std::min(cublasMs[si], c);
      for (Row& row : rows) {
        if (!row.verified) continue;
        const float ms = medianMs([&] { launch(row.variant, d, s); }, repeat);
        row.ms[si] = round == 0 ? ms : std::min(row.ms[si], ms);
      }
    }
    std::printf("timed %d^3\n", s.M);
    std::fflush(stdout);
  }

  auto tflops = [&](std::size_t si, float ms) { return 2.0 * sizes[si] * double(sizes[si]) * sizes[si] / ms / 1e9; };
  std::printf("\nrel.err tolerance 1e-5 x max(1, sqrt(K / 4096)); ms = median of %d, better of 2 rounds\n", repeat);
  std::printf("%-56s %4s %5s %6s %3s", "variant", "regs", "spill", "smemKB", "b/SM");
  for (int n : sizes) std::printf(" | %5d: ms    TFLOPS  xcuBLAS", n);
  std::printf("\n%-56s %4s %5s %6s %3s", "cublas", "", "", "", "");
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    std::printf(" |      %7.3f %6.1f  %5.3f", cublasMs[si], tflops(si, cublasMs[si]), 1.0);
  }
  std::printf("\n");
  FILE* csv = csvPath.empty() ? nullptr : std::fopen(csvPath.c_str(), "w");
  if (csv != nullptr) std::fprintf(csv, "variant,verified,regs,spill_bytes,smem_bytes,blocks_per_sm,size,ms,tflops,vs_cublas\n");
  for (const Row& row : rows) {
    const int smem = static_cast<int>(row.attributes.sharedSizeBytes) + row.variant.dynamicSmem;
    std::printf("%-56s %4d %5d %6.1f %3d", row.variant.name.c_str(), row.attributes.numRegs,
                static_cast<int>(row.attributes.localSizeBytes), smem / 1024.0, row.blocksPerSM);
    for (std::size_t si = 0; si < sizes.size(); ++si) {
      if (!row.verified) {
        std::printf(" |      %7s %6s  %5s", "WRONG", "-", "-");
      } else {
        std::printf(" |      %7.3f %6.1f  %5.3f", row.ms[si], tflops(si, row.ms[si]), cublasMs[si] / row.ms[si]);
      }
      if (csv != nullptr) {
        std::fprintf(csv, "\"%s\",%d,%d,%d,%d,%d,%d,%.4f,%.2f,%.4f\n", row.variant.name.c_str(), row.verified ? 1 : 0,
                     row.attributes.numRegs, static_cast<int>(row.attributes.localSizeBytes), smem, row.blocksPerSM,
                     sizes[si], row.verified ? row.ms[si] : 0.0, row.verified ? tflops(si, row.ms[si]) : 0.0,
                     row.verified ? cublasMs[si] / row.ms[si] : 0.0);
      }
    }
    std::printf("\n");
  }
  if (csv != nullptr) std::fclose(csv);
  std::printf("\npredictions (why each variant should differ):\n");
  for (const Row& row : rows) {
    std::printf("  %-56s %s%s\n", row.variant.name.c_str(), row.variant.prediction.c_str(),
                row.verified ? "" : ("  [WRONG: " + row.failure + "]").c_str());
  }
  return 0;
}
