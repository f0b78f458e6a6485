// Tuning (core/measure/tune.hpp) on the fake backend, whose `pipelined` has variants of known speed and
// one that computes a wrong element; the cache file's round trip and its refusals.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/model/error.hpp"
#include "core/measure/tune.hpp"
#include "fake_backend.hpp"
#include "run_command.hpp"
#include "scoped_env.hpp"

using namespace tileskip;
using tileskip::testing::FakeBackend;
using tileskip::testing::ScopedEnv;

// No test reads a developer's own tune cache: every test runs the catalogue's tiles unless it
// names a cache itself (this sets it for the whole test process and the commands it starts).
[[maybe_unused]] const bool kTestsIgnoreTheTuneCache = setenv(kTuneCacheVariable, "off", 1) == 0;

namespace {

TuneOptions smallTune() {
  TuneOptions options;
  options.size = 48;
  options.timing = {.warmup = 0, .repeat = 3, .warmupMilliseconds = 0.0};
  return options;
}

const TuneTrial& trial(const TuneResult& result, const std::string& variant) {
  for (const TuneTrial& t : result.trials) {
    if (t.variant == variant) return t;
  }
  throw std::logic_error("no trial " + variant);
}


}  // namespace

TEST(Tune, KeepsTheFastestVariantThatVerifiesAndLeavesTheBackendRunningIt) {
  FakeBackend backend({.pipelinedVariants = true});
  TuneReport report = runTune(backend, {&kernelInfo("pipelined"), &kernelInfo("warptile")}, smallTune());
  ASSERT_EQ(report.results.size(), 1u) << "warptile has no variants on the fake: left out";
  const TuneResult& r = report.results.front();
  EXPECT_EQ(r.kernel, "pipelined");
  ASSERT_EQ(r.trials.size(), 5u);
  EXPECT_EQ(r.trials.front().variant, "");
  EXPECT_DOUBLE_EQ(r.catalogueMs, 2.0);
  EXPECT_DOUBLE_EQ(trial(r, "slow").medianMs, 4.0);
  // "wrong" is as fast as "fast" but does not verify: never chosen, and the report says so.
  EXPECT_FALSE(trial(r, "wrong").verified);
  EXPECT_NE(trial(r, "wrong").failure.find("verification failed"), std::string::npos);
  EXPECT_TRUE(report.anyFailedVerification());
  EXPECT_EQ(r.chosen, "fast");
  EXPECT_DOUBLE_EQ(r.chosenMs, 1.0);
  EXPECT_EQ(report.cacheKey, "fake | fake device | ");
  // The backend keeps the choice: a bench now times "fast".
  ProblemSpec spec;
  spec.m = spec.n = spec.k = 16;
  BenchReport after = runBench({{&backend, {&kernelInfo("pipelined")}}}, spec, generateProblem(spec),
                               {.warmup = 0, .repeat = 1, .warmupMilliseconds = 0.0});
  EXPECT_DOUBLE_EQ(after.rows.front().kernelMs.median, 1.0);
  std::string table = formatTuneTable(report);
  for (const char* needle : {"(catalogue)", "fast", "FAILED: verification failed", "2.000x", "<-"}) {
    EXPECT_NE(table.find(needle), std::string::npos) << needle << "\n" << table;
  }
}

TEST(Tune, AVariantWithinTheMarginDoesNotReplaceTheCatalogue) {
  FakeBackend backend({.pipelinedVariants = true});
  TuneOptions options = smallTune();
  options.margin = 0.6;  // only "fast" (0.5 of the time) would pass a 60 % margin ... and it does not
  TuneReport report = runTune(backend, {&kernelInfo("pipelined")}, options);
  EXPECT_EQ(report.results.front().chosen, "");
  options.margin = 0.01;  // "near" is 0.5 % faster: not enough; "fast" is
  EXPECT_EQ(runTune(backend, {&kernelInfo("pipelined")}, options).results.front().chosen, "fast");
  options.rounds = 0;
  EXPECT_THROW(runTune(backend, {&kernelInfo("pipelined")}, options), InputError);
}

