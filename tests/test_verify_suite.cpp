#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/measure/progress.hpp"
#include "core/io/verify_report.hpp"
#include "core/measure/verify_suite.hpp"
#include "fake_backend.hpp"

using namespace tileskip;
using tileskip::testing::FakeBackend;
using tileskip::testing::FakeFaults;

namespace {

std::vector<VerifyResult> verifyFake(const FakeFaults& faults, const std::string& kernel) {
  FakeBackend backend(faults);
  return runVerify(backend, {&kernelInfo(kernel)}, verifyCases());
}

int failures(const std::vector<VerifyResult>& results) {
  return static_cast<int>(std::count_if(results.begin(), results.end(), [](const VerifyResult& r) { return !r.passed(); }));
}

}  // namespace

TEST(VerifySuite, ACorrectSkippingKernelPassesEverything) {
  for (const char* kernel : {"warptile", "joint-8x32", "a-warp", "b-group8"}) {
    std::vector<VerifyResult> results = verifyFake({}, kernel);
    EXPECT_GT(results.size(), 20u);
    for (const VerifyResult& r : results) EXPECT_TRUE(r.passed()) << kernel << " " << r.caseName << ": " << r.failure;
  }
}

TEST(VerifySuite, CatchesASkipThatIsTooEager) {
  // The fake drops K-blocks whose joint byte holds a single product; the single-product cases
  // must catch it.
  std::vector<VerifyResult> results = verifyFake({.skipSingleProducts = true}, "joint-8x32");
  bool singleProductCaught = false;
  for (const VerifyResult& r : results) {
    if (r.caseName.rfind("single-product", 0) == 0) singleProductCaught = singleProductCaught || !r.passed();
  }
  EXPECT_TRUE(singleProductCaught);
}

TEST(VerifySuite, CatchesDevicePatternsThatDiffer) {
  std::vector<VerifyResult> results = verifyFake({.corruptPatterns = true}, "joint-8x32");
  EXPECT_GT(failures(results), 0);
  for (const VerifyResult& r : results) {
    if (!r.passed()) {
      EXPECT_FALSE(r.patternsMatch);
      EXPECT_NE(r.failure.find("A-pattern"), std::string::npos);
    }
  }
}

TEST(VerifySuite, CatchesAnUnwrittenRow) {
  EXPECT_EQ(failures(verifyFake({.leaveLastRowUnwritten = true}, "warptile")), static_cast<int>(verifyCases().size()));
}

TEST(VerifySuite, CoversTheAdversarialInputs) {
  std::vector<VerifyCase> cases = verifyCases();
  auto has = [&](const std::string& prefix) {
    return std::any_of(cases.begin(), cases.end(), [&](const VerifyCase& c) { return c.name.rfind(prefix, 0) == 0; });
  };
  for (const char* name : {"dense 1x1x1", "dense 7x13x5", "dense 100x37x259", "zero-A", "zero-B", "single-product",
                           "single-nonzero-A", "overlap-without-product", "uniform", "segments", "blocks", "nm",
                           "banded", "relu"}) {
    EXPECT_TRUE(has(name)) << name;
  }
}

