#include "backends/vulkan/pipeline_statistics.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "backends/vulkan/tile_overrides.hpp"
#include "core/model/error.hpp"

namespace tileskip::vk {

namespace {

// The driver's text, made safe for the line's separators.
std::string field(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == ',' || c == '|' || c == '=' || c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

}  // namespace

PipelineReportRequest PipelineReportRequest::fromEnvironment() {
  PipelineReportRequest request;
  if (const char* value = std::getenv(kPipelineStatisticsVariable); value != nullptr && *value != '\0') {
    std::string_view text = value;
    if (text != "0" && text != "1") {
      throw InputError(std::string(kPipelineStatisticsVariable) + " is 1 (print the driver's statistics of every pipeline) or 0, not '" +
                       std::string(text) + "'");
    }
    request.statistics = text == "1";
  }
  if (const char* folder = std::getenv(kPipelineIrVariable); folder != nullptr && *folder != '\0') {
    std::error_code error;
    std::filesystem::create_directories(folder, error);
    if (error || !std::filesystem::is_directory(folder)) {
      throw InputError(std::string(kPipelineIrVariable) + ": cannot create the folder '" + folder + "'" +
                       (error ? ": " + error.message() : ""));
    }
    request.irDirectory = folder;
  }
  return request;
}

void PipelineReportRequest::unavailable(const std::string& device) const {
  static std::atomic<bool> said{false};
  if (said.exchange(true)) return;
  std::cerr << "tileskip: " << (statistics ? kPipelineStatisticsVariable : kPipelineIrVariable) << ": " << device
            << " does not offer VK_KHR_pipeline_executable_properties (pipelineExecutableInfo): no pipeline statistics or "
               "internal representations; the kernels run as always\n";
}

std::string statisticValueText(const VkPipelineExecutableStatisticKHR& statistic) {
  switch (statistic.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: return statistic.value.b32 ? "true" : "false";
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: return std::to_string(statistic.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: return std::to_string(statistic.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: {
      char text[32];
      std::snprintf(text, sizeof text, "%.6g", statistic.value.f64);
      return text;
    }
    default: return "?";
  }
}

std::string specializationText(const Specialization& constants) {
  std::string text;
  for (std::size_t i = 0; i < static_cast<std::size_t>(SpecId::Count); ++i) {
    if (!text.empty()) text += ' ';
    text += std::string(specializationName(static_cast<SpecId>(i))) + "=" + std::to_string(constants.values[i]);
  }
  return text;
}

std::string pipelineStatisticsLine(std::string_view kernel, std::string_view stem, const Specialization& constants,
                                   const std::vector<ExecutableStatistics>& executables) {
  std::string line = "vulkan pipeline " + std::string(kernel) + " (" + std::string(stem) + ") " + specializationText(constants);
  if (executables.empty()) line += " | no executables reported";
  for (const ExecutableStatistics& e : executables) {
    line += " | " + field(e.name) + ":";
    for (std::size_t i = 0; i < e.statistics.size(); ++i) {
      line += (i == 0 ? " " : ", ") + field(e.statistics[i].first) + "=" + field(e.statistics[i].second);
    }
  }
  return line;
}

std::string internalRepresentationFileName(std::string_view stem, const Specialization& constants, std::uint32_t executable,
                                           std::string_view name, bool text) {
  std::uint32_t hash = 2166136261u;  // FNV-1a over the constants' values
  for (std::uint32_t v : constants.values) {
    for (int byte = 0; byte < 4; ++byte) hash = (hash ^ ((v >> (8 * byte)) & 0xFFu)) * 16777619u;
  }
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", hash);
  std::string safe;
  for (char c : name) safe += (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_';
  return std::string(stem) + "-" + hex + "-" + std::to_string(executable) + "-" + safe + (text ? ".txt" : ".bin");
}

}  // namespace tileskip::vk
