// A kernel's run-time variant, as a backend offers it for tuning and the tune cache keeps it
// (tune.hpp): a tile shape in place of the catalogue's and named switches of the backend's
// shaders, typed; its text ("128x128x16/64x64/8x4/128,prefetch=0") is for reports and variables.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/catalogue.hpp"

namespace tileskip {

struct VariantSwitch {
  std::string name;  // the backend's name of a switch of its shaders ("prefetch", "fma", ...)
  bool on = false;
  bool operator==(const VariantSwitch&) const = default;
};

struct KernelVariant {
  std::optional<TileShape> tile;        // nothing: the catalogue's
  std::vector<VariantSwitch> switches;  // in the order given, each name once; the rest as the catalogue runs them
  bool isCatalogue() const { return !tile && switches.empty(); }  // the catalogue's own
  bool operator==(const KernelVariant&) const = default;
};

// The variant as text, the syntax of TILESKIP_VULKAN_TILES after "id=": the tile in
// tileNotation() and each switch as name=1 or name=0, comma separated, in order; "" for the
// catalogue's own. Reports name variants by it.
std::string variantText(const KernelVariant& variant);

// What is wrong with a switch of this name in a variant read so far (nothing: the backend has it).
using SwitchCheck = std::function<std::optional<std::string>(std::string_view name, const KernelVariant& readSoFar)>;

// The variant that text in variantText()'s syntax names (TILESKIP_VULKAN_TILES's entries, the
// first two tune cache formats). Items are checked in order: a tile, at most one; a switch,
// checked by `check` where given, then its value, 0 or 1; a switch named twice keeps the last.
// Empty text is an empty item: the catalogue's own is never written as text. Throws InputError
// "SOURCE: WHY".
KernelVariant parseVariantText(std::string_view text, const std::string& source, const SwitchCheck& check = {});

// The pieces of that syntax: `text` split at `separator`, each part (and `trimmed`'s text) without
// the spaces and tabs around it.
std::vector<std::string_view> splitList(std::string_view text, char separator);
std::string_view trimmed(std::string_view text);

}  // namespace tileskip
