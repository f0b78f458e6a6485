// `tileskip view` end to end with no GPU and no display: --screenshot renders the UI offscreen on
// lavapipe and writes a PNG, which these tests read back with stb_image. They check the picture
// has the expected size and shows the panels, and that the skip map shows the difference
// between a dense and a sparse problem; with the fake backend (a simulated GPU) in-process, that
// the throughput plot draws the kernel beside the dense reference, and never a wrong kernel.
// Also the documented exits without Vulkan or a display.
#include <gtest/gtest.h>

// The decoder is compiled in here from stb's header, so the test binary needs no libstb.
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb_image.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <nlohmann/json.hpp>

#include "core/model/generators.hpp"
#include "core/io/matrix_io.hpp"
#include "fake_backend.hpp"
#include "run_command.hpp"
#include "ui/viewer.hpp"

namespace fs = std::filesystem;

namespace {

using tileskip::testing::Outcome;

#ifdef TILESKIP_VIEW_CHILD_ENV
constexpr const char* kChildEnvironment = TILESKIP_VIEW_CHILD_ENV " ";  // see tests/CMakeLists.txt
#else
constexpr const char* kChildEnvironment = "";
#endif

Outcome run(const std::string& command) { return tileskip::testing::runCommand(kChildEnvironment + command); }

fs::path scratch() { return tileskip::testing::scratchFolder("tileskip_view_test_"); }

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgba;

  std::array<int, 3> at(int x, int y) const {
    std::size_t i = (static_cast<std::size_t>(y) * width + x) * 4;
    return {rgba[i], rgba[i + 1], rgba[i + 2]};
  }
};

Image load(const fs::path& png) {
  Image image;
  int channels = 0;
  unsigned char* pixels = stbi_load(png.c_str(), &image.width, &image.height, &channels, 4);
  if (pixels == nullptr) return image;
  image.rgba.assign(pixels, pixels + static_cast<std::size_t>(image.width) * image.height * 4);
  stbi_image_free(pixels);
  return image;
}

struct Rect {
  int x = 0, y = 0, width = 0, height = 0;
};

std::map<std::string, Rect> loadLayout(const fs::path& json) {
  std::ifstream in(json);
  nlohmann::json panels = nlohmann::json::parse(in);
  std::map<std::string, Rect> layout;
  for (auto& [name, r] : panels.items()) {
    layout[name] = {static_cast<int>(r["x"].get<double>()), static_cast<int>(r["y"].get<double>()),
                    static_cast<int>(r["width"].get<double>()), static_cast<int>(r["height"].get<double>())};
  }
  return layout;
}

// Distinct colours in a region, and the fraction of its pixels that differ from the most common one.
struct RegionStats {
  std::size_t colours = 0;
  double notBackground = 0.0;
  double meanLuma = 0.0;
};

RegionStats stats(const Image& image, const Rect& r) {
  std::map<int, int> counts;
  double luma = 0.0;
  int pixels = 0;
  for (int y = r.y; y < r.y + r.height; ++y) {
    for (int x = r.x; x < r.x + r.width; ++x) {
      auto [red, green, blue] = image.at(x, y);
      counts[(red << 16) | (green << 8) | blue] += 1;
      luma += 0.2126 * red + 0.7152 * green + 0.0722 * blue;
      pixels += 1;
    }
  }
  int common = 0;
  for (auto& [colour, n] : counts) common = std::max(common, n);
  return {counts.size(), 1.0 - static_cast<double>(common) / pixels, luma / pixels};
}

// Fraction of pixels in a region that differ between two images.
double differing(const Image& a, const Image& b, const Rect& r) {
  int differ = 0;
  for (int y = r.y; y < r.y + r.height; ++y) {
    for (int x = r.x; x < r.x + r.width; ++x) differ += a.at(x, y) != b.at(x, y);
  }
  return static_cast<double>(differ) / (static_cast<double>(r.width) * r.height);
}

struct Shot {
  Outcome outcome;
  Image image;
  std::map<std::string, Rect> layout;
  nlohmann::json facts;
};

