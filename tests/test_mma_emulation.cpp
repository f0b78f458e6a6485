// The tensor-core instructions of kernels/parts/mma.cuh on the CPU emulator, against
// their operands indexed directly: what each lane receives from ldmatrix (plain and transposed),
// what a warp's mma.sync computes, cp.async's zero fill, and a lane that misses a warp-wide
// instruction; and K13, the dense tensor-core kernel built on them, against the fp64 product of
// its rounded inputs; then K14 (Hopper's warp-specialized wgmma kernel, parts/hopper.cuh's
// instructions) the same way, through the copy engine and through its element-by-element copies.
// The GPU side: lab/16-mma-probe/mma_probe.cu, lab/17-k13-check/k13_check.cu and lab/21-wgmma/wgmma_probe.cu.
#include <gtest/gtest.h>

// clang-format off
#include "cuda_emulation/cuda_emulation.hpp"
// clang-format on

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/model/catalogue.hpp"
#include "kernels/k13_mma.cuh"
#include "kernels/k14_wgmma.cuh"
#include "kernels/parts/mma.cuh"
#include "kernels/s11_wgmma_joint_64x64.cuh"
#include "core/model/dtype.hpp"
#include "core/model/matrix.hpp"
#include "core/model/pattern.hpp"

using namespace tileskip;
using namespace tileskip::cuda;

namespace {

// Lane `lane`'s fragments of C's two 8-column halves (mma.cuh's d layout) into a row-major
// 16 x 16 C.
void storeHalves(const float (&left)[4], const float (&right)[4], float* c, int lane) {
  const int g = lane / 4, t = lane % 4;
  for (int half = 0; half < 2; ++half) {
    const float* d = half == 0 ? left : right;
    c[g * 16 + half * 8 + 2 * t] = d[0];
    c[g * 16 + half * 8 + 2 * t + 1] = d[1];
    c[(g + 8) * 16 + half * 8 + 2 * t] = d[2];
    c[(g + 8) * 16 + half * 8 + 2 * t + 1] = d[3];
  }
}

// Both operands of a one-tile MMA into shared memory, the warp's lanes striding over them.
template <class Word>
void stageBoth(const Word* a, const Word* b, Word* as, Word* bs, int count) {
  for (int i = static_cast<int>(threadIdx.x); i < count; i += 32) {
    as[i] = a[i];
    bs[i] = b[i];
  }
  __syncthreads();
}

// One warp multiplies a 16 x 16 A by a 16 x 16 B (both row-major; B is K x N) as the MMA kernels
// do: both staged in shared memory, A's fragments by ldmatrix, B's by transposed ldmatrix, two
// MMAs for C's two 8-column halves, each lane storing its fragment of C.
template <DType T>
void multiplyOneTile(const std::uint16_t* a, const std::uint16_t* b, float* c) {
  __shared__ __align__(16) std::uint16_t as[16 * 16];
  __shared__ __align__(16) std::uint16_t bs[16 * 16];
  const int lane = static_cast<int>(threadIdx.x);
  stageBoth(a, b, as, bs, 16 * 16);
  // Lane l names row l % 8 of tile l / 8: tiles are rows 0-7 / 8-15, then columns 8-15 of both.
  const int row = lane % 8 + (lane / 8) % 2 * 8, column = lane / 16 * 8;
  unsigned aFrag[4], bFrag[4];
  loadMatrixX4(aFrag, as + row * 16 + column);
  loadMatrixX4Transposed(bFrag, bs + row * 16 + column);
  float left[4] = {}, right[4] = {};
  const unsigned bLeft[2] = {bFrag[0], bFrag[1]}, bRight[2] = {bFrag[2], bFrag[3]};
  mmaM16N8K16<T>(left, aFrag, bLeft);
  mmaM16N8K16<T>(right, aFrag, bRight);
  storeHalves(left, right, c, lane);
}

// The same with tf32 inputs as K13 reads them: a 16 x 8 A and B transposed (16 x 8, B^T's row n
// is B's column n), both rows of 8 words in shared memory; ldmatrix reads each as 8 x 4 tiles of
// words (rows 0-7 / 8-15, then K 4-7 of both), and two m16n8k8 MMAs give C's two halves.
void multiplyOneTileTf32(const std::uint32_t* a, const std::uint32_t* bt, float* c) {
  __shared__ __align__(16) std::uint32_t as[16 * 8];
  __shared__ __align__(16) std::uint32_t bts[16 * 8];
  const int lane = static_cast<int>(threadIdx.x);
  stageBoth(a, bt, as, bts, 16 * 8);
  unsigned aFrag[4], bFrag[4];
  loadMatrixX4(aFrag, as + (lane % 16) * 8 + 4 * (lane / 16));
  loadMatrixX4(bFrag, bts + (lane % 16) * 8 + 4 * (lane / 16));
  float left[4] = {}, right[4] = {};
  const unsigned bLeft[2] = {bFrag[0], bFrag[2]}, bRight[2] = {bFrag[1], bFrag[3]};
  mmaM16N8K8Tf32(left, aFrag, bLeft);
  mmaM16N8K8Tf32(right, aFrag, bRight);
  storeHalves(left, right, c, lane);
}

void laneSkipsTheMma(float* c) {
  unsigned a[4] = {}, b[2] = {};
  float d[4] = {};
  if (threadIdx.x == 5) return;
  mmaM16N8K16<DType::Bf16>(d, a, b);
  c[threadIdx.x] = d[0];
}

}  // namespace