TEST(Tune, EveryVariantRunsOnOneUploadInAlternatingRounds) {
  FakeBackend backend({.pipelinedVariants = true});
  TuneOptions options = smallTune();  // 2 rounds, 3 timed runs, no warm-up
  runTune(backend, {&kernelInfo("pipelined")}, options);
  // Round 1: 5 variants verified (1 run) and 4 of them timed (3 runs); "wrong" is not timed and
  // sits out round 2, where the other 4 are timed again.
  EXPECT_EQ(backend.runs(), 5 + 4 * 3 + 4 * 3);
}

TEST(Tune, ABackendWithoutVariantsRefusesAnyButTheCataloguesOwn) {
  FakeBackend backend;
  EXPECT_TRUE(backend.tuningVariants(kernelInfo("pipelined")).empty());
  EXPECT_NO_THROW(backend.useVariant(kernelInfo("pipelined"), ""));
  EXPECT_THROW(backend.useVariant(kernelInfo("pipelined"), "fast"), InputError);
  EXPECT_TRUE(runTune(backend, {&kernelInfo("pipelined")}, smallTune()).results.empty());
}

TEST(TuneCache, RoundTripsPerDeviceAndSizeClassAndKeepsTheOthers) {
  std::filesystem::path file = tileskip::testing::scratchFolder("tileskip_tune_") / "sub" / "tune.json";
  std::filesystem::remove_all(file.parent_path());
  EXPECT_TRUE(readTuneCache(file, "any").empty()) << "no file: nothing chosen";
  using Classes = std::map<int, TuneChoices>;
  TuneReport first;
  first.cacheKey = "vulkan | GPU A | 1.0";
  first.size = 4096;
  first.results.push_back({"pipelined", "p", {}, "branchfree=0", 2.0, 1.5});
  first.results.push_back({"warptile", "p", {}, "", 2.0, 2.0});  // the catalogue's won: not listed
  writeTuneCache(file, first);
  TuneReport small = first;
  small.size = 300;  // class 256
  small.results = {{"pipelined", "p", {}, "fma=1", 2.0, 1.5}};
  writeTuneCache(file, small);
  TuneReport second;
  second.cacheKey = "vulkan | GPU B | 2.0";
  second.size = 4096;
  second.results.push_back({"joint-64x32", "p", {}, "fma=1", 1.0, 0.9});
  writeTuneCache(file, second);
  EXPECT_EQ(readTuneCache(file, first.cacheKey), (Classes{{256, {{"pipelined", "fma=1"}}}, {4096, {{"pipelined", "branchfree=0"}}}}));
  EXPECT_EQ(readTuneCache(file, second.cacheKey), (Classes{{4096, {{"joint-64x32", "fma=1"}}}}));
  EXPECT_TRUE(readTuneCache(file, "vulkan | GPU C | 1.0").empty());
  // Tuning again replaces that device's entry for that class whole.
  first.results[0].chosen = "";
  writeTuneCache(file, first);
  EXPECT_EQ(readTuneCache(file, first.cacheKey), (Classes{{256, {{"pipelined", "fma=1"}}}, {4096, {}}}));
  EXPECT_EQ(readTuneCache(file, second.cacheKey).size(), 1u);
}

TEST(TuneCache, TheFirstFormatIsReadAsTheClassOfTheSizeItWasTunedAt) {
  std::filesystem::path file = tileskip::testing::scratchFolder("tileskip_tune_v1_") / "tune.json";
  std::ofstream(file) << R"({"format": "tileskip-tune-1", "devices": {"k": {"size": 4096, "variants": {"pipelined": "fma=1"}}}})";
  EXPECT_EQ(readTuneCache(file, "k"), (std::map<int, TuneChoices>{{4096, {{"pipelined", "fma=1"}}}}));
  TuneReport report;  // writing converts the file, keeping the old entry
  report.cacheKey = "other";
  report.size = 64;
  writeTuneCache(file, report);
  EXPECT_EQ(readTuneCache(file, "k"), (std::map<int, TuneChoices>{{4096, {{"pipelined", "fma=1"}}}}));
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(file))["format"], "tileskip-tune-2");
}

