#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "core/model/error.hpp"
#include "core/model/generators.hpp"
#include "core/model/pattern.hpp"

using namespace tileskip;

namespace {

// core/model/pattern.hpp's definitions, written as literally as possible.
std::uint8_t bruteA(const Matrix& a, int granularity, int tile, int kBlock) {
  std::uint8_t byte = 0;
  for (int j = 0; j < 8; ++j) {
    int k = 8 * kBlock + j;
    if (k >= a.cols()) continue;
    for (int r = tile * granularity; r < std::min(a.rows(), (tile + 1) * granularity); ++r) {
      if (a(r, k) != 0.0f) byte |= static_cast<std::uint8_t>(1 << j);
    }
  }
  return byte;
}

std::uint8_t bruteB(const Matrix& b, int granularity, int tile, int kBlock) {
  std::uint8_t byte = 0;
  for (int j = 0; j < 8; ++j) {
    int k = 8 * kBlock + j;
    if (k >= b.rows()) continue;
    for (int c = tile * granularity; c < std::min(b.cols(), (tile + 1) * granularity); ++c) {
      if (b(k, c) != 0.0f) byte |= static_cast<std::uint8_t>(1 << j);
    }
  }
  return byte;
}

void expectMatchesDefinition(const Matrix& a, const Matrix& b) {
  for (int g : kPatternGranularities) {
    Pattern pa = buildAPattern(a, g);
    ASSERT_EQ(pa.tiles, (a.rows() + g - 1) / g);
    ASSERT_EQ(pa.kBlocks, (a.cols() + 7) / 8);
    for (int t = 0; t < pa.tiles; ++t)
      for (int kb = 0; kb < pa.kBlocks; ++kb) ASSERT_EQ(pa.at(t, kb), bruteA(a, g, t, kb)) << "A g=" << g << " tile " << t << " kb " << kb;
    Pattern pb = buildBPattern(b, g);
    ASSERT_EQ(pb.tiles, (b.cols() + g - 1) / g);
    for (int t = 0; t < pb.tiles; ++t)
      for (int kb = 0; kb < pb.kBlocks; ++kb) ASSERT_EQ(pb.at(t, kb), bruteB(b, g, t, kb)) << "B g=" << g << " tile " << t << " kb " << kb;
  }
}

}  // namespace

struct PatternShape {
  int m, n, k;
};

class PatternDefinition : public ::testing::TestWithParam<PatternShape> {};

TEST_P(PatternDefinition, RandomSparse) {
  auto [m, n, k] = GetParam();
  expectMatchesDefinition(generate("uniform", Operand::A, m, k, 0.05, 1), generate("uniform", Operand::B, k, n, 0.05, 1));
}

TEST_P(PatternDefinition, AllZerosAndAllNonZeros) {
  auto [m, n, k] = GetParam();
  Matrix zeroA(m, k), zeroB(k, n);
  expectMatchesDefinition(zeroA, zeroB);
  for (std::uint8_t byte : buildAPattern(zeroA, 8).bits) EXPECT_EQ(byte, 0);
  Matrix fullA = generate("uniform", Operand::A, m, k, 1.0, 2), fullB = generate("uniform", Operand::B, k, n, 1.0, 2);
  expectMatchesDefinition(fullA, fullB);
  // All non-zero: every real bit set, and the bits past K in the last K-block clear.
  Pattern p = buildAPattern(fullA, 32);
  EXPECT_DOUBLE_EQ(p.density(), 1.0);
  EXPECT_EQ(p.bits, fullPattern(Operand::A, m, k, 32).bits);
}

