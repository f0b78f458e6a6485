// What the driver made of a kernel, where it says (VK_KHR_pipeline_executable_properties): with
// TILESKIP_VULKAN_PIPELINE_STATS=1 every compute pipeline the backend builds prints one line on
// stderr with its kernel, its specialization constants and the driver's statistics of each
// executable (registers, shared memory, spills, instruction counts: whatever the driver names).
// TILESKIP_VULKAN_PIPELINE_IR=DIR also writes the driver's internal representations (its
// assembly, where it gives one) into DIR. A device without the extension runs as always and
// says so once. reportPipeline() asks the driver; the formatting is plain functions, tested
// without such a device.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends/vulkan/specialization.hpp"
#include "backends/vulkan/vulkan_api.hpp"

namespace tileskip::vk {

inline constexpr const char* kPipelineStatisticsVariable = "TILESKIP_VULKAN_PIPELINE_STATS";
inline constexpr const char* kPipelineIrVariable = "TILESKIP_VULKAN_PIPELINE_IR";

// What the two variables ask for.
struct PipelineReportRequest {
  bool statistics = false;  // TILESKIP_VULKAN_PIPELINE_STATS=1
  std::string irDirectory;  // TILESKIP_VULKAN_PIPELINE_IR, created if missing
  bool wanted() const { return statistics || !irDirectory.empty(); }
  // From the environment. InputError for a statistics value other than 0 or 1, or a folder that
  // cannot be created.
  static PipelineReportRequest fromEnvironment();
  // Says on stderr, once per process, that `device` cannot report (the run goes on as always).
  void unavailable(const std::string& device) const;
};

struct ExecutableStatistics {
  std::string name;  // the driver's name of the executable ("Compute Shader", "CS", ...)
  std::vector<std::pair<std::string, std::string>> statistics;  // name, value as text
};

// A statistic's value as text: integers as integers, booleans as true/false, floats with up to
// 6 significant digits.
std::string statisticValueText(const VkPipelineExecutableStatisticKHR& statistic);

// "BM=128 BN=128 BK=8 ... prefetch=1 fma=0 ...": every specialization constant by name.
std::string specializationText(const Specialization& constants);

// One line: "vulkan pipeline KERNEL (STEM) CONSTANTS | EXECUTABLE: NAME=VALUE, NAME=VALUE | ...".
// Names and values keep the driver's spelling; a ',', '|' or '=' in them becomes ' ' so the
// line splits unambiguously.
std::string pipelineStatisticsLine(std::string_view kernel, std::string_view stem, const Specialization& constants,
                                   const std::vector<ExecutableStatistics>& executables);

// Asks the driver for what it made of `pipeline` (built with the capture flags `request` asks
// for, on a device that enabled VK_KHR_pipeline_executable_properties), then prints
// pipelineStatisticsLine() on stderr where `request` asks for statistics and writes the internal
// representations into its folder. A query that fails is said on stderr; the pipeline is left as
// it is: a report is a diagnosis, not the run.
void reportPipeline(const DeviceFunctions& vk, VkDevice device, VkPipeline pipeline, const PipelineReportRequest& request,
                    std::string_view kernel, std::string_view stem, const Specialization& constants);

// A file name for one internal representation: "STEM-HASH-EXECUTABLE-NAME.txt" (".bin" when not
// text), HASH naming the specialization constants so variants of a kernel do not collide.
std::string internalRepresentationFileName(std::string_view stem, const Specialization& constants, std::uint32_t executable,
                                           std::string_view name, bool text);

}  // namespace tileskip::vk
