#include "backends/vulkan/limits.hpp"

#include <algorithm>
#include <cstdio>

#include "core/model/error.hpp"
#include "core/model/integer_math.hpp"
#include "core/model/tile_layout.hpp"

namespace tileskip::vk {

std::string byteText(std::uint64_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  auto value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(text, sizeof text, value == static_cast<double>(static_cast<std::uint64_t>(value)) ? "%.0f %s" : "%.1f %s",
                  value, units[unit]);
  }
  return text;
}

std::uint64_t kernelSharedBytes(const KernelInfo& kernel, std::uint32_t listLength) {
  // The tensor-core kernels' C passes through the ring's A stages (kernels/parts/mma.glsl) and
  // adds nothing here.
  const int ringStages = glslRingStages(kernel);
  auto bytes = static_cast<std::uint64_t>(ringStages > 0 ? ringStages * kernel.stageBytes() : kernel.stagedSharedBytes());
  if (kernel.compacts()) {
    // The live columns of a pass (kKBlock per listed K-block) and a total per subgroup, a word each
    // (kernels/parts/gather.glsl).
    bytes += (static_cast<std::uint64_t>(listLength) * kKBlock + static_cast<std::uint64_t>(kernel.tile.threads)) * sizeof(std::uint32_t);
  }
  if (kernel.persistent()) {
    // The K-block list, a total per subgroup, and the taken tile and dense veto, 16 bytes each
    // (kernels/parts/block_skip.glsl says why).
    bytes += (static_cast<std::uint64_t>(listLength) + static_cast<std::uint64_t>(kernel.tile.threads) + 2 * 4) * sizeof(std::uint32_t);
    if (kernel.usesTensorCores()) {
      // S10's kept steps of every listed K-tile, a word each, in whole 16 bytes
      // (kernels/s10_mma_joint_64x32.comp).
      const std::uint64_t kTiles = listLength / static_cast<std::uint64_t>(kernel.tile.BK / kKBlock);
      bytes += (kTiles + 3) / 4 * 4 * sizeof(std::uint32_t);
    }
  }
  return bytes;
}

std::uint32_t kBlockListLength(const KernelInfo& kernel, std::uint64_t maxSharedBytes) {
  if (!kernel.persistent() && !kernel.compacts()) return 0;
  std::uint64_t withoutList = kernelSharedBytes(kernel, 0);
  if (withoutList >= maxSharedBytes) return 0;
  std::uint64_t fits = (maxSharedBytes - withoutList) / sizeof(std::int32_t) / 4 * 4;
  // What grows with the list beside it (S10's kept steps) takes a little more per entry.
  while (fits >= kMinKBlockListLength && kernelSharedBytes(kernel, static_cast<std::uint32_t>(fits)) > maxSharedBytes) fits -= 4;
  if (fits < kMinKBlockListLength) return 0;
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(fits, static_cast<std::uint64_t>(kernel.structure.kBlockList)));
}

bool isLavapipe(const std::string& deviceName) { return deviceName.find("llvmpipe") != std::string::npos; }

namespace {
std::uint64_t blockTiles(const KernelInfo& kernel, std::uint64_t m, std::uint64_t n) {
  return ceilDiv(m, static_cast<std::uint64_t>(kernel.tile.BM)) * ceilDiv(n, static_cast<std::uint64_t>(kernel.tile.BN));
}
}  // namespace

std::uint64_t blockTileLoopIterations(const KernelInfo& kernel, std::uint64_t k) {
  if (!kernel.persistent()) return 0;
  std::uint64_t kBlocks = ceilDiv(k, kKBlock);
  std::uint64_t passes = ceilDiv(kBlocks, kMinKBlockListLength);  // the shortest list: the most passes
  return 10 * kBlocks + 70 * passes + 2;
}

std::uint64_t shaderLoopIterations(const KernelInfo& kernel, std::uint64_t m, std::uint64_t n, std::uint64_t k) {
  const TileShape& t = kernel.tile;
  if (t.BK <= 1) return k + 1;
  if (kernel.persistent()) return blockTiles(kernel, m, n) * blockTileLoopIterations(kernel, k) + 2;
  std::uint64_t kTiles = ceilDiv(k, static_cast<std::uint64_t>(t.BK));
  if (kernel.compacts()) {
    // Per pass of the shortest list: a padded last K-tile, and the gather's rounds, each writing
    // up to a word's 32 columns (kernels/parts/gather.glsl).
    const std::uint64_t passes = ceilDiv(ceilDiv(k, kKBlock), kMinKBlockListLength);
    return kTiles + passes * (1 + 40 * ceilDiv(kMinKBlockListLength, 4 * static_cast<std::uint64_t>(t.threads))) + 2;
  }
  std::uint64_t perKTile = 1;
  if (kernel.structure.loop == MainLoop::Staged && t.TN == 1) perKTile = 5;
  if (kernel.divergent()) perKTile = 3;
  return perKTile * kTiles + 2;
}

std::uint64_t blockTilesPerDispatch(const KernelInfo& kernel, std::uint64_t m, std::uint64_t n, std::uint64_t k,
                                    const ComputeLimits& limits) {
  const std::uint64_t tiles = blockTiles(kernel, m, n);
  if (!kernel.persistent() || limits.maxLoopIterations == 0) return tiles;
  if (limits.maxLoopIterations < 2) return 0;
  return std::min(tiles, (limits.maxLoopIterations - 2) / blockTileLoopIterations(kernel, k));
}

