#include "backends/vulkan/pipelines.hpp"

#include <algorithm>
#include <atomic>
#include <iterator>
#include <optional>
#include <set>
#include <span>
#include <system_error>
#include <thread>
#include <vector>

#include "backends/vulkan/compute_queue.hpp"
#include "backends/vulkan/embedded_spirv.hpp"
#include "backends/vulkan/limits.hpp"
#include "core/model/error.hpp"
#include "core/process/process_exit.hpp"

namespace tileskip::vk {

namespace {

constexpr auto kSpecializationCount = static_cast<std::uint32_t>(SpecId::Count);

}  // namespace

bool Specialization::operator<(const Specialization& other) const {
  return std::lexicographical_compare(std::begin(values), std::end(values), std::begin(other.values),
                                      std::end(other.values));
}

Pipelines::Pipelines(Device& device, const PipelineReportRequest& report)
    : device_(device), report_(report), reportPipelines_(device.reportsPipelines()) {
  const DeviceFunctions& vk = device.vk();
  try {
    // One layout for every shader: A, B, C, A-pattern, B-pattern (kernels/parts/common.glsl) and
    // the block tile queue of the persistent kernels (kernels/parts/warp_skip.glsl).
    VkDescriptorSetLayoutBinding bindings[kBindings] = {};
    for (std::uint32_t i = 0; i < kBindings; ++i) {
      bindings[i].binding = i;
      bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      bindings[i].descriptorCount = 1;
      bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    setInfo.bindingCount = kBindings;
    setInfo.pBindings = bindings;
    device.check(vk.vkCreateDescriptorSetLayout(device.handle(), &setInfo, nullptr, &setLayout_), "creating the descriptor set layout");
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(PushConstants)};
    VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layoutInfo.setLayoutCount = 1;
    layoutInfo.pSetLayouts = &setLayout_;
    layoutInfo.pushConstantRangeCount = 1;
    layoutInfo.pPushConstantRanges = &range;
    device.check(vk.vkCreatePipelineLayout(device.handle(), &layoutInfo, nullptr, &pipelineLayout_), "creating the pipeline layout");
  } catch (...) {
    release();  // a constructor that throws gets no destructor call
    throw;
  }
}

Pipelines::~Pipelines() { release(); }

void Pipelines::release() {
  if (processExiting()) return;  // see core/process/process_exit.hpp
  const DeviceFunctions& vk = device_.vk();
  for (auto& [key, pipeline] : pipelines_) vk.vkDestroyPipeline(device_.handle(), pipeline, nullptr);
  pipelines_.clear();
  if (pipelineLayout_) vk.vkDestroyPipelineLayout(device_.handle(), pipelineLayout_, nullptr);
  if (setLayout_) vk.vkDestroyDescriptorSetLayout(device_.handle(), setLayout_, nullptr);
  pipelineLayout_ = VK_NULL_HANDLE;
  setLayout_ = VK_NULL_HANDLE;
}

bool Pipelines::hasPipeline(std::string_view stem, const Specialization& constants) const {
  return pipelines_.count(std::pair(std::string(stem), constants)) > 0;
}

VkPipeline Pipelines::pipeline(std::string_view stem, const Specialization& constants, std::uint32_t workgroupSize,
                               std::string_view kernel) {
  auto key = std::pair(std::string(stem), constants);
  if (auto it = pipelines_.find(key); it != pipelines_.end()) return it->second;
  device_.throwIfLost();
  if (embeddedSpirv(stem).empty()) throw InputError("no shader '" + std::string(stem) + "' is embedded in this build");
  VkPipeline pipeline = VK_NULL_HANDLE;
  device_.check(create({std::string(stem), constants, workgroupSize, std::string(kernel)}, &pipeline),
                "building the pipeline of " + std::string(stem));
  pipelines_.emplace(std::move(key), pipeline);
  if (reportPipelines_) reportPipeline(device_.vk(), device_.handle(), pipeline, report_, kernel.empty() ? stem : kernel, stem, constants);
  return pipeline;
}

VkResult Pipelines::create(const Request& request, VkPipeline* pipeline) const {
  std::span<const std::uint32_t> spirv = embeddedSpirv(request.stem);
  const DeviceFunctions& vk = device_.vk();
  VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  moduleInfo.codeSize = spirv.size_bytes();
  moduleInfo.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  if (VkResult result = vk.vkCreateShaderModule(device_.handle(), &moduleInfo, nullptr, &module); result != VK_SUCCESS) {
    return result;
  }

  VkSpecializationMapEntry entries[kSpecializationCount];
  for (std::uint32_t i = 0; i < kSpecializationCount; ++i) {
    entries[i] = {i, static_cast<std::uint32_t>(i * sizeof(std::uint32_t)), sizeof(std::uint32_t)};
  }
  VkSpecializationInfo specialization{kSpecializationCount, entries, sizeof request.constants.values, request.constants.values};
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  info.stage.pSpecializationInfo = &specialization;
  info.layout = pipelineLayout_;
  if (reportPipelines_) {
    info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    if (!report_.irDirectory.empty()) info.flags |= VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
  }
  // Kernels are correct at any subgroup size; a warp-sized one is what they are tuned for.
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfoEXT required{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO_EXT};
  if (std::optional<std::uint32_t> size = pinnedSubgroupSize(request.workgroupSize, device_.limits())) {
    required.requiredSubgroupSize = *size;
    info.stage.pNext = &required;
    if (device_.limits().fullSubgroups) info.stage.flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT_EXT;
  }
  VkResult result = vk.vkCreateComputePipelines(device_.handle(), VK_NULL_HANDLE, 1, &info, nullptr, pipeline);
  vk.vkDestroyShaderModule(device_.handle(), module, nullptr);
  return result;
}

void Pipelines::buildAhead(std::span<const Request> requests) {
  // The new ones, each once.
  std::vector<const Request*> missing;
  std::set<std::pair<std::string, Specialization>> seen;
  for (const Request& r : requests) {
    auto key = std::pair(r.stem, r.constants);
    if (pipelines_.count(key) || !seen.insert(key).second || embeddedSpirv(r.stem).empty()) continue;
    missing.push_back(&r);
  }
  if (missing.size() < 2 || device_.lost()) return;  // one pipeline gains nothing from a thread
  std::vector<VkPipeline> built(missing.size(), VK_NULL_HANDLE);
  std::vector<VkResult> results(missing.size(), VK_INCOMPLETE);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < missing.size(); i = next++) results[i] = create(*missing[i], &built[i]);
  };
  const std::size_t threads = std::min<std::size_t>(missing.size(), std::max(1u, std::thread::hardware_concurrency()));
  {
    std::vector<std::jthread> workers;
    for (std::size_t t = 1; t < threads; ++t) {
      try {
        workers.emplace_back(work);
      } catch (const std::system_error&) {
        break;  // no more threads to be had: those started (and this one) build the rest
      }
    }
    work();
  }
  // Kept and reported in the requests' order, on this thread, as `pipeline` would have.
  for (std::size_t i = 0; i < missing.size(); ++i) {
    if (results[i] != VK_SUCCESS) {
      if (built[i] != VK_NULL_HANDLE) device_.vk().vkDestroyPipeline(device_.handle(), built[i], nullptr);
      continue;
    }
    const Request& r = *missing[i];
    pipelines_.emplace(std::pair(r.stem, r.constants), built[i]);
    if (reportPipelines_) {
      reportPipeline(device_.vk(), device_.handle(), built[i], report_, r.kernel.empty() ? std::string_view(r.stem) : r.kernel,
                     r.stem, r.constants);
    }
  }
}