TEST(MmaEmulation, AWarpMultipliesATileExactlyInEitherType) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-8, 8);  // products and sums stay exact in fp32
  for (DType type : {DType::Fp16, DType::Bf16}) {
    std::vector<int> a(256), b(256);
    std::vector<std::uint16_t> aBits(256), bBits(256);
    for (int i = 0; i < 256; ++i) {
      a[i] = small(rng);
      b[i] = small(rng);
      aBits[i] = halfBits(type, static_cast<float>(a[i]));
      bBits[i] = halfBits(type, static_cast<float>(b[i]));
    }
    std::vector<float> c(256, -1.0f);
    emu::launch(1, 32, [&] {
      if (type == DType::Bf16) {
        multiplyOneTile<DType::Bf16>(aBits.data(), bBits.data(), c.data());
      } else {
        multiplyOneTile<DType::Fp16>(aBits.data(), bBits.data(), c.data());
      }
    });
    for (int i = 0; i < 16; ++i) {
      for (int j = 0; j < 16; ++j) {
        int expected = 0;
        for (int k = 0; k < 16; ++k) expected += a[i * 16 + k] * b[k * 16 + j];
        ASSERT_EQ(c[i * 16 + j], static_cast<float>(expected)) << dtypeName(type) << " C(" << i << ", " << j << ")";
      }
    }
  }
}

TEST(MmaEmulation, AWarpMultipliesATf32TileExactlyAndReadsTenMantissaBits) {
  std::mt19937 rng(8);
  std::uniform_int_distribution<int> small(-8, 8);
  std::vector<int> a(16 * 8), b(8 * 16);
  std::vector<std::uint32_t> aWords(a.size()), btWords(b.size());
  // Each word carries two mantissa bits below tf32's 10, the MMA drops, not rounds, them: with the
  // higher one (half a tf32 ulp) set, rounding would move every non-zero value up an ulp.
  constexpr std::uint32_t kBelowTf32 = 0x1800u;
  for (int i = 0; i < 16 * 8; ++i) {
    a[i] = small(rng);
    aWords[i] = std::bit_cast<std::uint32_t>(static_cast<float>(a[i])) | kBelowTf32;
  }
  for (int kk = 0; kk < 8; ++kk) {
    for (int j = 0; j < 16; ++j) {
      b[kk * 16 + j] = small(rng);
      btWords[j * 8 + kk] = std::bit_cast<std::uint32_t>(static_cast<float>(b[kk * 16 + j])) | kBelowTf32;
    }
  }
  std::vector<float> c(256, -1.0f);
  emu::launch(1, 32, [&] { multiplyOneTileTf32(aWords.data(), btWords.data(), c.data()); });
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) {
      int expected = 0;
      for (int k = 0; k < 8; ++k) expected += a[i * 8 + k] * b[k * 16 + j];
      ASSERT_EQ(c[i * 16 + j], static_cast<float>(expected)) << "C(" << i << ", " << j << ")";
    }
  }
}

