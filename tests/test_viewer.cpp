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

#include "core/generators.hpp"
#include "core/matrix_io.hpp"
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
};

Shot screenshot(const std::string& name, const std::string& flags) {
  fs::path png = scratch() / (name + ".png"), json = scratch() / (name + ".json");
  Shot shot;
  shot.outcome = run(std::string(TILESKIP_BINARY) + " view --backend cpu --size 192 --width 1280 --height 800 --screenshot " +
                     png.string() + " --layout " + json.string() + " " + flags);
  if (shot.outcome.exitCode == 0) {
    shot.image = load(png);
    shot.layout = loadLayout(json);
  }
  fs::remove(png);
  fs::remove(json);
  return shot;
}

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
  options.granularity = 64;
  const fs::path a = scratch() / "a.npy", b = scratch() / "b.npy";
  using tileskip::Operand;
  tileskip::writeMatrix(a, tileskip::generate("blocks", Operand::A, 192, 192, 0.5, 3, options));
  tileskip::writeMatrix(b, tileskip::generate("blocks", Operand::B, 192, 192, 0.5, 4, options));
  Shot files = screenshot("files", "--kernel auto --a " + a.string() + " --b " + b.string());
  expectPanelsShown(files, {"left column", "skip map"});
  EXPECT_NE(files.outcome.output.find("auto: cpu runs cpu"), std::string::npos) << files.outcome.output;
  EXPECT_NE(files.outcome.output.find("A: " + a.string()), std::string::npos) << files.outcome.output;
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
  options.width = 1280;
  options.height = 800;
  tileskip::ui::ViewerBackends backends{{"fake"}, [faults](const std::string&) -> std::unique_ptr<tileskip::Backend> {
                                          return std::make_unique<tileskip::testing::FakeBackend>(faults);
                                        }};
  Shot shot;
  shot.outcome.exitCode = tileskip::ui::runViewer(options, backends);
  shot.image = load(options.screenshot);
  shot.layout = loadLayout(options.layoutJson);
  fs::remove(options.screenshot);
  fs::remove(options.layoutJson);
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
