#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include "core/bench_suites.hpp"
#include "core/canvas.hpp"
#include "core/error.hpp"
#include "fake_backend.hpp"
#include "run_command.hpp"

using namespace tileskip;
using tileskip::testing::FakeBackend;

namespace {

std::string fileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST(HeadlineSuite, MeasuresEveryTargetAsARatioFromOneRun) {
  // The fake's skipping kernels take time in proportion to the work they keep and its dense
  // kernels 2 ms, like cuBLAS: the ratios follow from the joint densities alone.
  FakeBackend cuda({}, "cuda");
  HeadlineReport report = runHeadlineSuite({&cuda}, {.size = 128, .warmup = 0, .repeat = 1});
  ASSERT_EQ(report.measures.size(), 8u);
  const HeadlineMeasure& dense = report.measures[0];
  ASSERT_TRUE(dense.value.has_value());
  EXPECT_NEAR(*dense.value, 1.0, 1e-9);
  EXPECT_EQ(dense.met(), true);
  EXPECT_FALSE(report.measures[1].value.has_value());  // no vulkan backend: said, not invented
  EXPECT_NE(report.measures[1].detail.find("vulkan"), std::string::npos);
  const HeadlineMeasure& joint = report.measures[2];  // density 0.5, block-aligned
  ASSERT_TRUE(joint.value.has_value());
  EXPECT_GT(*joint.value, 2.5);  // ideal for the fake: about 1 / 0.25
  EXPECT_EQ(joint.met(), true);
  EXPECT_FALSE(report.measures[3].met().has_value());  // the unaligned line is reported, not judged
  const HeadlineMeasure& efficiency = report.measures[6];
  ASSERT_TRUE(efficiency.value.has_value());
  EXPECT_NEAR(*efficiency.value, 1.0, 1e-6);  // the fake skips perfectly
  EXPECT_EQ(report.runs.size(), 7u);
  for (const BenchReport& run : report.runs) {
    for (const BenchRow& row : run.rows) EXPECT_TRUE(row.verified) << row.kernel << ": " << row.failure;
  }
  std::string table = formatHeadlineTable(report);
  EXPECT_NE(table.find(">= 0.95"), std::string::npos);
  nlohmann::json json = nlohmann::json::parse(formatHeadlineJson(report));
  EXPECT_EQ(json["measures"].size(), 8u);
  EXPECT_EQ(json["runs"].size(), 7u);
}

TEST(HeadlineSuite, MetComparesInTheTargetsDirection) {
  HeadlineMeasure atLeast{"m", ">= 2", 1.5, 2.0, false, ""};
  EXPECT_EQ(atLeast.met(), false);
  HeadlineMeasure atMost{"m", "<= 0.02", 0.01, 0.02, true, ""};
  EXPECT_EQ(atMost.met(), true);
  HeadlineMeasure unmeasured{"m", ">= 2", std::nullopt, 2.0, false, ""};
  EXPECT_FALSE(unmeasured.met().has_value());
}

TEST(SweepSuite, PointsCsvAndPlot) {
  FakeBackend cuda({}, "cuda");
  SweepOptions options;
  options.sizes = {128, 256};
  options.densities = {1.0, 0.5, 0.35};
  options.warmup = 0;
  options.repeat = 1;
  SweepReport report = runSweepSuite({&cuda}, options);
  EXPECT_TRUE(report.failures.empty());
  // pipelined and three joint kernels at 2 sizes x 3 densities (cuBLAS is the baseline, not a point).
  EXPECT_EQ(report.points.size(), 4u * 2 * 3);
  for (const SweepPoint& p : report.points) {
    EXPECT_GT(p.speedup, 0.0);
    EXPECT_GE(p.loadBoundSpeedup, 1.0);
    if (p.kernel != "pipelined") {
      EXPECT_NEAR(p.speedup, p.idealSpeedup, 1e-6);  // the fake is ideal
    }
  }
  std::string csv = formatSweepCsv(report);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + static_cast<long>(report.points.size()));
  std::filesystem::path png = tileskip::testing::scratchFolder("tileskip_sweep_") / "sweep.png";
  writeSweepPlot(report, png.string());
  std::string bytes = fileBytes(png);
  ASSERT_GT(bytes.size(), 1000u);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
}

