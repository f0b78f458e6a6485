#include "ui/lesson.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

#include "core/view/mma_walk.hpp"
#include "ui/live_session.hpp"

namespace tileskip::ui {

namespace {

constexpr std::array<std::pair<TeachView, std::string_view>, 7> kViewNames = {{
    {TeachView::Walk, "walk"},
    {TeachView::Coalescing, "coalescing"},
    {TeachView::SharedReuse, "smem"},
    {TeachView::Registers, "registers"},
    {TeachView::WarpTile, "warp"},
    {TeachView::Pipeline, "pipeline"},
    {TeachView::Mma, "mma"},
}};

std::string blockRange(int count) { return "0.." + std::to_string(count - 1); }

}  // namespace

std::string_view teachViewName(TeachView view) {
  for (const auto& [v, name] : kViewNames) {
    if (v == view) return name;
  }
  return "?";
}

std::optional<TeachView> parseTeachView(std::string_view name) {
  for (const auto& [v, n] : kViewNames) {
    if (n == name) return v;
  }
  return std::nullopt;
}

std::vector<TeachView> teachViews() {
  std::vector<TeachView> views;
  for (const auto& [v, name] : kViewNames) views.push_back(v);
  return views;
}

std::string teachViewList() {
  std::string list;
  for (const auto& [v, name] : kViewNames) list += (list.empty() ? "" : ", ") + std::string(name);
  return list;
}

TeachView lessonView(const KernelInfo& kernel) {
  if (kernel.skips() || kernel.isBaseline()) return TeachView::Walk;
  if (kernel.usesTensorCores()) return TeachView::Mma;
  switch (kernel.structure.loop) {
    case MainLoop::Global: return TeachView::Coalescing;
    case MainLoop::DoubleBuffered:
    case MainLoop::Hoisted:
    case MainLoop::GatherHoisted:
    case MainLoop::PackedBlocks:
    case MainLoop::StreamedBlocks:
    case MainLoop::StageRing:
    case MainLoop::GatherRing:
    case MainLoop::BulkCopyRing:
    case MainLoop::SwizzledGatherRing: return TeachView::Pipeline;
    default: break;
  }
  switch (kernel.structure.mapping) {
    case ThreadMapping::OutputAlongRows:
    case ThreadMapping::OutputDownColumns: return TeachView::SharedReuse;
    case ThreadMapping::ColumnOfOutputs:
    case ThreadMapping::RowStrips:
    case ThreadMapping::ThreadTile: return TeachView::Registers;
    case ThreadMapping::WarpTile: return TeachView::WarpTile;
    case ThreadMapping::MmaTiles:           // the tensor cores' view (above)
    case ThreadMapping::WarpgroupMmaTiles:
    case ThreadMapping::None: break;
  }
  return TeachView::Walk;
}

std::optional<std::string> teachViewProblem(const KernelInfo& kernel, TeachView view) {
  const std::string id(kernel.id);
  if (kernel.isBaseline()) {
    return view == TeachView::Walk ? std::nullopt
                                   : std::optional<std::string>(id + " is a vendor library: only the walk describes it");
  }
  switch (view) {
    case TeachView::Walk: return std::nullopt;
    case TeachView::Coalescing:
      if (kernel.structure.loop != MainLoop::Global) {
        return "--teach-view coalescing shows kernels that read global memory for every product (naive, coalesced); " + id +
               " stages its operands in shared memory (try --teach-view smem)";
      }
      return std::nullopt;
    case TeachView::SharedReuse:
    case TeachView::Registers:
    case TeachView::Pipeline:
      return std::nullopt;  // each compares the kernel with what it does without the step
    case TeachView::WarpTile:
      if (!kernel.hasWarpTile()) {
        return "--teach-view warp shows a kernel with a warp tile (warptile, pipelined, the warp-uniform skipping kernels); " +
               id + " has none";
      }
      return std::nullopt;
    case TeachView::Mma:
      if (!kernel.usesTensorCores()) {
        std::string ids;
        for (const KernelInfo& k : kCatalogue) {
          if (k.usesTensorCores()) ids += (ids.empty() ? "" : ", ") + std::string(k.id);
        }
        return "--teach-view mma shows a kernel on tensor cores (" + ids + "); " + id + " multiplies with FMAs";
      }
      return std::nullopt;
  }
  return std::nullopt;
}

std::vector<WarpAccess> warpGlobalAccesses(const KernelInfo& kernel, int m, int n, int k, int warp, int kIndex) {
  std::vector<WarpAccess> accesses(3);
  accesses[0].what = "A read";
  accesses[1].what = "B read";
  accesses[2].what = "C store";
  std::array<std::set<long long>, 3> addresses, sectors, lines;
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    const int thread = warp * kWarpLanes + lane;
    std::vector<OutputRect> rects = thread < kernel.tile.threads ? threadOutputs(kernel, thread) : std::vector<OutputRect>{};
    const bool inside = !rects.empty() && rects.front().row < m && rects.front().col < n;
    const long long row = inside ? rects.front().row : 0, col = inside ? rects.front().col : 0;
    const std::array<long long, 3> bytes = {(row * k + kIndex) * 4, (static_cast<long long>(kIndex) * n + col) * 4, (row * n + col) * 4};
    for (std::size_t i = 0; i < 3; ++i) {
      accesses[i].laneBytes.push_back(inside ? bytes[i] : -1);
      if (!inside) continue;
      addresses[i].insert(bytes[i]);
      sectors[i].insert(bytes[i] / kSectorBytes);
      lines[i].insert(bytes[i] / kTransactionBytes);
    }
  }
  for (std::size_t i = 0; i < 3; ++i) {
    accesses[i].addresses = static_cast<int>(addresses[i].size());
    accesses[i].sectors = static_cast<int>(sectors[i].size());
    accesses[i].transactions = static_cast<int>(lines[i].size());
    accesses[i].usefulBytes = 4 * accesses[i].addresses;
  }
  return accesses;
}

