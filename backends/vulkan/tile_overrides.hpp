// Tuning on a GPU without a rebuild: TILESKIP_VULKAN_TILES replaces, for the Vulkan backend only,
// the catalogue's tile shape of a kernel and sets the pipelined shaders' structural switches
// (specialization constants 12-15), e.g.
//   TILESKIP_VULKAN_TILES="pipelined=128x128x16/64x64/8x4/128,prefetch=0;joint-32x32=fma=1"
// Entries are separated by ';', an entry is `id=` then a variant in core/measure/kernel_variant.hpp's
// text: separated by ',', a tile in core/model/tile_layout.hpp's notation and/or `switch=0|1`. Every
// entry, like every variant from the tune cache or `tileskip tune`, is checked as any tile shape
// from outside the catalogue is, and one that cannot run is bad input naming it; the device line
// of a report says what was overridden, so a table never passes for the catalogue's.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backends/vulkan/limits.hpp"
#include "backends/vulkan/specialization.hpp"
#include "core/measure/kernel_variant.hpp"
#include "core/model/catalogue.hpp"

namespace tileskip::vk {

inline constexpr const char* kTileOverridesVariable = "TILESKIP_VULKAN_TILES";

// The structural choices of the pipelined kernels' shaders, as the catalogue runs them. Which
// one NVIDIA's compiler handles best is for a GPU run to say (bench/vulkan_tune.sh).
struct PipelineSwitches {
  bool prefetchFragments = true;    // K11's inner loop: depth k + 1's fragments read during depth k's FMAs
  bool explicitFma = false;         // fma() instead of a contractible acc + a * b
  bool storeBeforeCompute = false;  // write the fetched K-tile to shared memory before the FMAs, not after
  // No branch around fetch and store: the last step fetches an empty K-tile. On by default: on
  // the H200 it took K11 from 4.30 to 3.59 ms at 4096 (lab/06-vulkan-variants)
  // and left the skipping kernels as they were.
  bool fetchEveryStep = true;
  bool operator==(const PipelineSwitches&) const = default;
};

// The name of a specialization constant in reports and in TILESKIP_VULKAN_TILES: "BM", "threads",
// "list", "prefetch", ...
std::string_view specializationName(SpecId id);

// Sets the switches' specialization constants.
void setSwitches(Specialization& constants, const PipelineSwitches& switches);

struct KernelOverride {
  KernelInfo kernel;           // the catalogue's entry, with the overriding tile where one is given
  PipelineSwitches switches;
  // "pipelined=128x128x16/64x64/8x4/128,prefetch=0": the id and variantText() of the tile and of
  // every switch not at its default, in specialization order.
  std::string text;
};

// The overrides in `text` (the variable's value), each checked against the twins' shape rule
// (shapeProblem, core/model/shape_rules.hpp) and this device's limits. Throws InputError naming the variable and the entry for anything that does
// not parse or cannot run: an unknown or baseline id, a repeated id, a switch the kernel's shader
// does not have, a value other than 0 or 1, a tile that does not fit. Empty text: none.
std::vector<KernelOverride> parseTileOverrides(std::string_view text, const ComputeLimits& limits);

// One kernel's variant as `tileskip tune` tries it and its cache keeps it (the empty variant is
// the catalogue's own, every switch at its default), checked as parseTileOverrides checks an
// entry. `source` names where it came from in the error ("the tune cache FILE", ...), followed
// by the variant as "id=TEXT". Throws InputError.
KernelOverride resolveVariant(std::string_view id, const KernelVariant& variant, const ComputeLimits& limits, std::string_view source);

// The override for `kernel` where it is the catalogue's entry (its id, the catalogue's tile and
// granularities; a test build of the same kernel under another stem counts): a caller that
// built a tile shape of its own keeps it. Null where there is none.
const KernelOverride* findOverride(std::span<const KernelOverride> overrides, const KernelInfo& kernel);

// "tiles overridden: pipelined=..., joint-32x32=..." or empty where there are none.
std::string describeOverrides(std::span<const KernelOverride> overrides);

// The overrides in effect on a backend: one set for every problem (TILESKIP_VULKAN_TILES, or the
// variants `tileskip tune` is trying), or else the tune cache's choices for each size class
// (core/measure/tune.hpp's tuneSizeClass), where a problem outside every tuned class runs the catalogue's.
struct OverrideTable {
  std::optional<std::vector<KernelOverride>> everySize;
  std::map<int, std::vector<KernelOverride>> bySizeClass;

  std::span<const KernelOverride> forProblem(int m, int n, int k) const;
  // describeOverrides() of everySize, or of each class's, each followed by " for size class N".
  std::string describe() const;
};

// The variants `tileskip tune` tries for a kernel (core/measure/tune.hpp): the catalogue's own
// (empty) first, then each switch away from its default and a few other tile shapes; only those
// that can run on a device with these limits. None for a kernel without a warp tile.
std::vector<KernelVariant> tuningCandidates(const KernelInfo& kernel, const ComputeLimits& limits);

}  // namespace tileskip::vk
