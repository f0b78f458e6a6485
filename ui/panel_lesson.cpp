// The dense half of the lesson, drawn: teaching mode's views beside the block for the classic
// progression (lesson.hpp computes what they show), and the dense ladder as recorded on a GPU.
// Every figure drawn here is one lessonFacts() writes too, so the doc check sees what the class sees.
#include <algorithm>
#include <cmath>
#include <set>

#include "core/model/mma_layout.hpp"
#include "core/view/mma_walk.hpp"
#include "ui/panels.hpp"
#include "ui/recorded_figures.hpp"

namespace tileskip::ui {

namespace {

constexpr const char* kTimes = "\xC3\x97";  // ×
constexpr const char* kArrow = "\xE2\x86\x92";  // →

ImU32 hue(int index, int count, float alpha = 1.0f) {
  ImVec4 c;
  ImGui::ColorConvertHSVtoRGB(static_cast<float>(index % std::max(count, 1)) / static_cast<float>(std::max(count, 1)), 0.55f, 0.95f,
                              c.x, c.y, c.z);
  c.w = alpha;
  return ImGui::ColorConvertFloat4ToU32(c);
}

// The other kernel that reads global memory per product, to compare with (K1 <-> K2).
const KernelInfo* otherGlobalKernel(const KernelInfo& kernel) {
  for (const KernelInfo& k : twinKernels()) {
    if (&k != &kernel && k.structure.loop == MainLoop::Global) return &k;
  }
  return nullptr;
}

std::string kernelName(const KernelInfo& k) {
  return std::string(k.id) + (k.number.empty() ? "" : " (" + std::string(k.number) + ")");
}

void coalescingView(const ProblemAnalysis& an, const KBlockStep& now) {
  const KernelInfo& kernel = *an.kernel;
  const int k = now.kBegin;
  std::vector<WarpAccess> accesses = warpGlobalAccesses(kernel, an.spec.m, an.spec.n, an.spec.k, 0, k);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::Text("Warp 0 (threads 0..31) of block (0, 0) at k = %d: each lane's global address, and the 32-byte sectors and "
              "128-byte lines the warp's request touches",
              k);
  ImGui::PopTextWrapPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float lane = std::clamp(std::floor((ImGui::GetContentRegionAvail().x - px(90)) / 64.0f), px(5.0f), px(11.0f));
  for (const WarpAccess& a : accesses) {
    // The lines the lanes hit, in address order: their index colours lanes and sectors alike.
    std::set<long long> lineSet;
    for (long long b : a.laneBytes) {
      if (b >= 0) lineSet.insert(b / kTransactionBytes);
    }
    std::vector<long long> lines(lineSet.begin(), lineSet.end());
    auto lineIndex = [&](long long bytes) {
      return static_cast<int>(std::lower_bound(lines.begin(), lines.end(), bytes / kTransactionBytes) - lines.begin());
    };
    ImGui::TextUnformatted(a.what.c_str());
    ImGui::SameLine(px(70));
    ImVec2 p = ImGui::GetCursorScreenPos();
    const int count = static_cast<int>(lines.size());
    for (int l = 0; l < kWarpLanes; ++l) {
      long long b = a.laneBytes[static_cast<std::size_t>(l)];
      const float fl = static_cast<float>(l);
      ImVec2 c0{p.x + fl * lane, p.y}, c1{p.x + (fl + 1) * lane - 1, p.y + lane * 1.6f};
      dl->AddRectFilled(c0, c1, b < 0 ? decisionColour(WarpDecision::Idle) : hue(lineIndex(b), count));
    }
    // The lines, four sectors each, a sector filled where some lane reads it.
    float x = p.x + kWarpLanes * lane + px(14);
    const float lineWidth = 4 * lane * 0.55f + px(3);
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x - px(110);
    const int shown = std::clamp(static_cast<int>((right - x) / lineWidth), 1, std::min(count, 16));
    for (int i = 0; i < shown; ++i) {
      for (int s = 0; s < kTransactionBytes / kSectorBytes; ++s) {
        bool touched = std::any_of(a.laneBytes.begin(), a.laneBytes.end(), [&](long long b) {
          return b >= 0 && b / kTransactionBytes == lines[static_cast<std::size_t>(i)] && (b % kTransactionBytes) / kSectorBytes == s;
        });
        const float fs = static_cast<float>(s);
        ImVec2 s0{x + fs * lane * 0.55f, p.y}, s1{x + (fs + 1) * lane * 0.55f - 1, p.y + lane * 1.6f};
        dl->AddRectFilled(s0, s1, touched ? hue(i, count) : IM_COL32(255, 255, 255, 25));
      }
      x += 4 * lane * 0.55f + px(3);
    }
    ImGui::Dummy({x - p.x, lane * 1.6f});
    if (count > shown) {
      ImGui::SameLine();
      ImGui::TextDisabled("+%d more lines", count - shown);
    }
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("   %d address%s %s %d sector%s, %d line%s: %d of %d bytes moved are used (%s)", a.addresses,
                        a.addresses == 1 ? "" : "es", kArrow, a.sectors, a.sectors == 1 ? "" : "s", a.transactions,
                        a.transactions == 1 ? "" : "s", a.usefulBytes, a.sectors * kSectorBytes,
                        formatPercent(a.efficiency()).c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::PushTextWrapPos(0.0f);
  if (const KernelInfo* other = otherGlobalKernel(kernel)) {
    std::vector<WarpAccess> theirs = warpGlobalAccesses(*other, an.spec.m, an.spec.n, an.spec.k, 0, k);
    ImGui::TextDisabled("Same k with %s's mapping: A %d sector%s, B %d, C %d. Lanes of one row of C share A's address (a "
                        "broadcast); lanes of consecutive columns read consecutive B and store consecutive C.",
                        kernelName(*other).c_str(), theirs[0].sectors, theirs[0].sectors == 1 ? "" : "s", theirs[1].sectors,
                        theirs[2].sectors);
  }
  ImGui::PopTextWrapPos();
}

// A mini GEMM diagram of the block tile: A's BM x BK tile to the left, B's BK x BN above, C with
// thread 0's outputs; returns where C was drawn. `rows` and `cols`: the rows of A and columns of B
// thread 0 reads.
void blockDiagram(const KernelInfo& kernel, float side, const std::vector<OutputRect>& highlight, ImU32 colour) {
  const TileShape& t = kernel.tile;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 p = ImGui::GetCursorScreenPos();
  const float unit = side / static_cast<float>(std::max(t.BM, t.BN));
  const float depth = std::max(px(10.0f), std::min(side * 0.25f, unit * static_cast<float>(std::max(t.BK, 1))));
  const float gap = px(4);
  ImVec2 a0{p.x, p.y + depth + gap}, c0{p.x + depth + gap, p.y + depth + gap};
  ImVec2 b0{c0.x, p.y};
  const float cw = unit * static_cast<float>(t.BN), ch = unit * static_cast<float>(t.BM);
  dl->AddRectFilled(a0, {a0.x + depth, a0.y + ch}, IM_COL32(255, 255, 255, 30));
  dl->AddRectFilled(b0, {b0.x + cw, b0.y + depth}, IM_COL32(255, 255, 255, 30));
  dl->AddRectFilled(c0, {c0.x + cw, c0.y + ch}, decisionColour(WarpDecision::Idle));
  for (const OutputRect& r : highlight) {
    float y0 = c0.y + unit * static_cast<float>(r.row), y1 = y0 + unit * static_cast<float>(r.rows);
    float x0 = c0.x + unit * static_cast<float>(r.col), x1 = x0 + unit * static_cast<float>(r.cols);
    dl->AddRectFilled({a0.x, y0}, {a0.x + depth, std::max(y1, y0 + 1)}, colour);   // its rows of the A tile
    dl->AddRectFilled({x0, b0.y}, {std::max(x1, x0 + 1), b0.y + depth}, colour);  // its columns of the B tile
    dl->AddRectFilled({x0, y0}, {std::max(x1, x0 + 1), std::max(y1, y0 + 1)}, colour);
  }
  dl->AddRect(a0, {a0.x + depth, a0.y + ch}, palette::kDim);
  dl->AddRect(b0, {b0.x + cw, b0.y + depth}, palette::kDim);
  dl->AddRect(c0, {c0.x + cw, c0.y + ch}, palette::kAccent);
  dl->AddText({a0.x, a0.y + ch + 2}, palette::kDim, ("A " + std::to_string(t.BM) + "x" + std::to_string(t.BK)).c_str());
  dl->AddText({b0.x + cw + 4, b0.y}, palette::kDim, ("B " + std::to_string(t.BK) + "x" + std::to_string(t.BN)).c_str());
  ImGui::Dummy({depth + gap + cw + px(60), depth + gap + ch + ImGui::GetTextLineHeight() + 2});
}

void sharedReuseView(const ProblemAnalysis& an) {
  const KernelInfo& kernel = *an.kernel;
  const TileShape& t = kernel.tile;
  const ReuseFigures r = reuseFigures(kernel);
  float side = std::min(ImGui::GetContentRegionAvail().x * 0.45f, std::max(px(80), ImGui::GetContentRegionAvail().y * 0.45f));
  ImGui::BeginGroup();
  blockDiagram(kernel, side, threadOutputs(kernel, 0), palette::kKernel);
  ImGui::EndGroup();
  ImGui::SameLine();
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(0.0f);
  if (kernel.stages() == 0) {
    ImGui::TextWrapped("No shared memory: every FMA reads its A and its B value from global memory, %s global loads per FMA. "
                       "Thread 0 (orange) reads a whole row of A and column of B; its neighbours read the same values again.",
                       formatNumber(r.globalLoadsPerFma).c_str());
  } else {
    ImGui::TextWrapped("One stage: the block copies A's %d x %d tile and B's %d x %d tile (%d floats) from global memory into "
                       "shared memory once, then every thread reads its row and column from there.",
                       t.BM, t.BK, t.BK, t.BN, r.stageFloats);
    ImGui::TextWrapped("Each staged A value feeds %d FMAs (a row of C), each B value %d (a column): global loads per FMA %s "
                       "%s (K1, K2: 2, a %s%s cut).",
                       r.aReuse, r.bReuse, kArrow, formatNumber(r.globalLoadsPerFma, 4).c_str(),
                       formatNumber(2.0 / r.globalLoadsPerFma, 0).c_str(), kTimes);
    ImGui::TextWrapped("Thread 0 (orange) keeps %d output%s; per k it reads %d A and %d B value%s from shared memory: %s shared "
                       "loads per FMA.",
                       r.outputsPerThread, r.outputsPerThread == 1 ? "" : "s", r.threadRows, r.threadCols,
                       r.threadCols == 1 ? "" : "s", formatNumber(r.sharedLoadsPerFma, 3).c_str());
  }
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
}

void registersView(const ProblemAnalysis& an) {
  const KernelInfo& kernel = *an.kernel;
  const ReuseFigures r = reuseFigures(kernel);
  std::vector<OutputRect> mine = threadOutputs(kernel, 0);
  float side = std::min(ImGui::GetContentRegionAvail().x * 0.4f, std::max(px(80), ImGui::GetContentRegionAvail().y * 0.45f));
  ImGui::BeginGroup();
  blockDiagram(kernel, side, mine, palette::kKernel);
  ImGui::EndGroup();
  ImGui::SameLine();
  // The thread's registers: its accumulators, with the A values (a column) and B values (a row)
  // it loads per k to update them all.
  ImGui::BeginGroup();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 p = ImGui::GetCursorScreenPos();
  const int rows = std::min(r.threadRows, 16), cols = std::min(r.threadCols, 16);
  const float cell = std::clamp(std::floor(side * 0.8f / static_cast<float>(std::max(rows, cols) + 1)), px(6), px(22));
  ImVec2 acc{p.x + cell + px(4), p.y + cell + px(4)};
  auto at = [cell](int i) { return static_cast<float>(i) * cell; };
  for (int i = 0; i < rows; ++i) {
    dl->AddRectFilled({p.x, acc.y + at(i)}, {p.x + cell - 1, acc.y + at(i + 1) - 1}, fractionColour(0.35f));
  }
  for (int j = 0; j < cols; ++j) {
    dl->AddRectFilled({acc.x + at(j), p.y}, {acc.x + at(j + 1) - 1, p.y + cell - 1}, fractionColour(0.75f));
  }
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      dl->AddRectFilled({acc.x + at(j), acc.y + at(i)}, {acc.x + at(j + 1) - 1, acc.y + at(i + 1) - 1}, palette::kKernel);
    }
  }
  ImGui::Dummy({cell * static_cast<float>(cols + 1) + px(8), cell * static_cast<float>(rows + 1) + px(8)});
  ImGui::TextDisabled("thread 0's registers: %d x %d accumulators,", r.threadRows, r.threadCols);
  ImGui::TextDisabled("a column of A, a row of B per k");
  ImGui::EndGroup();
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextWrapped("Per k, thread 0 loads %d A value%s and %d B value%s from shared memory into registers and does %d FMAs "
                     "with them (an outer product): %s shared loads per FMA (K3, one output per thread: 2). Global loads per "
                     "FMA over the block: %s.",
                     r.threadRows, r.threadRows == 1 ? "" : "s", r.threadCols, r.threadCols == 1 ? "" : "s", r.outputsPerThread,
                     formatNumber(r.sharedLoadsPerFma, 3).c_str(), formatNumber(r.globalLoadsPerFma, 4).c_str());
  ImGui::PopTextWrapPos();
}

void warpTileView(const ProblemAnalysis& an) {
  const KernelInfo& kernel = *an.kernel;
  const TileShape& t = kernel.tile;
  const WarpLayout w = warpLayout(kernel);
  const ReuseFigures r = reuseFigures(kernel);
  std::vector<LaneTile> lanes = warpLanes(kernel, 0);
  int row0 = t.BM, col0 = t.BN;
  for (const LaneTile& l : lanes) {
    for (const OutputRect& o : l.rects) {
      row0 = std::min(row0, o.row);
      col0 = std::min(col0, o.col);
    }
  }
  ImVec2 room = ImGui::GetContentRegionAvail();
  float side = std::max(px(100), std::min(room.x * 0.42f, room.y - ImGui::GetTextLineHeightWithSpacing() * 5));
  float unit = side / static_cast<float>(std::max(t.WM, t.WN));
  ImGui::BeginGroup();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 p = ImGui::GetCursorScreenPos();
  for (const LaneTile& l : lanes) {
    for (std::size_t s = 0; s < l.rects.size(); ++s) {
      const OutputRect& o = l.rects[s];
      ImVec2 a{p.x + unit * static_cast<float>(o.col - col0), p.y + unit * static_cast<float>(o.row - row0)};
      ImVec2 b{a.x + unit * static_cast<float>(o.cols) - 1, a.y + unit * static_cast<float>(o.rows) - 1};
      dl->AddRectFilled(a, b, hue(l.lane, kWarpLanes, l.lane == 0 ? 1.0f : 0.8f));
      if (l.lane == 0) dl->AddRect({a.x - 1, a.y - 1}, {b.x + 1, b.y + 1}, palette::kAccent, 0, 0, 2.0f);
      std::string number = std::to_string(l.lane);
      ImVec2 text = ImGui::CalcTextSize(number.c_str());
      if (s == 0 && b.x - a.x > text.x + 2 && b.y - a.y > text.y) {
        dl->AddText({a.x + (b.x - a.x - text.x) * 0.5f, a.y + (b.y - a.y - text.y) * 0.5f}, IM_COL32(10, 10, 10, 255), number.c_str());
      }
    }
  }
  // The sub-tiles the warp steps over.
  for (int im = 0; im < w.iterM; ++im) {
    for (int in = 0; in < w.iterN; ++in) {
      ImVec2 a{p.x + unit * static_cast<float>(in * w.subN), p.y + unit * static_cast<float>(im * w.subM)};
      dl->AddRect(a, {a.x + unit * static_cast<float>(w.subN), a.y + unit * static_cast<float>(w.subM)}, IM_COL32(0, 0, 0, 220), 0, 0, 2.0f);
    }
  }
  dl->AddRect(p, {p.x + unit * static_cast<float>(t.WN), p.y + unit * static_cast<float>(t.WM)}, palette::kAccent);
  ImGui::Dummy({unit * static_cast<float>(t.WN), unit * static_cast<float>(t.WM)});
  ImGui::TextDisabled("warp 0: rows %d..%d, columns %d..%d of the block", row0, row0 + t.WM - 1, col0, col0 + t.WN - 1);
  ImGui::EndGroup();
  ImGui::SameLine();
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextWrapped("Warp tile %d x %d: 32 lanes in a %d x %d grid over each %d x %d sub-tile (%d x %d outputs a lane), "
                     "%d x %d sub-tiles: lane 0 (outlined) keeps %d accumulators.",
                     t.WM, t.WN, w.laneRows, w.laneCols, w.subM, w.subN, t.TM, t.TN, w.iterM, w.iterN, r.outputsPerThread);
  ImGui::TextWrapped("Per k a lane reads %d A + %d B shared values for %d FMAs (%s per FMA). A pattern tile as tall as a "
                     "sub-tile is read alike by every lane: Part 2's warp-uniform skip.",
                     r.threadRows, r.threadCols, r.outputsPerThread, formatNumber(r.sharedLoadsPerFma, 3).c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
}

void timelineRow(ImDrawList* dl, ImVec2 p, float unit, float height, const std::vector<PipelineSlot>& slots, int first, int current,
                 bool loads) {
  for (std::size_t i = static_cast<std::size_t>(first); i < slots.size(); ++i) {
    const PipelineSlot& s = slots[i];
    double b = loads ? s.loadBegin : s.computeBegin, e = loads ? s.loadEnd : s.computeEnd;
    double base = slots[static_cast<std::size_t>(first)].loadBegin;
    ImVec2 a{p.x + unit * static_cast<float>(b - base), p.y}, c{p.x + unit * static_cast<float>(e - base) - 2, p.y + height};
    ImU32 colour = s.buffer == 0 ? palette::kDense : palette::kKernel;
    dl->AddRectFilled(a, c, loads ? (colour & 0x00FFFFFF) | 0x90000000 : colour, 3.0f);
    std::string label = (loads ? "load " : "FMA ") + std::to_string(s.kTile);
    if (c.x - a.x > ImGui::CalcTextSize(label.c_str()).x + 4) dl->AddText({a.x + 3, a.y + 1}, IM_COL32(10, 10, 10, 255), label.c_str());
    if (s.kTile == current) dl->AddRect({a.x - 1, a.y - 1}, {c.x + 1, c.y + 1}, palette::kAccent, 3.0f, 0, 2.0f);
  }
}

void pipelineView(const ProblemAnalysis& an, const KBlockStep& now) {
  const KernelInfo& kernel = *an.kernel;
  const StageLabel stage = stageLabel(kernel, now.kBlock);
  const int shown = 6, first = std::max(0, stage.kTile - 2), kTiles = first + shown;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float labelWidth = px(150);
  const float height = ImGui::GetTextLineHeight() + 2;
  const float width = ImGui::GetContentRegionAvail().x - labelWidth - px(10);
  const std::vector<PipelineSlot> one = pipelineTimeline(1, kTiles), two = pipelineTimeline(2, kTiles);
  const double span = one.back().computeEnd - one[static_cast<std::size_t>(first)].loadBegin;
  const float unit = width / static_cast<float>(span);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextWrapped("The main loop over K-tiles (BK = %d) as a timeline, a load and a K-tile's FMAs costing 1 each; %s keeps "
                     "%d shared-memory stage%s (colour: the buffer a K-tile lands in). With two, K-tile t + 1 travels from "
                     "global memory during K-tile t's FMAs. K-tile %d is outlined.",
                     std::max(kernel.tile.BK, 1), kernelName(kernel).c_str(), kernel.stages(), kernel.stages() == 1 ? "" : "s",
                     stage.kTile);
  ImGui::PopTextWrapPos();
  struct Line {
    const char* title;
    const std::vector<PipelineSlot>* slots;
    int stages;
  };
  const Line lines[] = {{"one stage (K3-K10)", &one, 1}, {"two stages (K11)", &two, 2}};
  for (const Line& line : lines) {
    const bool own = (kernel.stages() >= 2) == (line.stages == 2) && kernel.stages() > 0;
    const double time = line.slots->back().computeEnd - (*line.slots)[static_cast<std::size_t>(first)].loadBegin;
    std::string heading = std::string(line.title) + ": " + std::to_string(barriersPerKTile(line.stages)) + " barrier" +
                          (barriersPerKTile(line.stages) == 1 ? "" : "s") + " per K-tile, K-tiles " + std::to_string(first) +
                          ".." + std::to_string(kTiles - 1) + " in " + formatNumber(time, 0) + " units" +
                          (own ? std::string("  ") + kArrow + " this kernel" : "");
    if (own) {
      ImGui::TextColored(toVec4(palette::kAccent), "%s", heading.c_str());
    } else {
      ImGui::TextDisabled("%s", heading.c_str());
    }
    for (bool loads : {true, false}) {
      ImGui::TextDisabled("  %s", loads ? "global \xE2\x86\x92 shared" : "FMAs");
      ImGui::SameLine(labelWidth);
      ImVec2 p = ImGui::GetCursorScreenPos();
      timelineRow(dl, p, unit, height, *line.slots, first, stage.kTile, loads);
      ImGui::Dummy({width, height});
    }
  }
}

// "A[1][2..3]": where one register's values sit (one value, or two neighbours along a row or column).
std::string registerText(char operand, const std::vector<FragmentValue>& values, std::size_t first, int count) {
  const FragmentValue& v = values[first];
  std::string row = std::to_string(v.row), col = std::to_string(v.col);
  if (count == 2) {
    const FragmentValue& w = values[first + 1];
    if (w.row == v.row) col += ".." + std::to_string(w.col);
    else row += ".." + std::to_string(w.row);
  }
  return std::string(1, operand) + "[" + row + "][" + col + "]";
}

// One operand of one MMA as a grid of cells in the colour of the lane that holds each value;
// the values of `lane` outlined. Returns the lane under the mouse, or -1.
int fragmentGrid(ImDrawList* dl, ImVec2 p, float cell, int rows, int cols, DType dtype, MmaOperand operand, int lane,
                 int rowOffset = 0) {
  std::vector<int> owner(static_cast<std::size_t>(rows * cols), -1);
  for (int l = 0; l < kWarpLanes; ++l) {
    for (const FragmentValue& v : mmaFragment(dtype, operand, l)) {
      if (v.row < rows && v.col < cols) owner[static_cast<std::size_t>(v.row * cols + v.col)] = l;
    }
  }
  int hovered = -1;
  const ImVec2 mouse = ImGui::GetMousePos();
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const int l = owner[static_cast<std::size_t>(r * cols + c)];
      ImVec2 a{p.x + cell * static_cast<float>(c), p.y + cell * static_cast<float>(r + rowOffset)};
      ImVec2 b{a.x + cell - 1, a.y + cell - 1};
      dl->AddRectFilled(a, b, l < 0 ? decisionColour(WarpDecision::Idle) : hue(l, kWarpLanes, l == lane ? 1.0f : 0.55f));
      if (l == lane) dl->AddRect({a.x - 1, a.y - 1}, {b.x + 1, b.y + 1}, palette::kAccent, 0, 0, 2.0f);
      std::string number = std::to_string(l);
      ImVec2 text = ImGui::CalcTextSize(number.c_str());
      if (l >= 0 && cell > text.x + 2 && cell > text.y) {
        dl->AddText({a.x + (cell - text.x) * 0.5f, a.y + (cell - 1 - text.y) * 0.5f}, IM_COL32(10, 10, 10, 255), number.c_str());
      }
      if (mouse.x >= a.x && mouse.x < b.x + 1 && mouse.y >= a.y && mouse.y < b.y + 1) hovered = l;
    }
  }
  return hovered;
}

// "A[0][0..1] A[8][0..1] ..., B[0..1][0] ..., C[0][0] ...": what `lane` holds, a register per entry,
// of each operand the lanes' registers carry.
std::string laneHoldings(const MmaInstruction& in, DType dtype, int lane) {
  std::string held;
  for (auto [operand, name] : {std::pair{MmaOperand::A, 'A'}, std::pair{MmaOperand::B, 'B'}, std::pair{MmaOperand::C, 'C'}}) {
    if (in.warpgroup && operand != MmaOperand::C) continue;  // read from shared memory by the instruction
    const std::vector<FragmentValue> values = mmaFragment(dtype, operand, lane);
    const int per = valuesPerRegister(dtype, operand);
    if (!held.empty()) held += ",";
    for (std::size_t i = 0; i < values.size(); i += static_cast<std::size_t>(per)) held += " " + registerText(name, values, i, per);
  }
  return held;
}

// One MMA's operands in a row, A x B += C (a warpgroup's C as its four warps' 16-row slices), each
// value in the colour of its lane, in at most `width`; returns the lane under the mouse, or -1.
int fragmentPicture(const MmaInstruction& in, DType dtype, int lane, float width, float height) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int slices = in.warpgroup ? in.m / kMmaTileRows : 1;
  const float gapCells = 2.0f;
  const float wideCells = in.warpgroup ? static_cast<float>(slices * kMmaTileCols) + gapCells * static_cast<float>(slices - 1)
                                       : static_cast<float>(in.k + 2 * kMmaTileCols) + 2 * gapCells;
  const float tallCells = static_cast<float>(std::max(kMmaTileRows, in.warpgroup ? 0 : in.k));
  const float cell = std::clamp(std::floor(std::min(width / wideCells, height / (tallCells + 1.5f))), 4.0f, px(18.0f));
  const ImVec2 p = ImGui::GetCursorScreenPos();
  auto at = [&](float cells) { return ImVec2{p.x + cell * cells, p.y}; };
  auto label = [&](float cells, float cellsDown, const std::string& text) {
    dl->AddText({p.x + cell * cells, p.y + cell * cellsDown + 2}, palette::kDim, text.c_str());
  };
  auto sign = [&](float cells, const char* text) {
    ImVec2 size = ImGui::CalcTextSize(text);
    dl->AddText({p.x + cell * cells + (cell * gapCells - size.x) * 0.5f, p.y + cell * 8 - size.y * 0.5f}, palette::kDim, text);
  };
  int hovered = -1;
  auto follow = [&](int under) { hovered = under >= 0 ? under : hovered; };
  if (in.warpgroup) {
    for (int warp = 0; warp < slices; ++warp) {
      const float x = static_cast<float>(warp) * (kMmaTileCols + gapCells);
      follow(fragmentGrid(dl, at(x), cell, kMmaTileRows, kMmaTileCols, dtype, MmaOperand::C, lane));
      label(x, kMmaTileRows, "warp " + std::to_string(warp));
    }
  } else {
    const float bAt = static_cast<float>(in.k) + gapCells, cAt = bAt + kMmaTileCols + gapCells;
    follow(fragmentGrid(dl, at(0), cell, kMmaTileRows, in.k, dtype, MmaOperand::A, lane));
    follow(fragmentGrid(dl, at(bAt), cell, in.k, kMmaTileCols, dtype, MmaOperand::B, lane));
    follow(fragmentGrid(dl, at(cAt), cell, kMmaTileRows, kMmaTileCols, dtype, MmaOperand::C, lane));
    sign(static_cast<float>(in.k), kTimes);
    sign(bAt + kMmaTileCols, "+=");
    label(0, kMmaTileRows, "A " + std::to_string(kMmaTileRows) + kTimes + std::to_string(in.k));
    label(bAt, static_cast<float>(in.k), "B " + std::to_string(in.k) + kTimes + std::to_string(kMmaTileCols));
    label(cAt, kMmaTileRows, "C " + std::to_string(kMmaTileRows) + kTimes + std::to_string(kMmaTileCols));
  }
  ImGui::Dummy({cell * wideCells, cell * tallCells + ImGui::GetTextLineHeight() + 4});
  return hovered;
}

