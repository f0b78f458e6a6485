#include "backends/vulkan/device_selection.hpp"

#include "core/model/error.hpp"

namespace tileskip::vk {

namespace {

// VK_API_VERSION_1_1 without the Vulkan header: this file is a plain function of its inputs.
constexpr std::uint32_t kVulkan11 = (1u << 22) | (1u << 12);

int rank(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::Discrete: return 0;
    case DeviceKind::Integrated: return 1;
    case DeviceKind::Virtual: return 2;
    case DeviceKind::Cpu: return 3;
    case DeviceKind::Other: return 4;
  }
  return 5;
}

std::string describe(const DeviceCandidate& d, std::size_t index) {
  return std::to_string(index) + ": " + d.name + " (" + std::string(deviceKindName(d.kind)) + ")";
}

}  // namespace

std::string_view deviceKindName(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::Discrete: return "discrete GPU";
    case DeviceKind::Integrated: return "integrated GPU";
    case DeviceKind::Virtual: return "virtual GPU";
    case DeviceKind::Cpu: return "CPU";
    case DeviceKind::Other: return "other";
  }
  return "?";
}

std::optional<std::string> unsuitableReason(const DeviceCandidate& d) {
  if (d.apiVersion < kVulkan11) return "supports only Vulkan 1.0; the kernels need 1.1 (subgroup operations)";
  if (!d.computeQueue) return "has no compute queue";
  if (!d.subgroupInCompute) return "supports no subgroup operations in compute shaders";
  if (!d.subgroupBallot || !d.subgroupVote) {
    return std::string("supports no subgroup ") + (!d.subgroupBallot ? "ballot" : "vote") +
           " in compute shaders (the skipping kernels agree on their skips with it)";
  }
  return std::nullopt;
}

std::size_t chooseDevice(std::span<const DeviceCandidate> devices, int requested) {
  if (devices.empty()) {
    throw UnavailableError(
        "no Vulkan device found; install a Vulkan driver (mesa-vulkan-drivers gives lavapipe on any CPU)");
  }
  if (requested >= 0) {
    auto index = static_cast<std::size_t>(requested);
    if (index >= devices.size()) {
      std::string list;
      for (std::size_t i = 0; i < devices.size(); ++i) list += (i ? ", " : "") + describe(devices[i], i);
      throw InputError("--device " + std::to_string(requested) + " does not exist; Vulkan devices here: " + list);
    }
    if (auto why = unsuitableReason(devices[index])) {
      throw UnavailableError("Vulkan device " + describe(devices[index], index) + " " + *why);
    }
    return index;
  }
  std::optional<std::size_t> best;
  std::string reasons;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (auto why = unsuitableReason(devices[i])) {
      reasons += "\n    " + describe(devices[i], i) + " " + *why;
      continue;
    }
    if (!best || rank(devices[i].kind) < rank(devices[*best].kind)) best = i;
  }
  if (!best) throw UnavailableError("no Vulkan device can run the tileskip kernels:" + reasons);
  return *best;
}

}  // namespace tileskip::vk