Shot screenshotAt(const std::string& name, const std::string& flags, int width, int height) {
  fs::path png = scratch() / (name + ".png"), json = scratch() / (name + ".json"), facts = scratch() / (name + ".facts.json");
  Shot shot;
  shot.outcome = run(std::string(TILESKIP_BINARY) + " view --backend cpu --size 192 --width " + std::to_string(width) +
                     " --height " + std::to_string(height) + " --screenshot " + png.string() + " --layout " + json.string() +
                     " --facts " + facts.string() + " " + flags);
  if (shot.outcome.exitCode == 0) {
    shot.image = load(png);
    shot.layout = loadLayout(json);
    std::ifstream in(facts);
    shot.facts = nlohmann::json::parse(in);
  }
  fs::remove(png);
  fs::remove(json);
  fs::remove(facts);
  return shot;
}

struct Shot;
Shot screenshotAt(const std::string& name, const std::string& flags, int width, int height);

Shot screenshot(const std::string& name, const std::string& flags) { return screenshotAt(name, flags, 1280, 800); }

void expectPanelsShown(const Shot& shot, std::initializer_list<const char*> panels) {
  ASSERT_EQ(shot.outcome.exitCode, 0) << shot.outcome.output;
  ASSERT_EQ(shot.image.width, 1280);
  ASSERT_EQ(shot.image.height, 800);
  RegionStats whole = stats(shot.image, {0, 0, 1280, 800});
  EXPECT_GT(whole.colours, 100u) << "a nearly single-coloured picture";
  for (const char* name : panels) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(shot.layout.count(name)) << "panel missing from the layout";
    const Rect& r = shot.layout.at(name);
    ASSERT_GT(r.width, 100);
    ASSERT_GT(r.height, 100);
    ASSERT_LE(r.x + r.width, 1280);
    ASSERT_LE(r.y + r.height, 800);
    RegionStats s = stats(shot.image, r);
    EXPECT_GT(s.colours, 20u) << "blank panel";
    EXPECT_GT(s.notBackground, 0.05) << "panel holds almost nothing but its background";
  }
}

}  // namespace

TEST(ViewScreenshot, DenseAndSparseShowThePanelsAndDifferInTheSkipMap) {
  Shot dense = screenshot("dense", "--kernel joint-8x32 --density-a 1 --density-b 1");
  Shot sparse = screenshot("sparse", "--kernel joint-8x32 --density-a 0.15 --density-b 0.15");
  expectPanelsShown(dense, {"left column", "skip map", "throughput", "matrices"});
  expectPanelsShown(sparse, {"left column", "skip map", "throughput", "matrices"});
  // The map's cells, where both pictures drew them.
  const Rect& d = dense.layout.at("skip map cells");
  const Rect& s = sparse.layout.at("skip map cells");
  Rect cells{std::max(d.x, s.x), std::max(d.y, s.y), 0, 0};
  cells.width = std::min(d.x + d.width, s.x + s.width) - cells.x;
  cells.height = std::min(d.y + d.height, s.y + s.height) - cells.y;
  ASSERT_GT(cells.width, 200);
  ASSERT_GT(cells.height, 200);
  EXPECT_GT(differing(dense.image, sparse.image, cells), 0.5);
  // Dense keeps every update: the whole map sits at the top of the scale (yellow, bright);
  // sparse keeps few, near its dark end.
  EXPECT_GT(stats(dense.image, cells).meanLuma, 150.0);
  EXPECT_LT(stats(sparse.image, cells).meanLuma, 100.0);
  EXPECT_NE(dense.outcome.output.find("wrote"), std::string::npos);
}

TEST(ViewScreenshot, TeachingModeShowsTheBlockWalkAndTheSource) {
  Shot teach = screenshot("teach", "--kernel joint-8x32 --density-a 0.4 --density-b 0.4 --teach --teach-block 1,1 --teach-kblock 3");
  expectPanelsShown(teach, {"left column", "teaching", "source"});
  EXPECT_FALSE(teach.layout.count("skip map"));
}

