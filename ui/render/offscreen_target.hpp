// Drawing ImGui into an image in device memory and reading its pixels back: `view --screenshot`
// needs no window and no display server, only a Vulkan device (lavapipe will do).
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

#include "ui/render/graphics_device.hpp"

struct ImDrawData;

namespace tileskip::ui {

class OffscreenTarget {
 public:
  OffscreenTarget(GraphicsDevice& device, int width, int height);
  ~OffscreenTarget();
  OffscreenTarget(const OffscreenTarget&) = delete;
  OffscreenTarget& operator=(const OffscreenTarget&) = delete;

  VkRenderPass renderPass() const { return renderPass_; }
  int width() const { return width_; }
  int height() const { return height_; }

  // Clears to `clear` (RGBA in [0,1]), draws one ImGui frame, copies it to host memory, waits.
  void render(ImDrawData* drawData, const float clear[4]);
  // The last frame's pixels: RGBA8, rows from the top, width·height·4 bytes.
  std::vector<std::uint8_t> pixels() const;

 private:
  void release();

  GraphicsDevice& device_;
  int width_, height_;
  VkImage image_ = VK_NULL_HANDLE;
  VkDeviceMemory imageMemory_ = VK_NULL_HANDLE;
  VkImageView view_ = VK_NULL_HANDLE;
  VkRenderPass renderPass_ = VK_NULL_HANDLE;
  VkFramebuffer framebuffer_ = VK_NULL_HANDLE;
  VkBuffer readback_ = VK_NULL_HANDLE;
  VkDeviceMemory readbackMemory_ = VK_NULL_HANDLE;
};

}  // namespace tileskip::ui
