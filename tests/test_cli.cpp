// The tileskip command end to end: documented exit codes and messages on bad input, and the
// happy paths of gen, run, bench and verify on the cpu backend.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/generators.hpp"
#include "core/matrix_io.hpp"
#include "core/reference.hpp"
#include "run_command.hpp"

using namespace tileskip;
namespace fs = std::filesystem;

namespace {

using tileskip::testing::Outcome;
using tileskip::testing::runTileskip;

fs::path scratch() { return tileskip::testing::scratchFolder("tileskip_cli_test_"); }

}  // namespace

struct BadInput {
  const char* arguments;
  int exitCode;
  const char* message;
};

void PrintTo(const BadInput& input, std::ostream* out) { *out << "tileskip " << input.arguments; }

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, ExitsWithTheDocumentedCodeAndSaysWhy) {
  Outcome o = runTileskip(GetParam().arguments);
  EXPECT_EQ(o.exitCode, GetParam().exitCode) << o.output;
  EXPECT_NE(o.output.find(GetParam().message), std::string::npos) << o.output;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CliBadInput,
    ::testing::Values(
        BadInput{"", 2, "subcommand"},
        BadInput{"frobnicate", 2, "subcommand"},
        BadInput{"bench --backend cpu --size -5", 2, "--size -5 is invalid"},
        BadInput{"bench --backend cpu --size 0", 2, "--size 0 is invalid"},
        BadInput{"bench --backend cpu --m 8 --n 0 --k 8", 2, "--n 0 is invalid"},
        BadInput{"bench --backend cpu --size 70000", 2, "32-bit indexing"},
        BadInput{"bench --backend cpu --size 64 --density-a 1.5", 2, "outside [0, 1]"},
        BadInput{"bench --backend cpu --size 64 --density-b nan", 2, "outside [0, 1]"},
        BadInput{"bench --backend cpu --size 64 --kernel warpdrive", 2, "unknown kernel 'warpdrive'"},
        BadInput{"bench --backend cpu --size 64 --kernel cublas", 2, "does not implement kernel 'cublas'"},
        BadInput{"bench --backend quantum", 2, "unknown backend 'quantum'"},
        BadInput{"bench --backend cpu --size 64 --generator fractal", 2, "unknown generator 'fractal'"},
        BadInput{"bench --backend cpu --size 64 --format xml", 2, "unknown report format"},
        BadInput{"bench --backend cpu --size 64 --repeat 0", 2, "--repeat"},
        BadInput{"bench --backend cpu --size 64 --out /nonexistent/dir/r.json", 2, "cannot write"},
        BadInput{"bench --size abc", 2, "size"},
        BadInput{"gen --rows 4 --cols 4 --out x.txt", 2, "unknown matrix format"},
        BadInput{"gen --rows 4 --cols -4 --out /tmp/x.npy", 2, "invalid"},
        BadInput{"gen --rows 4 --cols 4 --density 2 --out /tmp/x.npy", 2, "outside [0, 1]"},
        BadInput{"gen --rows 4 --cols 4 --out /nonexistent/dir/x.npy", 2, "cannot write"},
        BadInput{"run --a /nonexistent/a.npy --b /nonexistent/b.npy --out /tmp/c.npy", 2, "no such file"},
        BadInput{"run --a /tmp --b /tmp --out /tmp/c.npy", 2, "unknown matrix format"},
        BadInput{"verify --backend cpu --kernel nope", 2, "unknown kernel"}));

TEST(Cli, HelpOnEverySubcommand) {
  for (const char* sub : {"", "list", "bench", "verify", "gen", "run"}) {
    Outcome o = runTileskip(std::string(sub) + " --help");
    EXPECT_EQ(o.exitCode, 0) << sub;
    EXPECT_NE(o.output.find("Usage"), std::string::npos) << sub;
  }
}

