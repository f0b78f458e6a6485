// tileskip view: the Dear ImGui viewer — skip map, live GFLOPS, teaching mode — in a window,
// or offscreen into a PNG (--screenshot) with no window and no display server. The viewer is a
// module loaded here, so where it or its libraries are missing only this command fails (exit 3).
// --facts writes the figures a view shows as JSON (alone, without drawing; the doc check reads
// it), --record renders teaching steps offscreen and hands the frames to scripts/make_animation.py
// (Pillow, or ffmpeg for MP4), written atomically.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli_common.hpp"
#include "core/io/report.hpp"
#include "core/io/atomic_file.hpp"
#include "core/model/error.hpp"
#include "core/process/script_run.hpp"
#include "ui/lesson.hpp"
#include "ui/viewer.hpp"

namespace tileskip::cli {

namespace {

struct ViewFlags {
  BackendFlags backend;
  ProblemFlags problem;
  std::string kernel;
  int patternGranularity = 0;
  std::string screenshot;
  std::string layout;
  int frames = 3;
  CLI::Option* framesOption = nullptr;
  int width = 1600, height = 1000;
  bool teach = false;
  bool noTiming = false;
  std::string teachBlock;
  int teachKBlock = -1;
  std::string teachView;
  std::string map = "work";
  std::string selectTile;
  float uiScale = 1.0f;
  std::string press;
  std::string facts;
  std::string record;
  double fps = 2.0;
  std::string recordKBlocks;
};

// What a recording's file name asks for: the format make_animation.py writes.
std::string recordFormat(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".gif") return "gif";
  if (ext == ".png" || ext == ".apng") return "apng";
  if (ext == ".mp4") return "mp4";
  throw InputError("--record " + path + ": name a .gif, .apng (or .png) or .mp4 file");
}

// "A..B" (inclusive K-blocks) or "A" alone.
std::pair<int, int> parseKBlockRange(const std::string& text) {
  std::size_t dots = text.find("..");
  try {
    std::size_t used = 0;
    if (dots == std::string::npos) {
      int only = std::stoi(text, &used);
      if (used == text.size() && only >= 0) return {only, only};
    } else {
      int first = std::stoi(text.substr(0, dots), &used);
      bool firstWhole = used == dots;
      std::string rest = text.substr(dots + 2);
      int last = std::stoi(rest, &used);
      if (firstWhole && used == rest.size() && first >= 0 && last >= first) return {first, last};
    }
  } catch (const std::exception&) {
  }
  throw InputError("--record-kblocks '" + text + "' is not FIRST..LAST (K-blocks, FIRST <= LAST) or one K-block");
}

// The frames of a recording, encoded by scripts/make_animation.py and written atomically.
// `out` was opened before the frames were rendered, so an unwritable path fails at once.
void encodeRecording(const std::filesystem::path& frames, double fps, const std::string& format, const std::string& path,
                     AtomicFile& out) {
  std::filesystem::path script = findScript("make_animation.py", "TILESKIP_ANIMATION_SCRIPT");
  if (script.empty()) {
    throw UnavailableError("the recording script make_animation.py was not found beside tileskip, in its share/tileskip/, or in " +
                           sourceScriptsFolder().string());
  }
  std::ostringstream rate;
  rate << fps;
  ScriptRun run;
  std::string whyNot;
  for (const std::string& interpreter : pythonInterpreters()) {
    run = runCaptured({interpreter, script.string(), frames.string(), rate.str(), format, "-"});
    if (run.exitCode == kCannotExecute && run.output.empty()) {
      if (whyNot.empty()) whyNot = interpreter + " could not be run (Debian: apt install python3 python3-pil)";
      continue;
    }
    whyNot.clear();
    break;
  }
  if (!whyNot.empty()) throw UnavailableError("cannot record " + path + ": " + whyNot);
  constexpr int kScriptMissing = 3;  // make_animation.py: Pillow or ffmpeg is not installed
  if (run.exitCode == kScriptMissing) throw UnavailableError("cannot record " + path + ": " + lastLine(run.errors));
  if (run.exitCode != 0 || run.output.empty()) {
    throw UnavailableError("cannot record " + path + ": " + script.string() + " failed (exit " + std::to_string(run.exitCode) +
                           ")" + (run.errors.empty() ? "" : ": " + lastLine(run.errors)));
  }
  out.stream().write(run.output.data(), static_cast<std::streamsize>(run.output.size()));
  out.commit();
}

std::vector<std::string> splitKeys(const std::string& text) {
  std::vector<std::string> keys;
  std::istringstream in(text);
  for (std::string key; std::getline(in, key, ',');) {
    if (key.empty()) continue;
    if (!ui::presenterKeyOf(key)) throw InputError("--press: unknown key '" + key + "'; keys: " + ui::presenterKeyList());
    keys.push_back(key);
  }
  return keys;
}

// The kernel to open with: the finest joint kernel the backend runs, else joint-8x32 for its
// skip map alone.
std::string defaultKernel(const Backend& backend) {
  for (std::string_view id : {"joint-8x32", "joint-32x32", "joint-64x32", "b-warp", "a-warp", "warptile"}) {
    if (backend.implements(id)) return std::string(id);
  }
  return "joint-8x32";
}

std::pair<int, int> parseBlock(const std::string& flag, const std::string& text) {
  std::istringstream in(text);
  int row = -1, col = -1;
  char comma = 0;
  if (!(in >> row >> comma >> col) || comma != ',' || row < 0 || col < 0 || !in.eof()) {
    throw InputError(flag + " '" + text + "' is not ROW,COL (two non-negative indices)");
  }
  return {row, col};
}

int runViewCommand(const ViewFlags& flags) {
  // An unwritable picture should fail before the backend opens and the problem is generated.
  for (const std::string& path : {flags.screenshot, flags.layout, flags.facts, flags.record}) {
    if (path.empty()) continue;
    std::filesystem::path folder = std::filesystem::absolute(path).parent_path();
    if (!std::filesystem::is_directory(folder)) {
      throw InputError(path + ": cannot write here (the folder " + folder.string() + " does not exist)");
    }
  }
  if (flags.backend.backend == "all") throw InputError("view shows one backend at a time: choose one with --backend NAME");
  const std::string format = flags.record.empty() ? std::string() : recordFormat(flags.record);
  if (!flags.record.empty() && !flags.screenshot.empty()) throw InputError("--record and --screenshot each make their own picture: give one");
  // A GIF frame lasts at most 655.35 s (a 16-bit count of hundredths): no slower than 0.01 fps.
  if (!(flags.fps >= 0.01 && flags.fps <= 60.0)) throw InputError("--fps must be from 0.01 to 60");
  if (!(flags.uiScale >= 0.5f && flags.uiScale <= 4.0f)) throw InputError("--ui-scale must be between 0.5 and 4");
  if (flags.map != "work" && flags.map != "loads") throw InputError("--map must be work (updates kept per output tile) or loads (K-blocks loaded per block tile)");
  std::optional<ui::TeachView> teachView;
  if (!flags.teachView.empty()) {
    teachView = ui::parseTeachView(flags.teachView);
    if (!teachView) throw InputError("--teach-view '" + flags.teachView + "': choose " + ui::teachViewList());
  }
  std::optional<std::pair<int, int>> recordRange;
  if (!flags.recordKBlocks.empty()) {
    if (flags.record.empty()) throw InputError("--record-kblocks goes with --record");
    recordRange = parseKBlockRange(flags.recordKBlocks);
  }
  // MP4 needs ffmpeg: say so before anything is rendered.
  if (format == "mp4" && !programOnPath("ffmpeg")) {
    throw UnavailableError("--record " + flags.record + ": MP4 needs ffmpeg, which is not installed (Debian: apt install "
                           "ffmpeg); record a .gif or .apng instead");
  }
  const bool drawn = !flags.screenshot.empty() || !flags.record.empty() || flags.facts.empty();
  if (drawn) ui::requireViewer();
  std::vector<std::unique_ptr<Backend>> opened = flags.backend.open();
  Backend& backend = *opened.front();
  ui::ViewerOptions options;
  options.start.backend = std::string(backend.name());
  std::optional<ProblemData> loaded;
  if (flags.kernel == "auto" || !flags.problem.fileA.empty() || !flags.problem.fileB.empty() || !drawn) {
    // Files set the sizes, and auto reads the operands: load them once here (the viewer's session
    // reads the files again as it starts). Facts alone are computed here from them.
    auto [spec, data] = flags.problem.load(defaultSizeFor(backend));
    options.start.spec = spec;
    loaded = std::move(data);
    if (flags.kernel == "auto") {
      const Recommendation choice = chooseAuto(backend, loaded->a, loaded->b, spec);
      noteAuto(backend, choice);
      options.start.kernel = std::string(choice.kernel->id);
    }
  } else {
    options.start.spec = flags.problem.toSpec(defaultSizeFor(backend));
  }
  const DType dtype = options.start.spec.dtype;
  if (options.start.kernel.empty()) {
    options.start.kernel = flags.kernel.empty() ? defaultKernel(backend) : std::string(kernelInfo(flags.kernel).id);
    // The default kernel is an fp32 one: other inputs start on their dense kernel.
    if (flags.kernel.empty() && !kernelInfo(options.start.kernel).takes(dtype)) {
      options.start.kernel = std::string(denseReferenceKernel(dtype));
    }
  }
  const KernelInfo& kernel = kernelInfo(options.start.kernel);
  requireInputs(kernel, dtype);
  options.start.patternGranularity =
      flags.patternGranularity > 0 ? flags.patternGranularity : (kernel.usesAPattern() ? kernel.aGranularity : 32);
  if (options.start.patternGranularity < 1) throw InputError("--pattern-granularity must be at least 1");
  if (!backend.implements(kernel.id)) {
    note("backend '" + std::string(backend.name()) + "' does not implement " + std::string(kernel.id) +
         ": showing its skip map and teaching mode without timings");
  }
  opened.clear();  // the viewer's session opens its own
  const ProblemSpec& spec = options.start.spec;
  options.teach = flags.teach || !flags.teachBlock.empty() || flags.teachKBlock >= 0 || teachView || !flags.record.empty();
  // Out of range is an error, not a clamp: a lecturer's prepared command must show what it says.
  if (!flags.teachBlock.empty()) {
    options.teachBlock = parseBlock("--teach-block", flags.teachBlock);
    if (auto problem = ui::teachBlockProblem(kernel, spec.m, spec.n, *options.teachBlock)) throw InputError(*problem);
  }
  if (flags.teachKBlock >= 0) {
    if (auto problem = ui::teachKBlockProblem(spec.k, flags.teachKBlock)) throw InputError(*problem);
  }
  options.teachKBlock = flags.teachKBlock;
  if (teachView) {
    if (auto problem = ui::teachViewProblem(kernel, *teachView)) throw InputError(*problem);
    options.teachView = teachView;
  }
  if (recordRange) {
    for (int kb : {recordRange->first, recordRange->second}) {
      if (auto problem = ui::teachKBlockProblem(spec.k, kb)) throw InputError("--record-kblocks: " + problem->substr(problem->find(' ') + 1));
    }
    options.recordFirst = recordRange->first;
    options.recordLast = recordRange->second;
  }
  if (!flags.selectTile.empty()) {
    options.selectedTile = parseBlock("--select-tile", flags.selectTile);
    if (auto problem = ui::tileProblem(kernel, spec.m, spec.n, *options.selectedTile)) throw InputError(*problem);
  }
  options.showLoads = flags.map == "loads";
  options.uiScale = flags.uiScale;
  options.keys = splitKeys(flags.press);
  if (!options.keys.empty() && flags.screenshot.empty() && flags.record.empty()) throw InputError("--press goes with --screenshot or --record");
  options.start.measuring = !flags.noTiming;
  options.screenshot = flags.screenshot;
  if (!flags.layout.empty() && flags.screenshot.empty()) throw InputError("--layout goes with --screenshot");
  options.layoutJson = flags.layout;
  options.factsJson = flags.facts;
  if (!drawn) {
    // The figures alone: the analysis the viewer would draw, at the block and K-block it would show.
    auto analysis = ui::analyseProblem(spec, *loaded, kernel, options.start.patternGranularity);
    std::pair<int, int> block = options.teachBlock.value_or(analysis->teachBlock);
    nlohmann::json facts = ui::lessonFacts(*analysis, block, options.teachKBlock, options.teachView.value_or(ui::lessonView(kernel)));
    ui::addViewSettings(facts, {options.teach, options.showLoads, options.selectedTile, options.uiScale, flags.width, flags.height});
    facts["kernels"] = nlohmann::json::array({{{"kernel", std::string(kernel.id)}, {"role", "kernel"}, {"backend", nullptr},
                                               {"status", "not run"},
                                               {"reason", "--facts alone draws nothing and runs no kernel: add --screenshot to run and verify"}}});
    AtomicFile out(flags.facts);
    out.stream() << jsonDocumentText(facts);
    out.commit();
    note("wrote " + flags.facts);
    return 0;
  }
  if (flags.frames < 1) throw InputError("--frames must be at least 1");
  options.frames = flags.frames;
  if (flags.screenshot.empty() && flags.framesOption->count() > 0) options.windowFrames = flags.frames;
  options.width = flags.width;
  options.height = flags.height;
  if (flags.record.empty()) return ui::runViewer(options);
  AtomicFile recording(flags.record);  // before any frame: a folder that cannot be written fails now
  ScratchFolder frames("tileskip-record");  // removed with its frames, on Ctrl-C too
  options.recordFolder = frames.path().string();
  int code = ui::runViewer(options);
  if (code != 0) return code;
  encodeRecording(frames.path(), flags.fps, format, flags.record, recording);
  note("wrote " + flags.record);
  return 0;
}

}  // namespace

