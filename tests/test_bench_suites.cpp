#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/measure/bench_suites.hpp"
#include "core/measure/suite_activations.hpp"
#include "core/measure/suite_blocksparse.hpp"
#include "core/measure/sweep_plot.hpp"
#include "core/model/error.hpp"
#include "fake_backend.hpp"
#include "run_command.hpp"
#include "scoped_env.hpp"

using namespace tileskip;
using tileskip::testing::FakeBackend;
using tileskip::testing::ScopedEnv;

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
  // No time-based warm-up: the fake has no clock to settle, and 500 ms of its 2 ms runs per kernel
  // is minutes under the sanitizers.
  HeadlineReport report = runHeadlineSuite({&cuda}, {.size = 128, .warmup = 0, .repeat = 1, .warmupMilliseconds = 0.0});
  ASSERT_EQ(report.measures.size(), 17u);
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
  // The tensor-core lines, from the fake's mma kernels: dense as fast as cuBLAS, the joint one in
  // proportion to the work it keeps; the fake has no Vulkan twin, which that line says.
  ASSERT_TRUE(report.measures[8].value.has_value()) << report.measures[8].detail;
  EXPECT_NEAR(*report.measures[8].value, 1.0, 1e-9);
  EXPECT_NE(report.measures[8].measure.find("bf16"), std::string::npos);
  EXPECT_FALSE(report.measures[9].value.has_value());
  EXPECT_NE(report.measures[9].detail.find("vulkan mma"), std::string::npos) << report.measures[9].detail;
  for (std::size_t i : {10u, 11u}) {
    ASSERT_TRUE(report.measures[i].value.has_value()) << report.measures[i].detail;
    EXPECT_GT(*report.measures[i].value, 1.0) << report.measures[i].measure;
    EXPECT_NE(report.measures[i].detail.find("end to end"), std::string::npos) << report.measures[i].detail;
  }
  EXPECT_GT(*report.measures[11].value, *report.measures[10].value);  // sparser, faster
  // The portable joint kernel is reported; the targets are the Hopper kernel's, below the packed ceiling.
  EXPECT_EQ(report.measures[11].target, "(reported)");
  EXPECT_FALSE(report.measures[11].met().has_value());
  // The Hopper lines: the fake has no wgmma kernels, and they say so instead of a number.
  for (std::size_t i : {12u, 13u, 14u, 15u}) {
    EXPECT_FALSE(report.measures[i].value.has_value()) << report.measures[i].measure;
    EXPECT_NE(report.measures[i].detail.find("wgmma"), std::string::npos) << report.measures[i].detail;
  }
  EXPECT_EQ(report.measures[13].target, ">= 1.8");
  EXPECT_EQ(report.measures[14].target, ">= 5");
  EXPECT_EQ(report.runs.size(), 12u);
  EXPECT_EQ(report.runs[11].problem.dtype, DType::Tf32);
  EXPECT_NE(report.measures[15].measure.find("TF32"), std::string::npos);
  // The portable kernel's tf32 line, from the fake's mma: as fast as cuBLAS, end to end beside.
  ASSERT_TRUE(report.measures[16].value.has_value()) << report.measures[16].detail;
  EXPECT_NEAR(*report.measures[16].value, 1.0, 1e-9);
  EXPECT_NE(report.measures[16].measure.find("(mma) / cuBLAS TF32"), std::string::npos) << report.measures[16].measure;
  EXPECT_NE(report.measures[16].detail.find("end to end"), std::string::npos) << report.measures[16].detail;
  EXPECT_EQ(report.runs[7].problem.dtype, DType::Bf16);
  EXPECT_EQ(report.runs[8].problem.dtype, DType::Fp16);
  for (const BenchReport& run : report.runs) {
    for (const BenchRow& row : run.rows) EXPECT_TRUE(row.verified) << row.kernel << ": " << row.failure;
  }
  std::string table = formatHeadlineTable(report);
  EXPECT_NE(table.find(">= 0.95"), std::string::npos);
  nlohmann::json json = nlohmann::json::parse(formatHeadlineJson(report));
  EXPECT_EQ(json["measures"].size(), 17u);
  EXPECT_EQ(json["runs"].size(), 12u);
  // Each measure has an id a CI system can key on, unique, and a number to gate on with its direction.
  std::set<std::string> ids;
  for (const nlohmann::json& m : json["measures"]) {
    const std::string id = m["id"].get<std::string>();
    EXPECT_FALSE(id.empty()) << m["measure"];
    EXPECT_EQ(id.find(' '), std::string::npos) << id;
    EXPECT_TRUE(ids.insert(id).second) << "id twice: " << id;
    if (m["target"] == "(reported)") {
      EXPECT_TRUE(m["threshold"].is_null() && m["op"].is_null()) << id;
    } else {
      ASSERT_TRUE(m["threshold"].is_number()) << id;
      EXPECT_EQ(m["target"], m["op"].get<std::string>() + " " + m["target"].get<std::string>().substr(3)) << id;
      EXPECT_DOUBLE_EQ(m["threshold"].get<double>(), std::stod(m["target"].get<std::string>().substr(3))) << id;
    }
  }
  EXPECT_EQ(json["measures"][0]["id"], "dense-cuda-vs-cublas");
  EXPECT_EQ(json["measures"][7]["op"], "<=");  // pattern preprocessing: at most
}