TEST(TuneCache, ASizeClassIsThePowerOfTwoNearestTheGeometricMean) {
  EXPECT_EQ(tuneSizeClass(4096, 4096, 4096), 4096);
  EXPECT_EQ(tuneSizeClass(40, 40, 40), 32);
  EXPECT_EQ(tuneSizeClass(5792, 5792, 5792), 4096);  // just under 4096 * sqrt(2)
  EXPECT_EQ(tuneSizeClass(5793, 5793, 5793), 8192);
  EXPECT_EQ(tuneSizeClass(8192, 8192, 64), 2048);   // (2^32)^(1/3) = 2^10.7
  EXPECT_EQ(tuneSizeClass(1, 1, 1), 1);
}

TEST(TuneCache, AFileThatIsNotACacheIsBadInputNamingIt) {
  std::filesystem::path dir = tileskip::testing::scratchFolder("tileskip_tune_bad_");
  for (const char* text : {"{not json", "[1, 2]", R"({"format": "tileskip-tune-1", "devices": {"k": {"variants": {"pipelined": 3}}}})",
                           R"({"format": "tileskip-tune-2", "devices": {"k": {"size_classes": {"64": {"variants": {"pipelined": 3}}}}}})",
                           R"({"format": "tileskip-tune-2", "devices": {"k": {"size_classes": {"48": {"variants": {}}}}}})",
                           R"({"format": "tileskip-tune-2", "devices": {"k": {"size_classes": {"big": {"variants": {}}}}}})",
                           R"({"format": "tileskip-tune-2", "devices": {"k": {"variants": {"pipelined": "fma=1"}}}})",
                           R"({"format": "something else", "devices": {}})",
                           // issue 14, defect 5: a format that is not a string was an internal type_error
                           R"({"format": 1, "devices": {}})", R"({"format": null})"}) {
    std::ofstream(dir / "bad.json") << text;
    try {
      readTuneCache(dir / "bad.json", "k");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("bad.json: not a tileskip tune cache"), std::string::npos) << e.what();
    }
    TuneReport report;
    report.cacheKey = "k";
    EXPECT_THROW(writeTuneCache(dir / "bad.json", report), InputError) << "a foreign file is not overwritten: " << text;
  }
}

TEST(TuneCache, ThePathFollowsTheVariableThenXdgThenHome) {
  {
    ScopedEnv cache(kTuneCacheVariable, "/somewhere/t.json");
    EXPECT_EQ(tuneCachePath(), std::filesystem::path("/somewhere/t.json"));
  }
  {
    ScopedEnv cache(kTuneCacheVariable, "off");
    EXPECT_FALSE(tuneCachePath().has_value());
  }
  ScopedEnv none(kTuneCacheVariable, "");
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(tuneCachePath(), std::filesystem::path("/xdg/tileskip/tune.json"));
  }
  ScopedEnv noXdg("XDG_CACHE_HOME", "");
  ScopedEnv home("HOME", "/home/teacher");
  EXPECT_EQ(tuneCachePath(), std::filesystem::path("/home/teacher/.cache/tileskip/tune.json"));
}

TEST(Cli, TuneOnABackendWithoutVariantsSaysWhyAndExits2) {
  tileskip::testing::Outcome o = tileskip::testing::runTileskip("tune --backend cpu --size 16");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("backend cpu has nothing to tune"), std::string::npos) << o.output;
  o = tileskip::testing::runTileskip("tune --size 0");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  o = tileskip::testing::runTileskip("tune --kernel nosuch");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("nosuch"), std::string::npos) << o.output;
}

