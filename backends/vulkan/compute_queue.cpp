#include "backends/vulkan/compute_queue.hpp"

#include <chrono>

#include "core/process/process_exit.hpp"

namespace tileskip::vk {

ComputeQueue::ComputeQueue(Device& device) : device_(device) {
  const DeviceFunctions& vk = device.vk();
  vk.vkGetDeviceQueue(device.handle(), device.queueFamily(), 0, &queue_);
  try {
    VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    poolInfo.queueFamilyIndex = device.queueFamily();
    device.check(vk.vkCreateCommandPool(device.handle(), &poolInfo, nullptr, &commandPool_), "creating a command pool");
    VkCommandBufferAllocateInfo bufferInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    bufferInfo.commandPool = commandPool_;
    bufferInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    bufferInfo.commandBufferCount = 1;
    device.check(vk.vkAllocateCommandBuffers(device.handle(), &bufferInfo, &commandBuffer_), "allocating a command buffer");
    VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    device.check(vk.vkCreateFence(device.handle(), &fenceInfo, nullptr, &fence_), "creating a fence");
    // Where the queue has no timestamps the device's description says so (PhysicalDevice::describe).
    if (device.timestampValidBits() > 0) {
      VkQueryPoolCreateInfo queryInfo{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
      queryInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
      queryInfo.queryCount = 2;
      device.check(vk.vkCreateQueryPool(device.handle(), &queryInfo, nullptr, &queryPool_), "creating a timestamp query pool");
    }
  } catch (...) {
    release();  // a constructor that throws gets no destructor call
    throw;
  }
}

ComputeQueue::~ComputeQueue() { release(); }

void ComputeQueue::release() {
  if (processExiting()) return;  // see core/process/process_exit.hpp
  const DeviceFunctions& vk = device_.vk();
  if (queryPool_) vk.vkDestroyQueryPool(device_.handle(), queryPool_, nullptr);
  if (fence_) vk.vkDestroyFence(device_.handle(), fence_, nullptr);
  if (commandPool_) vk.vkDestroyCommandPool(device_.handle(), commandPool_, nullptr);  // frees the command buffer
  queryPool_ = VK_NULL_HANDLE;
  fence_ = VK_NULL_HANDLE;
  commandPool_ = VK_NULL_HANDLE;
  commandBuffer_ = VK_NULL_HANDLE;
}

double ComputeQueue::execute(const std::function<void(VkCommandBuffer)>& record, bool timed) {
  device_.throwIfLost();
  const DeviceFunctions& vk = device_.vk();
  VkCommandBuffer cmd = commandBuffer_;
  device_.check(vk.vkResetCommandBuffer(cmd, 0), "resetting a command buffer");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  device_.check(vk.vkBeginCommandBuffer(cmd, &begin), "recording a command buffer");
  // Queue order alone does not make an earlier submission's writes visible to this one.
  VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  before.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT;
  before.dstAccessMask =
      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  const VkPipelineStageFlags work = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vk.vkCmdPipelineBarrier(cmd, work | VK_PIPELINE_STAGE_HOST_BIT, work, 0, 1, &before, 0, nullptr, 0, nullptr);
  bool deviceTimed = timed && queryPool_ != VK_NULL_HANDLE;
  if (deviceTimed) {
    vk.vkCmdResetQueryPool(cmd, queryPool_, 0, 2);
    vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queryPool_, 0);
  }
  record(cmd);
  if (deviceTimed) vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queryPool_, 1);
  // The host reads mapped results (downloads) once the fence says the work is done.
  VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  after.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  after.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vk.vkCmdPipelineBarrier(cmd, work, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0, nullptr, 0, nullptr);
  device_.check(vk.vkEndCommandBuffer(cmd), "recording a command buffer");

  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  auto start = std::chrono::steady_clock::now();
  device_.check(vk.vkQueueSubmit(queue_, 1, &submit, fence_), "submitting work");
  VkResult waited = vk.vkWaitForFences(device_.handle(), 1, &fence_, VK_TRUE, UINT64_MAX);
  double hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  device_.check(waited, "waiting for the device");
  device_.check(vk.vkResetFences(device_.handle(), 1, &fence_), "resetting a fence");
  if (!timed) return 0.0;
  if (!deviceTimed) return hostMs;
  std::uint64_t stamps[2] = {};
  device_.check(vk.vkGetQueryPoolResults(device_.handle(), queryPool_, 0, 2, sizeof stamps, stamps, sizeof stamps[0],
                                         VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                "reading timestamps");
  const std::uint32_t validBits = device_.timestampValidBits();
  std::uint64_t mask = validBits >= 64 ? ~0ull : (1ull << validBits) - 1;
  std::uint64_t ticks = (stamps[1] - stamps[0]) & mask;  // correct across one wrap of the counter
  return static_cast<double>(ticks) * device_.timestampPeriodNs() * 1e-6;
}

void stepBarrier(const DeviceFunctions& vk, VkCommandBuffer cmd) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask =
      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vk.vkCmdPipelineBarrier(cmd, stages, stages, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

}  // namespace tileskip::vk
