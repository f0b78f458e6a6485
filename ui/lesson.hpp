// The lesson's model, behind teaching mode's pictures and text: what a view shows, computed from
// the catalogue row's structure (thread mapping, main loop) and threadOutputs(), never from a
// kernel's id. No ImGui, no Vulkan: the panels draw it, `view --facts` writes it as JSON, and the
// doc check (scripts/check_teaching_claims.py) compares docs/teaching.md's figures with it.
//
// The dense half: one warp's global-memory addresses and the 32-byte sectors and 128-byte lines
// they touch (K1 against K2), what a shared-memory stage saves (K3), a thread's register tile and
// its shared loads per FMA (K4, K5, K6), the warp tile's lane grid (K10), and the main loop as a
// load/compute timeline (one stage against two, K11). The skipping half: the block walk
// (core/view/block_walk.hpp).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/view/block_walk.hpp"
#include "core/model/catalogue.hpp"
#include "core/model/tile_layout.hpp"

namespace tileskip::ui {

struct ProblemAnalysis;

// What the teaching panel shows beside the block diagram.
enum class TeachView {
  Walk,        // the block's K-blocks: loads, skips, warps agreeing or diverging
  Coalescing,  // one warp's global addresses at one k, and the sectors / lines they cost
  SharedReuse, // a shared-memory stage: global loads per FMA, reuse of each staged element
  Registers,   // one thread's register tile: shared loads per FMA
  WarpTile,    // one warp's tile and its 4 x 8 lane grid over each sub-tile
  Pipeline,    // the main loop as a timeline: one shared stage against two
  Mma,         // tensor cores: one MMA's values in the lanes' registers, and which warps issue each step
};

std::string_view teachViewName(TeachView view);  // "walk", "coalescing", "smem", "registers", "warp", "pipeline", "mma"
std::optional<TeachView> parseTeachView(std::string_view name);
std::string teachViewList();  // "walk, coalescing, ..."
std::vector<TeachView> teachViews();  // every view, in teachViewList()'s order

// The view that carries the kernel's own lesson: the walk for a skipping kernel, else the step
// of the dense progression its structure adds (K1/K2 coalescing, K3 shared memory, K4-K6
// registers, K10 the warp tile, K11/K12 the pipeline, K13/K14 the tensor cores).
TeachView lessonView(const KernelInfo& kernel);
// Why `view` cannot show `kernel` (coalescing needs per-product global reads, ...), or nothing.
std::optional<std::string> teachViewProblem(const KernelInfo& kernel, TeachView view);

// --- coalescing -------------------------------------------------------------------------------

inline constexpr int kSectorBytes = 32;       // the unit a global load or store moves (L2 sector)
inline constexpr int kTransactionBytes = 128;  // one cache line: four sectors

struct WarpAccess {
  std::string what;                  // "A read", "B read", "C store"
  std::vector<long long> laneBytes;  // byte offset per lane (in A, B or C), -1 where the lane has no output
  int addresses = 0;                 // distinct addresses
  int sectors = 0;                   // distinct 32-byte sectors
  int transactions = 0;              // distinct 128-byte lines
  int usefulBytes = 0;               // 4 per distinct address
  double efficiency() const { return sectors > 0 ? static_cast<double>(usefulBytes) / (sectors * kSectorBytes) : 0.0; }
};

// The global accesses of warp `warp` of block (0, 0) at K index `k` for a kernel whose main loop
// reads global memory per product (MainLoop::Global), on an M x N x K problem: its reads of A and
// B, and its store of C once the dot products are done.
std::vector<WarpAccess> warpGlobalAccesses(const KernelInfo& kernel, int m, int n, int k, int warp, int kIndex);

// --- shared memory and registers --------------------------------------------------------------

struct ReuseFigures {
  double globalLoadsPerFma = 2.0;  // floats read from global memory per multiply-add, over the block
  double sharedLoadsPerFma = 0.0;  // floats a thread reads from shared memory per multiply-add
  int stageFloats = 0;             // floats of one shared stage (A tile + B tile)
  int aReuse = 1, bReuse = 1;      // FMAs each staged A / B element feeds (BN, BM)
  int outputsPerThread = 1;        // accumulators a thread keeps in registers
  int threadRows = 1, threadCols = 1;  // distinct rows and columns of a thread's outputs
};
ReuseFigures reuseFigures(const KernelInfo& kernel);

// --- the warp tile ----------------------------------------------------------------------------

struct LaneTile {
  int lane = 0;
  std::vector<OutputRect> rects;  // relative to the block tile's origin
};
// The 32 lanes of warp `warp` and the outputs each owns (threadOutputs()).
std::vector<LaneTile> warpLanes(const KernelInfo& kernel, int warp);

// --- the pipeline -----------------------------------------------------------------------------

// One K-tile's phases in abstract time units: a load of a K-tile costs `loadCost`, its FMAs
// `computeCost`. With one stage the block loads, waits at a barrier, computes, waits again; with
// two, the load of K-tile t + 1 runs while K-tile t is computed, into the other buffer.
struct PipelineSlot {
  int kTile = 0;
  int buffer = 0;  // the shared-memory stage it lands in
  double loadBegin = 0, loadEnd = 0, computeBegin = 0, computeEnd = 0;
};
std::vector<PipelineSlot> pipelineTimeline(int stages, int kTiles, double loadCost = 1.0, double computeCost = 1.0);
int barriersPerKTile(int stages);  // 2 with one stage, 1 with two

// The shared stage a K-block is in, as the teaching panel names it: K-tile `kTile` (BK deep) and
// buffer `buffer` of `stages` (0 with no shared memory).
struct StageLabel {
  int kTile = 0, buffer = 0, stages = 0;
};
StageLabel stageLabel(const KernelInfo& kernel, int kBlock);

// --- presenting ------------------------------------------------------------------------------

// The keys that step teaching mode: a presenter's clicker sends PageDown / PageUp, a keyboard
// the arrows and space.
enum class PresenterKey { Right, Left, Down, Up, PageDown, PageUp, Space, Home, End };
std::optional<PresenterKey> presenterKeyOf(std::string_view name);  // "PageDown", "pagedown", "Space", ...
std::string presenterKeyList();
// The K-block a key moves to from `kBlock` of `kBlocks`: forward (Right, Down, PageDown, Space),
// back (Left, Up, PageUp), the first (Home) or the last (End); never past either end.
int steppedKBlock(int kBlock, int kBlocks, PresenterKey key);

// --- the walk ---------------------------------------------------------------------------------

// The K-block worth stopping at first: where the warps disagree or diverge, else where the block
// skips its loads, else the start.
int firstInstructiveKBlock(const BlockWalk& walk);

// Where a --teach-block or --select-tile is outside the grid, or a --teach-kblock past K: the
// message for exit 2, naming the valid range; nothing when valid.
std::optional<std::string> teachBlockProblem(const KernelInfo& kernel, int m, int n, std::pair<int, int> block);
std::optional<std::string> teachKBlockProblem(int k, int kBlock);
std::optional<std::string> tileProblem(const KernelInfo& kernel, int m, int n, std::pair<int, int> tile);

// Everything the views show for one analysis, as JSON: the skip map's figures, the walk of
// `block` at `kBlock` (warp decisions now and over the whole walk, sub-tiles per warp), and the
// dense views' figures. `view --facts` writes it; the doc check reads it.
nlohmann::json lessonFacts(const ProblemAnalysis& analysis, std::pair<int, int> block, int kBlock, TeachView view);

// What a view shows besides the lesson's figures: teaching mode or explore, the skip map's
// measure, a pinned tile, the scale and the window's size in pixels. Added to the facts by both
// `view --facts` paths (drawn or not), so a screenshot's facts and the figures alone compare.
struct ViewSettings {
  bool teach = false;
  bool showLoads = false;
  std::optional<std::pair<int, int>> selectedTile;
  float uiScale = 1.0f;
  int width = 0, height = 0;
};
void addViewSettings(nlohmann::json& facts, const ViewSettings& view);

}  // namespace tileskip::ui