TEST(MmaEmulation, AnMmaAddsToWhatTheAccumulatorHeld) {
  const std::uint16_t one = halfBits(DType::Bf16, 1.0f), half = halfBits(DType::Bf16, 0.5f);
  std::vector<float> d(32 * 4);
  emu::launch(1, 32, [&] {
    const unsigned pairOfOnes = one | (static_cast<unsigned>(one) << 16), pairOfHalves = half | (static_cast<unsigned>(half) << 16);
    const unsigned a[4] = {pairOfOnes, pairOfOnes, pairOfOnes, pairOfOnes}, b[2] = {pairOfHalves, pairOfHalves};
    float acc[4] = {1.0f, 2.0f, 3.0f, static_cast<float>(threadIdx.x)};
    mmaM16N8K16<DType::Bf16>(acc, a, b);
    for (int i = 0; i < 4; ++i) d[threadIdx.x * 4 + i] = acc[i];
  });
  // Every element of A B is 16 x 1 x 0.5 = 8.
  for (int lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(d[lane * 4 + 0], 9.0f);
    EXPECT_EQ(d[lane * 4 + 1], 10.0f);
    EXPECT_EQ(d[lane * 4 + 2], 11.0f);
    EXPECT_EQ(d[lane * 4 + 3], 8.0f + static_cast<float>(lane));
  }
}

TEST(MmaEmulation, LoadMatrixGivesEachLaneItsRowOrColumnPair) {
  // 32 rows of 8 values each, the lanes naming them out of order.
  std::vector<std::uint16_t> values(32 * 8);
  for (int i = 0; i < 32 * 8; ++i) values[i] = static_cast<std::uint16_t>(1000 + i);
  auto rowOf = [](int lane) { return (lane * 7 + 3) % 32; };
  std::vector<unsigned> plain(32 * 4), transposed(32 * 4);
  emu::launch(1, 32, [&] {
    __shared__ __align__(16) std::uint16_t rows[32 * 8];
    for (int i = static_cast<int>(threadIdx.x); i < 32 * 8; i += 32) rows[i] = values[i];
    __syncthreads();
    unsigned r[4], s[4];
    loadMatrixX4(r, rows + rowOf(static_cast<int>(threadIdx.x)) * 8);
    loadMatrixX4Transposed(s, rows + rowOf(static_cast<int>(threadIdx.x)) * 8);
    for (int i = 0; i < 4; ++i) {
      plain[threadIdx.x * 4 + i] = r[i];
      transposed[threadIdx.x * 4 + i] = s[i];
    }
  });
  auto element = [&](int tile, int row, int column) { return static_cast<unsigned>(values[rowOf(tile * 8 + row) * 8 + column]); };
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    for (int tile = 0; tile < 4; ++tile) {
      EXPECT_EQ(plain[lane * 4 + tile], element(tile, g, 2 * t) | element(tile, g, 2 * t + 1) << 16) << lane << " " << tile;
      EXPECT_EQ(transposed[lane * 4 + tile], element(tile, 2 * t, g) | element(tile, 2 * t + 1, g) << 16) << lane << " " << tile;
    }
  }
}

TEST(MmaEmulation, AnAsyncCopyFillsPastItsBytesWithZeros) {
  std::vector<unsigned char> from(16), to(16);
  for (int i = 0; i < 16; ++i) from[i] = static_cast<unsigned char>(i + 1);
  for (int bytes : {0, 6, 16}) {
    std::fill(to.begin(), to.end(), 0xEE);
    copyAsync16(to.data(), from.data(), bytes);
    commitCopies();
    waitCopies<0>();
    for (int i = 0; i < 16; ++i) EXPECT_EQ(to[i], i < bytes ? from[i] : 0) << bytes << " bytes, byte " << i;
  }
}

