// Issue 13, before the catalogue: how far a plain mma.sync kernel gets against cuBLAS in the same
// precision on the GPU it runs on. A dense bf16 / fp16 GEMM (fp32 accumulate) built the way the
// tensor-core step of the progression would be: m16n8k16 MMAs fed by ldmatrix from shared memory,
// a multi-stage cp.async pipeline, shared rows padded so ldmatrix reads without bank conflicts;
// the instructions are backends/cuda/mma_common.cuh's.
// Each candidate shape is checked against cublasGemmEx on the same operands, then timed.
// Square sizes that are multiples of every candidate's block tile only: this is a probe, not the
// product kernel (which must take partial tiles).
//   nvcc -O3 -std=c++20 -arch=sm_90 -Ibackends/cuda -Ilab/tools lab/16-mma-probe/mma_probe.cu -lcublas -o mma_probe
//   ./mma_probe [sizes, default 2048,4096,8192]
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "mma_common.cuh"
#include "probe_timing.cuh"


using namespace tileskip::cuda;

namespace {

// The 16-bit input type, as the PTX spells it in the MMA.
struct Bf16 {
  using Storage = __nv_bfloat16;
  static constexpr const char* name = "bf16";
  static constexpr cudaDataType_t cublasType = CUDA_R_16BF;
  static constexpr tileskip::cuda::MmaInput mma = tileskip::cuda::MmaInput::Bf16;
};
struct Fp16 {
  using Storage = __half;
  static constexpr const char* name = "fp16";
  static constexpr cudaDataType_t cublasType = CUDA_R_16F;
  static constexpr tileskip::cuda::MmaInput mma = tileskip::cuda::MmaInput::Fp16;
};

// C (M x N, fp32) = A (M x K) B (K x N), all row-major; M, N, K multiples of BM, BN, BK.
template <class T, int BM, int BN, int BK, int WM, int WN, int STAGES, bool PREFETCH, int GROUP>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32)
    mmaGemm(const typename T::Storage* __restrict__ a, const typename T::Storage* __restrict__ b, float* __restrict__ c,
            int m, int n, int k) {
  using S = typename T::Storage;
  constexpr int kWarpsN = BN / WN;
  constexpr int kThreads = (BM / WM) * kWarpsN * 32;
  constexpr int kMmaM = WM / 16, kMmaN = WN / 8;
  // Rows padded by 8 elements (16 bytes): eight rows read by one ldmatrix fall in eight banks.
  constexpr int kARow = BK + 8, kBRow = BN + 8;
  constexpr int kAStage = BM * kARow, kBStage = BK * kBRow;
  constexpr int kChunk = 8;  // elements per 16-byte copy
  static_assert(WM % 16 == 0 && WN % 16 == 0 && BK % 16 == 0, "whole MMA tiles; B fragments in pairs of n8");
  static_assert((BM * BK / kChunk) % kThreads == 0 && (BK * BN / kChunk) % kThreads == 0, "every thread copies as many chunks");

  extern __shared__ __align__(16) unsigned char sharedBytes[];
  S* aStages = reinterpret_cast<S*>(sharedBytes);
  S* bStages = aStages + STAGES * kAStage;

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int warpRow = (warp / kWarpsN) * WM, warpCol = (warp % kWarpsN) * WN;
  // GROUP > 1: consecutive blocks walk a column of GROUP block rows before moving right, so the
  // blocks resident together share their A rows and B columns in L2.
  int tileRow = blockIdx.y, tileCol = blockIdx.x;
  if constexpr (GROUP > 1) {
    const int linear = blockIdx.y * gridDim.x + blockIdx.x;
    const int perGroup = GROUP * gridDim.x;
    const int group = linear / perGroup, firstRow = group * GROUP;
    const int rows = min(GROUP, static_cast<int>(gridDim.y) - firstRow);
    tileRow = firstRow + (linear % perGroup) % rows;
    tileCol = (linear % perGroup) / rows;
  }
  const int blockRow = tileRow * BM, blockCol = tileCol * BN;
  const int kTiles = k / BK;

  auto loadStage = [&](int stage, int kTile) {
    S* as = aStages + stage * kAStage;
    S* bs = bStages + stage * kBStage;
    const int k0 = kTile * BK;
#pragma unroll
    for (int i = threadIdx.x; i < BM * BK / kChunk; i += kThreads) {
      const int row = i / (BK / kChunk), chunk = i % (BK / kChunk);
      copyAsync16(as + row * kARow + chunk * kChunk, a + static_cast<size_t>(blockRow + row) * k + k0 + chunk * kChunk, 16);
    }
#pragma unroll
    for (int i = threadIdx.x; i < BK * BN / kChunk; i += kThreads) {
      const int row = i / (BN / kChunk), chunk = i % (BN / kChunk);
      copyAsync16(bs + row * kBRow + chunk * kChunk, b + static_cast<size_t>(k0 + row) * n + blockCol + chunk * kChunk, 16);
    }
  };

  float acc[kMmaM][kMmaN][4] = {};

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < kTiles) loadStage(s, s);
    commitCopies();
  }

  for (int kTile = 0; kTile < kTiles; ++kTile) {
    waitCopies<STAGES - 2>();
    __syncthreads();  // this stage is in; every warp is done with the one the next copy overwrites
    const int next = kTile + STAGES - 1;
    if (next < kTiles) loadStage(next % STAGES, next);
    commitCopies();

    const S* as = aStages + (kTile % STAGES) * kAStage;
    const S* bs = bStages + (kTile % STAGES) * kBStage;
    auto loadFragments = [&](int kk, unsigned (&aFrag)[kMmaM][4], unsigned (&bFrag)[kMmaN][2]) {
#pragma unroll
      for (int i = 0; i < kMmaM; ++i) {
        // Matrices: rows 0-7 / 8-15 of the m16 tile, at K columns kk..kk+7 / kk+8..kk+15.
        const int row = warpRow + i * 16 + (lane % 8) + ((lane / 8) % 2) * 8;
        loadMatrixX4(aFrag[i], as + row * kARow + kk + (lane / 16) * 8);
      }
#pragma unroll
      for (int j = 0; j < kMmaN; j += 2) {
        // Matrices: K rows kk..kk+7 / kk+8..kk+15 of n8 tile j, then of tile j + 1.
        const int kRow = kk + (lane % 8) + ((lane / 8) % 2) * 8;
        const int col = warpCol + j * 8 + (lane / 16) * 8;
        unsigned r[4];
        loadMatrixX4Transposed(r, bs + kRow * kBRow + col);
        bFrag[j][0] = r[0];
        bFrag[j][1] = r[1];
        bFrag[j + 1][0] = r[2];
        bFrag[j + 1][1] = r[3];
      }
    };
    auto multiply = [&](const unsigned (&aFrag)[kMmaM][4], const unsigned (&bFrag)[kMmaN][2]) {
#pragma unroll
      for (int i = 0; i < kMmaM; ++i) {
#pragma unroll
        for (int j = 0; j < kMmaN; ++j) mmaM16N8K16<T::mma>(acc[i][j], aFrag[i], bFrag[j]);
      }
    };
    if constexpr (PREFETCH) {
      unsigned aFrag[2][kMmaM][4], bFrag[2][kMmaN][2];
      loadFragments(0, aFrag[0], bFrag[0]);
#pragma unroll
      for (int step = 0; step < BK / 16; ++step) {
        if (step + 1 < BK / 16) loadFragments((step + 1) * 16, aFrag[(step + 1) % 2], bFrag[(step + 1) % 2]);
        multiply(aFrag[step % 2], bFrag[step % 2]);
      }
    } else {
#pragma unroll
      for (int kk = 0; kk < BK; kk += 16) {
        unsigned aFrag[kMmaM][4], bFrag[kMmaN][2];
        loadFragments(kk, aFrag, bFrag);
        multiply(aFrag, bFrag);
      }
    }
  }
  waitCopies<0>();

  const int group = lane / 4, pair = (lane % 4) * 2;
