// The tensor-core instructions of the MMA kernels, each a warp-wide collective that
// the whole warp issues together: mma.sync m16n8k16 (fp16 or bf16 inputs, fp32 accumulate) and
// m16n8k8 (tf32 inputs), ldmatrix (four 8 x 8 tiles of 16-bit values from shared memory,
// optionally transposed), and cp.async (16 bytes from global to shared memory without passing
// through registers).
//
// On the device each is inline PTX (the forms the probe of lab/16-mma-probe measured on the H200).
// Compiled as C++ for the CPU emulator (tests/cuda_emulation), each calls the emulator, which
// computes what the PTX ISA specifies the instruction leaves in each lane; cp.async copies at
// once there, so its wait is a no-op. The fragment layouts below are the PTX ISA's, for lane
// l of a warp with group g = l / 4 and t = l % 4; a 32-bit register holds two 16-bit values,
// the lower column (or row) in its lower half, or one tf32 value.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/model/dtype.hpp"

namespace tileskip::cuda {

// What an input type is to the MMAs (mma.sync here, wgmma in hopper.cuh): the word one
// value takes, the K of one MMA, and whether the kernels read B along K. 16-bit B is read along N,
// as the row-major K x N matrix stores it (ldmatrix's transposing form makes the fragments). tf32
// is read along K: wgmma takes tf32 only K-major, and ldmatrix transposes 16-bit values only, while
// rows of B^T give mma.sync's tf32 fragments to its plain form. So a tf32 kernel reads B transposed,
// N rows of K values, made beside the problem's B (the kernel's preparation).
template <DType T>
struct MmaInputType {
  static_assert(T == DType::Fp16 || T == DType::Bf16, "the MMAs read fp16, bf16 or tf32 words");
  using Word = std::uint16_t;
  static constexpr int kStepK = 16;
  static constexpr bool kBAlongK = false;
};
template <>
struct MmaInputType<DType::Tf32> {
  using Word = std::uint32_t;  // an fp32 value whose lowest 13 mantissa bits the MMA ignores
  static constexpr int kStepK = 8;
  static constexpr bool kBAlongK = true;
};

// One MMA's tile: kMmaM x kMmaN of C from kMmaM x K of A and K x kMmaN of B, K the input type's
// kStepK. kMmaK is the depth the kernels step by, one 16-bit MMA or two tf32 ones.
inline constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;

// d = a b + d for one 16 x 8 x 16 tile. a (16 x 16, row-major): a[0] = (g, 2t..2t+1),
// a[1] = (g + 8, 2t..), a[2] = (g, 2t + 8..), a[3] = (g + 8, 2t + 8..). b (16 x 8, by
// column): b[0] = rows 2t..2t+1 of column g, b[1] = rows 2t + 8..2t + 9. d: d[0..1] = (g, 2t..2t+1),
// d[2..3] = (g + 8, 2t..2t+1).
template <DType T>
__device__ __forceinline__ void mmaM16N8K16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  static_assert(T != DType::Tf32, "m16n8k16 multiplies 16-bit inputs");
#if defined(__CUDA_ARCH__)
  if constexpr (T == DType::Bf16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
#elif defined(TILESKIP_CUDA_EMULATION)
  ::tileskip::emu::mmaM16N8K16(T == DType::Bf16, d, a, b, __FILE__, __LINE__);
#else
  (void)d, (void)a, (void)b;  // nvcc's host pass: never called there
#endif
}

// d = a b + d for one 16 x 8 x 8 tile of tf32 inputs, one value per register: a (16 x 8,
// row-major): a[0] = (g, t), a[1] = (g + 8, t), a[2] = (g, t + 4), a[3] = (g + 8, t + 4).
// b (8 x 8, by column): b[0] = row t of column g, b[1] = row t + 4. d as m16n8k16's.
__device__ __forceinline__ void mmaM16N8K8Tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
#if defined(__CUDA_ARCH__)
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif defined(TILESKIP_CUDA_EMULATION)
  ::tileskip::emu::mmaM16N8K8Tf32(d, a, b, __FILE__, __LINE__);
#else
  (void)d, (void)a, (void)b;
#endif
}

