// The Vulkan functions tileskip calls, loaded at run time from the system loader
// (libvulkan.so.1). The binary does not link against the loader, so a machine without Vulkan
// still runs the cpu and cuda backends: opening this backend says what is missing instead.
#pragma once

#include <vulkan/vulkan.h>  // this library builds with VK_NO_PROTOTYPES: only types and constants

#include <cstdint>
#include <string>
#include <vector>

namespace tileskip::vk {

// clang-format off
#define TILESKIP_VK_LOADER_FUNCTIONS(X) \
  X(vkGetInstanceProcAddr)
#define TILESKIP_VK_GLOBAL_FUNCTIONS(X) \
  X(vkCreateInstance) X(vkEnumerateInstanceExtensionProperties) X(vkEnumerateInstanceLayerProperties) \
  X(vkEnumerateInstanceVersion)
#define TILESKIP_VK_INSTANCE_FUNCTIONS(X) \
  X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties) \
  X(vkGetPhysicalDeviceProperties2) X(vkGetPhysicalDeviceFeatures2) X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties) X(vkGetPhysicalDeviceMemoryProperties2) \
  X(vkEnumerateDeviceExtensionProperties) X(vkCreateDevice) X(vkGetDeviceProcAddr)
#define TILESKIP_VK_DEBUG_FUNCTIONS(X) \
  X(vkCreateDebugUtilsMessengerEXT) X(vkDestroyDebugUtilsMessengerEXT)
#define TILESKIP_VK_DEVICE_FUNCTIONS(X) \
  X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkDeviceWaitIdle) X(vkQueueSubmit) X(vkQueueWaitIdle) \
  X(vkCreateBuffer) X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements) X(vkAllocateMemory) X(vkFreeMemory) \
  X(vkBindBufferMemory) X(vkMapMemory) X(vkUnmapMemory) \
  X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkAllocateCommandBuffers) X(vkResetCommandBuffer) \
  X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkCreateFence) X(vkDestroyFence) X(vkWaitForFences) \
  X(vkResetFences) X(vkCreateQueryPool) X(vkDestroyQueryPool) X(vkGetQueryPoolResults) \
  X(vkCreateShaderModule) X(vkDestroyShaderModule) X(vkCreateDescriptorSetLayout) X(vkDestroyDescriptorSetLayout) \
  X(vkCreatePipelineLayout) X(vkDestroyPipelineLayout) X(vkCreateComputePipelines) X(vkDestroyPipeline) \
  X(vkCreateDescriptorPool) X(vkDestroyDescriptorPool) X(vkAllocateDescriptorSets) X(vkUpdateDescriptorSets) \
  X(vkCmdBindPipeline) X(vkCmdBindDescriptorSets) X(vkCmdPushConstants) X(vkCmdDispatch) X(vkCmdCopyBuffer) \
  X(vkCmdFillBuffer) X(vkCmdPipelineBarrier) X(vkCmdResetQueryPool) X(vkCmdWriteTimestamp)
// VK_KHR_pipeline_executable_properties: loaded only where the device enabled it.
#define TILESKIP_VK_EXECUTABLE_FUNCTIONS(X) \
  X(vkGetPipelineExecutablePropertiesKHR) X(vkGetPipelineExecutableStatisticsKHR) \
  X(vkGetPipelineExecutableInternalRepresentationsKHR)
// VK_NV_cooperative_matrix's query: null where the loader knows no device that has it.
#define TILESKIP_VK_COOPERATIVE_MATRIX_FUNCTIONS(X) \
  X(vkGetPhysicalDeviceCooperativeMatrixPropertiesNV)
// clang-format on

#define TILESKIP_VK_DECLARE(name) PFN_##name name = nullptr;

// One table per process for the loader and global functions, one per instance and device for
// the rest (members of Instance and Device).
struct GlobalFunctions {
  TILESKIP_VK_LOADER_FUNCTIONS(TILESKIP_VK_DECLARE)
  TILESKIP_VK_GLOBAL_FUNCTIONS(TILESKIP_VK_DECLARE)
};
struct InstanceFunctions {
  TILESKIP_VK_INSTANCE_FUNCTIONS(TILESKIP_VK_DECLARE)
  TILESKIP_VK_DEBUG_FUNCTIONS(TILESKIP_VK_DECLARE)
  TILESKIP_VK_COOPERATIVE_MATRIX_FUNCTIONS(TILESKIP_VK_DECLARE)  // may stay null
};
struct DeviceFunctions {
  TILESKIP_VK_DEVICE_FUNCTIONS(TILESKIP_VK_DECLARE)
  TILESKIP_VK_EXECUTABLE_FUNCTIONS(TILESKIP_VK_DECLARE)  // null unless loaded
};

// Opens the loader once per process. Throws UnavailableError when it is not installed.
const GlobalFunctions& globalFunctions();
// Debug functions are loaded only when `debugUtils`; they stay null otherwise.
InstanceFunctions loadInstanceFunctions(VkInstance instance, bool debugUtils);
// The executable-properties functions are loaded only when `executableProperties` (the device
// enabled VK_KHR_pipeline_executable_properties); they stay null otherwise.
DeviceFunctions loadDeviceFunctions(const InstanceFunctions& instance, VkDevice device, bool executableProperties = false);

// "VK_ERROR_OUT_OF_DEVICE_MEMORY" for a result code.
std::string resultName(VkResult result);

// "1.3.230"
std::string versionText(std::uint32_t version);

// Whether `list` names the extension `name`.
bool hasExtension(const std::vector<VkExtensionProperties>& list, const char* name);

// Why a call failed, for any result but a lost device: "WHAT failed: " and which memory ran out
// (with the device-local bytes `deviceBytesAvailable` still free), or the result's name.
std::string failureText(VkResult result, const std::string& what, std::uint64_t deviceBytesAvailable);

}  // namespace tileskip::vk