std::optional<std::string> loopLimitProblem(const KernelInfo& kernel, std::uint64_t m, std::uint64_t n, std::uint64_t k,
                                            const ComputeLimits& limits) {
  if (limits.maxLoopIterations == 0) return std::nullopt;
  const bool persistent = kernel.persistent();
  // A persistent kernel's tiles are spread over dispatches; what must fit is one tile's K-blocks.
  std::uint64_t iterations = persistent ? shaderLoopIterations(kernel, 1, 1, k) : shaderLoopIterations(kernel, m, n, k);
  if (iterations <= limits.maxLoopIterations) return std::nullopt;
  return "kernel " + std::string(kernel.id) + " cannot run M=" + std::to_string(m) + " N=" + std::to_string(n) +
         " K=" + std::to_string(k) + " on this device: its shader would run about " + std::to_string(iterations) +
         " loop iterations" + (persistent ? " (over the K-blocks of one block tile)" : " (over K)") +
         ", and lavapipe ends a shader's loops after " + std::to_string(limits.maxLoopIterations) +
         ", which would silently drop products; use a smaller K" + (persistent ? ", a non-persistent kernel (pipelined)" : "") +
         " or a GPU";
}

std::uint32_t persistentWorkgroups(std::uint64_t tiles, const ComputeLimits& limits, std::uint32_t requested,
                                  std::uint32_t threadsPerWorkgroup) {
  std::uint64_t groups = tiles;
  if (requested > 0) {
    groups = requested;
  } else if (limits.multiprocessors > 0) {
    const std::uint64_t perSM = std::max<std::uint64_t>(1, kPersistentWarpsPerSM * 32 / std::max(1u, threadsPerWorkgroup));
    groups = std::min<std::uint64_t>(tiles, static_cast<std::uint64_t>(limits.multiprocessors) * perSM);
  } else if (limits.cpuThreads > 0) {
    groups = std::min<std::uint64_t>(tiles, 2ull * limits.cpuThreads);
  }
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(groups, limits.maxGroupCountX)));
}

std::optional<std::string> launchProblem(const KernelInfo& kernel, const ComputeLimits& limits) {
  const TileShape& t = kernel.tile;
  std::string tile = std::to_string(t.BM) + "x" + std::to_string(t.BN) + "x" + std::to_string(t.BK);
  std::string prefix = "kernel " + std::string(kernel.id) + " (tile " + tile + ", " + std::to_string(t.threads) +
                       " invocations per workgroup) cannot run on this device: ";
  std::uint64_t shared = kernelSharedBytes(kernel);
  std::string least;
  if (kernel.persistent() || kernel.compacts()) {  // where the catalogue's list does not fit, a shorter one may
    std::uint32_t list = kBlockListLength(kernel, limits.maxSharedBytes);
    shared = kernelSharedBytes(kernel, list > 0 ? list : kMinKBlockListLength);
    least = " at least (with a K-block list of " + std::to_string(kMinKBlockListLength) + " entries)";
  }
  if (shared > limits.maxSharedBytes) {
    return prefix + "it needs " + byteText(shared) + " of shared memory per workgroup" + least + ", the device allows " +
           byteText(limits.maxSharedBytes) + " (maxComputeSharedMemorySize)";
  }
  auto threads = static_cast<std::uint32_t>(t.threads);
  if (threads > limits.maxInvocations || threads > limits.maxWorkgroupSizeX) {
    return prefix + "the device allows " + std::to_string(std::min(limits.maxInvocations, limits.maxWorkgroupSizeX)) +
           " invocations per workgroup (maxComputeWorkGroupInvocations, maxComputeWorkGroupSize[0])";
  }
  return std::nullopt;
}

void checkBufferFits(std::uint64_t bytes, const std::string& what, const ComputeLimits& limits) {
  if (bytes > limits.maxStorageBufferRange) {
    throw UnavailableError(what + " needs " + byteText(bytes) + " (" + std::to_string(bytes) +
                           " bytes) in one storage buffer, but this Vulkan device allows " +
                           byteText(limits.maxStorageBufferRange) +
                           " (maxStorageBufferRange); use smaller matrices or a device with a larger limit");
  }
  if (limits.maxAllocationBytes > 0 && bytes > limits.maxAllocationBytes) {
    throw UnavailableError(what + " needs " + byteText(bytes) + " in one allocation, but this Vulkan device allows " +
                           byteText(limits.maxAllocationBytes) + " (maxMemoryAllocationSize)");
  }
}

std::optional<std::uint32_t> pinnedSubgroupSize(std::uint32_t workgroupSize, const ComputeLimits& limits) {
  if (!limits.pinSubgroupSize || limits.minSubgroupSize == limits.maxSubgroupSize) return std::nullopt;
  std::uint32_t size = std::min(std::max(32u, limits.minSubgroupSize), limits.maxSubgroupSize);
  if (workgroupSize == 0 || workgroupSize % size != 0) return std::nullopt;
  if (workgroupSize > static_cast<std::uint64_t>(limits.maxWorkgroupSubgroups) * size) return std::nullopt;
  return size;
}

}  // namespace tileskip::vk
