// `tileskip compare`: two results of one kind, measure by measure, the direction of "better"
// taken from the measure (a ratio up, a time down, a `<=` target down), regressions past the
// threshold exit 4, mismatched or foreign files exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/io/compare.hpp"
#include "core/model/error.hpp"
#include "run_command.hpp"

namespace tileskip {
namespace {

std::string headline(double dense, double prep, std::optional<double> joint) {
  nlohmann::json measures = nlohmann::json::array();
  measures.push_back({{"id", "dense-cuda-vs-cublas"}, {"measure", "dense"}, {"op", ">="}, {"value", dense}});
  measures.push_back({{"id", "pattern-preprocessing"}, {"measure", "prep"}, {"op", "<="}, {"value", prep}});
  measures.push_back({{"id", "joint"}, {"measure", "joint"}, {"op", nullptr},
                      {"value", joint ? nlohmann::json(*joint) : nlohmann::json(nullptr)}});
  return nlohmann::json{{"schema", "tileskip.headline/1"}, {"measures", measures}}.dump();
}

std::string bench(double pipelinedMs, bool jointVerified) {
  nlohmann::json rows = nlohmann::json::array();
  rows.push_back({{"backend", "cuda"}, {"kernel", "pipelined"}, {"verified", true}, {"kernel_ms", {{"median", pipelinedMs}}}});
  rows.push_back({{"backend", "cuda"}, {"kernel", "joint-64x32"}, {"verified", jointVerified}, {"kernel_ms", {{"median", 1.0}}}});
  return nlohmann::json{{"schema", "tileskip.bench/1"}, {"rows", rows}}.dump();
}

TEST(Compare, BetterFollowsEachMeasuresDirection) {
  const Comparison c = compareResults(headline(0.95, 0.02, 3.0), headline(0.90, 0.03, std::nullopt));
  ASSERT_EQ(c.measures.size(), 3u);
  EXPECT_NEAR(*c.measures[0].gainPercent(), -100.0 * 0.05 / 0.95, 1e-9);  // a ratio down: worse
  EXPECT_NEAR(*c.measures[1].gainPercent(), -50.0, 1e-9);                 // an at-most measure up: worse
  EXPECT_FALSE(c.measures[2].gainPercent().has_value()) << "not measured in the new run";
  const std::vector<std::string> worse = regressions(c, 5.0);
  ASSERT_EQ(worse.size(), 2u);
  EXPECT_NE(worse[0].find("dense-cuda-vs-cublas"), std::string::npos) << worse[0];
  EXPECT_EQ(regressions(c, 60.0).size(), 0u);
  const std::string table = formatComparison(c, 5.0);
  EXPECT_NE(table.find("WORSE"), std::string::npos) << table;
  EXPECT_NE(table.find("gone"), std::string::npos) << table;
}

TEST(Compare, BenchTimesAreBetterLowerAndOnlyVerifiedRowsCount) {
  const Comparison c = compareResults(bench(2.0, true), bench(1.5, false));
  ASSERT_EQ(c.measures.size(), 2u);
  EXPECT_EQ(c.measures[0].key, "cuda pipelined");
  EXPECT_NEAR(*c.measures[0].gainPercent(), 25.0, 1e-9);  // faster
  EXPECT_FALSE(c.measures[1].now.has_value()) << "a row that failed verification has no time to compare";
  EXPECT_TRUE(regressions(c, 5.0).empty());
}

TEST(Compare, RefusesFilesOfDifferentKindsOrNoneOfOurs) {
  EXPECT_THROW(compareResults(headline(1, 1, 1), bench(1, true)), InputError);
  EXPECT_THROW(compareResults("{\"schema\": \"tileskip.verify/1\"}", "{\"schema\": \"tileskip.verify/1\"}"), InputError);
  EXPECT_THROW(compareResults("not json", bench(1, true)), InputError);
  EXPECT_THROW(compareResults("[1, 2]", "[1, 2]"), InputError);
}

TEST(Compare, TheCommandExitsFourOnARegressionAndTwoOnBadFiles) {
  const std::filesystem::path dir = testing::scratchFolder("tileskip_compare_");
  std::ofstream(dir / "base.json") << bench(2.0, true);
  std::ofstream(dir / "slower.json") << bench(2.5, true);
  std::ofstream(dir / "same.json") << bench(2.02, true);
  auto run = [&](const std::string& args) { return testing::runTileskip("compare " + args); };
  const std::string base = (dir / "base.json").string();
  testing::Outcome same = run(base + " " + (dir / "same.json").string());
  EXPECT_EQ(same.exitCode, 0) << same.output;
  EXPECT_NE(same.output.find("cuda pipelined"), std::string::npos) << same.output;
  testing::Outcome slower = run(base + " " + (dir / "slower.json").string());
  EXPECT_EQ(slower.exitCode, 4) << slower.output;
  EXPECT_NE(slower.output.find("worse: cuda pipelined"), std::string::npos) << slower.output;
  EXPECT_EQ(run(base + " " + (dir / "slower.json").string() + " --threshold 30").exitCode, 0);
  EXPECT_EQ(run(base + " " + (dir / "missing.json").string()).exitCode, 2);
  EXPECT_EQ(run(base).exitCode, 2);
  EXPECT_EQ(run(base + " " + base + " --threshold -1").exitCode, 2);
}

}  // namespace
}  // namespace tileskip
