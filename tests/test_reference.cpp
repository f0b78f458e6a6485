#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/model/error.hpp"
#include "core/model/generators.hpp"
#include "core/model/reference.hpp"

using namespace tileskip;

TEST(Reference, SgemmAgreesWithFloat64) {
  for (auto [m, n, k] : {std::tuple{1, 1, 1}, std::tuple{7, 13, 5}, std::tuple{100, 37, 259}, std::tuple{200, 300, 1000}}) {
    Matrix a = generate("uniform", Operand::A, m, k, 0.7, 1), b = generate("uniform", Operand::B, k, n, 0.7, 1);
    ErrorReport e = compareToReference(referenceSgemm(a, b), referenceProduct(a, b));
    EXPECT_TRUE(e.passed) << e.summary();
    EXPECT_LT(e.worstRatio, 0.25) << e.summary();
  }
}

TEST(Reference, ProductAndMagnitudeInFloat64) {
  Matrix a(1, 3), b(3, 1);
  float av[] = {1e8f, 1.0f, -1e8f}, bv[] = {1.0f, 1.0f, 1.0f};
  std::copy(av, av + 3, a.data());
  std::copy(bv, bv + 3, b.data());
  ReferenceProduct r = referenceProduct(a, b);
  EXPECT_EQ(r.at(0, 0), 1.0);  // fp32 summation in this order gives 0
  EXPECT_EQ(r.magnitudeAt(0, 0), 2e8 + 1);
  EXPECT_EQ(r.rounded()(0, 0), 1.0f);
}

TEST(Reference, ExactOnSmallIntegers) {
  Matrix a(2, 3), b(3, 2);
  float av[] = {1, 2, 3, 4, 5, 6}, bv[] = {7, 8, 9, 10, 11, 12};
  std::copy(av, av + 6, a.data());
  std::copy(bv, bv + 6, b.data());
  Matrix c = referenceExact(a, b);
  EXPECT_EQ(c(0, 0), 58);
  EXPECT_EQ(c(0, 1), 64);
  EXPECT_EQ(c(1, 0), 139);
  EXPECT_EQ(c(1, 1), 154);
}

TEST(ErrorMeasure, CatchesOneWrongElementInALargeMatrix) {
  Matrix a = generate("uniform", Operand::A, 256, 1024, 1.0, 3), b = generate("uniform", Operand::B, 1024, 256, 1.0, 3);
  ReferenceProduct ref = referenceProduct(a, b);
  Matrix c = ref.rounded();
  EXPECT_TRUE(compareToReference(c, ref).passed);
  // Drop a single rank-1 product from a single output element.
  c(17, 33) -= a(17, 500) * b(500, 33);
  ErrorReport e = compareToReference(c, ref);
  EXPECT_FALSE(e.passed);
  EXPECT_EQ(e.beyondBound, 1u);
  EXPECT_EQ(e.worstRow, 17);
  EXPECT_EQ(e.worstCol, 33);
}

// Regression: lavapipe ended the K loop early and ones(1, 52230) · ones(52230, 1) came
// out as 52216, "verified". One product short must fail already.
TEST(ErrorMeasure, OnesWithOneProductDroppedFail) {
  const int k = 52230;
  Matrix a(1, k), b(k, 1);
  std::fill(a.values().begin(), a.values().end(), 1.0f);
  std::fill(b.values().begin(), b.values().end(), 1.0f);
  ReferenceProduct ref = referenceProduct(a, b);
  Matrix c(1, 1);
  c(0, 0) = 52230.0f;
  EXPECT_TRUE(compareToReference(c, ref).passed);
  EXPECT_TRUE(compareToReference(referenceSgemm(a, b), ref).passed);
  for (float dropped : {52229.0f, 52216.0f, 52231.0f}) {
    c(0, 0) = dropped;
    ErrorReport e = compareToReference(c, ref);
    EXPECT_FALSE(e.passed) << dropped;
    // The summary says which element and by how much.
    EXPECT_NE(e.summary().find("C(0,0) = " + std::to_string(static_cast<int>(dropped)) + " vs 52230"), std::string::npos)
        << e.summary();
  }
}

// One element of a float32 C summed as a sequential kernel does: a chain of fused multiply-adds.
float sequentialDot(const Matrix& a, const Matrix& b, int i, int j) {
  float sum = 0.0f;
  for (int p = 0; p < a.cols(); ++p) sum = std::fma(a(i, p), b(p, j), sum);
  return sum;
}

Matrix sequentialProduct(const Matrix& a, const Matrix& b) {
  Matrix c(a.rows(), b.cols());
  for (int i = 0; i < a.rows(); ++i) {
    for (int j = 0; j < b.cols(); ++j) c(i, j) = sequentialDot(a, b, i, j);
  }
  return c;
}

