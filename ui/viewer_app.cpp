#include "ui/viewer_app.hpp"

#include <algorithm>
#include <array>
#include <random>

#include <nlohmann/json.hpp>

namespace tileskip::ui {

namespace {

constexpr float kLeftColumn = 340.0f;  // at UI scale 1
constexpr std::array<int, 8> kSizes = {64, 128, 256, 512, 1024, 2048, 4096, 8192};
constexpr std::array<int, 5> kSegmentSizes = {8, 16, 32, 64, 128};

constexpr ImGuiWindowFlags kRootFlags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                        ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoSavedSettings |
                                        ImGuiWindowFlags_NoBringToFrontOnFocus;

// Generators whose zeros come in G-sized pieces (GeneratorOptions::block).
bool takesGranularity(const std::string& generator) { return generator == "segments" || generator == "blocks"; }

bool contains(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::string kernelLabel(const KernelInfo& k) {
  std::string label(k.id);
  if (!k.number.empty()) label += "  (" + std::string(k.number) + ")";
  return label;
}

// "joint · block 64x64x16 · warp 32x32 · 2x4 per thread · 128 threads · A pattern / 8 rows · B pattern / 32 cols"
std::string tileSummary(const KernelInfo& k) {
  const TileShape& t = k.tile;
  if (t.BM == 0) return std::string(familyName(k.family));
  std::string s = std::string(familyName(k.family)) + " \xC2\xB7 block " + std::to_string(t.BM) + "x" + std::to_string(t.BN) +
                  "x" + std::to_string(t.BK);
  if (t.WM > 0) s += " \xC2\xB7 warp " + std::to_string(t.WM) + "x" + std::to_string(t.WN);
  s += " \xC2\xB7 " + std::to_string(t.TM) + "x" + std::to_string(t.TN) + " per thread \xC2\xB7 " + std::to_string(t.threads) +
       " threads";
  if (k.usesAPattern()) s += " \xC2\xB7 A pattern / " + std::to_string(k.aGranularity) + " rows";
  if (k.usesBPattern()) s += " \xC2\xB7 B pattern / " + std::to_string(k.bGranularity) + " cols";
  return s;
}

}  // namespace

ViewerApp::ViewerApp(LiveSession& session, const ViewerOptions& options, const Fonts& fonts,
                     std::vector<std::string> backends, std::string drawingDevice)
    : session_(session),
      fonts_(fonts),
      backends_(std::move(backends)),
      drawingDevice_(std::move(drawingDevice)),
      request_(options.start),
      teach_(options.teach) {
  teachState_.requestedBlock = options.teachBlock;
  teachState_.requestedKBlock = options.teachKBlock;
  teachState_.requestedView = options.teachView;
  skipMap_.showLoads = options.showLoads;
  skipMap_.selectedTile = options.selectedTile;
}

int ViewerApp::teachKBlocks() const {
  std::shared_ptr<const ProblemAnalysis> analysis = shown_ ? shown_ : session_.snapshot().analysis;
  return analysis ? (analysis->spec.k + kKBlock - 1) / kKBlock : 0;
}

void ViewerApp::showKBlock(int kBlock) {
  teach_ = true;
  teachState_.kBlock = kBlock;
  teachState_.playing = false;
}

nlohmann::json ViewerApp::facts() const {
  if (!shown_) return nlohmann::json::object();
  const ProblemAnalysis& an = *shown_;
  const bool seated = teachState_.kernel == an.kernel;
  std::pair<int, int> block = seated ? std::pair{teachState_.blockRow, teachState_.blockCol} : teachingBlock(teachState_, an);
  int kBlock = seated ? teachState_.kBlock : teachState_.requestedKBlock;
  TeachView view = teachState_.viewKernel == an.kernel ? teachState_.view : teachState_.requestedView.value_or(lessonView(*an.kernel));
  nlohmann::json facts = lessonFacts(an, block, kBlock, view);
  addViewSettings(facts, {teach_, skipMap_.showLoads, skipMap_.selectedTile, uiScale(), static_cast<int>(frameSize_.x),
                          static_cast<int>(frameSize_.y)});
  // Each series' outcome, so that a refusal on this device is never read as a wrong answer.
  SessionSnapshot snapshot = session_.snapshot();
  nlohmann::json kernels = nlohmann::json::array();
  for (const Series& s : snapshot.series) {
    std::string reason = s.message;
    if (reason.empty() && s.state == Series::State::Waiting) {
      reason = snapshot.served.measuring ? "not verified yet when these figures were taken" : "timing paused (--no-timing)";
    }
    kernels.push_back({{"kernel", s.kernel}, {"role", seriesRoleName(s.role)}, {"backend", s.backend},
                       {"status", seriesStateName(s.state)}, {"reason", reason.empty() ? nlohmann::json() : nlohmann::json(reason)}});
  }
  facts["kernels"] = std::move(kernels);
  return facts;
}

// Teaching mode steps by key: a presenter's clicker sends PageDown and PageUp. Not while a text
// field has the keyboard, where the keys edit the text.
void ViewerApp::presenterKeys() {
  if (!teach_ || ImGui::GetIO().WantTextInput) return;
  const std::pair<ImGuiKey, PresenterKey> keys[] = {
      {ImGuiKey_RightArrow, PresenterKey::Right}, {ImGuiKey_LeftArrow, PresenterKey::Left},
      {ImGuiKey_DownArrow, PresenterKey::Down},   {ImGuiKey_UpArrow, PresenterKey::Up},
      {ImGuiKey_PageDown, PresenterKey::PageDown}, {ImGuiKey_PageUp, PresenterKey::PageUp},
      {ImGuiKey_Space, PresenterKey::Space},      {ImGuiKey_Home, PresenterKey::Home},
      {ImGuiKey_End, PresenterKey::End},
  };
  const int kBlocks = teachKBlocks();
  for (const auto& [imguiKey, key] : keys) {
    const int index = ImGui::GetKeyIndex(imguiKey);
    if (index < 0 || !ImGui::IsKeyPressed(index)) continue;
    teachState_.kBlock = steppedKBlock(teachState_.kBlock, kBlocks, key);
    teachState_.playing = false;
  }
}

void ViewerApp::sendIfChanged() {
  const SessionRequest& r = request_;
  bool changed = !sentOnce_ || r.backend != sent_.backend || r.kernel != sent_.kernel || !sameProblem(r.spec, sent_.spec) ||
                 r.patternGranularity != sent_.patternGranularity || r.measuring != sent_.measuring;
  if (!changed) return;
  session_.request(r);
  sent_ = r;
  sentOnce_ = true;
}

void ViewerApp::frame(ImVec2 size, float deltaSeconds) {
  lastDelta_ = deltaSeconds;
  frameSize_ = size;
  sendIfChanged();
  SessionSnapshot snapshot = session_.snapshot();
  if (snapshot.backendName == request_.backend) implemented_ = snapshot.implementedKernels;
  shown_ = snapshot.analysis;
  sources_.shown.clear();  // teaching mode's source panel fills it again
  presenterKeys();

  layout_.clear();
  ImGui::SetNextWindowPos({0, 0});
  ImGui::SetNextWindowSize(size);
  ImGui::Begin("tileskip view", nullptr, kRootFlags);
  drawContext(snapshot);
  ImGui::BeginChild("left column", {px(kLeftColumn), 0}, true);
  recordPanel("left column");
  drawControls();
  ImGui::Separator();
  drawLegend();
  ImGui::EndChild();

  ImGui::SameLine();
  // A group, so that the panels stacked on the right start below each other, not below the
  // left column.
  ImGui::BeginGroup();
  ImVec2 room = ImGui::GetContentRegionAvail();
  if (!snapshot.analysis) {
    ImGui::BeginChild("waiting", room, true);
    ImGui::TextDisabled("%s", snapshot.activity.empty() ? "starting..." : snapshot.activity.c_str());
    for (const std::string* error : {&snapshot.backendError, &snapshot.problemError}) {
      if (!error->empty()) ImGui::TextColored(toVec4(palette::kBad), "%s", error->c_str());
    }
    ImGui::EndChild();
  } else if (teach_) {
    drawTeach(snapshot, room);
  } else {
    drawExplore(snapshot, room);
  }
  ImGui::EndGroup();
  ImGui::End();

  if (skipMap_.pickedBlock) {
    teachState_.requestedBlock = skipMap_.pickedBlock;  // teaching mode walks it from its first instructive K-block
    teachState_.requestedKBlock = -1;
    skipMap_.pickedBlock.reset();
  }
  sendIfChanged();
}

void ViewerApp::recordPanel(const std::string& name) {
  ImVec2 p = ImGui::GetWindowPos(), s = ImGui::GetWindowSize();
  layout_.push_back({name, p.x, p.y, s.x, s.y});
}

void ViewerApp::recordRect(const std::string& name, ImVec2 min, ImVec2 max) {
  if (max.x > min.x && max.y > min.y) layout_.push_back({name, min.x, min.y, max.x - min.x, max.y - min.y});
}

void ViewerApp::drawControls() {
  ImGui::PushItemWidth(-px(118.0f));
  if (ImGui::BeginCombo("backend", request_.backend.c_str())) {
    for (const std::string& name : backends_) {
      if (ImGui::Selectable(name.c_str(), name == request_.backend)) request_.backend = name;
    }
    ImGui::EndCombo();
  }
  const KernelInfo* current = findKernelInfo(request_.kernel);
  std::string currentLabel = current != nullptr ? kernelLabel(*current) : request_.kernel;
  if (ImGui::BeginCombo("kernel", currentLabel.c_str(), ImGuiComboFlags_HeightLarge)) {
    for (const KernelInfo& k : kCatalogue) {
      bool runs = contains(implemented_, k.id);
      std::string label = kernelLabel(k) + (runs ? "" : "   - analysis only");
      if (!runs) ImGui::PushStyleColor(ImGuiCol_Text, toVec4(palette::kDim));
      if (ImGui::Selectable(label.c_str(), k.id == request_.kernel)) request_.kernel = k.id;
      if (!runs) ImGui::PopStyleColor();
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", std::string(k.summary).c_str());
    }
    ImGui::EndCombo();
  }
  if (current != nullptr) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(std::string(current->summary).c_str());
    ImGui::TextDisabled("%s", tileSummary(*current).c_str());
    if (!contains(implemented_, current->id)) {
      ImGui::TextColored(toVec4(palette::kWarn), "%s does not run %s: skip map and teaching mode only.",
                         request_.backend.c_str(), std::string(current->id).c_str());
    }
    ImGui::PopTextWrapPos();
  }
  ImGui::Checkbox("run and time kernels", &request_.measuring);

