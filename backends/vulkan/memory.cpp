#include "backends/vulkan/memory.hpp"

#include <cstring>
#include <utility>

#include "core/model/error.hpp"
#include "core/process/process_exit.hpp"

namespace tileskip::vk {

namespace {

constexpr VkBufferUsageFlags kUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

void ensureStaging(Context& context, Buffer& staging, std::uint64_t bytes) {
  if (staging.bytes() < bytes) staging = Buffer(context, bytes, MemoryUse::Staging, "a staging buffer");
}

}  // namespace

Buffer::Buffer(Context& context, std::uint64_t bytes, MemoryUse use, const std::string& what)
    : context_(&context), bytes_(bytes) {
  const DeviceFunctions& vk = context.vk();
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = kUsage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  context.check(vk.vkCreateBuffer(context.device(), &info, nullptr, &buffer_), "creating " + what);
  VkMemoryRequirements needs{};
  vk.vkGetBufferMemoryRequirements(context.device(), buffer_, &needs);

  const VkMemoryPropertyFlags hostVisible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  std::optional<std::uint32_t> type;
  if (use == MemoryUse::Staging) {
    type = context.memoryType(needs.memoryTypeBits, hostVisible, VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  } else if (context.unifiedMemory()) {
    type = context.memoryType(needs.memoryTypeBits, hostVisible | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  } else {
    // Not the host-visible window of a discrete GPU (a small BAR heap where ReBAR is off).
    type = context.memoryType(needs.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
  }
  if (!type) type = context.memoryType(needs.memoryTypeBits, use == MemoryUse::Staging ? hostVisible : 0);
  if (!type) {
    release();
    throw UnavailableError("the Vulkan device offers no suitable memory type for " + what);
  }
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocate.allocationSize = needs.size;
  allocate.memoryTypeIndex = *type;
  VkResult result = vk.vkAllocateMemory(context.device(), &allocate, nullptr, &memory_);
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY) {
    std::uint64_t available = context.deviceMemoryAvailable();
    release();
    throw UnavailableError(what + " needs " + byteText(needs.size) + " of " +
                           (use == MemoryUse::Staging ? "host-visible" : "device") + " memory, " +
                           byteText(available) + " of device memory is available; use smaller matrices");
  }
  try {
    context.check(result, "allocating " + byteText(needs.size) + " for " + what);
    context.check(vk.vkBindBufferMemory(context.device(), buffer_, memory_, 0), "binding memory to " + what);
    VkMemoryPropertyFlags flags = 0;
    if (use == MemoryUse::Staging || context.unifiedMemory()) flags = hostVisible;
    if (flags != 0) context.check(vk.vkMapMemory(context.device(), memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "mapping " + what);
  } catch (...) {
    release();
    throw;
  }
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& other) noexcept
    : context_(std::exchange(other.context_, nullptr)),
      buffer_(std::exchange(other.buffer_, VK_NULL_HANDLE)),
      memory_(std::exchange(other.memory_, VK_NULL_HANDLE)),
      bytes_(std::exchange(other.bytes_, 0)),
      mapped_(std::exchange(other.mapped_, nullptr)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    context_ = std::exchange(other.context_, nullptr);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    bytes_ = std::exchange(other.bytes_, 0);
    mapped_ = std::exchange(other.mapped_, nullptr);
  }
  return *this;
}

void Buffer::release() {
  if (context_ == nullptr || processExiting()) return;  // see core/process/process_exit.hpp
  const DeviceFunctions& vk = context_->vk();
  if (buffer_ != VK_NULL_HANDLE) vk.vkDestroyBuffer(context_->device(), buffer_, nullptr);
  if (memory_ != VK_NULL_HANDLE) vk.vkFreeMemory(context_->device(), memory_, nullptr);  // unmaps too
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
  bytes_ = 0;
}

void upload(Context& context, Buffer& device, Buffer& staging, const void* data, std::uint64_t bytes) {
  if (device.mapped() != nullptr) {
    std::memcpy(device.mapped(), data, bytes);
    return;
  }
  ensureStaging(context, staging, bytes);
  std::memcpy(staging.mapped(), data, bytes);
  context.execute(
      [&](VkCommandBuffer cmd) {
        VkBufferCopy region{0, 0, bytes};
        context.vk().vkCmdCopyBuffer(cmd, staging.handle(), device.handle(), 1, &region);
      },
      false);
}

void download(Context& context, const Buffer& device, Buffer& staging, void* data, std::uint64_t bytes) {
  if (device.mapped() != nullptr) {
    std::memcpy(data, device.mapped(), bytes);
    return;
  }
  ensureStaging(context, staging, bytes);
  context.execute(
      [&](VkCommandBuffer cmd) {
        VkBufferCopy region{0, 0, bytes};
        context.vk().vkCmdCopyBuffer(cmd, device.handle(), staging.handle(), 1, &region);
      },
      false);
  std::memcpy(data, staging.mapped(), bytes);
}

}  // namespace tileskip::vk
