// Tuning (core/measure/tune.hpp) on the fake backend, whose `pipelined` has variants of known speed and
// one that computes a wrong element; a backend without tuning; the typed variant's text; the
// cache file's round trip, the two older formats it converts, and its refusals.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backends/backend_registry.hpp"
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

// The trial of the fake's variant `name` ("" for the catalogue's own).
const TuneTrial& trial(const TuneResult& result, const std::string& name) {
  KernelVariant variant = name.empty() ? KernelVariant{} : FakeBackend::variantNamed(name);
  for (const TuneTrial& t : result.trials) {
    if (t.variant == variant) return t;
  }
  throw std::logic_error("no trial " + name);
}

KernelVariant switched(const std::string& name, bool on) { return {std::nullopt, {{name, on}}}; }


}  // namespace

TEST(Tune, KeepsTheFastestVariantThatVerifiesAndLeavesTheBackendRunningIt) {
  FakeBackend backend({.pipelinedVariants = true});
  TuneReport report = runTune(backend, {&kernelInfo("pipelined"), &kernelInfo("warptile")}, smallTune());
  ASSERT_EQ(report.results.size(), 1u) << "warptile has no variants on the fake: left out";
  const TuneResult& r = report.results.front();
  EXPECT_EQ(r.kernel, "pipelined");
  ASSERT_EQ(r.trials.size(), 5u);
  EXPECT_TRUE(r.trials.front().variant.isCatalogue());
  EXPECT_DOUBLE_EQ(r.catalogueMs, 2.0);
  EXPECT_DOUBLE_EQ(trial(r, "slow").medianMs, 4.0);
  // "wrong" is as fast as "fast" but does not verify: never chosen, and the report says so.
  EXPECT_FALSE(trial(r, "wrong").verified);
  EXPECT_NE(trial(r, "wrong").failure.find("verification failed"), std::string::npos);
  EXPECT_TRUE(report.anyFailedVerification());
  EXPECT_EQ(r.chosen, FakeBackend::variantNamed("fast"));
  EXPECT_DOUBLE_EQ(r.chosenMs, 1.0);
  EXPECT_EQ(report.cacheKey, "fake | fake device | ");
  // The backend keeps the choice: a bench now times "fast".
  ProblemSpec spec;
  spec.m = spec.n = spec.k = 16;
  BenchReport after = runBench({{&backend, {&kernelInfo("pipelined")}}}, spec, generateProblem(spec),
                               {.warmup = 0, .repeat = 1, .warmupMilliseconds = 0.0});
  EXPECT_DOUBLE_EQ(after.rows.front().kernelMs.median, 1.0);
  std::string table = formatTuneTable(report);
  for (const char* needle : {"(catalogue)", "fast=1", "FAILED: verification failed", "2.000x", "<-"}) {
    EXPECT_NE(table.find(needle), std::string::npos) << needle << "\n" << table;
  }
}

