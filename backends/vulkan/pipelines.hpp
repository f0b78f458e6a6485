// The kernels' pipelines: one descriptor set layout and pipeline layout for every shader (six
// storage buffers, the problem as push constants), each pipeline built on first use from the
// embedded SPIR-V and kept per (shader, constants), and the dispatches that run one.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "backends/vulkan/device.hpp"
#include "backends/vulkan/pipeline_statistics.hpp"
#include "backends/vulkan/specialization.hpp"

namespace tileskip::vk {

// The problem every shader receives as push constants.
struct PushConstants {
  std::uint32_t m, n, k;
  std::uint32_t lda, ldb, ldc;
  std::uint32_t groupOffsetX, groupOffsetY;
  std::uint32_t tileFirst, tileCount;  // a persistent kernel's block tiles of this dispatch
};

class Pipelines {
 public:
  // The descriptor bindings of every shader: A, B, C, A-pattern, B-pattern, the block tile queue,
  // and A and B in fp16 (the tensor-core kernels' inputs, made by kernels/to_half.comp); binding 6
  // holds A transposed instead for a compaction kernel (to_half.comp's, or transpose_a.comp's in fp32).
  static constexpr std::uint32_t kBindings = 8;

  // New pipelines report the driver's statistics where `report` asks for them and the device can.
  Pipelines(Device& device, const PipelineReportRequest& report);
  ~Pipelines();
  Pipelines(const Pipelines&) = delete;
  Pipelines& operator=(const Pipelines&) = delete;

  VkDescriptorSetLayout setLayout() const { return setLayout_; }

  // The compute pipeline of shader `stem` with these constants, built on first use.
  // `workgroupSize` is the local size the pipeline will have (0 for a fixed size in the shader):
  // it decides whether the subgroup size can be pinned. `kernel` names it in pipeline
  // statistics (pipeline_statistics.hpp), which a new pipeline prints where they were asked for.
  VkPipeline pipeline(std::string_view stem, const Specialization& constants, std::uint32_t workgroupSize,
                      std::string_view kernel = {});

  // What `pipeline` is asked for: a shader, its constants, its local size and the kernel it runs.
  struct Request {
    std::string stem;
    Specialization constants;
    std::uint32_t workgroupSize = 0;
    std::string kernel;
  };
  VkPipeline pipeline(const Request& request) {
    return pipeline(request.stem, request.constants, request.workgroupSize, request.kernel);
  }
  // Builds those of `requests` not built yet, on several threads at once: a driver compiles a
  // pipeline on the thread that asks for it, and one after another a fresh NVIDIA machine took
  // 194-232 s for every kernel (lab/32-tile-work). A request that fails is left unbuilt,
  // for `pipeline` to report when it is used.
  void buildAhead(std::span<const Request> requests);
  // Whether that pipeline was built (tests: which constants a kernel ran with).
  bool hasPipeline(std::string_view stem, const Specialization& constants) const;

  // Records dispatches of `groupsX` x `groupsY` workgroups, split into several where a count
  // exceeds maxComputeWorkGroupCount (the shaders add groupOffset to gl_WorkGroupID).
  void dispatch(VkCommandBuffer cmd, VkPipeline pipeline, VkDescriptorSet set, PushConstants constants,
                std::uint64_t groupsX, std::uint64_t groupsY) const;

 private:
  void release();
  // A new pipeline of `request`, or the result that refused it; no member changes (buildAhead
  // calls it on several threads).
  VkResult create(const Request& request, VkPipeline* pipeline) const;

  Device& device_;
  PipelineReportRequest report_;
  bool reportPipelines_ = false;  // asked for, and the device enabled the extension
  VkDescriptorSetLayout setLayout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipelineLayout_ = VK_NULL_HANDLE;
  std::map<std::pair<std::string, Specialization>, VkPipeline> pipelines_;
};

}  // namespace tileskip::vk
