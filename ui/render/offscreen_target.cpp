#include "ui/render/offscreen_target.hpp"

#include <imgui.h>
#include <imgui_impl_vulkan.h>

#include <cstring>

namespace tileskip::ui {

namespace {

// UNORM, not SRGB: ImGui's colours are meant to be written as they are, like the swapchain's.
constexpr VkFormat kFormat = VK_FORMAT_R8G8B8A8_UNORM;

}  // namespace

OffscreenTarget::OffscreenTarget(GraphicsDevice& device, int width, int height)
    : device_(device), width_(width), height_(height) {
  VkDevice vk = device.device();
  try {
    auto imageInfo = vkInfo<VkImageCreateInfo>(VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO);
    imageInfo.imageType = VK_IMAGE_TYPE_2D;
    imageInfo.format = kFormat;
    imageInfo.extent = {static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height), 1};
    imageInfo.mipLevels = 1;
    imageInfo.arrayLayers = 1;
    imageInfo.samples = VK_SAMPLE_COUNT_1_BIT;
    imageInfo.tiling = VK_IMAGE_TILING_OPTIMAL;
    imageInfo.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    imageInfo.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    checkVk(vkCreateImage(vk, &imageInfo, nullptr, &image_), "vkCreateImage");
    VkMemoryRequirements needs;
    vkGetImageMemoryRequirements(vk, image_, &needs);
    auto allocate = vkInfo<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
    allocate.allocationSize = needs.size;
    allocate.memoryTypeIndex = device.memoryType(needs.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    checkVk(vkAllocateMemory(vk, &allocate, nullptr, &imageMemory_), "vkAllocateMemory (offscreen image)");
    checkVk(vkBindImageMemory(vk, image_, imageMemory_, 0), "vkBindImageMemory");

    auto viewInfo = vkInfo<VkImageViewCreateInfo>(VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO);
    viewInfo.image = image_;
    viewInfo.viewType = VK_IMAGE_VIEW_TYPE_2D;
    viewInfo.format = kFormat;
    viewInfo.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    checkVk(vkCreateImageView(vk, &viewInfo, nullptr, &view_), "vkCreateImageView");

    // The pass leaves the image ready to be copied out.
    VkAttachmentDescription color{};
    color.format = kFormat;
    color.samples = VK_SAMPLE_COUNT_1_BIT;
    color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    color.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    color.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    color.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    color.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    VkAttachmentReference colorRef{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass{};
    subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    subpass.colorAttachmentCount = 1;
    subpass.pColorAttachments = &colorRef;
    VkSubpassDependency toCopy{};
    toCopy.srcSubpass = 0;
    toCopy.dstSubpass = VK_SUBPASS_EXTERNAL;
    toCopy.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    toCopy.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
    toCopy.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    toCopy.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    auto passInfo = vkInfo<VkRenderPassCreateInfo>(VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO);
    passInfo.attachmentCount = 1;
    passInfo.pAttachments = &color;
    passInfo.subpassCount = 1;
    passInfo.pSubpasses = &subpass;
    passInfo.dependencyCount = 1;
    passInfo.pDependencies = &toCopy;
    checkVk(vkCreateRenderPass(vk, &passInfo, nullptr, &renderPass_), "vkCreateRenderPass");

    auto framebufferInfo = vkInfo<VkFramebufferCreateInfo>(VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO);
    framebufferInfo.renderPass = renderPass_;
    framebufferInfo.attachmentCount = 1;
    framebufferInfo.pAttachments = &view_;
    framebufferInfo.width = imageInfo.extent.width;
    framebufferInfo.height = imageInfo.extent.height;
    framebufferInfo.layers = 1;
    checkVk(vkCreateFramebuffer(vk, &framebufferInfo, nullptr, &framebuffer_), "vkCreateFramebuffer");

    auto bufferInfo = vkInfo<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    bufferInfo.size = static_cast<VkDeviceSize>(width) * static_cast<VkDeviceSize>(height) * 4;
    bufferInfo.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    checkVk(vkCreateBuffer(vk, &bufferInfo, nullptr, &readback_), "vkCreateBuffer (readback)");
    vkGetBufferMemoryRequirements(vk, readback_, &needs);
    allocate.allocationSize = needs.size;
    allocate.memoryTypeIndex = device.memoryType(
        needs.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    checkVk(vkAllocateMemory(vk, &allocate, nullptr, &readbackMemory_), "vkAllocateMemory (readback)");
    checkVk(vkBindBufferMemory(vk, readback_, readbackMemory_, 0), "vkBindBufferMemory");
  } catch (...) {
    release();
    throw;
  }
}

OffscreenTarget::~OffscreenTarget() { release(); }

void OffscreenTarget::release() {
  VkDevice vk = device_.device();
  vkDeviceWaitIdle(vk);
  if (readback_ != VK_NULL_HANDLE) vkDestroyBuffer(vk, readback_, nullptr);
  if (readbackMemory_ != VK_NULL_HANDLE) vkFreeMemory(vk, readbackMemory_, nullptr);
  if (framebuffer_ != VK_NULL_HANDLE) vkDestroyFramebuffer(vk, framebuffer_, nullptr);
  if (renderPass_ != VK_NULL_HANDLE) vkDestroyRenderPass(vk, renderPass_, nullptr);
  if (view_ != VK_NULL_HANDLE) vkDestroyImageView(vk, view_, nullptr);
  if (image_ != VK_NULL_HANDLE) vkDestroyImage(vk, image_, nullptr);
  if (imageMemory_ != VK_NULL_HANDLE) vkFreeMemory(vk, imageMemory_, nullptr);
  readback_ = VK_NULL_HANDLE;
  readbackMemory_ = VK_NULL_HANDLE;
  framebuffer_ = VK_NULL_HANDLE;
  renderPass_ = VK_NULL_HANDLE;
  view_ = VK_NULL_HANDLE;
  image_ = VK_NULL_HANDLE;
  imageMemory_ = VK_NULL_HANDLE;
}

void OffscreenTarget::render(ImDrawData* drawData, const float clear[4]) {
  device_.submitNow([&](VkCommandBuffer commands) {
    VkClearValue clearValue{};
    std::memcpy(clearValue.color.float32, clear, 4 * sizeof(float));
    auto begin = vkInfo<VkRenderPassBeginInfo>(VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO);
    begin.renderPass = renderPass_;
    begin.framebuffer = framebuffer_;
    begin.renderArea.extent = {static_cast<std::uint32_t>(width_), static_cast<std::uint32_t>(height_)};
    begin.clearValueCount = 1;
    begin.pClearValues = &clearValue;
    vkCmdBeginRenderPass(commands, &begin, VK_SUBPASS_CONTENTS_INLINE);
    ImGui_ImplVulkan_RenderDrawData(drawData, commands);
    vkCmdEndRenderPass(commands);

    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {static_cast<std::uint32_t>(width_), static_cast<std::uint32_t>(height_), 1};
    vkCmdCopyImageToBuffer(commands, image_, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback_, 1, &region);
    auto toHost = vkInfo<VkBufferMemoryBarrier>(VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER);
    toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    toHost.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    toHost.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    toHost.buffer = readback_;
    toHost.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1, &toHost,
                         0, nullptr);
  });
}

std::vector<std::uint8_t> OffscreenTarget::pixels() const {
  std::size_t bytes = static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_) * 4;
  std::vector<std::uint8_t> out(bytes);
  void* mapped = nullptr;
  checkVk(vkMapMemory(device_.device(), readbackMemory_, 0, VK_WHOLE_SIZE, 0, &mapped), "vkMapMemory");
  std::memcpy(out.data(), mapped, bytes);
  vkUnmapMemory(device_.device(), readbackMemory_);
  // ImGui's blend state writes translucent alpha where it draws translucent shapes; a
  // screenshot is an opaque picture of the window.
  for (std::size_t i = 3; i < bytes; i += 4) out[i] = 255;
  return out;
}

}  // namespace tileskip::ui
