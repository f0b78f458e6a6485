#include "ui/widgets.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace tileskip::ui {

namespace {

// Nine stops of the viridis ramp, evenly spaced in [0, 1].
constexpr std::array<std::array<float, 3>, 9> kRamp = {{
    {68, 1, 84}, {71, 44, 122}, {59, 81, 139}, {44, 113, 142}, {33, 145, 140},
    {39, 173, 129}, {92, 200, 99}, {170, 220, 50}, {253, 231, 37},
}};

const char* existing(std::initializer_list<const char*> paths) {
  for (const char* p : paths) {
    std::error_code error;
    if (std::filesystem::exists(p, error)) return p;
  }
  return nullptr;
}

float gUiScale = 1.0f;

}  // namespace

void setUiScale(float scale) { gUiScale = scale; }
float uiScale() { return gUiScale; }

Fonts loadFonts(float scale) {
  ImGuiIO& io = ImGui::GetIO();
  Fonts fonts;
  const char* sans = existing({"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"});
  const char* bold = existing({"/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"});
  const char* mono = existing({"/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"});
  // Latin, plus arrows, the multiplication sign and the check marks the panels use.
  static const ImWchar ranges[] = {0x0020, 0x00FF, 0x2190, 0x21FF, 0x2022, 0x2026, 0x2200, 0x22FF,
                                   0x2580, 0x25FF, 0x2713, 0x2717, 0};
  if (sans != nullptr) fonts.text = io.Fonts->AddFontFromFileTTF(sans, 15.0f * scale, nullptr, ranges);
  if (fonts.text == nullptr) fonts.text = io.Fonts->AddFontDefault();
  if (bold != nullptr) fonts.title = io.Fonts->AddFontFromFileTTF(bold, 17.0f * scale, nullptr, ranges);
  if (fonts.title == nullptr) fonts.title = fonts.text;
  if (mono != nullptr) fonts.mono = io.Fonts->AddFontFromFileTTF(mono, 13.0f * scale, nullptr, ranges);
  if (fonts.mono == nullptr) fonts.mono = fonts.text;
  io.FontDefault = fonts.text;
  return fonts;
}

void applyStyle(float scale) {
  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowRounding = 0.0f;
  style.ChildRounding = 4.0f;
  style.FrameRounding = 3.0f;
  style.GrabRounding = 3.0f;
  style.WindowPadding = ImVec2(10, 8);
  style.ItemSpacing = ImVec2(8, 5);
  style.WindowBorderSize = 0.0f;
  style.ChildBorderSize = 1.0f;
  ImVec4* c = style.Colors;
  c[ImGuiCol_WindowBg] = toVec4(palette::kBackground);
  c[ImGuiCol_ChildBg] = toVec4(palette::kPanel);
  c[ImGuiCol_Border] = ImVec4(1, 1, 1, 0.08f);
  c[ImGuiCol_Text] = toVec4(palette::kText);
  c[ImGuiCol_TextDisabled] = toVec4(palette::kDim);
  c[ImGuiCol_FrameBg] = ImVec4(0.17f, 0.19f, 0.23f, 1.0f);
  c[ImGuiCol_FrameBgHovered] = ImVec4(0.23f, 0.26f, 0.32f, 1.0f);
  c[ImGuiCol_FrameBgActive] = ImVec4(0.27f, 0.30f, 0.38f, 1.0f);
  c[ImGuiCol_Button] = ImVec4(0.22f, 0.25f, 0.31f, 1.0f);
  c[ImGuiCol_ButtonHovered] = ImVec4(0.30f, 0.34f, 0.42f, 1.0f);
  c[ImGuiCol_ButtonActive] = ImVec4(0.36f, 0.40f, 0.50f, 1.0f);
  // ImGui writes a slider's value across its grab: a half-transparent grab keeps it legible.
  c[ImGuiCol_SliderGrab] = ImVec4(0.99f, 0.91f, 0.15f, 0.45f);
  c[ImGuiCol_SliderGrabActive] = ImVec4(0.99f, 0.91f, 0.15f, 0.7f);
  c[ImGuiCol_CheckMark] = ImVec4(0.99f, 0.91f, 0.15f, 1.0f);
  c[ImGuiCol_Header] = ImVec4(0.22f, 0.25f, 0.31f, 1.0f);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.30f, 0.34f, 0.42f, 1.0f);
  c[ImGuiCol_TableHeaderBg] = ImVec4(0.20f, 0.22f, 0.27f, 1.0f);
  c[ImGuiCol_PopupBg] = ImVec4(0.10f, 0.11f, 0.14f, 0.97f);
  style.ScaleAllSizes(scale);
}

