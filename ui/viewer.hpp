// `tileskip view`: the Dear ImGui viewer, in a GLFW window or offscreen into a PNG. These
// functions are host-only (view_stub.cpp); the viewer itself lives in libtileskip_view.so,
// loaded at run time (view_module.hpp), so nothing that includes this needs ImGui or Vulkan.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ui/lesson.hpp"
#include "ui/live_session.hpp"

namespace tileskip::ui {

struct ViewerOptions {
  SessionRequest start;  // backend, kernel, problem and pattern granularity to open with
  bool teach = false;    // open in teaching mode
  std::optional<std::pair<int, int>> teachBlock;  // block {row, column} to walk; default: the most instructive
  int teachKBlock = -1;                           // K-block to stop at; -1: the first worth pointing at
  std::optional<TeachView> teachView;             // what teaching mode shows beside the block; default: the kernel's lesson
  bool showLoads = false;                         // explore: the skip map shows loads per block tile
  std::optional<std::pair<int, int>> selectedTile;  // explore: a skip-map tile whose read-out stays shown
  float uiScale = 1.0f;                           // text and widgets, for a projector
  std::vector<std::string> keys;  // offscreen: keys pressed one per frame (PageDown, Right, space, ...)
  std::string factsJson;          // also write the figures shown (lessonFacts) here
  // Offscreen: render teaching mode's K-blocks recordFirst..recordLast (inclusive; -1: the walk's
  // last) one frame each into PNGs in recordFolder (frame-0000.png, ...), for `view --record`.
  std::string recordFolder;
  int recordFirst = 0, recordLast = -1;
  std::string screenshot;  // PNG path: render offscreen and write it; empty: open a window
  int frames = 3;          // frames rendered before the screenshot (ImGui sizes some widgets on the 2nd)
  std::string layoutJson;  // screenshot: also write each panel's rectangle here (for tests)
  int windowFrames = 0;    // window: close after this many frames (smoke tests); 0: when the person closes it
  int width = 1600, height = 1000;
  int settleSamples = 6;        // screenshot: timed runs per series before the picture is taken
  double settleSeconds = 20.0;  // ... or this long, whichever comes first
};

// The backends the viewer offers and how it opens one (on its worker thread).
struct ViewerBackends {
  std::vector<std::string> names;
  LiveSession::BackendOpener open;
};
// Those compiled into this binary, through the registry.
ViewerBackends registryBackends();

// Loads the viewer's module now, so a machine without it, or without the libraries it needs, is
// told before any backend opens: UnavailableError (exit 3) saying what is missing and what to
// install. A build without the viewer says so the same way.
void requireViewer();

// Throws UnavailableError (exit 3) as requireViewer() does, with no Vulkan driver or, without
// --screenshot, no display; InputError for a size outside 320x240 .. 8192x8192.
int runViewer(const ViewerOptions& options, const ViewerBackends& backends = registryBackends());

}  // namespace tileskip::ui
