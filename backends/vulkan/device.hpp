// The Vulkan device the kernels run on: chosen among the instance's physical devices (each
// described once, physical_device.hpp), opened with one compute queue, and asked about its memory.
// Its check() turns a failed call into an error a person can act on; a lost device stays lost.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "backends/vulkan/instance.hpp"
#include "backends/vulkan/limits.hpp"
#include "backends/vulkan/pipeline_statistics.hpp"
#include "backends/vulkan/vulkan_api.hpp"
#include "core/model/backend.hpp"

namespace tileskip::vk {

class Device {
 public:
  // The device `requestedIndex` (>= 0), else the best suitable one (device_selection.hpp), opened
  // with what the kernels need: subgroup size control where offered, the memory budget, and the
  // pipeline executable properties where `pipelineReport` asks for them (said on stderr where the
  // device has none). Throws UnavailableError or InputError as chooseDevice() does.
  Device(const Instance& instance, int requestedIndex, const PipelineReportRequest& pipelineReport);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceInfo& info() const { return info_; }
  const ComputeLimits& limits() const { return limits_; }
  const DeviceFunctions& vk() const { return vk_; }
  VkDevice handle() const { return device_; }

  // The compute queue family opened, and its timestamps: valid bits (0: none) and nanoseconds per tick.
  std::uint32_t queueFamily() const { return queueFamily_; }
  std::uint32_t timestampValidBits() const { return timestampValidBits_; }
  double timestampPeriodNs() const { return timestampPeriodNs_; }
  // Whether new pipelines can report the driver's statistics (asked for, and the device can).
  bool reportsPipelines() const { return reportPipelines_; }

  // Memory: a type index of `typeBits` with every `required` flag, preferring one with all of
  // `preferred`, then one with none of `avoided`; the first such type on a tie.
  std::optional<std::uint32_t> memoryType(std::uint32_t typeBits, VkMemoryPropertyFlags required,
                                          VkMemoryPropertyFlags preferred = 0, VkMemoryPropertyFlags avoided = 0) const;
  // Device-local memory the host maps directly (lavapipe, integrated GPUs): no staging copies.
  // False on discrete GPUs, where even a host-visible BAR heap is slow to read back.
  bool unifiedMemory() const { return unifiedMemory_; }
  // Device-local bytes this process may still allocate (the budget where the driver reports one).
  std::uint64_t memoryAvailable() const;

  // Throws UnavailableError for an error result; a lost device stays lost for this process.
  void check(VkResult result, const std::string& what);
  // Throws UnavailableError where the device was lost earlier.
  void throwIfLost() const;
  bool lost() const { return lost_; }
  // Waits until the device has finished everything submitted (before its objects are destroyed).
  void waitIdle() const;

 private:
  const Instance& instance_;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  DeviceFunctions vk_;
  DeviceInfo info_;
  ComputeLimits limits_;
  VkPhysicalDeviceMemoryProperties memory_{};
  bool unifiedMemory_ = false;
  bool memoryBudget_ = false;
  std::uint32_t queueFamily_ = 0;
  std::uint32_t timestampValidBits_ = 0;
  double timestampPeriodNs_ = 1.0;
  bool reportPipelines_ = false;
  bool lost_ = false;
};

}  // namespace tileskip::vk