// The MMA of one kStepK-deep step of inputs of type T.
template <DType T>
__device__ __forceinline__ void mmaStep(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  if constexpr (T == DType::Tf32) {
    mmaM16N8K8Tf32(d, a, b);
  } else {
    mmaM16N8K16<T>(d, a, b);
  }
}

// Four 8 x 8 tiles of 16-bit values from shared memory: lane l gives the address of row l % 8
// of tile l / 8 (16 bytes, 16-byte aligned) and receives register i = tile i's row g, columns
// 2t and 2t + 1. Read as 8 x 4 tiles of 32-bit words: row g, word t, a tf32 fragment's value.
// Transposed: register i = tile i's rows 2t and 2t + 1 of column g, which is
// how a row-major K x N tile of B becomes the MMA's b fragments.
__device__ __forceinline__ void loadMatrixX4(unsigned (&r)[4], const void* row) {
#if defined(__CUDA_ARCH__)
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(static_cast<unsigned>(__cvta_generic_to_shared(row))));
#elif defined(TILESKIP_CUDA_EMULATION)
  ::tileskip::emu::loadMatrixX4(r, row, false, __FILE__, __LINE__);
#else
  (void)r, (void)row;
#endif
}

__device__ __forceinline__ void loadMatrixX4Transposed(unsigned (&r)[4], const void* row) {
#if defined(__CUDA_ARCH__)
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(static_cast<unsigned>(__cvta_generic_to_shared(row))));
#elif defined(TILESKIP_CUDA_EMULATION)
  ::tileskip::emu::loadMatrixX4(r, row, true, __FILE__, __LINE__);
#else
  (void)r, (void)row;
#endif
}

// 16 bytes to shared memory: the first `bytes` (0 to 16) from `global`, zeros after them, so a
// tile's edge past the end of a matrix reads as zeros without a branch around the copy.
__device__ __forceinline__ void copyAsync16(void* shared, const void* global, int bytes) {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(shared))),
               "l"(global), "r"(bytes)
               : "memory");
#else
  auto* to = static_cast<unsigned char*>(shared);
  const auto* from = static_cast<const unsigned char*>(global);
  for (int i = 0; i < 16; ++i) to[i] = i < bytes ? from[i] : 0;
#endif
}

// 16 bytes to shared memory: from `global`, or zeros where `zeros` (and `global` is not read).
__device__ __forceinline__ void copyAsync16OrZeros(void* shared, const void* global, bool zeros) {
#if defined(__CUDA_ARCH__)
  asm volatile(
      "{\n.reg .pred ignore;\nsetp.ne.b32 ignore, %2, 0;\ncp.async.cg.shared.global [%0], [%1], 16, ignore;\n}\n" ::"r"(
          static_cast<unsigned>(__cvta_generic_to_shared(shared))),
      "l"(global), "r"(zeros ? 1 : 0)
      : "memory");
#else
  auto* to = static_cast<unsigned char*>(shared);
  const auto* from = static_cast<const unsigned char*>(global);
  for (int i = 0; i < 16; ++i) to[i] = zeros ? 0 : from[i];
#endif
}

// Closes the group of copies issued since the last one; waitCopies<N> returns once at most N
// groups are still in flight.
__device__ __forceinline__ void commitCopies() {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int Pending>
__device__ __forceinline__ void waitCopies() {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
#endif
}

// The block's dynamic shared memory, `bytes` of it. The launch asks for as many (its third <<< >>>
// argument) and, past 48 KiB, opts in with cudaFuncAttributeMaxDynamicSharedMemorySize: a
// multi-stage pipeline of 16-bit tiles needs more than static shared memory allows. The "memory"
// clobbers above keep the compiler from moving shared-memory reads across the waits.
__device__ __forceinline__ unsigned char* dynamicSharedMemory(std::size_t bytes) {
#if defined(TILESKIP_CUDA_EMULATION)
  return ::tileskip::emu::dynamicSharedMemory(bytes);
#else
  extern __shared__ __align__(128) unsigned char dynamicShared[];
  (void)bytes;
  return dynamicShared;
#endif
}

}  // namespace tileskip::cuda
