// The explore panels: the skip map, the live throughput plot and the matrix/pattern heatmaps.
#include <algorithm>
#include <bit>
#include <cmath>

#include "ui/panels.hpp"

namespace tileskip::ui {

namespace {

constexpr const char* kTimes = "\xC3\x97";  // ×

std::string range(int begin, int end) { return std::to_string(begin) + ".." + std::to_string(end - 1); }

// The bits of one output tile along K, three rows (A, B, A & B), wrapped every 512 K indices:
// the picture behind "hover a tile to see its joint pattern bits".
void tileBitsPicture(const Pattern& a, const Pattern& b, int rowTile, int colTile) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int k = a.depth;
  const int perLine = std::min(k, 512);
  float bit = std::clamp(std::floor(480.0f / static_cast<float>(perLine)), 1.0f, 8.0f);
  float rowHeight = std::max(bit, 6.0f);
  const char* names[] = {"A", "B", "A&B"};
  for (int line = 0; line * perLine < k; ++line) {
    for (int row = 0; row < 3; ++row) {
      ImGui::TextDisabled("%s", names[row]);
      ImGui::SameLine(40.0f);
      ImVec2 p = ImGui::GetCursorScreenPos();
      p.y += (ImGui::GetTextLineHeight() - rowHeight) * 0.5f;
      int first = line * perLine, last = std::min(k, first + perLine);
      for (int kk = first; kk < last; ++kk) {
        int kb = kk / kKBlock, j = kk % kKBlock;
        std::uint8_t byte = row == 0 ? a.at(rowTile, kb) : row == 1 ? b.at(colTile, kb) : jointPattern(a, b, rowTile, colTile, kb);
        float x = p.x + static_cast<float>(kk - first) * bit;
        dl->AddRectFilled({x, p.y}, {x + bit - (bit >= 4 ? 1.0f : 0.0f), p.y + rowHeight},
                          fractionColour((byte >> j) & 1u ? 1.0f : 0.0f));
        if (j == 0 && bit >= 3 && kk != first) dl->AddLine({x, p.y - 1}, {x, p.y + rowHeight + 1}, palette::kGrid);
      }
      ImGui::Dummy({static_cast<float>(last - first) * bit, ImGui::GetTextLineHeight()});
    }
    if ((line + 1) * perLine < k) ImGui::TextDisabled("k = %d..", (line + 1) * perLine);
  }
}

// What hovering a tile shows, and --select-tile keeps shown.
void tileReadOut(const ProblemAnalysis& an, int rowTile, int colTile) {
  const SkipMap& sm = an.skipMap;
  const JointStats& st = sm.stats;
  const Pattern& a = an.kernelPatterns.a;
  const Pattern& b = an.kernelPatterns.b;
  int r0 = rowTile * st.aGranularity, c0 = colTile * st.bGranularity;
  int kept = static_cast<int>(std::lround(st.work(rowTile, colTile) * static_cast<float>(st.k)));
  int skipped = st.skippedKBlocks[static_cast<std::size_t>(rowTile) * st.colTiles + colTile];
  BlockGrid grid = sm.loads.grid;
  ImGui::Text("output tile (%d, %d): rows %s, columns %s", rowTile, colTile, range(r0, r0 + a.tileExtent(rowTile)).c_str(),
              range(c0, c0 + b.tileExtent(colTile)).c_str());
  ImGui::Text("keeps %d of %d rank-1 updates (%s); skips %d of %d K-blocks whole", kept, st.k,
              formatPercent(st.work(rowTile, colTile), 1).c_str(), skipped, a.kBlocks);
  ImGui::TextDisabled("joint pattern bits along K: a bit is kept where A's rows and B's columns both have a non-zero");
  tileBitsPicture(a, b, rowTile, colTile);
  ImGui::TextDisabled("in block tile (%d, %d); click to walk that block in teaching mode", r0 / grid.BM, c0 / grid.BN);
}

void tileTooltip(const ProblemAnalysis& an, int rowTile, int colTile) {
  ImGui::BeginTooltip();
  tileReadOut(an, rowTile, colTile);
  ImGui::EndTooltip();
}

std::string blockReadOut(const SkipMap& sm, int row, int col) {
  const BlockGrid& grid = sm.loads.grid;
  const JointStats& st = sm.stats;
  int loaded = sm.loads.loadedKBlocks[static_cast<std::size_t>(row) * grid.cols + col];
  return "block tile (" + std::to_string(row) + ", " + std::to_string(col) + "): rows " +
         range(row * grid.BM, std::min(st.m, (row + 1) * grid.BM)) + ", columns " +
         range(col * grid.BN, std::min(st.n, (col + 1) * grid.BN)) + "\nloads " + std::to_string(loaded) + " of " +
         std::to_string(sm.loads.kBlocks) + " K-blocks (" + formatPercent(static_cast<double>(loaded) / sm.loads.kBlocks, 1) +
         ")\nclick to walk it in teaching mode";
}

// Fractions of C that need each K-block, drawn as one strip along K.
void kBlockStrip(const SkipMap& sm, float width) {
  std::vector<float> needed(sm.kBlockSkipped.size());
  for (std::size_t i = 0; i < needed.size(); ++i) needed[i] = 1.0f - sm.kBlockSkipped[i];
  int kBlocks = static_cast<int>(needed.size());
  Heatmap strip = aggregate(needed, 1, kBlocks, std::max(1, static_cast<int>(width / 2.0f)));
  ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  MapView view(p, {width, 14.0f}, strip.rowAxis, strip.colAxis, {1, 1}, {1, kBlocks});
  view.fill(dl, strip);
  view.frame(dl);
  ImGui::Dummy({width, 14.0f});
  if (ImGui::IsItemHovered()) {
    if (auto unit = view.unitAt(ImGui::GetMousePos())) {
      int kb = unit->second;
      ImGui::SetTooltip("K-block %d (k = %d..%d): %s of C needs it; tiles covering %s skip it whole", kb, kb * kKBlock,
                        kb * kKBlock + kKBlock - 1, formatPercent(needed[static_cast<std::size_t>(kb)], 1).c_str(),
                        formatPercent(sm.kBlockSkipped[static_cast<std::size_t>(kb)], 1).c_str());
    }
  }
  ImGui::TextDisabled("0  K-blocks \xE2\x86\x92 (fraction of C that needs each one)  %d", kBlocks - 1);
}

void figureRow(const char* label, const std::string& value, const std::string& note = {}) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::TextDisabled("%s", label);
  ImGui::TableSetColumnIndex(1);
  ImGui::TextWrapped("%s%s%s", value.c_str(), note.empty() ? "" : "  ", note.c_str());
}

}  // namespace

