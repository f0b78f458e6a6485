// One Vulkan device opened for compute: instance (with validation layers and a messenger that
// keeps every message when asked), device selection, a compute queue, command recording and
// submission with timestamp timing, and the pipelines of the kernels. Everything a
// DeviceProblem needs from the device goes through here.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backends/vulkan/device_selection.hpp"
#include "backends/vulkan/limits.hpp"
#include "backends/vulkan/pipeline_statistics.hpp"
#include "backends/vulkan/specialization.hpp"
#include "backends/vulkan/vulkan_api.hpp"
#include "core/model/backend.hpp"

namespace tileskip::vk {

// The problem every shader receives as push constants.
struct PushConstants {
  std::uint32_t m, n, k;
  std::uint32_t lda, ldb, ldc;
  std::uint32_t groupOffsetX, groupOffsetY;
};

class Context {
 public:
  explicit Context(const BackendOptions& options);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const DeviceInfo& info() const { return info_; }
  const ComputeLimits& limits() const { return limits_; }
  const DeviceFunctions& vk() const { return vk_; }
  VkDevice device() const { return device_; }
  VkDescriptorSetLayout setLayout() const { return setLayout_; }
  VkPipelineLayout pipelineLayout() const { return pipelineLayout_; }

  // Messages from the validation layers and the driver since the last call.
  std::vector<std::string> takeDiagnostics();

  // Memory: a type index of `typeBits` with every `required` flag, preferring one with all of
  // `preferred`, then one with none of `avoided`; the first such type on a tie.
  std::optional<std::uint32_t> memoryType(std::uint32_t typeBits, VkMemoryPropertyFlags required,
                                          VkMemoryPropertyFlags preferred = 0, VkMemoryPropertyFlags avoided = 0) const;
  // Device-local memory the host maps directly (lavapipe, integrated GPUs): no staging copies.
  // False on discrete GPUs, where even a host-visible BAR heap is slow to read back.
  bool unifiedMemory() const { return unifiedMemory_; }
  // Device-local bytes this process may still allocate (the budget where the driver reports one).
  std::uint64_t deviceMemoryAvailable() const;

  // Throws UnavailableError for an error result; a lost device stays lost for this process.
  void check(VkResult result, const std::string& what);

  // Records with `record`, submits and waits. With `timed`, returns the device milliseconds
  // between timestamps written around the recorded work (host time where the queue has no
  // timestamps). Orders the work after all earlier submissions and makes its writes visible to
  // the host before it returns.
  double execute(const std::function<void(VkCommandBuffer)>& record, bool timed);

  // A barrier between two steps of one command buffer that touch the same buffers.
  void stepBarrier(VkCommandBuffer cmd) const;

  // The compute pipeline of shader `stem` with these constants, built on first use.
  // `workgroupSize` is the local size the pipeline will have (0 for a fixed size in the shader):
  // it decides whether the subgroup size can be pinned. `kernel` names it in pipeline
  // statistics (pipeline_statistics.hpp), which a new pipeline prints where they were asked for.
  VkPipeline pipeline(std::string_view stem, const Specialization& constants, std::uint32_t workgroupSize,
                      std::string_view kernel = {});
  // Whether that pipeline was built (tests: which constants a kernel ran with).
  bool hasPipeline(std::string_view stem, const Specialization& constants) const;
  // Whether new pipelines report the driver's statistics (asked for, and the device can).
  bool reportsPipelines() const { return reportPipelines_; }

  // The descriptor bindings of every shader: A, B, C, A-pattern, B-pattern, the block tile queue.
  static constexpr std::uint32_t kBindings = 6;

  // Records dispatches of `groupsX` x `groupsY` workgroups, split into several where a count
  // exceeds maxComputeWorkGroupCount (the shaders add groupOffset to gl_WorkGroupID).
  void dispatch(VkCommandBuffer cmd, VkPipeline pipeline, VkDescriptorSet set, PushConstants constants,
                std::uint64_t groupsX, std::uint64_t groupsY) const;

 private:
  static VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                  VkDebugUtilsMessageTypeFlagsEXT types,
                                                  const VkDebugUtilsMessengerCallbackDataEXT* data, void* self);
  void createInstance(bool validation);
  std::vector<DeviceCandidate> describeDevices(const std::vector<VkPhysicalDevice>& devices);
  void createDevice(VkPhysicalDevice physical);
  void createCommandObjects();
  void createLayouts();
  void describe(VkPhysicalDevice physical);
  void throwIfLost() const;
  void release();
  void reportPipeline(VkPipeline pipeline, std::string_view kernel, std::string_view stem, const Specialization& constants);

  InstanceFunctions vi_;
  DeviceFunctions vk_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  std::uint32_t queueFamily_ = 0;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool commandPool_ = VK_NULL_HANDLE;
  VkCommandBuffer commandBuffer_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queryPool_ = VK_NULL_HANDLE;  // two timestamps; null where the queue has none
  VkDescriptorSetLayout setLayout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipelineLayout_ = VK_NULL_HANDLE;
  std::map<std::pair<std::string, Specialization>, VkPipeline> pipelines_;

  DeviceInfo info_;
  ComputeLimits limits_;
  VkPhysicalDeviceMemoryProperties memory_{};
  bool unifiedMemory_ = false;
  bool memoryBudget_ = false;
  std::uint32_t timestampValidBits_ = 0;
  double timestampPeriodNs_ = 1.0;
  bool lost_ = false;
  // TILESKIP_VULKAN_PIPELINE_STATS / _IR (pipeline_statistics.hpp); reportPipelines_ once the
  // device has enabled VK_KHR_pipeline_executable_properties for them.
  PipelineReportRequest pipelineReport_;
  bool reportPipelines_ = false;

  std::mutex diagnosticsMutex_;
  std::vector<std::string> diagnostics_;
};

}  // namespace tileskip::vk
