#include "core/model/dtype.hpp"

#include <bit>
#include <cmath>
#include <limits>

#include "core/model/error.hpp"
#include "core/model/matrix.hpp"

namespace tileskip {

namespace {

constexpr DType kAll[] = {DType::Fp32, DType::Tf32, DType::Fp16, DType::Bf16};

constexpr std::uint32_t kSign = 0x80000000u, kMagnitude = 0x7FFFFFFFu, kInfinity = 0x7F800000u;
constexpr std::uint32_t kQuietNaN = 0x7FC00000u;  // representable in every type here

bool isNaN(std::uint32_t bits) { return (bits & kMagnitude) > kInfinity; }

// Drops the low `dropped` bits of an fp32 value, rounding to nearest, ties to even; a carry into
// the exponent is the correct result (up to infinity).
std::uint32_t roundAway(std::uint32_t bits, int dropped) {
  if (isNaN(bits)) return (bits & kSign) | kQuietNaN;
  const std::uint32_t half = (1u << (dropped - 1)) - 1u;
  const std::uint32_t lsb = (bits >> dropped) & 1u;
  return (bits + half + lsb) & ~((1u << dropped) - 1u);
}

// fp16 from fp32 bits, round to nearest even, subnormals kept, overflow to infinity.
std::uint16_t toFp16(std::uint32_t bits) {
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & kMagnitude;
  if (magnitude > kInfinity) return sign | 0x7E00u;
  // 65520 = 65504 + half its last step: it and above round to infinity (65504's mantissa is odd).
  if (magnitude >= 0x477FF000u) return sign | 0x7C00u;
  const int exponent = static_cast<int>(magnitude >> 23);
  std::uint32_t result = 0, remainder = 0, halfway = 0;
  if (exponent >= 113) {  // fp16 normal: 2^-14 and above
    const std::uint32_t mantissa = magnitude & 0x7FFFFFu;
    result = (static_cast<std::uint32_t>(exponent - 112) << 10) | (mantissa >> 13);
    remainder = mantissa & 0x1FFFu;
    halfway = 0x1000u;
  } else {  // fp16 subnormal (or zero): units of 2^-24
    if (magnitude <= 0x33000000u) return sign;  // 2^-25 and below: a tie at most, to even (zero)
    const std::uint32_t mantissa = (magnitude & 0x7FFFFFu) | 0x800000u;
    const int shift = 126 - exponent;  // 14 to 24
    result = mantissa >> shift;
    remainder = mantissa & ((1u << shift) - 1u);
    halfway = 1u << (shift - 1);
  }
  if (remainder > halfway || (remainder == halfway && (result & 1u) != 0)) ++result;  // a carry makes the next exponent
  return static_cast<std::uint16_t>(sign | result);
}

float fromFp16(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
  if (exponent == 0) {  // zero or subnormal: mantissa x 2^-24, exact in fp32
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | kInfinity | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

}  // namespace

std::string_view dtypeName(DType type) {
  switch (type) {
    case DType::Fp32: return "fp32";
    case DType::Tf32: return "tf32";
    case DType::Fp16: return "fp16";
    case DType::Bf16: return "bf16";
  }
  return "?";
}

std::string dtypeNames() { return dtypeNames(kEveryInput); }

std::string dtypeNames(DTypeSet set) {
  std::string names;
  for (DType type : kAll) {
    if (set.contains(type)) names += (names.empty() ? "" : ", ") + std::string(dtypeName(type));
  }
  return names;
}

DType parseDType(std::string_view name) {
  for (DType type : kAll) {
    if (dtypeName(type) == name) return type;
  }
  throw InputError("unknown dtype '" + std::string(name) + "'; choose one of " + dtypeNames());
}

float roundTo(DType type, float x) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  switch (type) {
    case DType::Fp32: return x;
    case DType::Tf32: return std::bit_cast<float>(roundAway(bits, 13));
    case DType::Bf16: return std::bit_cast<float>(roundAway(bits, 16));
    case DType::Fp16: return fromFp16(toFp16(bits));
  }
  return x;
}

void roundMatrix(Matrix& m, DType type) {
  if (type == DType::Fp32) return;
  for (float& x : m.values()) x = roundTo(type, x);
}

std::uint16_t halfBits(DType type, float x) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  if (type == DType::Fp16) return toFp16(bits);
  if (type == DType::Bf16) return static_cast<std::uint16_t>(roundAway(bits, 16) >> 16);
  throw InputError(std::string(dtypeName(type)) + " is not a 16-bit type");
}

float fromHalfBits(DType type, std::uint16_t bits) {
  if (type == DType::Fp16) return fromFp16(bits);
  if (type == DType::Bf16) return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
  throw InputError(std::string(dtypeName(type)) + " is not a 16-bit type");
}

double unitRoundoff(DType type) {
  switch (type) {
    case DType::Fp32: return std::ldexp(1.0, -24);
    case DType::Tf32:
    case DType::Fp16: return std::ldexp(1.0, -11);
    case DType::Bf16: return std::ldexp(1.0, -8);
  }
  return 1.0;
}

float largestFinite(DType type) {
  switch (type) {
    case DType::Fp32: return std::numeric_limits<float>::max();
    case DType::Tf32: return std::bit_cast<float>(0x7F7FE000u);  // 10 significand bits kept
    case DType::Fp16: return 65504.0f;
    case DType::Bf16: return std::bit_cast<float>(0x7F7F0000u);  // 7 significand bits kept
  }
  return std::numeric_limits<float>::max();
}

}  // namespace tileskip