void drawSkipMapPanel(const Fonts& fonts, const ProblemAnalysis& an, SkipMapState& state, std::pair<int, int> teachBlock) {
  const KernelInfo& kernel = *an.kernel;
  const SkipMap& sm = an.skipMap;
  const JointStats& st = sm.stats;
  const BlockGrid& grid = sm.loads.grid;
  std::string title = "Skip map: " + std::string(kernel.id) + (kernel.number.empty() ? "" : " (" + std::string(kernel.number) + ")");
  std::string subtitle =
      state.showLoads
          ? "Each cell: block tiles of " + std::to_string(grid.BM) + " x " + std::to_string(grid.BN) +
                ". Colour = fraction of K-blocks the block must still load, because at least one of its warps needs them."
          : "Each cell: output tiles of " + std::to_string(st.aGranularity) + " rows x " + std::to_string(st.bGranularity) +
                " columns, the kernel's pattern tiles. Colour = fraction of the tile's rank-1 updates that a_pat & b_pat keeps; " +
                kTimes + " = tile skipped whole.";
  panelTitle(fonts, title.c_str(), subtitle);
  if (ImGui::RadioButton("work per output tile", !state.showLoads)) state.showLoads = false;
  ImGui::SameLine();
  if (ImGui::RadioButton("loads per block tile", state.showLoads)) state.showLoads = true;
  if (!kernel.skips()) {
    ImGui::SameLine();
    ImGui::TextColored(toVec4(palette::kWarn), "dense kernel: it keeps every update");
  }

  const Heatmap& map = state.showLoads ? sm.loadedPerBlock : sm.work;
  AxisScale rowScale{state.showLoads ? grid.BM : st.aGranularity, st.m};
  AxisScale colScale{state.showLoads ? grid.BN : st.bGranularity, st.n};
  ImVec2 room = ImGui::GetContentRegionAvail();
  const float labelLeft = px(40.0f), labelTop = px(18.0f), labelBottom = px(20.0f), below = px(250.0f);
  ImVec2 size = MapView::fit({room.x - labelLeft - 8.0f, room.y - labelTop - labelBottom - below}, rowScale, colScale);
  ImVec2 cursor = ImGui::GetCursorScreenPos();
  ImVec2 origin{cursor.x + labelLeft + std::floor((room.x - labelLeft - size.x) * 0.5f), cursor.y + labelTop};
  MapView view(origin, size, map.rowAxis, map.colAxis, rowScale, colScale);
  state.mapOrigin = origin;
  state.mapSize = size;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  view.fill(dl, map);

  if (!state.showLoads) {
    // Tiles skipped whole, where a cell is big enough to carry a mark.
    for (int r = 0; r < map.rows(); ++r) {
      for (int c = 0; c < map.cols(); ++c) {
        auto [a, b] = view.cellRect(r, c);
        if (sm.skippedTiles.at(r, c) < 0.999f || b.x - a.x < 6.0f || b.y - a.y < 6.0f) continue;
        ImVec2 i{a.x + 1.5f, a.y + 1.5f}, j{b.x - 1.5f, b.y - 1.5f};
        dl->AddLine(i, j, IM_COL32(255, 255, 255, 70));
        dl->AddLine({i.x, j.y}, {j.x, i.y}, IM_COL32(255, 255, 255, 70));
      }
    }
  }
  // Block tile boundaries, where they are far enough apart to read.
  float blockHeight = size.y * static_cast<float>(grid.BM) / static_cast<float>(st.m);
  float blockWidth = size.x * static_cast<float>(grid.BN) / static_cast<float>(st.n);
  if (blockHeight >= 12.0f && blockWidth >= 12.0f && (grid.rows > 1 || grid.cols > 1)) {
    for (int r = 1; r < grid.rows; ++r) {
      float y = origin.y + blockHeight * static_cast<float>(r);
      dl->AddLine({origin.x, y}, {origin.x + size.x, y}, IM_COL32(255, 255, 255, 55));
    }
    for (int c = 1; c < grid.cols; ++c) {
      float x = origin.x + blockWidth * static_cast<float>(c);
      dl->AddLine({x, origin.y}, {x, origin.y + size.y}, IM_COL32(255, 255, 255, 55));
    }
  }
  view.frame(dl);
  // The block teaching mode walks.
  float bx = origin.x + blockWidth * static_cast<float>(teachBlock.second);
  float by = origin.y + blockHeight * static_cast<float>(teachBlock.first);
  dl->AddRect({bx - 1, by - 1}, {std::min(bx + blockWidth, origin.x + size.x) + 1, std::min(by + blockHeight, origin.y + size.y) + 1},
              palette::kAccent, 0.0f, 0, 2.0f);
  std::string rowTitle = state.showLoads ? "block rows (" + std::to_string(grid.BM) + " rows each)"
                                         : "row tiles (" + std::to_string(st.aGranularity) + " rows each)";
  std::string colTitle = state.showLoads ? "block columns (" + std::to_string(grid.BN) + " each)"
                                         : "column tiles (" + std::to_string(st.bGranularity) + " columns each)";
  view.axes(dl, rowTitle, colTitle);

  ImGui::SetCursorScreenPos(origin);
  ImGui::InvisibleButton("skip map cells", {std::max(size.x, 1.0f), std::max(size.y, 1.0f)});
  if (ImGui::IsItemHovered()) {
    if (auto unit = view.unitAt(ImGui::GetMousePos())) {
      auto [row, col] = *unit;
      int blockRow = state.showLoads ? row : row * st.aGranularity / grid.BM;
      int blockCol = state.showLoads ? col : col * st.bGranularity / grid.BN;
      if (state.showLoads) {
        ImGui::SetTooltip("%s", blockReadOut(sm, row, col).c_str());
      } else {
        tileTooltip(an, row, col);
      }
      if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
        state.pickedBlock = std::pair{blockRow, blockCol};
        // A click also pins the tile's read-out (on the work map), so it stays for the class.
        if (!state.showLoads) state.selectedTile = std::pair{row, col};
      }
    }
  }
  // The pinned read-out (--select-tile, or a click): the hover read-out, kept beside its tile.
  state.readOutMin = state.readOutMax = {0, 0};
  if (state.selectedTile) {
    auto [row, col] = *state.selectedTile;
    if (row < st.rowTiles && col < st.colTiles) {
      float tx = origin.x + size.x * static_cast<float>(std::min(st.n, (col + 1) * st.bGranularity)) / static_cast<float>(st.n);
      float ty = origin.y + size.y * static_cast<float>(row * st.aGranularity) / static_cast<float>(st.m);
      int bRow = row * st.aGranularity / grid.BM, bCol = col * st.bGranularity / grid.BN;
      // Outline the tile, then the read-out to its right (or left, where the right has no room).
      float x0 = origin.x + size.x * static_cast<float>(col * st.bGranularity) / static_cast<float>(st.n);
      float y1 = origin.y + size.y * static_cast<float>(std::min(st.m, (row + 1) * st.aGranularity)) / static_cast<float>(st.m);
      dl->AddRect({x0 - 1, ty - 1}, {tx + 1, y1 + 1}, palette::kKernel, 0.0f, 0, 2.0f);
      ImVec2 display = ImGui::GetIO().DisplaySize;
      ImGui::SetNextWindowPos({std::min(tx + px(8.0f), display.x - px(20.0f)), std::max(ty, 0.0f)}, ImGuiCond_Always,
                              {tx + px(8.0f) + px(520.0f) > display.x ? 1.0f : 0.0f, 0.0f});
      ImGui::SetNextWindowBgAlpha(0.95f);
      const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                     ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove;
      if (ImGui::Begin("tile read-out", nullptr, flags)) {
        if (state.showLoads) {
          ImGui::TextUnformatted(blockReadOut(sm, bRow, bCol).c_str());
        } else {
          tileReadOut(an, row, col);
        }
        if (ImGui::SmallButton("close")) state.selectedTile.reset();
        state.readOutMin = ImGui::GetWindowPos();
        state.readOutMax = {state.readOutMin.x + ImGui::GetWindowSize().x, state.readOutMin.y + ImGui::GetWindowSize().y};
      }
      ImGui::End();
    }
  }
  ImGui::SetCursorScreenPos({cursor.x, origin.y + size.y + labelBottom + 4.0f});

  float stripWidth = ImGui::GetContentRegionAvail().x;
  kBlockStrip(sm, stripWidth);
  ImGui::Spacing();
  if (ImGui::BeginTable("skip figures", 2, ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, px(135.0f));
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
    figureRow("joint density", formatNumber(st.jointDensity, 3), "\xE2\x86\x92 ideal speedup " + formatNumber(st.idealSpeedup()) + kTimes);
    figureRow("block loads kept", formatPercent(sm.loads.loadFraction, 1), "\xE2\x86\x92 load bound " + formatNumber(sm.loads.loadBound()) + kTimes);
    double skippedTiles = sm.skippedTiles.mean();
    figureRow("tiles skipped whole", formatPercent(skippedTiles, 1));
    figureRow("K-blocks skipped", formatPercent(st.skippedKBlockFraction, 1), "of (tile, K-block) pairs");
    figureRow("pattern tiles", std::to_string(st.rowTiles) + " x " + std::to_string(st.colTiles) + ", " +
                                   std::to_string(an.kernelPatterns.a.kBlocks) + " K-blocks",
              "drawn as " + std::to_string(map.rows()) + " x " + std::to_string(map.cols()) + " cells");
    ImGui::EndTable();
  }
  if (kernel.skips() && sm.loads.loadBound() < 0.6 * st.idealSpeedup()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(toVec4(palette::kWarn),
                       "Skipping FMAs is not skipping loads: blocks still load %s of their K-blocks, so memory traffic caps "
                       "the speedup near %s%s however few updates are kept. Only zeros that empty a K-block across a whole "
                       "block tile skip its loads (try the blocks generator with G of at least the block size).",
                       formatPercent(sm.loads.loadFraction).c_str(), formatNumber(sm.loads.loadBound()).c_str(), kTimes);
    ImGui::PopTextWrapPos();
  }
}

