#include "core/measure/kernel_variant.hpp"

#include <algorithm>

#include "core/model/error.hpp"
#include "core/model/tile_layout.hpp"

namespace tileskip {

std::string variantText(const KernelVariant& variant) {
  std::string text = variant.tile ? tileNotation(*variant.tile) : std::string();
  for (const VariantSwitch& s : variant.switches) {
    if (!text.empty()) text += ',';
    text += s.name;  // appended piecewise: GCC 12 warns (-Wrestrict, a false positive) on "," + std::string
    text += s.on ? "=1" : "=0";
  }
  return text;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> splitList(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    std::size_t end = text.find(separator, start);
    parts.push_back(trimmed(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start)));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

KernelVariant parseVariantText(std::string_view text, const std::string& source, const SwitchCheck& check) {
  auto refuse = [&](const std::string& why) { return InputError(source + ": " + why); };
  KernelVariant variant;
  for (std::string_view item : splitList(text, ',')) {
    if (item.empty()) throw refuse("an empty item");
    std::size_t is = item.find('=');
    if (is == std::string_view::npos) {
      std::optional<TileShape> tile = parseTileNotation(item);
      if (!tile) throw refuse("'" + std::string(item) + "' is not a tile BMxBNxBK/WMxWN/TMxTN/threads (e.g. 128x128x8/64x64/8x4/128)");
      if (variant.tile) throw refuse("two tiles");
      variant.tile = *tile;
      continue;
    }
    std::string_view name = trimmed(item.substr(0, is)), value = trimmed(item.substr(is + 1));
    if (check) {
      if (std::optional<std::string> why = check(name, variant)) throw refuse(*why);
    }
    if (value != "0" && value != "1") throw refuse("switch '" + std::string(name) + "' is 0 or 1, not '" + std::string(value) + "'");
    auto named = std::find_if(variant.switches.begin(), variant.switches.end(), [&](const VariantSwitch& s) { return s.name == name; });
    if (named != variant.switches.end()) {
      named->on = value == "1";
    } else {
      variant.switches.push_back({std::string(name), value == "1"});
    }
  }
  return variant;
}

}  // namespace tileskip
