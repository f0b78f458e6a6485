// tileskip compare BASE.json NEW.json: what changed between two result files of one kind
// (core/io/compare.hpp), measure by measure; exit 4 where one got worse by more than --threshold.
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli_common.hpp"
#include "core/io/compare.hpp"
#include "core/model/error.hpp"

namespace tileskip::cli {

namespace {

struct CompareFlags {
  std::string base, now;
  double threshold = 5.0;  // per cent
};

std::string readResult(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read it (no such file, or not allowed)");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path + ": reading failed");
  return text.str();
}

int runCompare(const CompareFlags& flags) {
  const Comparison comparison = compareResults(readResult(flags.base), readResult(flags.now));
  std::cout << formatComparison(comparison, flags.threshold) << std::flush;
  const std::vector<std::string> worse = regressions(comparison, flags.threshold);
  for (const std::string& line : worse) note("worse: " + line);
  return worse.empty() ? 0 : static_cast<int>(ExitCode::TargetMissed);
}

}  // namespace

Command addCompareCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("compare",
                                        "what changed between two results of one kind (headline, bench, blocksparse JSON); "
                                        "exit 4 where a measure got worse past --threshold");
  auto flags = std::make_shared<CompareFlags>();
  app->add_option("base", flags->base, "the baseline result (JSON)")->required();
  app->add_option("new", flags->now, "the result to judge (JSON)")->required();
  app->add_option("--threshold", flags->threshold, "per cent a measure may lose before it counts as worse")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1000.0));
  return {app, [flags] { return runCompare(*flags); }};
}

}  // namespace tileskip::cli