namespace {

struct MatrixView {
  const char* title;
  const Heatmap* map;
  AxisScale rows, cols;
  const char* rowTitle;
  const char* colTitle;
  const Pattern* pattern;  // non-null for pattern heatmaps
};

void patternTooltip(const Pattern& p, int row, int col) {
  // A-pattern units are (row tile, K-block); B-pattern units are (K-block, column tile).
  bool isA = p.operand == Operand::A;
  int tile = isA ? row : col, kb = isA ? col : row;
  std::uint8_t byte = p.at(tile, kb);
  int realBits = std::min(kKBlock, p.depth - kb * kKBlock);
  ImGui::BeginTooltip();
  ImGui::Text("%s-pattern byte of %s tile %d (%s %s), K-block %d (k = %s)", isA ? "A" : "B", isA ? "row" : "column", tile,
              isA ? "rows" : "columns", range(tile * p.granularity, tile * p.granularity + p.tileExtent(tile)).c_str(), kb,
              range(kb * kKBlock, kb * kKBlock + realBits).c_str());
  byteWidget(byte, realBits, px(14.0f));
  ImGui::SameLine();
  ImGui::Text("%s: %d of %d K indices have a non-zero in this tile", byteText(byte, realBits).c_str(), std::popcount(byte), realBits);
  ImGui::EndTooltip();
}

void drawMatrixView(const MatrixView& v, ImVec2 room) {
  ImGui::BeginGroup();
  ImGui::TextUnformatted(v.title);
  ImVec2 cursor = ImGui::GetCursorScreenPos();
  const float labelLeft = px(28.0f), labelTop = px(16.0f), labelBottom = px(18.0f);
  ImVec2 size = MapView::fit({room.x - labelLeft, room.y - labelTop - labelBottom - ImGui::GetTextLineHeightWithSpacing()}, v.rows, v.cols);
  ImVec2 origin{cursor.x + labelLeft, cursor.y + labelTop};
  MapView view(origin, size, v.map->rowAxis, v.map->colAxis, v.rows, v.cols);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  view.fill(dl, *v.map);
  view.frame(dl);
  view.axes(dl, v.rowTitle, v.colTitle);
  ImGui::SetCursorScreenPos(origin);
  ImGui::InvisibleButton(v.title, {std::max(size.x, 1.0f), std::max(size.y, 1.0f)});
  if (ImGui::IsItemHovered()) {
    if (auto unit = view.unitAt(ImGui::GetMousePos())) {
      if (v.pattern != nullptr) {
        patternTooltip(*v.pattern, unit->first, unit->second);
      } else {
        int cellRow = v.map->rowAxis.cellOf(unit->first), cellCol = v.map->colAxis.cellOf(unit->second);
        ImGui::SetTooltip("rows %s, columns %s: %s non-zero",
                          range(v.map->rowAxis.first(cellRow), v.map->rowAxis.end(cellRow)).c_str(),
                          range(v.map->colAxis.first(cellCol), v.map->colAxis.end(cellCol)).c_str(),
                          formatPercent(v.map->at(cellRow, cellCol), 1).c_str());
      }
    }
  }
  ImGui::SetCursorScreenPos({cursor.x, cursor.y + room.y - ImGui::GetTextLineHeightWithSpacing()});
  ImGui::Dummy({room.x, 0});
  ImGui::EndGroup();
}

}  // namespace

