// Hopper's own instructions for the warp-specialized tensor-core kernels (sm_90a
// only): mbarriers (a shared-memory barrier that counts arrivals and bytes still to land), the
// bulk tensor copy (TMA: one thread copies a whole box of a row-major matrix into shared memory,
// rows 128-byte swizzled, out-of-bounds elements as zeros, and signals an mbarrier with its bytes),
// and the warpgroup MMA (wgmma: four warps multiply a 64 x N tile, A and B read from shared
// memory through descriptors, fp32 accumulators in registers, asynchronously until waited for;
// 16-bit inputs, or tf32 ones, which it reads only along K: mma.cuh's MmaInputType).
//
// On the device each is inline PTX for sm_90a (the forms the probe of lab/21-wgmma measured on the
// H200); built for another architecture they are empty and the MMA traps, and a kernel using them
// must only be launched on compute capability 9.0.
// Compiled as C++ for the CPU emulator (tests/cuda_emulation/hopper_emulation.cpp), each calls the
// emulator: a copy lands and a warpgroup MMA completes when issued, an mbarrier wait yields to the
// other threads of the block until the barrier's phase completes.
//
// The shared-memory layout both sides agree on: a "swizzled row" is 128 bytes (64 16-bit values,
// 32 tf32 ones); within each group of eight rows (an atom of 1024 bytes, aligned to 1024 bytes),
// the 16-byte chunk c of row r sits at chunk c ^ r. The copy engine writes boxes one row wide
// that way, and the MMA descriptors below tell wgmma to read them so.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#include <cuda.h>  // CUtensorMap
#endif

#include "mma.cuh"  // MmaInputType

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TILESKIP_HOPPER_PTX 1
#endif

namespace tileskip::cuda {

inline constexpr int kSwizzleRowBytes = 128;
inline constexpr int kSwizzleRowElements = kSwizzleRowBytes / 2;  // 16-bit values
inline constexpr int kSwizzleAtomBytes = 8 * kSwizzleRowBytes;

// How many values of an input type a swizzled row holds (mma.cuh's MmaInputType: the word,
// the K of one MMA, and B along K for tf32, which wgmma reads only K-major).
template <DType T>
inline constexpr int kRowValues = kSwizzleRowBytes / static_cast<int>(sizeof(typename MmaInputType<T>::Word));

// Where byte `offset` of a swizzled region (from a 1024-byte aligned start) really is.
__host__ __device__ constexpr std::uint32_t swizzled(std::uint32_t offset) {
  return offset ^ (((offset >> 7) & 7u) << 4);
}

// The box a bulk tensor copy moves: on the device the driver's encoded tensor map (made on the
// host, bulk_copy_host.hpp), in the emulator the same facts in plain fields.
#if defined(TILESKIP_CUDA_EMULATION)
struct BulkTensorMap {
  const void* base = nullptr;  // row-major, `inner` values of `valueBytes` a row, `outer` rows
  int inner = 0, outer = 0;
  int boxInner = 0, boxOuter = 0;  // boxInner is one swizzled row
  int valueBytes = 2;
};
#else
using BulkTensorMap = CUtensorMap;
#endif

// The 32-bit shared-memory address of `p`, what mbarriers, copies and descriptors name.
__device__ __forceinline__ std::uint32_t sharedAddress(const void* p) {
#if defined(TILESKIP_CUDA_EMULATION)
  return ::tileskip::emu::sharedOffset(p);
#else
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
#endif
}

// ---- mbarriers ----

// `arrivals` threads arrive at each phase (plus, where expected, the bytes of copies).
__device__ __forceinline__ void barrierInit(std::uint64_t* bar, int arrivals) {
#if defined(TILESKIP_HOPPER_PTX)
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(sharedAddress(bar)), "r"(arrivals) : "memory");
#elif defined(TILESKIP_CUDA_EMULATION)
  ::tileskip::emu::barrierInit(bar, arrivals);
#else
  (void)bar, (void)arrivals;
#endif
}

