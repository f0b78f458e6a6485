#include "backends/vulkan/tile_overrides.hpp"

#include <algorithm>

#include "core/model/error.hpp"
#include "core/io/provenance.hpp"
#include "core/measure/tune.hpp"
#include "core/model/tile_layout.hpp"

namespace tileskip::vk {

namespace {

// The switches in specialization order; `pipelinedOnly`: the switch lives in
// tileskip_pipeline.glsl or drives K11's loop, so only the pipelined kernels have it (explicit
// FMA is in every warp tile's updates, K10's too).
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

bool pipelinedShader(const KernelInfo& kernel) {
  return kernel.structure.loop == MainLoop::DoubleBuffered || kernel.structure.loop == MainLoop::KBlockList;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    std::size_t end = text.find(separator, start);
    parts.push_back(trimmed(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start)));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::string canonicalText(const KernelOverride& o) {
  std::string text = std::string(o.kernel.id) + "=" + tileNotation(o.kernel.tile);
  PipelineSwitches defaults;
  for (const SwitchInfo& s : kSwitches) {
    if (o.switches.*s.member != defaults.*s.member) {
      text += ',';  // appended piecewise: GCC 12 warns (-Wrestrict, a false positive) on "," + std::string
      text += specializationName(s.id);
      text += o.switches.*s.member ? "=1" : "=0";
    }
  }
  return text;
}

// One kernel's variant: `variant` is the text after "id=" (a tile and/or switches). `source`
// names where it came from in errors ("TILESKIP_VULKAN_TILES: entry 'id=...'").
KernelOverride parseVariantOf(std::string_view id, std::string_view variant, const ComputeLimits& limits, const std::string& source) {
  auto refuse = [&](const std::string& why) { return InputError(source + ": " + why); };
  const KernelInfo* catalogued = findKernelInfo(id);
  if (catalogued == nullptr) throw refuse("no kernel '" + std::string(id) + "'; the catalogue has: " + catalogueIdList());
  if (catalogued->isBaseline() || catalogued->tile.BM == 0) throw refuse("'" + std::string(id) + "' is not a tiled Vulkan kernel");
  KernelOverride o{*catalogued, {}, {}};
  bool tileGiven = false;
  for (std::string_view item : split(variant, ',')) {
    if (item.empty()) throw refuse("an empty item");
    std::size_t is = item.find('=');
    if (is == std::string_view::npos) {
      std::optional<TileShape> tile = parseTileNotation(item);
      if (!tile) throw refuse("'" + std::string(item) + "' is not a tile BMxBNxBK/WMxWN/TMxTN/threads (e.g. 128x128x8/64x64/8x4/128)");
      if (tileGiven) throw refuse("two tiles");
      o.kernel.tile = *tile;
      tileGiven = true;
      continue;
    }
    std::string_view name = trimmed(item.substr(0, is)), value = trimmed(item.substr(is + 1));
    const SwitchInfo* known = nullptr;
    std::string names;
    for (const SwitchInfo& s : kSwitches) {
      if (specializationName(s.id) == name) known = &s;
      names += (names.empty() ? "" : ", ") + std::string(specializationName(s.id));
    }
    if (known == nullptr) throw refuse("no switch '" + std::string(name) + "'; the switches are " + names);
    if (known->pipelinedOnly ? !pipelinedShader(o.kernel) : o.kernel.tile.WM == 0) {
      throw refuse("kernel '" + std::string(id) + "' has no switch '" + std::string(name) + "' (" +
                   (known->pipelinedOnly ? "only pipelined and the warp-uniform skipping kernels do" : "only the warp-tiled kernels do") + ")");
    }
    if (value != "0" && value != "1") throw refuse("switch '" + std::string(name) + "' is 0 or 1, not '" + std::string(value) + "'");
    o.switches.*known->member = value == "1";
  }
  if (std::optional<std::string> why = tileShapeProblem(o.kernel)) throw refuse(*why);
  if (std::optional<std::string> why = pipelineShapeProblem(o.kernel)) throw refuse(*why);
  if (std::optional<std::string> why = launchProblem(o.kernel, limits)) throw refuse(*why);
  o.text = canonicalText(o);
  return o;
}

KernelOverride parseEntry(std::string_view entry, const ComputeLimits& limits) {
  const std::string source = std::string(kTileOverridesVariable) + ": entry '" + std::string(entry) + "'";
  std::size_t equals = entry.find('=');
  if (equals == std::string_view::npos) {
    throw InputError(source + ": expected KERNEL=TILE[,SWITCH=0|1...], e.g. pipelined=128x128x8/64x64/8x4/128,prefetch=0");
  }
  return parseVariantOf(trimmed(entry.substr(0, equals)), entry.substr(equals + 1), limits, source);
}

}  // namespace

KernelOverride parseVariant(std::string_view id, std::string_view variant, const ComputeLimits& limits, std::string_view source) {
  return parseVariantOf(id, variant, limits, std::string(source) + ": '" + std::string(id) + "=" + std::string(variant) + "'");
}

std::string_view specializationName(SpecId id) {
  static constexpr std::string_view kNames[] = {"BM",      "BN",   "BK",   "WM",       "WN",         "TM",        "TN",        "threads",
                                                "A_ROWS",  "B_COLS", "LANE_COLS", "list", "prefetch", "fma", "earlystore", "branchfree"};
  static_assert(std::size(kNames) == static_cast<std::size_t>(SpecId::Count), "a name for every specialization constant");
  return kNames[static_cast<std::size_t>(id)];
}

void setSwitches(Specialization& constants, const PipelineSwitches& switches) {
  for (const SwitchInfo& s : kSwitches) constants.set(s.id, switches.*s.member ? 1 : 0);
}

std::vector<KernelOverride> parseTileOverrides(std::string_view text, const ComputeLimits& limits) {
  std::vector<KernelOverride> overrides;
  for (std::string_view entry : split(text, ';')) {
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
  if (!catalogueTile || kernel.aRowGranularity != catalogued->aRowGranularity || kernel.bColGranularity != catalogued->bColGranularity) {
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

std::vector<std::string> tuningCandidates(const KernelInfo& kernel, const ComputeLimits& limits) {
  if (kernel.isBaseline() || kernel.tile.WM == 0) return {};
  // What the H200 runs told apart (bench/results/2026-11-22-h200-vulkan-tune.md): the switches,
  // and the shapes that did not spill there; BK = 16 and 256-wide tiles spilled and are left out.
  std::vector<std::string> tried = pipelinedShader(kernel)
                                       ? std::vector<std::string>{"branchfree=0", "prefetch=0", "fma=1", "128x128x8/64x32/8x4/256",
                                                                  "128x64x8/64x32/8x4/128"}
                                       : std::vector<std::string>{"fma=1", "128x128x8/64x64/8x4/128"};
  std::vector<std::string> candidates = {""};
  for (const std::string& variant : tried) {
    try {
      parseVariant(kernel.id, variant, limits, "tuning candidate");
      candidates.push_back(variant);
    } catch (const InputError&) {
      // Not for this kernel's structure or this device: not a candidate here.
    }
  }
  return candidates;
}

}  // namespace tileskip::vk