void drawMatricesPanel(const Fonts& fonts, const ProblemAnalysis& an) {
  const ProblemSpec& s = an.spec;
  int g = an.patternGranularity;
  panelTitle(fonts, "Matrices and their patterns",
             "Non-zeros of A and B, and their skip patterns at G = " + std::to_string(g) +
                 ": one byte per tile of G rows (A) or G columns (B) and K-block of 8, drawn over the same area as "
                 "the matrix. Hover a pattern cell to see its byte.");
  std::string aTitle = "A (" + std::to_string(s.m) + " x " + std::to_string(s.k) + ")";
  std::string bTitle = "B (" + std::to_string(s.k) + " x " + std::to_string(s.n) + ")";
  std::string apTitle = "A-pattern, G=" + std::to_string(g);
  std::string bpTitle = "B-pattern, G=" + std::to_string(g);
  MatrixView views[] = {
      {aTitle.c_str(), &an.a, {1, s.m}, {1, s.k}, "rows", "K", nullptr},
      {apTitle.c_str(), &an.aPatternMap, {g, s.m}, {kKBlock, s.k}, "row tiles", "K-blocks", &an.aPattern},
      {bTitle.c_str(), &an.b, {1, s.k}, {1, s.n}, "K", "columns", nullptr},
      {bpTitle.c_str(), &an.bPatternMap, {kKBlock, s.k}, {g, s.n}, "K-blocks", "col tiles", &an.bPattern},
  };
  // A beside its pattern, B beside its pattern.
  ImVec2 room = ImGui::GetContentRegionAvail();
  float gap = ImGui::GetStyle().ItemSpacing.x * 2.0f;
  ImVec2 each{std::floor((room.x - gap) / 2.0f), std::floor((room.y - ImGui::GetStyle().ItemSpacing.y) / 2.0f)};
  for (int i = 0; i < 4; ++i) {
    if (i % 2 == 1) ImGui::SameLine(0.0f, gap);
    drawMatrixView(views[i], each);
  }
}