TEST(Tune, AVariantWithinTheMarginDoesNotReplaceTheCatalogue) {
  FakeBackend backend({.pipelinedVariants = true});
  TuneOptions options = smallTune();
  options.margin = 0.6;  // only "fast" (0.5 of the time) would pass a 60 % margin ... and it does not
  TuneReport report = runTune(backend, {&kernelInfo("pipelined")}, options);
  EXPECT_TRUE(report.results.front().chosen.isCatalogue());
  options.margin = 0.01;  // "near" is 0.5 % faster: not enough; "fast" is
  EXPECT_EQ(runTune(backend, {&kernelInfo("pipelined")}, options).results.front().chosen, FakeBackend::variantNamed("fast"));
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

TEST(Tune, ABackendWithoutTuningReportsNoneAndNothingIsTuned) {
  FakeBackend backend;
  EXPECT_EQ(backend.tuning(), nullptr);
  EXPECT_TRUE(runTune(backend, {&kernelInfo("pipelined")}, smallTune()).results.empty());
  EXPECT_EQ(backend.runs(), 0) << "nothing uploaded, nothing run";
  // The registry's cpu backend has none either (the cuda backend's shapes are compiled in too).
  EXPECT_EQ(openBackend("cpu")->tuning(), nullptr);
}

TEST(Tune, ABackendWithTuningRefusesAVariantItDoesNotOffer) {
  FakeBackend backend({.pipelinedVariants = true});
  Tunable* tunable = backend.tuning();
  ASSERT_NE(tunable, nullptr);
  EXPECT_TRUE(tunable->variants(kernelInfo("warptile")).empty());
  EXPECT_NO_THROW(tunable->useVariant(kernelInfo("pipelined"), FakeBackend::variantNamed("fast")));
  EXPECT_NO_THROW(tunable->useVariant(kernelInfo("pipelined"), {}));
  EXPECT_THROW(tunable->useVariant(kernelInfo("pipelined"), FakeBackend::variantNamed("faster")), InputError);
}

TEST(KernelVariant, ItsTextIsTheTileThenEachSwitchInOrderAndParsesBack) {
  EXPECT_EQ(variantText({}), "") << "the catalogue's own";
  KernelVariant v{TileShape{128, 128, 16, 64, 64, 8, 4, 128}, {{"prefetch", false}, {"fma", true}}};
  EXPECT_EQ(variantText(v), "128x128x16/64x64/8x4/128,prefetch=0,fma=1");
  EXPECT_EQ(variantText(switched("branchfree", false)), "branchfree=0");
  EXPECT_EQ(parseVariantText("128x128x16/64x64/8x4/128, prefetch=0 ,fma=1", "test"), v);
  EXPECT_EQ(parseVariantText("fma=0,fma=1", "test"), switched("fma", true)) << "a switch named twice keeps the last";
  struct Bad {
    const char* text;
    const char* why;
  };
  for (Bad b : {Bad{"", "an empty item"}, Bad{"fma=1,,prefetch=0", "an empty item"}, Bad{"128x128", "is not a tile"},
                Bad{"8x8x8/0x0/1x1/64,8x8x8/0x0/1x1/64", "two tiles"}, Bad{"fma=7", "switch 'fma' is 0 or 1, not '7'"}}) {
    try {
      parseVariantText(b.text, "SOURCE");
      ADD_FAILURE() << "accepted '" << b.text << "'";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("SOURCE: ", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find(b.why), std::string::npos) << e.what();
    }
  }
  // The backend's check of a switch's name comes before its value, with the variant read so far.
  SwitchCheck noUnroll = [](std::string_view name, const KernelVariant& readSoFar) -> std::optional<std::string> {
    if (name == "unroll") return "no switch 'unroll'" + std::string(readSoFar.tile ? " after a tile" : "");
    return std::nullopt;
  };
  try {
    parseVariantText("8x8x8/0x0/1x1/64,unroll=7", "SOURCE", noUnroll);
    ADD_FAILURE() << "accepted unroll";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "SOURCE: no switch 'unroll' after a tile");
  }
}