ImU32 fractionColour(float fraction, float alpha) {
  float f = std::clamp(std::isfinite(fraction) ? fraction : 0.0f, 0.0f, 1.0f) * static_cast<float>(kRamp.size() - 1);
  auto i = std::min(static_cast<std::size_t>(f), kRamp.size() - 2);
  float t = f - static_cast<float>(i);
  auto mix = [&](int channel) {
    float v = kRamp[i][static_cast<std::size_t>(channel)] * (1 - t) + kRamp[i + 1][static_cast<std::size_t>(channel)] * t;
    return static_cast<int>(std::lround(v));
  };
  return IM_COL32(mix(0), mix(1), mix(2), static_cast<int>(std::lround(alpha * 255.0f)));
}

ImU32 decisionColour(WarpDecision decision) {
  switch (decision) {
    case WarpDecision::Work: return IM_COL32(80, 200, 120, 255);
    case WarpDecision::Skip: return IM_COL32(70, 74, 86, 255);
    case WarpDecision::Partial: return IM_COL32(70, 150, 220, 255);
    case WarpDecision::Diverge: return IM_COL32(240, 90, 80, 255);
    case WarpDecision::Idle: return IM_COL32(40, 42, 48, 255);
  }
  return palette::kDim;
}

ImVec4 toVec4(ImU32 colour) { return ImGui::ColorConvertU32ToFloat4(colour); }

MapView::MapView(ImVec2 origin, ImVec2 size, const CellAxis& rows, const CellAxis& cols, AxisScale rowScale,
                 AxisScale colScale)
    : origin_(origin), size_(size), rows_(rows), cols_(cols), rowScale_(rowScale), colScale_(colScale) {}

ImVec2 MapView::fit(ImVec2 room, AxisScale rowScale, AxisScale colScale) {
  float aspect = static_cast<float>(colScale.extent) / static_cast<float>(rowScale.extent);
  // Very thin matrices still get a visible band.
  aspect = std::clamp(aspect, 0.08f, 12.0f);
  float width = room.x, height = room.x / aspect;
  if (height > room.y) {
    height = room.y;
    width = room.y * aspect;
  }
  return {std::floor(width), std::floor(height)};
}

float MapView::unitX(int colUnit) const {
  double element = std::min(static_cast<double>(colUnit) * colScale_.unit, static_cast<double>(colScale_.extent));
  return origin_.x + static_cast<float>(element / colScale_.extent) * size_.x;
}

float MapView::unitY(int rowUnit) const {
  double element = std::min(static_cast<double>(rowUnit) * rowScale_.unit, static_cast<double>(rowScale_.extent));
  return origin_.y + static_cast<float>(element / rowScale_.extent) * size_.y;
}

std::pair<ImVec2, ImVec2> MapView::cellRect(int cellRow, int cellCol) const {
  return {{unitX(cols_.first(cellCol)), unitY(rows_.first(cellRow))}, {unitX(cols_.end(cellCol)), unitY(rows_.end(cellRow))}};
}

std::optional<std::pair<int, int>> MapView::unitAt(ImVec2 point) const {
  float fx = (point.x - origin_.x) / size_.x, fy = (point.y - origin_.y) / size_.y;
  if (fx < 0 || fy < 0 || fx >= 1 || fy >= 1) return std::nullopt;
  int col = std::min(static_cast<int>(fx * static_cast<float>(colScale_.extent)) / colScale_.unit, cols_.units - 1);
  int row = std::min(static_cast<int>(fy * static_cast<float>(rowScale_.extent)) / rowScale_.unit, rows_.units - 1);
  return std::pair{row, col};
}

void MapView::fill(ImDrawList* drawList, const Heatmap& map) const {
  for (int r = 0; r < map.rows(); ++r) {
    for (int c = 0; c < map.cols(); ++c) {
      auto [a, b] = cellRect(r, c);
      drawList->AddRectFilled(a, b, fractionColour(map.at(r, c)));
    }
  }
}

void MapView::frame(ImDrawList* drawList) const {
  drawList->AddRect({origin_.x - 1, origin_.y - 1}, {origin_.x + size_.x + 1, origin_.y + size_.y + 1}, palette::kGrid);
}

void MapView::axes(ImDrawList* drawList, const std::string& rowTitle, const std::string& colTitle) const {
  ImFont* font = ImGui::GetFont();
  float small = ImGui::GetFontSize() * 0.85f;
  auto text = [&](ImVec2 at, const std::string& s, ImU32 colour) { drawList->AddText(font, small, at, colour, s.c_str()); };
  auto width = [&](const std::string& s) { return font->CalcTextSizeA(small, 1e9f, 0, s.c_str()).x; };
  std::string lastRow = std::to_string(rows_.units - 1), lastCol = std::to_string(cols_.units - 1);
  float right = origin_.x + size_.x, bottom = origin_.y + size_.y;
  std::string colLabel = colTitle + " \xE2\x86\x92";  // →
  text({origin_.x - width("0") - 4, origin_.y}, "0", palette::kDim);
  text({origin_.x - width(lastRow) - 4, bottom - small}, lastRow, palette::kDim);
  // Column ticks only where they leave the title room.
  if (size_.x >= width(colLabel) + 2.0f * width(lastCol) + 24.0f) {
    text({origin_.x, bottom + 2}, "0", palette::kDim);
    text({right - width(lastCol), bottom + 2}, lastCol, palette::kDim);
  }
  text({origin_.x, origin_.y - small - 3}, "\xE2\x86\x93 " + rowTitle, palette::kDim);  // ↓
  text({origin_.x + (size_.x - width(colLabel)) * 0.5f, bottom + 2}, colLabel, palette::kDim);
}