namespace {

ImU32 seriesColour(SeriesRole role) {
  switch (role) {
    case SeriesRole::Kernel: return palette::kKernel;
    case SeriesRole::DenseReference: return palette::kDense;
    case SeriesRole::Baseline: return palette::kBaseline;
  }
  return palette::kText;
}

// A step of 1, 2 or 5 times a power of ten giving about `lines` grid lines up to `top`.
double niceStep(double top, int lines) {
  double raw = top / lines;
  double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * power) return m * power;
  }
  return 10.0 * power;
}

// Where the plot's vertical scale tops out, and whether the baseline was left off it.
struct PlotScale {
  double highest = 0.0;
  const Series* offScale = nullptr;  // a baseline far above the series being compared
};

// The scale follows the kernel and the dense reference, the comparison the panel is about. A
// baseline several times faster than both (the host's BLAS beside lavapipe) would press their
// lines into the floor, so it is left off the scale and named instead.
PlotScale plotScale(const SessionSnapshot& snapshot, double start) {
  double compared = 0.0, baseline = 0.0;
  const Series* baselineSeries = nullptr;
  for (const Series& s : snapshot.series) {
    for (const Sample& x : s.samples) {
      if (x.seconds < start) continue;
      if (s.role == SeriesRole::Baseline) {
        baseline = std::max(baseline, x.gflops);
        baselineSeries = &s;
      } else {
        compared = std::max(compared, x.gflops);
      }
    }
  }
  constexpr double kOffScale = 3.0;
  if (compared > 0.0 && baseline > kOffScale * compared) return {compared, baselineSeries};
  return {std::max(compared, baseline), nullptr};
}