// Makes initialized mbarriers visible to the copy engine and to the other threads (before the
// block's barrier that follows).
__device__ __forceinline__ void barrierInitFence() {
#if defined(TILESKIP_HOPPER_PTX)
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

// One arrival that also announces `bytes` of copies that will complete on this phase.
__device__ __forceinline__ void barrierArriveExpectingBytes(std::uint64_t* bar, int bytes) {
#if defined(TILESKIP_HOPPER_PTX)
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sharedAddress(bar)), "r"(bytes) : "memory");
#elif defined(TILESKIP_CUDA_EMULATION)
  ::tileskip::emu::barrierArrive(bar, bytes, __FILE__, __LINE__);
#else
  (void)bar, (void)bytes;
#endif
}

// Announces `bytes` of copies that will complete on the phase in progress, without arriving
// (the arrivals come from threads that copy otherwise: S15's producer).
__device__ __forceinline__ void barrierExpectBytes(std::uint64_t* bar, int bytes) {
#if defined(TILESKIP_HOPPER_PTX)
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(sharedAddress(bar)), "r"(bytes) : "memory");
#elif defined(TILESKIP_CUDA_EMULATION)
  ::tileskip::emu::barrierExpectBytes(bar, bytes, __FILE__, __LINE__);
#else
  (void)bar, (void)bytes;
#endif
}

__device__ __forceinline__ void barrierArrive(std::uint64_t* bar) {
#if defined(TILESKIP_HOPPER_PTX)
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(sharedAddress(bar)) : "memory");
#elif defined(TILESKIP_CUDA_EMULATION)
  ::tileskip::emu::barrierArrive(bar, 0, __FILE__, __LINE__);
#else
  (void)bar;
#endif
}

// Returns once the phase of parity `parity` has completed: phases alternate 0, 1, 0, ... from the
// init, so a ring's n-th use of a stage waits for parity n % 2.
__device__ __forceinline__ void barrierWait(std::uint64_t* bar, int parity) {
#if defined(TILESKIP_HOPPER_PTX)
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(sharedAddress(bar)), "r"(parity)
        : "memory");
  } while (done == 0);
#elif defined(TILESKIP_CUDA_EMULATION)
  ::tileskip::emu::barrierWait(bar, parity, __FILE__, __LINE__);
#else
  (void)bar, (void)parity;
#endif
}

// Orders this thread's ordinary shared-memory stores before what the tensor cores or the copy
// engine (the async proxy) read next; then an mbarrier arrival or a barrier publishes them.
__device__ __forceinline__ void fenceSharedForAsync() {
#if defined(TILESKIP_HOPPER_PTX)
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

// ---- the bulk tensor copy ----

// The box at (inner, outer) (column and row of its first element) of `map`'s matrix into `dst`
// (1024-byte aligned), swizzled; elements outside the matrix arrive as zeros. Completes the
// box's bytes on `bar`, whose phase must have announced them.
__device__ __forceinline__ void copyBox(void* dst, const BulkTensorMap* map, int inner, int outer, std::uint64_t* bar) {
#if defined(TILESKIP_HOPPER_PTX)
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          sharedAddress(dst)),
      "l"(map), "r"(inner), "r"(outer), "r"(sharedAddress(bar))
      : "memory");
#elif defined(TILESKIP_CUDA_EMULATION)
  ::tileskip::emu::copyBox(dst, map->base, map->valueBytes, map->inner, map->outer, map->boxInner, map->boxOuter, inner, outer,
                           bar, __FILE__, __LINE__);
#else
  (void)dst, (void)map, (void)inner, (void)outer, (void)bar;
#endif
}

// ---- the warpgroup MMA ----

