// The viewer's own Vulkan instance and device with a graphics queue, apart from any compute
// backend's: the viewer draws the same whichever backend runs the kernels, and on a machine
// with no GPU it draws with lavapipe (Mesa's CPU Vulkan) and no display server at all.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tileskip::ui {

// A Vulkan info struct, zeroed, with its sType set.
template <typename Info>
Info vkInfo(VkStructureType type) {
  Info info{};
  info.sType = type;
  return info;
}

// Throws UnavailableError("<what> failed: VK_ERROR_...") unless result is VK_SUCCESS.
void checkVk(VkResult result, const char* what);

// Preference among device types for drawing: a discrete GPU first, then integrated, virtual,
// CPU (lavapipe). Higher is better; a plain function so the choice reads in one place.
int graphicsDeviceRank(VkPhysicalDeviceType type);

class GraphicsDevice {
 public:
  // `makeSurface` creates the window's surface once the instance exists (empty offscreen);
  // the device then must be able to present to it. Throws UnavailableError saying what is
  // missing (no Vulkan driver, no device with a graphics queue, ...).
  GraphicsDevice(const std::vector<const char*>& instanceExtensions,
                 const std::function<VkSurfaceKHR(VkInstance)>& makeSurface);
  ~GraphicsDevice();
  GraphicsDevice(const GraphicsDevice&) = delete;
  GraphicsDevice& operator=(const GraphicsDevice&) = delete;

  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physicalDevice() const { return physical_; }
  VkDevice device() const { return device_; }
  std::uint32_t queueFamily() const { return queueFamily_; }
  VkQueue queue() const { return queue_; }
  VkDescriptorPool descriptorPool() const { return descriptorPool_; }
  VkSurfaceKHR surface() const { return surface_; }
  const std::string& description() const { return description_; }  // "llvmpipe (...), Vulkan 1.3.230"

  // Records into a one-time command buffer, submits and waits.
  void submitNow(const std::function<void(VkCommandBuffer)>& record);
  // A memory type index with `properties` among `typeBits`; throws UnavailableError if none.
  std::uint32_t memoryType(std::uint32_t typeBits, VkMemoryPropertyFlags properties) const;

 private:
  void release();

  VkInstance instance_ = VK_NULL_HANDLE;
  VkSurfaceKHR surface_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  std::uint32_t queueFamily_ = 0;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptorPool_ = VK_NULL_HANDLE;
  VkCommandPool commandPool_ = VK_NULL_HANDLE;
  std::string description_;
};

}  // namespace tileskip::ui
