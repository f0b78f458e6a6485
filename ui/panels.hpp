// The viewer's panels. Each draws into the current ImGui window from one session snapshot;
// what a panel remembers between frames lives in its state struct, owned by ViewerApp.
#pragma once

#include <memory>
#include <optional>
#include <utility>

#include "ui/kernel_source.hpp"
#include "ui/lesson.hpp"
#include "ui/live_session.hpp"
#include "ui/widgets.hpp"

namespace tileskip::ui {

struct SkipMapState {
  bool showLoads = false;                          // block tiles' loads instead of output tiles' work
  std::optional<std::pair<int, int>> pickedBlock;  // a block clicked for teaching mode this frame
  std::optional<std::pair<int, int>> selectedTile; // a pattern tile whose read-out stays shown (--select-tile, a click)
  ImVec2 mapOrigin, mapSize;                       // where the map's cells were drawn
  ImVec2 readOutMin, readOutMax;                   // where the selected tile's read-out was drawn (empty: none)
};
void drawSkipMapPanel(const Fonts& fonts, const ProblemAnalysis& analysis, SkipMapState& state,
                      std::pair<int, int> teachBlock);

void drawMatricesPanel(const Fonts& fonts, const ProblemAnalysis& analysis);

struct PlotArea {
  ImVec2 origin, size;
};
// Returns where the plot itself was drawn.
PlotArea drawThroughputPanel(const Fonts& fonts, const SessionSnapshot& snapshot);

struct TeachState {
  std::weak_ptr<const ProblemAnalysis> analysis;  // the analysis the fields below were set for
  const KernelInfo* kernel = nullptr;
  int m = 0, n = 0, k = 0;
  int blockRow = 0, blockCol = 0;
  std::optional<std::pair<int, int>> requestedBlock;  // from --teach-block or a click on the skip map
  int kBlock = 0;
  int requestedKBlock = -1;  // from --teach-kblock; -1: the first K-block worth pointing at
  bool playing = false;
  float speed = 2.0f;  // K-blocks per second
  double elapsed = 0.0;
  std::optional<TeachView> requestedView;  // --teach-view; default: the kernel's lesson
  TeachView view = TeachView::Walk;        // what the panel shows beside the block
  int mmaLane = 0;                         // the lane the tensor cores' view follows
  const KernelInfo* viewKernel = nullptr;  // the kernel `view` was chosen for
  ImVec2 keyMessageMin, keyMessageMax;     // the step's verdict (diverge, disagree, load skipped), on screen
  ImVec2 lessonMin, lessonMax;             // the dense view's drawing, where one is shown
};
// The block teaching mode walks (or will walk, once shown) for this analysis.
std::pair<int, int> teachingBlock(const TeachState& state, const ProblemAnalysis& analysis);
// `recordedLadder`: show the figures recorded on a GPU beside a dense step (no GPU here).
void drawTeachingPanel(const Fonts& fonts, const std::shared_ptr<const ProblemAnalysis>& analysis, TeachState& state,
                       float deltaSeconds, bool recordedLadder);

// The dense half's views (lesson.hpp), drawn into the current window: the picture and its text.
// `lane`: the lane the tensor cores' view follows (the one hovered last). Returns where the picture was drawn.
std::pair<ImVec2, ImVec2> drawLessonView(const ProblemAnalysis& analysis, const BlockWalk& walk, TeachView view, const KBlockStep& now,
                                         int& lane);

// The figures recorded on a GPU (bench/results/latest), beside the live ones where there is no GPU:
// the dense ladder K1 .. K11 as measured there, with the device, backend and date it was
// recorded on; the current kernel highlighted.
void drawRecordedLadder(const KernelInfo& current, float width);
// The same ladder as a strip of vertical bars for teaching mode, recordedLadderHeight() tall.
void drawRecordedLadderCompact(const KernelInfo& current, float width);
float recordedLadderHeight();
// Whether the live figures come from a CPU (lavapipe, the cpu backend): then the ladder runs
// backwards and the recorded one is worth showing.
bool liveDeviceIsCpu(const SessionSnapshot& snapshot);

// Lines of a source file the panel showed in its last frame (1-based, inclusive).
struct ShownLines {
  const MarkedSource* source = nullptr;
  int first = 0, last = 0;
};
struct SourceCache {
  const KernelInfo* kernel = nullptr;
  // Per language (CUDA, GLSL): the twin, then the include where its skip is decided, if any.
  std::vector<MarkedSource> sources[2];
  bool scrollPending[2] = {false, false};  // bring the skip decision into view once loaded
  std::vector<ShownLines> shown;           // cleared each frame, filled by drawSourcePanel
};
void drawSourcePanel(const Fonts& fonts, const KernelInfo& kernel, SourceCache& cache);
// The lines the source panel showed: [{file, first, last, sha256}], the SHA-256 of those lines'
// text, so a picture can be checked against the source as it is now (scripts/make_pictures.py).
nlohmann::json shownSourceFacts(const SourceCache& cache);

}  // namespace tileskip::ui
