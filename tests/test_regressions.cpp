// Every input a fuzzer ever crashed on (fuzz/regressions/<target>/) and every seed
// (fuzz/corpus/<target>/) goes through the fuzz harness in every build, whatever the compiler:
// a crash input must now be refused with a clean InputError (exit code 2 for the command line),
// and no seed may break the harness's invariants (round trips, agreeing streams, exit codes).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "harness.hpp"

using namespace tileskip;
namespace fs = std::filesystem;

namespace {

struct FuzzTarget {
  const char* name;
  fuzz::Outcome (*check)(std::span<const std::uint8_t>);
};

void PrintTo(const FuzzTarget& target, std::ostream* out) { *out << target.name; }

std::vector<fs::path> inputsIn(const fs::path& folder) {
  std::vector<fs::path> files;
  if (fs::is_directory(folder)) {
    for (const fs::directory_entry& entry : fs::directory_iterator(folder)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::uint8_t> bytesOf(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

class FuzzInputs : public ::testing::TestWithParam<FuzzTarget> {
 protected:
  fs::path folder(const char* kind) const { return fs::path(TILESKIP_FUZZ_DIR) / kind / GetParam().name; }
};

TEST_P(FuzzInputs, EveryRecordedCrashIsNowACleanInputError) {
  std::vector<fs::path> crashes = inputsIn(folder("regressions"));
  if (crashes.empty()) GTEST_SKIP() << "no crash recorded for " << GetParam().name;
  for (const fs::path& file : crashes) {
    std::vector<std::uint8_t> bytes = bytesOf(file);
    try {
      fuzz::Outcome outcome = GetParam().check(bytes);
      EXPECT_FALSE(outcome.accepted) << file;
      EXPECT_FALSE(outcome.message.empty()) << file;
    } catch (const std::exception& e) {
      ADD_FAILURE() << file << ": " << e.what();
    }
  }
}

TEST_P(FuzzInputs, SeedsKeepTheHarnessInvariants) {
  std::vector<fs::path> seeds = inputsIn(folder("corpus"));
  ASSERT_GE(seeds.size(), 5u) << "the seed corpus of " << GetParam().name << " is missing";
  int accepted = 0, rejected = 0;
  for (const fs::path& file : seeds) {
    std::vector<std::uint8_t> bytes = bytesOf(file);
    try {
      (GetParam().check(bytes).accepted ? accepted : rejected) += 1;
    } catch (const std::exception& e) {
      ADD_FAILURE() << file << ": " << e.what();
    }
  }
  // Seeds cover both sides of every reader, or the fuzzer starts half blind.
  EXPECT_GT(accepted, 0);
  EXPECT_GT(rejected, 0);
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzInputs,
                         ::testing::Values(FuzzTarget{"mtx", fuzz::checkMatrixMarket}, FuzzTarget{"npy", fuzz::checkNpy},
                                           FuzzTarget{"cli", fuzz::checkCli}),
                         [](const auto& target) { return std::string(target.param.name); });