TEST(TuneCache, RoundTripsPerDeviceAndSizeClassAndKeepsTheOthers) {
  std::filesystem::path file = tileskip::testing::scratchFolder("tileskip_tune_") / "sub" / "tune.json";
  std::filesystem::remove_all(file.parent_path());
  EXPECT_TRUE(readTuneCache(file, "any").empty()) << "no file: nothing chosen";
  using Classes = std::map<int, TuneChoices>;
  const KernelVariant tiled{TileShape{128, 64, 8, 64, 32, 8, 4, 128}, {{"prefetch", false}, {"fma", true}}};
  TuneReport first;
  first.cacheKey = "vulkan | GPU A | 1.0";
  first.size = 4096;
  first.results.push_back({"pipelined", "p", {}, switched("branchfree", false), 2.0, 1.5});
  first.results.push_back({"warptile", "p", {}, {}, 2.0, 2.0});  // the catalogue's won: not listed
  first.results.push_back({"joint-32x32", "p", {}, tiled, 2.0, 1.0});
  writeTuneCache(file, first);
  TuneReport small = first;
  small.size = 300;  // class 256
  small.results = {{"pipelined", "p", {}, switched("fma", true), 2.0, 1.5}};
  writeTuneCache(file, small);
  TuneReport second;
  second.cacheKey = "vulkan | GPU B | 2.0";
  second.size = 4096;
  second.results.push_back({"joint-64x32", "p", {}, switched("fma", true), 1.0, 0.9});
  writeTuneCache(file, second);
  EXPECT_EQ(readTuneCache(file, first.cacheKey),
            (Classes{{256, {{"pipelined", switched("fma", true)}}},
                     {4096, {{"pipelined", switched("branchfree", false)}, {"joint-32x32", tiled}}}}));
  EXPECT_EQ(readTuneCache(file, second.cacheKey), (Classes{{4096, {{"joint-64x32", switched("fma", true)}}}}));
  EXPECT_TRUE(readTuneCache(file, "vulkan | GPU C | 1.0").empty());
  // On disk a variant is typed: a tile's fields are numbers, switches booleans, in the order given.
  nlohmann::ordered_json written = nlohmann::ordered_json::parse(std::ifstream(file));
  EXPECT_EQ(written["format"], "tileskip-tune-3");
  EXPECT_EQ(written["devices"][first.cacheKey]["size_classes"]["4096"]["variants"]["joint-32x32"].dump(),
            R"({"tile":{"BM":128,"BN":64,"BK":8,"WM":64,"WN":32,"TM":8,"TN":4,"threads":128},"switches":{"prefetch":false,"fma":true}})");
  EXPECT_EQ(written["devices"][first.cacheKey]["size_classes"]["4096"]["variants"]["pipelined"].dump(), R"({"switches":{"branchfree":false}})");
  // Tuning again replaces that device's entry for that class whole.
  first.results[0].chosen = {};
  first.results.pop_back();
  writeTuneCache(file, first);
  EXPECT_EQ(readTuneCache(file, first.cacheKey), (Classes{{256, {{"pipelined", switched("fma", true)}}}, {4096, {}}}));
  EXPECT_EQ(readTuneCache(file, second.cacheKey).size(), 1u);
}

TEST(TuneCache, TheFirstFormatIsReadAsTheClassOfTheSizeItWasTunedAt) {
  std::filesystem::path file = tileskip::testing::scratchFolder("tileskip_tune_v1_") / "tune.json";
  std::ofstream(file) << R"({"format": "tileskip-tune-1", "devices": {"k": {"size": 4096, "variants": {"pipelined": "fma=1"}}}})";
  EXPECT_EQ(readTuneCache(file, "k"), (std::map<int, TuneChoices>{{4096, {{"pipelined", switched("fma", true)}}}}));
  TuneReport report;  // writing converts the file, keeping the old entry
  report.cacheKey = "other";
  report.size = 64;
  writeTuneCache(file, report);
  EXPECT_EQ(readTuneCache(file, "k"), (std::map<int, TuneChoices>{{4096, {{"pipelined", switched("fma", true)}}}}));
  nlohmann::json converted = nlohmann::json::parse(std::ifstream(file));
  EXPECT_EQ(converted["format"], "tileskip-tune-3");
  EXPECT_EQ(converted["devices"]["k"]["size_classes"]["4096"]["variants"]["pipelined"], nlohmann::json::parse(R"({"switches": {"fma": true}})"));
}

