#include "backends/vulkan/device.hpp"

#include <algorithm>
#include <vector>

#include "backends/vulkan/device_selection.hpp"
#include "backends/vulkan/physical_device.hpp"
#include "core/model/error.hpp"
#include "core/process/process_exit.hpp"

namespace tileskip::vk {

Device::Device(const Instance& instance, int requestedIndex, const PipelineReportRequest& pipelineReport) : instance_(instance) {
  const InstanceFunctions& vi = instance.functions();
  std::vector<PhysicalDevice> devices;
  std::vector<DeviceCandidate> candidates;
  for (VkPhysicalDevice handle : instance.physicalDevices()) {
    candidates.push_back(devices.emplace_back(vi, handle).candidate());
  }
  const PhysicalDevice& chosen = devices[chooseDevice(candidates, requestedIndex)];
  physical_ = chosen.handle;
  info_ = chosen.describe();
  limits_ = chosen.computeLimits();
  memory_ = chosen.memory;
  memoryBudget_ = chosen.hasMemoryBudget;
  timestampPeriodNs_ = chosen.limits().timestampPeriod;
  const VkMemoryPropertyFlags mapped =
      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  unifiedMemory_ = chosen.properties.properties.deviceType != VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU && memoryType(~0u, mapped).has_value();

  queueFamily_ = chosen.computeQueueFamily();
  timestampValidBits_ = chosen.queues[queueFamily_].timestampValidBits;
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = queueFamily_;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;

  std::vector<const char*> extensions;
  VkPhysicalDeviceSubgroupSizeControlFeaturesEXT sizeControl{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  void** featureTail = &features.pNext;
  if (limits_.pinSubgroupSize) {
    if (chosen.apiVersion() < VK_API_VERSION_1_3) extensions.push_back(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
    sizeControl.subgroupSizeControl = VK_TRUE;
    sizeControl.computeFullSubgroups = limits_.fullSubgroups ? VK_TRUE : VK_FALSE;
    *featureTail = &sizeControl;
    featureTail = &sizeControl.pNext;
  }
  if (memoryBudget_) extensions.push_back(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  // fp16 for the tensor-core kernels' inputs and stages, and the cooperative matrices of their
  // native build, wherever the device has them (limits.hpp).
  VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features float16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDeviceCooperativeMatrixFeaturesNV cooperativeMatrix{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  if (limits_.halfArithmetic) {
    if (chosen.apiVersion() < VK_API_VERSION_1_2) extensions.push_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
    storage16.storageBuffer16BitAccess = VK_TRUE;
    float16.shaderFloat16 = VK_TRUE;
    *featureTail = &storage16;
    storage16.pNext = &float16;
    featureTail = &float16.pNext;
  }
  if (limits_.cooperativeMatrix) {
    extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
    cooperativeMatrix.cooperativeMatrix = VK_TRUE;
    *featureTail = &cooperativeMatrix;
    featureTail = &cooperativeMatrix.pNext;
  }
  // Only where asked for: capturing statistics may cost the driver time or its pipeline cache.
  if (pipelineReport.wanted()) {
    if (chosen.hasExecutableProperties) {
      extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
      executable.pipelineExecutableInfo = VK_TRUE;
      *featureTail = &executable;
      featureTail = &executable.pNext;
    } else {
      pipelineReport.unavailable(info_.name);
    }
  }

  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = &features;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queueInfo;
  info.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  check(vi.vkCreateDevice(physical_, &info, nullptr, &device_), "opening the Vulkan device " + info_.name);
  reportPipelines_ = pipelineReport.wanted() && chosen.hasExecutableProperties;
  vk_ = loadDeviceFunctions(vi, device_, reportPipelines_);
  if (reportPipelines_ && (!vk_.vkGetPipelineExecutablePropertiesKHR || !vk_.vkGetPipelineExecutableStatisticsKHR ||
                           !vk_.vkGetPipelineExecutableInternalRepresentationsKHR)) {
    reportPipelines_ = false;
    pipelineReport.unavailable(info_.name);
  }
  watchProcessExit();  // after the driver loaded, so our handler runs before its teardown
}

Device::~Device() {
  // After exit() began, the driver may already have torn itself down: calling it would crash.
  if (processExiting() || device_ == VK_NULL_HANDLE) return;
  vk_.vkDestroyDevice(device_, nullptr);
}

void Device::waitIdle() const {
  if (processExiting() || device_ == VK_NULL_HANDLE) return;
  vk_.vkDeviceWaitIdle(device_);  // a lost device returns an error here; teardown goes on
}

std::optional<std::uint32_t> Device::memoryType(std::uint32_t typeBits, VkMemoryPropertyFlags required,
                                                VkMemoryPropertyFlags preferred, VkMemoryPropertyFlags avoided) const {
  std::optional<std::uint32_t> best;
  int bestScore = -1;
  for (std::uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    VkMemoryPropertyFlags flags = memory_.memoryTypes[i].propertyFlags;
    if (!(typeBits & (1u << i)) || (flags & required) != required) continue;
    int score = ((flags & preferred) == preferred ? 2 : 0) + ((flags & avoided) == 0 ? 1 : 0);
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  }
  return best;
}

std::uint64_t Device::memoryAvailable() const {
  const InstanceFunctions& vi = instance_.functions();
  if (vi.vkGetPhysicalDeviceMemoryProperties2 == nullptr) return 0;
  VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
  VkPhysicalDeviceMemoryProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
  if (memoryBudget_) properties.pNext = &budget;
  vi.vkGetPhysicalDeviceMemoryProperties2(physical_, &properties);
  std::uint64_t available = 0;
  for (std::uint32_t h = 0; h < properties.memoryProperties.memoryHeapCount; ++h) {
    const VkMemoryHeap& heap = properties.memoryProperties.memoryHeaps[h];
    if (!(heap.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)) continue;
    std::uint64_t free = heap.size;
    if (memoryBudget_) free = budget.heapBudget[h] > budget.heapUsage[h] ? budget.heapBudget[h] - budget.heapUsage[h] : 0;
    available = std::max(available, free);
  }
  return available;
}

void Device::throwIfLost() const {
  if (lost_) {
    throw UnavailableError("the Vulkan device " + info_.name +
                           " was lost earlier in this run; nothing more can run on it (restart the program)");
  }
}

void Device::check(VkResult result, const std::string& what) {
  if (result == VK_SUCCESS) return;
  if (result == VK_ERROR_DEVICE_LOST) {
    lost_ = true;
    throw UnavailableError("the Vulkan device " + info_.name + " was lost while " + what +
                           " (a kernel fault, a watchdog timeout or a driver reset); nothing more can run on it in "
                           "this process");
  }
  throw UnavailableError(failureText(result, what, memoryAvailable()));
}

}  // namespace tileskip::vk