TEST(HeadlineSuite, MetComparesInTheTargetsDirection) {
  HeadlineMeasure atLeast{"m", ">= 2", 1.5, 2.0, false, "", "m"};
  EXPECT_EQ(atLeast.met(), false);
  HeadlineMeasure atMost{"m", "<= 0.02", 0.01, 0.02, true, "", "m"};
  EXPECT_EQ(atMost.met(), true);
  HeadlineMeasure unmeasured{"m", ">= 2", std::nullopt, 2.0, false, "", "m"};
  EXPECT_FALSE(unmeasured.met().has_value());
}

TEST(SweepSuite, PointsCsvAndPlot) {
  FakeBackend cuda({}, "cuda");
  SweepOptions options;
  options.sizes = {128, 256};
  options.densities = {1.0, 0.5, 0.35};
  options.warmup = 0;
  options.repeat = 1;
  // The fake is a "GPU": without this each kernel would warm up for 100 runs of a CPU GEMM
  // (26 s here, 119 s under ASan), which this test does not check.
  options.warmupMilliseconds = 0.0;
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
  // The provenance docs/results.md promises, api and warmup_ms last (a CSV grows only at its end),
  // with a value in every row.
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_TRUE(header.ends_with(",tolerance,host,api,warmup_ms")) << header;
  const std::string firstRow = csv.substr(header.size() + 1, csv.find('\n', header.size() + 1) - header.size() - 1);
  EXPECT_TRUE(firstRow.ends_with("," + report.points[0].api + ",0")) << firstRow;  // warm-up of 0 ms asked for above
  std::filesystem::path dir = tileskip::testing::scratchFolder("tileskip_sweep_");
  std::ofstream(dir / "sweep.csv") << csv;
  std::filesystem::remove(dir / "sweep.png");
  PlotOutcome plot = drawSweepPlot(dir / "sweep.csv", dir / "sweep.png");
  ASSERT_TRUE(plot.drawn) << plot.whyNot;
  std::string bytes = fileBytes(dir / "sweep.png");
  ASSERT_GT(bytes.size(), 10000u);
  ASSERT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  // Two panels side by side with the legend below: wider than tall, and large enough to read.
  auto u32 = [&](std::size_t at) {
    return (std::uint32_t(std::uint8_t(bytes[at])) << 24) | (std::uint32_t(std::uint8_t(bytes[at + 1])) << 16) |
           (std::uint32_t(std::uint8_t(bytes[at + 2])) << 8) | std::uint32_t(std::uint8_t(bytes[at + 3]));
  };
  EXPECT_EQ(bytes.substr(12, 4), "IHDR");
  EXPECT_GT(u32(16), 900u);
  EXPECT_GT(u32(20), 400u);
  EXPECT_GT(u32(16), u32(20));
}