// Your own matrices in the viewer: --a/--b set the sizes (192 here, as the helper's --size), and
// auto picks the kernel it opens with.
TEST(ViewScreenshot, FileOperandsWithAutoOpenOnTheChosenKernel) {
  tileskip::GeneratorOptions options;
  options.block = 64;
  const fs::path a = scratch() / "a.npy", b = scratch() / "b.npy";
  using tileskip::Operand;
  tileskip::writeMatrix(a, tileskip::generate("blocks", Operand::A, 192, 192, 0.5, 3, options));
  tileskip::writeMatrix(b, tileskip::generate("blocks", Operand::B, 192, 192, 0.5, 4, options));
  Shot files = screenshot("files", "--kernel auto --a " + a.string() + " --b " + b.string());
  expectPanelsShown(files, {"left column", "skip map"});
  EXPECT_NE(files.outcome.output.find("auto: cpu runs cpu"), std::string::npos) << files.outcome.output;
  EXPECT_NE(files.outcome.output.find("A: " + a.string()), std::string::npos) << files.outcome.output;
}

// --- the lesson's flags, views and presenting ------------------------------------------------

namespace {

int pixelsOf(const Image& image, const Rect& r, std::array<int, 3> colour);  // below

bool inside(const Rect& inner, const Rect& outer) {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width &&
         inner.y + inner.height <= outer.y + outer.height;
}

}  // namespace

// Every dense step has a view, reached by --teach-view (or by default for its kernel), and it
// draws: the picture is there, inside the teaching panel, in many colours.
TEST(ViewLesson, EveryDenseViewHasAFlagAndRenders) {
  const std::pair<const char*, const char*> views[] = {
      {"naive", "coalescing"}, {"smem", "smem"}, {"blocktile2d", "registers"}, {"warptile", "warp"}, {"pipelined", "pipeline"}};
  for (auto [kernel, view] : views) {
    SCOPED_TRACE(std::string(kernel) + " / " + view);
    Shot shot = screenshot(std::string("lesson_") + view,
                           std::string("--no-timing --density-a 1 --density-b 1 --kernel ") + kernel + " --teach-view " + view);
    expectPanelsShown(shot, {"teaching", "source"});
    ASSERT_TRUE(shot.layout.count("lesson view")) << "no lesson view drawn";
    const Rect& picture = shot.layout.at("lesson view");
    EXPECT_TRUE(inside(picture, shot.layout.at("teaching")));
    EXPECT_GT(picture.width * picture.height, 20000);
    EXPECT_GT(stats(shot.image, picture).colours, 20u);
    EXPECT_EQ(shot.facts["teach"]["view"], view);
    EXPECT_EQ(shot.facts["mode"], "teach");
  }
  // The walk draws no dense picture; a view that cannot describe a kernel is refused.
  Shot walk = screenshot("lesson_walk", "--no-timing --kernel joint-8x32 --teach-view walk");
  ASSERT_EQ(walk.outcome.exitCode, 0) << walk.outcome.output;
  EXPECT_FALSE(walk.layout.count("lesson view"));
  Outcome o = run(std::string(TILESKIP_BINARY) + " view --backend cpu --size 64 --kernel pipelined --teach-view coalescing "
                                                 "--screenshot " + (scratch() / "x.png").string());
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("coalescing"), std::string::npos) << o.output;
}