#pragma unroll
  for (int i = 0; i < kMmaM; ++i) {
#pragma unroll
    for (int j = 0; j < kMmaN; ++j) {
      const int row = blockRow + warpRow + i * 16 + group, col = blockCol + warpCol + j * 8 + pair;
      *reinterpret_cast<float2*>(c + static_cast<size_t>(row) * n + col) = make_float2(acc[i][j][0], acc[i][j][1]);
      *reinterpret_cast<float2*>(c + static_cast<size_t>(row + 8) * n + col) = make_float2(acc[i][j][2], acc[i][j][3]);
    }
  }
}

// The ceiling the MMAs themselves set: each warp issues m16n8k16 MMAs from registers into
// independent accumulators (enough to cover their latency), no memory in the loop.
template <class T, int CHAINS>
__global__ void mmaPeak(float* sink, int iterations) {
  unsigned a[4] = {threadIdx.x, threadIdx.x + 1, threadIdx.x + 2, threadIdx.x + 3}, b[2] = {threadIdx.x * 3, threadIdx.x * 5};
  float acc[CHAINS][4] = {};
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int chain = 0; chain < CHAINS; ++chain) mmaM16N8K16<T::mma>(acc[chain], a, b);
  }
  float total = 0;
#pragma unroll
  for (int chain = 0; chain < CHAINS; ++chain) total += acc[chain][0] + acc[chain][1] + acc[chain][2] + acc[chain][3];
  if (total == 12345.0f) sink[threadIdx.x] = total;  // never true; keeps the MMAs alive
}