Command addViewCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "view", "the viewer: skip map, live GFLOPS, teaching mode (a window, or --screenshot FILE.png offscreen)");
  auto flags = std::make_shared<ViewFlags>();
  flags->backend.addTo(app, "");
  app->add_option("--kernel", flags->kernel, "kernel to open with: " + catalogueIdList() +
                                                 ", or auto: the one `tileskip inspect` recommends for these operands"
                                                 " (default: the finest joint kernel the backend runs)");
  flags->problem.addTo(app);
  app->add_option("--pattern-granularity", flags->patternGranularity,
                  "rows/columns per tile of the pattern heatmaps (default: the kernel's)")
      ->check(CLI::PositiveNumber);
  app->add_option("--screenshot", flags->screenshot,
                  "render offscreen (no window, no display server) and write this PNG");
  app->add_option("--layout", flags->layout, "with --screenshot: also write each panel's pixel rectangle as JSON");
  flags->framesOption = app->add_option("--frames", flags->frames,
                                        "frames rendered before the screenshot (in a window: close after this many)")
                            ->capture_default_str();
  app->add_option("--width", flags->width, "window or screenshot width in pixels")->capture_default_str();
  app->add_option("--height", flags->height, "window or screenshot height in pixels")->capture_default_str();
  app->add_flag("--no-timing", flags->noTiming, "start with kernels not run (skip map and teaching mode only)");
  app->add_flag("--teach", flags->teach, "open in teaching mode (one block walking its K-blocks)");
  app->add_option("--teach-block", flags->teachBlock, "block to walk, ROW,COL (default: the most instructive)");
  app->add_option("--teach-kblock", flags->teachKBlock, "K-block to stop at (default: the first worth pointing at)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--teach-view", flags->teachView,
                  "what teaching mode shows beside the block: " + ui::teachViewList() +
                      " (default: the kernel's own lesson: the walk for a skipping kernel; coalescing for K1/K2, smem for K3, "
                      "registers for K4-K6, warp for K10, pipeline for K11/K12)");
  app->add_option("--map", flags->map, "explore's skip map: work (updates kept per output tile) or loads (K-blocks loaded per block tile)")
      ->capture_default_str();
  app->add_option("--select-tile", flags->selectTile, "explore: keep the read-out of this skip-map tile shown, ROW,COL (pattern tiles)");
  app->add_option("--ui-scale", flags->uiScale, "scale of text and widgets, e.g. 1.5 on a projector (0.5 to 4)")->capture_default_str();
  app->add_option("--press", flags->press,
                  "with --screenshot or --record: keys pressed one per frame first, e.g. PageDown,PageDown (Right, Left, "
                  "PageDown, PageUp, Space, Home, End: what a presenter's clicker sends)");
  app->add_option("--facts", flags->facts,
                  "write the figures this view shows (skip map, teaching walk, dense views) as JSON; alone, without drawing");
  app->add_option("--record", flags->record,
                  "write teaching mode's K-block steps as an animation: FILE.gif or FILE.apng (Pillow), FILE.mp4 (ffmpeg); "
                  "rendered offscreen");
  app->add_option("--fps", flags->fps, "with --record: frames (K-blocks) per second, 0.01 to 60")->capture_default_str();
  app->add_option("--record-kblocks", flags->recordKBlocks, "with --record: the K-blocks FIRST..LAST to walk (default: all of them)");
  return {app, [flags] { return runViewCommand(*flags); }};
}

}  // namespace tileskip::cli