// The tensor cores' view: one MMA's operands in the lanes' colours and the block's steps, for every
// kernel on tensor cores (the dense ones open on it); a kernel on FMAs is refused it.
TEST(ViewLesson, TheTensorCoreViewDrawsOneMmasFragmentsAndTheStepsTheWarpsIssue) {
  constexpr std::array<int, 3> kWorkGreen = {80, 200, 120}, kSkipGrey = {70, 74, 86};
  const std::string blocks = "--no-timing --generator blocks --block 64 --density-a 0.5 --density-b 0.5 ";
  const std::pair<const char*, std::string> cases[] = {
      {"mma", "--no-timing --density-a 1 --density-b 1 --dtype fp16 --kernel mma --teach"},
      {"mma_tf32", "--no-timing --density-a 1 --density-b 1 --dtype tf32 --kernel mma --teach"},
      {"wgmma", "--no-timing --density-a 1 --density-b 1 --dtype bf16 --kernel wgmma --teach"},
      {"s10", blocks + "--dtype bf16 --kernel mma-joint-64x32 --teach-view mma"},
      {"s11", blocks + "--dtype bf16 --kernel wgmma-joint-64x64 --teach-view mma"},
  };
  std::map<std::string, Shot> shots;
  for (const auto& [name, flags] : cases) {
    SCOPED_TRACE(name);
    Shot shot = screenshot(std::string("lesson_mma_") + name, flags);
    expectPanelsShown(shot, {"teaching", "source"});
    ASSERT_TRUE(shot.layout.count("lesson view")) << "no lesson view drawn";
    const Rect& picture = shot.layout.at("lesson view");
    EXPECT_TRUE(inside(picture, shot.layout.at("teaching")));
    EXPECT_GT(stats(shot.image, picture).colours, 32u) << "the 32 lanes' colours";
    EXPECT_EQ(shot.facts["teach"]["view"], "mma");
    EXPECT_GT(pixelsOf(shot.image, picture, kWorkGreen), 50) << "the steps the warps issue";
    shots.emplace(name, std::move(shot));
  }
  // The skipping kernel's strip shows warps that skip a step (grey cells), the dense kernel's none
  // (its grey is the antialiased edges of dim text).
  auto grey = [&](const char* name) { return pixelsOf(shots.at(name).image, shots.at(name).layout.at("lesson view"), kSkipGrey); };
  EXPECT_GT(grey("s10"), grey("mma") + 200);
  // tf32's MMA is half as deep: a different picture of the same kernel.
  const Rect& picture = shots.at("mma").layout.at("lesson view");
  EXPECT_GT(differing(shots.at("mma").image, shots.at("mma_tf32").image, picture), 0.05);
  Outcome o = run(std::string(TILESKIP_BINARY) + " view --backend cpu --size 64 --kernel pipelined --teach-view mma "
                                                 "--screenshot " + (scratch() / "x.png").string());
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("tensor cores"), std::string::npos) << o.output;
}

// The dense half is not nagged to choose a skipping kernel, and K1 is not said to use shared
// memory: the facts say which stage label the text shows.
TEST(ViewLesson, DenseStepsCarryTheirOwnTextAndTheRecordedLadderWithoutAGpu) {
  Shot k1 = screenshot("lesson_k1", "--no-timing --density-a 1 --density-b 1 --kernel naive --teach");
  ASSERT_EQ(k1.outcome.exitCode, 0) << k1.outcome.output;
  EXPECT_EQ(k1.facts["teach"]["stage"]["stages"], 0);
  EXPECT_EQ(k1.facts["dense"]["coalescing"]["A"]["sectors"], 16);
  // The cpu backend is no GPU: the recorded H200 ladder is drawn in the dense kernels' colour.
  constexpr std::array<int, 3> kDenseBlue = {90, 170, 255};
  EXPECT_GT(pixelsOf(k1.image, k1.layout.at("teaching"), kDenseBlue), 500);
  Shot k11 = screenshot("lesson_k11", "--no-timing --density-a 1 --density-b 1 --kernel pipelined --teach --teach-kblock 3");
  ASSERT_EQ(k11.outcome.exitCode, 0) << k11.outcome.output;
  EXPECT_EQ(k11.facts["teach"]["stage"]["stages"], 2);
  EXPECT_EQ(k11.facts["teach"]["stage"]["buffer"], 1);  // K-tile 3 of a two-stage loop, not "stage 3"
}

TEST(ViewLesson, UiScaleGrowsTextAndWidgetsAndChangesTheLayout) {
  Shot plain = screenshot("scale1", "--no-timing --kernel joint-8x32");
  Shot large = screenshot("scale15", "--no-timing --kernel joint-8x32 --ui-scale 1.5");
  ASSERT_EQ(plain.outcome.exitCode, 0) << plain.outcome.output;
  ASSERT_EQ(large.outcome.exitCode, 0) << large.outcome.output;
  const Rect& a = plain.layout.at("left column");
  const Rect& b = large.layout.at("left column");
  EXPECT_NEAR(b.width, a.width * 1.5, 2.0);
  EXPECT_GT(large.layout.at("skip map").y, plain.layout.at("skip map").y) << "a taller top bar";
  EXPECT_GT(differing(plain.image, large.image, {0, 0, 1280, 800}), 0.2);
  EXPECT_EQ(large.facts["ui_scale"], 1.5);
  Outcome o = run(std::string(TILESKIP_BINARY) + " view --backend cpu --size 64 --ui-scale 9 --screenshot " + (scratch() / "x.png").string());
  EXPECT_EQ(o.exitCode, 2) << o.output;
}