template <class T, int CHAINS>
void peak(int warpsPerBlock, int repeat) {
  cudaDeviceProp properties{};
  CHECK(cudaGetDeviceProperties(&properties, 0));
  float* sink = nullptr;
  CHECK(cudaMalloc(&sink, 4096));
  const int iterations = 4096, blocks = properties.multiProcessorCount * 4;
  auto launch = [&] { mmaPeak<T, CHAINS><<<blocks, warpsPerBlock * 32>>>(sink, iterations); };
  const float ms = medianMs(launch, repeat);
  const double flops = 2.0 * 16 * 8 * 16 * CHAINS * static_cast<double>(iterations) * blocks * warpsPerBlock;
  std::printf("peak   %s mma.sync m16n8k16, %d chains, %d warps/block x %d blocks: %.1f TFLOPS\n", T::name, CHAINS,
              warpsPerBlock, blocks, flops / ms / 1e9);
  CHECK(cudaFree(sink));
}


struct Operands {
  void* a;
  void* b;
  float* c;
  float* reference;
  int n;
};

template <class T, int BM, int BN, int BK, int WM, int WN, int STAGES, bool PREFETCH = false, int GROUP = 1>
void tryShape(const Operands& op, cublasHandle_t, float cublasMs, int repeat) {
  using S = typename T::Storage;
  constexpr int threads = (BM / WM) * (BN / WN) * 32;
  constexpr size_t shared = static_cast<size_t>(STAGES) * (BM * (BK + 8) + BK * (BN + 8)) * sizeof(S);
  auto kernel = mmaGemm<T, BM, BN, BK, WM, WN, STAGES, PREFETCH, GROUP>;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  cudaFuncAttributes attributes{};
  CHECK(cudaFuncGetAttributes(&attributes, kernel));
  const int n = op.n;
  if (n % BM != 0 || n % BN != 0 || n % BK != 0) return;
  const dim3 grid(n / BN, n / BM);
  auto launch = [&] {
    kernel<<<grid, threads, shared>>>(static_cast<const S*>(op.a), static_cast<const S*>(op.b), op.c, n, n, n);
  };
  CHECK(cudaMemset(op.c, 0xFF, sizeof(float) * n * n));
  launch();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ours(static_cast<size_t>(n) * n), reference(ours.size());
  CHECK(cudaMemcpy(ours.data(), op.c, sizeof(float) * ours.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(reference.data(), op.reference, sizeof(float) * ours.size(), cudaMemcpyDeviceToHost));
  double worst = 0, scale = 0;
  for (size_t i = 0; i < ours.size(); ++i) {
    const double d = std::isnan(ours[i]) ? INFINITY : std::fabs(static_cast<double>(ours[i]) - reference[i]);
    worst = std::max(worst, d);
    scale = std::max(scale, std::fabs(static_cast<double>(reference[i])));
  }
  const float ms = medianMs(launch, repeat);
  const double flops = 2.0 * n * n * n;
  std::ostringstream name;
  name << T::name << " " << BM << "x" << BN << "x" << BK << " w" << WM << "x" << WN << " s" << STAGES << " " << threads << "thr"
       << (PREFETCH ? " pf" : "") << (GROUP > 1 ? " g" + std::to_string(GROUP) : "");
  int perSm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, threads, shared));
  name << " " << perSm << "/SM";
  std::printf("%-6d %-36s %8.3f ms %7.1f TFLOPS  %.3f of cuBLAS  regs %3d spill %4d B  max|diff|/max|C| %.1e%s\n", n,
              name.str().c_str(), ms, flops / ms / 1e9, cublasMs / ms, attributes.numRegs, static_cast<int>(attributes.localSizeBytes),
              worst / scale, worst / scale < 1e-3 ? "" : "  WRONG");
}

