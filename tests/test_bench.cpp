#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/measure/bench.hpp"
#include "core/io/report.hpp"
#include "fake_backend.hpp"

using namespace tileskip;
using tileskip::testing::FakeBackend;
using tileskip::testing::FakeFaults;

namespace {

BenchReport benchFake(FakeBackend& backend, std::vector<std::string> ids, ProblemSpec spec = {}) {
  spec.m = spec.n = spec.k = 96;
  std::vector<const KernelInfo*> kernels;
  for (const std::string& id : ids) kernels.push_back(&kernelInfo(id));
  return runBench({{&backend, kernels}}, spec, generateProblem(spec), {.warmup = 1, .repeat = 3});
}

}  // namespace

// The median's 95 % interval from order statistics: all the runs below six, ranks around the
// middle above, never outside the runs.
TEST(Bench, TheMediansIntervalComesFromTheOrderStatistics) {
  const Timing few = summarize({3.0, 1.0, 2.0});
  EXPECT_EQ(few.runs, 3);
  EXPECT_EQ(few.medianLow, 1.0);
  EXPECT_EQ(few.medianHigh, 3.0);
  std::vector<double> hundred;
  for (int i = 100; i >= 1; --i) hundred.push_back(i);
  const Timing many = summarize(hundred);
  EXPECT_EQ(many.median, 50.5);
  // n = 100: ranks floor(50 - 1.96 * 10 / 2) = 40 and ceil(1 + 50 + 1.96 * 10 / 2) = 61 of 1..100.
  EXPECT_EQ(many.medianLow, 40.0);
  EXPECT_EQ(many.medianHigh, 61.0);
  EXPECT_NEAR(many.spread(), 10.5 / 50.5, 1e-12);
}

// --repeat-until-stable: a device whose clock is still climbing runs on until its median is known
// within the fraction asked, and says it settled; one whose times never settle stops at the limit
// and says so. Without it the runs are --repeat's.
TEST(Bench, RepeatUntilStableRunsOnUntilTheMedianIsKnown) {
  ProblemSpec spec;
  spec.m = spec.n = spec.k = 64;
  const ProblemData data = generateProblem(spec);
  const std::vector<const KernelInfo*> dense = {&kernelInfo(kDenseReferenceKernel)};
  FakeBackend climbing({.clockRamp = true});
  const BenchReport settled = runBench({{&climbing, dense}}, spec, data, {.warmup = 0, .repeat = 5, .stableWithin = 0.02});
  ASSERT_TRUE(settled.rows[0].timed()) << settled.rows[0].failure;
  EXPECT_EQ(settled.rows[0].stable, true);
  EXPECT_GT(settled.rows[0].kernelMs.runs, 5);
  EXPECT_LE(settled.rows[0].kernelMs.spread(), 0.02);
  EXPECT_LT(settled.rows[0].kernelMs.median, 1.1 * 2.0);  // the fake's dense run at its full clock: 2 ms

  FakeBackend wandering({.wandering = true});
  const BenchReport unsettled = runBench({{&wandering, dense}}, spec, data, {.warmup = 0, .repeat = 5, .stableWithin = 0.02});
  EXPECT_EQ(unsettled.rows[0].stable, false);
  EXPECT_EQ(unsettled.rows[0].kernelMs.runs, kMaxStableRuns);
  EXPECT_NE(formatTable(unsettled).find("(unstable)"), std::string::npos);
  EXPECT_NE(formatJson(unsettled).find("\"stable\": false"), std::string::npos);

  FakeBackend plain;
  const BenchReport once = runBench({{&plain, dense}}, spec, data, {.warmup = 0, .repeat = 5});
  EXPECT_FALSE(once.rows[0].stable.has_value());
  EXPECT_EQ(once.rows[0].kernelMs.runs, 5);
  EXPECT_THROW(checkBenchOptions({.stableWithin = 1.0}), InputError);
  EXPECT_THROW(checkBenchOptions({.stableWithin = -0.01}), InputError);
}