PlotArea throughputPlot(const SessionSnapshot& snapshot, ImVec2 size) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 p = ImGui::GetCursorScreenPos();
  const float left = px(52.0f), above = ImGui::GetTextLineHeight() + 2.0f, bottom = ImGui::GetTextLineHeight() + px(4.0f);
  ImVec2 plot0{p.x + left, p.y + above}, plot1{p.x + size.x - 6.0f, p.y + size.y - bottom};
  dl->AddRectFilled(plot0, plot1, IM_COL32(20, 22, 27, 255));

  const double windowSeconds = 20.0;
  // The right edge follows the newest sample while samples keep coming, so the lines do not
  // jitter with the frame clock; once they stop (paused), time moves on without them.
  double newest = 0.0;
  for (const Series& s : snapshot.series) {
    if (!s.samples.empty()) newest = std::max(newest, s.samples.back().seconds);
  }
  double end = snapshot.now - newest < 1.0 ? newest : snapshot.now, start = end - windowSeconds;
  double oldest = end;
  for (const Series& s : snapshot.series) {
    for (const Sample& x : s.samples) {
      if (x.seconds >= start) oldest = std::min(oldest, x.seconds);
    }
  }
  const PlotScale scale = plotScale(snapshot, start);
  // A young session zooms in on what it has, so its first samples are not a sliver at the edge.
  start = std::max(start, std::min(oldest, end - 1e-3));
  double highest = scale.highest > 0.0 ? scale.highest : 1.0;
  double step = niceStep(highest * 1.1, 4);
  double top = std::ceil(highest * 1.1 / step) * step;
  auto toX = [&](double t) { return plot0.x + static_cast<float>((t - start) / (end - start)) * (plot1.x - plot0.x); };
  auto toY = [&](double g) { return plot1.y - static_cast<float>(g / top) * (plot1.y - plot0.y); };
  for (double g = 0.0; g <= top + step * 0.5; g += step) {
    float y = toY(g);
    dl->AddLine({plot0.x, y}, {plot1.x, y}, palette::kGrid);
    std::string label = formatNumber(g, g < 10 ? 1 : 0);
    float w = ImGui::CalcTextSize(label.c_str()).x;
    dl->AddText({plot0.x - w - 6.0f, y - ImGui::GetTextLineHeight() * 0.5f}, palette::kDim, label.c_str());
  }
  dl->AddText({p.x, p.y}, palette::kDim, "GFLOPS");
  double seconds = end - start;
  std::string span = snapshot.deviceClock
                         ? formatNumber(seconds * 1e3, seconds < 0.01 ? 2 : 0) + " ms of device time  \xE2\x86\x92 now"
                         : "last " + formatNumber(seconds, seconds < 0.1 ? 3 : seconds < 10 ? 1 : 0) + " s  \xE2\x86\x92 now";
  dl->AddText({plot1.x - ImGui::CalcTextSize(span.c_str()).x, plot1.y + 2.0f}, palette::kDim, span.c_str());
  dl->AddText({plot0.x, plot1.y + 2.0f}, palette::kDim, "time \xE2\x86\x92");

  dl->PushClipRect(plot0, plot1, true);
  // Baseline first, the chosen kernel last: on top where lines cross.
  for (auto it = snapshot.series.rbegin(); it != snapshot.series.rend(); ++it) {
    const Series& s = *it;
    if (&s == scale.offScale) continue;
    std::vector<ImVec2> points;
    for (const Sample& x : s.samples) {
      if (x.seconds >= start) points.push_back({toX(x.seconds), toY(x.gflops)});
    }
    ImU32 colour = seriesColour(s.role);
    if (points.size() >= 2) dl->AddPolyline(points.data(), static_cast<int>(points.size()), colour, 0, 2.0f);
    if (points.size() < 40) {
      for (const ImVec2& q : points) dl->AddCircleFilled(q, 2.5f, colour);
    }
  }
  dl->PopClipRect();
  if (scale.offScale != nullptr) {  // above the plot, level with its "GFLOPS", clear of the lines
    std::optional<double> gflops = scale.offScale->medianGflops(snapshot.now);
    std::string note = "\xE2\x86\x91 " + scale.offScale->kernel + " baseline off the scale" +
                       (gflops ? ": " + formatNumber(*gflops, 1) + " GFLOPS" : std::string());
    dl->AddText({plot1.x - ImGui::CalcTextSize(note.c_str()).x, p.y}, palette::kBaseline, note.c_str());
  }
  dl->AddRect(plot0, plot1, palette::kGrid);
  ImGui::Dummy(size);
  return {plot0, {plot1.x - plot0.x, plot1.y - plot0.y}};
}

