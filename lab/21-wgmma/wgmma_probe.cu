// Issue 13's Hopper stretch, before any catalogue row: how far a wgmma + TMA kernel gets against
// cuBLAS bf16 on the GPU it runs on, dense and walking a gathered list of K-tiles (the skipping
// kernels' idea at the copy engine's granularity).
//
// One block of three warpgroups computes a BM x BN tile of C (fp32) = A B (bf16, row-major):
// warpgroup 0 is the producer, one of its threads issuing the bulk tensor copies (TMA) of each
// K-tile's A (BM x 64, K-major) and B (64 x BN, N-major, in 64-column boxes) into a ring of
// STAGES shared-memory stages, each copy signalling a "full" mbarrier with its byte count;
// warpgroups 1 and 2 each own 64 rows of the tile and multiply with wgmma.mma_async straight from
// shared memory (no ldmatrix, no fragments of A or B in registers: step 16's bound), releasing a
// stage through an "empty" mbarrier once the MMAs that read it have retired. The copies write
// 128-byte-swizzled rows, which is what the wgmma descriptors below describe.
//
// With a K-tile list (skip mode) the producer copies only the listed K-tiles of its tile, and a
// consumer warpgroup whose 64 rows have no product in a listed K-tile issues no MMA for it.
// Square sizes that are multiples of the tile only: a probe, not the product kernel.
//   nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -I. -Ibackends/cuda -Ilab/tools lab/21-wgmma/wgmma_probe.cu -lcublas -o wgmma_probe
//   ./wgmma_probe [sizes, default 4096,8192] [repeat, default 15] [k14]
// With "k14" it checks and times K14 (backends/cuda/k14_wgmma.cuh, the product form of the dense
// kernel, on any shape) instead, against cuBLAS in fp16 and bf16.
#include <cublas_v2.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
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

#include "bulk_copy_host.hpp"
#include "hopper_common.cuh"
#include "k14_wgmma.cuh"
#include "probe_timing.cuh"

using namespace tileskip::cuda;

namespace {

constexpr int kBK = 64;                    // K per stage: one swizzled row of bf16 per row of A
constexpr int kBox = kSwizzleRowElements;  // columns of B per bulk copy: one swizzled row

// D (64 x 128, fp32: 64 registers a thread) += A (64 x 16) B (16 x 128), both read through descriptors.
__device__ __forceinline__ void wgmmaBf16M64N128K16(float (&d)[64], uint64_t aDesc, uint64_t bDesc) {
  asm volatile(
      "{\n.reg .pred keep;\nsetp.ne.b32 keep, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, %64, %65, keep, 1, 1, 0, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(aDesc), "l"(bDesc), "n"(1));
}


// Tiles of BM = 128 rows (two consumer warpgroups of 64) by BN columns; STAGES K-tiles of 64 in
// flight. BN = 256 is issued as two m64n128k16 MMAs per 16-deep step when SPLIT is set, as one
// m64n256k16 otherwise. `list` (skip mode): per tile, a count then the K-tiles to multiply;
// `kept`: per tile and list entry, bit g set where consumer warpgroup g has a product in it.
template <int BN, int STAGES, bool SPLIT>
__global__ void __launch_bounds__(384, 1)
    wgmmaGemm(const __grid_constant__ CUtensorMap aMap, const __grid_constant__ CUtensorMap bMap, float* __restrict__ c, int n,
              const int* __restrict__ lists, const unsigned char* __restrict__ kept) {
  constexpr int BM = 128, kGroup = 8;
  constexpr int kAStageBytes = BM * kBK * 2, kBStageBytes = kBK * BN * 2, kBoxBytes = kBK * kBox * 2;
  constexpr int kAccumulators = BN / 2;  // a thread's share of its warpgroup's 64 x BN outputs
  static_assert(kAStageBytes % kSwizzleAtomBytes == 0 && kBStageBytes % kSwizzleAtomBytes == 0, "stages start on a swizzle atom");
  extern __shared__ unsigned char sharedRaw[];
  unsigned char* base = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(sharedRaw) + kSwizzleAtomBytes - 1) &
                                                         ~static_cast<uintptr_t>(kSwizzleAtomBytes - 1));
  unsigned char* aStages = base;
  unsigned char* bStages = base + STAGES * kAStageBytes;
  uint64_t* full = reinterpret_cast<uint64_t*>(bStages + STAGES * kBStageBytes);
  uint64_t* empty = full + STAGES;

