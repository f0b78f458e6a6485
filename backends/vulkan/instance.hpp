// The Vulkan instance: the loader's version checked, and where validation is asked for, the
// Khronos layer with synchronization validation and a debug messenger that keeps every message
// until it is taken. It lists the physical devices; device.hpp chooses and opens one.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "backends/vulkan/vulkan_api.hpp"

namespace tileskip::vk {

class Instance {
 public:
  // Throws UnavailableError with a reason: a loader older than Vulkan 1.1, no driver, a driver
  // manifest the loader cannot parse, validation asked for where its layer is not installed.
  explicit Instance(bool validation);
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  VkInstance handle() const { return instance_; }
  const InstanceFunctions& functions() const { return vi_; }

  // Every physical device, in the driver's order.
  std::vector<VkPhysicalDevice> physicalDevices() const;

  // Messages from the validation layers and the driver since the last call.
  std::vector<std::string> takeDiagnostics();

 private:
  static VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                  VkDebugUtilsMessageTypeFlagsEXT types,
                                                  const VkDebugUtilsMessengerCallbackDataEXT* data, void* self);
  void create(bool validation);
  void release();

  InstanceFunctions vi_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;

  std::mutex diagnosticsMutex_;
  std::vector<std::string> diagnostics_;
};

}  // namespace tileskip::vk
