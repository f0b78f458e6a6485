#include "backends/vulkan/memory.hpp"

#include <cstring>
#include <utility>

#include "core/model/error.hpp"
#include "core/process/process_exit.hpp"

namespace tileskip::vk {

namespace {

constexpr VkBufferUsageFlags kUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

void ensureStaging(Device& device, Buffer& staging, std::uint64_t bytes) {
  if (staging.bytes() < bytes) staging = Buffer(device, bytes, MemoryUse::Staging, "a staging buffer");
}

}  // namespace

Buffer::Buffer(Device& device, std::uint64_t bytes, MemoryUse use, const std::string& what)
    : device_(&device), bytes_(bytes) {
  const DeviceFunctions& vk = device.vk();
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = kUsage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  device.check(vk.vkCreateBuffer(device.handle(), &info, nullptr, &buffer_), "creating " + what);
  VkMemoryRequirements needs{};
  vk.vkGetBufferMemoryRequirements(device.handle(), buffer_, &needs);

  const VkMemoryPropertyFlags hostVisible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  std::optional<std::uint32_t> type;
  if (use == MemoryUse::Staging) {
    type = device.memoryType(needs.memoryTypeBits, hostVisible, VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  } else if (device.unifiedMemory()) {
    type = device.memoryType(needs.memoryTypeBits, hostVisible | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  } else {
    // Not the host-visible window of a discrete GPU (a small BAR heap where ReBAR is off).
    type = device.memoryType(needs.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
  }
  if (!type) type = device.memoryType(needs.memoryTypeBits, use == MemoryUse::Staging ? hostVisible : 0);
  if (!type) {
    release();
    throw UnavailableError("the Vulkan device offers no suitable memory type for " + what);
  }
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocate.allocationSize = needs.size;
  allocate.memoryTypeIndex = *type;
  VkResult result = vk.vkAllocateMemory(device.handle(), &allocate, nullptr, &memory_);
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY) {
    std::uint64_t available = device.memoryAvailable();
    release();
    throw UnavailableError(what + " needs " + byteText(needs.size) + " of " +
                           (use == MemoryUse::Staging ? "host-visible" : "device") + " memory, " +
                           byteText(available) + " of device memory is available; use smaller matrices");
  }
  try {
    device.check(result, "allocating " + byteText(needs.size) + " for " + what);
    device.check(vk.vkBindBufferMemory(device.handle(), buffer_, memory_, 0), "binding memory to " + what);
    VkMemoryPropertyFlags flags = 0;
    if (use == MemoryUse::Staging || device.unifiedMemory()) flags = hostVisible;
    if (flags != 0) device.check(vk.vkMapMemory(device.handle(), memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "mapping " + what);
  } catch (...) {
    release();
    throw;
  }
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& other) noexcept
    : device_(std::exchange(other.device_, nullptr)),
      buffer_(std::exchange(other.buffer_, VK_NULL_HANDLE)),
      memory_(std::exchange(other.memory_, VK_NULL_HANDLE)),
      bytes_(std::exchange(other.bytes_, 0)),
      mapped_(std::exchange(other.mapped_, nullptr)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    device_ = std::exchange(other.device_, nullptr);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    bytes_ = std::exchange(other.bytes_, 0);
    mapped_ = std::exchange(other.mapped_, nullptr);
  }
  return *this;
}

void Buffer::release() {
  if (device_ == nullptr || processExiting()) return;  // see core/process/process_exit.hpp
  const DeviceFunctions& vk = device_->vk();
  if (buffer_ != VK_NULL_HANDLE) vk.vkDestroyBuffer(device_->handle(), buffer_, nullptr);
  if (memory_ != VK_NULL_HANDLE) vk.vkFreeMemory(device_->handle(), memory_, nullptr);  // unmaps too
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
  ensureStaging(context.device(), staging, bytes);
  std::memcpy(staging.mapped(), data, bytes);
  context.queue().execute(
      [&](VkCommandBuffer cmd) {
        VkBufferCopy region{0, 0, bytes};
        context.device().vk().vkCmdCopyBuffer(cmd, staging.handle(), device.handle(), 1, &region);
      },
      false);
}

void download(Context& context, const Buffer& device, Buffer& staging, void* data, std::uint64_t bytes) {
  if (device.mapped() != nullptr) {
    std::memcpy(data, device.mapped(), bytes);
    return;
  }
  ensureStaging(context.device(), staging, bytes);
  context.queue().execute(
      [&](VkCommandBuffer cmd) {
        VkBufferCopy region{0, 0, bytes};
        context.device().vk().vkCmdCopyBuffer(cmd, device.handle(), staging.handle(), 1, &region);
      },
      false);
  std::memcpy(data, staging.mapped(), bytes);
}

}  // namespace tileskip::vk