// Gates: the results as CI systems read them, with totals that count every case.
TEST(VerifyReport, JsonJunitAndTableAgreeOnTheTotals) {
  FakeBackend backend({.leaveLastRowUnwritten = true});
  std::vector<VerifyCase> cases = verifyCases(true);
  VerifyBackendRun bad{.backend = "fake", .device = backend.device(), .kernels = {"warptile"}, .results = {}};
  bad.results = runVerify(backend, {&kernelInfo("warptile")}, cases);
  FakeBackend good;
  VerifyBackendRun fine{.backend = "fake-good", .device = good.device(), .kernels = {"warptile", "joint-8x32"}, .results = {}};
  fine.results = runVerify(good, {&kernelInfo("warptile"), &kernelInfo("joint-8x32")}, cases);
  // A failure whose text XML must escape.
  bad.results.front().failure = "C[0][1] = 2 <want> \"1\" & more\x01";
  std::vector<VerifyBackendRun> runs = {bad, fine};

  const int n = static_cast<int>(cases.size());
  VerifyTotals totals = verifyTotals(runs);
  EXPECT_EQ(totals.cases, 3 * n);
  EXPECT_EQ(totals.failed, n);
  EXPECT_EQ(totals.passed, 2 * n);
  EXPECT_EQ(totals.kernels, 3);
  EXPECT_EQ(totals.kernelsFailed, 1);
  std::string line = formatVerifyTotals(totals);
  EXPECT_EQ(line, "totals: " + std::to_string(3 * n) + " cases, " + std::to_string(2 * n) + " passed, " + std::to_string(n) +
                      " failed; 3 kernels, 1 failed");
  std::string table = formatVerifyTable(runs);
  EXPECT_NE(table.find(line), std::string::npos) << table;
  EXPECT_NE(table.find("FAIL"), std::string::npos) << table;

  nlohmann::json doc = nlohmann::json::parse(formatVerifyJson(runs));
  EXPECT_EQ(doc["schema"], "tileskip.verify/1");
  EXPECT_EQ(doc["totals"]["cases"], 3 * n);
  EXPECT_EQ(doc["totals"]["failed"], n);
  EXPECT_EQ(doc["backends"][0]["kernels"][0]["result"], "fail");
  EXPECT_EQ(doc["backends"][0]["kernels"][0]["failures"].size(), static_cast<std::size_t>(n));
  EXPECT_EQ(doc["backends"][1]["kernels"][1]["result"], "pass");

  std::string xml = formatVerifyJunit(runs);
  auto count = [&](const std::string& what) {
    std::size_t found = 0;
    for (std::size_t at = xml.find(what); at != std::string::npos; at = xml.find(what, at + 1)) ++found;
    return found;
  };
  EXPECT_EQ(count("<testcase "), static_cast<std::size_t>(3 * n));
  EXPECT_EQ(count("<failure "), static_cast<std::size_t>(n));
  EXPECT_NE(xml.find("<testsuites name=\"tileskip verify\" tests=\"" + std::to_string(3 * n) + "\" failures=\"" +
                     std::to_string(n) + "\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("C[0][1] = 2 &lt;want&gt; &quot;1&quot; &amp; more\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
  EXPECT_NE(xml.find("classname=\"tileskip.fake.warptile\""), std::string::npos);
  EXPECT_EQ(count(" time=\""), static_cast<std::size_t>(3 * n + 2 + 1)) << "every case, suite and the whole run timed";

  // Which suite ran and the backends that could not: in the JSON, and as skipped suites in JUnit.
  const VerifyContext context{.suite = "quick", .unavailable = {{"cuda", "no CUDA driver <here>"}}};
  nlohmann::json withContext = nlohmann::json::parse(formatVerifyJson(runs, context));
  EXPECT_EQ(withContext["suite"], "quick");
  ASSERT_EQ(withContext["unavailable"].size(), 1u);
  EXPECT_EQ(withContext["unavailable"][0]["backend"], "cuda");
  EXPECT_EQ(withContext["unavailable"][0]["reason"], "no CUDA driver <here>");
  EXPECT_GE(withContext["totals"]["seconds"].get<double>(), 0.0);
  EXPECT_TRUE(withContext["backends"][0]["kernels"][0]["seconds"].is_number());
  xml = formatVerifyJunit(runs, context);
  EXPECT_NE(xml.find("skipped=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<skipped message=\"no CUDA driver &lt;here&gt;\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<property name=\"suite\" value=\"quick\"/>"), std::string::npos) << xml;
  EXPECT_EQ(nlohmann::json::parse(formatVerifyJson(runs))["suite"], "full");
}

TEST(Progress, CountsStepsAndEstimatesTheTimeLeftFromTheStepsDone) {
  double now = 100.0;
  std::vector<std::string> lines;
  ProgressMeter meter(4, [&](const std::string& line) { lines.push_back(line); }, [&] { return now; });
  meter.begin("first");
  now += 10.0;  // one step took 10 s: three left take 30 s
  meter.begin("second");
  now += 50.0;  // two steps took 60 s: two left take 60 s
  meter.begin("third");
  now += 2.0 * 3600.0;
  meter.begin("fourth");
  meter.begin("one more than announced");
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "[1/4] first");
  EXPECT_EQ(lines[1], "[2/4] second, about 30 s left");
  EXPECT_EQ(lines[2], "[3/4] third, about 1 min 00 s left");
  EXPECT_EQ(lines[3], "[4/4] fourth, about 40 min 20 s left");
  EXPECT_EQ(lines[4].rfind("[5/5] one more than announced, about ", 0), 0u) << lines[4];
  EXPECT_EQ(formatDuration(0.44), "0.4 s");
  EXPECT_EQ(formatDuration(3725.0), "1 h 02 min");
}
