#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <functional>
#include <vector>
#include <cmath>

#include "core/model/error.hpp"
#include "core/model/generators.hpp"
#include "core/model/pattern.hpp"

using namespace tileskip;

namespace {
double density(const Matrix& m) { return static_cast<double>(m.countNonZeros()) / static_cast<double>(m.size()); }
}  // namespace

class GeneratorDensity : public ::testing::TestWithParam<std::tuple<std::string, double>> {};

TEST_P(GeneratorDensity, HitsItsDensity) {
  auto [name, target] = GetParam();
  Matrix a = generate(name, Operand::A, 512, 512, target, 11);
  Matrix b = generate(name, Operand::B, 512, 512, target, 11);
  // Four standard deviations of the number of independent choices each generator makes:
  // 262144 elements, 1024 segments of 32x8, 256 blocks of 32x32; the rest are (near) exact.
  double slack = name == "blocks" ? 0.13 : name == "segments" ? 0.07 : name == "uniform" ? 0.01 : 0.02;
  if (name == "nm") target = std::round(target * 4) / 4;  // N:M densities come in steps of 1/M
  EXPECT_NEAR(density(a), target, slack) << name;
  EXPECT_NEAR(density(b), target, slack) << name;
}

INSTANTIATE_TEST_SUITE_P(AllGenerators, GeneratorDensity,
                         ::testing::Combine(::testing::Values("uniform", "segments", "blocks", "nm", "banded", "relu", "neurons"),
                                            ::testing::Values(0.0, 0.1, 0.5, 0.9, 1.0)));

TEST(Generators, SameSeedSameMatrixOtherSeedOther) {
  Matrix a = generate("uniform", Operand::A, 64, 64, 0.5, 1);
  Matrix b = generate("uniform", Operand::A, 64, 64, 0.5, 1);
  Matrix c = generate("uniform", Operand::A, 64, 64, 0.5, 2);
  Matrix d = generate("uniform", Operand::B, 64, 64, 0.5, 1);
  EXPECT_TRUE(std::equal(a.values().begin(), a.values().end(), b.values().begin()));
  EXPECT_FALSE(std::equal(a.values().begin(), a.values().end(), c.values().begin()));
  EXPECT_FALSE(std::equal(a.values().begin(), a.values().end(), d.values().begin()));
}

TEST(Generators, DenseMeansNoZeroAtAll) {
  // Values are drawn away from zero, so density 1 leaves no accidental zero anywhere.
  for (const GeneratorInfo& g : generators()) {
    Matrix m = generate(g.name, Operand::A, 37, 300, 1.0, 5);
    EXPECT_EQ(m.countNonZeros(), m.size()) << g.name;
  }
}

TEST(Generators, SegmentsAlignWithPatternTiles) {
  GeneratorOptions options;
  options.block = 32;
  Matrix a = generate("segments", Operand::A, 100, 88, 0.5, 3, options);
  Matrix b = generate("segments", Operand::B, 88, 100, 0.5, 3, options);
  // Every A-pattern byte at 32 rows is all-or-nothing, likewise B at 32 columns.
  for (std::uint8_t byte : buildAPattern(a, 32).bits) EXPECT_TRUE(byte == 0 || byte == 0xff);
  for (std::uint8_t byte : buildBPattern(b, 32).bits) EXPECT_TRUE(byte == 0 || byte == 0xff);
}

TEST(Generators, BlocksAreWholeBlocks) {
  GeneratorOptions options;
  options.block = 16;
  Matrix m = generate("blocks", Operand::A, 64, 64, 0.5, 9, options);
  for (int br = 0; br < 4; ++br) {
    for (int bc = 0; bc < 4; ++bc) {
      int nonZeros = 0;
      for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) nonZeros += m(br * 16 + r, bc * 16 + c) != 0.0f;
      EXPECT_TRUE(nonZeros == 0 || nonZeros == 256);
    }
  }
}

TEST(Generators, TwoOfFourAlongK) {
  Matrix a = generate("nm", Operand::A, 16, 64, 0.5, 4);
  for (int r = 0; r < 16; ++r)
    for (int k0 = 0; k0 < 64; k0 += 4) {
      int kept = 0;
      for (int k = k0; k < k0 + 4; ++k) kept += a(r, k) != 0.0f;
      EXPECT_EQ(kept, 2);
    }
  Matrix b = generate("nm", Operand::B, 64, 16, 0.5, 4);
  for (int c = 0; c < 16; ++c)
    for (int k0 = 0; k0 < 64; k0 += 4) {
      int kept = 0;
      for (int k = k0; k < k0 + 4; ++k) kept += b(k, c) != 0.0f;
      EXPECT_EQ(kept, 2);
    }
}

TEST(Generators, ReluIsNonNegativeAndClustered) {
  Matrix m = generate("relu", Operand::A, 256, 256, 0.3, 8);
  for (float v : m.values()) EXPECT_GE(v, 0.0f);
  // Clustering: the row densities spread far wider than independent Bernoulli rows would.
  double sumSquares = 0.0;
  for (int r = 0; r < 256; ++r) {
    int nz = 0;
    for (int c = 0; c < 256; ++c) nz += m(r, c) != 0.0f;
    sumSquares += std::pow(nz / 256.0 - 0.3, 2);
  }
  double spread = std::sqrt(sumSquares / 256);
  EXPECT_GT(spread, 5 * std::sqrt(0.3 * 0.7 / 256));
}