  // Consecutive blocks walk kGroup tile rows of one column band before moving right (L2 reuse).
  const int tilesM = n / BM, tilesN = n / BN, kTiles = n / kBK;
  const int perGroup = kGroup * tilesN, group = blockIdx.x / perGroup, firstRow = group * kGroup;
  const int rows = min(kGroup, tilesM - firstRow);
  const int tileRow = firstRow + (blockIdx.x % perGroup) % rows, tileCol = (blockIdx.x % perGroup) / rows;
  const int tile = tileRow * tilesN + tileCol;
  const int* list = lists != nullptr ? lists + static_cast<size_t>(tile) * (kTiles + 1) : nullptr;
  const int count = list != nullptr ? list[0] : kTiles;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      barrierInit(&full[s], 1);
      barrierInit(&empty[s], 8);  // lane 0 of each consumer warp
    }
    barrierInitFence();
  }
  __syncthreads();

  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    keepFewerRegisters<40>();
    if (threadIdx.x == 0) {
      for (int i = 0; i < count; ++i) {
        const int s = i % STAGES;
        if (i >= STAGES) barrierWait(&empty[s], (i / STAGES + 1) & 1);
        const int kTile = list != nullptr ? list[1 + i] : i;
        barrierArriveExpectingBytes(&full[s], kAStageBytes + kBStageBytes);
        copyBox(aStages + s * kAStageBytes, &aMap, kTile * kBK, tileRow * BM, &full[s]);
#pragma unroll
        for (int j = 0; j < BN / kBox; ++j) {
          copyBox(bStages + s * kBStageBytes + j * kBoxBytes, &bMap, tileCol * BN + j * kBox, kTile * kBK, &full[s]);
        }
      }
    }
    return;
  }
  takeMoreRegisters<232>();
  const int g = warpgroup - 1, warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
  float acc[kAccumulators];
