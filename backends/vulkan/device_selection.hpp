// Choosing the Vulkan device: a plain function of what each device reports, so it is tested
// without a GPU (tests/test_vulkan.cpp builds the candidate lists by hand).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace tileskip::vk {

enum class DeviceKind { Discrete, Integrated, Virtual, Cpu, Other };

std::string_view deviceKindName(DeviceKind kind);

// What selection needs to know about one physical device, in vkEnumeratePhysicalDevices order.
struct DeviceCandidate {
  std::string name;
  DeviceKind kind = DeviceKind::Other;
  std::uint32_t apiVersion = 0;   // VK_MAKE_API_VERSION(0, major, minor, patch)
  bool computeQueue = false;      // some queue family has VK_QUEUE_COMPUTE_BIT
  bool subgroupInCompute = false; // subgroup operations are supported in compute shaders
  bool subgroupBallot = false;    // VK_SUBGROUP_FEATURE_BALLOT_BIT
  bool subgroupVote = false;      // VK_SUBGROUP_FEATURE_VOTE_BIT
};

// Why the kernels cannot run on this device, or nothing when they can.
std::optional<std::string> unsuitableReason(const DeviceCandidate& device);

// The device to use: `requested` (>= 0) if it exists and is suitable, else (requested < 0) the
// best suitable one: a discrete GPU, then integrated, virtual, a CPU implementation (lavapipe),
// anything else; the first enumerated on a tie. Throws InputError for an index that does not
// exist and UnavailableError, naming every device and what it lacks, when none can run the kernels.
std::size_t chooseDevice(std::span<const DeviceCandidate> devices, int requested);

}  // namespace tileskip::vk
