// Teaching mode: one thread block walks its K-blocks. The picture is the GEMM diagram of one
// block — the A tiles it reads to the left, the B tiles above, its output tile with the warps
// inside — and the text beside it says, for the current K-block, what is loaded, what is
// skipped and why (the pattern bits), and which warps agree or diverge.
#include <algorithm>
#include <bit>
#include <cmath>
#include <sstream>

#include "ui/panels.hpp"

#include "core/io/file_digest.hpp"

namespace tileskip::ui {

namespace {

constexpr const char* kArrow = "\xE2\x86\x92";  // →
constexpr int kVisibleKBlocks = 16;

std::string range(int begin, int end) { return std::to_string(begin) + ".." + std::to_string(end - 1); }

// Written out, not "w" + to_string: GCC 12 warns falsely (-Wrestrict) on a one-letter literal + string.
std::string warpName(int warp) {
  std::string name = "w";
  return name.append(std::to_string(warp));
}

int realBits(const Pattern& p, int kBlock) { return std::min(kKBlock, p.depth - kBlock * kKBlock); }

bool seatedOnShape(const TeachState& st, const ProblemAnalysis& an) {
  const ProblemSpec& s = an.spec;
  return st.kernel == an.kernel && st.m == s.m && st.n == s.n && st.k == s.k;
}

void reseat(TeachState& st, const std::shared_ptr<const ProblemAnalysis>& an) {
  const KernelInfo& kernel = *an->kernel;
  const ProblemSpec& s = an->spec;
  BlockGrid grid = an->skipMap.loads.grid;
  bool keep = seatedOnShape(st, *an) && !st.requestedBlock;  // a new density or seed: same block and K-block
  st.analysis = an;
  if (keep) return;
  std::pair<int, int> block = teachingBlock(st, *an);
  st.blockRow = std::clamp(block.first, 0, grid.rows - 1);
  st.blockCol = std::clamp(block.second, 0, grid.cols - 1);
  BlockWalk walk(kernel, an->kernelPatterns, st.blockRow, st.blockCol);
  st.kBlock = st.requestedKBlock >= 0 ? std::min(st.requestedKBlock, walk.kBlocks() - 1) : firstInstructiveKBlock(walk);
  if (st.viewKernel != &kernel) {
    // --teach-view where it applies to this kernel, else the kernel's own lesson.
    bool requestedFits = st.requestedView && !teachViewProblem(kernel, *st.requestedView);
    st.view = requestedFits ? *st.requestedView : lessonView(kernel);
    st.viewKernel = &kernel;
  }
  st.requestedBlock.reset();
  st.requestedKBlock = -1;
  st.kernel = &kernel;
  st.m = s.m;
  st.n = s.n;
  st.k = s.k;
  st.elapsed = 0.0;
}

void viewChooser(TeachState& st, const KernelInfo& kernel) {
  ImGui::SetNextItemWidth(px(130));
  if (ImGui::BeginCombo("view", std::string(teachViewName(st.view)).c_str())) {
    for (TeachView v : teachViews()) {
      if (teachViewProblem(kernel, v)) continue;
      if (ImGui::Selectable(std::string(teachViewName(v)).c_str(), v == st.view)) st.view = v;
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("what is drawn beside the block (--teach-view)");
}

void walkControls(TeachState& st, const ProblemAnalysis& an, int kBlocks, float deltaSeconds) {
  BlockGrid grid = an.skipMap.loads.grid;
  if (st.playing) {
    st.elapsed += static_cast<double>(deltaSeconds) * st.speed;
    while (st.elapsed >= 1.0) {
      st.kBlock = (st.kBlock + 1) % kBlocks;
      st.elapsed -= 1.0;
    }
  }
  if (ImGui::Button("|<")) st.kBlock = 0;
  ImGui::SameLine();
  if (ImGui::Button("< step")) st.kBlock = std::max(0, st.kBlock - 1);
  ImGui::SameLine();
  if (ImGui::Button(st.playing ? "pause" : "play", {px(60), 0})) st.playing = !st.playing;
  ImGui::SameLine();
  if (ImGui::Button("step >")) st.kBlock = std::min(kBlocks - 1, st.kBlock + 1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("keys: Right, PageDown or space step on; Left or PageUp back; Home, End");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(px(120));
  ImGui::SliderFloat("K-blocks / s", &st.speed, 0.25f, 20.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
  ImGui::SameLine();
  viewChooser(st, *an.kernel);
  ImGui::SetNextItemWidth(std::max(px(160.0f), ImGui::GetContentRegionAvail().x - px(470.0f)));
  ImGui::SliderInt("K-block", &st.kBlock, 0, kBlocks - 1);
  ImGui::SameLine();
  int block[2] = {st.blockRow, st.blockCol};
  ImGui::SetNextItemWidth(px(150));
  if (ImGui::InputInt2("block (row, col)", block)) {
    st.blockRow = std::clamp(block[0], 0, grid.rows - 1);
    st.blockCol = std::clamp(block[1], 0, grid.cols - 1);
  }
  ImGui::SameLine();
  if (ImGui::Button("most instructive")) {
    st.blockRow = an.teachBlock.first;
    st.blockCol = an.teachBlock.second;
  }
}

// Where one block's rows, columns and K-blocks sit on screen.
struct Diagram {
  ImVec2 c0, c1;      // the output block tile
  ImVec2 a0;          // top-left of the A strip (left of C)
  ImVec2 b0;          // top-left of the B strip (above C)
  float cellK = 0;    // screen size of one K-block along K
  int firstKBlock = 0, visibleKBlocks = 0;
  int rowBegin = 0, rows = 1, colBegin = 0, cols = 1;

  float y(int row) const { return c0.y + (c1.y - c0.y) * static_cast<float>(row - rowBegin) / static_cast<float>(rows); }
  float x(int col) const { return c0.x + (c1.x - c0.x) * static_cast<float>(col - colBegin) / static_cast<float>(cols); }
  float kx(int kb) const { return a0.x + cellK * static_cast<float>(kb - firstKBlock); }
  float ky(int kb) const { return b0.y + cellK * static_cast<float>(kb - firstKBlock); }
};

void hatch(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 colour) {
  dl->PushClipRect(a, b, true);
  float h = b.y - a.y;
  for (float x = a.x - h; x < b.x; x += 5.0f) dl->AddLine({x, b.y}, {x + h, a.y}, colour);
  dl->PopClipRect();
}

void drawDiagram(const ProblemAnalysis& an, const BlockWalk& walk, const KBlockStep& now, ImVec2 room) {
  const KernelInfo& kernel = *an.kernel;
  const Pattern& a = an.kernelPatterns.a;
  const Pattern& b = an.kernelPatterns.b;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 p = ImGui::GetCursorScreenPos();

  Diagram d;
  d.visibleKBlocks = std::min(kVisibleKBlocks, walk.kBlocks());
  d.firstKBlock = std::clamp(now.kBlock - d.visibleKBlocks / 2, 0, walk.kBlocks() - d.visibleKBlocks);
  d.rowBegin = walk.rowBegin();
  d.rows = std::max(1, walk.rowEnd() - walk.rowBegin());
  d.colBegin = walk.colBegin();
  d.cols = std::max(1, walk.colEnd() - walk.colBegin());
  const float gap = px(10.0f), label = ImGui::GetTextLineHeight() + px(4.0f);
  float side = std::min(room.x, room.y - 2.0f * label) - label;
  d.cellK = std::clamp(std::floor(side * 0.42f / static_cast<float>(d.visibleKBlocks)), 5.0f, px(22.0f));
  float strip = d.cellK * static_cast<float>(d.visibleKBlocks);
  float cSide = std::max(px(60.0f), side - strip - gap);
  float aspect = static_cast<float>(d.cols) / static_cast<float>(d.rows);
  ImVec2 cSize = aspect >= 1.0f ? ImVec2{cSide, cSide / aspect} : ImVec2{cSide * aspect, cSide};
  d.a0 = {p.x, p.y + label + strip + gap};
  d.b0 = {p.x + strip + gap, p.y + label};
  d.c0 = {d.b0.x, d.a0.y};
  d.c1 = {d.c0.x + cSize.x, d.c0.y + cSize.y};

  // Corner captions.
  std::string kWindow = "K-blocks " + range(d.firstKBlock, d.firstKBlock + d.visibleKBlocks) + " of " + std::to_string(walk.kBlocks());
  dl->AddText({p.x, p.y}, palette::kAccent, ("block (" + std::to_string(walk.blockRow()) + ", " + std::to_string(walk.blockCol()) + ")").c_str());
  dl->AddText({d.b0.x, p.y}, palette::kDim, ("B tiles, columns " + range(walk.colBegin(), walk.colEnd()) + ", K-blocks \xE2\x86\x93").c_str());
  dl->AddText({d.c0.x, d.c1.y + 3}, palette::kDim,
              ("C block: rows " + range(walk.rowBegin(), walk.rowEnd()) + ", columns " + range(walk.colBegin(), walk.colEnd())).c_str());
  dl->AddText({p.x, d.c1.y + 3 + ImGui::GetTextLineHeight()}, palette::kDim,
              ("A tiles, rows " + range(walk.rowBegin(), walk.rowEnd()) + ", " + kWindow + " \xE2\x86\x92").c_str());

  // A strip: the A-pattern tiles of the block's rows along K; B strip: B tiles along K.
  for (int kb = d.firstKBlock; kb < d.firstKBlock + d.visibleKBlocks; ++kb) {
    int bits = realBits(a, kb);
    float x0 = d.kx(kb), x1 = x0 + d.cellK - 1.0f;
    for (int t = walk.rowBegin() / a.granularity; t <= (walk.rowEnd() - 1) / a.granularity; ++t) {
      int r0 = std::max(t * a.granularity, walk.rowBegin()), r1 = std::min((t + 1) * a.granularity, walk.rowEnd());
      float frac = static_cast<float>(std::popcount(a.at(t, kb))) / static_cast<float>(bits);
      dl->AddRectFilled({x0, d.y(r0)}, {x1, d.y(r1) - 1.0f}, fractionColour(frac));
    }
    float y0 = d.ky(kb), y1 = y0 + d.cellK - 1.0f;
    for (int t = walk.colBegin() / b.granularity; t <= (walk.colEnd() - 1) / b.granularity; ++t) {
      int c0 = std::max(t * b.granularity, walk.colBegin()), c1 = std::min((t + 1) * b.granularity, walk.colEnd());
      float frac = static_cast<float>(std::popcount(b.at(t, kb))) / static_cast<float>(bits);
      dl->AddRectFilled({d.x(c0), y0}, {d.x(c1) - 1.0f, y1}, fractionColour(frac));
    }
    // K-blocks the block skips: hatched in both strips, whether walked already or still ahead.
    KBlockStep s = walk.step(kb);
    if (s.loadSkipped()) {
      hatch(dl, {x0, d.c0.y}, {x1, d.c1.y}, IM_COL32(255, 255, 255, 70));
      hatch(dl, {d.c0.x, y0}, {d.c1.x, y1}, IM_COL32(255, 255, 255, 70));
    }
    // A lane of load marks between the strips: green loaded, grey skipped.
    ImU32 mark = s.loadSkipped() ? decisionColour(WarpDecision::Skip) : palette::kGood;
    dl->AddRectFilled({x0, d.a0.y - 7.0f}, {x1, d.a0.y - 3.0f}, mark);
    dl->AddRectFilled({d.b0.x - 7.0f, y0}, {d.b0.x - 3.0f, y1}, mark);
  }
  // The current K-block, in both strips.
  float x0 = d.kx(now.kBlock), y0 = d.ky(now.kBlock);
  dl->AddRect({x0 - 2, d.c0.y - 2}, {x0 + d.cellK + 1, d.c1.y + 1}, palette::kAccent, 0, 0, 2.0f);
  dl->AddRect({d.c0.x - 2, y0 - 2}, {d.c1.x + 1, y0 + d.cellK + 1}, palette::kAccent, 0, 0, 2.0f);

  // The output block: each warp (or each warp's sub-tiles, or each lane's thread tile) in the
  // colour of what it does at this K-block.
  dl->AddRectFilled(d.c0, d.c1, decisionColour(WarpDecision::Idle));
  for (const WarpView& w : now.warps) {
    if (w.steps.empty()) continue;
    if (!walk.hasWarpTile() && kernel.tile.BM > 0) {
      for (int lane = 0; lane < kWarpLanes; ++lane) {
        BlockWalk::Outputs o = walk.laneOutputs(w.warp, lane);
        if (o.empty()) continue;
        bool works = (w.steps.front().laneWorks >> lane) & 1u;
        dl->AddRectFilled({d.x(o.colBegin), d.y(o.rowBegin)}, {d.x(o.colEnd), d.y(o.rowEnd)},
                          decisionColour(works ? WarpDecision::Work : WarpDecision::Skip));
      }
    } else {
      for (const WarpStep& s : w.steps) {
        dl->AddRectFilled({d.x(s.colBegin), d.y(s.rowBegin)}, {d.x(s.colEnd), d.y(s.rowEnd)}, decisionColour(s.decision()));
        dl->AddRect({d.x(s.colBegin), d.y(s.rowBegin)}, {d.x(s.colEnd), d.y(s.rowEnd)}, IM_COL32(0, 0, 0, 60));
      }
    }
    ImVec2 w0{d.x(w.colBegin), d.y(w.rowBegin)}, w1{d.x(w.colEnd), d.y(w.rowEnd)};
    // Diverging and partially skipping warps wear their legend colour as a frame.
    bool marked = w.decision() == WarpDecision::Diverge || w.decision() == WarpDecision::Partial;
    dl->AddRect(w0, w1, marked ? decisionColour(w.decision()) : IM_COL32(0, 0, 0, 200), 0, 0, marked ? 3.0f : 2.0f);
    if (w1.x - w0.x > px(46.0f) && w1.y - w0.y > px(30.0f)) {
      dl->AddText({w0.x + 4, w0.y + 3}, IM_COL32(10, 10, 10, 255), warpName(w.warp).c_str());
      if (w1.x - w0.x > px(60.0f) && w1.y - w0.y > px(34.0f)) {
        drawByte(dl, {w0.x + 4, w1.y - px(10)}, w.any(), now.kEnd - now.kBegin, px(6.0f));
      }
    }
  }
  dl->AddRect({d.c0.x - 1, d.c0.y - 1}, {d.c1.x + 1, d.c1.y + 1}, palette::kAccent);
  ImGui::Dummy({std::max(d.c1.x - p.x, 1.0f), std::max(d.c1.y + 3 + 2 * ImGui::GetTextLineHeight() - p.y, 1.0f)});
}

void byteLine(const char* label, std::uint8_t byte, int bits, const std::string& note) {
  ImGui::TextDisabled("%s", label);
  ImGui::SameLine(px(150.0f));
  byteWidget(byte, bits, px(13.0f));
  ImGui::SameLine();
  ImGui::Text("%s  %s", byteText(byte, bits).c_str(), note.c_str());
}

// The step's verdict, first, so that it stays on screen whatever the panel's height: what the
// warps do at this K-block and what it costs.
void verdict(const KernelInfo& kernel, const KBlockStep& now, TeachState& st) {
  ImGui::PushTextWrapPos(0.0f);
  ImGui::BeginGroup();
  int diverging = now.warpsWith(WarpDecision::Diverge);
  if (!kernel.skips()) {
    ImGui::TextDisabled("%s %s is dense: every warp computes every K-block. Below, what its step adds (view %s).",
                        kArrow, std::string(kernel.id).c_str(), std::string(teachViewName(st.view)).c_str());
  } else if (diverging > 0) {
    ImGui::TextColored(toVec4(decisionColour(WarpDecision::Diverge)),
                       "%s %d warp%s diverge%s: lanes disagree, so the warp runs both paths and the skip saves nothing. "
                       "This is why %s needs a pattern per warp, not per thread.",
                       kArrow, diverging, diverging == 1 ? "" : "s", diverging == 1 ? "s" : "", std::string(kernel.id).c_str());
  } else if (now.loadSkipped()) {
    ImGui::TextColored(toVec4(palette::kGood),
                       "%s A & B is zero: no warp of this block needs K-block %d. The whole block skips the loads and the "
                       "FMAs: a block-uniform skip, safe to take around the barrier.",
                       kArrow, now.kBlock);
  } else if (!now.warpsAgree()) {
    int working = now.warpsWith(WarpDecision::Work) + now.warpsWith(WarpDecision::Partial);
    ImGui::TextColored(toVec4(palette::kWarn),
                       "%s The warps disagree: %d compute, %d skip. Each decides uniformly, so nothing diverges, but the "
                       "tiles are loaded for the computing warps while the others wait at the barrier.",
                       kArrow, working, now.warpsWith(WarpDecision::Skip));
  } else if (now.warpsWith(WarpDecision::Partial) > 0) {
    ImGui::TextColored(toVec4(decisionColour(WarpDecision::Partial)),
                       "%s Every warp skips some of its sub-tiles and computes others; each check is warp-uniform, so "
                       "nothing diverges.", kArrow);
  } else {
    ImGui::TextDisabled("%s All warps agree: they all compute this K-block.", kArrow);
  }
  ImGui::EndGroup();
  st.keyMessageMin = ImGui::GetItemRectMin();
  st.keyMessageMax = ImGui::GetItemRectMax();
  ImGui::PopTextWrapPos();
}

void explain(const ProblemAnalysis& an, const BlockWalk& walk, const KBlockStep& now, TeachState& st) {
  const KernelInfo& kernel = *an.kernel;
  const Pattern& a = an.kernelPatterns.a;
  const Pattern& b = an.kernelPatterns.b;
  int bits = now.kEnd - now.kBegin;
  ImGui::PushTextWrapPos(0.0f);
  ImGui::Text("K-block %d of %d: k = %s", now.kBlock, walk.kBlocks(), range(now.kBegin, now.kEnd).c_str());
  ImGui::SameLine();
  const StageLabel stage = stageLabel(kernel, now.kBlock);
  if (stage.stages == 0) {
    ImGui::TextDisabled("(no shared memory: BK = %d, every product reads global memory)", std::max(kernel.tile.BK, 1));
  } else if (stage.stages == 1) {
    ImGui::TextDisabled("(K-tile %d: BK = %d is %d K-block%s, in the one shared-memory stage)", stage.kTile, kernel.tile.BK,
                        std::max(kernel.tile.BK / kKBlock, 1), kernel.tile.BK / kKBlock > 1 ? "s" : "");
  } else {
    ImGui::TextDisabled("(K-tile %d: BK = %d is %d K-block%s, in shared-memory buffer %d of %d)", stage.kTile, kernel.tile.BK,
                        std::max(kernel.tile.BK / kKBlock, 1), kernel.tile.BK / kKBlock > 1 ? "s" : "", stage.buffer,
                        stage.stages);
  }
  ImGui::PopTextWrapPos();
  verdict(kernel, now, st);

  if (st.view != TeachView::Walk) {
    ImGui::Spacing();
    auto [min, max] = drawLessonView(an, walk, st.view, now, st.mmaLane);
    st.lessonMin = min;
    st.lessonMax = max;
  } else {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::Spacing();
    ImGui::TextDisabled("Block-wide pattern bytes (bit j = k index %d + j)", now.kBegin);
    int rowTiles = (walk.rowEnd() - 1) / a.granularity - walk.rowBegin() / a.granularity + 1;
    int colTiles = (walk.colEnd() - 1) / b.granularity - walk.colBegin() / b.granularity + 1;
    std::string notRead = std::string("(") + std::string(kernel.id) + " does not read this pattern: all bits set)";
    byteLine("A: OR of row tiles", now.blockA, bits,
             kernel.usesAPattern() ? std::string("(") + std::to_string(rowTiles) + " tiles of " + std::to_string(a.granularity) + " rows)" : notRead);
    byteLine("B: OR of col tiles", now.blockB, bits,
             kernel.usesBPattern() ? std::string("(") + std::to_string(colTiles) + " tiles of " + std::to_string(b.granularity) + " columns)" : notRead);
    byteLine("A & B", now.blockJoint(), bits, "");
    if (!now.loadSkipped()) {
      std::string rows = range(walk.rowBegin(), walk.rowEnd()), cols = range(walk.colBegin(), walk.colEnd());
      std::string ks = range(now.kBegin, now.kEnd);
      if (stage.stages == 0) {
        ImGui::Text("%s no shared memory: each thread reads its row of A[%s, %s] and column of B[%s, %s] from global memory.",
                    kArrow, rows.c_str(), ks.c_str(), ks.c_str(), cols.c_str());
      } else {
        ImGui::Text("%s the block loads A[%s, %s] and B[%s, %s] into shared memory%s.", kArrow, rows.c_str(), ks.c_str(), ks.c_str(),
                    cols.c_str(), stage.stages > 1 ? (" (buffer " + std::to_string(stage.buffer) + ")").c_str() : "");
      }
    }

    ImGui::Spacing();
    ImGui::TextDisabled(walk.hasWarpTile() ? "Warps (each walks the pattern tiles in its warp tile; every lane reads the same byte)"
                                           : "Warps (each lane checks its own thread tile's bytes)");
    ImGui::PopTextWrapPos();  // table cells wrap at their own edge
    if (ImGui::BeginTable("warps", 3, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
      ImGui::TableSetupColumn("warp", ImGuiTableColumnFlags_WidthFixed);
      ImGui::TableSetupColumn("byte", ImGuiTableColumnFlags_WidthFixed);
      ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthStretch);
      int shown = 0;
      for (const WarpView& w : now.warps) {
        if (w.steps.empty()) continue;
        if (++shown > 8) break;
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        legendItem(decisionColour(w.decision()), warpName(w.warp).c_str());
        ImGui::TableSetColumnIndex(1);
        byteWidget(w.any(), bits, px(9.0f));
        ImGui::TableSetColumnIndex(2);
        std::string what = warpDecisionName(w.decision());
        if (w.decision() == WarpDecision::Diverge) {
          const WarpStep& s = w.steps.front();
          what += ": " + std::to_string(s.lanesWorking()) + " lanes compute, " + std::to_string(s.lanes - s.lanesWorking()) + " skip";
        } else if (w.decision() == WarpDecision::Partial) {
          int skipped = static_cast<int>(std::count_if(w.steps.begin(), w.steps.end(),
                                                       [](const WarpStep& s) { return s.decision() == WarpDecision::Skip; }));
          what += ": " + std::to_string(skipped) + " of " + std::to_string(w.steps.size()) + " sub-tiles skipped";
        } else if (w.steps.size() > 1) {
          what += " (" + std::to_string(w.steps.size()) + " sub-tiles)";
        }
        ImGui::Text("rows %s, cols %s: %s", range(w.rowBegin, w.rowEnd).c_str(), range(w.colBegin, w.colEnd).c_str(), what.c_str());
      }
      ImGui::EndTable();
      int active = static_cast<int>(std::count_if(now.warps.begin(), now.warps.end(), [](const WarpView& w) { return !w.steps.empty(); }));
      if (active > 8) ImGui::TextDisabled("... and %d more warps", active - 8);
    }
    // The walk so far and as a whole.
    ImGui::PushTextWrapPos(0.0f);
    int loaded = 0;
    for (int kb = 0; kb <= now.kBlock; ++kb) loaded += walk.step(kb).loadSkipped() ? 0 : 1;
    WalkSummary all = walk.summary();
    ImGui::Spacing();
    ImGui::TextDisabled("So far (K-blocks 0..%d): loaded %d, skipped %d. Whole walk: loads %d of %d K-blocks, warps disagree in %d, "
                        "%d divergent warp steps.",
                        now.kBlock, loaded, now.kBlock + 1 - loaded, all.loaded, all.kBlocks, all.disagreements, all.divergentSteps);
    ImGui::PopTextWrapPos();
  }
}

}  // namespace

std::pair<int, int> teachingBlock(const TeachState& st, const ProblemAnalysis& an) {
  if (st.requestedBlock) return *st.requestedBlock;
  if (seatedOnShape(st, an)) return {st.blockRow, st.blockCol};
  return an.teachBlock;
}

void drawTeachingPanel(const Fonts& fonts, const std::shared_ptr<const ProblemAnalysis>& analysis, TeachState& st,
                       float deltaSeconds, bool recordedLadder) {
  const ProblemAnalysis& an = *analysis;
  // A new analysis, or a block picked on the skip map.
  if (st.analysis.lock() != analysis || st.requestedBlock) reseat(st, analysis);
  const KernelInfo& kernel = *an.kernel;
  BlockGrid grid = an.skipMap.loads.grid;
  st.blockRow = std::clamp(st.blockRow, 0, grid.rows - 1);
  st.blockCol = std::clamp(st.blockCol, 0, grid.cols - 1);
  BlockWalk walk(kernel, an.kernelPatterns, st.blockRow, st.blockCol);
  st.kBlock = std::clamp(st.kBlock, 0, walk.kBlocks() - 1);

  std::string title = "Teaching mode: one block of " + std::string(kernel.id) + " walks its K-blocks";
  panelTitle(fonts, title.c_str(), std::string(kernel.summary));
  walkControls(st, an, walk.kBlocks(), deltaSeconds);
  st.kBlock = std::clamp(st.kBlock, 0, walk.kBlocks() - 1);
  KBlockStep now = walk.step(st.kBlock);
  ImGui::Separator();

  ImVec2 room = ImGui::GetContentRegionAvail();
  float diagramWidth = std::min(room.y + px(40.0f), room.x * 0.45f);
  ImGui::BeginChild("diagram", {diagramWidth, room.y}, false);
  // Without a GPU the dense ladder recorded on one goes under the block, where it stays in view.
  const bool ladder = recordedLadder && !kernel.skips() && !kernel.isBaseline();
  ImVec2 diagramRoom = ImGui::GetContentRegionAvail();
  if (ladder) diagramRoom.y -= recordedLadderHeight();
  drawDiagram(an, walk, now, diagramRoom);
  if (ladder) drawRecordedLadderCompact(kernel, ImGui::GetContentRegionAvail().x);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("explanation", {0, room.y}, false);
  explain(an, walk, now, st);
  ImGui::EndChild();
}

// The line to bring into view: the first marked line of the last file that has marks, i.e. where
// the skip is decided rather than where the kernel calls into it.
std::pair<std::size_t, int> decisionLine(const std::vector<MarkedSource>& sources) {
  for (std::size_t f = sources.size(); f-- > 0;) {
    if (!sources[f].marks.empty()) return {f, sources[f].marks.front()};
  }
  return {0, 0};
}

void drawSourcePanel(const Fonts& fonts, const KernelInfo& kernel, SourceCache& cache) {
  const SourceLanguage languages[] = {SourceLanguage::Cuda, SourceLanguage::Glsl};
  cache.shown.clear();
  if (cache.kernel != &kernel) {
    std::vector<std::filesystem::path> roots = sourceRoots();
    cache.kernel = &kernel;
    for (int i = 0; i < 2; ++i) {
      cache.sources[i] = skipSources(kernel, languages[i], roots);
      cache.scrollPending[i] = decisionLine(cache.sources[i]).second > 0;
    }
  }
  panelTitle(fonts, "Source: the CUDA and GLSL twins side by side",
             "Same stem, same names (BM, BN, BK, WM, WN, TM, TN, kBlock, jointPattern). Highlighted: lines that read a "
             "pattern or vote on a skip; where the kernel calls a shared main loop, the file it includes follows.");
  ImVec2 room = ImGui::GetContentRegionAvail();
  float half = std::floor((room.x - ImGui::GetStyle().ItemSpacing.x) * 0.5f);
  const char* names[] = {"CUDA", "GLSL"};
  for (int i = 0; i < 2; ++i) {
    if (i == 1) ImGui::SameLine();
    const std::vector<MarkedSource>& sources = cache.sources[i];
    const KernelSourceFile& own = sources.front().file;
    const auto [scrollFile, scrollLine] = decisionLine(sources);
    ImGui::BeginChild(names[i], {half, room.y}, true, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::Text("%s  %s", names[i], own.relativePath.empty() ? "" : own.relativePath.c_str());
    ImGui::Separator();
    if (!own.found()) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextColored(toVec4(palette::kWarn), "%s", own.note.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndChild();
      continue;
    }
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (std::size_t f = 0; f < sources.size(); ++f) {
      const MarkedSource& source = sources[f];
      if (f > 0) {
        ImGui::Separator();
        ImGui::TextDisabled("included: %s, where the skip is decided", source.file.relativePath.c_str());
        ImGui::Separator();
      }
      ImGui::PushFont(fonts.mono);
      std::istringstream lines(source.file.text);
      int number = 0;
      for (std::string line; std::getline(lines, line);) {
        ++number;
        if (std::binary_search(source.marks.begin(), source.marks.end(), number)) {
          ImVec2 p = ImGui::GetCursorScreenPos();
          dl->AddRectFilled(p, {p.x + 2000.0f, p.y + ImGui::GetTextLineHeight()}, IM_COL32(253, 231, 37, 40));
        }
        ImGui::TextDisabled("%4d", number);
        ImGui::SameLine();
        ImGui::TextUnformatted(line.c_str());
        if (ImGui::IsItemVisible()) {
          if (cache.shown.empty() || cache.shown.back().source != &source) cache.shown.push_back({&source, number, number});
          cache.shown.back().last = number;
        }
        if (cache.scrollPending[i] && f == scrollFile && number == scrollLine) {
          ImGui::SetScrollHereY(0.25f);
          cache.scrollPending[i] = false;
        }
      }
      ImGui::PopFont();
    }
    ImGui::EndChild();
  }
}

nlohmann::json shownSourceFacts(const SourceCache& cache) {
  nlohmann::json shown = nlohmann::json::array();
  for (const ShownLines& lines : cache.shown) {
    std::istringstream text(lines.source->file.text);
    std::string excerpt;
    int number = 0;
    for (std::string line; std::getline(text, line) && number < lines.last;) {
      if (++number >= lines.first) excerpt += line + "\n";
    }
    shown.push_back({{"file", lines.source->file.relativePath}, {"first", lines.first}, {"last", lines.last},
                     {"sha256", textSha256(excerpt)}});
  }
  return shown;
}

}  // namespace tileskip::ui