// A descriptor of a matrix in swizzled rows (mode 1, 128 bytes, in bits 62-63): its start, and
// the byte distances the operand's layout needs, each stored >> 4. For an operand read along K
// (K-major: A, and tf32's B), `strideBytes` is the distance between groups of 8 rows (an atom) and
// `leadingBytes` is unused; for B read along N (N-major), `leadingBytes` is the distance between
// boxes of one swizzled row of columns and `strideBytes` the distance between groups of 8 K-rows.
__device__ __forceinline__ std::uint64_t swizzledDescriptor(const void* start, std::uint32_t leadingBytes,
                                                             std::uint32_t strideBytes) {
  const std::uint64_t address = sharedAddress(start);
  return ((address & 0x3FFFF) >> 4) | (static_cast<std::uint64_t>((leadingBytes & 0x3FFFF) >> 4) << 16) |
         (static_cast<std::uint64_t>((strideBytes & 0x3FFFF) >> 4) << 32) | (1ull << 62);
}

// Orders the accumulator registers' earlier uses before the next MMAs read them.
__device__ __forceinline__ void wgmmaFence() {
#if defined(TILESKIP_HOPPER_PTX)
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
}
// Closes the group of MMAs issued since the last one; wgmmaWait<N> returns once at most N groups
// are still running (their shared-memory reads included).
__device__ __forceinline__ void wgmmaCommit() {
#if defined(TILESKIP_HOPPER_PTX)
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#endif
}
template <int kPending>
__device__ __forceinline__ void wgmmaWait() {
#if defined(TILESKIP_HOPPER_PTX)
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
#endif
}

// The registers a warpgroup keeps from here on: the producer gives some back, the consumers take
// them (the kernel's launch bounds must cap its registers, or the instruction is ignored).
template <int kRegisters>
__device__ __forceinline__ void keepFewerRegisters() {
#if defined(TILESKIP_HOPPER_PTX)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegisters));
#endif
}
template <int kRegisters>
__device__ __forceinline__ void takeMoreRegisters() {
#if defined(TILESKIP_HOPPER_PTX)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegisters));
#endif
}

// The warpgroup's output tile of one MMA: 64 rows by kWgmmaN columns at most (the kernels take
// 128 or 256), and a thread's share of its fp32 accumulators for N columns.
inline constexpr int kWgmmaM = 64, kWgmmaN = 256;
template <int N>
inline constexpr int kWgmmaAccumulatorsOf = kWgmmaM * N / 128;

// wgmmaM64N's instructions: SHAPE the K and types ("k16.f32.bf16.bf16"), TAIL what follows the
// scales (16-bit inputs: ", 0, 1", A along K and B along N; tf32 takes no such operands). Their
// N / 2 accumulators are the instruction's D, read and written in place.
#define TILESKIP_WGMMA_M64N256(SHAPE, TAIL)                                                                            \
  asm volatile(                                                                                                        \
      "{\n.reg .pred keep;\nsetp.ne.b32 keep, %130, 0;\n"                                                              \
      "wgmma.mma_async.sync.aligned.m64n256" SHAPE " {"                                                                \
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                                         \
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "                               \
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "                               \
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "                               \
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "                               \
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "                               \
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "                   \
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"                 \
      "}, %128, %129, keep, 1, 1" TAIL ";\n}\n"                                                                        \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),                \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),            \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),          \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),          \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),          \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),          \
      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),          \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),          \
      "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),          \
      "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),          \
      "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),          \
      "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),          \
      "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),      \
      "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),  \
      "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),  \
      "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])   \
      : "l"(aDescriptor), "l"(bDescriptor), "r"(accumulate ? 1 : 0));

#define TILESKIP_WGMMA_M64N128(SHAPE, TAIL)                                                                            \
  asm volatile(                                                                                                        \
      "{\n.reg .pred keep;\nsetp.ne.b32 keep, %66, 0;\n"                                                               \
      "wgmma.mma_async.sync.aligned.m64n128" SHAPE " {"                                                                \
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                                         \
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "                               \
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "                               \
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"                                 \
      "}, %64, %65, keep, 1, 1" TAIL ";\n}\n"                                                                          \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),                \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),            \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),          \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),          \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),          \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),          \
      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),          \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])           \
      : "l"(aDescriptor), "l"(bDescriptor), "r"(accumulate ? 1 : 0));