TEST(Cli, ListShowsBackendsKernelsAndGenerators) {
  Outcome o = runTileskip("list");
  EXPECT_EQ(o.exitCode, 0);
  for (const char* needle : {"cpu:", "joint-8x32", "K28", "segments", "relu"}) EXPECT_NE(o.output.find(needle), std::string::npos) << needle;
}

#ifndef TILESKIP_VIEWER_BUILT
// A build without the viewer still answers `view`: what to install and how to configure.
TEST(Cli, ViewInABuildWithoutTheViewerSaysWhatToInstall) {
  Outcome o = runTileskip("view --backend cpu --size 64 --screenshot " + (scratch() / "none.png").string());
  EXPECT_EQ(o.exitCode, 3) << o.output;
  EXPECT_NE(o.output.find("built without the viewer"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("libimgui-dev"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("-DTILESKIP_VIEWER=ON"), std::string::npos) << o.output;
}
#endif

TEST(Cli, BenchOnCpuVerifiesAndWritesEveryFormat) {
  fs::path dir = scratch();
  Outcome table = runTileskip("bench --backend cpu --size 96 --repeat 2 --out " + (dir / "r.json").string() + " --format json");
  EXPECT_EQ(table.exitCode, 0) << table.output;
  EXPECT_NE(table.output.find("cpu      cpu"), std::string::npos) << table.output;
  EXPECT_TRUE(fs::file_size(dir / "r.json") > 100);
  Outcome csv = runTileskip("bench --backend cpu --size 40 --repeat 1 --format csv");
  EXPECT_EQ(csv.exitCode, 0);
  EXPECT_NE(csv.output.find("date,backend,device,kernel"), std::string::npos);
}

TEST(Cli, VerifyOnCpuPasses) {
  Outcome o = runTileskip("verify --backend cpu --quick");
  EXPECT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("pass"), std::string::npos);
}

TEST(Cli, GenThenRunGivesTheReferenceProduct) {
  fs::path dir = scratch();
  std::string a = (dir / "a.npy").string(), b = (dir / "b.mtx").string(), c = (dir / "c.npy").string();
  ASSERT_EQ(runTileskip("gen --generator segments --rows 70 --cols 45 --density 0.5 --seed 3 --out " + a).exitCode, 0);
  ASSERT_EQ(runTileskip("gen --generator uniform --operand B --rows 45 --cols 33 --density 0.3 --out " + b).exitCode, 0);
  Outcome o = runTileskip("run --backend cpu --a " + a + " --b " + b + " --out " + c);
  ASSERT_EQ(o.exitCode, 0) << o.output;
  Matrix product = readMatrix(c);
  EXPECT_TRUE(compareToReference(product, referenceExact(readMatrix(a), readMatrix(b)), 45).passed);
  // The generated files are the generators' matrices, bit for bit.
  Matrix expected = generate("segments", Operand::A, 70, 45, 0.5, 3);
  EXPECT_EQ(std::memcmp(readMatrix(a).data(), expected.data(), expected.bytes()), 0);
}

TEST(Cli, RunRefusesMismatchedShapesAndWritesNothing) {
  fs::path dir = scratch();
  std::string a = (dir / "a2.npy").string(), b = (dir / "b2.npy").string(), c = (dir / "never.npy").string();
  ASSERT_EQ(runTileskip("gen --rows 5 --cols 6 --out " + a).exitCode, 0);
  ASSERT_EQ(runTileskip("gen --rows 7 --cols 5 --out " + b).exitCode, 0);
  Outcome o = runTileskip("run --backend cpu --a " + a + " --b " + b + " --out " + c);
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_NE(o.output.find("shapes do not agree"), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(c));
}

TEST(Cli, RunRejectsAMalformedFileNamingIt) {
  fs::path dir = scratch();
  fs::path bad = dir / "bad.mtx";
  std::ofstream(bad) << "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1\n";
  Outcome o = runTileskip("run --backend cpu --a " + bad.string() + " --b " + bad.string() + " --out " + (dir / "c.npy").string());
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_NE(o.output.find("bad.mtx:3"), std::string::npos) << o.output;
}