// A projector's 1280 x 720: the step's verdict (the divergence message) stays whole and on screen.
TEST(ViewLesson, TheKeyMessageStaysVisibleAt1280x720) {
  for (const char* scale : {"1", "1.25"}) {
    SCOPED_TRACE(scale);
    Shot shot = screenshotAt(std::string("small") + scale,
                             std::string("--no-timing --kernel a-row --block 8 --teach --ui-scale ") + scale, 1280, 720);
    ASSERT_EQ(shot.outcome.exitCode, 0) << shot.outcome.output;
    ASSERT_GT(shot.facts["teach"]["now"]["diverge"].get<int>(), 0) << "the step shown must diverge";
    ASSERT_TRUE(shot.layout.count("key message"));
    const Rect& message = shot.layout.at("key message");
    EXPECT_TRUE(inside(message, shot.layout.at("teaching"))) << message.y << "+" << message.height;
    EXPECT_LE(message.y + message.height, 720);
    constexpr std::array<int, 3> kDivergeRed = {240, 90, 80};
    EXPECT_GT(pixelsOf(shot.image, message, kDivergeRed), 60) << "the red divergence text";
  }
}

// A clicker's PageDown / PageUp and the keyboard's arrows and space step the walk.
TEST(ViewLesson, PresenterKeysStepTheWalk) {
  Shot shot = screenshot("keys", "--no-timing --kernel joint-8x32 --teach --teach-kblock 3 --press PageDown,PageDown,Space,PageUp");
  ASSERT_EQ(shot.outcome.exitCode, 0) << shot.outcome.output;
  EXPECT_EQ(shot.facts["teach"]["kblock"], 5);
  Shot arrows = screenshot("arrows", "--no-timing --kernel joint-8x32 --teach --teach-kblock 3 --press Right,Left,Left,Home,End");
  ASSERT_EQ(arrows.outcome.exitCode, 0) << arrows.outcome.output;
  EXPECT_EQ(arrows.facts["teach"]["kblock"], arrows.facts["teach"]["kblocks"].get<int>() - 1);
  Outcome o = run(std::string(TILESKIP_BINARY) + " view --backend cpu --size 64 --press F5 --screenshot " + (scratch() / "x.png").string());
  EXPECT_EQ(o.exitCode, 2) << o.output;
}

// Explore's other views by flag: loads per block tile, and a tile's read-out kept shown.
TEST(ViewLesson, TheLoadsMapAndATilesReadOutHaveFlags) {
  Shot work = screenshot("map_work", "--no-timing --kernel joint-8x32 --generator blocks --block 64");
  Shot loads = screenshot("map_loads", "--no-timing --kernel joint-8x32 --generator blocks --block 64 --map loads");
  ASSERT_EQ(loads.outcome.exitCode, 0) << loads.outcome.output;
  EXPECT_EQ(loads.facts["map"], "loads");
  const Rect& cells = loads.layout.at("skip map cells");
  EXPECT_GT(differing(work.image, loads.image, cells), 0.1);
  Shot tile = screenshot("tile", "--no-timing --kernel joint-8x32 --select-tile 3,2");
  ASSERT_EQ(tile.outcome.exitCode, 0) << tile.outcome.output;
  ASSERT_TRUE(tile.layout.count("tile read-out"));
  const Rect& readOut = tile.layout.at("tile read-out");
  EXPECT_GT(readOut.width, 200);
  EXPECT_GT(stats(tile.image, readOut).colours, 10u);
  EXPECT_FALSE(work.layout.count("tile read-out"));
  Outcome o = run(std::string(TILESKIP_BINARY) + " view --backend cpu --size 64 --kernel joint-8x32 --select-tile 8,0 --screenshot " +
                  (scratch() / "x.png").string());
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("ROW 0..7"), std::string::npos) << o.output;
}

