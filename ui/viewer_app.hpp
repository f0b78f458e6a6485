// The viewer's frame: the left column (mode, controls, context, legend) and, beside it, the
// explore panels (skip map, throughput, matrices) or the teaching panels (block walk, source).
// Changed controls go to the live session at once; the panels draw its latest snapshot.
#pragma once

#include <string>
#include <vector>

#include "ui/panels.hpp"
#include "ui/viewer.hpp"

namespace tileskip::ui {

class ViewerApp {
 public:
  ViewerApp(LiveSession& session, const ViewerOptions& options, const Fonts& fonts, std::vector<std::string> backends,
            std::string drawingDevice);

  // Builds one frame for a display of `size`.
  void frame(ImVec2 size, float deltaSeconds);
  // Sends the controls' state to the session if it changed since it was last sent.
  void sendIfChanged();

 private:
  void drawControls();
  void drawContext(const SessionSnapshot& snapshot);
  void drawLegend();
  void drawExplore(const SessionSnapshot& snapshot, ImVec2 origin, ImVec2 size);
  void drawTeach(const SessionSnapshot& snapshot, ImVec2 origin, ImVec2 size);

  LiveSession& session_;
  Fonts fonts_;
  std::vector<std::string> backends_;
  std::string drawingDevice_;
  SessionRequest request_, sent_;
  bool sentOnce_ = false;
  bool teach_ = false;
  float lastDelta_ = 0.0f;
  std::vector<std::string> implemented_;  // kernels of the served backend
  SkipMapState skipMap_;
  TeachState teachState_;
  SourceCache sources_;
};

}  // namespace tileskip::ui