// Regression: a plot that cannot be written whole leaves nothing behind.
TEST(SweepPlot, AFailedWriteThrowsAndLeavesNoPartialPng) {
  std::filesystem::path dir = tileskip::testing::scratchFolder("tileskip_plot_full_");
  SweepReport report;
  report.points.push_back({.backend = "fake", .kernel = "joint-64x32", .size = 64, .density = 0.5, .jointDensity = 0.25,
                           .milliseconds = 1.0, .denseMilliseconds = 4.0, .speedup = 4.0, .idealSpeedup = 4.0,
                           .loadBoundSpeedup = 2.0, .vsBaseline = 1.0, .driver = "", .api = "", .tuneOverrides = "", .tolerance = 0.0});
  std::ofstream(dir / "points.csv") << formatSweepCsv(report);
  if (::access("/dev/full", W_OK) == 0) {
    EXPECT_THROW(drawSweepPlot(dir / "points.csv", "/dev/full"), InputError);
  }
  // On a file system with a file size limit: the temporary is removed and no target appears.
  std::filesystem::path png = dir / "plot.png";  // beside plot.csv
  std::filesystem::remove(png);
  // 24 KiB: the CSV (about 10 KiB) fits, matplotlib's PNG (more than 40 KiB) does not. SIGXFSZ
  // ignored: the write fails instead.
  tileskip::testing::Outcome o = tileskip::testing::runCommand(
      "bash -c \"ulimit -f 24; trap '' XFSZ; exec " + std::string(TILESKIP_BINARY) +  // bash: KiB, not dash's 512-byte blocks
      " bench --backend vulkan --suite sweep --size 16 --warmup 0 --repeat 1 --out " + (dir / "plot.csv").string() + "\"");
  if (o.exitCode == 3) GTEST_SKIP() << "needs a kernel backend for the sweep: " << o.output;
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("plot.png: writing failed"), std::string::npos) << o.output;
  EXPECT_FALSE(std::filesystem::exists(png)) << o.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "plot.csv")) << "the CSV is written first, whole";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
  }
}

// Without matplotlib the sweep's CSV stands, the run succeeds, and it says that no plot was
// drawn and what to install; a CSV that is no sweep is bad input.
TEST(SweepPlot, WithoutMatplotlibTheCsvStandsAndTheCommandSaysWhatToInstall) {
  std::filesystem::path dir = tileskip::testing::scratchFolder("tileskip_plot_missing_");
  // python3 -S leaves out site-packages, where Debian's matplotlib is.
  std::filesystem::path python = dir / "python-without-site";
  std::ofstream(python) << "#!/bin/sh\nexec python3 -S \"$@\"\n";
  std::filesystem::permissions(python, std::filesystem::perms::owner_all);
  SweepReport report;
  report.points.push_back({.backend = "fake", .kernel = "joint-64x32", .size = 64, .density = 0.5, .jointDensity = 0.25,
                           .milliseconds = 1.0, .denseMilliseconds = 4.0, .speedup = 4.0, .idealSpeedup = 4.0,
                           .loadBoundSpeedup = 2.0, .vsBaseline = 1.0, .driver = "", .api = "", .tuneOverrides = "", .tolerance = 0.0});
  std::ofstream(dir / "points.csv") << formatSweepCsv(report);
  {
    ScopedEnv withoutSite(kPythonVariable, python.c_str());
    PlotOutcome plot = drawSweepPlot(dir / "points.csv", dir / "points.png");
    EXPECT_FALSE(plot.drawn);
    EXPECT_NE(plot.whyNot.find("matplotlib is missing"), std::string::npos) << plot.whyNot;
    EXPECT_NE(plot.whyNot.find("python3-matplotlib"), std::string::npos) << plot.whyNot;
    EXPECT_FALSE(std::filesystem::exists(dir / "points.png"));
  }
  {
    ScopedEnv noPython(kPythonVariable, (dir / "no-such-python").c_str());
    PlotOutcome plot = drawSweepPlot(dir / "points.csv", dir / "points.png");
    EXPECT_FALSE(plot.drawn);
    EXPECT_NE(plot.whyNot.find("could not be run"), std::string::npos) << plot.whyNot;
  }
  {
    ScopedEnv noScript(kPlotScriptVariable, (dir / "no-such-script.py").c_str());
    EXPECT_FALSE(drawSweepPlot(dir / "points.csv", dir / "points.png").drawn);
  }
  std::ofstream(dir / "other.csv") << "a,b\n1,2\n";
  EXPECT_THROW(drawSweepPlot(dir / "other.csv", dir / "other.png"), InputError);
  EXPECT_FALSE(std::filesystem::exists(dir / "other.png"));

  std::filesystem::path csv = dir / "sweep.csv";
  tileskip::testing::Outcome o = tileskip::testing::runCommand(
      std::string(kPythonVariable) + "=" + python.string() + " " + TILESKIP_BINARY +
      " bench --backend vulkan --suite sweep --size 16 --warmup 0 --repeat 1 --out " + csv.string());
  if (o.exitCode == 3) GTEST_SKIP() << "needs a kernel backend for the sweep: " << o.output;
  EXPECT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("no plot drawn: matplotlib is missing"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("apt install python3-matplotlib"), std::string::npos) << o.output;
  EXPECT_GT(std::filesystem::file_size(csv), 1000u);
  EXPECT_FALSE(std::filesystem::exists(dir / "sweep.png"));
}

