#include "backends/vulkan/pipeline_statistics.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

void reportPipeline(const DeviceFunctions& vk, VkDevice device, VkPipeline pipeline, const PipelineReportRequest& request,
                    std::string_view kernel, std::string_view stem, const Specialization& constants) {
  auto query = [&](VkResult result, const char* what) {
    if (result != VK_SUCCESS && result != VK_INCOMPLETE) throw UnavailableError(std::string(what) + ": " + resultName(result));
  };
  std::vector<ExecutableStatistics> executables;
  std::vector<std::string> written;
  try {
    VkPipelineInfoKHR pipelineInfo{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
    pipelineInfo.pipeline = pipeline;
    std::uint32_t count = 0;
    query(vk.vkGetPipelineExecutablePropertiesKHR(device, &pipelineInfo, &count, nullptr), "vkGetPipelineExecutablePropertiesKHR");
    std::vector<VkPipelineExecutablePropertiesKHR> properties(count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
    query(vk.vkGetPipelineExecutablePropertiesKHR(device, &pipelineInfo, &count, properties.data()),
          "vkGetPipelineExecutablePropertiesKHR");
    properties.resize(count);
    for (std::uint32_t e = 0; e < count; ++e) {
      VkPipelineExecutableInfoKHR executable{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
      executable.pipeline = pipeline;
      executable.executableIndex = e;
      ExecutableStatistics report{properties[e].name, {{"subgroup size", std::to_string(properties[e].subgroupSize)}}};
      std::uint32_t statistics = 0;
      query(vk.vkGetPipelineExecutableStatisticsKHR(device, &executable, &statistics, nullptr), "vkGetPipelineExecutableStatisticsKHR");
      std::vector<VkPipelineExecutableStatisticKHR> values(statistics, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
      query(vk.vkGetPipelineExecutableStatisticsKHR(device, &executable, &statistics, values.data()),
            "vkGetPipelineExecutableStatisticsKHR");
      for (std::uint32_t i = 0; i < statistics && i < values.size(); ++i) report.statistics.emplace_back(values[i].name, statisticValueText(values[i]));
      executables.push_back(std::move(report));
      if (request.irDirectory.empty()) continue;
      std::uint32_t irCount = 0;
      query(vk.vkGetPipelineExecutableInternalRepresentationsKHR(device, &executable, &irCount, nullptr),
            "vkGetPipelineExecutableInternalRepresentationsKHR");
      std::vector<VkPipelineExecutableInternalRepresentationKHR> irs(irCount, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR});
      query(vk.vkGetPipelineExecutableInternalRepresentationsKHR(device, &executable, &irCount, irs.data()),
            "vkGetPipelineExecutableInternalRepresentationsKHR");  // the sizes
      std::vector<std::vector<char>> data(irCount);
      for (std::uint32_t i = 0; i < irCount; ++i) {
        data[i].resize(irs[i].dataSize);
        irs[i].pData = data[i].data();
      }
      query(vk.vkGetPipelineExecutableInternalRepresentationsKHR(device, &executable, &irCount, irs.data()),
            "vkGetPipelineExecutableInternalRepresentationsKHR");  // the contents
      for (std::uint32_t i = 0; i < irCount; ++i) {
        std::filesystem::path file = std::filesystem::path(request.irDirectory) /
                                     internalRepresentationFileName(stem, constants, e, irs[i].name, irs[i].isText);
        std::ofstream out(file, std::ios::binary);
        if (irs[i].isText) out << "// " << kernel << " (" << stem << ") " << specializationText(constants) << "\n";
        auto end = irs[i].isText ? std::find(data[i].begin(), data[i].end(), '\0') : data[i].end();  // text ends at its NUL
        out.write(data[i].data(), static_cast<std::streamsize>(end - data[i].begin()));
        if (out) written.push_back(file.filename().string());
      }
    }
  } catch (const Error& e) {
    std::cerr << "tileskip: vulkan pipeline " << kernel << " (" << stem << "): no statistics: " << e.what() << "\n";
    return;
  }
  if (request.statistics) {
    std::string line = pipelineStatisticsLine(kernel, stem, constants, executables);
    if (!written.empty()) {
      line += " | internal representations:";
      for (const std::string& name : written) line += " " + name;
    }
    std::cerr << "tileskip: " << line << "\n";
  }
}

}  // namespace tileskip::vk