// Issue 14, defect 6: a folder was an internal error (basic_filebuf::underflow) and a FIFO
// blocked every Vulkan command forever. Both are bad input, said at once.
TEST(TuneCache, AFolderOrAFifoIsBadInputAndNeverBlocks) {
  std::filesystem::path dir = tileskip::testing::scratchFolder("tileskip_tune_type_");
  std::filesystem::create_directories(dir / "folder.json");
  std::filesystem::path fifo = dir / "fifo.json";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (auto [path, what] : {std::pair{dir / "folder.json", "a folder"}, std::pair{fifo, "a FIFO"}}) {
    try {
      readTuneCache(path, "k");
      ADD_FAILURE() << "accepted " << path;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("the tune cache is ") + what), std::string::npos) << e.what();
    }
    TuneReport report;
    report.cacheKey = "k";
    EXPECT_THROW(writeTuneCache(path, report), InputError) << path;
  }
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
  std::filesystem::remove(fifo);
}

// Issue 14: a variant faster in the median but by less than its own run-to-run spread is noise.
TEST(Tune, AVariantWithinItsMeasuredSpreadDoesNotReplaceTheCatalogue) {
  FakeBackend backend({.noisyVariant = true});
  std::vector<std::string> lines;
  TuneReport report = runTune(backend, {&kernelInfo("pipelined")}, smallTune(),
                              [&](const std::string& line) { lines.push_back(line); });
  const TuneResult& r = report.results.front();
  const TuneTrial& noisy = trial(r, "noisy");
  ASSERT_TRUE(noisy.verified) << noisy.failure;
  EXPECT_LT(noisy.medianMs, r.catalogueMs) << "faster in its best round's median";
  EXPECT_GT(noisy.spread, 1.0);
  EXPECT_DOUBLE_EQ(trial(r, "").spread, 0.0);
  EXPECT_EQ(r.chosen, "") << "kept the catalogue's";
  // Progress counts every trial of every round, then one labelled line per variant.
  EXPECT_EQ(lines.front(), "[1/4] pipelined (catalogue), round 1 of 2");
  EXPECT_EQ(lines[3].rfind("[4/4] pipelined noisy, round 2 of 2", 0), 0u) << lines[3];
  EXPECT_EQ(lines[4], "pipelined (catalogue): verified, median 2.000 ms, spread 0.0 %");
  EXPECT_EQ(lines[5].rfind("pipelined noisy: verified, median ", 0), 0u) << lines[5];
  EXPECT_NE(formatTuneTable(report).find("spread"), std::string::npos);
}

TEST(Tune, WinsOnlyBeyondTheLargerSpreadAndTheMargin) {
  TuneTrial catalogue{.variant = "", .verified = true, .failure = "", .medianMs = 10.0, .spread = 0.02};
  TuneTrial tenPercent{.variant = "v", .verified = true, .failure = "", .medianMs = 9.0, .spread = 0.05};
  EXPECT_TRUE(winsBeyondSpread(tenPercent, catalogue, 0.01));
  tenPercent.spread = 0.12;
  EXPECT_FALSE(winsBeyondSpread(tenPercent, catalogue, 0.01));
  tenPercent.spread = 0.0;
  catalogue.spread = 0.11;
  EXPECT_FALSE(winsBeyondSpread(tenPercent, catalogue, 0.01));
  catalogue.spread = 0.0;
  EXPECT_FALSE(winsBeyondSpread(tenPercent, catalogue, 0.2)) << "the margin still counts";
  catalogue.verified = false;
  EXPECT_TRUE(winsBeyondSpread(tenPercent, catalogue, 0.2)) << "anything verified beats a failed catalogue tile";
  tenPercent.verified = false;
  EXPECT_FALSE(winsBeyondSpread(tenPercent, catalogue, 0.0));
}