// The block's steps as columns, a cell per warp (warpgroup) with outputs in C: issues or skips,
// with a foot where it multiplies a K-block zero for it. Up to 24 steps around `current`.
void stepStrip(const MmaWalk& mma, const KBlockStep& now, int current) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int shown = std::min<int>(24, static_cast<int>(mma.steps.size()));
  const int first = std::clamp((current < 0 ? 0 : current) - shown / 2, 0, static_cast<int>(mma.steps.size()) - shown);
  const float w = std::clamp(std::floor((ImGui::GetContentRegionAvail().x - px(4)) / static_cast<float>(std::max(shown, 1))), 4.0f, px(16.0f));
  const float h = std::clamp(px(36.0f) / static_cast<float>(std::max(mma.warps, 1)), 3.0f, px(10.0f));
  const ImVec2 q = ImGui::GetCursorScreenPos();
  for (int i = 0; i < shown; ++i) {
    const MmaStep& s = mma.steps[static_cast<std::size_t>(first + i)];
    const float x = q.x + w * static_cast<float>(i);
    float row = 0;
    for (std::size_t warp = 0; warp < s.issues.size(); ++warp) {
      if (now.warps[warp].steps.empty()) continue;
      ImVec2 a{x, q.y + h * row}, b{x + w - 1, q.y + h * (row + 1) - 1};
      dl->AddRectFilled(a, b, decisionColour(s.issues[warp] ? WarpDecision::Work : WarpDecision::Skip));
      if (s.idleSlots[warp] > 0) dl->AddRectFilled({a.x, b.y - std::max(1.0f, h * 0.3f)}, b, palette::kWarn);
      row += 1;
    }
    if (first + i == current) dl->AddRect({x - 1, q.y - 1}, {x + w, q.y + h * row}, palette::kAccent, 0, 0, 2.0f);
  }
  ImGui::Dummy({w * static_cast<float>(shown), h * static_cast<float>(mma.warps) + 2});
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("Steps %d..%d, a cell per %s: green issues, grey skips, orange foot: a K-block zero for it", first,
                      first + shown - 1, mma.instruction.warpgroup ? "warpgroup" : "warp");
  ImGui::PopTextWrapPos();
}