// Gates: --fail-on-target turns a missed target into exit 4; a failed verification
// still says 1, and a target nothing here could measure is no miss.
TEST(HeadlineSuite, ExitCodeGatesOnMissedTargetsOnlyWhenAsked) {
  HeadlineReport report;
  HeadlineMeasure met{.measure = "met", .target = ">= 0.5", .value = 0.9, .threshold = 0.5, .atMost = false, .detail = "", .id = "met"};
  HeadlineMeasure unmeasured{.measure = "unmeasured", .target = ">= 0.5", .value = std::nullopt, .threshold = 0.5, .atMost = false,
                             .detail = "", .id = "unmeasured"};
  report.measures = {met, unmeasured};
  EXPECT_EQ(headlineExitCode(report, true), 0);
  EXPECT_TRUE(missedTargets(report).empty());

  report.measures.push_back({.measure = "dense / cuBLAS", .target = ">= 0.95", .value = 0.83, .threshold = 0.95, .atMost = false, .detail = "",
                             .id = "dense"});
  report.measures.push_back({.measure = "prep / dense", .target = "<= 0.05", .value = 0.04, .threshold = 0.05, .atMost = true, .detail = "",
                             .id = "prep"});
  EXPECT_EQ(headlineExitCode(report, false), 0);
  EXPECT_EQ(headlineExitCode(report, true), static_cast<int>(ExitCode::TargetMissed));
  EXPECT_EQ(static_cast<int>(ExitCode::TargetMissed), 4);
  ASSERT_EQ(missedTargets(report).size(), 1u);
  EXPECT_EQ(missedTargets(report)[0], "dense / cuBLAS: 0.830, target >= 0.95");

  BenchReport run;
  BenchRow wrong;
  wrong.failure = "verification failed";
  wrong.failureCode = ExitCode::VerificationFailed;
  run.rows.push_back(wrong);
  report.runs.push_back(run);
  EXPECT_EQ(headlineExitCode(report, true), static_cast<int>(ExitCode::VerificationFailed));
}

TEST(HeadlineSuite, JsonCarriesItsSchemaAndTheToolThatMadeIt) {
  HeadlineReport report;
  report.options.warmup = 3;
  report.options.repeat = 7;
  nlohmann::json doc = nlohmann::json::parse(formatHeadlineJson(report));
  EXPECT_EQ(doc["schema"], "tileskip.headline/1");
  EXPECT_EQ(doc["dtype"], "fp32");
  EXPECT_FALSE(doc["tool"]["version"].get<std::string>().empty());
  EXPECT_FALSE(doc["tool"]["commit"].get<std::string>().empty());
  EXPECT_EQ(doc["timing"]["warmup"], 3);
  EXPECT_EQ(doc["timing"]["repeat"], 7);
}