TEST(MmaEmulation, ALaneThatMissesAnMmaIsReported) {
  std::vector<float> c(32);
  EXPECT_THROW(emu::launch(1, 32, [&] { laneSkipsTheMma(c.data()); }), std::logic_error);
}

// ---- K13 (k13_mma.cuh), the dense tensor-core kernel ----
namespace {

struct MmaDenseCase {
  int m, n, k;
  const char* what;
};

// A tf32 kernel's operands as the CUDA backend's preparation makes them: A as fp32 words, B
// transposed (N x K).
std::vector<std::uint32_t> wordsOf(const std::vector<float>& values) {
  std::vector<std::uint32_t> words(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) words[i] = std::bit_cast<std::uint32_t>(values[i]);
  return words;
}
std::vector<std::uint32_t> transposedWordsOf(const std::vector<float>& b, int k, int n) {
  std::vector<std::uint32_t> words(b.size());
  for (int kk = 0; kk < k; ++kk) {
    for (int j = 0; j < n; ++j) words[static_cast<std::size_t>(j) * k + kk] = std::bit_cast<std::uint32_t>(b[static_cast<std::size_t>(kk) * n + j]);
  }
  return words;
}

// K13 at the shape lab/17-k13-check/k13_check.cu checks on the GPU, BK 32 (the catalogue's own
// shape runs in the verify suite's emulation): a row of its own, as a kernel is built from a row.
constexpr KernelInfo kMmaBk32 = [] {
  KernelInfo row = *findKernelInfo("mma");
  row.tile.BK = 32;
  return row;
}();

// 16-bit inputs as their words; tf32 as fp32 words, B transposed.
void runMmaDense(DType dtype, const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c, int m, int n,
                 int k) {
  const TileShape t = kMmaBk32.tile;
  const auto blocks = static_cast<unsigned>(((m + t.BM - 1) / t.BM) * ((n + t.BN - 1) / t.BN));
  const auto threads = static_cast<unsigned>(t.threads);
  if (dtype == DType::Tf32) {
    const std::vector<std::uint32_t> aWords = wordsOf(a), btWords = transposedWordsOf(b, k, n);
    emu::launch(blocks, threads, [&] { k13_mma<kMmaBk32, DType::Tf32>(aWords.data(), btWords.data(), c.data(), m, n, k); });
    return;
  }
  std::vector<std::uint16_t> aBits, bBits;
  for (float x : a) aBits.push_back(halfBits(dtype, x));
  for (float x : b) bBits.push_back(halfBits(dtype, x));
  emu::launch(blocks, threads, [&] {
    if (dtype == DType::Bf16) {
      k13_mma<kMmaBk32, DType::Bf16>(aBits.data(), bBits.data(), c.data(), m, n, k);
    } else {
      k13_mma<kMmaBk32, DType::Fp16>(aBits.data(), bBits.data(), c.data(), m, n, k);
    }
  });
}

constexpr KernelInfo kWgmma = *findKernelInfo("wgmma");

// K14 at the catalogue's shape, which lab/21-wgmma/wgmma_probe.cu times. The copy engine where rows
// are 16-byte aligned, unless `byElements`; its maps are the emulator's plain ones.
void runWgmmaDense(DType dtype, const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b,
                   std::vector<float>& c, int m, int n, int k, bool byElements) {
  const TileShape t = kWgmma.tile;
  const BulkTensorMap aMap{a.data(), k, m, kSwizzleRowElements, t.BM}, bMap{b.data(), n, k, kSwizzleRowElements, t.BK};
  const bool bulk = !byElements && bulkCopiesFit(DType::Bf16, n, k);
  const auto blocks = static_cast<unsigned>(((m + t.BM - 1) / t.BM) * ((n + t.BN - 1) / t.BN));
  emu::launch(blocks, static_cast<unsigned>(t.threads), [&] {
    if (dtype == DType::Bf16) {
      k14_wgmma<kWgmma, DType::Bf16>(aMap, bMap, bulk, a.data(), b.data(), c.data(), m, n, k);
    } else {
      k14_wgmma<kWgmma, DType::Fp16>(aMap, bMap, bulk, a.data(), b.data(), c.data(), m, n, k);
    }
  });
}

// K14's tf32 instance at the same shape: its K-tile is the same swizzled row, 32 values deep; it
// reads A as fp32 words and B transposed (N x K), as the CUDA backend's preparation makes it.
void runWgmmaTf32(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c, int m, int n, int k,
                  bool byElements) {
  const TileShape t = kWgmma.tile;
  constexpr int kRow = kRowValues<DType::Tf32>;
  const std::vector<std::uint32_t> aWords = wordsOf(a), btWords = transposedWordsOf(b, k, n);
  const BulkTensorMap aMap{aWords.data(), k, m, kRow, t.BM, 4}, bMap{btWords.data(), k, n, kRow, t.BN, 4};
  const bool bulk = !byElements && bulkCopiesFit(DType::Tf32, n, k);
  const auto blocks = static_cast<unsigned>(((m + t.BM - 1) / t.BM) * ((n + t.BN - 1) / t.BN));
  emu::launch(blocks, static_cast<unsigned>(t.threads), [&] {
    k14_wgmma<kWgmma, DType::Tf32>(aMap, bMap, bulk, aWords.data(), btWords.data(), c.data(), m, n, k);
  });
}

// S11 with a list of 32 K-tiles instead of the catalogue's 1024, so a K of a few thousand takes
// several passes through the gather and the ring (the catalogue's list needs K > 65 536 for two).
constexpr KernelInfo kWgmmaJointShortList = [] {
  KernelInfo row = *findKernelInfo("wgmma-joint-64x64");
  row.structure.kBlockList = 256;
  return row;
}();

void runWgmmaJointShortList(DType dtype, const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b,
                            std::vector<float>& c, int m, int n, int k) {
  const KernelInfo& row = kWgmmaJointShortList;
  const TileShape t = row.tile;
  Matrix aValues(m, k), bValues(k, n);
  for (std::size_t i = 0; i < a.size(); ++i) aValues.data()[i] = fromHalfBits(dtype, a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) bValues.data()[i] = fromHalfBits(dtype, b[i]);
  const Pattern aPattern = buildAPattern(aValues, row.aGranularity), bPattern = buildBPattern(bValues, row.bGranularity);
  const BulkTensorMap aMap{a.data(), k, m, kSwizzleRowElements, t.BM}, bMap{b.data(), n, k, kSwizzleRowElements, t.BK};
  const auto blocks = static_cast<unsigned>(((m + t.BM - 1) / t.BM) * ((n + t.BN - 1) / t.BN));
  emu::launch(blocks, static_cast<unsigned>(t.threads), [&] {
    auto kernel = dtype == DType::Bf16 ? s11_wgmma_joint_64x64<kWgmmaJointShortList, DType::Bf16>
                                       : s11_wgmma_joint_64x64<kWgmmaJointShortList, DType::Fp16>;
    kernel(aMap, bMap, bulkCopiesFit(DType::Bf16, n, k), a.data(), b.data(), c.data(), m, n, k, aPattern.bits.data(),
           bPattern.bits.data(), nullptr);
  });
}

enum class Kernel { Mma, WgmmaBulk, WgmmaByElements, WgmmaJointShortList };

// A and B drawn by `draw` and rounded to the dtype; K13's (or K14's) C against the fp64 product of the
// rounded values within fp32 accumulation error, (k + 1) half-ulps of the sum of |products|
// (products of 16-bit or tf32 values are exact in fp32): one product dropped or counted twice is
// far outside it wherever it is not tiny.
template <class Draw>
void checkMmaDense(DType dtype, const MmaDenseCase& shape, Draw draw, Kernel kernel = Kernel::Mma) {
  const int m = shape.m, n = shape.n, k = shape.k;
  std::vector<double> A(static_cast<std::size_t>(m) * k), B(static_cast<std::size_t>(k) * n);
  std::vector<float> aValues(A.size()), bValues(B.size());
  std::vector<std::uint16_t> aBits, bBits;
  for (std::size_t i = 0; i < A.size(); ++i) A[i] = aValues[i] = roundTo(dtype, draw(i, true));
  for (std::size_t i = 0; i < B.size(); ++i) B[i] = bValues[i] = roundTo(dtype, draw(i, false));
  if (dtype != DType::Tf32) {
    for (float x : aValues) aBits.push_back(halfBits(dtype, x));
    for (float x : bValues) bBits.push_back(halfBits(dtype, x));
  }
  std::vector<float> C(static_cast<std::size_t>(m) * n, std::nanf(""));
  if (kernel == Kernel::Mma) {
    runMmaDense(dtype, aValues, bValues, C, m, n, k);
  } else if (dtype == DType::Tf32) {
    runWgmmaTf32(aValues, bValues, C, m, n, k, kernel == Kernel::WgmmaByElements);
  } else if (kernel == Kernel::WgmmaJointShortList) {
    runWgmmaJointShortList(dtype, aBits, bBits, C, m, n, k);
  } else {
    runWgmmaDense(dtype, aBits, bBits, C, m, n, k, kernel == Kernel::WgmmaByElements);
  }
  int wrong = 0;
  for (int r = 0; r < m; ++r) {
    for (int col = 0; col < n; ++col) {
      double expected = 0.0, magnitude = 0.0;
      for (int kk = 0; kk < k; ++kk) {
        const double p = A[static_cast<std::size_t>(r) * k + kk] * B[static_cast<std::size_t>(kk) * n + col];
        expected += p;
        magnitude += std::fabs(p);
      }
      const double got = C[static_cast<std::size_t>(r) * n + col];
      const double tolerance = (k + 1) * unitRoundoff(DType::Fp32) * magnitude;
      if (!(std::fabs(got - expected) <= tolerance) && wrong++ < 5) {
        ADD_FAILURE() << dtypeName(dtype) << " " << shape.what << " (" << m << "x" << n << "x" << k << "): C[" << r
                      << "][" << col << "] = " << got << ", expected " << expected << " +- " << tolerance;
      }
    }
  }
  EXPECT_EQ(wrong, 0) << dtypeName(dtype) << " " << shape.what;
}

constexpr DType kMmaTypes[] = {DType::Fp16, DType::Bf16, DType::Tf32};

}  // namespace

