// What every result file carries so that a number can be traced to what produced it
// (self-describing results): the tool's version and commit, the element type, the schema ids of
// the JSON documents, and the tune overrides a device ran with.
#pragma once

#include <string>
#include <string_view>

#include "core/model/backend.hpp"

namespace tileskip {

// "0.1.0" and the `git describe --dirty` of the commit configured from ("unknown" without git).
const char* toolVersion();
const char* toolCommit();

// The element type of every kernel of the catalogue: fp32 inputs, fp32 accumulation.
inline constexpr const char* kDtype = "fp32";

// Schema ids of the JSON documents (docs/results.md describes each). The number after the slash
// changes only when a field is renamed or removed; new fields keep it.
inline constexpr const char* kBenchSchema = "tileskip.bench/1";
inline constexpr const char* kHeadlineSchema = "tileskip.headline/1";
inline constexpr const char* kRealSchema = "tileskip.real/1";
inline constexpr const char* kVerifySchema = "tileskip.verify/1";
inline constexpr const char* kInspectSchema = "tileskip.inspect/1";

// How a backend marks tiles and switches that replace the catalogue's (TILESKIP_VULKAN_TILES or
// the tune cache): its device's api line ends in " (tiles overridden: k=v, ...)".
inline constexpr std::string_view kTilesOverriddenLabel = "tiles overridden: ";

// The overrides a device runs with ("warptile=128x64x8/64x32/8x4/128, ..."), "" for none.
std::string tuneOverridesOf(const DeviceInfo& device);

}  // namespace tileskip