TEST(ViewScreenshot, OutOfRangeTeachingFlagsAreBadInputNotClamped) {
  const std::string view = std::string(TILESKIP_BINARY) + " view --backend cpu --size 256 --kernel joint-8x32 --screenshot " +
                           (scratch() / "x.png").string();
  Outcome o = run(view + " --teach-block 99,99");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("ROW 0..1, COL 0..1"), std::string::npos) << o.output;
  o = run(view + " --teach-kblock 32");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("0..31"), std::string::npos) << o.output;
  // A negative K-block or granularity is bad input too, not the default in disguise.
  o = run(view + " --teach-kblock -1");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("--teach-kblock"), std::string::npos) << o.output;
  o = run(view + " --pattern-granularity -8");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("--pattern-granularity"), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(scratch() / "x.png"));
}

// --facts alone computes the figures without drawing: no viewer module needed.
TEST(ViewLesson, FactsAloneNeedNoViewer) {
  fs::path facts = scratch() / "alone.json";
  Outcome o = run("TILESKIP_VIEW_MODULE=/nonexistent/libtileskip_view.so " + std::string(TILESKIP_BINARY) +
                  " view --backend cpu --size 256 --kernel joint-8x32 --block 8 --facts " + facts.string());
  ASSERT_EQ(o.exitCode, 0) << o.output;
  std::ifstream in(facts);
  nlohmann::json json = nlohmann::json::parse(in);
  EXPECT_EQ(json["teach"]["subtiles_per_warp"], 16);
  EXPECT_GT(json["skip_map"]["joint_density"].get<double>(), 0.0);
  ASSERT_EQ(json["kernels"].size(), 1u);
  EXPECT_EQ(json["kernels"][0]["kernel"], "joint-8x32");
  EXPECT_EQ(json["kernels"][0]["status"], "not run");
  fs::remove(facts);
}

TEST(ViewScreenshot, BadFlagsAreBadInput) {
  Outcome o = run(std::string(TILESKIP_BINARY) + " view --backend cpu --size 64 --teach-block 1-2 --screenshot /tmp/x.png");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("ROW,COL"), std::string::npos) << o.output;
  o = run(std::string(TILESKIP_BINARY) + " view --backend cpu --size 64 --kernel warpdrive --screenshot /tmp/x.png");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  o = run(std::string(TILESKIP_BINARY) + " view --backend all --size 64 --screenshot /tmp/x.png");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("one backend at a time"), std::string::npos) << o.output;
  o = run(std::string(TILESKIP_BINARY) + " view --backend cpu --size 64 --screenshot /nonexistent/dir/x.png");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("cannot write"), std::string::npos) << o.output;
}

TEST(ViewScreenshot, NoVulkanDriverIsUnavailable) {
  Outcome o = run("VK_ICD_FILENAMES=/nonexistent/icd.json VK_DRIVER_FILES=/nonexistent/icd.json " + std::string(TILESKIP_BINARY) +
                  " view --backend cpu --size 64 --screenshot " + (scratch() / "none.png").string());
  EXPECT_EQ(o.exitCode, 3) << o.output;
  EXPECT_NE(o.output.find("Vulkan"), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(scratch() / "none.png"));
}