ReuseFigures reuseFigures(const KernelInfo& kernel) {
  ReuseFigures f;
  const TileShape& t = kernel.tile;
  std::set<int> rows, cols;
  int outputs = 0;
  for (const OutputRect& r : threadOutputs(kernel, 0)) {
    for (int i = 0; i < r.rows; ++i) rows.insert(r.row + i);
    for (int j = 0; j < r.cols; ++j) cols.insert(r.col + j);
    outputs += r.rows * r.cols;
  }
  f.outputsPerThread = std::max(outputs, 1);
  f.threadRows = std::max(static_cast<int>(rows.size()), 1);
  f.threadCols = std::max(static_cast<int>(cols.size()), 1);
  if (kernel.stages() == 0) {
    // Every product reads its A and B value from global memory (caches aside).
    f.globalLoadsPerFma = 2.0;
    f.sharedLoadsPerFma = 0.0;
    return f;
  }
  // Per K index a block stages BM values of A and BN of B and does BM·BN FMAs with them.
  f.stageFloats = t.BM * t.BK + t.BK * t.BN;
  f.globalLoadsPerFma = static_cast<double>(t.BM + t.BN) / (static_cast<double>(t.BM) * t.BN);
  f.aReuse = t.BN;
  f.bReuse = t.BM;
  // Per K index a thread reads one A value per row and one B value per column of its outputs.
  f.sharedLoadsPerFma = static_cast<double>(f.threadRows + f.threadCols) / f.outputsPerThread;
  return f;
}

std::vector<LaneTile> warpLanes(const KernelInfo& kernel, int warp) {
  std::vector<LaneTile> lanes;
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    const int thread = warp * kWarpLanes + lane;
    if (thread >= kernel.tile.threads) break;
    lanes.push_back({lane, threadOutputs(kernel, thread)});
  }
  return lanes;
}

std::vector<PipelineSlot> pipelineTimeline(int stages, int kTiles, double loadCost, double computeCost) {
  std::vector<PipelineSlot> slots;
  double clock = 0.0;
  for (int t = 0; t < kTiles; ++t) {
    PipelineSlot s;
    s.kTile = t;
    s.buffer = stages >= 2 ? t % stages : 0;
    if (stages >= 2) {
      // K-tile t was fetched while t - 1 was computed (the first one before the loop).
      s.loadBegin = t == 0 ? 0.0 : slots.back().computeBegin;
      s.loadEnd = s.loadBegin + loadCost;
      s.computeBegin = std::max(s.loadEnd, t == 0 ? 0.0 : slots.back().computeEnd);
    } else {
      s.loadBegin = clock;
      s.loadEnd = clock + loadCost;
      s.computeBegin = s.loadEnd;  // after the barrier that ends the load
    }
    s.computeEnd = s.computeBegin + computeCost;
    clock = s.computeEnd;
    slots.push_back(s);
  }
  return slots;
}

