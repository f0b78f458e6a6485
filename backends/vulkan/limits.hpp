// The device limits a kernel launch and a problem must respect, as plain data so the checks are
// tested without a device: a tile needing more shared memory or invocations than the device has
// is refused with the numbers, and so is a matrix larger than one storage buffer may be
// (maxStorageBufferRange: 128 MiB on lavapipe).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/catalogue.hpp"

namespace tileskip::vk {

struct ComputeLimits {
  std::uint64_t maxSharedBytes = 0;           // maxComputeSharedMemorySize
  std::uint32_t maxInvocations = 0;           // maxComputeWorkGroupInvocations
  std::uint32_t maxWorkgroupSizeX = 0;        // maxComputeWorkGroupSize[0]
  std::uint32_t maxGroupCountX = 0, maxGroupCountY = 0;  // maxComputeWorkGroupCount[0..1]
  std::uint64_t maxStorageBufferRange = 0;    // bytes one storage-buffer descriptor may cover
  std::uint64_t maxAllocationBytes = 0;       // maxMemoryAllocationSize
  std::uint32_t subgroupSize = 0;             // the default
  std::uint32_t minSubgroupSize = 0, maxSubgroupSize = 0;  // equal where the size cannot vary
  std::uint32_t maxWorkgroupSubgroups = 0;    // maxComputeWorkgroupSubgroups (0: no size control)
  bool pinSubgroupSize = false;               // subgroupSizeControl for compute shaders
  bool fullSubgroups = false;                 // computeFullSubgroups
};

// Shared memory the kernel's shader declares per workgroup: core/catalogue.hpp's BM x BK tile of
// A and BK x BN tile of B, plus 4 floats of padding per row of the transposed A tile in K6 and
// every kernel built on it (shaders/tileskip_stage.glsl).
std::uint64_t kernelSharedBytes(const KernelInfo& kernel);

// Why this device cannot launch the kernel's tile configuration, naming what it needs and
// what the device allows; nothing when it fits.
std::optional<std::string> launchProblem(const KernelInfo& kernel, const ComputeLimits& limits);

// Throws UnavailableError when `bytes` do not fit one storage buffer or one allocation.
void checkBufferFits(std::uint64_t bytes, const std::string& what, const ComputeLimits& limits);

// The subgroup size to require for a workgroup of `workgroupSize` invocations: 32 (a warp),
// or the nearest size the device offers, where the device lets it vary and the workgroup fits
// maxComputeWorkgroupSubgroups subgroups of it in full; nothing where it should stay as it is.
std::optional<std::uint32_t> pinnedSubgroupSize(std::uint32_t workgroupSize, const ComputeLimits& limits);

// "1.5 GiB", "128 MiB", "48 KiB", "12 bytes"
std::string byteText(std::uint64_t bytes);

}  // namespace tileskip::vk