TEST(MmaDenseEmulation, MatchesTheProductOfRoundedInputsOnOddAndWholeShapes) {
  const MmaDenseCase cases[] = {
      {37, 45, 70, "odd shape (element-wise loads)"},
      {128, 128, 32, "one whole block tile, one K-tile"},
      {130, 136, 48, "partial tiles with 16-byte copies"},
      {1, 1, 1, "1 x 1 x 1"},
  };
  std::mt19937 rng(19);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (DType dtype : kMmaTypes) {
    for (const MmaDenseCase& shape : cases) checkMmaDense(dtype, shape, [&](std::size_t, bool) { return normal(rng); });
  }
}

TEST(MmaDenseEmulation, ASingleNonZeroLandsInItsOneOutput) {
  // A's only non-zero at (70, 33), B's at (33, 100): C is zero but for C[70][100] = 3 * -5.
  const int m = 150, n = 160, k = 64;
  for (DType dtype : kMmaTypes) {
    checkMmaDense(dtype, {m, n, k, "single non-zero"}, [&](std::size_t i, bool isA) {
      if (isA) return i == 70u * k + 33 ? 3.0f : 0.0f;
      return i == 33u * n + 100 ? -5.0f : 0.0f;
    });
  }
}

TEST(MmaDenseEmulation, AllZeroInputsGiveZeroAndCancellationStaysExact) {
  checkMmaDense(DType::Bf16, {70, 90, 80, "all zero"}, [](std::size_t, bool) { return 0.0f; });
  // Row r of A is (1, -1, 1, -1, ...) times 2^(r % 5) and B is constant, so every output cancels
  // to zero through partial sums exact in fp32; one product dropped or added twice leaves
  // 0.75 * 2^(r % 5), some two thousand times the bound.
  const int k = 96;
  for (DType dtype : {DType::Fp16, DType::Tf32}) {
    checkMmaDense(dtype, {40, 24, k, "cancellation"}, [&](std::size_t i, bool isA) {
      if (isA) return std::ldexp(i % 2 == 0 ? 1.0f : -1.0f, static_cast<int>(i / k % 5));
      return 0.75f;
    });
  }
}

