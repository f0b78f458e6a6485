// Drawing ImGui into a GLFW window's swapchain, with ImGui's own swapchain helpers
// (ImGui_ImplVulkanH_*): acquire, draw, present, and rebuild when the window is resized.
#pragma once

#include <imgui_impl_vulkan.h>

#include "ui/render/graphics_device.hpp"

struct GLFWwindow;

namespace tileskip::ui {

class WindowTarget {
 public:
  // The device must have been created with this window's surface.
  WindowTarget(GraphicsDevice& device, GLFWwindow* window);
  ~WindowTarget();
  WindowTarget(const WindowTarget&) = delete;
  WindowTarget& operator=(const WindowTarget&) = delete;

  VkRenderPass renderPass() const { return window_.RenderPass; }
  std::uint32_t imageCount() const { return window_.ImageCount; }
  static constexpr std::uint32_t kMinImageCount = 2;

  // Rebuilds the swapchain if the framebuffer changed size; false while minimised.
  bool prepare();
  // Draws one frame and presents it.
  void render(ImDrawData* drawData, const float clear[4]);

 private:
  void rebuild(int width, int height);

  GraphicsDevice& device_;
  GLFWwindow* glfw_;
  ImGui_ImplVulkanH_Window window_;
  bool stale_ = false;
};

}  // namespace tileskip::ui
