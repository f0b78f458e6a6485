#include "backends/vulkan/limits.hpp"

#include <algorithm>
#include <cstdio>

#include "core/error.hpp"

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

std::uint64_t kernelSharedBytes(const KernelInfo& kernel) {
  const TileShape& t = kernel.tile;
  auto position = [](std::string_view id) {
    std::span<const KernelInfo> twins = twinKernels();
    auto it = std::find_if(twins.begin(), twins.end(), [&](const KernelInfo& k) { return k.id == id; });
    return it - twins.begin();
  };
  bool paddedA = position(kernel.id) >= position("vectorized") && position(kernel.id) < static_cast<long>(twinKernels().size());
  std::uint64_t floats = static_cast<std::uint64_t>(t.sharedFloats()) + (paddedA ? 4ull * static_cast<std::uint64_t>(t.BK) : 0);
  return floats * sizeof(float);
}

std::optional<std::string> launchProblem(const KernelInfo& kernel, const ComputeLimits& limits) {
  const TileShape& t = kernel.tile;
  std::string tile = std::to_string(t.BM) + "x" + std::to_string(t.BN) + "x" + std::to_string(t.BK);
  std::string prefix = "kernel " + std::string(kernel.id) + " (tile " + tile + ", " + std::to_string(t.threads) +
                       " invocations per workgroup) cannot run on this device: ";
  std::uint64_t shared = kernelSharedBytes(kernel);
  if (shared > limits.maxSharedBytes) {
    return prefix + "it needs " + byteText(shared) + " of shared memory per workgroup, the device allows " +
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
