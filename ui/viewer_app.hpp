// The viewer's frame: a context bar on top (backend, device, problem, verification), the
// controls and the colour legend on the left and, beside them, the explore panels (skip map,
// throughput, matrices) or the teaching panels (block walk, source).
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

  // Where the last frame put each panel, in pixels: what tests and picture tools look at.
  struct PanelRect {
    std::string name;
    float x, y, width, height;
  };
  const std::vector<PanelRect>& layout() const { return layout_; }

  // Teaching mode's K-blocks on the current problem (0 before the first analysis), and a jump to
  // one of them (a recording's next frame).
  int teachKBlocks() const;
  void showKBlock(int kBlock);
  // The figures the last frame showed (lessonFacts and addViewSettings), for --facts; empty
  // before an analysis.
  nlohmann::json facts() const;
  // The source lines teaching mode's last frame showed (shownSourceFacts); empty elsewhere.
  nlohmann::json shownSource() const { return shownSourceFacts(sources_); }

 private:
  void drawControls();
  void drawContext(const SessionSnapshot& snapshot);
  void drawLegend();
  void drawExplore(const SessionSnapshot& snapshot, ImVec2 room);
  void drawTeach(const SessionSnapshot& snapshot, ImVec2 room);
  void recordPanel(const std::string& name);
  void recordRect(const std::string& name, ImVec2 min, ImVec2 max);
  void presenterKeys();

  LiveSession& session_;
  Fonts fonts_;
  std::vector<std::string> backends_;
  std::string drawingDevice_;
  SessionRequest request_, sent_;
  bool sentOnce_ = false;
  bool teach_ = false;
  float lastDelta_ = 0.0f;
  ImVec2 frameSize_;  // the last frame's, in pixels
  std::vector<std::string> implemented_;  // kernels of the served backend
  SkipMapState skipMap_;
  TeachState teachState_;
  SourceCache sources_;
  std::vector<PanelRect> layout_;
  std::shared_ptr<const ProblemAnalysis> shown_;  // the analysis the last frame drew
};

}  // namespace tileskip::ui
