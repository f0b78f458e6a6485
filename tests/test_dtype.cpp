// core/dtype: rounding to the tensor cores' input types as the GPU's cvt.rn rounds, checked on
// the boundaries where a rounding goes wrong (ties, the largest finite value, subnormals, NaN).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/model/dtype.hpp"
#include "core/model/matrix.hpp"
#include "core/model/error.hpp"

using namespace tileskip;

namespace {

float bitsToFloat(std::uint32_t bits) { return std::bit_cast<float>(bits); }

}  // namespace

TEST(DType, NamesParseAndUnknownNamesAreBadInput) {
  for (DType type : {DType::Fp32, DType::Tf32, DType::Fp16, DType::Bf16}) EXPECT_EQ(parseDType(dtypeName(type)), type);
  try {
    parseDType("fp8");
    ADD_FAILURE() << "fp8 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("fp32, tf32, fp16, bf16"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parseDType("FP16"), InputError);
  EXPECT_THROW(halfBits(DType::Fp32, 1.0f), InputError);
}

TEST(DType, TiesGoToTheEvenNeighbour) {
  // 1 + 2^-8 lies halfway between bf16's 1 and 1 + 2^-7: to 1 (even); 1 + 3 * 2^-8 to 1 + 2^-6.
  EXPECT_EQ(roundTo(DType::Bf16, 1.0f + std::ldexp(1.0f, -8)), 1.0f);
  EXPECT_EQ(roundTo(DType::Bf16, 1.0f + 3 * std::ldexp(1.0f, -8)), 1.0f + std::ldexp(1.0f, -6));
  EXPECT_EQ(roundTo(DType::Bf16, 1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)), 1.0f + std::ldexp(1.0f, -7));
  EXPECT_EQ(roundTo(DType::Fp16, 1.0f + std::ldexp(1.0f, -11)), 1.0f);
  EXPECT_EQ(roundTo(DType::Fp16, 1.0f + 3 * std::ldexp(1.0f, -11)), 1.0f + std::ldexp(1.0f, -9));
  EXPECT_EQ(roundTo(DType::Tf32, 1.0f + std::ldexp(1.0f, -11)), 1.0f);
  EXPECT_EQ(roundTo(DType::Tf32, 1.0f + 3 * std::ldexp(1.0f, -11)), 1.0f + std::ldexp(1.0f, -9));
  EXPECT_EQ(roundTo(DType::Fp32, 1.0f + std::ldexp(1.0f, -23)), 1.0f + std::ldexp(1.0f, -23));
  EXPECT_EQ(roundTo(DType::Bf16, -1.0f - 3 * std::ldexp(1.0f, -8)), -1.0f - std::ldexp(1.0f, -6)) << "symmetric in sign";
}

TEST(DType, Fp16OverflowsToInfinityAndKeepsSubnormals) {
  EXPECT_EQ(roundTo(DType::Fp16, 65504.0f), 65504.0f);
  EXPECT_EQ(roundTo(DType::Fp16, 65519.0f), 65504.0f);
  EXPECT_EQ(roundTo(DType::Fp16, 65520.0f), std::numeric_limits<float>::infinity());
  EXPECT_EQ(roundTo(DType::Fp16, -1e6f), -std::numeric_limits<float>::infinity());
  const float smallest = std::ldexp(1.0f, -24);  // fp16's smallest subnormal
  EXPECT_EQ(roundTo(DType::Fp16, smallest), smallest);
  EXPECT_EQ(roundTo(DType::Fp16, 3 * smallest), 3 * smallest);
  EXPECT_EQ(roundTo(DType::Fp16, std::ldexp(1.0f, -25)), 0.0f) << "a tie with zero goes to zero";
  EXPECT_EQ(roundTo(DType::Fp16, std::ldexp(1.0f, -25) * 1.0001f), smallest);
  EXPECT_EQ(roundTo(DType::Fp16, 2.5f * smallest), 2 * smallest);
  EXPECT_EQ(roundTo(DType::Fp16, 3.5f * smallest), 4 * smallest);
  EXPECT_EQ(roundTo(DType::Fp16, std::ldexp(1.0f, -14) * (1.0f - std::ldexp(1.0f, -12))), std::ldexp(1.0f, -14))
      << "the largest subnormal rounds up into the smallest normal";
  // bf16 and tf32 share fp32's exponent: fp32's largest finite value rounds up to infinity.
  EXPECT_EQ(roundTo(DType::Bf16, std::numeric_limits<float>::max()), std::numeric_limits<float>::infinity());
  EXPECT_EQ(roundTo(DType::Bf16, std::numeric_limits<float>::denorm_min()), 0.0f);
}