// Regression: rows of A sum terms of ~1e4 to ~1, so fp32 rounding is large against C
// itself though not against |A|·|B|. A C as close to float64 as OpenBLAS's must pass.
TEST(ErrorMeasure, CancellationAsAccurateAsTheReferencePasses) {
  const int m = 64, k = 256, n = 8;
  Matrix a(m, k), b(k, n);
  std::mt19937 rng(14);
  std::uniform_real_distribution<double> spread(0.5, 1.5);
  for (int i = 0; i < m; ++i) {
    double sum = 0.0;
    for (int p = 0; p + 1 < k; ++p) {
      a(i, p) = static_cast<float>((p % 2 == 0 ? 1e4 : -1e4) * spread(rng));
      sum += a(i, p);
    }
    a(i, k - 1) = static_cast<float>(1.0 - sum);
  }
  std::fill(b.values().begin(), b.values().end(), 1.0f);
  ReferenceProduct ref = referenceProduct(a, b);
  for (const Matrix& c : {sequentialProduct(a, b), referenceSgemm(a, b)}) {
    ErrorReport e = compareToReference(c, ref);
    EXPECT_TRUE(e.passed) << e.summary();
    EXPECT_GT(e.relativeFrobenius, 1e-4) << "not the cancellation regime";
  }
}

// The measure's worst case: positive data, where |A|·|B| = |A·B|, summed sequentially in fp32.
// docs/testing.md derives c(K) from this.
TEST(ErrorMeasure, SequentialSumsOfPositiveDataPass) {
  for (int k : {16, 1000, 4096}) {
    Matrix a = generate("uniform", Operand::A, 48, k, 1.0, 5), b = generate("uniform", Operand::B, k, 48, 1.0, 6);
    for (float& v : a.values()) v = std::abs(v);
    for (float& v : b.values()) v = std::abs(v);
    ErrorReport e = compareToReference(sequentialProduct(a, b), referenceProduct(a, b));
    EXPECT_TRUE(e.passed) << "K = " << k << ": " << e.summary();
  }
}

TEST(ErrorMeasure, CatchesTf32LikeRounding) {
  Matrix a = generate("uniform", Operand::A, 64, 4096, 1.0, 5), b = generate("uniform", Operand::B, 4096, 64, 1.0, 5);
  // TF32 keeps 10 mantissa bits; emulate by rounding the inputs.
  auto tf32 = [](Matrix m) {
    for (float& v : m.values()) v = std::ldexp(std::round(std::ldexp(v, 10 - std::ilogb(v))), std::ilogb(v) - 10);
    return m;
  };
  ReferenceProduct ref = referenceProduct(a, b);
  EXPECT_FALSE(compareToReference(referenceExact(tf32(a), tf32(b)), ref).passed);
  EXPECT_TRUE(compareToReference(referenceSgemm(a, b), ref).passed);
}

TEST(ErrorMeasure, UnwrittenNaNFailsAndAllZeroNeedsExactZero) {
  ReferenceProduct ref = referenceProduct(Matrix(4, 8), Matrix(8, 4));
  Matrix c(4, 4);
  EXPECT_TRUE(compareToReference(c, ref).passed);
  c(3, 3) = 1e-30f;
  EXPECT_FALSE(compareToReference(c, ref).passed);
  c(3, 3) = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(compareToReference(c, ref).passed);
}

TEST(ErrorMeasure, ProductsBeyondFp32RangeAreInfInC) {
  Matrix a(1, 1), b(1, 1), c(1, 1);
  a(0, 0) = b(0, 0) = 1e30f;
  c(0, 0) = std::numeric_limits<float>::infinity();
  ErrorReport e = compareToReference(c, referenceProduct(a, b));
  EXPECT_TRUE(e.passed) << e.summary();
}

namespace {
// A = [Inf 0; 0 0], B = I: C = [Inf NaN; 0 0] in IEEE arithmetic.
ReferenceProduct referenceWithInfInput() {
  Matrix a(2, 2), b(2, 2);
  a(0, 0) = std::numeric_limits<float>::infinity();
  b(0, 0) = 1.0f;
  b(1, 1) = 1.0f;
  return referenceProduct(a, b);
}
}  // namespace

TEST(ErrorMeasure, NonFiniteInputsAreComputedAndReported) {
  ReferenceProduct ref = referenceWithInfInput();
  EXPECT_TRUE(ref.inputsNonFinite);
  EXPECT_TRUE(std::isinf(ref.at(0, 0)));
  EXPECT_TRUE(std::isnan(ref.at(0, 1)));  // Inf · 0 in IEEE arithmetic
  Matrix skipped = ref.rounded();
  skipped(0, 1) = 0.0f;  // a skipping kernel never forms Inf · 0
  ErrorReport e = compareToReference(skipped, ref);
  EXPECT_TRUE(e.passed);
  EXPECT_EQ(e.mismatchedNonFinite, 1u);
  EXPECT_NE(e.summary().find("NaN/Inf"), std::string::npos);
}

