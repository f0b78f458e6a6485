#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/generators.hpp"
#include "core/reference.hpp"

using namespace tileskip;

TEST(Reference, SgemmAgreesWithFloat64) {
  for (auto [m, n, k] : {std::tuple{1, 1, 1}, std::tuple{7, 13, 5}, std::tuple{100, 37, 259}, std::tuple{200, 300, 1000}}) {
    Matrix a = generate("uniform", Operand::A, m, k, 0.7, 1), b = generate("uniform", Operand::B, k, n, 0.7, 1);
    ErrorReport e = compareToReference(referenceSgemm(a, b), referenceExact(a, b), k);
    EXPECT_TRUE(e.passed) << e.summary();
    EXPECT_LT(e.relativeFrobenius, e.tolerance / 4);
  }
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
  Matrix ref = referenceExact(a, b);
  Matrix c = ref;
  // Drop a single rank-1 product from a single output element.
  c(17, 33) -= a(17, 500) * b(500, 33);
  EXPECT_FALSE(compareToReference(c, ref, 1024).passed);
}

TEST(ErrorMeasure, CatchesTf32LikeRounding) {
  Matrix a = generate("uniform", Operand::A, 64, 4096, 1.0, 5), b = generate("uniform", Operand::B, 4096, 64, 1.0, 5);
  // TF32 keeps 10 mantissa bits; emulate by rounding the inputs.
  auto tf32 = [](Matrix m) {
    for (float& v : m.values()) v = std::ldexp(std::round(std::ldexp(v, 10 - std::ilogb(v))), std::ilogb(v) - 10);
    return m;
  };
  EXPECT_FALSE(compareToReference(referenceExact(tf32(a), tf32(b)), referenceExact(a, b), 4096).passed);
  EXPECT_TRUE(compareToReference(referenceSgemm(a, b), referenceExact(a, b), 4096).passed);
}

TEST(ErrorMeasure, UnwrittenNaNFailsAndAllZeroNeedsExactZero) {
  Matrix ref(4, 4), c(4, 4);
  EXPECT_TRUE(compareToReference(c, ref, 8).passed);
  c(3, 3) = 1e-30f;
  EXPECT_FALSE(compareToReference(c, ref, 8).passed);
  c(3, 3) = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(compareToReference(c, ref, 8).passed);
}

namespace {
// A = [Inf 0; 0 0], B = I: C = [Inf NaN; 0 0] in IEEE arithmetic.
Matrix referenceWithInfInput() {
  Matrix a(2, 2), b(2, 2);
  a(0, 0) = std::numeric_limits<float>::infinity();
  b(0, 0) = 1.0f;
  b(1, 1) = 1.0f;
  return referenceExact(a, b);
}
}  // namespace

TEST(ErrorMeasure, NonFiniteInputsAreComputedAndReported) {
  Matrix ref = referenceWithInfInput();
  EXPECT_TRUE(std::isinf(ref(0, 0)));
  EXPECT_TRUE(std::isnan(ref(0, 1)));  // Inf · 0 in IEEE arithmetic
  Matrix skipped = ref;
  skipped(0, 1) = 0.0f;  // a skipping kernel never forms Inf · 0
  ErrorReport e = compareToReference(skipped, ref, 2, /*inputsNonFinite=*/true);
  EXPECT_TRUE(e.passed);
  EXPECT_EQ(e.mismatchedNonFinite, 1u);
  EXPECT_NE(e.summary().find("NaN/Inf"), std::string::npos);
}

TEST(ErrorMeasure, NonFiniteInputsExcuseNoNaNWhereTheReferenceIsFinite) {
  // An element a kernel never wrote (still the NaN poison) is no skipped 0·Inf product: with
  // NaN/Inf in the inputs it must fail all the same.
  Matrix ref = referenceWithInfInput();
  Matrix unwritten = ref;
  unwritten(1, 1) = std::numeric_limits<float>::quiet_NaN();  // the reference has 0 there
  ErrorReport e = compareToReference(unwritten, ref, 2, /*inputsNonFinite=*/true);
  EXPECT_FALSE(e.passed);
  EXPECT_EQ(e.nonFiniteWhereReferenceFinite, 1u);
  EXPECT_NE(e.summary().find("1 where the reference is finite"), std::string::npos) << e.summary();
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