#pragma unroll
  for (int i = 0; i < kAccumulators; ++i) acc[i] = 0.0f;

  for (int i = 0; i < count; ++i) {
    const int s = i % STAGES;
    barrierWait(&full[s], (i / STAGES) & 1);
    const bool mine = kept == nullptr || ((kept[static_cast<size_t>(tile) * kTiles + i] >> g) & 1) != 0;
    if (mine) {
      wgmmaFence();
      const unsigned char* aStage = aStages + s * kAStageBytes + g * 64 * kSwizzleRowBytes;
      const unsigned char* bStage = bStages + s * kBStageBytes;
#pragma unroll
      for (int step = 0; step < kBK / 16; ++step) {
        // A: K-major, a 16-deep step is 32 bytes along the swizzled row; 8-row groups kSwizzleAtomBytes apart.
        const uint64_t aDesc = swizzledDescriptor(aStage + step * 32, 16, kSwizzleAtomBytes);
        // B: N-major, a 16-deep step is 16 rows (two atoms) down; 64-column boxes kBoxBytes apart.
        const unsigned char* bStep = bStage + step * 16 * kSwizzleRowBytes;
        if constexpr (BN == 128) {
          wgmmaBf16M64N128K16(acc, aDesc, swizzledDescriptor(bStep, kBoxBytes, kSwizzleAtomBytes));
        } else if constexpr (SPLIT) {
          float(&left)[64] = *reinterpret_cast<float(*)[64]>(&acc[0]);
          float(&right)[64] = *reinterpret_cast<float(*)[64]>(&acc[64]);
          wgmmaBf16M64N128K16(left, aDesc, swizzledDescriptor(bStep, kBoxBytes, kSwizzleAtomBytes));
          wgmmaBf16M64N128K16(right, aDesc, swizzledDescriptor(bStep + 2 * kBoxBytes, kBoxBytes, kSwizzleAtomBytes));
        } else {
          wgmmaM64N256<MmaInput::Bf16>(acc, aDesc, swizzledDescriptor(bStep, kBoxBytes, kSwizzleAtomBytes));
        }
      }
    }
    wgmmaCommit();
    wgmmaWait<1>();  // the MMAs of entry i - 1 have retired: its stage may be refilled
    if (i > 0 && lane == 0) barrierArrive(&empty[(i - 1) % STAGES]);
  }
  wgmmaWait<0>();

  // The accumulator layout of m64nNk16: warp w holds rows 16w .. 16w + 15; per 8 columns j, a
  // lane holds row lane / 4 (and + 8), columns 2 (lane % 4) and + 1. With SPLIT the right half's
  // registers follow the left's, 64 columns of registers for 128 columns of C each.
  const int row = tileRow * BM + g * 64 + warp * 16 + lane / 4;
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const int col = tileCol * BN + j * 8 + (lane % 4) * 2;
    float* out = c + static_cast<size_t>(row) * n + col;
    *reinterpret_cast<float2*>(out) = make_float2(acc[4 * j], acc[4 * j + 1]);
    *reinterpret_cast<float2*>(out + static_cast<size_t>(8) * n) = make_float2(acc[4 * j + 2], acc[4 * j + 3]);
  }
}


// A row-major bf16 matrix of `outer` rows and `inner` columns, copied in boxes of 64 columns by `boxRows` rows.
CUtensorMap tensorMap(const void* data, int inner, int outer, int boxRows) {
  return encodeBulkTensorMap(static_cast<const std::uint16_t*>(data), inner, outer, boxRows);
}

struct Problem {
  int n;
  __nv_bfloat16* a;
  __nv_bfloat16* b;
  float* c;
  float* reference;
  float cublasMs;
  std::vector<unsigned char> aPattern, bPattern;  // per 64 x 64 block; empty: dense
  double density;
};

// Per tile (128 x BN), the K-tiles some product needs and, per entry, which warpgroups have one.
template <int BN>
void gatherLists(const Problem& p, std::vector<int>& lists, std::vector<unsigned char>& kept, double& loaded) {
  const int tilesM = p.n / 128, tilesN = p.n / BN, kTiles = p.n / kBK, blocks = p.n / 64;
  lists.assign(static_cast<size_t>(tilesM) * tilesN * (kTiles + 1), 0);
  kept.assign(static_cast<size_t>(tilesM) * tilesN * kTiles, 0);
  size_t total = 0;
  for (int tr = 0; tr < tilesM; ++tr) {
    for (int tc = 0; tc < tilesN; ++tc) {
      const int tile = tr * tilesN + tc;
      int* list = &lists[static_cast<size_t>(tile) * (kTiles + 1)];
      for (int kt = 0; kt < kTiles; ++kt) {
        unsigned char bits = 0;
        for (int g = 0; g < 2; ++g) {
          if (!p.aPattern[static_cast<size_t>(2 * tr + g) * blocks + kt]) continue;
          for (int j = 0; j < BN / 64; ++j) {
            if (p.bPattern[static_cast<size_t>(kt) * blocks + tc * (BN / 64) + j]) bits |= 1 << g;
          }
        }
        if (bits == 0) continue;
        kept[static_cast<size_t>(tile) * kTiles + list[0]] = bits;
        list[1 + list[0]++] = kt;
      }
      total += list[0];
    }
  }
  loaded = static_cast<double>(total) / (static_cast<double>(tilesM) * tilesN * kTiles);
}

