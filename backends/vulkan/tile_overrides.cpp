#include "backends/vulkan/tile_overrides.hpp"

#include <algorithm>

#include "core/model/error.hpp"
#include "core/io/provenance.hpp"
#include "core/measure/tune.hpp"
#include "core/model/tile_layout.hpp"

namespace tileskip::vk {

namespace {

// The switches in specialization order; `pipelinedOnly`: the switch lives in
// pipeline.glsl or drives K11's loop, so only K11 has it (explicit FMA is in every
// warp tile's updates, K10's, K12's and the skipping kernels' too).
struct SwitchInfo {
  SpecId id;
  bool PipelineSwitches::*member;
  bool pipelinedOnly;
};
constexpr SwitchInfo kSwitches[] = {
    {SpecId::PrefetchFragments, &PipelineSwitches::prefetchFragments, true},
    {SpecId::ExplicitFma, &PipelineSwitches::explicitFma, false},
    {SpecId::StoreBeforeCompute, &PipelineSwitches::storeBeforeCompute, true},
    {SpecId::FetchEveryStep, &PipelineSwitches::fetchEveryStep, true},
};

bool pipelinedShader(const KernelInfo& kernel) { return kernel.structure.loop == MainLoop::DoubleBuffered; }

const SwitchInfo* findSwitch(std::string_view name) {
  for (const SwitchInfo& s : kSwitches) {
    if (specializationName(s.id) == name) return &s;
  }
  return nullptr;
}

// Why `kernel` (with `tile`, which may replace the catalogue's) has no switch `name`, or nothing.
std::optional<std::string> switchProblem(const KernelInfo& kernel, const TileShape& tile, std::string_view name) {
  const SwitchInfo* known = findSwitch(name);
  if (known == nullptr) {
    std::string names;
    for (const SwitchInfo& s : kSwitches) names += (names.empty() ? "" : ", ") + std::string(specializationName(s.id));
    return "no switch '" + std::string(name) + "'; the switches are " + names;
  }
  if (known->pipelinedOnly ? !pipelinedShader(kernel) : tile.WM == 0) {
    return "kernel '" + std::string(kernel.id) + "' has no switch '" + std::string(name) + "' (" +
           (known->pipelinedOnly ? "only pipelined does" : "only the warp-tiled kernels do") + ")";
  }
  return std::nullopt;
}

// The catalogue's entry of a kernel whose tile a variant may replace. `refuse` makes the error.
template <typename Refuse>
const KernelInfo& tiledKernel(std::string_view id, const Refuse& refuse) {
  const KernelInfo* catalogued = findKernelInfo(id);
  if (catalogued == nullptr) throw refuse("no kernel '" + std::string(id) + "'; the catalogue has: " + catalogueIdList());
  if (catalogued->isBaseline() || catalogued->tile.BM == 0) throw refuse("'" + std::string(id) + "' is not a tiled Vulkan kernel");
  return *catalogued;
}

// The override a variant of `catalogued` makes, its switches already checked, checked as any
// tile shape from outside the catalogue is.
template <typename Refuse>
KernelOverride overrideFrom(const KernelInfo& catalogued, const KernelVariant& variant, const ComputeLimits& limits, const Refuse& refuse) {
  KernelOverride o{catalogued, {}, {}};
  if (variant.tile) o.kernel.tile = *variant.tile;
  for (const VariantSwitch& s : variant.switches) {
    const SwitchInfo* known = findSwitch(s.name);
    if (known == nullptr) throw refuse(*switchProblem(o.kernel, o.kernel.tile, s.name));
    o.switches.*known->member = s.on;
  }
  if (std::optional<std::string> why = tileShapeProblem(o.kernel)) throw refuse(*why);
  if (std::optional<std::string> why = launchProblem(o.kernel, limits)) throw refuse(*why);
  // Named by its whole tile and the switches away from their defaults, in specialization order.
  KernelVariant ran{o.kernel.tile, {}};
  PipelineSwitches defaults;
  for (const SwitchInfo& s : kSwitches) {
    if (o.switches.*s.member != defaults.*s.member) ran.switches.push_back({std::string(specializationName(s.id)), o.switches.*s.member});
  }
  o.text = std::string(o.kernel.id) + "=" + variantText(ran);
  return o;
}

KernelOverride parseEntry(std::string_view entry, const ComputeLimits& limits) {
  const std::string source = std::string(kTileOverridesVariable) + ": entry '" + std::string(entry) + "'";
  auto refuse = [&](const std::string& why) { return InputError(source + ": " + why); };
  std::size_t equals = entry.find('=');
  if (equals == std::string_view::npos) {
    throw InputError(source + ": expected KERNEL=TILE[,SWITCH=0|1...], e.g. pipelined=128x128x8/64x64/8x4/128,prefetch=0");
  }
  const KernelInfo& catalogued = tiledKernel(trimmed(entry.substr(0, equals)), refuse);
  // A switch is checked where it is read, against the tile given before it, if any.
  KernelVariant variant = parseVariantText(entry.substr(equals + 1), source, [&](std::string_view name, const KernelVariant& readSoFar) {
    return switchProblem(catalogued, readSoFar.tile.value_or(catalogued.tile), name);
  });
  return overrideFrom(catalogued, variant, limits, refuse);
}

}  // namespace

KernelOverride resolveVariant(std::string_view id, const KernelVariant& variant, const ComputeLimits& limits, std::string_view source) {
  const std::string label = std::string(source) + ": '" + std::string(id) + "=" + variantText(variant) + "'";
  auto refuse = [&](const std::string& why) { return InputError(label + ": " + why); };
  const KernelInfo& catalogued = tiledKernel(id, refuse);
  for (const VariantSwitch& s : variant.switches) {
    if (std::optional<std::string> why = switchProblem(catalogued, variant.tile.value_or(catalogued.tile), s.name)) throw refuse(*why);
  }
  return overrideFrom(catalogued, variant, limits, refuse);
}

std::string_view specializationName(SpecId id) {
  static constexpr std::string_view kNames[] = {"BM",      "BN",   "BK",   "WM",       "WN",         "TM",        "TN",        "threads",
                                                "A_GRANULARITY",  "B_GRANULARITY", "LANE_COLS", "list", "prefetch", "fma", "earlystore", "branchfree",
                                                "RING_STAGES", "TRANSPOSE_A"};
  static_assert(std::size(kNames) == static_cast<std::size_t>(SpecId::Count), "a name for every specialization constant");
  return kNames[static_cast<std::size_t>(id)];
}

void setSwitches(Specialization& constants, const PipelineSwitches& switches) {
  for (const SwitchInfo& s : kSwitches) constants.set(s.id, switches.*s.member ? 1 : 0);
}

std::vector<KernelOverride> parseTileOverrides(std::string_view text, const ComputeLimits& limits) {
  std::vector<KernelOverride> overrides;
  for (std::string_view entry : splitList(text, ';')) {
    if (entry.empty()) continue;
    KernelOverride o = parseEntry(entry, limits);
    if (std::any_of(overrides.begin(), overrides.end(), [&](const KernelOverride& other) { return other.kernel.id == o.kernel.id; })) {
      throw InputError(std::string(kTileOverridesVariable) + ": kernel '" + std::string(o.kernel.id) + "' is overridden twice");
    }
    overrides.push_back(std::move(o));
  }
  return overrides;
}

const KernelOverride* findOverride(std::span<const KernelOverride> overrides, const KernelInfo& kernel) {
  const KernelInfo* catalogued = findKernelInfo(kernel.id);
  if (catalogued == nullptr) return nullptr;
  const TileShape &given = kernel.tile, &listed = catalogued->tile;
  bool catalogueTile = given.BM == listed.BM && given.BN == listed.BN && given.BK == listed.BK && given.WM == listed.WM &&
                       given.WN == listed.WN && given.TM == listed.TM && given.TN == listed.TN && given.threads == listed.threads;
  if (!catalogueTile || kernel.aGranularity != catalogued->aGranularity || kernel.bGranularity != catalogued->bGranularity) {
    return nullptr;
  }
  for (const KernelOverride& o : overrides) {
    if (o.kernel.id == kernel.id) return &o;
  }
  return nullptr;
}

std::string describeOverrides(std::span<const KernelOverride> overrides) {
  std::string text;
  for (const KernelOverride& o : overrides) text += (text.empty() ? std::string(kTilesOverriddenLabel) : ", ") + o.text;
  return text;
}

std::span<const KernelOverride> OverrideTable::forProblem(int m, int n, int k) const {
  if (everySize) return *everySize;
  auto chosen = bySizeClass.find(tuneSizeClass(m, n, k));
  return chosen == bySizeClass.end() ? std::span<const KernelOverride>() : std::span<const KernelOverride>(chosen->second);
}

std::string OverrideTable::describe() const {
  if (everySize) return describeOverrides(*everySize);
  std::string text;
  for (const auto& [sizeClass, overrides] : bySizeClass) {
    if (overrides.empty()) continue;
    std::string listed = describeOverrides(overrides).substr(kTilesOverriddenLabel.size());
    text += (text.empty() ? std::string(kTilesOverriddenLabel) : "; ") + listed + " for size class " + std::to_string(sizeClass);
  }
  return text;
}

std::vector<KernelVariant> tuningCandidates(const KernelInfo& kernel, const ComputeLimits& limits) {
  if (kernel.isBaseline() || kernel.tile.WM == 0) return {};
  auto switched = [](SpecId id, bool on) { return KernelVariant{std::nullopt, {{std::string(specializationName(id)), on}}}; };
  auto tiled = [](std::string_view notation) { return KernelVariant{parseTileNotation(notation), {}}; };
  // What the H200 runs told apart (lab/06-vulkan-variants): the switches,
  // and the shapes that did not spill there; BK = 16 and 256-wide tiles spilled and are left out.
  // The skipping kernels' list loop has K12's switches only, and K11's shapes.
  std::vector<KernelVariant> tried;
  if (pipelinedShader(kernel)) tried = {switched(SpecId::FetchEveryStep, false), switched(SpecId::PrefetchFragments, false)};
  tried.push_back(switched(SpecId::ExplicitFma, true));
  if (pipelinedShader(kernel) || kernel.structure.loop == MainLoop::KBlockList) {
    tried.push_back(tiled("128x128x8/64x32/8x4/256"));
    tried.push_back(tiled("128x64x8/64x32/8x4/128"));
  } else {
    tried.push_back(tiled("128x128x8/64x64/8x4/128"));
  }
  std::vector<KernelVariant> candidates = {KernelVariant{}};
  for (const KernelVariant& variant : tried) {
    try {
      resolveVariant(kernel.id, variant, limits, "tuning candidate");
      candidates.push_back(variant);
    } catch (const InputError&) {
      // Not for this kernel's structure or this device: not a candidate here.
    }
  }
  return candidates;
}

}  // namespace tileskip::vk