  ImGui::Spacing();
  ImGui::TextDisabled("C[M x N] = A[M x K] \xC2\xB7 B[K x N]");
  ProblemSpec& spec = request_.spec;
  bool square = spec.m == spec.n && spec.n == spec.k;
  std::string sizeLabel = square ? std::to_string(spec.m) : "custom";
  if (ImGui::BeginCombo("M = N = K", sizeLabel.c_str())) {
    for (int s : kSizes) {
      if (ImGui::Selectable(std::to_string(s).c_str(), square && s == spec.m)) spec.m = spec.n = spec.k = s;
    }
    ImGui::EndCombo();
  }
  int mnk[3] = {spec.m, spec.n, spec.k};
  ImGui::InputInt3("M, N, K", mnk);
  // Applied when the field is left, so typing 4096 does not generate 4, 40 and 409 first.
  if (ImGui::IsItemDeactivatedAfterEdit()) {
    spec.m = std::clamp(mnk[0], 1, 16384);
    spec.n = std::clamp(mnk[1], 1, 16384);
    spec.k = std::clamp(mnk[2], 1, 16384);
  }
  if (ImGui::BeginCombo("generator", spec.generator.c_str())) {
    for (const GeneratorInfo& g : generators()) {
      if (ImGui::Selectable(std::string(g.name).c_str(), g.name == spec.generator)) spec.generator = g.name;
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", std::string(g.summary).c_str());
    }
    ImGui::EndCombo();
  }
  for (const GeneratorInfo& g : generators()) {
    if (g.name == spec.generator) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextDisabled("%s", std::string(g.summary).c_str());
      ImGui::PopTextWrapPos();
    }
  }
  float densityA = static_cast<float>(spec.densityA), densityB = static_cast<float>(spec.densityB);
  if (ImGui::SliderFloat("density of A", &densityA, 0.0f, 1.0f, "%.2f")) spec.densityA = std::round(densityA * 100.0) / 100.0;
  if (ImGui::SliderFloat("density of B", &densityB, 0.0f, 1.0f, "%.2f")) spec.densityB = std::round(densityB * 100.0) / 100.0;
  ImGui::BeginDisabled(!takesGranularity(spec.generator));
  std::string segmentLabel = std::to_string(spec.options.block);
  if (ImGui::BeginCombo("zero segment G", segmentLabel.c_str())) {
    for (int g : kSegmentSizes) {
      if (ImGui::Selectable(std::to_string(g).c_str(), g == spec.options.block)) spec.options.block = g;
    }
    ImGui::EndCombo();
  }
  ImGui::EndDisabled();
  std::uint64_t step = 1;
  ImGui::InputScalar("seed", ImGuiDataType_U64, &spec.seed, &step);
  ImGui::SameLine();
  if (ImGui::SmallButton("new")) spec.seed = std::random_device{}() % 100000;

