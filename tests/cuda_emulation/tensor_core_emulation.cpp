// The tensor-core instructions of backends/cuda/mma_common.cuh on the CPU emulator: each is a
// warp exchange whose resolver rebuilds the warp's whole operands from every lane's registers,
// in the fragment layouts the PTX ISA gives (and mma_common.cuh documents), and hands each lane
// its part of the result.
#include <cstring>
#include <stdexcept>
#include <string>

#include "cuda_emulation.hpp"
#include "core/model/dtype.hpp"

namespace tileskip::emu {

namespace {

struct MmaOperands {
  unsigned a[4];
  unsigned b[2];
  float c[4];
};

std::uint16_t lowHalf(unsigned r) { return static_cast<std::uint16_t>(r & 0xFFFFu); }
std::uint16_t highHalf(unsigned r) { return static_cast<std::uint16_t>(r >> 16); }

// What every lane's d receives: the K-deep product of the warp's A (16 x K) and B (K x 8) added onto
// the accumulator it gathers from every lane's c. Products of two 16-bit or two tf32 values are
// exact in fp32; they are summed in K order onto C.
template <int K>
void multiplyOnto(const float (&a)[16][K], const float (&b)[K][8], const void* const (&inputs)[32], void* const (&outputs)[32]) {
  float c[16][8];
  for (int lane = 0; lane < 32; ++lane) {
    const auto& in = *static_cast<const MmaOperands*>(inputs[lane]);
    const int g = lane / 4, t = lane % 4;
    c[g][2 * t] = in.c[0];
    c[g][2 * t + 1] = in.c[1];
    c[g + 8][2 * t] = in.c[2];
    c[g + 8][2 * t + 1] = in.c[3];
  }
  for (int lane = 0; lane < 32; ++lane) {
    float* d = static_cast<float*>(outputs[lane]);
    const int g = lane / 4, t = lane % 4;
    const int rows[4] = {g, g, g + 8, g + 8}, cols[4] = {2 * t, 2 * t + 1, 2 * t, 2 * t + 1};
    for (int i = 0; i < 4; ++i) {
      float sum = c[rows[i]][cols[i]];
      for (int k = 0; k < K; ++k) sum += a[rows[i]][k] * b[k][cols[i]];
      d[i] = sum;
    }
  }
}

template <DType T>
void resolveMma(const void* const (&inputs)[32], void* const (&outputs)[32]) {
  float a[16][16], b[16][8];
  for (int lane = 0; lane < 32; ++lane) {
    const auto& in = *static_cast<const MmaOperands*>(inputs[lane]);
    const int g = lane / 4, t = lane % 4;
    for (int half = 0; half < 2; ++half) {
      auto value = [&](unsigned r) { return fromHalfBits(T, half == 0 ? lowHalf(r) : highHalf(r)); };
      a[g][2 * t + half] = value(in.a[0]);
      a[g + 8][2 * t + half] = value(in.a[1]);
      a[g][2 * t + 8 + half] = value(in.a[2]);
      a[g + 8][2 * t + 8 + half] = value(in.a[3]);
      b[2 * t + half][g] = value(in.b[0]);
      b[2 * t + 8 + half][g] = value(in.b[1]);
    }
  }
  multiplyOnto(a, b, inputs, outputs);
}

// m16n8k8 with tf32 inputs: one value per register, in the layout mma_common.cuh gives.
void resolveMmaTf32(const void* const (&inputs)[32], void* const (&outputs)[32]) {
  float a[16][8], b[8][8];
  for (int lane = 0; lane < 32; ++lane) {
    const auto& in = *static_cast<const MmaOperands*>(inputs[lane]);
    const int g = lane / 4, t = lane % 4;
    a[g][t] = tf32Value(in.a[0]);
    a[g + 8][t] = tf32Value(in.a[1]);
    a[g][t + 4] = tf32Value(in.a[2]);
    a[g + 8][t + 4] = tf32Value(in.a[3]);
    b[t][g] = tf32Value(in.b[0]);
    b[t + 4][g] = tf32Value(in.b[1]);
  }
  multiplyOnto(a, b, inputs, outputs);
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
  warpExchange(bf16 ? resolveMma<DType::Bf16> : resolveMma<DType::Fp16>, &in, d, file, line);
}

void mmaM16N8K8Tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2], const char* file, int line) {
  MmaOperands in{};
  std::memcpy(in.a, a, sizeof(in.a));
  std::memcpy(in.b, b, sizeof(in.b));
  std::memcpy(in.c, d, sizeof(in.c));
  warpExchange(resolveMmaTf32, &in, d, file, line);
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