// Each K index a neuron: how often it fires follows a power law over the neurons (the top tenth
// fire about half the time at skew 1, a tenth of it at skew 0), the hot ones scattered over K,
// the values positive; the neurons are A's columns and B's rows.
TEST(Generators, NeuronsFireByAPowerLawOverK) {
  auto topTenthShare = [](std::vector<int> fired) {
    std::sort(fired.begin(), fired.end(), std::greater<>());
    double top = 0.0, all = 0.0;
    for (std::size_t i = 0; i < fired.size(); ++i) (i < fired.size() / 10 ? top : all) += fired[i];
    return top / (top + all);
  };
  for (double skew : {0.0, 1.0}) {
    GeneratorOptions options;
    options.skew = skew;
    const Matrix a = generate("neurons", Operand::A, 2048, 512, 0.1, 4, options);
    const Matrix b = generate("neurons", Operand::B, 512, 2048, 0.1, 4, options);
    std::vector<int> byColumn(512), byRow(512);
    for (int r = 0; r < 2048; ++r) {
      for (int k = 0; k < 512; ++k) {
        EXPECT_GE(a(r, k), 0.0f);
        byColumn[k] += a(r, k) != 0.0f;
        byRow[k] += b(k, r) != 0.0f;
      }
    }
    EXPECT_NEAR(density(a), 0.1, 0.005) << skew;
    if (skew == 0.0) {
      EXPECT_LT(topTenthShare(byColumn), 0.13);
      EXPECT_LT(topTenthShare(byRow), 0.13);
    } else {
      EXPECT_GT(topTenthShare(byColumn), 0.45);
      EXPECT_GT(topTenthShare(byRow), 0.45);
      // Scattered: the hottest neuron is not simply the first.
      EXPECT_NE(std::max_element(byColumn.begin(), byColumn.end()) - byColumn.begin(), 0);
    }
  }
}

TEST(Generators, RejectsBadInput) {
  EXPECT_THROW(generate("uniform", Operand::A, 8, 8, 1.5, 1), InputError);
  EXPECT_THROW(generate("uniform", Operand::A, 8, 8, -0.1, 1), InputError);
  EXPECT_THROW(generate("uniform", Operand::A, 8, 8, std::nan(""), 1), InputError);
  EXPECT_THROW(generate("nope", Operand::A, 8, 8, 0.5, 1), InputError);
  EXPECT_THROW(generate("uniform", Operand::A, 0, 8, 0.5, 1), InputError);
  GeneratorOptions zero;
  zero.block = 0;
  EXPECT_THROW(generate("segments", Operand::A, 8, 8, 0.5, 1, zero), InputError);
  for (double skew : {-0.5, kMaxNeuronSkew + 1.0, std::nan(""), static_cast<double>(INFINITY)}) {
    GeneratorOptions bad;
    bad.skew = skew;
    EXPECT_THROW(generate("neurons", Operand::A, 8, 8, 0.5, 1, bad), InputError) << skew;
  }
}

// An MLP layer whose ReLU fires each hidden unit with its own probability: on many tokens the
// fraction of H that is non-zero is the density asked for, the units' own rates spread as a power
// law (the hottest fire on most tokens, the median one rarely), and the shapes chain.
TEST(Generators, MlpLayerFiresItsUnitsAtTheirPowerLawRates) {
  const MlpLayerOperands layer = generateMlpLayer(2000, 48, 300, 20, 0.1, 2.0, 7);
  ASSERT_EQ(layer.x.rows(), 2000);
  ASSERT_EQ(layer.x.cols(), 48);
  ASSERT_EQ(layer.w1.rows(), 48);
  ASSERT_EQ(layer.w1.cols(), 300);
  ASSERT_EQ(layer.w2.rows(), 300);
  ASSERT_EQ(layer.w2.cols(), 20);
  for (int i = 0; i < 2000; ++i) ASSERT_EQ(layer.x(i, 47), 1.0f);
  std::vector<int> fired(300, 0);
  long long total = 0;
  for (int i = 0; i < 2000; ++i) {
    for (int j = 0; j < 300; ++j) {
      double z = 0.0;
      for (int c = 0; c < 48; ++c) z += static_cast<double>(layer.x(i, c)) * layer.w1(c, j);
      if (z > 0.0) ++fired[static_cast<std::size_t>(j)], ++total;
    }
  }
  EXPECT_NEAR(static_cast<double>(total) / (2000.0 * 300.0), 0.1, 0.01);
  std::sort(fired.begin(), fired.end());
  EXPECT_GT(fired.back(), 1500);   // the hottest unit fires on nearly every token
  EXPECT_LT(fired[150], 60);       // the median one on under 3 %
  EXPECT_EQ(generateMlpLayer(5, 4, 6, 3, 0.5, 1.0, 1).w1(1, 2), generateMlpLayer(5, 4, 6, 3, 0.5, 1.0, 1).w1(1, 2));
  EXPECT_THROW(generateMlpLayer(5, 1, 6, 3, 0.5, 1.0, 1), InputError);
  EXPECT_THROW(generateMlpLayer(5, 4, 6, 3, 0.0, 1.0, 1), InputError);
  EXPECT_THROW(generateMlpLayer(5, 4, 6, 3, std::nan(""), 1.0, 1), InputError);
}
