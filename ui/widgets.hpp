// Drawing helpers every panel shares: the one colour scale with its legend, heatmaps drawn as
// ImDrawList rectangles (ImGui 1.86's Vulkan renderer takes no user textures), pattern bytes
// drawn bit by bit, and the categorical colours of teaching mode.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "core/view/block_walk.hpp"
#include "core/view/heatmap.hpp"

namespace tileskip::ui {

struct Fonts {
  ImFont* text = nullptr;   // panels
  ImFont* title = nullptr;  // panel titles
  ImFont* mono = nullptr;   // source code and bit strings
};
// Loads DejaVu Sans / Sans Mono when installed, else ImGui's built-in font at every role.
Fonts loadFonts(float scale = 1.0f);
// The style, with its paddings and spacings times `scale` (--ui-scale).
void applyStyle(float scale = 1.0f);

// The UI scale (--ui-scale): text and widgets grow together, so a layout that fits at 1600 x 1000
// at scale 1 fits 2400 x 1500 at 1.5. px() is a length the panels lay out in, times the scale.
void setUiScale(float scale);
float uiScale();
inline float px(float length) { return length * uiScale(); }

// The one colour scale of every heatmap: a fraction in [0, 1] (elements non-zero, pattern bits
// set, rank-1 updates kept, K-blocks loaded), from dark violet (none) to yellow (all). A
// viridis-like ramp: ordered in lightness, so it reads in grey and for colour-blind viewers.
ImU32 fractionColour(float fraction, float alpha = 1.0f);

namespace palette {
inline constexpr ImU32 kBackground = IM_COL32(24, 26, 31, 255);
inline constexpr ImU32 kPanel = IM_COL32(32, 35, 42, 255);
inline constexpr ImU32 kGrid = IM_COL32(255, 255, 255, 40);
inline constexpr ImU32 kText = IM_COL32(225, 228, 235, 255);
inline constexpr ImU32 kDim = IM_COL32(150, 156, 170, 255);
inline constexpr ImU32 kAccent = IM_COL32(255, 255, 255, 235);  // selection and the current step
inline constexpr ImU32 kGood = IM_COL32(80, 200, 120, 255);
inline constexpr ImU32 kBad = IM_COL32(240, 90, 80, 255);
inline constexpr ImU32 kWarn = IM_COL32(245, 170, 60, 255);
// Series of the throughput plot.
inline constexpr ImU32 kKernel = IM_COL32(255, 140, 50, 255);
inline constexpr ImU32 kDense = IM_COL32(90, 170, 255, 255);
inline constexpr ImU32 kBaseline = IM_COL32(200, 200, 200, 255);
}  // namespace palette

ImU32 decisionColour(WarpDecision decision);
ImVec4 toVec4(ImU32 colour);

// How the source units of a heatmap map onto the matrix they describe, so that a pattern is
// drawn over the same area as its matrix: a unit covers `unit` elements (granularity, or 8 for
// K-blocks), the last one fewer, along an axis of `extent` elements.
struct AxisScale {
  int unit = 1;
  int extent = 1;
};

// A heatmap placed on screen.
class MapView {
 public:
  MapView(ImVec2 origin, ImVec2 size, const CellAxis& rows, const CellAxis& cols, AxisScale rowScale, AxisScale colScale);
  // The largest size with the matrix's aspect ratio inside `room` (cells stay square per element).
  static ImVec2 fit(ImVec2 room, AxisScale rowScale, AxisScale colScale);

  ImVec2 origin() const { return origin_; }
  ImVec2 size() const { return size_; }
  float unitX(int colUnit) const;  // left edge of a column unit; colUnits gives the right edge
  float unitY(int rowUnit) const;
  std::pair<ImVec2, ImVec2> cellRect(int cellRow, int cellCol) const;
  // The source unit {row, column} under a screen point, if inside.
  std::optional<std::pair<int, int>> unitAt(ImVec2 point) const;

  void fill(ImDrawList* drawList, const Heatmap& map) const;
  void frame(ImDrawList* drawList) const;
  // "row tiles" left above the map, "column tiles →" below it, first and last unit at the corners.
  void axes(ImDrawList* drawList, const std::string& rowTitle, const std::string& colTitle) const;

 private:
  ImVec2 origin_, size_;
  CellAxis rows_, cols_;
  AxisScale rowScale_, colScale_;
};

// The colour scale as a horizontal gradient with ticks at 0, 50 and 100 %, and a caption.
void colourLegend(float width, const char* caption);
// A swatch and its label on one line.
void legendItem(ImU32 colour, const char* label, bool outlineOnly = false);

// A pattern byte as 8 squares, bit 0 (the K-block's first K index) on the left: set bits on the
// scale's "all" colour, cleared bits on its "none" colour, bits past K hatched out.
void drawByte(ImDrawList* drawList, ImVec2 topLeft, std::uint8_t byte, int realBits, float cell);
// The same as text: "1011 0010", bit 0 first.
std::string byteText(std::uint8_t byte, int realBits = 8);
// Advances the cursor past a drawn byte.
void byteWidget(std::uint8_t byte, int realBits, float cell);

// A panel's heading: title in the title font, then a dim subtitle wrapped to the panel.
void panelTitle(const Fonts& fonts, const char* title, const std::string& subtitle = {});

std::string formatNumber(double value, int decimals = 2);
std::string formatPercent(double fraction, int decimals = 0);

}  // namespace tileskip::ui
