#include "ui/render/window_target.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <cstring>

namespace tileskip::ui {

WindowTarget::WindowTarget(GraphicsDevice& device, GLFWwindow* window) : device_(device), glfw_(window) {
  window_.Surface = device.surface();
  const VkFormat formats[] = {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8_UNORM,
                              VK_FORMAT_R8G8B8_UNORM};
  window_.SurfaceFormat = ImGui_ImplVulkanH_SelectSurfaceFormat(device.physicalDevice(), window_.Surface, formats,
                                                                static_cast<int>(std::size(formats)),
                                                                VK_COLORSPACE_SRGB_NONLINEAR_KHR);
  const VkPresentModeKHR fifo = VK_PRESENT_MODE_FIFO_KHR;  // vsync: every driver has it
  window_.PresentMode = ImGui_ImplVulkanH_SelectPresentMode(device.physicalDevice(), window_.Surface, &fifo, 1);
  int width = 0, height = 0;
  glfwGetFramebufferSize(glfw_, &width, &height);
  rebuild(width, height);
}

WindowTarget::~WindowTarget() {
  vkDeviceWaitIdle(device_.device());
  // The surface belongs to the GraphicsDevice; ImGui's helper would destroy it too.
  window_.Surface = VK_NULL_HANDLE;
  ImGui_ImplVulkanH_DestroyWindow(device_.instance(), device_.device(), &window_, nullptr);
}

void WindowTarget::rebuild(int width, int height) {
  ImGui_ImplVulkanH_CreateOrResizeWindow(device_.instance(), device_.physicalDevice(), device_.device(), &window_,
                                         device_.queueFamily(), nullptr, width, height, kMinImageCount);
  window_.FrameIndex = 0;
  stale_ = false;
}

bool WindowTarget::prepare() {
  int width = 0, height = 0;
  glfwGetFramebufferSize(glfw_, &width, &height);
  if (width <= 0 || height <= 0) return false;
  if (stale_ || width != window_.Width || height != window_.Height) {
    ImGui_ImplVulkan_SetMinImageCount(kMinImageCount);
    rebuild(width, height);
  }
  return true;
}

void WindowTarget::render(ImDrawData* drawData, const float clear[4]) {
  VkDevice vk = device_.device();
  VkSemaphore acquired = window_.FrameSemaphores[window_.SemaphoreIndex].ImageAcquiredSemaphore;
  VkSemaphore finished = window_.FrameSemaphores[window_.SemaphoreIndex].RenderCompleteSemaphore;
  VkResult result = vkAcquireNextImageKHR(vk, window_.Swapchain, UINT64_MAX, acquired, VK_NULL_HANDLE, &window_.FrameIndex);
  if (result == VK_ERROR_OUT_OF_DATE_KHR || result == VK_SUBOPTIMAL_KHR) {
    stale_ = true;
    if (result == VK_ERROR_OUT_OF_DATE_KHR) return;
  } else {
    checkVk(result, "vkAcquireNextImageKHR");
  }

  ImGui_ImplVulkanH_Frame& frame = window_.Frames[window_.FrameIndex];
  checkVk(vkWaitForFences(vk, 1, &frame.Fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  checkVk(vkResetFences(vk, 1, &frame.Fence), "vkResetFences");
  checkVk(vkResetCommandPool(vk, frame.CommandPool, 0), "vkResetCommandPool");
  auto beginCommands = vkInfo<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  beginCommands.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  checkVk(vkBeginCommandBuffer(frame.CommandBuffer, &beginCommands), "vkBeginCommandBuffer");
  VkClearValue clearValue{};
  std::memcpy(clearValue.color.float32, clear, 4 * sizeof(float));
  auto beginPass = vkInfo<VkRenderPassBeginInfo>(VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO);
  beginPass.renderPass = window_.RenderPass;
  beginPass.framebuffer = frame.Framebuffer;
  beginPass.renderArea.extent = {static_cast<std::uint32_t>(window_.Width), static_cast<std::uint32_t>(window_.Height)};
  beginPass.clearValueCount = 1;
  beginPass.pClearValues = &clearValue;
  vkCmdBeginRenderPass(frame.CommandBuffer, &beginPass, VK_SUBPASS_CONTENTS_INLINE);
  ImGui_ImplVulkan_RenderDrawData(drawData, frame.CommandBuffer);
  vkCmdEndRenderPass(frame.CommandBuffer);
  checkVk(vkEndCommandBuffer(frame.CommandBuffer), "vkEndCommandBuffer");

  VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  auto submit = vkInfo<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  submit.waitSemaphoreCount = 1;
  submit.pWaitSemaphores = &acquired;
  submit.pWaitDstStageMask = &waitStage;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &frame.CommandBuffer;
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &finished;
  checkVk(vkQueueSubmit(device_.queue(), 1, &submit, frame.Fence), "vkQueueSubmit");

  auto present = vkInfo<VkPresentInfoKHR>(VK_STRUCTURE_TYPE_PRESENT_INFO_KHR);
  present.waitSemaphoreCount = 1;
  present.pWaitSemaphores = &finished;
  present.swapchainCount = 1;
  present.pSwapchains = &window_.Swapchain;
  present.pImageIndices = &window_.FrameIndex;
  result = vkQueuePresentKHR(device_.queue(), &present);
  if (result == VK_ERROR_OUT_OF_DATE_KHR || result == VK_SUBOPTIMAL_KHR) {
    stale_ = true;
  } else {
    checkVk(result, "vkQueuePresentKHR");
  }
  window_.SemaphoreIndex = (window_.SemaphoreIndex + 1) % window_.ImageCount;
}

}  // namespace tileskip::ui