int barriersPerKTile(int stages) { return stages >= 2 ? 1 : 2; }

StageLabel stageLabel(const KernelInfo& kernel, int kBlock) {
  StageLabel label;
  label.stages = kernel.stages();
  const int bk = std::max(kernel.tile.BK, 1);
  label.kTile = bk >= kKBlock ? kBlock * kKBlock / bk : kBlock;
  label.buffer = label.stages >= 2 ? label.kTile % label.stages : 0;
  return label;
}

namespace {

constexpr std::array<std::pair<PresenterKey, std::string_view>, 9> kKeyNames = {{
    {PresenterKey::Right, "Right"}, {PresenterKey::Left, "Left"},   {PresenterKey::Down, "Down"},
    {PresenterKey::Up, "Up"},       {PresenterKey::PageDown, "PageDown"}, {PresenterKey::PageUp, "PageUp"},
    {PresenterKey::Space, "Space"}, {PresenterKey::Home, "Home"},   {PresenterKey::End, "End"},
}};

bool sameLetters(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::optional<PresenterKey> presenterKeyOf(std::string_view name) {
  for (const auto& [key, n] : kKeyNames) {
    if (sameLetters(n, name)) return key;
  }
  return std::nullopt;
}

std::string presenterKeyList() {
  std::string list;
  for (const auto& [key, name] : kKeyNames) list += (list.empty() ? "" : ", ") + std::string(name);
  return list;
}

int steppedKBlock(int kBlock, int kBlocks, PresenterKey key) {
  int next = kBlock;
  switch (key) {
    case PresenterKey::Right:
    case PresenterKey::Down:
    case PresenterKey::PageDown:
    case PresenterKey::Space: next = kBlock + 1; break;
    case PresenterKey::Left:
    case PresenterKey::Up:
    case PresenterKey::PageUp: next = kBlock - 1; break;
    case PresenterKey::Home: next = 0; break;
    case PresenterKey::End: next = kBlocks - 1; break;
  }
  return std::clamp(next, 0, std::max(kBlocks - 1, 0));
}

int firstInstructiveKBlock(const BlockWalk& walk) {
  int firstSkip = -1;
  for (int kb = 0; kb < walk.kBlocks(); ++kb) {
    KBlockStep step = walk.step(kb);
    if (!step.warpsAgree() || step.warpsWith(WarpDecision::Diverge) > 0) return kb;
    if (firstSkip < 0 && step.loadSkipped()) firstSkip = kb;
  }
  return std::max(firstSkip, 0);
}

std::optional<std::string> teachBlockProblem(const KernelInfo& kernel, int m, int n, std::pair<int, int> block) {
  BlockGrid grid = blockGrid(kernel, m, n);
  if (block.first >= 0 && block.first < grid.rows && block.second >= 0 && block.second < grid.cols) return std::nullopt;
  return "--teach-block " + std::to_string(block.first) + "," + std::to_string(block.second) + " is outside the grid: " +
         std::string(kernel.id) + " covers " + std::to_string(m) + " x " + std::to_string(n) + " with " +
         std::to_string(grid.rows) + " x " + std::to_string(grid.cols) + " blocks of " + std::to_string(grid.BM) + " x " +
         std::to_string(grid.BN) + " (ROW " + blockRange(grid.rows) + ", COL " + blockRange(grid.cols) + ")";
}

std::optional<std::string> teachKBlockProblem(int k, int kBlock) {
  const int kBlocks = (k + kKBlock - 1) / kKBlock;
  if (kBlock >= 0 && kBlock < kBlocks) return std::nullopt;
  return "--teach-kblock " + std::to_string(kBlock) + " is past K: K = " + std::to_string(k) + " has " +
         std::to_string(kBlocks) + " K-blocks of " + std::to_string(kKBlock) + " (" + blockRange(kBlocks) + ")";
}

std::optional<std::string> tileProblem(const KernelInfo& kernel, int m, int n, std::pair<int, int> tile) {
  const int rowG = kernel.usesAPattern() ? kernel.aGranularity : 32;
  const int colG = kernel.usesBPattern() ? kernel.bGranularity : 32;
  const int rows = (m + rowG - 1) / rowG, cols = (n + colG - 1) / colG;
  if (tile.first >= 0 && tile.first < rows && tile.second >= 0 && tile.second < cols) return std::nullopt;
  return "--select-tile " + std::to_string(tile.first) + "," + std::to_string(tile.second) + " is outside the skip map: " +
         std::string(kernel.id) + "'s pattern tiles of " + std::to_string(rowG) + " x " + std::to_string(colG) + " cover " +
         std::to_string(m) + " x " + std::to_string(n) + " as " + std::to_string(rows) + " x " + std::to_string(cols) +
         " tiles (ROW " + blockRange(rows) + ", COL " + blockRange(cols) + ")";
}

nlohmann::json lessonFacts(const ProblemAnalysis& an, std::pair<int, int> block, int kBlock, TeachView view) {
  using nlohmann::json;
  const KernelInfo& kernel = *an.kernel;
  const SkipMap& sm = an.skipMap;
  json facts;
  facts["kernel"] = std::string(kernel.id);
  facts["number"] = std::string(kernel.number);
  facts["problem"] = {{"m", an.spec.m}, {"n", an.spec.n}, {"k", an.spec.k}, {"describe", an.spec.describe()}};
  facts["skip_map"] = {
      {"joint_density", sm.stats.jointDensity},
      {"ideal_speedup", sm.stats.idealSpeedup()},
      {"load_fraction", sm.loads.loadFraction},
      {"load_bound", sm.loads.loadBound()},
      {"tiles_skipped", sm.skippedTiles.mean()},
      {"kblocks_skipped", sm.stats.skippedKBlockFraction},
      {"row_granularity", sm.stats.aGranularity},
      {"col_granularity", sm.stats.bGranularity},
      {"block", {sm.loads.grid.BM, sm.loads.grid.BN}},
      {"blocks", {sm.loads.grid.rows, sm.loads.grid.cols}},
  };

  BlockWalk walk(kernel, an.kernelPatterns, block.first, block.second);
  if (kBlock < 0) kBlock = firstInstructiveKBlock(walk);
  kBlock = std::clamp(kBlock, 0, walk.kBlocks() - 1);
  KBlockStep now = walk.step(kBlock);
  auto counts = [](const KBlockStep& s) {
    return json{{"work", s.warpsWith(WarpDecision::Work)},
                {"skip", s.warpsWith(WarpDecision::Skip)},
                {"partial", s.warpsWith(WarpDecision::Partial)},
                {"diverge", s.warpsWith(WarpDecision::Diverge)}};
  };
  int subTiles = 0, warpRows = 0, warpCols = 0;
  for (const WarpView& w : now.warps) {
    subTiles = std::max(subTiles, static_cast<int>(w.steps.size()));
    warpRows = std::max(warpRows, w.rowEnd - w.rowBegin);
    warpCols = std::max(warpCols, w.colEnd - w.colBegin);
  }
  WalkSummary sum = walk.summary();
  json steps = {{"work", 0}, {"skip", 0}, {"partial", 0}, {"diverge", 0}};
  int mostPartialSubTilesSkipped = 0;
  for (int kb = 0; kb < walk.kBlocks(); ++kb) {
    KBlockStep s = walk.step(kb);
    for (const WarpView& w : s.warps) {
      if (w.steps.empty()) continue;
      WarpDecision d = w.decision();
      if (d == WarpDecision::Idle) continue;
      const char* name = d == WarpDecision::Work ? "work" : d == WarpDecision::Skip ? "skip" : d == WarpDecision::Partial ? "partial" : "diverge";
      steps[name] = steps[name].get<int>() + 1;
      if (d == WarpDecision::Partial) {
        int skipped = static_cast<int>(std::count_if(w.steps.begin(), w.steps.end(),
                                                     [](const WarpStep& x) { return x.decision() == WarpDecision::Skip; }));
        mostPartialSubTilesSkipped = std::max(mostPartialSubTilesSkipped, skipped);
      }
    }
  }
  StageLabel stage = stageLabel(kernel, kBlock);
  facts["teach"] = {
      {"view", std::string(teachViewName(view))},
      {"block", {walk.blockRow(), walk.blockCol()}},
      {"kblock", kBlock},
      {"kblocks", walk.kBlocks()},
      {"stage", {{"k_tile", stage.kTile}, {"buffer", stage.buffer}, {"stages", stage.stages}}},
      {"warps", static_cast<int>(now.warps.size())},
      {"warp_rows", warpRows},
      {"warp_cols", warpCols},
      {"subtiles_per_warp", subTiles},
      {"now", counts(now)},
      {"load_skipped", now.loadSkipped()},
      {"walk", {{"loaded", sum.loaded},
                {"loads_skipped", sum.loadsSkipped},
                {"disagreements", sum.disagreements},
                {"divergent_steps", sum.divergentSteps},
                {"warp_steps", steps},
                {"most_subtiles_skipped", mostPartialSubTilesSkipped}}},
  };

  json dense;
  if (!kernel.isBaseline()) {
    const ReuseFigures r = reuseFigures(kernel);
    dense["reuse"] = {{"global_loads_per_fma", r.globalLoadsPerFma}, {"shared_loads_per_fma", r.sharedLoadsPerFma},
                      {"stage_floats", r.stageFloats},           {"a_reuse", r.aReuse},
                      {"b_reuse", r.bReuse},                     {"outputs_per_thread", r.outputsPerThread},
                      {"thread_rows", r.threadRows},             {"thread_cols", r.threadCols}};
    dense["pipeline"] = {{"stages", kernel.stages()}, {"barriers_per_ktile", barriersPerKTile(kernel.stages())}};
    if (kernel.structure.loop == MainLoop::Global) {
      json accesses = json::object();
      for (const WarpAccess& a : warpGlobalAccesses(kernel, an.spec.m, an.spec.n, an.spec.k, 0, now.kBegin)) {
        std::string key = a.what.substr(0, 1);  // "A", "B", "C"
        accesses[key] = {{"addresses", a.addresses}, {"sectors", a.sectors}, {"transactions", a.transactions},
                         {"efficiency", a.efficiency()}};
      }
      dense["coalescing"] = accesses;
    }
    if (kernel.hasWarpTile()) {
      const WarpLayout w = warpLayout(kernel);
      dense["warp_tile"] = {{"lane_grid", {w.laneRows, w.laneCols}},
                            {"subtile", {w.subM, w.subN}},
                            {"subtiles", w.iterM * w.iterN},
                            {"outputs_per_lane", r.outputsPerThread}};
    }
  }
  if (kernel.usesTensorCores() && kernel.takes(an.spec.dtype)) {
    const MmaWalk mma = mmaWalk(walk, an.spec.dtype);
    json fragments = json::object();
    for (auto [operand, name] : {std::pair{MmaOperand::A, "a"}, std::pair{MmaOperand::B, "b"}, std::pair{MmaOperand::C, "c"}}) {
      // A warpgroup MMA reads A and B from shared memory itself: only C is in the lanes' registers.
      const int values = mma.instruction.warpgroup && operand != MmaOperand::C
                             ? 0
                             : static_cast<int>(mmaFragment(an.spec.dtype, operand, 0).size()) *
                                   (mma.instruction.warpgroup ? mma.instruction.n / kMmaTileCols : 1);
      fragments[name] = {{"values_per_lane", values}, {"registers_per_lane", values / valuesPerRegister(an.spec.dtype, operand)}};
    }
    dense["mma"] = {{"instruction", mma.instruction.text()}, {"warpgroup", mma.instruction.warpgroup},
                    {"fragments", fragments},            {"step_depth", mma.stepDepth},
                    {"mmas_per_step", mma.mmasPerStep}};
    const int step = mma.stepOf(kBlock);
    facts["teach"]["mma"] = {{"step", step},
                             {"steps", mma.steps.size()},
                             {"dense_steps", mma.denseSteps},
                             {"warps", mma.warps},
                             {"warps_issuing", step >= 0 ? mma.steps[static_cast<std::size_t>(step)].warpsIssuing() : 0},
                             {"mmas_issued", mma.mmasIssued()},
                             {"dense_mmas", mma.denseMmas()},
                             {"slots_multiplied", mma.slotsMultiplied()},
                             {"idle_slots_multiplied", mma.idleSlotsMultiplied()}};
  }
  facts["dense"] = dense;
  return facts;
}

void addViewSettings(nlohmann::json& facts, const ViewSettings& view) {
  facts["mode"] = view.teach ? "teach" : "explore";
  facts["map"] = view.showLoads ? "loads" : "work";
  if (view.selectedTile) facts["selected_tile"] = {view.selectedTile->first, view.selectedTile->second};
  facts["ui_scale"] = view.uiScale;
  facts["window"] = {view.width, view.height};
}

}  // namespace tileskip::ui