TEST(DType, InfinityZeroAndNaNSurvive) {
  for (DType type : {DType::Tf32, DType::Fp16, DType::Bf16}) {
    EXPECT_EQ(roundTo(type, std::numeric_limits<float>::infinity()), std::numeric_limits<float>::infinity());
    EXPECT_EQ(roundTo(type, -std::numeric_limits<float>::infinity()), -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(roundTo(type, std::numeric_limits<float>::quiet_NaN())));
    EXPECT_TRUE(std::isnan(roundTo(type, bitsToFloat(0x7F800001u)))) << "a NaN whose payload is all in the dropped bits";
    EXPECT_TRUE(std::signbit(roundTo(type, -0.0f)));
    EXPECT_EQ(roundTo(type, -0.0f), 0.0f);
  }
}

TEST(DType, EveryHalfValueRoundTripsExactly) {
  for (DType type : {DType::Fp16, DType::Bf16}) {
    for (std::uint32_t bits = 0; bits <= 0xFFFFu; ++bits) {
      const std::uint16_t h = static_cast<std::uint16_t>(bits);
      const float x = fromHalfBits(type, h);
      if (std::isnan(x)) continue;  // payloads are not kept
      ASSERT_EQ(halfBits(type, x), h) << dtypeName(type) << " 0x" << std::hex << bits;
      ASSERT_EQ(std::bit_cast<std::uint32_t>(roundTo(type, x)), std::bit_cast<std::uint32_t>(x)) << dtypeName(type) << " 0x" << std::hex << bits;
    }
  }
}

TEST(DType, RoundingMatchesTheNearestRepresentableNeighbourEverywhere) {
  // Between two adjacent fp16 values a and b, every fp32 goes to the nearer (ties to even).
  for (std::uint32_t bits = 0; bits < 0x7BFFu; bits += 37) {
    const float a = fromHalfBits(DType::Fp16, static_cast<std::uint16_t>(bits));
    const float b = fromHalfBits(DType::Fp16, static_cast<std::uint16_t>(bits + 1));
    for (float t : {0.25f, 0.49f, 0.51f, 0.75f}) {
      const float x = a + (b - a) * t;
      ASSERT_EQ(roundTo(DType::Fp16, x), t < 0.5f ? a : b) << a << " .. " << b << " at " << t;
    }
  }
}

TEST(DType, UnitRoundoffIsHalfTheGapAboveOne) {
  for (DType type : {DType::Fp32, DType::Tf32, DType::Fp16, DType::Bf16}) {
    const float gapAboveOne = 2.0f * static_cast<float>(unitRoundoff(type));
    EXPECT_EQ(roundTo(type, 1.0f + gapAboveOne), 1.0f + gapAboveOne) << dtypeName(type);
    EXPECT_EQ(roundTo(type, 1.0f + 0.75f * gapAboveOne), 1.0f + gapAboveOne) << dtypeName(type);
    EXPECT_EQ(roundTo(type, 1.0f + 0.25f * gapAboveOne), 1.0f) << dtypeName(type);
  }
}

TEST(DType, AMatrixIsRoundedInPlace) {
  Matrix m(2, 2);
  m(0, 0) = 1.0f + std::ldexp(1.0f, -10);
  m(0, 1) = 3.0f;
  m(1, 0) = -0.1f;
  m(1, 1) = 70000.0f;
  Matrix fp32 = m;
  roundMatrix(fp32, DType::Fp32);
  EXPECT_EQ(fp32(0, 0), m(0, 0));
  roundMatrix(m, DType::Fp16);
  EXPECT_EQ(m(0, 0), 1.0f + std::ldexp(1.0f, -10));
  EXPECT_EQ(m(0, 1), 3.0f);
  EXPECT_EQ(m(1, 0), roundTo(DType::Fp16, -0.1f));
  EXPECT_NE(m(1, 0), -0.1f);
  EXPECT_TRUE(std::isinf(m(1, 1)));
}