void colourLegend(float width, const char* caption) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 p = ImGui::GetCursorScreenPos();
  float height = px(12.0f);
  const int steps = 32;
  for (int i = 0; i < steps; ++i) {
    float x0 = p.x + width * static_cast<float>(i) / steps, x1 = p.x + width * static_cast<float>(i + 1) / steps;
    dl->AddRectFilled({x0, p.y}, {x1 + 0.5f, p.y + height}, fractionColour((static_cast<float>(i) + 0.5f) / steps));
  }
  dl->AddRect({p.x - 1, p.y - 1}, {p.x + width + 1, p.y + height + 1}, palette::kGrid);
  ImGui::Dummy({width, height});
  ImFont* font = ImGui::GetFont();
  float small = ImGui::GetFontSize() * 0.85f;
  ImVec2 q = ImGui::GetCursorScreenPos();
  const char* labels[] = {"0%", "50%", "100%"};
  for (int i = 0; i < 3; ++i) {
    float w = font->CalcTextSizeA(small, 1e9f, 0, labels[i]).x;
    float x = p.x + width * static_cast<float>(i) * 0.5f - w * static_cast<float>(i) * 0.5f;
    dl->AddText(font, small, {x, q.y}, palette::kDim, labels[i]);
  }
  ImGui::Dummy({width, small + 2});
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
  ImGui::TextDisabled("%s", caption);
  ImGui::PopTextWrapPos();
}

void legendItem(ImU32 colour, const char* label, bool outlineOnly) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 p = ImGui::GetCursorScreenPos();
  float s = ImGui::GetTextLineHeight() * 0.8f;
  float y = p.y + (ImGui::GetTextLineHeight() - s) * 0.5f;
  if (outlineOnly) {
    dl->AddRect({p.x, y}, {p.x + s, y + s}, colour, 0, 0, 2.0f);
  } else {
    dl->AddRectFilled({p.x, y}, {p.x + s, y + s}, colour, 2.0f);
  }
  ImGui::Dummy({s, ImGui::GetTextLineHeight()});
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
}

void drawByte(ImDrawList* drawList, ImVec2 topLeft, std::uint8_t byte, int realBits, float cell) {
  float gap = cell >= 8 ? 1.0f : 0.0f;
  for (int bit = 0; bit < kKBlock; ++bit) {
    ImVec2 a{topLeft.x + static_cast<float>(bit) * cell, topLeft.y};
    ImVec2 b{a.x + cell - gap, a.y + cell - gap};
    if (bit >= realBits) {
      drawList->AddRect(a, b, palette::kGrid);
      drawList->AddLine(a, b, palette::kGrid);
    } else {
      drawList->AddRectFilled(a, b, fractionColour((byte >> bit) & 1u ? 1.0f : 0.0f));
    }
  }
}

std::string byteText(std::uint8_t byte, int realBits) {
  std::string text;
  for (int bit = 0; bit < kKBlock; ++bit) {
    if (bit == 4) text += ' ';
    text += bit >= realBits ? '-' : ((byte >> bit) & 1u ? '1' : '0');
  }
  return text;
}

void byteWidget(std::uint8_t byte, int realBits, float cell) {
  ImVec2 p = ImGui::GetCursorScreenPos();
  float y = p.y + std::max(0.0f, (ImGui::GetTextLineHeight() - cell) * 0.5f);
  drawByte(ImGui::GetWindowDrawList(), {p.x, y}, byte, realBits, cell);
  ImGui::Dummy({cell * kKBlock, std::max(cell, ImGui::GetTextLineHeight())});
}

void panelTitle(const Fonts& fonts, const char* title, const std::string& subtitle) {
  ImGui::PushFont(fonts.title);
  ImGui::TextUnformatted(title);
  ImGui::PopFont();
  if (!subtitle.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", subtitle.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::Spacing();
}

std::string formatNumber(double value, int decimals) {
  if (!std::isfinite(value)) return value > 0 ? "\xE2\x88\x9E" : "-";  // ∞
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string formatPercent(double fraction, int decimals) { return formatNumber(fraction * 100.0, decimals) + "%"; }

}  // namespace tileskip::ui