TEST(ErrorMeasure, NonFiniteInputsExcuseNoNaNWhereTheReferenceIsFinite) {
  // An element a kernel never wrote (still the NaN poison) is no skipped 0·Inf product: with
  // NaN/Inf in the inputs it must fail all the same.
  ReferenceProduct ref = referenceWithInfInput();
  Matrix unwritten = ref.rounded();
  unwritten(1, 1) = std::numeric_limits<float>::quiet_NaN();  // the reference has 0 there
  ErrorReport e = compareToReference(unwritten, ref);
  EXPECT_FALSE(e.passed);
  EXPECT_EQ(e.nonFiniteWhereReferenceFinite, 1u);
  EXPECT_NE(e.summary().find("1 where the reference is finite"), std::string::npos) << e.summary();
}

TEST(ErrorMeasure, WhereTheReferenceIsInfCMustBeThatInf) {
  // C(0,0) = Inf · 1: no zero took part, so no skipped product explains another value there.
  ReferenceProduct ref = referenceWithInfInput();
  for (float wrong : {1.0f, -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    Matrix c = ref.rounded();
    c(0, 0) = wrong;
    ErrorReport e = compareToReference(c, ref);
    EXPECT_FALSE(e.passed) << wrong;
    EXPECT_EQ(e.infinityMismatches, 1u) << wrong;
    EXPECT_NE(e.summary().find("1 where the reference is Inf"), std::string::npos) << e.summary();
  }
}

// 3e38 + 3e38 - 3e38 is 3e38 in float64 but overflows to Inf summed left to right in fp32, as the
// host BLAS and every kernel sum it: the inputs' scale, not a wrong C. Any finite answer is still
// held to its bound.
TEST(ErrorMeasure, Fp32PartialSumsThatOverflowAreReportedNotFailed) {
  Matrix a(1, 3), b(3, 1);
  a(0, 0) = a(0, 1) = 3e38f;
  a(0, 2) = -3e38f;
  b(0, 0) = b(1, 0) = b(2, 0) = 1.0f;
  const ReferenceProduct ref = referenceProduct(a, b);
  ASSERT_DOUBLE_EQ(ref.at(0, 0), static_cast<double>(3e38f));
  Matrix c(1, 1);
  referenceSgemm(a, b, c);
  ASSERT_FALSE(std::isfinite(c(0, 0))) << "the host's fp32 sum overflows";
  for (float got : {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    c(0, 0) = got;
    ErrorReport e = compareToReference(c, ref);
    EXPECT_TRUE(e.passed) << e.summary();
    EXPECT_EQ(e.partialSumOverflows, 1u);
    EXPECT_EQ(e.summary().find("closest ;"), std::string::npos) << e.summary();
    EXPECT_NE(e.summary().find("exceeds fp32's range"), std::string::npos) << e.summary();
  }
  c(0, 0) = 3e38f;
  EXPECT_TRUE(compareToReference(c, ref).passed);
  c(0, 0) = 1.0f;
  EXPECT_FALSE(compareToReference(c, ref).passed);
  // Where the inputs are finite and |A|·|B| is in range, an Inf is still a wrong C.
  Matrix small(1, 3), ones(3, 1);
  small(0, 0) = 2.0f;
  ones(0, 0) = ones(1, 0) = ones(2, 0) = 1.0f;
  Matrix inf(1, 1);
  inf(0, 0) = std::numeric_limits<float>::infinity();
  ErrorReport e = compareToReference(inf, referenceProduct(small, ones));
  EXPECT_FALSE(e.passed);
  EXPECT_EQ(e.partialSumOverflows, 0u);
  EXPECT_NE(e.summary().find("no element both finite"), std::string::npos) << e.summary();
}

TEST(ErrorMeasure, CountsNaNAndInfApart) {
  Matrix m(2, 3);
  EXPECT_EQ(countNonFinite(m).describe(), "no NaN or Inf");
  m(0, 1) = std::numeric_limits<float>::quiet_NaN();
  m(1, 2) = -std::numeric_limits<float>::infinity();
  m(1, 0) = std::numeric_limits<float>::infinity();
  NonFiniteCount count = countNonFinite(m);
  EXPECT_EQ(count.nan, 1u);
  EXPECT_EQ(count.inf, 2u);
  EXPECT_EQ(count.describe(), "1 NaN and 2 Inf");
}

TEST(Reference, RejectsMismatchedShapes) {
  EXPECT_THROW(referenceSgemm(Matrix(2, 3), Matrix(4, 2)), InputError);
}