void speedupBars(const SkipFigures& f, float width) {
  struct Bar {
    const char* label;
    std::optional<double> value;
    ImU32 colour;
  };
  Bar bars[] = {
      {"ideal: 1 / joint density", f.predictedSpeedup, fractionColour(1.0f)},
      {"load bound", f.loadBound, fractionColour(0.55f)},
      {"measured vs dense", f.measuredSpeedup, palette::kKernel},
  };
  double top = 1.0;
  for (const Bar& b : bars) {
    if (b.value && std::isfinite(*b.value)) top = std::max(top, *b.value);
  }
  const float labelWidth = px(170.0f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (const Bar& b : bars) {
    ImGui::TextDisabled("%s", b.label);
    ImGui::SameLine(labelWidth);
    ImVec2 p = ImGui::GetCursorScreenPos();
    float room = width - labelWidth - px(70.0f);
    float h = ImGui::GetTextLineHeight() * 0.75f;
    float y = p.y + (ImGui::GetTextLineHeight() - h) * 0.5f;
    dl->AddRectFilled({p.x, y}, {p.x + room, y + h}, IM_COL32(255, 255, 255, 12));
    // The 1x line: where skipping stops paying.
    float one = p.x + room * static_cast<float>(1.0 / top);
    if (b.value) {
      double v = std::isfinite(*b.value) ? *b.value : top;
      dl->AddRectFilled({p.x, y}, {p.x + room * static_cast<float>(v / top), y + h}, b.colour);
    }
    dl->AddLine({one, y - 2}, {one, y + h + 2}, palette::kAccent);
    ImGui::Dummy({room, ImGui::GetTextLineHeight()});
    ImGui::SameLine();
    ImGui::TextUnformatted(b.value ? (formatNumber(*b.value) + kTimes).c_str() : "not measured");
  }
}

}  // namespace