TEST(MmaDenseEmulation, LongKRunsThePipelineThroughManyStages) {
  std::mt19937 rng(20);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  checkMmaDense(DType::Bf16, {24, 40, 2048, "long K, 16-byte copies"}, [&](std::size_t, bool) { return uniform(rng); });
  checkMmaDense(DType::Fp16, {20, 17, 1003, "long K, element-wise loads"}, [&](std::size_t, bool) { return uniform(rng); });
  checkMmaDense(DType::Tf32, {24, 40, 2048, "long K, 16-byte copies"}, [&](std::size_t, bool) { return uniform(rng); });
  checkMmaDense(DType::Tf32, {20, 17, 1003, "long K, element-wise loads"}, [&](std::size_t, bool) { return uniform(rng); });
}

TEST(WgmmaDenseEmulation, MatchesTheProductOfRoundedInputsThroughEitherCopy) {
  const MmaDenseCase cases[] = {
      {37, 45, 70, "odd shape (element-wise copies)"},
      {128, 256, 64, "one whole block tile, one K-tile"},
      {136, 264, 200, "partial tiles, four K-tiles and a part"},
      {1, 1, 1, "1 x 1 x 1"},
  };
  std::mt19937 rng(21);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (DType dtype : kMmaTypes) {
    for (const MmaDenseCase& shape : cases) {
      for (Kernel kernel : {Kernel::WgmmaBulk, Kernel::WgmmaByElements}) {
        checkMmaDense(dtype, shape, [&](std::size_t, bool) { return normal(rng); }, kernel);
      }
    }
  }
}

