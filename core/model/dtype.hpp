// The input precisions of the tensor-core kernels. Every matrix in the host code is
// fp32; a problem in another precision holds fp32 values that are exactly representable in it
// (rounded once, on the host, the way the GPU's cvt.rn rounds), so the float64 reference of the
// rounded inputs is the exact answer the kernel should approach, and the 16-bit copies a kernel
// reads on the device lose nothing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tileskip {

class Matrix;

enum class DType {
  Fp32,  // IEEE single: every kernel's default
  Tf32,  // fp32 storage, 10 explicit mantissa bits (the tensor cores' TF32 mode)
  Fp16,  // IEEE half: 5 exponent bits, 10 mantissa bits
  Bf16,  // bfloat16: fp32's 8 exponent bits, 7 mantissa bits
};

// The input precisions a kernel takes, as a set (the catalogue's KernelStructure::dtypes).
class DTypeSet {
 public:
  constexpr DTypeSet() = default;
  template <class... Types>
  static constexpr DTypeSet of(Types... types) {
    DTypeSet set;
    ((set.bits_ |= bit(types)), ...);
    return set;
  }
  constexpr bool contains(DType type) const { return (bits_ & bit(type)) != 0; }
  constexpr DTypeSet with(DType type) const {
    DTypeSet set = *this;
    set.bits_ |= bit(type);
    return set;
  }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr bool operator==(const DTypeSet&) const = default;

 private:
  static constexpr unsigned bit(DType type) { return 1u << static_cast<unsigned>(type); }
  unsigned bits_ = 0;
};

inline constexpr DTypeSet kFp32Inputs = DTypeSet::of(DType::Fp32);
inline constexpr DTypeSet kHalfInputs = DTypeSet::of(DType::Fp16, DType::Bf16);
inline constexpr DTypeSet kEveryInput = DTypeSet::of(DType::Fp32, DType::Tf32, DType::Fp16, DType::Bf16);
// The types a matrix is stored in (tf32 is a compute mode of fp32 storage).
inline constexpr DTypeSet kStoredInputs = DTypeSet::of(DType::Fp32, DType::Fp16, DType::Bf16);

std::string_view dtypeName(DType type);

// "fp16, bf16": the names in `set`, in DType's order.
std::string dtypeNames(DTypeSet set);

// "fp32", "tf32", "fp16" or "bf16"; InputError naming the accepted names for anything else.
DType parseDType(std::string_view name);

// "fp32, tf32, fp16, bf16", for help texts and errors.
std::string dtypeNames();

// x rounded to the nearest value of `type`, ties to even, as cvt.rn does: fp16 overflows to
// infinity beyond its largest finite value and keeps subnormals; a NaN stays a NaN (quiet).
float roundTo(DType type, float x);

// Every element of `m` rounded to `type` in place.
void roundMatrix(Matrix& m, DType type);

// The 16 bits of x rounded to fp16 or bf16 (InputError for the 32-bit types), and back: for a
// value already representable, fromHalfBits(type, halfBits(type, x)) == x.
std::uint16_t halfBits(DType type, float x);
float fromHalfBits(DType type, std::uint16_t bits);

// 2^-p for p significand bits (24, 11, 11, 8): the relative rounding error of one rounding.
double unitRoundoff(DType type);

// The largest finite value of `type`: 65504 for fp16; bf16 and tf32 keep fp32's exponent but fewer
// significand bits, so theirs lie just below fp32's, and fp32 values above them round to infinity.
float largestFinite(DType type);

}  // namespace tileskip