// d += A (64 x kStepK, K-major) B (kStepK x N: N-major for 16-bit inputs, K-major for tf32), every
// thread of the warpgroup issuing it; with kAByM, 16-bit A is M-major instead (stored as B is, its
// K-rows 128 bytes of 64 rows of A each: what a gathered column of A, a row of A transposed, is). d's layout: warp w of the warpgroup holds rows 16 w .. 16 w +
// 15; per 8 columns j, lane l holds d[4j], d[4j + 1] at row l / 4, columns 8 j + 2 (l % 4) and + 1,
// and d[4j + 2], d[4j + 3] eight rows below: each warp's share is mma.sync's 16 x 8 fragment
// layout, N / 8 times along N. Where `issue` is false nothing is issued (a warpgroup without a
// product in the K-tile); where `accumulate` is false, d = A B, its old values dropped (a tile's
// first MMA, so the accumulators need no zeroing between tiles).
template <int N, DType T, bool kAByM = false>
__device__ __forceinline__ void wgmmaM64N(float (&d)[kWgmmaAccumulatorsOf<N>], std::uint64_t aDescriptor,
                                          std::uint64_t bDescriptor, bool issue = true, bool accumulate = true) {
  static_assert(N == 128 || N == 256, "the kernels' MMAs are m64n128 and m64n256");
  static_assert(!kAByM || T != DType::Tf32, "wgmma reads tf32 along K only");
#if defined(TILESKIP_HOPPER_PTX)
  if (!issue) return;
  if constexpr (kAByM && N == 256 && T == DType::Bf16) {
    TILESKIP_WGMMA_M64N256("k16.f32.bf16.bf16", ", 1, 1");
  } else if constexpr (kAByM && N == 256) {
    TILESKIP_WGMMA_M64N256("k16.f32.f16.f16", ", 1, 1");
  } else if constexpr (kAByM && T == DType::Bf16) {
    TILESKIP_WGMMA_M64N128("k16.f32.bf16.bf16", ", 1, 1");
  } else if constexpr (kAByM) {
    TILESKIP_WGMMA_M64N128("k16.f32.f16.f16", ", 1, 1");
  } else if constexpr (N == 256 && T == DType::Bf16) {
    TILESKIP_WGMMA_M64N256("k16.f32.bf16.bf16", ", 0, 1");
  } else if constexpr (N == 256 && T == DType::Fp16) {
    TILESKIP_WGMMA_M64N256("k16.f32.f16.f16", ", 0, 1");
  } else if constexpr (N == 256) {
    TILESKIP_WGMMA_M64N256("k8.f32.tf32.tf32", "");
  } else if constexpr (T == DType::Bf16) {
    TILESKIP_WGMMA_M64N128("k16.f32.bf16.bf16", ", 0, 1");
  } else if constexpr (T == DType::Fp16) {
    TILESKIP_WGMMA_M64N128("k16.f32.f16.f16", ", 0, 1");
  } else {
    TILESKIP_WGMMA_M64N128("k8.f32.tf32.tf32", "");
  }
#elif defined(TILESKIP_CUDA_EMULATION)
  if (issue && !accumulate) {
    for (float& x : d) x = 0.0f;
  }
  if (issue) ::tileskip::emu::wgmmaM64N(T, N, kAByM, d, aDescriptor, bDescriptor, __FILE__, __LINE__);
#elif defined(__CUDA_ARCH__)
  (void)d, (void)aDescriptor, (void)bDescriptor, (void)issue, (void)accumulate;
  __trap();  // not Hopper: the host checks the device before it launches a kernel with these
#else
  (void)d, (void)aDescriptor, (void)bDescriptor, (void)issue, (void)accumulate;
#endif
}

#undef TILESKIP_WGMMA_M64N256
#undef TILESKIP_WGMMA_M64N128

}  // namespace tileskip::cuda