TEST(TuneCache, TheSecondFormatsTextIsParsedOnceAndTheNextWriteConvertsIt) {
  std::filesystem::path file = tileskip::testing::scratchFolder("tileskip_tune_v2_") / "tune.json";
  std::ofstream(file) << R"({"format": "tileskip-tune-2", "devices": {"k": {"size_classes": {
      "4096": {"date": "2026-11-22", "size": 4096, "measured": {},
               "variants": {"pipelined": "128x128x16/64x64/8x4/128,prefetch=0", "warptile": "fma=1"}},
      "256": {"variants": {"joint-8x32": "branchfree=0"}}}}}})";
  const std::map<int, TuneChoices> expected = {
      {256, {{"joint-8x32", switched("branchfree", false)}}},
      {4096, {{"pipelined", KernelVariant{TileShape{128, 128, 16, 64, 64, 8, 4, 128}, {{"prefetch", false}}}},
              {"warptile", switched("fma", true)}}}};
  EXPECT_EQ(readTuneCache(file, "k"), expected);
  TuneReport report;
  report.cacheKey = "other";
  report.size = 64;
  writeTuneCache(file, report);
  EXPECT_EQ(readTuneCache(file, "k"), expected) << "converted, not lost";
  nlohmann::json converted = nlohmann::json::parse(std::ifstream(file));
  EXPECT_EQ(converted["format"], "tileskip-tune-3");
  EXPECT_EQ(converted["devices"]["k"]["size_classes"]["4096"]["variants"]["pipelined"]["tile"]["BK"], 16);
  EXPECT_EQ(converted["devices"]["k"]["size_classes"]["4096"]["variants"]["pipelined"]["switches"]["prefetch"], false);
  EXPECT_EQ(converted["devices"]["k"]["size_classes"]["4096"]["date"], "2026-11-22") << "the rest of the entry is kept";
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
  struct Bad {
    const char* text;
    const char* why;  // what the message says beyond naming the file
  };
  const char* v3 = R"({"format": "tileskip-tune-3", "devices": {"k": {"size_classes": {"64": {"variants": {"pipelined": %s}}}}}})";
  auto inV3 = [&](const char* variant) {
    std::string text = v3;
    return text.replace(text.find("%s"), 2, variant);
  };
  std::vector<std::pair<std::string, std::string>> bad = {
      {"{not json", "parse error"},
      {"[1, 2]", "expected {\"format\": \"tileskip-tune-3\""},
      {R"({"format": "tileskip-tune-1", "devices": {"k": {"variants": {"pipelined": 3}}}})", "expected"},
      {R"({"format": "tileskip-tune-2", "devices": {"k": {"size_classes": {"64": {"variants": {"pipelined": 3}}}}}})",
       "kernel 'pipelined': a variant in format tileskip-tune-2 is text, not 3"},
      {R"({"format": "tileskip-tune-2", "devices": {"k": {"size_classes": {"48": {"variants": {}}}}}})", "expected"},
      {R"({"format": "tileskip-tune-2", "devices": {"k": {"size_classes": {"big": {"variants": {}}}}}})", "expected"},
      {R"({"format": "tileskip-tune-2", "devices": {"k": {"variants": {"pipelined": "fma=1"}}}})", "expected"},
      {R"({"format": "something else", "devices": {}})", "expected"},
      // regression: a format that is not a string was an internal type_error
      {R"({"format": 1, "devices": {}})", "expected"},
      {R"({"format": null})", "expected"},
      // The older formats' text is parsed when read: one that does not parse is named.
      {R"({"format": "tileskip-tune-2", "devices": {"k": {"size_classes": {"64": {"variants": {"pipelined": "fma=7"}}}}}})",
       "device 'k', size class 64, kernel 'pipelined': 'fma=7': switch 'fma' is 0 or 1, not '7'"},
      {R"({"format": "tileskip-tune-1", "devices": {"k": {"size": 64, "variants": {"pipelined": "128x128"}}}})",
       "'128x128' is not a tile"},
      {R"({"format": "tileskip-tune-2", "devices": {"k": {"size_classes": {"64": {"variants": {"pipelined": ""}}}}}})", "an empty item"},
      // The current format is typed: text, a tile field that is not a whole number, a missing or
      // an unknown field, a switch that is not a boolean.
      {inV3(R"("fma=1")"), "kernel 'pipelined': a variant is an object of \"tile\" and \"switches\", not \"fma=1\""},
      {inV3(R"({"switches": {"fma": 1}})"), "switch 'fma' is true or false, not 1"},
      {inV3(R"({"switches": {"fma": "true"}})"), "switch 'fma' is true or false, not \"true\""},
      {inV3(R"({"switches": ["fma"]})"), "\"switches\" is an object"},
      {inV3(R"({"tile": "128x128x8/64x64/8x4/128"})"), "\"tile\" is an object of BM, BN"},
      {inV3(R"({"tile": {"BM": 128, "BN": 128, "BK": 8, "WM": 64, "WN": 64, "TM": 8, "TN": 4}})"), "the tile has no threads"},
      {inV3(R"({"tile": {"BM": 128, "BN": 128, "BK": 8, "WM": 64, "WN": 64, "TM": 8, "TN": 4, "threads": "128"}})"),
       "tile field threads is a whole number from 0 to 1000000, not \"128\""},
      {inV3(R"({"tile": {"BM": -128, "BN": 128, "BK": 8, "WM": 64, "WN": 64, "TM": 8, "TN": 4, "threads": 128}})"), "tile field BM"},
      {inV3(R"({"tile": {"BM": 128.5, "BN": 128, "BK": 8, "WM": 64, "WN": 64, "TM": 8, "TN": 4, "threads": 128}})"), "tile field BM"},
      {inV3(R"({"tile": {"BM": 128, "BN": 128, "BK": 8, "WM": 64, "WN": 64, "TM": 8, "TN": 4, "threads": 128, "BX": 1}})"),
       "a tile has no field \"BX\""},
      {inV3(R"({"tiles": {}})"), "a variant has \"tile\" and \"switches\", not \"tiles\""},
  };
  for (const auto& [text, why] : bad) {
    std::ofstream(dir / "bad.json") << text;
    try {
      readTuneCache(dir / "bad.json", "k");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("bad.json: not a tileskip tune cache"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << text << "\n" << e.what();
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

TEST(Cli, TuneOnABackendWithoutTuningSaysWhyAndExits2) {
  tileskip::testing::Outcome o = tileskip::testing::runTileskip("tune --backend cpu --size 16");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("backend cpu has nothing to tune"), std::string::npos) << o.output;
  o = tileskip::testing::runTileskip("tune --size 0");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  o = tileskip::testing::runTileskip("tune --kernel nosuch");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("nosuch"), std::string::npos) << o.output;
}

// Regression: a folder was an internal error (basic_filebuf::underflow) and a FIFO
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

// A variant faster in the median but by less than its own run-to-run spread is noise.
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
  EXPECT_TRUE(r.chosen.isCatalogue()) << "kept the catalogue's";
  // Progress counts every trial of every round, then one labelled line per variant.
  EXPECT_EQ(lines.front(), "[1/4] pipelined (catalogue), round 1 of 2");
  EXPECT_EQ(lines[3].rfind("[4/4] pipelined noisy=1, round 2 of 2", 0), 0u) << lines[3];
  EXPECT_EQ(lines[4], "pipelined (catalogue): verified, median 2.000 ms, spread 0.0 %");
  EXPECT_EQ(lines[5].rfind("pipelined noisy=1: verified, median ", 0), 0u) << lines[5];
  EXPECT_NE(formatTuneTable(report).find("spread"), std::string::npos);
}

TEST(Tune, WinsOnlyBeyondTheLargerSpreadAndTheMargin) {
  TuneTrial catalogue{.variant = {}, .verified = true, .failure = "", .medianMs = 10.0, .spread = 0.02};
  TuneTrial tenPercent{.variant = switched("v", true), .verified = true, .failure = "", .medianMs = 9.0, .spread = 0.05};
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