  ImGui::Spacing();
  ImGui::TextDisabled("pattern heatmaps at G =");
  for (int g : kPatternGranularities) {
    ImGui::SameLine();
    std::string label = std::to_string(g);
    if (ImGui::RadioButton(label.c_str(), request_.patternGranularity == g)) request_.patternGranularity = g;
  }
  ImGui::PopItemWidth();
}

void ViewerApp::drawContext(const SessionSnapshot& snapshot) {
  // Line 1: what this is, the mode, and where it runs.
  ImGui::PushFont(fonts_.title);
  ImGui::TextUnformatted("tileskip view");
  ImGui::PopFont();
  ImGui::SameLine(0, px(16));
  if (ImGui::RadioButton("Explore", !teach_)) teach_ = false;
  ImGui::SameLine();
  if (ImGui::RadioButton("Teach: walk one block", teach_)) teach_ = true;
  ImGui::SameLine(0, px(24));
  if (!snapshot.backendError.empty()) {
    ImGui::TextColored(toVec4(palette::kBad), "backend %s unavailable: %s", snapshot.backendName.c_str(), snapshot.backendError.c_str());
  } else {
    const DeviceInfo& d = snapshot.device;
    // The api string of some backends is a whole build configuration; its first words say enough.
    std::string api = d.api.substr(0, d.api.find(' ', d.api.find(' ') + 1));
    std::string where = d.name;
    for (const std::string& part : {api, d.driver.empty() ? std::string() : "driver " + d.driver, "drawn by " + drawingDevice_}) {
      if (!part.empty()) where += (where.empty() ? "" : " \xC2\xB7 ") + part;
    }
    ImGui::Text("backend %s", snapshot.backendName.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("%s", where.c_str());
  }
  // Line 2: the problem and whether each timed kernel was verified.
  if (snapshot.analysis) {
    const ProblemAnalysis& a = *snapshot.analysis;
    const ProblemSpec& s = a.spec;
    std::string sizes = s.m == s.n && s.n == s.k ? "M = N = K = " + std::to_string(s.m)
                                                 : "M = " + std::to_string(s.m) + ", N = " + std::to_string(s.n) + ", K = " + std::to_string(s.k);
    ImGui::Text("%s", sizes.c_str());
    ImGui::SameLine();
    // Each operand as it was made: a generator with its density (and G), or the file it came from
    // with its real non-zero fraction; the seed only where a generator used it.
    const bool generated = s.fileA.empty() || s.fileB.empty();
    const std::string seed = generated ? " \xC2\xB7 seed " + std::to_string(s.seed) : "";
    ImGui::TextDisabled("\xC2\xB7 A: %s (non-zero %s), B: %s (%s)%s \xC2\xB7", s.sourceOf(Operand::A).c_str(),
                        formatNumber(a.nonZeroA, 3).c_str(), s.sourceOf(Operand::B).c_str(), formatNumber(a.nonZeroB, 3).c_str(),
                        seed.c_str());
  } else {
    ImGui::TextDisabled("no problem yet \xC2\xB7");
  }
  for (const Series& series : snapshot.series) {
    ImGui::SameLine();
    switch (series.state) {
      case Series::State::Verified:
        ImGui::TextColored(toVec4(palette::kGood), "\xE2\x9C\x93 %s verified", series.kernel.c_str());
        break;
      case Series::State::Failed:
        ImGui::TextColored(toVec4(palette::kBad), "\xE2\x9C\x97 %s FAILED", series.kernel.c_str());
        break;
      case Series::State::Refused:
        ImGui::TextColored(toVec4(palette::kWarn), "%s: refused on this device", series.kernel.c_str());
        break;
      case Series::State::Waiting:
        ImGui::TextDisabled("%s: %s", series.kernel.c_str(), snapshot.served.measuring ? "verifying" : "paused");
        break;
      case Series::State::Unavailable: ImGui::TextDisabled("%s: not run", series.kernel.c_str()); break;
    }
    if (ImGui::IsItemHovered() && !series.message.empty()) ImGui::SetTooltip("%s", series.message.c_str());
  }
  ImGui::SameLine();
  ImGui::TextDisabled("\xC2\xB7 %s%s", snapshot.activity.c_str(), snapshot.caughtUp ? "" : " (catching up)");
  for (const std::string& d : snapshot.diagnostics) ImGui::TextColored(toVec4(palette::kWarn), "driver: %s", d.c_str());
}

void ViewerApp::drawLegend() {
  colourLegend(ImGui::GetContentRegionAvail().x,
               "One colour scale everywhere: the fraction of elements that are non-zero, of pattern bits set, of "
               "rank-1 updates a tile keeps, of K-blocks a block loads.");
  legendItem(palette::kAccent, "block tile / current step", true);
  if (teach_) {
    for (WarpDecision d : {WarpDecision::Work, WarpDecision::Partial, WarpDecision::Skip, WarpDecision::Diverge}) {
      legendItem(decisionColour(d), (std::string("warp ") + warpDecisionName(d)).c_str());
    }
  }
}

void ViewerApp::drawExplore(const SessionSnapshot& snapshot, ImVec2 room) {
  const ProblemAnalysis& analysis = *snapshot.analysis;
  float gap = ImGui::GetStyle().ItemSpacing.x;
  float centre = std::floor((room.x - gap) * 0.5f);
  ImGui::BeginChild("skip map", {centre, room.y}, true);
  recordPanel("skip map");
  drawSkipMapPanel(fonts_, analysis, skipMap_, teachingBlock(teachState_, analysis));
  layout_.push_back({"skip map cells", skipMap_.mapOrigin.x, skipMap_.mapOrigin.y, skipMap_.mapSize.x, skipMap_.mapSize.y});
  recordRect("tile read-out", skipMap_.readOutMin, skipMap_.readOutMax);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginGroup();
  float right = room.x - centre - gap;
  float throughputHeight = std::floor(room.y * 0.52f);
  ImGui::BeginChild("throughput", {right, throughputHeight}, true);
  recordPanel("throughput");
  PlotArea plot = drawThroughputPanel(fonts_, snapshot);
  layout_.push_back({"throughput plot", plot.origin.x, plot.origin.y, plot.size.x, plot.size.y});
  ImGui::EndChild();
  ImGui::BeginChild("matrices", {right, room.y - throughputHeight - ImGui::GetStyle().ItemSpacing.y}, true);
  recordPanel("matrices");
  drawMatricesPanel(fonts_, analysis);
  ImGui::EndChild();
  ImGui::EndGroup();
}

void ViewerApp::drawTeach(const SessionSnapshot& snapshot, ImVec2 room) {
  const ProblemAnalysis& analysis = *snapshot.analysis;
  // The walk and its text first; the source takes what is left, and less on a small screen, where
  // the verdict and the picture must stay whole (1280 x 720 on a projector).
  float walkHeight = std::floor(room.y * (room.y < px(700.0f) ? 0.72f : 0.62f));
  ImGui::BeginChild("teaching", {room.x, walkHeight}, true);
  recordPanel("teaching");
  teachState_.keyMessageMin = teachState_.keyMessageMax = teachState_.lessonMin = teachState_.lessonMax = {0, 0};
  drawTeachingPanel(fonts_, snapshot.analysis, teachState_, lastDelta_, liveDeviceIsCpu(snapshot));
  recordRect("key message", teachState_.keyMessageMin, teachState_.keyMessageMax);
  recordRect("lesson view", teachState_.lessonMin, teachState_.lessonMax);
  ImGui::EndChild();
  ImGui::BeginChild("source", {room.x, room.y - walkHeight - ImGui::GetStyle().ItemSpacing.y}, true);
  recordPanel("source");
  drawSourcePanel(fonts_, *analysis.kernel, sources_);
  ImGui::EndChild();
}

}  // namespace tileskip::ui
