#include "backends/vulkan/physical_device.hpp"

#include <algorithm>
#include <string>
#include <thread>

namespace tileskip::vk {

namespace {

DeviceKind kindOf(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return DeviceKind::Discrete;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return DeviceKind::Integrated;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return DeviceKind::Virtual;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return DeviceKind::Cpu;
    default: return DeviceKind::Other;
  }
}

}  // namespace

PhysicalDevice::PhysicalDevice(const InstanceFunctions& vi, VkPhysicalDevice device) : handle(device) {
  VkPhysicalDeviceProperties basic{};
  vi.vkGetPhysicalDeviceProperties(device, &basic);
  std::uint32_t count = 0;
  vi.vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr);
  extensions.resize(count);
  vi.vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data());
  extensions.resize(count);
  vi.vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
  queues.resize(count);
  vi.vkGetPhysicalDeviceQueueFamilyProperties(device, &count, queues.data());
  vi.vkGetPhysicalDeviceMemoryProperties(device, &memory);
  hasMemoryBudget = hasExtension(extensions, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  if (basic.apiVersion < VK_API_VERSION_1_1) {
    properties.properties = basic;  // too old for the chained queries; unsuitable anyway
    return;
  }
  hasSizeControl = basic.apiVersion >= VK_API_VERSION_1_3 || hasExtension(extensions, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  hasDriverProperties = basic.apiVersion >= VK_API_VERSION_1_2 || hasExtension(extensions, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
  properties.pNext = &subgroup;
  subgroup.pNext = &maintenance3;
  void** tail = &maintenance3.pNext;
  if (hasSizeControl) {
    *tail = &sizeControl;
    tail = &sizeControl.pNext;
  }
  hasSmBuiltins = hasExtension(extensions, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  if (hasSmBuiltins) {
    *tail = &smBuiltins;
    tail = &smBuiltins.pNext;
  }
  if (hasDriverProperties) *tail = &driver;
  vi.vkGetPhysicalDeviceProperties2(device, &properties);
  bool executableExtension = hasExtension(extensions, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  const bool float16Extension =
      basic.apiVersion >= VK_API_VERSION_1_2 || hasExtension(extensions, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  const bool cooperativeMatrixExtension = hasExtension(extensions, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  {
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &storage16;  // Vulkan 1.1
    void** featureTail = &storage16.pNext;
    if (hasSizeControl) {
      *featureTail = &sizeControlFeatures;
      featureTail = &sizeControlFeatures.pNext;
    }
    if (executableExtension) {
      *featureTail = &executableFeatures;
      featureTail = &executableFeatures.pNext;
    }
    if (float16Extension) {
      *featureTail = &float16;
      featureTail = &float16.pNext;
    }
    if (cooperativeMatrixExtension) *featureTail = &cooperativeMatrixFeatures;
    vi.vkGetPhysicalDeviceFeatures2(device, &features);
  }
  hasExecutableProperties = executableExtension && executableFeatures.pipelineExecutableInfo;
  hasHalfArithmetic = float16Extension && float16.shaderFloat16 && storage16.storageBuffer16BitAccess;
  if (hasHalfArithmetic && cooperativeMatrixExtension && cooperativeMatrixFeatures.cooperativeMatrix &&
      subgroup.subgroupSize == 32 && vi.vkGetPhysicalDeviceCooperativeMatrixPropertiesNV != nullptr) {
    std::uint32_t shapes = 0;
    vi.vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(device, &shapes, nullptr);
    std::vector<VkCooperativeMatrixPropertiesNV> offered(shapes, {VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV});
    vi.vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(device, &shapes, offered.data());
    hasCooperativeMatrix = std::any_of(offered.begin(), offered.begin() + shapes, [](const VkCooperativeMatrixPropertiesNV& m) {
      return m.MSize == 16 && m.NSize == 16 && m.KSize == 16 && m.AType == VK_COMPONENT_TYPE_FLOAT16_NV &&
             m.BType == VK_COMPONENT_TYPE_FLOAT16_NV && m.CType == VK_COMPONENT_TYPE_FLOAT32_NV &&
             m.DType == VK_COMPONENT_TYPE_FLOAT32_NV && m.scope == VK_SCOPE_SUBGROUP_NV;
    });
  }
  // The chains pointed into this object; a copy must not point into another.
  for (void** next : {&properties.pNext, &subgroup.pNext, &maintenance3.pNext, &sizeControl.pNext, &smBuiltins.pNext,
                      &driver.pNext, &sizeControlFeatures.pNext, &executableFeatures.pNext, &storage16.pNext, &float16.pNext,
                      &cooperativeMatrixFeatures.pNext}) {
    *next = nullptr;
  }
}

DeviceCandidate PhysicalDevice::candidate() const {
  DeviceCandidate c;
  c.name = properties.properties.deviceName;
  c.kind = kindOf(properties.properties.deviceType);
  c.apiVersion = properties.properties.apiVersion;
  c.computeQueue = std::any_of(queues.begin(), queues.end(),
                               [](const VkQueueFamilyProperties& q) { return (q.queueFlags & VK_QUEUE_COMPUTE_BIT) != 0; });
  c.subgroupInCompute = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
  c.subgroupBallot = (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT) != 0;
  c.subgroupVote = (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_VOTE_BIT) != 0;
  return c;
}

std::uint32_t PhysicalDevice::computeQueueFamily() const {
  std::optional<std::uint32_t> family;
  for (std::uint32_t i = 0; i < queues.size(); ++i) {
    const VkQueueFamilyProperties& q = queues[i];
    if (!(q.queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
    if (!family || q.timestampValidBits > queues[*family].timestampValidBits) family = i;
  }
  return *family;
}

DeviceInfo PhysicalDevice::describe() const {
  const VkPhysicalDeviceProperties& p = properties.properties;
  DeviceInfo info;
  info.name = p.deviceName;
  info.api = "Vulkan " + versionText(p.apiVersion);
  if (queues[computeQueueFamily()].timestampValidBits == 0) info.api += " (no timestamps on the compute queue: host-timed)";
  if (hasDriverProperties && driver.driverInfo[0] != '\0') {
    info.driver = std::string(driver.driverName) + " " + driver.driverInfo;
  } else {
    info.driver = std::to_string(p.driverVersion);
  }
  info.isGpu = p.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
  info.subgroupSize = static_cast<int>(subgroup.subgroupSize);
  info.sharedMemoryBytes = p.limits.maxComputeSharedMemorySize;
  for (std::uint32_t h = 0; h < memory.memoryHeapCount; ++h) {
    if (memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) {
      info.memoryBytes = std::max<std::size_t>(info.memoryBytes, memory.memoryHeaps[h].size);
    }
  }
  return info;
}

ComputeLimits PhysicalDevice::computeLimits() const {
  const VkPhysicalDeviceProperties& p = properties.properties;
  ComputeLimits limits;
  limits.maxSharedBytes = p.limits.maxComputeSharedMemorySize;
  limits.maxInvocations = p.limits.maxComputeWorkGroupInvocations;
  limits.maxWorkgroupSizeX = p.limits.maxComputeWorkGroupSize[0];
  limits.maxGroupCountX = p.limits.maxComputeWorkGroupCount[0];
  limits.maxGroupCountY = p.limits.maxComputeWorkGroupCount[1];
  limits.maxStorageBufferRange = p.limits.maxStorageBufferRange;
  limits.maxAllocationBytes = maintenance3.maxMemoryAllocationSize;
  limits.subgroupSize = subgroup.subgroupSize;
  limits.minSubgroupSize = limits.maxSubgroupSize = subgroup.subgroupSize;
  if (hasSizeControl && sizeControlFeatures.subgroupSizeControl && (sizeControl.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT)) {
    limits.minSubgroupSize = sizeControl.minSubgroupSize;
    limits.maxSubgroupSize = sizeControl.maxSubgroupSize;
    limits.maxWorkgroupSubgroups = sizeControl.maxComputeWorkgroupSubgroups;
    limits.pinSubgroupSize = true;
    limits.fullSubgroups = sizeControlFeatures.computeFullSubgroups;
  }
  if (hasSmBuiltins) limits.multiprocessors = smBuiltins.shaderSMCount;
  if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) limits.cpuThreads = std::max(1u, std::thread::hardware_concurrency());
  if (isLavapipe(p.deviceName)) limits.maxLoopIterations = kLavapipeLoopIterations;
  limits.halfArithmetic = hasHalfArithmetic;
  limits.cooperativeMatrix = hasCooperativeMatrix;
  return limits;
}

}  // namespace tileskip::vk