// The blocksparse suite on a backend like CUDA: each case's kernels against the vendor GEMM of the
// same run and the packed ceiling (the vendor GEMM on K' = K · joint density), in the suite's dtype.
TEST(BlocksparseSuite, TimesEveryCaseAgainstItsVendorGemmAndThePackedCeiling) {
  FakeBackend cuda({}, "cuda");
  const BlocksparseOptions options{.size = 256, .dtype = DType::Bf16, .blocks = {32, 64}, .warmup = 0, .repeat = 1,
                                   .warmupMilliseconds = 0.0};
  const BlocksparseReport report = runBlocksparseSuite({&cuda}, options);
  ASSERT_EQ(report.cases.size(), 10u);  // per block edge: A alone at 0.5, 0.25, 0.1; A and B at 0.5 and 0.25
  EXPECT_EQ(blocksparseExitCode(report), 0);
  for (const BlocksparseCase& c : report.cases) {
    const std::string name = c.shape.name();
    EXPECT_EQ(c.baseline, "cublas") << name;
    ASSERT_TRUE(c.baselineMs.has_value() && c.ceilingMs.has_value()) << name;
    EXPECT_EQ(c.packedK % kKBlock, 0) << name;
    EXPECT_GE(c.packedK, kKBlock) << name;
    EXPECT_LE(c.packedK, options.size) << name;
    // A alone keeps the products of A's non-zero blocks; both keep a block pair's.
    const double expected = c.shape.densityA * c.shape.densityB;
    EXPECT_NEAR(c.jointDensity, expected, 0.2) << name;
    EXPECT_TRUE(c.failures.empty()) << name << ": " << c.failures.front();
    ASSERT_FALSE(c.kernels.empty()) << name;
    int autos = 0;
    for (const BlocksparseKernel& k : c.kernels) {
      EXPECT_TRUE(kernelInfo(k.kernel).takes(DType::Bf16)) << name << " " << k.kernel;
      EXPECT_DOUBLE_EQ(k.e2eMs, k.kernelMs + k.prepareMs);  // the rounding to bf16 apart:
      EXPECT_EQ(k.roundingMs, tileskip::testing::FakeProblem::kRoundingMs) << name << " " << k.kernel;
      // A kept: a joint kernel builds B's pattern per call, a dense one nothing.
      const KernelInfo& info = kernelInfo(k.kernel);
      ASSERT_TRUE(k.e2eStaticAMs.has_value()) << name << " " << k.kernel;
      EXPECT_DOUBLE_EQ(*k.e2eStaticAMs, k.kernelMs + (info.usesBPattern() ? tileskip::testing::FakeProblem::kKeepingAMs : 0.0))
          << name << " " << k.kernel;
      autos += !k.autoReason.empty();
      if (k.kernelMs == 0.0) {  // the fake's skipping kernel where no block survives: no ratio to report
        EXPECT_FALSE(k.speedup || k.ceilingFraction) << name << " " << k.kernel;
        continue;
      }
      ASSERT_TRUE(k.speedup && k.ceilingFraction) << name << " " << k.kernel;
      EXPECT_DOUBLE_EQ(*k.speedup, *c.baselineMs / k.kernelMs);
      EXPECT_DOUBLE_EQ(*k.ceilingFraction, *c.ceilingMs / k.kernelMs);
      // A skipping kernel's own ceiling is the dense kernel of its loop on the packed problem.
      if (info.skips()) {
        EXPECT_EQ(k.ownCeiling, info.needsHopper() ? "wgmma" : "mma") << name << " " << k.kernel;
        ASSERT_TRUE(k.ownCeilingMs && k.ownCeilingFraction) << name << " " << k.kernel;
        EXPECT_GT(*k.ownCeilingMs, 0.0);
        EXPECT_DOUBLE_EQ(*k.ownCeilingFraction, *k.ownCeilingMs / k.kernelMs);
      } else {
        EXPECT_TRUE(k.ownCeiling.empty() && !k.ownCeilingMs && !k.ownCeilingFraction) << name << " " << k.kernel;
      }
    }
    EXPECT_EQ(autos, 1) << name << ": auto's choice is one kernel of the case";
    EXPECT_TRUE(std::is_sorted(c.kernels.begin(), c.kernels.end(),
                               [](const BlocksparseKernel& x, const BlocksparseKernel& y) { return x.kernelMs < y.kernelMs; }));
  }
  // The fake's joint kernel takes time in proportion to the work it keeps: at A = B = 0.25 in blocks
  // its 64 x 32 pattern tiles fit, it is well past the vendor GEMM.
  const BlocksparseCase& sparsest = report.cases[9];
  ASSERT_TRUE(sparsest.shape.joint() && sparsest.shape.densityA == 0.25 && sparsest.shape.block == 64);
  EXPECT_EQ(sparsest.kernels.front().kernel, "mma-joint-64x32");
  EXPECT_GT(*sparsest.kernels.front().speedup, 2.0);

  const nlohmann::json doc = nlohmann::json::parse(formatBlocksparseJson(report));
  EXPECT_EQ(doc["schema"], kBlocksparseSchema);
  EXPECT_EQ(doc["dtype"], "bf16");
  ASSERT_EQ(doc["cases"].size(), report.cases.size());
  for (std::size_t i = 0; i < report.cases.size(); ++i) {
    const nlohmann::json& c = doc["cases"][i];
    const BlocksparseCase& expected = report.cases[i];
    EXPECT_EQ(c["case"], expected.shape.name());
    EXPECT_EQ(c["block"], expected.shape.block);
    EXPECT_EQ(c["density_a"], expected.shape.densityA);
    EXPECT_EQ(c["density_b"], expected.shape.densityB);
    EXPECT_EQ(c["joint_density"], expected.jointDensity);
    EXPECT_EQ(c["cublas_ms"], *expected.baselineMs);
    EXPECT_EQ(c["ceiling_ms"], *expected.ceilingMs);
    ASSERT_EQ(c["kernels"].size(), expected.kernels.size());
    for (std::size_t j = 0; j < expected.kernels.size(); ++j) {
      const nlohmann::json& k = c["kernels"][j];
      EXPECT_EQ(k["kernel"], expected.kernels[j].kernel);
      EXPECT_EQ(k["kernel_ms"], expected.kernels[j].kernelMs);
      EXPECT_EQ(k["e2e_ms"], expected.kernels[j].e2eMs);
      const auto orNull = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
      EXPECT_EQ(k["e2e_static_a_ms"], *expected.kernels[j].e2eStaticAMs);
      EXPECT_EQ(k["own_ceiling_fraction"], orNull(expected.kernels[j].ownCeilingFraction));
      EXPECT_EQ(k["own_ceiling"], expected.kernels[j].ownCeiling.empty() ? nlohmann::json(nullptr)
                                                                          : nlohmann::json(expected.kernels[j].ownCeiling));
      EXPECT_EQ(k["rounding_ms"], expected.kernels[j].roundingMs);
      EXPECT_EQ(k["speedup"], orNull(expected.kernels[j].speedup));
      EXPECT_EQ(k["ceiling_fraction"], orNull(expected.kernels[j].ceilingFraction));
      EXPECT_EQ(k["predicted_speedup"], orNull(expected.kernels[j].predictedSpeedup));
    }
  }
  EXPECT_EQ(doc["runs"].size(), report.runs.size());
}

