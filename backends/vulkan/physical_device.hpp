// What one physical device reports, queried once when the devices are listed: enough to choose
// among them (device_selection.hpp) and, for the one chosen, to describe it (the DeviceInfo of
// reports, the ComputeLimits kernels are checked against) and to open it (device.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "backends/vulkan/device_selection.hpp"
#include "backends/vulkan/limits.hpp"
#include "backends/vulkan/vulkan_api.hpp"
#include "core/model/backend.hpp"

namespace tileskip::vk {

struct PhysicalDevice {
  PhysicalDevice(const InstanceFunctions& vi, VkPhysicalDevice device);

  VkPhysicalDevice handle = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceMaintenance3Properties maintenance3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  VkPhysicalDeviceSubgroupSizeControlPropertiesEXT sizeControl{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES_EXT};
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceSubgroupSizeControlFeaturesEXT sizeControlFeatures{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT};
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV smBuiltins{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executableFeatures{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  VkPhysicalDeviceShaderFloat16Int8Features float16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceCooperativeMatrixFeaturesNV cooperativeMatrixFeatures{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  VkPhysicalDeviceMemoryProperties memory{};
  std::vector<VkQueueFamilyProperties> queues;
  std::vector<VkExtensionProperties> extensions;
  bool hasSizeControl = false;  // Vulkan 1.3 or VK_EXT_subgroup_size_control
  bool hasDriverProperties = false;
  bool hasSmBuiltins = false;  // VK_NV_shader_sm_builtins: the SM count
  bool hasExecutableProperties = false;  // VK_KHR_pipeline_executable_properties with pipelineExecutableInfo
  bool hasMemoryBudget = false;  // VK_EXT_memory_budget
  bool hasHalfArithmetic = false;  // shaderFloat16 and storageBuffer16BitAccess (Vulkan 1.2 or VK_KHR_shader_float16_int8)
  bool hasCooperativeMatrix = false;  // VK_NV_cooperative_matrix with the shape kernels/parts/mma.glsl uses

  const VkPhysicalDeviceLimits& limits() const { return properties.properties.limits; }
  std::uint32_t apiVersion() const { return properties.properties.apiVersion; }

  // What selection weighs.
  DeviceCandidate candidate() const;
  // The compute queue family with the most timestamp bits (graphics+compute families count
  // too). Only for a device chooseDevice() accepted: it has a compute queue.
  std::uint32_t computeQueueFamily() const;
  // Name, API, driver, subgroup size, shared and device memory; the API says "host-timed" where
  // the compute queue family has no timestamps.
  DeviceInfo describe() const;
  // What kernels and dispatches are checked against (limits.hpp).
  ComputeLimits computeLimits() const;
};

}  // namespace tileskip::vk
