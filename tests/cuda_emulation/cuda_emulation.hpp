// Host stand-ins for the CUDA built-ins our kernels use, so that backends/cuda/*.cuh compile
// as plain C++ and run on the CPU: every thread of a block is a fiber, __syncthreads() and the
// warp collectives are rendezvous points of those fibers. This checks the kernels' logic
// (indexing, bounds, partial tiles, skip decisions, barrier uniformity) on any machine; it says
// nothing about the GPU compiler or the hardware, which the GPU run of the same suite covers.
//
// Checked as the kernels run:
//  - all threads of a block reach the same __syncthreads() (same source line), and none has
//    exited while others wait there: a skip that jumps a barrier must be block-uniform;
//  - all 32 lanes of a warp reach the same collective (__ballot_sync, __shfl_sync, __shfl_xor_sync, __syncwarp);
//  - an mbarrier is initialized before use, gets no more arrivals or copied bytes than it
//    expects, and a wait on one ends (some thread can still complete its phase);
//  - shared memory starts each block filled with NaN, so a read of shared memory that the
//    block did not write this time poisons C and fails verification (templated kernels' arrays
//    included, which GCC keeps out of the shared section: cuda_emulation.cpp finds them by name).
// Include this before any .cuh file.
#pragma once

// The .cuh files' emulation branches (kernels/parts/mma.cuh) call the emulator.
#define TILESKIP_CUDA_EMULATION 1

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>

// A kernel is defined in a header that several test files include: inline, as templates are.
#define __global__ inline
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __grid_constant__
#define __shared__ static __attribute__((section("tileskip_emu_shared")))
#define __align__(n) __attribute__((aligned(n)))
#define __syncthreads() ::tileskip::emu::syncThreads(__FILE__, __LINE__)

struct uint3 {
  unsigned x = 0, y = 0, z = 0;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(8) float2 {
  float x, y;
};
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }

// The built-in indices of the running fiber (one OS thread runs all fibers of a block).
inline uint3 threadIdx, blockIdx, blockDim, gridDim;

inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a < b ? b : a; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __ffs(unsigned x) { return __builtin_ffs(static_cast<int>(x)); }
// Blocks run one after another on one OS thread, so an atomic is a plain read-modify-write.
inline unsigned atomicAdd(unsigned* address, unsigned value) {
  const unsigned old = *address;
  *address = old + value;
  return old;
}
inline unsigned atomicOr(unsigned* address, unsigned value) {
  const unsigned old = *address;
  *address = old | value;
  return old;
}
template <class T>
T __ldg(const T* p) {
  return *p;
}
// Blocks run one after another, so every write is seen by the next block: a fence orders nothing
// more, and a load that bypasses L1 reads what a plain one does.
inline void __threadfence() {}
template <class T>
T __ldcg(const T* p) {
  return *p;
}

namespace tileskip {
enum class DType;  // core/model/dtype.hpp: a warpgroup MMA's input type
}

namespace tileskip::emu {

void syncThreads(const char* file, int line);
unsigned ballot(unsigned mask, bool predicate, const char* file, int line);
unsigned shuffleXor(unsigned mask, unsigned value, int laneMask, const char* file, int line);
unsigned shuffle(unsigned mask, unsigned value, int sourceLane, const char* file, int line);

// A warp-wide instruction the emulator carries out for the whole warp at once: each lane hands
// in its operands and where its results go, and when all 32 lanes wait at the same call,
// `resolve` runs once with every lane's, before any lane runs on (so no lane can overwrite its
// operands before the others have been read). A lane missing from it is an error, as for the
// other collectives.
using WarpResolver = void (*)(const void* const (&inputs)[32], void* const (&outputs)[32]);
void warpExchange(WarpResolver resolve, const void* input, void* output, const char* file, int line);

// The tensor-core instructions of kernels/parts/mma.cuh, in the fragment layouts it
// documents (tensor_core_emulation.cpp).
void mmaM16N8K16(bool bf16, float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2], const char* file, int line);
void mmaM16N8K8Tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2], const char* file, int line);
// What the MMAs read of a tf32 word: its sign, exponent and top 10 mantissa bits; the rest is
// dropped, not rounded.
inline float tf32Value(std::uint32_t bits) { return std::bit_cast<float>(bits & ~0x1FFFu); }
void loadMatrixX4(unsigned (&r)[4], const void* row, bool transposed, const char* file, int line);

