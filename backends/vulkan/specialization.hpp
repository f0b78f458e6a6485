// The specialization constants every shader may declare (shaders/tileskip_common.glsl and the
// includes named below), by id, and the values a pipeline is built with.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tileskip::vk {

// The specialization constant ids of shaders/tileskip_common.glsl.
enum class SpecId : std::uint32_t {
  BM, BN, BK, WM, WN, TM, TN, WorkgroupSize, ARows, BCols, LaneCols,
  KBlockListLength,  // shaders/tileskip_skip.glsl
  // The pipelined kernels' switches (backends/vulkan/tile_overrides.hpp, PipelineSwitches).
  PrefetchFragments, ExplicitFma,     // shaders/tileskip_warptile.glsl
  StoreBeforeCompute, FetchEveryStep, // shaders/tileskip_pipeline.glsl
  RingStages,                         // the tensor-core kernels' stage ring (shaders/k13_mma.comp)
  Count
};

// Values for the shaders' specialization constants; an id a shader does not declare is ignored.
// Every id is passed to every pipeline, so one left unset is 0 whatever default the shader
// declares: the backend sets each a kernel uses (kernelConstants).
struct Specialization {
  std::uint32_t values[static_cast<std::size_t>(SpecId::Count)] = {};
  void set(SpecId id, int value) { values[static_cast<std::size_t>(id)] = static_cast<std::uint32_t>(value); }
  bool operator<(const Specialization& other) const;
};

}  // namespace tileskip::vk