TEST(Bench, VerifiesThenTimesAndComputesRatios) {
  FakeBackend backend;
  ProblemSpec spec;
  spec.generator = "segments";
  spec.densityA = spec.densityB = 0.5;
  BenchReport report = benchFake(backend, {std::string(kDenseReferenceKernel), "joint-8x32", "cpu"}, spec);
  ASSERT_EQ(report.rows.size(), 3u);
  const BenchRow& dense = report.rows[0];
  const BenchRow& joint = report.rows[1];
  EXPECT_TRUE(dense.verified);
  EXPECT_TRUE(joint.verified);
  EXPECT_EQ(report.baselineKernel, "cpu");
  EXPECT_DOUBLE_EQ(dense.kernelMs.median, 2.0);
  EXPECT_NEAR(dense.effectiveGflops, 2.0 * 96 * 96 * 96 / 2e6, 1e-9);
  // Segments at 0.5 each: the fake's time follows the joint density, so the skip efficiency is 1.
  EXPECT_LT(joint.jointDensity, 0.6);
  ASSERT_TRUE(joint.speedupVsDense.has_value());
  EXPECT_NEAR(*joint.speedupVsDense, 1.0 / joint.jointDensity, 1e-9);
  EXPECT_NEAR(*joint.skipEfficiency, 1.0, 1e-9);
  EXPECT_NEAR(joint.usefulGflops, joint.effectiveGflops * joint.jointDensity, 1e-9);
  EXPECT_GT(joint.prepareMs.median, 0.0);
  EXPECT_EQ(joint.roundingMs, 0.0);  // fp32 operands: no copies to round
  EXPECT_FALSE(dense.skipEfficiency.has_value());
}

// A 16-bit problem's copies of A and B are made once and reported apart from each kernel's own
// preparation, so end-to-end ratios hold only what a caller with bf16 operands would pay.
TEST(Bench, TheRoundingToSixteenBitsIsReportedApartFromPreparation) {
  FakeBackend backend;
  ProblemSpec spec;
  spec.generator = "blocks";
  spec.densityA = spec.densityB = 0.5;
  spec.dtype = DType::Bf16;
  BenchReport report = benchFake(backend, {"mma", "mma-joint-64x32"}, spec);
  ASSERT_EQ(report.rows.size(), 2u);
  for (const BenchRow& row : report.rows) {
    ASSERT_TRUE(row.verified) << row.kernel << ": " << row.failure;
    EXPECT_EQ(row.roundingMs, tileskip::testing::FakeProblem::kRoundingMs) << row.kernel;
  }
  EXPECT_EQ(report.rows[0].prepareMs.median, 0.0) << "the dense kernel prepares nothing of its own";
  EXPECT_EQ(report.rows[1].prepareMs.median, 0.01) << "the skipping kernel's patterns alone";
  const nlohmann::json json = nlohmann::json::parse(formatJson(report));
  EXPECT_EQ(json["rows"][1]["rounding_ms"], tileskip::testing::FakeProblem::kRoundingMs);
  EXPECT_EQ(json["rows"][1]["prepare_ms"]["median"], 0.01);
  // With A's pattern kept (a static weight), the joint kernel builds B's alone per call.
  ASSERT_TRUE(report.rows[1].prepareKeepingAMs.has_value());
  EXPECT_EQ(report.rows[1].prepareKeepingAMs->median, tileskip::testing::FakeProblem::kKeepingAMs);
  EXPECT_EQ(json["rows"][1]["prepare_keeping_a_ms"]["median"], tileskip::testing::FakeProblem::kKeepingAMs);
  EXPECT_EQ(json["rows"][0]["prepare_keeping_a_ms"]["median"], 0.0);
}

TEST(Bench, AWrongKernelGetsNoTime) {
  FakeBackend backend({.skipSingleProducts = true});
  ProblemSpec spec;
  spec.generator = "uniform";
  spec.densityA = spec.densityB = 0.02;  // sparse enough that many K-blocks hold one product
  BenchReport report = benchFake(backend, {"joint-8x32"}, spec);
  ASSERT_EQ(report.rows.size(), 1u);
  EXPECT_FALSE(report.rows[0].verified);
  EXPECT_FALSE(report.rows[0].timed());
  EXPECT_EQ(report.rows[0].kernelMs.median, 0.0);
  EXPECT_NE(report.rows[0].failure.find("verification failed"), std::string::npos);
  EXPECT_NE(formatTable(report).find("FAILED"), std::string::npos);
}

TEST(Bench, UnwrittenOutputFailsVerification) {
  FakeBackend backend({.leaveLastRowUnwritten = true});
  EXPECT_FALSE(benchFake(backend, {"warptile"}).rows[0].verified);
}