void Pipelines::dispatch(VkCommandBuffer cmd, VkPipeline pipeline, VkDescriptorSet set, PushConstants constants,
                         std::uint64_t groupsX, std::uint64_t groupsY) const {
  const DeviceFunctions& vk = device_.vk();
  const ComputeLimits& limits = device_.limits();
  vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelineLayout_, 0, 1, &set, 0, nullptr);
  bool first = true;
  for (std::uint64_t y = 0; y < groupsY; y += limits.maxGroupCountY) {
    for (std::uint64_t x = 0; x < groupsX; x += limits.maxGroupCountX) {
      // Chunks write disjoint parts of C, but to the validation layers they share one buffer.
      if (!first) stepBarrier(vk, cmd);
      first = false;
      constants.groupOffsetX = static_cast<std::uint32_t>(x);
      constants.groupOffsetY = static_cast<std::uint32_t>(y);
      vk.vkCmdPushConstants(cmd, pipelineLayout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof constants, &constants);
      vk.vkCmdDispatch(cmd, static_cast<std::uint32_t>(std::min<std::uint64_t>(groupsX - x, limits.maxGroupCountX)),
                       static_cast<std::uint32_t>(std::min<std::uint64_t>(groupsY - y, limits.maxGroupCountY)), 1);
    }
  }
}

}  // namespace tileskip::vk