TEST(WgmmaDenseEmulation, ASingleNonZeroAndCancellationThroughTheRing) {
  const int m = 150, n = 300, k = 136;
  // A's only non-zero at (140, 97), B's at (97, 290): in tf32's transposed B that is row 290,
  // K-tile 3 (32 deep), half-way along.
  auto singleNonZero = [&](std::size_t i, bool isA) {
    if (isA) return i == 140u * k + 97 ? 3.0f : 0.0f;
    return i == 97u * n + 290 ? -5.0f : 0.0f;
  };
  auto cancelling = [](std::size_t i, bool isA) {
    if (isA) return std::ldexp(i % 2 == 0 ? 1.0f : -1.0f, static_cast<int>(i / 96 % 5));
    return 0.75f;
  };
  checkMmaDense(DType::Bf16, {m, n, k, "single non-zero"}, singleNonZero, Kernel::WgmmaBulk);
  checkMmaDense(DType::Fp16, {40, 24, 96, "cancellation"}, cancelling, Kernel::WgmmaByElements);
  checkMmaDense(DType::Tf32, {m, n, k, "single non-zero"}, singleNonZero, Kernel::WgmmaBulk);
  checkMmaDense(DType::Tf32, {40, 24, 96, "cancellation"}, cancelling, Kernel::WgmmaBulk);
}

TEST(WgmmaDenseEmulation, LongKRefillsEveryStageManyTimes) {
  std::mt19937 rng(22);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  checkMmaDense(DType::Bf16, {20, 40, 1600, "long K, copy engine"}, [&](std::size_t, bool) { return uniform(rng); },
                Kernel::WgmmaBulk);
  checkMmaDense(DType::Fp16, {20, 17, 1003, "long K, element-wise copies"}, [&](std::size_t, bool) { return uniform(rng); },
                Kernel::WgmmaByElements);
  checkMmaDense(DType::Tf32, {20, 40, 1600, "long K, copy engine"}, [&](std::size_t, bool) { return uniform(rng); },
                Kernel::WgmmaBulk);
  checkMmaDense(DType::Tf32, {20, 17, 1003, "long K, element-wise copies"}, [&](std::size_t, bool) { return uniform(rng); },
                Kernel::WgmmaByElements);
}

