// The logic of the dense_variants kernels (issue 17) on the CPU: the multistage main loop and
// the harness's register-staged one run on tests/cuda_emulation's fibers at small odd shapes
// and are compared with a double-precision product. This checks indexing, bounds, zero fill,
// the stage ring and barrier placement (every thread reaches the same barrier; shared memory
// starts as NaN, so a stage read before it is written poisons C). It cannot check the
// asynchrony of cp.async: here a copy lands at once, so a missing wait would go unnoticed.
//   g++ -std=c++20 -O2 -I. -Ibackends/cuda -Ilab/tools/dense_variants lab/tools/dense_variants/dense_variants_emulated.cpp \
//       tests/cuda_emulation/cuda_emulation.cpp -o build/tune/dense_variants_emulated
#include "tests/cuda_emulation/cuda_emulation.hpp"  // first: the .cuh files need its stand-ins

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "k12_hoisted.cuh"
#include "tune_kernels.cuh"

using namespace tileskip;

namespace {

struct Shape {
  int M, N, K;
};

int failures = 0;

// Runs `gemm(A, B, C, M, N, K, stages)` over every block tile and compares C with a double
// product of the same inputs.
template <int BM, int BN, int kThreads, int kStageFloats, class Gemm>
void check(const std::string& name, const Shape& s, Gemm gemm) {
  std::mt19937 rng(static_cast<unsigned>(s.M * 131 + s.N * 7 + s.K));
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> A(std::size_t(s.M) * s.K), B(std::size_t(s.K) * s.N), C(std::size_t(s.M) * s.N, NAN);
  for (float& v : A) v = uniform(rng);
  for (float& v : B) v = uniform(rng);
  const unsigned blocks = static_cast<unsigned>(((s.M + BM - 1) / BM) * ((s.N + BN - 1) / BN));
  emu::launch(blocks, kThreads, [&] {
    __shared__ __align__(16) float stages[kStageFloats];
    gemm(A.data(), B.data(), C.data(), s.M, s.N, s.K, stages);
  });
  double diff = 0, norm = 0;
  int nonFinite = 0;
  for (int i = 0; i < s.M; ++i) {
    for (int j = 0; j < s.N; ++j) {
      double want = 0;
      for (int k = 0; k < s.K; ++k) want += double(A[std::size_t(i) * s.K + k]) * B[std::size_t(k) * s.N + j];
      const double got = C[std::size_t(i) * s.N + j];
      if (!std::isfinite(got)) ++nonFinite;
      else diff += (got - want) * (got - want);
      norm += want * want;
    }
  }
  const double error = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
  const bool ok = nonFinite == 0 && error < 1e-5;
  failures += ok ? 0 : 1;
  std::printf("%-40s %4dx%4dx%4d  rel.err %.1e  non-finite %d  %s\n", name.c_str(), s.M, s.N, s.K, error, nonFinite,
              ok ? "ok" : "WRONG");
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kStages, int kLaneRows = 4,
          int kInterleave = 1, int kGroupRows = 8, bool kEarly = true>
void checkMultistage(const std::string& name, const std::vector<Shape>& shapes) {
  for (const Shape& s : shapes) {
    check<BM, BN, kThreads, kStages * cuda::stageFloats<BM, BN, BK>()>(
        name, s, [](const float* A, const float* B, float* C, int M, int N, int K, float* stages) {
          cuda::multistageGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kStages, kLaneRows, kInterleave, kGroupRows,
                               kEarly>(A, B, C, M, N, K, stages);
        });
  }
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kLaneRows = 4, int kInterleave = 1,
          int kGroupRows = 8, bool kEarly = true>
void checkRegisterStaged(const std::string& name, const std::vector<Shape>& shapes) {
  for (const Shape& s : shapes) {
    check<BM, BN, kThreads, 2 * cuda::stageFloats<BM, BN, BK>()>(
        name, s, [](const float* A, const float* B, float* C, int M, int N, int K, float* stages) {
          cuda::registerStagedGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kLaneRows, kInterleave, kGroupRows, kEarly>(
              A, B, C, M, N, K, stages);
        });
  }
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kStages>
void checkWarpTileMultistage(const std::string& name, const std::vector<Shape>& shapes) {
  for (const Shape& s : shapes) {
    check<BM, BN, kThreads, kStages * cuda::stageFloats<BM, BN, BK>()>(
        name, s, [](const float* A, const float* B, float* C, int M, int N, int K, float* stages) {
          cuda::warpTileMultistageGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kStages>(A, B, C, M, N, K, stages);
        });
  }
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kStages>
void checkHybrid(const std::string& name, const std::vector<Shape>& shapes) {
  for (const Shape& s : shapes) {
    check<BM, BN, kThreads, kStages * cuda::stageFloats<BM, BN, BK>()>(
        name, s, [](const float* A, const float* B, float* C, int M, int N, int K, float* stages) {
          cuda::hybridGemm<BM, BN, BK, WM, WN, TM, TN, kThreads, kStages>(A, B, C, M, N, K, stages);
        });
  }
}

// The catalogue's K12, which declares its own shared memory.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads>
void checkHoisted(const std::string& name, const std::vector<Shape>& shapes) {
  for (const Shape& s : shapes) {
    check<BM, BN, kThreads, 1>(name, s, [](const float* A, const float* B, float* C, int M, int N, int K, float*) {
      cuda::hoisted<BM, BN, BK, WM, WN, TM, TN, kThreads>(A, B, C, M, N, K);
    });
  }
}

}  // namespace

int main() {
  // Partial tiles, rows not 16-byte aligned, K not a multiple of 8, interior tiles (256 x 256 x
  // 64: every copy on the unchecked path), one K-tile, and more block rows than one group.
  const std::vector<Shape> shapes = {{1, 1, 1},       {17, 33, 9},     {130, 260, 24}, {300, 200, 100},
                                     {256, 256, 64},  {256, 512, 44},  {1100, 130, 19}};
  checkMultistage<128, 128, 8, 64, 64, 8, 4, 128, 3>("ms3 128x128x8 t8x4 l4x8", shapes);
  checkMultistage<128, 128, 8, 64, 64, 8, 4, 128, 2>("ms2 128x128x8 t8x4 l4x8", shapes);
  checkMultistage<128, 128, 8, 64, 64, 8, 4, 128, 4>("ms4 128x128x8 t8x4 l4x8", shapes);
  checkMultistage<128, 128, 8, 64, 64, 8, 4, 128, 3, 4, 1, 8, false>("ms3 128x128x8 t8x4 late", shapes);
  checkMultistage<128, 128, 8, 64, 64, 4, 4, 128, 3, 4, 2>("ms3 128x128x8 t4x4 l4x8il2", shapes);
  checkMultistage<128, 128, 8, 64, 64, 4, 4, 128, 3, 8, 2>("ms3 128x128x8 t4x4 l8x4il2", shapes);
  checkMultistage<128, 128, 8, 64, 64, 8, 8, 128, 3, 8, 1>("ms3 128x128x8 t8x8 l8x4", shapes);
  checkMultistage<128, 128, 16, 64, 64, 8, 4, 128, 3>("ms3 128x128x16 t8x4", shapes);
  checkMultistage<128, 128, 8, 64, 64, 8, 4, 128, 3, 4, 1, 1>("ms3 128x128x8 g1", shapes);
  checkMultistage<128, 256, 8, 64, 64, 8, 4, 256, 3>("ms3 128x256x8 256thr", shapes);
  checkMultistage<128, 256, 16, 64, 64, 8, 4, 256, 3>("ms3 128x256x16 256thr", shapes);
  checkMultistage<256, 128, 8, 64, 64, 8, 4, 256, 3>("ms3 256x128x8 256thr", shapes);
  checkRegisterStaged<128, 128, 8, 64, 64, 8, 4, 128>("reg2 128x128x8 t8x4", shapes);
  checkRegisterStaged<128, 128, 8, 64, 64, 8, 4, 128, 4, 1, 8, false>("reg2 128x128x8 t8x4 late", shapes);
  checkRegisterStaged<128, 128, 8, 64, 64, 4, 4, 128, 4, 2>("reg2 128x128x8 t4x4 l4x8il2", shapes);
  checkRegisterStaged<128, 256, 8, 64, 64, 8, 4, 256>("reg2 128x256x8 256thr", shapes);
  checkHoisted<128, 256, 8, 64, 64, 8, 4, 256>("k12 hoisted 128x256x8 256thr", shapes);
  checkHoisted<128, 128, 8, 64, 64, 8, 4, 128>("k12 hoisted 128x128x8", shapes);
  checkWarpTileMultistage<128, 128, 8, 64, 64, 8, 4, 128, 3>("ms3 k9-warptile (barrierAfter)", shapes);
  checkHybrid<128, 128, 8, 64, 64, 8, 4, 128, 3>("hybrid3 128x128x8", shapes);
  checkHybrid<128, 128, 8, 64, 64, 8, 4, 128, 2>("hybrid2 128x128x8", shapes);
  checkHybrid<128, 256, 8, 64, 64, 8, 4, 256, 4>("hybrid4 128x256x8 256thr", shapes);
  std::printf("%s\n", failures == 0 ? "all ok" : "FAILURES");
  return failures == 0 ? 0 : 1;
}
