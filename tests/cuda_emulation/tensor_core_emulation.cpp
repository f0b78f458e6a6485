// The tensor-core instructions of kernels/parts/mma.cuh on the CPU emulator: each is a
// warp exchange whose resolver rebuilds the warp's whole operands from every lane's registers,
// in the fragment layouts the PTX ISA gives (and parts/mma.cuh documents), and hands each lane
// its part of the result.
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_emulation.hpp"
#include "core/model/dtype.hpp"
#include "core/model/mma_layout.hpp"

namespace tileskip::emu {

namespace {

struct MmaOperands {
  unsigned a[4];
  unsigned b[2];
  float c[4];
};

std::uint16_t lowHalf(unsigned r) { return static_cast<std::uint16_t>(r & 0xFFFFu); }
std::uint16_t highHalf(unsigned r) { return static_cast<std::uint16_t>(r >> 16); }

// mmaFragment() of every lane, worked out once per input type and operand: the resolvers run per MMA.
template <DType T, MmaOperand Operand>
const std::vector<FragmentValue>& fragmentOf(int lane) {
  static const std::array<std::vector<FragmentValue>, 32> lanes = [] {
    std::array<std::vector<FragmentValue>, 32> all;
    for (int l = 0; l < 32; ++l) all[static_cast<std::size_t>(l)] = mmaFragment(T, Operand, l);
    return all;
  }();
  return lanes[static_cast<std::size_t>(lane)];
}

// What every lane's d receives: the K-deep product of the warp's A (16 x K) and B (K x 8) added onto
// the accumulator it gathers from every lane's c. Products of two 16-bit or two tf32 values are
// exact in fp32; they are summed in K order onto C.
template <DType T, int K>
void multiplyOnto(const float (&a)[16][K], const float (&b)[K][8], const void* const (&inputs)[32], void* const (&outputs)[32]) {
  float c[16][8];
  for (int lane = 0; lane < 32; ++lane) {
    const auto& in = *static_cast<const MmaOperands*>(inputs[lane]);
    const std::vector<FragmentValue>& mine = fragmentOf<T, MmaOperand::C>(lane);
    for (std::size_t i = 0; i < mine.size(); ++i) c[mine[i].row][mine[i].col] = in.c[i];
  }
  for (int lane = 0; lane < 32; ++lane) {
    float* d = static_cast<float*>(outputs[lane]);
    const std::vector<FragmentValue>& mine = fragmentOf<T, MmaOperand::C>(lane);
    for (std::size_t i = 0; i < mine.size(); ++i) {
      float sum = c[mine[i].row][mine[i].col];
      for (int k = 0; k < K; ++k) sum += a[mine[i].row][k] * b[k][mine[i].col];
      d[i] = sum;
    }
  }
}

// One input operand of the warp's MMA, rebuilt from every lane's registers in mma_layout.hpp's
// fragment layout for T: a tf32 word whole (its low mantissa bits dropped), 16-bit values low half first.
template <DType T, MmaOperand Operand, int Rows, int Cols>
void gatherOperand(const void* const (&inputs)[32], float (&into)[Rows][Cols]) {
  static_assert(Operand != MmaOperand::C, "C is fp32: multiplyOnto gathers it");
  constexpr auto kPerRegister = static_cast<std::size_t>(valuesPerRegister(T, Operand));
  for (int lane = 0; lane < 32; ++lane) {
    const auto& in = *static_cast<const MmaOperands*>(inputs[lane]);
    const unsigned* registers = Operand == MmaOperand::A ? in.a : in.b;
    const std::vector<FragmentValue>& mine = fragmentOf<T, Operand>(lane);
    for (std::size_t i = 0; i < mine.size(); ++i) {
      const unsigned r = registers[i / kPerRegister];
      into[mine[i].row][mine[i].col] =
          kPerRegister == 1 ? tf32Value(r) : fromHalfBits(T, i % kPerRegister == 0 ? lowHalf(r) : highHalf(r));
    }
  }
}

template <DType T, int K>
void resolveMma(const void* const (&inputs)[32], void* const (&outputs)[32]) {
  float a[16][K], b[K][8];
  gatherOperand<T, MmaOperand::A>(inputs, a);
  gatherOperand<T, MmaOperand::B>(inputs, b);
  multiplyOnto<T>(a, b, inputs, outputs);
}

template <bool Transposed>
void resolveLoadMatrix(const void* const (&inputs)[32], void* const (&outputs)[32]) {
  // Tile i's row r is the 8 values at lane 8 i + r's address.
  auto element = [&](int tile, int row, int col) {
    std::uint16_t v;
    std::memcpy(&v, static_cast<const unsigned char*>(*static_cast<const void* const*>(inputs[8 * tile + row])) + 2 * col, 2);
    return static_cast<unsigned>(v);
  };
  for (int lane = 0; lane < 32; ++lane) {
    unsigned* r = static_cast<unsigned*>(outputs[lane]);
    const int g = lane / 4, t = lane % 4;
    for (int tile = 0; tile < 4; ++tile) {
      r[tile] = Transposed ? element(tile, 2 * t, g) | (element(tile, 2 * t + 1, g) << 16)
                           : element(tile, g, 2 * t) | (element(tile, g, 2 * t + 1) << 16);
    }
  }
}

}  // namespace

void mmaM16N8K16(bool bf16, float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2], const char* file, int line) {
  MmaOperands in{};
  std::memcpy(in.a, a, sizeof(in.a));
  std::memcpy(in.b, b, sizeof(in.b));
  std::memcpy(in.c, d, sizeof(in.c));
  warpExchange(bf16 ? resolveMma<DType::Bf16, 16> : resolveMma<DType::Fp16, 16>, &in, d, file, line);
}

void mmaM16N8K8Tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2], const char* file, int line) {
  MmaOperands in{};
  std::memcpy(in.a, a, sizeof(in.a));
  std::memcpy(in.b, b, sizeof(in.b));
  std::memcpy(in.c, d, sizeof(in.c));
  warpExchange(resolveMma<DType::Tf32, 8>, &in, d, file, line);
}

void loadMatrixX4(unsigned (&r)[4], const void* row, bool transposed, const char* file, int line) {
  warpExchange(transposed ? resolveLoadMatrix<true> : resolveLoadMatrix<false>, &row, r, file, line);
}

namespace {
__shared__ __align__(1024) unsigned char dynamicShared[kDynamicSharedBytes];  // 1024: the swizzle's atom
}  // namespace

unsigned char* dynamicSharedMemory(std::size_t bytes) {
  if (bytes > kDynamicSharedBytes) {
    throw std::logic_error("a kernel asked for " + std::to_string(bytes) + " bytes of dynamic shared memory; a block has " +
                           std::to_string(kDynamicSharedBytes) + " at most");
  }
  return dynamicShared;
}

}  // namespace tileskip::emu
