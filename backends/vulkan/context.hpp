// One Vulkan device opened for compute, as the four pieces a problem uses: the instance (its
// validation messages), the device (what it is, its memory, its errors), its compute queue
// (submission and timing) and the kernels' pipelines. The backend and its problems share one.
#pragma once

#include "backends/vulkan/compute_queue.hpp"
#include "backends/vulkan/device.hpp"
#include "backends/vulkan/instance.hpp"
#include "backends/vulkan/pipeline_statistics.hpp"
#include "backends/vulkan/pipelines.hpp"
#include "core/model/backend.hpp"

namespace tileskip::vk {

class Context {
 public:
  // Throws UnavailableError (no loader, driver or suitable device, validation without its layer)
  // or InputError (a device index that does not exist, a bad TILESKIP_VULKAN_PIPELINE_* value).
  explicit Context(const BackendOptions& options);
  // Waits for the device to finish before its pieces are destroyed, pipelines first, the instance last.
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  Instance& instance() { return instance_; }
  Device& device() { return device_; }
  const Device& device() const { return device_; }
  ComputeQueue& queue() { return queue_; }
  Pipelines& pipelines() { return pipelines_; }
  const Pipelines& pipelines() const { return pipelines_; }

 private:
  // Declared in the order they are built; each needs the ones above it.
  PipelineReportRequest pipelineReport_;  // TILESKIP_VULKAN_PIPELINE_STATS / _IR
  Instance instance_;
  Device device_;
  ComputeQueue queue_;
  Pipelines pipelines_;
};

}  // namespace tileskip::vk
