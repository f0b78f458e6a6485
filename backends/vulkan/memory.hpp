// Buffers on the device. Matrices and patterns live in device-local memory; on a discrete GPU
// the host reaches them through a staging buffer and a copy, on lavapipe and integrated GPUs
// (Device::unifiedMemory) it maps them directly.
#pragma once

#include <cstdint>
#include <string>

#include "backends/vulkan/context.hpp"

namespace tileskip::vk {

enum class MemoryUse {
  Device,   // device-local; mapped as well where memory is unified
  Staging,  // host-visible and coherent, cached where the device offers it (for read-back)
};

class Buffer {
 public:
  Buffer() = default;
  // `what` names the buffer in errors ("matrix C (4096x4096)"). Throws UnavailableError, with
  // the bytes needed and available, when the device has no room.
  Buffer(Device& device, std::uint64_t bytes, MemoryUse use, const std::string& what);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  VkBuffer handle() const { return buffer_; }
  std::uint64_t bytes() const { return bytes_; }
  void* mapped() const { return mapped_; }  // null unless host-visible
  explicit operator bool() const { return buffer_ != VK_NULL_HANDLE; }

 private:
  void release();

  Device* device_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  std::uint64_t bytes_ = 0;
  void* mapped_ = nullptr;
};

// Host data into a device buffer and back, through `staging` (grown as needed) and a copy on the
// context's queue unless the device buffer is mapped.
void upload(Context& context, Buffer& device, Buffer& staging, const void* data, std::uint64_t bytes);
void download(Context& context, const Buffer& device, Buffer& staging, void* data, std::uint64_t bytes);

}  // namespace tileskip::vk