void mmaView(const ProblemAnalysis& an, const BlockWalk& walk, const KBlockStep& now, int& lane) {
  const KernelInfo& kernel = *an.kernel;
  const DType dtype = an.spec.dtype;
  const MmaWalk mma = mmaWalk(walk, dtype);
  const MmaInstruction& in = mma.instruction;
  const std::string type(dtypeName(dtype));
  const char* who = in.warpgroup ? "warpgroup" : "warp";
  // Left: the MMA and what the followed lane holds. Right: the block's steps.
  const ImVec2 room = ImGui::GetContentRegionAvail();
  const float left = std::floor(room.x * 0.5f) - px(8);
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + left);
  if (in.warpgroup) {
    ImGui::TextWrapped("wgmma m%dn%dk%d, %s in: 4 warps together, A and B read from shared memory, C in registers (each "
                       "warp's first 16 x 8 tile; colour: the lane holding a value)",
                       in.m, in.n, in.k, type.c_str());
  } else {
    ImGui::TextWrapped("mma.sync m%dn%dk%d, %s in, fp32 out, all 32 lanes together; colour: the lane holding a value", in.m,
                       in.n, in.k, type.c_str());
  }
  const int hovered = fragmentPicture(in, dtype, lane, left, room.y * 0.45f);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("hover a value to follow its lane");
  if (hovered >= 0) lane = hovered;
  ImGui::TextWrapped("Lane %d (g = %d, t = %d), a register each:%s%s.", lane, lane / 4, lane % 4, laneHoldings(in, dtype, lane).c_str(),
                     in.warpgroup ? (", in each of its warp's " + std::to_string(in.n / kMmaTileCols) + " tiles of 16 x 8").c_str() : "");
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();

  ImGui::SameLine();
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(0.0f);
  const int step = mma.stepOf(now.kBlock);
  if (step < 0) {
    ImGui::TextColored(toVec4(palette::kGood), "%s No step multiplies K-block %d: no %s of this block needs it, so it is never loaded.",
                       kArrow, now.kBlock, who);
  } else {
    const MmaStep& s = mma.steps[static_cast<std::size_t>(step)];
    std::string slots;
    for (int kb : s.kBlocks) slots += (slots.empty() ? "" : ", ") + (kb < 0 ? std::string("none (the list's end)") : std::to_string(kb));
    int idle = 0;
    for (int n : s.idleSlots) idle += n;
    const std::string issuing = kernel.skips() ? std::to_string(s.warpsIssuing()) + " of " + std::to_string(mma.warps) + " " + who +
                                                     "s issue its " + std::to_string(mma.mmasPerStep) + " MMAs each, " +
                                                     std::to_string(mma.warps - s.warpsIssuing()) + " skip them"
                                               : "all " + std::to_string(mma.warps) + " " + who + "s issue its " +
                                                     std::to_string(mma.mmasPerStep) + " MMAs each";
    const std::string idleText = idle > 0 ? "; " + std::to_string(idle) + " of the K-blocks multiplied are zero for their " + who +
                                                " (a step is " + std::to_string(mma.stepDepth) + " deep, a pattern bit 1)"
                                          : "";
    ImGui::TextWrapped("%s Step %d of %zu%s: K-block%s %s; %s%s.", kArrow, step, mma.steps.size(),
                       kernel.skips() ? (" (dense: " + std::to_string(mma.denseSteps) + ")").c_str() : "",
                       s.kBlocks.size() == 1 ? "" : "s", slots.c_str(), issuing.c_str(), idleText.c_str());
  }
  ImGui::PopTextWrapPos();
  stepStrip(mma, now, step);
  ImGui::PushTextWrapPos(0.0f);
  const double issued = mma.denseMmas() > 0 ? static_cast<double>(mma.mmasIssued()) / static_cast<double>(mma.denseMmas()) : 0.0;
  const double idle = mma.slotsMultiplied() > 0
                          ? static_cast<double>(mma.idleSlotsMultiplied()) / static_cast<double>(mma.slotsMultiplied())
                          : 0.0;
  ImGui::TextWrapped("Whole walk: %zu of %d steps, %lld of %lld MMAs (%s); %s of the K-blocks multiplied zero for their %s.",
                     mma.steps.size(), mma.denseSteps, mma.mmasIssued(), mma.denseMmas(), formatPercent(issued).c_str(),
                     formatPercent(idle).c_str(), who);
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
}

}  // namespace