TEST(ViewScreenshot, NoDisplayWithoutScreenshotSaysWhatToDo) {
  Outcome o = run("env -u DISPLAY -u WAYLAND_DISPLAY " + std::string(TILESKIP_BINARY) + " view --backend cpu --size 64");
  EXPECT_EQ(o.exitCode, 3) << o.output;
  EXPECT_NE(o.output.find("--screenshot"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("xvfb-run"), std::string::npos) << o.output;
}

// The viewer is a module the executable loads for `view`. Where it cannot be loaded, `view`
// exits with 3 naming what is missing and the packages to install, draws nothing, and
// everything else still runs: here `list` and `bench`, with the same environment.
namespace {

void expectViewUnavailableAndTheRestRuns(const std::string& environment, const std::string& missing) {
  const std::string tileskip = environment + " " + std::string(TILESKIP_BINARY);
  Outcome o = run(tileskip + " view --backend cpu --size 64 --screenshot " + (scratch() / "none.png").string());
  EXPECT_EQ(o.exitCode, 3) << o.output;
  EXPECT_NE(o.output.find(missing), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("apt install libvulkan1 libglfw3 libstb0 libx11-6"), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(scratch() / "none.png"));
  o = run(tileskip + " list");
  EXPECT_EQ(o.exitCode, 0) << o.output;
  o = run(tileskip + " bench --backend cpu --size 64 --repeat 1");
  EXPECT_EQ(o.exitCode, 0) << o.output;
}

}  // namespace

TEST(ViewModule, WithoutItsModuleViewSaysWhatIsMissingAndWhatToInstall) {
  expectViewUnavailableAndTheRestRuns("TILESKIP_VIEW_MODULE=/nonexistent/libtileskip_view.so",
                                      "/nonexistent/libtileskip_view.so");
}

// A machine whose GLFW cannot be loaded, made here by putting an empty libglfw.so.3 first on
// the library path. An executable that linked GLFW would not even start.
TEST(ViewModule, WithoutGlfwViewSaysWhatIsMissingAndWhatToInstall) {
  fs::path broken = scratch() / "broken_glfw";
  fs::create_directories(broken);
  std::ofstream(broken / "libglfw.so.3").flush();
  expectViewUnavailableAndTheRestRuns("LD_LIBRARY_PATH=" + broken.string(), (broken / "libglfw.so.3").string());
  fs::remove_all(broken);
}

namespace {

// The row of each pixel of one colour (give or take anti-aliasing) inside a rectangle.
std::vector<int> rowsOf(const Image& image, const Rect& r, std::array<int, 3> colour) {
  std::vector<int> rows;
  for (int y = r.y; y < r.y + r.height; ++y) {
    for (int x = r.x; x < r.x + r.width; ++x) {
      auto p = image.at(x, y);
      if (std::abs(p[0] - colour[0]) + std::abs(p[1] - colour[1]) + std::abs(p[2] - colour[2]) <= 12) rows.push_back(y);
    }
  }
  return rows;
}

int pixelsOf(const Image& image, const Rect& r, std::array<int, 3> colour) {
  return static_cast<int>(rowsOf(image, r, colour).size());
}

Shot fakeScreenshot(const std::string& name, tileskip::testing::FakeFaults faults) {
  tileskip::ui::ViewerOptions options;
  options.start.backend = "fake";
  options.start.kernel = "joint-8x32";
  options.start.spec.m = options.start.spec.n = options.start.spec.k = 96;
  options.start.spec.generator = "uniform";
  options.start.spec.densityA = options.start.spec.densityB = 0.02;  // many K-blocks hold a single product
  options.screenshot = (scratch() / (name + ".png")).string();
  options.layoutJson = (scratch() / (name + ".json")).string();
  options.factsJson = (scratch() / (name + ".facts.json")).string();
  options.width = 1280;
  options.height = 800;
  tileskip::ui::ViewerBackends backends{{"fake"}, [faults](const std::string&) -> std::unique_ptr<tileskip::Backend> {
                                          return std::make_unique<tileskip::testing::FakeBackend>(faults);
                                        }};
  Shot shot;
  shot.outcome.exitCode = tileskip::ui::runViewer(options, backends);
  shot.image = load(options.screenshot);
  shot.layout = loadLayout(options.layoutJson);
  std::ifstream facts(options.factsJson);
  shot.facts = nlohmann::json::parse(facts);
  fs::remove(options.screenshot);
  fs::remove(options.layoutJson);
  fs::remove(options.factsJson);
  return shot;
}

}  // namespace

TEST(ViewScreenshot, ThroughputDrawsTheKernelBesideTheDenseReferenceButNeverAWrongKernel) {
  constexpr std::array<int, 3> kKernelOrange = {255, 140, 50}, kDenseBlue = {90, 170, 255};
  Shot good = fakeScreenshot("fake_good", {});
  Shot wrong = fakeScreenshot("fake_wrong", {.skipSingleProducts = true});
  expectPanelsShown(good, {"throughput"});
  expectPanelsShown(wrong, {"throughput"});
  const Rect& panel = good.layout.at("throughput");
  // Both draw the dense reference's line; only the verified kernel gets a line and a measured
  // speedup bar, the wrong one keeps just its legend swatch.
  EXPECT_GT(pixelsOf(good.image, panel, kDenseBlue), 150);
  EXPECT_GT(pixelsOf(wrong.image, panel, kDenseBlue), 150);
  int goodOrange = pixelsOf(good.image, panel, kKernelOrange);
  int wrongOrange = pixelsOf(wrong.image, panel, kKernelOrange);
  EXPECT_GT(goodOrange, 5 * std::max(wrongOrange, 1)) << goodOrange << " vs " << wrongOrange;
}

// A kernel the device refuses (lavapipe's loop limit, on the fake device) is "refused" with the
// device's reason, in the facts and in the picture, never the red FAILED of a wrong answer;
// a wrong kernel is "failed".
TEST(ViewScreenshot, ARefusedKernelIsNeverShownAsFailed) {
  Shot refused = fakeScreenshot("fake_refused", {.refused = {"joint-8x32"}});
  Shot wrong = fakeScreenshot("fake_wrong_facts", {.skipSingleProducts = true});
  ASSERT_EQ(refused.outcome.exitCode, 0);
  ASSERT_EQ(wrong.outcome.exitCode, 0);
  auto outcome = [](const Shot& shot, const std::string& kernel) {
    for (const nlohmann::json& k : shot.facts.at("kernels")) {
      if (k.at("kernel") == kernel) return k;
    }
    return nlohmann::json();
  };
  nlohmann::json joint = outcome(refused, "joint-8x32");
  EXPECT_EQ(joint["status"], "refused") << joint;
  EXPECT_EQ(joint["reason"], tileskip::testing::fakeRefusal(tileskip::kernelInfo("joint-8x32")));
  EXPECT_EQ(outcome(refused, std::string(tileskip::kDenseReferenceKernel))["status"], "verified");
  EXPECT_EQ(outcome(wrong, "joint-8x32")["status"], "failed");
  EXPECT_NE(outcome(wrong, "joint-8x32")["reason"].get<std::string>().find("wrong C"), std::string::npos);
  // The red of FAILED appears in the wrong kernel's picture only; the refusal is in amber.
  constexpr std::array<int, 3> kFailedRed = {240, 90, 80}, kRefusedAmber = {245, 170, 60};
  const Rect whole{0, 0, 1280, 800};
  EXPECT_GT(pixelsOf(wrong.image, whole, kFailedRed), 20);
  EXPECT_EQ(pixelsOf(refused.image, whole, kFailedRed), 0);
  EXPECT_GT(pixelsOf(refused.image, whole, kRefusedAmber), 20);
}

// A baseline far faster than the kernels being compared (the host's BLAS beside lavapipe) is
// named above the plot rather than drawn, so the kernel's line keeps the plot's height instead
// of lying on its floor.
TEST(ViewScreenshot, ABaselineFarAboveTheKernelsLeavesThemTheWholeScale) {
  constexpr std::array<int, 3> kKernelOrange = {255, 140, 50};
  Shot shot = fakeScreenshot("fake_fast_baseline", {.baselineMillisecondsPerRun = 0.0005});
  expectPanelsShown(shot, {"throughput"});
  ASSERT_TRUE(shot.layout.count("throughput plot"));
  const Rect& plot = shot.layout.at("throughput plot");
  std::vector<int> rows = rowsOf(shot.image, plot, kKernelOrange);
  ASSERT_GT(rows.size(), 50u) << "no kernel line in the plot";
  // The kernel is the fastest series on the scale: its line runs in the plot's upper half.
  double meanRow = std::accumulate(rows.begin(), rows.end(), 0.0) / static_cast<double>(rows.size());
  EXPECT_LT(meanRow, plot.y + plot.height * 0.5) << "plot rows " << plot.y << ".." << plot.y + plot.height;
}