// An mbarrier wait that no arrival can end is reported, not a hang; so is one used uninitialized.
TEST(WgmmaDenseEmulation, AnMbarrierThatNeverCompletesIsReported) {
  auto waitsForever = [] {
    auto* bar = reinterpret_cast<std::uint64_t*>(dynamicSharedMemory(64));
    if (threadIdx.x == 0) barrierInit(bar, 2);  // two arrivals, and only thread 0 arrives
    __syncthreads();
    if (threadIdx.x == 0) barrierArrive(bar);
    barrierWait(bar, 0);
  };
  EXPECT_THROW(emu::launch(1, 64, waitsForever), std::logic_error);
  auto neverInitialized = [] { barrierWait(reinterpret_cast<std::uint64_t*>(dynamicSharedMemory(64)), 0); };
  EXPECT_THROW(emu::launch(1, 32, neverInitialized), std::logic_error);
  auto completes = [] {
    auto* bar = reinterpret_cast<std::uint64_t*>(dynamicSharedMemory(64));
    if (threadIdx.x == 0) barrierInit(bar, 64);
    __syncthreads();
    barrierArrive(bar);
    barrierWait(bar, 0);
  };
  EXPECT_NO_THROW(emu::launch(1, 64, completes));
}

// The queue kernels' group height: a dense A's kWgmmaGroupRows, taller in proportion as A keeps
// less, never more row tiles than there are (nor fewer than the default, unless there are fewer).
TEST(WgmmaQueueOrder, GroupsGrowAsAKeepsLess) {
  EXPECT_EQ(queueGroupRows(32, 1.0), kWgmmaGroupRows);
  EXPECT_EQ(queueGroupRows(32, 0.5), 2 * kWgmmaGroupRows);
  EXPECT_EQ(queueGroupRows(32, 0.25), 32);
  EXPECT_EQ(queueGroupRows(32, 0.1), 32);
  EXPECT_EQ(queueGroupRows(32, 0.0), 32);
  EXPECT_EQ(queueGroupRows(200, 0.3), static_cast<int>(kWgmmaGroupRows / 0.3));
  EXPECT_EQ(queueGroupRows(5, 1.0), 5);
  EXPECT_EQ(queueGroupRows(5, 0.2), 5);
}

// S11's passes: 64 x 64 blocks of A and B zero at random, K long enough for several 32-entry lists,
// through the copy engine and (K not a multiple of 8) the element copies.
TEST(WgmmaJointEmulation, ManyPassesOverShortListsSkipOnlyZeros) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::bernoulli_distribution keep(0.5);
  for (const int k : {4480, 4485}) {
    const int m = 130, n = 260;
    std::vector<bool> aBlocks(static_cast<std::size_t>((m + 63) / 64) * ((k + 63) / 64));
    std::vector<bool> bBlocks(static_cast<std::size_t>((k + 63) / 64) * ((n + 63) / 64));
    for (auto&& bit : aBlocks) bit = keep(rng);
    for (auto&& bit : bBlocks) bit = keep(rng);
    checkMmaDense(
        DType::Bf16, {m, n, k, "64 x 64 block zeros, several passes"},
        [&](std::size_t i, bool isA) {
          const int row = static_cast<int>(i / static_cast<std::size_t>(isA ? k : n));
          const int col = static_cast<int>(i % static_cast<std::size_t>(isA ? k : n));
          const bool kept = isA ? aBlocks[static_cast<std::size_t>(row / 64) * ((k + 63) / 64) + col / 64]
                                : bBlocks[static_cast<std::size_t>(row / 64) * ((n + 63) / 64) + col / 64];
          return kept ? uniform(rng) : 0.0f;
        },
        Kernel::WgmmaJointShortList);
  }
}