std::pair<ImVec2, ImVec2> drawLessonView(const ProblemAnalysis& analysis, const BlockWalk& walk, TeachView view, const KBlockStep& now,
                                         int& lane) {
  ImGui::BeginGroup();
  switch (view) {
    case TeachView::Walk: break;
    case TeachView::Coalescing: coalescingView(analysis, now); break;
    case TeachView::SharedReuse: sharedReuseView(analysis); break;
    case TeachView::Registers: registersView(analysis); break;
    case TeachView::WarpTile: warpTileView(analysis); break;
    case TeachView::Pipeline: pipelineView(analysis, now); break;
    case TeachView::Mma: mmaView(analysis, walk, now, lane); break;
  }
  ImGui::EndGroup();
  return {ImGui::GetItemRectMin(), ImGui::GetItemRectMax()};
}

bool liveDeviceIsCpu(const SessionSnapshot& snapshot) { return !snapshot.device.isGpu; }

float recordedLadderHeight() { return ImGui::GetTextLineHeightWithSpacing() * 7.5f; }

void drawRecordedLadderCompact(const KernelInfo& current, float width) {
  const RecordedFigures& f = recordedFigures();
  std::vector<RecordedKernel> rows = f.of("cuda");
  if (rows.empty()) return;
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
  ImGui::TextColored(toVec4(palette::kWarn), "No GPU here: recorded on %s (CUDA, %s, %d\xC2\xB3), GFLOPS", f.device.c_str(),
                     f.date.c_str(), f.size);
  ImGui::PopTextWrapPos();
  double top = 0.0;
  for (const RecordedKernel& r : rows) top = std::max(top, r.gflops);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float line = ImGui::GetTextLineHeight();
  // A line of room above the bars for the chosen kernel's value, so that the tallest bar's value
  // stays below the heading instead of over it.
  ImVec2 p = ImGui::GetCursorScreenPos();
  p.y += line + 2;
  const float barsHeight = line * 3.0f, slot = width / static_cast<float>(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const RecordedKernel& r = rows[i];
    const bool mine = r.kernel == current.id;
    const float x0 = p.x + slot * static_cast<float>(i) + 2, x1 = x0 + slot - 4;
    const float h = barsHeight * static_cast<float>(r.gflops / top);
    dl->AddRectFilled({x0, p.y + barsHeight - h}, {x1, p.y + barsHeight}, mine ? palette::kKernel : palette::kDense);
    const std::string label = r.label();
    ImVec2 size = ImGui::CalcTextSize(label.c_str());
    if (size.x <= slot || mine) {  // a name wider than its bar (cuBLAS in a narrow panel) is left to the tooltip
      dl->AddText({x0 + (x1 - x0 - size.x) * 0.5f, p.y + barsHeight + 2}, mine ? palette::kText : palette::kDim, label.c_str());
    }
    if (mine) {
      std::string value = formatNumber(r.gflops, 0);
      ImVec2 v = ImGui::CalcTextSize(value.c_str());
      dl->AddText({std::max(p.x, x0 + (x1 - x0 - v.x) * 0.5f), p.y + barsHeight - h - line - 1}, palette::kKernel, value.c_str());
    }
  }
  ImGui::Dummy({width, line + 2 + barsHeight + line + 4});
  ImGui::EndGroup();
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("%s: the dense ladder on the GPU, K1 to K12 and cuBLAS, where it reads the right way (a CPU runs K2 and K3 slower than K1)",
                      f.source.c_str());
  }
}