// Hopper's mbarriers, bulk tensor copies and warpgroup MMAs (kernels/parts/hopper.cuh),
// carried out by hopper_emulation.cpp. Shared-memory addresses are offsets into the block's
// dynamic shared memory, which starts on a 1024-byte boundary as the swizzle needs.
std::uint32_t sharedOffset(const void* p);
void barrierInit(std::uint64_t* bar, int arrivals);
// One arrival; `bytes` > 0 also announces that many bytes of copies for the current phase.
void barrierArrive(std::uint64_t* bar, int bytes, const char* file, int line);
void barrierExpectBytes(std::uint64_t* bar, int bytes, const char* file, int line);
// Yields to the block's other threads until the phase of parity `parity` has completed.
void barrierWait(std::uint64_t* bar, int parity, const char* file, int line);
void copyBox(void* dst, const void* base, int valueBytes, int inner, int outer, int boxInner, int boxOuter, int atInner,
             int atOuter, std::uint64_t* bar, const char* file, int line);
void wgmmaM64N(DType dtype, int n, bool aByM, float* d, std::uint64_t aDescriptor, std::uint64_t bDescriptor, const char* file,
               int line);

// The scheduler's side of an mbarrier wait: the running thread sleeps until some barrier phase
// completes (noteBarrierPhase), then runs again to look. If every thread that has not finished
// sleeps so, or waits at a __syncthreads(), with no phase left to complete, the block is stuck.
void sleepUntilBarrierPhase(const char* file, int line);
void noteBarrierPhase();

// The block's dynamic shared memory (extern __shared__ on the device): as much as one block of
// an H100 or H200 may ask for, in the shared section, so it starts each block as NaN too.
// Asking for more is an error, as the launch would be on the GPU.
inline constexpr std::size_t kDynamicSharedBytes = 227 * 1024;
unsigned char* dynamicSharedMemory(std::size_t bytes);

// Runs `kernel` for every thread of `blocks` blocks of `threads` threads (blocks one after
// another). Throws std::logic_error naming the block, thread and source line when a rule
// above is broken.
// `afterRun`, where given, is called each time a thread hands control back (at a barrier, a
// collective or its end) with that thread's index: threads run one at a time, so what changed
// in memory since the previous call is that thread's doing (the lane-map probe uses it).
void launch(unsigned blocks, unsigned threads, const std::function<void()>& kernel,
            const std::function<void(unsigned thread)>& afterRun = {});

// __syncthreads_and: a barrier that also ANDs a predicate over the block. Three barriers in the
// emulation: the previous vote has been read, the vote is reset, every thread has voted.
inline int syncThreadsAnd(int predicate, const char* file, int line) {
  static bool every = true;
  syncThreads(file, line);
  if (threadIdx.x == 0) every = true;
  syncThreads(file, line);
  if (!predicate) every = false;
  syncThreads(file, line);
  return every ? 1 : 0;
}

}  // namespace tileskip::emu

#define __syncthreads_and(predicate) ::tileskip::emu::syncThreadsAnd((predicate), __FILE__, __LINE__)
#define __ballot_sync(mask, predicate) ::tileskip::emu::ballot((mask), (predicate), __FILE__, __LINE__)
#define __syncwarp() static_cast<void>(::tileskip::emu::ballot(0xFFFFFFFFu, true, __FILE__, __LINE__))
#define __shfl_sync(mask, value, sourceLane) ::tileskip::emu::shuffle((mask), (value), (sourceLane), __FILE__, __LINE__)
#define __shfl_xor_sync(mask, value, laneMask) ::tileskip::emu::shuffleXor((mask), (value), (laneMask), __FILE__, __LINE__)