template <int BN, int STAGES, bool SPLIT>
void tryShape(const Problem& p, bool skip, int repeat) {
  const int n = p.n;
  if (n % 128 != 0 || n % BN != 0) return;
  constexpr size_t shared = static_cast<size_t>(STAGES) * (128 * kBK * 2 + kBK * BN * 2) + 2 * STAGES * 8 + kSwizzleAtomBytes;
  auto kernel = wgmmaGemm<BN, STAGES, SPLIT>;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  cudaFuncAttributes attributes{};
  CHECK(cudaFuncGetAttributes(&attributes, kernel));
  const CUtensorMap aMap = tensorMap(p.a, n, n, 128), bMap = tensorMap(p.b, n, n, kBK);
  int* lists = nullptr;
  unsigned char* kept = nullptr;
  double loaded = 1.0;
  if (skip) {
    std::vector<int> hostLists;
    std::vector<unsigned char> hostKept;
    gatherLists<BN>(p, hostLists, hostKept, loaded);
    CHECK(cudaMalloc(&lists, sizeof(int) * hostLists.size()));
    CHECK(cudaMalloc(&kept, hostKept.size()));
    CHECK(cudaMemcpy(lists, hostLists.data(), sizeof(int) * hostLists.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(kept, hostKept.data(), hostKept.size(), cudaMemcpyHostToDevice));
  }
  const int blocks = (n / 128) * (n / BN);
  auto launch = [&] { kernel<<<blocks, 384, shared>>>(aMap, bMap, p.c, n, lists, kept); };
  CHECK(cudaMemset(p.c, 0xFF, sizeof(float) * n * n));
  launch();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ours(static_cast<size_t>(n) * n), reference(ours.size());
  CHECK(cudaMemcpy(ours.data(), p.c, sizeof(float) * ours.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(reference.data(), p.reference, sizeof(float) * ours.size(), cudaMemcpyDeviceToHost));
  double worst = 0, scale = 0;
  size_t firstBad = ours.size();
  for (size_t i = 0; i < ours.size(); ++i) {
    const double d = std::isnan(ours[i]) ? INFINITY : std::fabs(static_cast<double>(ours[i]) - reference[i]);
    if (d > worst) worst = d;
    if (d > 1e-2 && firstBad == ours.size()) firstBad = i;
    scale = std::max(scale, std::fabs(static_cast<double>(reference[i])));
  }
  const float ms = medianMs(launch, repeat);
  std::ostringstream name;
  name << (skip ? "skip " : "dense ") << "128x" << BN << "x" << kBK << " s" << STAGES << (SPLIT ? " 2xn128" : "");
  std::printf("%-6d %-28s %8.3f ms %7.1f TFLOPS  %.3f of cuBLAS  loaded %.3f  regs %3d spill %4d B  max|diff| %.2e (max|C| %.1e)%s",
              n, name.str().c_str(), ms, 2.0 * n * n * n / ms / 1e9, p.cublasMs / ms, loaded, attributes.numRegs,
              static_cast<int>(attributes.localSizeBytes), worst, scale, worst <= 1e-3 * scale ? "\n" : "  WRONG");
  if (firstBad < ours.size()) {
    std::printf(" first at row %zu col %zu: %g vs %g\n", firstBad / n, firstBad % n, ours[firstBad], reference[firstBad]);
  } else if (worst > 1e-3 * scale) {
    std::printf("\n");
  }
  if (lists != nullptr) CHECK(cudaFree(lists));
  if (kept != nullptr) CHECK(cudaFree(kept));
}

// Uniform [-1, 1] operands, zero in the 64 x 64 blocks whose pattern bit is clear when `density` < 1.
Problem makeProblem(int n, double density, cublasHandle_t handle, int repeat) {
  Problem p{};
  p.n = n;
  p.density = density;
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const int blocks = n / 64;
  if (density < 1.0) {
    std::bernoulli_distribution keep(density);
    p.aPattern.resize(static_cast<size_t>(blocks) * blocks);
    p.bPattern.resize(p.aPattern.size());
    for (auto& bit : p.aPattern) bit = keep(rng);
    for (auto& bit : p.bPattern) bit = keep(rng);
  }
  std::vector<__nv_bfloat16> hostA(static_cast<size_t>(n) * n), hostB(hostA.size());
  for (size_t i = 0; i < hostA.size(); ++i) {
    const size_t row = i / n, col = i % n;
    const bool aZero = density < 1.0 && !p.aPattern[(row / 64) * blocks + col / 64];
    const bool bZero = density < 1.0 && !p.bPattern[(row / 64) * blocks + col / 64];
    hostA[i] = __float2bfloat16(aZero ? 0.0f : uniform(rng));
    hostB[i] = __float2bfloat16(bZero ? 0.0f : uniform(rng));
  }
  CHECK(cudaMalloc(&p.a, 2 * hostA.size()));
  CHECK(cudaMalloc(&p.b, 2 * hostB.size()));
  CHECK(cudaMalloc(&p.c, sizeof(float) * hostA.size()));
  CHECK(cudaMalloc(&p.reference, sizeof(float) * hostA.size()));
  CHECK(cudaMemcpy(p.a, hostA.data(), 2 * hostA.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(p.b, hostB.data(), 2 * hostB.size(), cudaMemcpyHostToDevice));
  const float one = 1.0f, zero = 0.0f;
  // Row-major C = A B is column-major C^T = B^T A^T.
  auto cublas = [&] {
    CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, p.b, CUDA_R_16BF, n, p.a, CUDA_R_16BF, n, &zero,
                       p.reference, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  p.cublasMs = medianMs(cublas, repeat);
  std::printf("%-6d %-28s %8.3f ms %7.1f TFLOPS  1.000  (A, B density %.2f in 64 x 64 blocks)\n", n, "cublas bf16", p.cublasMs,
              2.0 * n * n * n / p.cublasMs / 1e9, density);
  return p;
}

void freeProblem(Problem& p) {
  CHECK(cudaFree(p.a));
  CHECK(cudaFree(p.b));
  CHECK(cudaFree(p.c));
  CHECK(cudaFree(p.reference));
}


// K14 (backends/cuda/k14_wgmma.cuh), the product form of the dense kernel above: any M, N, K (the
// copy engine where rows are 16-byte aligned, element-by-element copies otherwise), fp16 or bf16.
// Checked against cuBLAS in the same type on the same operands, and timed where `repeat` > 0.
template <MmaInput T>
void checkK14(cublasHandle_t handle, int m, int n, int k, int repeat) {
  constexpr int BM = 128, BN = 256, BK = 64, kStages = 4;
  constexpr bool bf16 = T == MmaInput::Bf16;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<std::uint16_t> hostA(static_cast<size_t>(m) * k), hostB(static_cast<size_t>(k) * n);
  auto bits = [&](float x) {
    if constexpr (bf16) return __bfloat16_as_ushort(__float2bfloat16(x));
    else return __half_as_ushort(__float2half(x));
  };
  for (auto& x : hostA) x = bits(uniform(rng));
  for (auto& x : hostB) x = bits(uniform(rng));
  std::uint16_t *a = nullptr, *b = nullptr;
  float *c = nullptr, *reference = nullptr;
  CHECK(cudaMalloc(&a, 2 * hostA.size()));
  CHECK(cudaMalloc(&b, 2 * hostB.size()));
  CHECK(cudaMalloc(&c, sizeof(float) * m * n));
  CHECK(cudaMalloc(&reference, sizeof(float) * m * n));
  CHECK(cudaMemcpy(a, hostA.data(), 2 * hostA.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, hostB.data(), 2 * hostB.size(), cudaMemcpyHostToDevice));
  const cudaDataType_t type = bf16 ? CUDA_R_16BF : CUDA_R_16F;
  const float one = 1.0f, zero = 0.0f;
  auto cublas = [&] {
    CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, type, n, a, type, k, &zero, reference, CUDA_R_32F, n,
                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  cublas();
  const bool bulk = bulkCopiesFit(T, n, k);
  CUtensorMap aMap{}, bMap{};
  if (bulk) {
    aMap = encodeBulkTensorMap(a, k, m, BM);
    bMap = encodeBulkTensorMap(b, n, k, BK);
  }
  auto kernel = wgmmaDense<T, BM, BN, BK, 64, 256, kStages, 384>;
  constexpr size_t shared = WgmmaLayout<T, BM, BN, BK, kStages>::kSharedBytes;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  const int blocks = ((m + BM - 1) / BM) * ((n + BN - 1) / BN);
  auto launch = [&] { kernel<<<blocks, 384, shared>>>(aMap, bMap, bulk, a, b, c, m, n, k); };
  CHECK(cudaMemset(c, 0xFF, sizeof(float) * m * n));
  launch();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ours(static_cast<size_t>(m) * n), expected(ours.size());
  CHECK(cudaMemcpy(ours.data(), c, sizeof(float) * ours.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(expected.data(), reference, sizeof(float) * ours.size(), cudaMemcpyDeviceToHost));
  double worst = 0, scale = 0;
  for (size_t i = 0; i < ours.size(); ++i) {
    const double d = std::isnan(ours[i]) ? INFINITY : std::fabs(static_cast<double>(ours[i]) - expected[i]);
    worst = std::max(worst, d);
    scale = std::max(scale, std::fabs(static_cast<double>(expected[i])));
  }
  std::printf("K14 %s %dx%dx%d (%s): max|diff| %.2e of max|C| %.1e%s", bf16 ? "bf16" : "fp16", m, n, k,
              bulk ? "copy engine" : "element copies", worst, scale, worst <= 1e-5 * scale ? "" : "  WRONG");
  if (repeat > 0) {
    const float ours = medianMs(launch, repeat), theirs = medianMs(cublas, repeat);
    std::printf("  %.3f ms (%.1f TFLOPS), cuBLAS %.3f ms: %.3f of cuBLAS", ours, 2.0 * m * n * k / ours / 1e9, theirs,
                theirs / ours);
  }
  std::printf("\n");
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  CHECK(cudaFree(reference));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {4096, 8192};
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
  cublasHandle_t handle;
  CHECK(cublasCreate(&handle));
  if (argc > 3 && std::string(argv[3]) == "k14") {
    const int shapes[][3] = {{1000, 1000, 1000}, {999, 1001, 1003}, {130, 260, 70}, {1, 1, 1}, {4096, 4096, 8}};
    for (const auto& s : shapes) {
      checkK14<MmaInput::Bf16>(handle, s[0], s[1], s[2], 0);
      checkK14<MmaInput::Fp16>(handle, s[0], s[1], s[2], 0);
    }
    for (int n : sizes) {
      checkK14<MmaInput::Bf16>(handle, n, n, n, repeat);
      checkK14<MmaInput::Fp16>(handle, n, n, n, repeat);
    }
    CHECK(cublasDestroy(handle));
    return 0;
  }
  for (int n : sizes) {
    Problem dense = makeProblem(n, 1.0, handle, repeat);
    tryShape<128, 4, false>(dense, false, repeat);
    tryShape<128, 6, false>(dense, false, repeat);
    tryShape<256, 3, false>(dense, false, repeat);
    tryShape<256, 4, false>(dense, false, repeat);
    tryShape<256, 4, true>(dense, false, repeat);
    freeProblem(dense);
  }
  for (double density : {0.5, 0.25}) {
    Problem sparse = makeProblem(4096, density, handle, repeat);
    tryShape<128, 4, false>(sparse, false, repeat);
    tryShape<128, 4, false>(sparse, true, repeat);
    tryShape<128, 6, false>(sparse, true, repeat);
    tryShape<256, 4, false>(sparse, true, repeat);
    freeProblem(sparse);
  }
  CHECK(cublasDestroy(handle));
  return 0;
}