TEST(Bench, OnAGpuWarmUpLastsUntilTheDeviceHasWorkedLongEnough) {
  // The fake GPU reports 2 ms a run: 500 ms of warm-up is 250 runs, then 1 verification run
  // before them and 3 timed after.
  FakeBackend backend;
  ProblemSpec spec;
  spec.m = spec.n = spec.k = 32;
  std::vector<BenchTarget> targets = {{&backend, {&kernelInfo("warptile")}}};
  runBench(targets, spec, generateProblem(spec), {.warmup = 2, .repeat = 3, .warmupMilliseconds = 500.0});
  EXPECT_EQ(backend.runs(), 1 + 250 + 3);
  // Never more than kMaxWarmupRuns, however fast the kernel.
  FakeBackend fast({.millisecondsPerRun = 0.0001});
  std::vector<BenchTarget> fastTargets = {{&fast, {&kernelInfo("warptile")}}};
  runBench(fastTargets, spec, generateProblem(spec), {.warmup = 2, .repeat = 3, .warmupMilliseconds = 500.0});
  EXPECT_EQ(fast.runs(), 1 + kMaxWarmupRuns + 3);
  // The count still holds where the time is already spent.
  FakeBackend slow({.millisecondsPerRun = 500.0});
  std::vector<BenchTarget> slowTargets = {{&slow, {&kernelInfo("warptile")}}};
  runBench(slowTargets, spec, generateProblem(spec), {.warmup = 2, .repeat = 3, .warmupMilliseconds = 500.0});
  EXPECT_EQ(slow.runs(), 1 + 2 + 3);
}

TEST(Bench, OnAGpuWarmUpLastsUntilTheClockHasClimbed) {
  // The runs get 5x faster over the backend's first 64 (a GPU's clock climbing after idling),
  // past the 100 ms of the time rule here: the timed runs must all be at the full clock (2 ms).
  FakeBackend backend({.clockRamp = true});
  ProblemSpec spec;
  spec.m = spec.n = spec.k = 16;
  std::vector<BenchTarget> targets = {{&backend, {&kernelInfo("warptile")}}};
  const BenchReport report =
      runBench(targets, spec, generateProblem(spec), {.warmup = 2, .repeat = 3, .warmupMilliseconds = 100.0});
  ASSERT_TRUE(report.rows[0].timed());
  EXPECT_DOUBLE_EQ(report.rows[0].kernelMs.max, 2.0);
  // ... and warm-up stops a few runs after the climb.
  EXPECT_GT(backend.runs(), 64);
  EXPECT_LE(backend.runs(), 64 + 2 * kSettleRuns + 3);
}

TEST(Bench, WarmUpOfADeviceStillGettingFasterEndsByTheWallClock) {
  FakeBackend backend({.clockRamp = true});
  ProblemSpec spec;
  spec.m = spec.n = spec.k = 8;
  const ProblemData data = generateProblem(spec);
  auto problem = backend.upload(data.a, data.b);
  double now = -1000.0;  // a second passes between two looks at the clock
  auto clock = [&] { return now += 1000.0; };
  // One run by count, then runs while the clock reads under kMaxWarmupMilliseconds from the start.
  EXPECT_EQ(warmUp(*problem, kernelInfo("warptile"), {.warmup = 1, .warmupMilliseconds = 1.0}, true, clock),
            1 + static_cast<int>(kMaxWarmupMilliseconds / 1000.0) - 1);
  // Off a GPU the count is all there is.
  EXPECT_EQ(warmUp(*problem, kernelInfo("warptile"), {.warmup = 2, .warmupMilliseconds = 500.0}, false), 2);
}

TEST(Bench, RejectsBadRepetitions) {
  FakeBackend backend;
  ProblemSpec spec;
  std::vector<BenchTarget> targets = {{&backend, {&kernelInfo("warptile")}}};
  EXPECT_THROW(runBench(targets, spec, generateProblem(spec), {.warmup = 0, .repeat = 0}), InputError);
}

