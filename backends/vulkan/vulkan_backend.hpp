// The vulkan backend: every twin kernel of the catalogue as a GLSL compute shader (kernels/),
// with the A/B patterns built on the device. The class is visible to the tests, which reach its
// Context to check validation and limits; everything else reaches it through the registry.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "backends/vulkan/context.hpp"
#include "backends/vulkan/tile_overrides.hpp"
#include "core/measure/tune.hpp"
#include "core/model/backend.hpp"

namespace tileskip::vk {

class VulkanBackend final : public Backend, public Tunable {
 public:
  // Throws UnavailableError with a reason (no loader, no device, no subgroup ballot, ...).
  explicit VulkanBackend(const BackendOptions& options);

  std::string_view name() const override { return "vulkan"; }
  // The context's device, its api naming any tile overrides (TILESKIP_VULKAN_TILES, the tune cache).
  const DeviceInfo& device() const override { return device_; }
  bool implements(std::string_view kernelId) const override;
  bool takes(const KernelInfo& kernel, DType dtype) const override;
  // The tile it runs with here (an override's, else the catalogue's) against the device's limits:
  // shared memory and invocations, and lavapipe's loop limit.
  std::optional<std::string> refusal(const KernelInfo& kernel, int m, int n, int k) const override;
  using Backend::upload;
  std::unique_ptr<DeviceProblem> upload(const Matrix& a, const Matrix& b, DType dtype) override;
  std::optional<double> copyBandwidth() override;
  std::vector<std::string> takeDiagnostics() override { return context_->instance().takeDiagnostics(); }
  // On a CPU device (lavapipe), once: its LLVM compiles each kernel's pipeline, seconds apiece, and
  // Mesa 22's lavapipe keeps no pipeline cache between processes (its cache object is empty).
  std::optional<std::string> takeFirstBuildNote() override;
  // Tuning: tile shapes and shader switches (tile_overrides.hpp), all specialization constants.
  Tunable* tuning() override { return this; }
  std::vector<KernelVariant> variants(const KernelInfo& kernel) const override;
  void useVariant(const KernelInfo& kernel, const KernelVariant& variant) override;

  Context& context() { return *context_; }

 private:
  std::shared_ptr<Context> context_;  // shared with the problems, which may outlive a caller's handle
  // From TILESKIP_VULKAN_TILES, else from the tune cache (core/measure/tune.hpp), then useVariant; shared
  // with the problems, which read it at every run.
  std::shared_ptr<OverrideTable> overrides_;
  void describeDevice();
  DeviceInfo device_;
  bool buildNoted_ = false;
};

// The two counters of a Vulkan problem's block tile queue (next tile, finished workgroups),
// read back from the device: both are 0 whenever no dispatch runs. For tests.
std::array<std::uint32_t, 2> blockTileQueue(DeviceProblem& problem);

// Why a tensor-core kernel cannot run on a device with these limits (no fp16 in shaders and
// buffers; for the product's build, no cooperative matrix of the shape it uses), or nothing.
std::optional<std::string> tensorCoreProblem(const KernelInfo& kernel, const ComputeLimits& limits, const std::string& deviceName);

// Specialization constants of a catalogue kernel (its tile shape, granularities and warp lane
// grid, in the ids of kernels/parts/common.glsl) and of the pipelined shaders' switches.
Specialization kernelConstants(const KernelInfo& kernel, const PipelineSwitches& switches = {});

}  // namespace tileskip::vk
