// The device limits a kernel launch and a problem must respect, as plain data so the checks are
// tested without a device: a tile needing more shared memory or invocations than the device has
// is refused with the numbers, and so is a matrix larger than one storage buffer may be
// (maxStorageBufferRange: 128 MiB on lavapipe).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/model/catalogue.hpp"

namespace tileskip::vk {

struct ComputeLimits {
  std::uint64_t maxSharedBytes = 0;           // maxComputeSharedMemorySize
  std::uint32_t maxInvocations = 0;           // maxComputeWorkGroupInvocations
  std::uint32_t maxWorkgroupSizeX = 0;        // maxComputeWorkGroupSize[0]
  std::uint32_t maxGroupCountX = 0, maxGroupCountY = 0;  // maxComputeWorkGroupCount[0..1]
  std::uint64_t maxStorageBufferRange = 0;    // bytes one storage-buffer descriptor may cover
  std::uint64_t maxAllocationBytes = 0;       // maxMemoryAllocationSize
  std::uint32_t subgroupSize = 0;             // the default
  std::uint32_t minSubgroupSize = 0, maxSubgroupSize = 0;  // equal where the size cannot vary
  std::uint32_t maxWorkgroupSubgroups = 0;    // maxComputeWorkgroupSubgroups (0: no size control)
  bool pinSubgroupSize = false;               // subgroupSizeControl for compute shaders
  bool fullSubgroups = false;                 // computeFullSubgroups
  std::uint32_t multiprocessors = 0;          // shaderSMCount (VK_NV_shader_sm_builtins); 0: unknown
  std::uint32_t cpuThreads = 0;               // host threads of a CPU device (lavapipe); 0: a GPU
  std::uint64_t maxLoopIterations = 0;        // loop iterations one invocation may run (0: no limit)
  // fp16 in shaders (shaderFloat16) and in storage buffers (storageBuffer16BitAccess): what the
  // tensor-core kernels' inputs and stages need, the emulated build of them too.
  bool halfArithmetic = false;
  // VK_NV_cooperative_matrix with 16 x 16 x 16 fp16 x fp16 + fp32 in a subgroup of 32: what the
  // tensor-core kernels' native build needs (kernels/parts/mma.glsl).
  bool cooperativeMatrix = false;
};

// lavapipe (llvmpipe) counts the loop iterations of a shader invocation, all its loops together,
// and ends every loop once 65 535 have run: a longer K loop silently drops products.
inline constexpr std::uint64_t kLavapipeLoopIterations = 65535;
bool isLavapipe(const std::string& deviceName);  // the device name holds "llvmpipe"


// The K-block list of a persistent kernel (kernels/parts/warp_skip.glsl): the catalogue's
// structure.kBlockList entries where shared memory allows, fewer (a multiple of 4, at least the
// minimum) on a device with less.
inline constexpr std::uint32_t kMinKBlockListLength = 128;

// The shared-memory stages of a tensor-core kernel's GLSL ring (RING_STAGES, kernels/parts/ring.glsl):
// the K-tiles on their way travel in registers, so of the catalogue's ringStages K-tiles it stages
// ringStages - 1, the one multiplied and the one the next lands in (MainLoop::StageRing). That one
// stage less than the CUDA twin stages decides how many K13 workgroups NVIDIA's driver runs on an
// SM: two instead of one (lab/25-vulkan-k13-driver). 0 for a kernel without such a ring.
constexpr int glslRingStages(const KernelInfo& kernel) {
  const MainLoop loop = kernel.structure.loop;
  return loop == MainLoop::StageRing || loop == MainLoop::GatherRing ? kernel.structure.ringStages - 1 : 0;
}

// Shared memory the kernel's shader declares per workgroup: the stages its catalogue row's main
// loop keeps (KernelInfo::stagedSharedBytes(), kernels/parts/stage.glsl; glslRingStages for a
// ring), and for the
// persistent kernels a K-block list of `listLength` entries, one total per subgroup (at most
// one per invocation), the taken tile and the dense-block vote (kernels/parts/warp_skip.glsl).
std::uint64_t kernelSharedBytes(const KernelInfo& kernel, std::uint32_t listLength);
// ... with the catalogue's list length.
inline std::uint64_t kernelSharedBytes(const KernelInfo& kernel) {
  return kernelSharedBytes(kernel, static_cast<std::uint32_t>(kernel.structure.kBlockList));
}

// The K-block list length a persistent kernel gets on a device with `maxSharedBytes` per
// workgroup (0 for the other kernels, and where not even the minimum fits).
std::uint32_t kBlockListLength(const KernelInfo& kernel, std::uint64_t maxSharedBytes);

// Why this device cannot launch the kernel's tile configuration, naming what it needs and
// what the device allows; nothing when it fits.
std::optional<std::string> launchProblem(const KernelInfo& kernel, const ComputeLimits& limits);

// Throws UnavailableError when `bytes` do not fit one storage buffer or one allocation.
void checkBufferFits(std::uint64_t bytes, const std::string& what, const ComputeLimits& limits);

// The subgroup size to require for a workgroup of `workgroupSize` invocations: 32 (a warp),
// or the nearest size the device offers, where the device lets it vary and the workgroup fits
// maxComputeWorkgroupSubgroups subgroups of it in full; nothing where it should stay as it is.
std::optional<std::uint32_t> pinnedSubgroupSize(std::uint32_t workgroupSize, const ComputeLimits& limits);

// Workgroups a persistent kernel is dispatched with for `tiles` block tiles: as many as are
// resident at once, where the device says how many that is. With the SM count (NVIDIA), eight
// warps per SM (two 128-invocation workgroups, eight one-warp ones): the tiles' 200-odd
// registers per invocation allow that many, as for the CUDA twins. A CPU device gets two per host thread; any other device one per tile (the
// queue then only orders the work). Never more than the tiles or maxComputeWorkGroupCount[0].
// `requested` (> 0, for tests and tuning) replaces the estimate and may exceed the tiles (the
// extra workgroups find the queue empty); only the device's limit still applies. Correctness
// never depends on the count.
std::uint32_t persistentWorkgroups(std::uint64_t tiles, const ComputeLimits& limits, std::uint32_t requested = 0,
                                  std::uint32_t threadsPerWorkgroup = 128);
inline constexpr std::uint32_t kPersistentWarpsPerSM = 8;

// An upper bound on the loop iterations one invocation of the kernel's shader runs for an M x N x K
// problem, all its loops together, as lavapipe counts them. From the shaders' loop structure
// (kernels/), with the per-K-tile counts measured on Mesa 22.3 lavapipe (ones(1, K) · ones(K, 1)
// shows how many products ran; tests/test_vulkan.cpp VulkanLoopLimit.* checks the model there):
//  - K1, K2 (BK = 1): one iteration per k.
//  - the staged kernels whose loads are strided loops (`for (i = tid; ...; i += THREADS)`, K3,
//    K4: TN = 1): 5 per K-tile; the divergent skipping kernels (S1, S3): 9 per 4 K-tiles (their
//    pattern loop), counted as 3; every other non-persistent kernel: 1 per K-tile.
//  - the persistent skipping kernels (kernels/parts/warp_skip.glsl) loop over block tiles too, and
//    one workgroup may take every tile of a dispatch from the queue: per tile, 10 per K-block (the
//    step loop and the 8-depth loop of a partly kept K-block) and 70 per K-block list pass (the
//    gather loops over subgroups), times the block tiles.
// Each loop's exit test is counted too, one per loop entry.
std::uint64_t shaderLoopIterations(const KernelInfo& kernel, std::uint64_t m, std::uint64_t n, std::uint64_t k);
// A persistent kernel's share of that per block tile it takes (0 for the other kernels).
std::uint64_t blockTileLoopIterations(const KernelInfo& kernel, std::uint64_t k);

// The block tiles one dispatch of a persistent kernel hands out (kernels/parts/block_skip.glsl's
// tile range): all of them where the device has no loop limit, else as many as one workgroup may
// take without passing it, so that a problem with more tiles runs in several dispatches rather
// than being refused. Each tile is computed whole in one dispatch, so C is the same bit for bit.
// 0 where not even one tile fits (K too long). For a non-persistent kernel: all its block tiles.
std::uint64_t blockTilesPerDispatch(const KernelInfo& kernel, std::uint64_t m, std::uint64_t n, std::uint64_t k,
                                    const ComputeLimits& limits);

// Why the kernel cannot run this problem on a device that ends loops after
// `limits.maxLoopIterations` iterations (lavapipe), with the numbers and what to do instead;
// nothing where it fits (a persistent kernel: one block tile fits) or the device has no limit.
std::optional<std::string> loopLimitProblem(const KernelInfo& kernel, std::uint64_t m, std::uint64_t n, std::uint64_t k,
                                            const ComputeLimits& limits);

// "1.5 GiB", "128 MiB", "48 KiB", "12 bytes"
std::string byteText(std::uint64_t bytes);

}  // namespace tileskip::vk
