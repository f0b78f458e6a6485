// Work on the device's compute queue: one command buffer recorded, submitted and waited for at a
// time, timed by timestamps written around the recorded work (host time where the queue has
// none), with the barriers that order it after earlier work and make its writes visible.
#pragma once

#include <functional>

#include "backends/vulkan/device.hpp"

namespace tileskip::vk {

class ComputeQueue {
 public:
  explicit ComputeQueue(Device& device);
  ~ComputeQueue();
  ComputeQueue(const ComputeQueue&) = delete;
  ComputeQueue& operator=(const ComputeQueue&) = delete;

  // Records with `record`, submits and waits. With `timed`, returns the device milliseconds
  // between timestamps written around the recorded work (host time where the queue has no
  // timestamps). Orders the work after all earlier submissions and makes its writes visible to
  // the host before it returns. Throws UnavailableError (Device::check) where a call fails.
  double execute(const std::function<void(VkCommandBuffer)>& record, bool timed);

 private:
  void release();

  Device& device_;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool commandPool_ = VK_NULL_HANDLE;
  VkCommandBuffer commandBuffer_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queryPool_ = VK_NULL_HANDLE;  // two timestamps; null where the queue has none
};

// A barrier between two steps of one command buffer that touch the same buffers.
void stepBarrier(const DeviceFunctions& vk, VkCommandBuffer cmd);

}  // namespace tileskip::vk