TEST_P(PatternDefinition, SingleNonZeroInATile) {
  auto [m, n, k] = GetParam();
  std::mt19937 rng(static_cast<unsigned>(m * 31 + k));
  for (int trial = 0; trial < 8; ++trial) {
    Matrix a(m, k), b(k, n);
    int r = static_cast<int>(rng() % m), c = static_cast<int>(rng() % n), kk = static_cast<int>(rng() % k);
    a(r, kk) = -3.0f;
    b(kk, c) = 0.5f;
    expectMatchesDefinition(a, b);
    Pattern pa = buildAPattern(a, 8);
    int set = 0;
    for (std::uint8_t byte : pa.bits) set += std::popcount(byte);
    EXPECT_EQ(set, 1);
    EXPECT_EQ(pa.at(r / 8, kk / 8), 1 << (kk % 8));
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, PatternDefinition,
                         ::testing::Values(PatternShape{1, 1, 1}, PatternShape{7, 13, 5}, PatternShape{100, 37, 259},
                                           PatternShape{64, 64, 64}, PatternShape{65, 33, 9}, PatternShape{130, 70, 136}));

TEST(Patterns, NegativeZeroIsZeroAndNaNIsNot) {
  Matrix a(8, 8);
  a(0, 0) = -0.0f;
  a(1, 1) = std::nanf("");
  Pattern p = buildAPattern(a, 8);
  EXPECT_EQ(p.at(0, 0), 0b10);
}

TEST(Patterns, DensityCountsOnlyRealBits) {
  Matrix a = generate("uniform", Operand::A, 10, 5, 1.0, 1);  // K = 5: three bits of the K-block do not exist
  EXPECT_DOUBLE_EQ(buildAPattern(a, 8).density(), 1.0);
}

TEST(JointStats, MatchesBruteForce) {
  Matrix a = generate("segments", Operand::A, 100, 259, 0.5, 3);
  Matrix b = generate("segments", Operand::B, 259, 37, 0.5, 4);
  Pattern pa = buildAPattern(a, 8), pb = buildBPattern(b, 32);
  JointStats s = computeJointStats(pa, pb);
  double kept = 0.0;
  for (int rt = 0; rt < pa.tiles; ++rt) {
    for (int ct = 0; ct < pb.tiles; ++ct) {
      int bits = 0;
      for (int kb = 0; kb < pa.kBlocks; ++kb) bits += std::popcount(jointPattern(pa, pb, rt, ct, kb));
      EXPECT_FLOAT_EQ(s.work(rt, ct), static_cast<float>(bits) / 259.0f);
      kept += static_cast<double>(bits) * pa.tileExtent(rt) * pb.tileExtent(ct);
    }
  }
  EXPECT_NEAR(s.jointDensity, kept / (100.0 * 37 * 259), 1e-12);
  EXPECT_NEAR(s.idealSpeedup(), 1.0 / s.jointDensity, 1e-9);
}

TEST(JointStats, IndependentHalvesGiveAQuarter) {
  GeneratorOptions options;
  options.block = 32;
  Matrix a = generate("segments", Operand::A, 1024, 1024, 0.5, 1, options);
  Matrix b = generate("segments", Operand::B, 1024, 1024, 0.5, 2, options);
  JointStats s = computeJointStats(buildAPattern(a, 32), buildBPattern(b, 32));
  EXPECT_NEAR(s.jointDensity, 0.25, 0.02);
  // Coarser A tiles (64 rows over two independent 32-row segments) keep more work.
  JointStats coarse = computeJointStats(buildAPattern(a, 64), buildBPattern(b, 32));
  EXPECT_NEAR(coarse.jointDensity, 0.375, 0.03);
}

TEST(JointStats, DenseKernelKeepsEverything) {
  Matrix a = generate("uniform", Operand::A, 50, 30, 0.1, 1), b = generate("uniform", Operand::B, 30, 20, 0.1, 1);
  EXPECT_DOUBLE_EQ(kernelWork(kernelInfo("warptile"), a, b).jointDensity, 1.0);
  EXPECT_LT(kernelWork(kernelInfo("joint-8x32"), a, b).jointDensity, 1.0);
}

TEST(JointStats, RejectsMismatchedK) {
  Matrix a(8, 16), b(24, 8);
  EXPECT_THROW(computeJointStats(buildAPattern(a, 8), buildBPattern(b, 8)), InputError);
}
