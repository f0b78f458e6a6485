// Hopper's instructions of kernels/parts/hopper.cuh on the CPU emulator. An mbarrier's
// state lives beside shared memory (a stamp in its 8 bytes says it was initialized this block,
// since the launch fills shared memory with NaN before each block); a bulk copy lands at once and
// completes its bytes; a warpgroup MMA is a warp exchange per warp that reads its operands from
// shared memory through the descriptors, undoing the swizzle as the PTX ISA describes it.
#include <bit>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>

// clang-format off
#include "cuda_emulation.hpp"  // first: parts/hopper.cuh needs its stand-ins
// clang-format on

#include "kernels/parts/hopper.cuh"
#include "core/model/dtype.hpp"

namespace tileskip::emu {

namespace {

constexpr std::uint64_t kInitialized = 0x7e57ab1ef00dcafeull;

struct Barrier {
  int arrivals = 0, pending = 0;
  long long bytes = 0;  // announced and not yet landed
  int phase = 0;        // parity of the phase in progress
};

std::map<std::uint32_t, Barrier>& barriers() {
  static std::map<std::uint32_t, Barrier> table;
  return table;
}

std::string at(const char* file, int line) { return std::string(file) + ":" + std::to_string(line); }

Barrier& barrierAt(std::uint64_t* bar, const char* file, int line) {
  auto it = barriers().find(sharedOffset(bar));
  if (*bar != kInitialized || it == barriers().end()) {
    throw std::logic_error("an mbarrier is used before this block initialized it, at " + at(file, line));
  }
  return it->second;
}

void completeIfDone(Barrier& b) {
  if (b.pending > 0 || b.bytes > 0) return;
  b.phase ^= 1;
  b.pending = b.arrivals;
  noteBarrierPhase();
}

unsigned char* sharedBase() { return dynamicSharedMemory(0); }

struct WgmmaOperands {
  std::uint64_t a, b;
  unsigned warpInGroup;
  DType dtype;
  int n;      // the MMA's columns
  bool aByM;  // A stored M-major, as 16-bit B is N-major
};

int valueBytes(DType dtype) { return dtype == DType::Tf32 ? 4 : 2; }

// The value of type `dtype` at `logical` (a byte offset in the swizzled rows' own order).
float sharedValue(std::uint32_t logical, DType dtype) {
  if (dtype == DType::Tf32) {
    std::uint32_t bits;
    std::memcpy(&bits, sharedBase() + cuda::swizzled(logical), 4);
    return tf32Value(bits);
  }
  std::uint16_t bits;
  std::memcpy(&bits, sharedBase() + cuda::swizzled(logical), 2);
  return fromHalfBits(dtype, bits);
}

struct Descriptor {
  std::uint32_t start, leading, stride;
};

Descriptor decode(std::uint64_t d) {
  if ((d >> 62) != 1) throw std::logic_error("a wgmma descriptor names a swizzle other than 128 bytes");
  return {static_cast<std::uint32_t>(d & 0x3FFF) << 4, static_cast<std::uint32_t>((d >> 16) & 0x3FFF) << 4,
          static_cast<std::uint32_t>((d >> 32) & 0x3FFF) << 4};
}

void resolveWgmma(const void* const (&inputs)[32], void* const (&outputs)[32]) {
  const auto& first = *static_cast<const WgmmaOperands*>(inputs[0]);
  for (int lane = 1; lane < 32; ++lane) {
    const auto& in = *static_cast<const WgmmaOperands*>(inputs[lane]);
    if (in.a != first.a || in.b != first.b || in.dtype != first.dtype || in.n != first.n || in.aByM != first.aByM) {
      throw std::logic_error("lanes of a warp issue a warpgroup MMA with different operands");
    }
  }
  const Descriptor a = decode(first.a), b = decode(first.b);
  const DType type = first.dtype;
  const int columns = first.n;
  const int bytes = valueBytes(type), depth = type == DType::Tf32 ? 8 : 16;  // the instruction's K
  const int rowValues = cuda::kSwizzleRowBytes / bytes;
  // K-major (A unless aByM; tf32's B): row i is 128 bytes past row i - 1 within its atom of 8, atoms `stride` apart.
  auto alongK = [&](const Descriptor& d, int i, int k) {
    return sharedValue(d.start + (i / 8) * d.stride + (i % 8) * cuda::kSwizzleRowBytes + bytes * k, type);
  };
  // M- or N-major (16-bit B; A where aByM): K-row k is 128 bytes past k - 1 within its atom, atoms
  // `stride` apart, boxes of a swizzled row of rows or columns `leading` apart.
  auto alongMN = [&](const Descriptor& d, int i, int k) {
    return sharedValue(d.start + (i / rowValues) * d.leading + (k / 8) * d.stride + (k % 8) * cuda::kSwizzleRowBytes +
                           bytes * (i % rowValues),
                       type);
  };
  float rowsOfA[16][16];
  for (int r = 0; r < 16; ++r) {
    const int row = static_cast<int>(first.warpInGroup) * 16 + r;
    for (int k = 0; k < depth; ++k) rowsOfA[r][k] = first.aByM ? alongMN(a, row, k) : alongK(a, row, k);
  }
  // B: tf32's along K, as A is; 16-bit B N-major.
  static float columnsOfB[16][cuda::kWgmmaN];
  for (int k = 0; k < depth; ++k) {
    for (int n = 0; n < columns; ++n) columnsOfB[k][n] = type == DType::Tf32 ? alongK(b, n, k) : alongMN(b, n, k);
  }
  for (int lane = 0; lane < 32; ++lane) {
    float* d = static_cast<float*>(outputs[lane]);
    const int g = lane / 4, t = lane % 4;
    for (int j = 0; j < columns / 8; ++j) {
      for (int q = 0; q < 4; ++q) {
        const int r = g + 8 * (q / 2), n = 8 * j + 2 * t + q % 2;
        // Products of two 16-bit (or tf32) values are exact in fp32; summed in K order onto the accumulator.
        float sum = d[4 * j + q];
        for (int k = 0; k < depth; ++k) sum += rowsOfA[r][k] * columnsOfB[k][n];
        d[4 * j + q] = sum;
      }
    }
  }
}

}  // namespace

std::uint32_t sharedOffset(const void* p) {
  const auto* byte = static_cast<const unsigned char*>(p);
  if (byte < sharedBase() || byte >= sharedBase() + kDynamicSharedBytes) {
    throw std::logic_error("a shared-memory address outside the block's dynamic shared memory");
  }
  return static_cast<std::uint32_t>(byte - sharedBase());
}

void barrierInit(std::uint64_t* bar, int arrivals) {
  if (arrivals < 1) throw std::logic_error("an mbarrier needs one arrival or more");
  barriers()[sharedOffset(bar)] = Barrier{arrivals, arrivals, 0, 0};
  *bar = kInitialized;
}

void barrierArrive(std::uint64_t* bar, int bytes, const char* file, int line) {
  Barrier& b = barrierAt(bar, file, line);
  b.bytes += bytes;
  if (--b.pending < 0) throw std::logic_error("more arrivals at an mbarrier than its count, at " + at(file, line));
  completeIfDone(b);
}

void barrierExpectBytes(std::uint64_t* bar, int bytes, const char* file, int line) {
  barrierAt(bar, file, line).bytes += bytes;  // the phase in progress waits for them too
}

void barrierWait(std::uint64_t* bar, int parity, const char* file, int line) {
  // The phase of parity p has completed once the phase in progress has the other parity.
  while (barrierAt(bar, file, line).phase == (parity & 1)) sleepUntilBarrierPhase(file, line);
}

void copyBox(void* dst, const void* base, int valueBytes, int inner, int outer, int boxInner, int boxOuter, int atInner,
             int atOuter, std::uint64_t* bar, const char* file, int line) {
  const std::uint32_t start = sharedOffset(dst);
  if (start % cuda::kSwizzleAtomBytes != 0) throw std::logic_error("a bulk copy's box starts off a 1024-byte boundary, at " + at(file, line));
  if (boxInner * valueBytes != cuda::kSwizzleRowBytes) throw std::logic_error("a box row is not one swizzled row, at " + at(file, line));
  if (boxOuter < 1 || boxOuter > 256) throw std::logic_error("a box of more than 256 rows, at " + at(file, line));
  Barrier& b = barrierAt(bar, file, line);
  const auto* values = static_cast<const unsigned char*>(base);
  const unsigned char zeros[4] = {};
  for (int r = 0; r < boxOuter; ++r) {
    for (int c = 0; c < boxInner; ++c) {
      const int row = atOuter + r, col = atInner + c;
      const bool inside = row >= 0 && row < outer && col >= 0 && col < inner;
      const unsigned char* from = inside ? values + (static_cast<std::size_t>(row) * inner + col) * valueBytes : zeros;
      std::memcpy(sharedBase() + start + cuda::swizzled(static_cast<std::uint32_t>(r * cuda::kSwizzleRowBytes + valueBytes * c)),
                  from, static_cast<std::size_t>(valueBytes));
    }
  }
  const long long bytes = static_cast<long long>(valueBytes) * boxInner * boxOuter;
  if (b.bytes < bytes) throw std::logic_error("a bulk copy lands more bytes than its mbarrier's phase announced, at " + at(file, line));
  b.bytes -= bytes;
  completeIfDone(b);
}

void wgmmaM64N(DType dtype, int n, bool aByM, float* d, std::uint64_t aDescriptor, std::uint64_t bDescriptor,
               const char* file, int line) {
  WgmmaOperands in{aDescriptor, bDescriptor, (threadIdx.x / 32) % 4, dtype, n, aByM};
  warpExchange(resolveWgmma, &in, d, file, line);
}

}  // namespace tileskip::emu