TEST(Reports, TableCsvAndJsonCarryTheContext) {
  FakeBackend backend;
  BenchReport report = benchFake(backend, {"warptile", "joint-8x32"});
  std::string table = formatTable(report);
  for (const char* needle : {"M=96 N=96 K=96", "seed 42", "fake device", "joint-8x32 (S7)", "verified"}) {
    EXPECT_NE(table.find(needle), std::string::npos) << needle;
  }
  std::string csv = formatCsv(report);
  std::istringstream lines(csv);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  // Separators outside quoted fields (the host's description holds a comma, quoted).
  auto separators = [](const std::string& line) {
    bool quoted = false;
    long count = 0;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      count += c == ',' && !quoted;
    }
    return count;
  };
  EXPECT_EQ(separators(header), separators(row)) << header << "\n" << row;
  EXPECT_EQ(csvField("a,b \"c\""), "\"a,b \"\"c\"\"\"");
  EXPECT_EQ(csvField("plain"), "plain");
  nlohmann::json json = nlohmann::json::parse(formatJson(report));
  EXPECT_EQ(json["problem"]["m"], 96);
  EXPECT_EQ(json["rows"].size(), 2u);
  EXPECT_EQ(json["rows"][1]["kernel"], "joint-8x32");
  EXPECT_TRUE(json["rows"][1]["verified"].get<bool>());
  EXPECT_THROW(parseReportFormat("xml"), InputError);
  EXPECT_EQ(json["schema"], "tileskip.bench/1");
}

// --out FILE takes its format from the extension; --format must agree with it.
TEST(Reports, AnOutputFileTakesItsFormatFromItsExtension) {
  EXPECT_EQ(outputFileFormat("table", false, "r.csv"), ReportFormat::Csv);
  EXPECT_EQ(outputFileFormat("table", false, "dir.v2/r.JSON"), ReportFormat::Json);
  EXPECT_EQ(outputFileFormat("json", false, "r.txt"), ReportFormat::Table);
  EXPECT_EQ(outputFileFormat("json", true, "r.out"), ReportFormat::Json) << "another extension takes --format";
  EXPECT_THROW(outputFileFormat("table", false, "r.xml"), InputError) << "another extension without --format is refused";
  EXPECT_EQ(outputFileFormat("table", false, "/dev/null"), ReportFormat::Table) << "no extension takes --format's default";
  EXPECT_EQ(outputFileFormat("csv", true, "/dev/stdout"), ReportFormat::Csv);
  EXPECT_EQ(outputFileFormat("csv", true, "r.csv"), ReportFormat::Csv);
  try {
    outputFileFormat("json", true, "r.csv");
    ADD_FAILURE() << "a --format that contradicts the extension was taken";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--format json contradicts --out r.csv"), std::string::npos) << e.what();
  }
  EXPECT_THROW(outputFileFormat("xml", false, "r.csv"), InputError);
}

TEST(Timing, MedianMinMax) {
  Timing odd = summarize({3.0, 1.0, 2.0});
  EXPECT_EQ(odd.median, 2.0);
  EXPECT_EQ(odd.min, 1.0);
  EXPECT_EQ(odd.max, 3.0);
  EXPECT_EQ(summarize({1.0, 2.0, 3.0, 10.0}).median, 2.5);
}

// Regression: exit 1 only for a failed verification; a device that cannot run the
// problem gives 3 and bad input 2, as `run` does.
TEST(Bench, ExitCodeIsOneOnlyForAFailedVerification) {
  BenchRow timed, unavailable, badInput, wrong;
  timed.verified = true;
  unavailable.failure = "C needs 256 MiB, more than one storage buffer";
  unavailable.failureCode = ExitCode::Unavailable;
  badInput.failure = "TILESKIP_VULKAN_PERSISTENT_WORKGROUPS must be a positive number";
  badInput.failureCode = ExitCode::BadInput;
  wrong.failure = "verification failed";
  wrong.failureCode = ExitCode::VerificationFailed;
  EXPECT_EQ(benchExitCode({timed}), 0);
  EXPECT_EQ(benchExitCode({timed, unavailable}), 3);
  EXPECT_EQ(benchExitCode({badInput, unavailable}), 2);
  EXPECT_EQ(benchExitCode({unavailable, wrong, timed}), 1);
}

// A backend that is two targets (its kernels, and the baseline borrowed from it, as bench does
// for cuBLAS) names its device and speed model once in the report, not once per target.
TEST(Bench, ABackendOfTwoTargetsIsDescribedOnce) {
  FakeBackend backend;
  ProblemSpec spec;
  spec.m = spec.n = spec.k = 64;
  BenchReport report = runBench({{&backend, {&kernelInfo(kDenseReferenceKernel)}}, {&backend, {&kernelInfo("cublas")}}},
                                spec, generateProblem(spec), {.warmup = 1, .repeat = 2});
  ASSERT_EQ(report.rows.size(), 2u);
  EXPECT_EQ(report.devices.size(), 1u);
  EXPECT_EQ(report.models.size(), 1u);
}