PlotArea drawThroughputPanel(const Fonts& fonts, const SessionSnapshot& snapshot) {
  panelTitle(fonts, "Live throughput",
             "Device-timed GFLOPS (2\xC2\xB7M\xC2\xB7N\xC2\xB7K / kernel time from Backend::run), not frame time. Every "
             "kernel is checked against the CPU reference before its times count.");
  ImVec2 room = ImGui::GetContentRegionAvail();
  const bool recorded = liveDeviceIsCpu(snapshot);
  PlotArea plot = throughputPlot(snapshot, {room.x, std::max(px(100.0f), room.y * (recorded ? 0.30f : 0.42f))});

  if (ImGui::BeginTable("series", 4, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("kernel", ImGuiTableColumnFlags_WidthStretch, 2.2f);
    ImGui::TableSetupColumn("GFLOPS", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthStretch, 0.8f);
    ImGui::TableSetupColumn("runs", ImGuiTableColumnFlags_WidthStretch, 0.6f);
    ImGui::TableHeadersRow();
    for (const Series& s : snapshot.series) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      legendItem(seriesColour(s.role), (s.kernel + " \xC2\xB7 " + seriesRoleName(s.role) + " \xC2\xB7 " + s.backend).c_str());
      ImGui::TableSetColumnIndex(1);
      std::optional<double> gflops = s.medianGflops(snapshot.now);
      std::optional<double> ms = s.medianMs(snapshot.now);
      if (gflops) {
        ImGui::TextUnformatted(formatNumber(*gflops, *gflops < 100 ? 2 : 1).c_str());
        ImGui::TableSetColumnIndex(2);
        ImGui::TextUnformatted(formatNumber(*ms, *ms < 1 ? 3 : 2).c_str());
        ImGui::TableSetColumnIndex(3);
        ImGui::Text("%zu", s.samples.size());
      } else {
        ImU32 colour = s.state == Series::State::Failed    ? palette::kBad
                       : s.state == Series::State::Refused ? palette::kWarn
                                                           : palette::kDim;
        const char* why = s.state == Series::State::Failed        ? "FAILED"
                          : s.state == Series::State::Refused     ? "refused"
                          : s.state == Series::State::Unavailable ? "not run"
                          : snapshot.served.measuring             ? "verifying..."
                                                                  : "paused";
        ImGui::TextColored(toVec4(colour), "%s", why);
        if (ImGui::IsItemHovered() && !s.message.empty()) ImGui::SetTooltip("%s", s.message.c_str());
      }
    }
    ImGui::EndTable();
  }
  ImGui::Spacing();
  SkipFigures f = skipFigures(snapshot);
  speedupBars(f, ImGui::GetContentRegionAvail().x);
  ImGui::PushTextWrapPos(0.0f);
  if (f.skipEfficiency) {
    ImGui::Text("skip efficiency %s (measured / ideal)", formatPercent(*f.skipEfficiency).c_str());
  } else {
    ImGui::TextDisabled("skip efficiency needs the kernel and the dense reference (%s) timed on one backend",
                        std::string(kDenseReferenceKernel).c_str());
  }
  if (f.usefulGflops || f.vsBaseline) {
    std::string more;
    if (f.usefulGflops) more += "useful GFLOPS " + formatNumber(*f.usefulGflops, 1) + " (updates kept / time)";
    if (f.vsBaseline) more += std::string(more.empty() ? "" : " \xC2\xB7 ") + "vs baseline " + formatNumber(*f.vsBaseline) + kTimes;
    ImGui::TextDisabled("%s", more.c_str());
  }
  // A refusal is this device's limit, not the kernel's fault: say which, in the picture itself.
  for (const Series& s : snapshot.series) {
    if (s.state == Series::State::Refused) ImGui::TextColored(toVec4(palette::kWarn), "%s: %s", s.kernel.c_str(), s.message.c_str());
  }
  ImGui::PopTextWrapPos();
  if (recorded && snapshot.analysis) {
    ImGui::Spacing();
    drawRecordedLadder(*snapshot.analysis->kernel, ImGui::GetContentRegionAvail().x);
  }
  return plot;
}

}  // namespace tileskip::ui
