// `bench --suite real`: matrices no one here wrote (scripts/fetch-real-data.sh fetches them from
// the package registries at set-up time and lists them in a manifest, cases.json). Each case:
// inspect's prediction, auto's choice, every kernel of each backend and the vendor baselines,
// all from runBench, so every kernel is verified before its time counts.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/measure/bench.hpp"

namespace tileskip {

struct RealCase {
  std::string name;
  std::filesystem::path a, b;  // resolved against the manifest's folder
  std::string source;          // where the files came from (package and version)
  std::string note;
};

// The folder the fetch script writes to: $TILESKIP_REAL_DATA, else data/real.
std::filesystem::path defaultRealDataFolder();

// Reads `folder`/cases.json. Throws InputError for a missing or malformed manifest (saying how
// to fetch the data) and for a case whose files are missing.
std::vector<RealCase> readRealCases(const std::filesystem::path& folder);

struct RealCaseRun {
  RealCase realCase;
  BenchReport report;
};

// One bench run per case over every kernel of every backend (auto's choice marked).
std::vector<RealCaseRun> runRealSuite(const std::vector<Backend*>& backends, const std::vector<RealCase>& cases,
                                      const BenchOptions& options, const ProgressCallback& progress = {});

// Per case and backend: auto's choice with its predicted and measured speedup over the dense
// reference, the fastest kernel measured, and the baselines.
std::string formatRealSummary(const std::vector<RealCaseRun>& runs);
std::string formatRealJson(const std::vector<RealCaseRun>& runs);

}  // namespace tileskip