TEST(Canvas, WritesAValidPngThatInflatesToItsPixels) {
  Canvas canvas(70, 30);
  canvas.line(0, 0, 69, 29, {255, 0, 0}, 2);
  canvas.text(2, 2, "tileskip", {0, 0, 0});
  canvas.pixel(69, 0, {1, 2, 3});
  std::filesystem::path png = tileskip::testing::scratchFolder("tileskip_canvas_") / "c.png";
  canvas.savePng(png.string());
  std::string bytes = fileBytes(png);
  ASSERT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  // Walk the chunks: each CRC must hold, IHDR says 70x30 8-bit RGB, IDAT inflates to the rows.
  auto u32 = [&](std::size_t at) {
    return (std::uint32_t(std::uint8_t(bytes[at])) << 24) | (std::uint32_t(std::uint8_t(bytes[at + 1])) << 16) |
           (std::uint32_t(std::uint8_t(bytes[at + 2])) << 8) | std::uint32_t(std::uint8_t(bytes[at + 3]));
  };
  std::vector<std::string> types;
  std::string idat;
  for (std::size_t at = 8; at + 12 <= bytes.size();) {
    std::uint32_t length = u32(at);
    std::string type = bytes.substr(at + 4, 4);
    const auto* covered = reinterpret_cast<const Bytef*>(bytes.data() + at + 4);
    EXPECT_EQ(u32(at + 8 + length), crc32(0L, covered, length + 4)) << type;
    if (type == "IHDR") {
      EXPECT_EQ(u32(at + 8), 70u);
      EXPECT_EQ(u32(at + 12), 30u);
      EXPECT_EQ(bytes.substr(at + 16, 2), std::string("\x08\x02", 2));
    }
    if (type == "IDAT") idat += bytes.substr(at + 8, length);
    types.push_back(type);
    at += 12 + length;
  }
  EXPECT_EQ(types, (std::vector<std::string>{"IHDR", "IDAT", "IEND"}));
  std::vector<std::uint8_t> raw(30 * (1 + 70 * 3) + 1);
  uLongf rawSize = raw.size();
  ASSERT_EQ(uncompress(raw.data(), &rawSize, reinterpret_cast<const Bytef*>(idat.data()), idat.size()), Z_OK);
  ASSERT_EQ(rawSize, 30u * (1 + 70 * 3));
  auto at = [&](int x, int y) { return raw.data() + y * (1 + 70 * 3) + 1 + x * 3; };
  for (int y = 0; y < 30; ++y) EXPECT_EQ(raw[y * (1 + 70 * 3)], 0) << "row " << y << " filter";
  EXPECT_EQ(std::vector<std::uint8_t>(at(0, 0), at(0, 0) + 3), (std::vector<std::uint8_t>{255, 0, 0}));
  EXPECT_EQ(std::vector<std::uint8_t>(at(69, 0), at(69, 0) + 3), (std::vector<std::uint8_t>{1, 2, 3}));
  EXPECT_LT(idat.size(), rawSize / 4) << "a mostly blank plot deflates well";
  EXPECT_THROW(canvas.savePng("/nonexistent-dir/c.png"), InputError);
}

// Issue 14, defect 8: a plot that cannot be written completely is an error and leaves no
// partial PNG (a full disk, /dev/full); the sweep's plot goes through the same AtomicFile.
TEST(Canvas, AFailedWriteThrowsAndLeavesNoPartialPng) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full";
  Canvas canvas(300, 200);
  canvas.line(0, 0, 299, 199, {255, 0, 0}, 2);
  EXPECT_THROW(canvas.savePng("/dev/full"), InputError);
  // On a file system with a file size limit: the temporary is removed and no target appears.
  std::filesystem::path dir = tileskip::testing::scratchFolder("tileskip_canvas_full_");
  std::filesystem::path png = dir / "plot.png";  // beside plot.csv
  std::filesystem::remove(png);
  // 6 KiB: the CSV (3 KiB) fits, the PNG (8 KiB) does not. SIGXFSZ ignored: the write fails instead.
  tileskip::testing::Outcome o = tileskip::testing::runCommand(
      "bash -c \"ulimit -f 6; trap '' XFSZ; exec " + std::string(TILESKIP_BINARY) +  // bash: KiB, not dash's 512-byte blocks
      " bench --backend vulkan --suite sweep --size 16 --warmup 0 --repeat 1 --out " + (dir / "plot.csv").string() + "\"");
  if (o.exitCode == 3) GTEST_SKIP() << "needs a kernel backend for the sweep: " << o.output;
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("plot.png: writing failed"), std::string::npos) << o.output;
  EXPECT_FALSE(std::filesystem::exists(png)) << o.output;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
  }
}
