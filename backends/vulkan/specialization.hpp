// The specialization constants every shader may declare, by the ids of the one list the GLSL parts
// read too (kernels/parts/spec_ids.h), and the values a pipeline is built with.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/parts/spec_ids.h"

namespace tileskip::vk {

enum class SpecId : std::uint32_t {
  BM = TILESKIP_SPEC_BM,
  BN = TILESKIP_SPEC_BN,
  BK = TILESKIP_SPEC_BK,
  WM = TILESKIP_SPEC_WM,
  WN = TILESKIP_SPEC_WN,
  TM = TILESKIP_SPEC_TM,
  TN = TILESKIP_SPEC_TN,
  WorkgroupSize = TILESKIP_SPEC_WORKGROUP_SIZE,
  AGranularity = TILESKIP_SPEC_A_GRANULARITY,
  BGranularity = TILESKIP_SPEC_B_GRANULARITY,
  LaneCols = TILESKIP_SPEC_LANE_COLS,
  KBlockListLength = TILESKIP_SPEC_K_BLOCK_LIST_LENGTH,
  // The pipelined kernels' switches (backends/vulkan/tile_overrides.hpp, PipelineSwitches).
  PrefetchFragments = TILESKIP_SPEC_PREFETCH_FRAGMENTS,
  ExplicitFma = TILESKIP_SPEC_EXPLICIT_FMA,
  StoreBeforeCompute = TILESKIP_SPEC_STORE_BEFORE_COMPUTE,
  FetchEveryStep = TILESKIP_SPEC_FETCH_EVERY_STEP,
  RingStages = TILESKIP_SPEC_RING_STAGES,
  TransposeA = TILESKIP_SPEC_TRANSPOSE_A,
  Count = TILESKIP_SPEC_COUNT
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