template <class T>
void runType(int n, int repeat, cublasHandle_t handle) {
  using S = typename T::Storage;
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<S> hostA(static_cast<size_t>(n) * n), hostB(hostA.size());
  for (S& x : hostA) x = S(uniform(rng));
  for (S& x : hostB) x = S(uniform(rng));
  Operands op{};
  op.n = n;
  CHECK(cudaMalloc(&op.a, sizeof(S) * hostA.size()));
  CHECK(cudaMalloc(&op.b, sizeof(S) * hostB.size()));
  CHECK(cudaMalloc(&op.c, sizeof(float) * hostA.size()));
  CHECK(cudaMalloc(&op.reference, sizeof(float) * hostA.size()));
  CHECK(cudaMemcpy(op.a, hostA.data(), sizeof(S) * hostA.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(op.b, hostB.data(), sizeof(S) * hostB.size(), cudaMemcpyHostToDevice));
  const float one = 1.0f, zero = 0.0f;
  // Row-major C = A B is column-major C^T = B^T A^T.
  auto cublas = [&] {
    CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, op.b, T::cublasType, n, op.a, T::cublasType, n, &zero,
                       op.reference, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  const float cublasMs = medianMs(cublas, repeat);
  std::printf("%-6d %-36s %8.3f ms %7.1f TFLOPS  1.000\n", n, (std::string("cublas ") + T::name).c_str(), cublasMs,
              2.0 * n * n * n / cublasMs / 1e9);
  tryShape<T, 128, 128, 32, 64, 64, 3>(op, handle, cublasMs, repeat);
  tryShape<T, 128, 256, 32, 64, 64, 3>(op, handle, cublasMs, repeat);
  tryShape<T, 128, 128, 64, 64, 64, 3>(op, handle, cublasMs, repeat);
  tryShape<T, 128, 256, 64, 64, 64, 3>(op, handle, cublasMs, repeat);
  tryShape<T, 128, 128, 64, 64, 64, 3, true>(op, handle, cublasMs, repeat);
  tryShape<T, 128, 256, 64, 64, 64, 3, true>(op, handle, cublasMs, repeat);
  tryShape<T, 128, 256, 32, 64, 64, 4, true>(op, handle, cublasMs, repeat);
  tryShape<T, 128, 128, 64, 64, 64, 3, true, 8>(op, handle, cublasMs, repeat);
  tryShape<T, 128, 256, 64, 64, 64, 3, true, 8>(op, handle, cublasMs, repeat);
  tryShape<T, 128, 256, 32, 64, 64, 4, true, 8>(op, handle, cublasMs, repeat);
  tryShape<T, 128, 128, 32, 64, 32, 4, true, 8>(op, handle, cublasMs, repeat);
  tryShape<T, 256, 128, 32, 64, 64, 4, true, 8>(op, handle, cublasMs, repeat);
  CHECK(cudaFree(op.a));
  CHECK(cudaFree(op.b));
  CHECK(cudaFree(op.c));
  CHECK(cudaFree(op.reference));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {2048, 4096, 8192};
  if (argc > 1) {
    sizes.clear();
    std::stringstream list(argv[1]);
    for (std::string item; std::getline(list, item, ',');) sizes.push_back(std::atoi(item.c_str()));
  }
  const int repeat = argc > 2 ? std::atoi(argv[2]) : 15;
  cudaDeviceProp properties{};
  CHECK(cudaGetDeviceProperties(&properties, 0));
  int runtime = 0;
  CHECK(cudaRuntimeGetVersion(&runtime));
  std::printf("device %s, %d SMs, CUDA runtime %d; median of %d after 500 ms of warm-up\n", properties.name,
              properties.multiProcessorCount, runtime, repeat);
  peak<Bf16, 4>(4, repeat);
  peak<Bf16, 8>(4, repeat);
  peak<Bf16, 8>(8, repeat);
  peak<Fp16, 8>(8, repeat);
  cublasHandle_t handle;
  CHECK(cublasCreate(&handle));
  for (int n : sizes) {
    runType<Bf16>(n, repeat, handle);
    runType<Fp16>(n, repeat, handle);
  }
  CHECK(cublasDestroy(handle));
  return 0;
}