void drawRecordedLadder(const KernelInfo& current, float width) {
  const RecordedFigures& f = recordedFigures();
  // The dense ladder in fp32; a tensor-core kernel's own rungs in the precision it was recorded in.
  std::vector<RecordedKernel> rows = f.of("cuda");
  if (current.usesTensorCores()) {
    for (const RecordedKernel& r : f.kernels) {
      if (r.backend == "cuda" && r.dtype != "fp32" && !f.of("cuda", r.dtype).empty()) {
        rows = f.of("cuda", r.dtype);
        break;
      }
    }
  }
  if (rows.empty()) return;
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(toVec4(palette::kWarn),
                     "Recorded on a GPU: %s, CUDA, %s, M = N = K = %d (%s). The live figures here come from a CPU, where the "
                     "dense ladder runs backwards.",
                     f.device.c_str(), f.date.c_str(), f.size, f.source.c_str());
  ImGui::PopTextWrapPos();
  double top = 0.0;
  for (const RecordedKernel& r : rows) top = std::max(top, r.gflops);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float labelWidth = px(150), valueWidth = px(110);
  const float room = std::max(px(40), width - labelWidth - valueWidth);
  for (const RecordedKernel& r : rows) {
    const bool mine = r.kernel == current.id;
    std::string label = r.label() == r.kernel ? r.kernel : r.label() + " " + r.kernel;
    if (r.dtype != "fp32") label += " (" + r.dtype + ")";
    if (mine) {
      ImGui::TextUnformatted(label.c_str());
    } else {
      ImGui::TextDisabled("%s", label.c_str());
    }
    ImGui::SameLine(labelWidth);
    ImVec2 p = ImGui::GetCursorScreenPos();
    float h = ImGui::GetTextLineHeight() * 0.7f, y = p.y + (ImGui::GetTextLineHeight() - h) * 0.5f;
    dl->AddRectFilled({p.x, y}, {p.x + room * static_cast<float>(r.gflops / top), y + h}, mine ? palette::kKernel : palette::kDense);
    ImGui::Dummy({room, ImGui::GetTextLineHeight()});
    ImGui::SameLine();
    ImGui::TextDisabled("%s GFLOPS", formatNumber(r.gflops, 0).c_str());
  }
}

}  // namespace tileskip::ui