// A suite where no backend has a kernel for the dtype (Vulkan and the host asked for bf16) is refused
// before it runs, instead of writing cases with nothing in them.
TEST(CeilingSuites, RefuseADtypeNoBackendTakes) {
  FakeBackend host({.fp32Only = true}, "host");
  try {
    runActivationsSuite({&host}, {.size = 64, .dtype = DType::Bf16});
    FAIL() << "no backend takes bf16";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--suite activations: no selected backend has a kernel that takes bf16"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(runBlocksparseSuite({&host}, {.size = 64, .dtype = DType::Bf16}), InputError);
  EXPECT_NO_THROW(runBlocksparseSuite({&host}, {.size = 16, .dtype = DType::Fp32, .blocks = {8}, .warmup = 0, .repeat = 1, .warmupMilliseconds = 0.0}));
}

TEST(BlocksparseSuite, RefusesABlockEdgeThatIsNotPositive) {
  FakeBackend cuda({}, "cuda");
  EXPECT_THROW(runBlocksparseSuite({&cuda}, {.size = 64, .blocks = {0}}), InputError);
}

// The activations suite: spread-out zeros from the neurons generator (and a dense A, and LLaMA-2-7B's
// down projection scaled to the size), each case's kernels against the vendor GEMM of the same run
// and the packed ceiling of its live columns (K' = K x the live fraction at the compaction height).
TEST(ActivationsSuite, MeasuresEachCaseAgainstItsLiveColumnsPackedCeiling) {
  FakeBackend cuda({}, "cuda");
  // Beside it a backend with nothing for bf16 (as the host's), which has no kernel and no layer to
  // run, and, listed first, one without cuBLAS (as Vulkan in fp16), whose layer has no baseline.
  FakeBackend host({.fp32Only = true}, "host");
  FakeBackend vulkan({.millisecondsPerRun = 3.0, .noCublas = true}, "vulkan");
  const ActivationsOptions options{.size = 128, .dtype = DType::Bf16, .warmup = 0, .repeat = 1, .warmupMilliseconds = 0.0};
  const ActivationsReport report = runActivationsSuite({&vulkan, &cuda, &host}, options);
  // A dense A, then exponents 1, 1.5, 2, 2.5 and the down projection, each as generated and sorted by firing.
  ASSERT_EQ(report.cases.size(), 11u);
  EXPECT_EQ(activationsExitCode(report), 0);
  EXPECT_EQ(compactionRowHeight(), kernelInfo("compact-mma-64").aGranularity);
  EXPECT_EQ(report.cases.front().liveFraction, 1.0);
  EXPECT_FALSE(report.cases.front().shape.sorted);
  EXPECT_TRUE(report.cases.back().shape.llamaDownProjection);
  EXPECT_EQ(report.cases.back().shape.k, 128 * 11008 / 4096);
  // A steeper power law leaves fewer live columns.
  EXPECT_LT(report.cases[7].liveFraction, report.cases[1].liveFraction);
  EXPECT_LT(report.cases[1].liveFraction, 1.0);
  for (std::size_t i = 1; i < report.cases.size(); i += 2) {
    const ActivationsCase &generated = report.cases[i], &sorted = report.cases[i + 1];
    const std::string name = sorted.shape.name();
    ASSERT_FALSE(generated.shape.sorted);
    ASSERT_TRUE(sorted.shape.sorted) << name;
    EXPECT_NE(name.find(", sorted by firing, "), std::string::npos) << name;
    EXPECT_EQ(sorted.shape.skew, generated.shape.skew) << name;
    // A permutation of K keeps each tile's count of live columns, and gathers them into fewer
    // 8-column groups where the firing is skewed (at exponent 1 every group of 64 tokens stays live).
    EXPECT_NEAR(sorted.liveFraction, generated.liveFraction, 1e-12) << name;
    if (sorted.shape.skew >= 1.5) {
      EXPECT_LT(sorted.liveGroupFraction, generated.liveGroupFraction) << name;
    } else {
      EXPECT_LE(sorted.liveGroupFraction, generated.liveGroupFraction) << name;
    }
    EXPECT_GE(sorted.liveGroupFraction, sorted.liveFraction) << name;
  }
  for (const ActivationsCase& c : report.cases) {
    const std::string name = c.shape.name();
    // The kernels' pattern bits and inspect's scan count the same columns.
    EXPECT_NEAR(c.liveFraction, c.predictedLiveFraction, 1e-12) << name;
    const CeilingMeasurement& m = c.measured;
    EXPECT_EQ(m.baseline, "cublas") << name;
    ASSERT_TRUE(m.baselineMs && m.ceilingMs) << name;
    EXPECT_EQ(m.packedK, std::max(kKBlock, static_cast<int>(std::lround(c.shape.k * c.liveFraction / kKBlock)) * kKBlock)) << name;
    EXPECT_TRUE(m.failures.empty()) << name << ": " << m.failures.front();
    const auto compact = std::find_if(m.kernels.begin(), m.kernels.end(), [](const CeilingKernel& k) { return k.kernel == "compact-mma-64"; });
    ASSERT_NE(compact, m.kernels.end()) << name;
    EXPECT_EQ(compact->ownCeiling, "mma") << name << ": a gathered ring's own ceiling is K13's ring";
  }
  const nlohmann::json doc = nlohmann::json::parse(formatActivationsJson(report));
  EXPECT_EQ(doc["schema"], kActivationsSchema);
  EXPECT_EQ(doc["dtype"], "bf16");
  ASSERT_EQ(doc["cases"].size(), report.cases.size());
  for (std::size_t i = 0; i < report.cases.size(); ++i) {
    const nlohmann::json& c = doc["cases"][i];
    const ActivationsCase& expected = report.cases[i];
    EXPECT_EQ(c["case"], expected.shape.name());
    EXPECT_EQ(c["k"], expected.shape.k);
    EXPECT_EQ(c["live_fraction"], expected.liveFraction);
    EXPECT_EQ(c["predicted_live_fraction"], expected.predictedLiveFraction);
    EXPECT_EQ(c["live_group_fraction"], expected.liveGroupFraction);
    EXPECT_EQ(c["sorted"], expected.shape.sorted);
    EXPECT_EQ(c["cublas_ms"], *expected.measured.baselineMs);
    EXPECT_EQ(c["ceiling_ms"], *expected.measured.ceilingMs);
    ASSERT_EQ(c["kernels"].size(), expected.measured.kernels.size());
    for (const nlohmann::json& k : c["kernels"]) {
      for (const char* field : {"kernel", "kernel_ms", "e2e_ms", "speedup", "ceiling_fraction", "predicted_speedup"}) {
        EXPECT_TRUE(k.contains(field)) << field;
      }
      // inspect's prediction over the vendor GEMM, on the vendor GEMM's backend: 1 for itself.
      if (k["backend"] != "cuda") {
        EXPECT_TRUE(k["predicted_speedup"].is_null()) << k["backend"] << " " << k["kernel"];
        continue;
      }
      ASSERT_TRUE(k["predicted_speedup"].is_number()) << k["kernel"];
      if (k["kernel"] == "cublas") {
        EXPECT_DOUBLE_EQ(k["predicted_speedup"].get<double>(), 1.0);
      } else {
        EXPECT_GT(k["predicted_speedup"].get<double>(), 0.0) << k["kernel"];
      }
    }
  }
  EXPECT_NE(formatActivationsTable(report).find("compact-mma-64"), std::string::npos);

  // The down projection's cases also run their whole layer, beside the vendor GEMM twice; the
  // sorted one in `mlp --reorder`'s neuron order.
  // Vulkan's layer first (the backends' order), without a baseline; the JSON's mlp_ms and
  // two_cublas_ms are CUDA's, the layer beside cuBLAS.
  ASSERT_EQ(report.cases[9].layers.size(), 2u);
  EXPECT_TRUE(report.cases[9].shape.llamaDownProjection);
  const ActivationsCase& llama = report.cases.back();
  ASSERT_EQ(llama.layers.size(), 2u);
  EXPECT_EQ(llama.layers.front().backend, "vulkan");
  EXPECT_EQ(llama.layers.front().baseline, "");
  EXPECT_FALSE(llama.layers.front().baselineMs);
  const LayerMeasurement& layer = llama.layers.back();
  EXPECT_EQ(layer.backend, "cuda");
  EXPECT_FALSE(layer.fused);  // the fake backend fuses nothing
  EXPECT_NEAR(layer.hiddenDensity, 0.1, 0.03);
  EXPECT_GT(layer.mlpMs, 0.0);
  EXPECT_EQ(layer.baseline, "cublas");
  ASSERT_TRUE(layer.baselineMs);
  const nlohmann::json& last = doc["cases"].back();
  EXPECT_EQ(last["mlp_ms"], layer.mlpMs);
  EXPECT_EQ(last["two_cublas_ms"], *layer.baselineMs);
  ASSERT_EQ(last["layers"].size(), 2u);
  EXPECT_EQ(last["layers"][1]["second"], layer.second);
  EXPECT_TRUE(last["layers"][0]["baseline_ms"].is_null());
  for (std::size_t i = 0; i + 2 < report.cases.size(); ++i) {
    EXPECT_TRUE(report.cases[i].layers.empty());
    EXPECT_TRUE(doc["cases"][i]["mlp_ms"].is_null());
    EXPECT_TRUE(doc["cases"][i]["two_cublas_ms"].is_null());
  }
  EXPECT_NE(formatActivationsTable(report).find("the whole layer, relu(X·W1)·W2 (128 tokens, 128 -> 344 -> 128"), std::string::npos)
      << formatActivationsTable(report);
}
