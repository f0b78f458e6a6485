// tileskip view: the Dear ImGui viewer — skip map, live GFLOPS, teaching mode — in a window,
// or offscreen into a PNG (--screenshot) with no window and no display server. The viewer is a
// module loaded here, so where it or its libraries are missing only this command fails (exit 3).
#include <filesystem>
#include <sstream>

#include "cli_common.hpp"
#include "core/error.hpp"
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
};

// The kernel to open with: the finest joint kernel the backend runs, else joint-8x32 for its
// skip map alone.
std::string defaultKernel(const Backend& backend) {
  for (std::string_view id : {"joint-8x32", "joint-32x32", "joint-64x32", "b-warp", "a-warp", "warptile"}) {
    if (backend.implements(id)) return std::string(id);
  }
  return "joint-8x32";
}

std::pair<int, int> parseBlock(const std::string& text) {
  std::istringstream in(text);
  int row = -1, col = -1;
  char comma = 0;
  if (!(in >> row >> comma >> col) || comma != ',' || row < 0 || col < 0 || !in.eof()) {
    throw InputError("--teach-block '" + text + "' is not ROW,COL (two non-negative block indices)");
  }
  return {row, col};
}

int runViewCommand(const ViewFlags& flags) {
  // An unwritable picture should fail before the backend opens and the problem is generated.
  for (const std::string& path : {flags.screenshot, flags.layout}) {
    if (path.empty()) continue;
    std::filesystem::path folder = std::filesystem::absolute(path).parent_path();
    if (!std::filesystem::is_directory(folder)) {
      throw InputError(path + ": cannot write here (the folder " + folder.string() + " does not exist)");
    }
  }
  if (flags.backend.backend == "all") throw InputError("view shows one backend at a time: choose one with --backend NAME");
  ui::requireViewer();
  std::vector<std::unique_ptr<Backend>> opened = flags.backend.open();
  Backend& backend = *opened.front();
  ui::ViewerOptions options;
  options.start.backend = std::string(backend.name());
  if (flags.kernel == "auto" || !flags.problem.fileA.empty() || !flags.problem.fileB.empty()) {
    // Files set the sizes, and auto reads the operands: load them once here (the viewer's session
    // reads the files again as it starts).
    auto [spec, data] = flags.problem.load(defaultSizeFor(backend));
    options.start.spec = spec;
    if (flags.kernel == "auto") {
      const Recommendation choice = chooseAuto(backend, data.a, data.b, spec);
      noteAuto(backend, choice);
      options.start.kernel = std::string(choice.kernel->id);
    }
  } else {
    options.start.spec = flags.problem.toSpec(defaultSizeFor(backend));
  }
  if (options.start.kernel.empty()) {
    options.start.kernel = flags.kernel.empty() ? defaultKernel(backend) : std::string(kernelInfo(flags.kernel).id);
  }
  const KernelInfo& kernel = kernelInfo(options.start.kernel);
  options.start.patternGranularity =
      flags.patternGranularity > 0 ? flags.patternGranularity : (kernel.usesAPattern() ? kernel.aRowGranularity : 32);
  if (options.start.patternGranularity < 1) throw InputError("--pattern-granularity must be at least 1");
  if (!backend.implements(kernel.id)) {
    note("backend '" + std::string(backend.name()) + "' does not implement " + std::string(kernel.id) +
         ": showing its skip map and teaching mode without timings");
  }
  opened.clear();  // the viewer's session opens its own
  options.teach = flags.teach || !flags.teachBlock.empty() || flags.teachKBlock >= 0;
  if (!flags.teachBlock.empty()) options.teachBlock = parseBlock(flags.teachBlock);
  options.teachKBlock = flags.teachKBlock;
  options.start.measuring = !flags.noTiming;
  options.screenshot = flags.screenshot;
  if (!flags.layout.empty() && flags.screenshot.empty()) throw InputError("--layout goes with --screenshot");
  options.layoutJson = flags.layout;
  if (flags.frames < 1) throw InputError("--frames must be at least 1");
  options.frames = flags.frames;
  if (flags.screenshot.empty() && flags.framesOption->count() > 0) options.windowFrames = flags.frames;
  options.width = flags.width;
  options.height = flags.height;
  return ui::runViewer(options);
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
                  "rows/columns per tile of the pattern heatmaps (default: the kernel's)");
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
  app->add_option("--teach-kblock", flags->teachKBlock, "K-block to stop at (default: the first worth pointing at)");
  return {app, [flags] { return runViewCommand(*flags); }};
}

}  // namespace tileskip::cli
