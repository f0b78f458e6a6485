// The tileskip command end to end: documented exit codes and messages on bad input, and the
// happy paths of gen, run, bench and verify on the cpu backend.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "cli_app.hpp"
#include "backends/backend_registry.hpp"
#include "core/io/block_sparse_io.hpp"
#include "core/model/catalogue.hpp"
#include "core/model/generators.hpp"
#include "core/measure/bench.hpp"
#include "core/io/matrix_io.hpp"
#include "core/io/provenance.hpp"
#include "core/io/report.hpp"
#include "core/model/reference.hpp"
#include "core/process/sanitizers.hpp"
#include "run_command.hpp"

using namespace tileskip;
namespace fs = std::filesystem;

namespace {

using tileskip::testing::Outcome;
using tileskip::testing::runCommand;
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

void expectRefusal(const Outcome& o, const BadInput& expected) {
  EXPECT_EQ(o.exitCode, expected.exitCode) << o.output;
  EXPECT_NE(o.output.find(expected.message), std::string::npos) << o.output;
}

TEST_P(CliBadInput, ExitsWithTheDocumentedCodeAndSaysWhy) { expectRefusal(runTileskip(GetParam().arguments), GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Cases, CliBadInput,
    ::testing::Values(
        BadInput{"", 2, "subcommand"},
        BadInput{"frobnicate", 2, "subcommand"},
        BadInput{"list --format csv", 2, "unknown list format 'csv'; use table or json"},
        BadInput{"bench --backend cpu --size -5", 2, "--size -5 is invalid"},
        BadInput{"bench --backend cpu --size 0", 2, "--size 0 is invalid"},
        BadInput{"bench --backend cpu --m 8 --n 0 --k 8", 2, "--n 0 is invalid"},
        BadInput{"bench --backend cpu --size 70000", 2, "32-bit indexing"},
        // Each size on its own, and the products that overflow 32-bit indexing though no size does.
        BadInput{"bench --backend cpu --size 8 --m 0", 2, "--m 0 is invalid; sizes must be at least 1"},
        BadInput{"bench --backend cpu --size 8 --k -1", 2, "--k -1 is invalid"},
        BadInput{"bench --backend cpu --size 8 --m 2147483648", 2, "--m 2147483648 is beyond the kernels' 32-bit indexing"},
        BadInput{"bench --backend cpu --size 8 --n 3000000000", 2, "--n 3000000000 is beyond the kernels' 32-bit"},
        BadInput{"bench --backend cpu --size 8 --k 99999999999999999999", 2, "--k 99999999999999999999 is beyond"},
        BadInput{"bench --backend cpu --size 2147483648", 2, "--size 2147483648 is beyond"},
        BadInput{"bench --backend cpu --m 46341 --k 46341 --n 1", 2, "A (M x K): shape 46341x46341 has more than 2^31-1"},
        BadInput{"bench --backend cpu --m 1 --k 46341 --n 46341", 2, "B (K x N): shape 46341x46341 has more than 2^31-1"},
        BadInput{"bench --backend cpu --m 65536 --k 1 --n 32768", 2, "C (M x N): shape 65536x32768 has more than 2^31-1"},
        BadInput{"gen --rows 65536 --cols 32768 --out x.npy", 2, "shape 65536x32768 has more than 2^31-1 elements"},
        BadInput{"gen --rows 0 --cols 5 --out x.npy", 2, "shape 0x5 is invalid"},
        BadInput{"bench --backend cpu --size 8 --density-a -0.1", 2, "--density-a -0.100000 is outside [0, 1]"},
        BadInput{"bench --backend cpu --size 8 --density-b inf", 2, "--density-b inf is outside [0, 1]"},
        BadInput{"gen --rows 4 --cols 4 --density nan --out x.npy", 2, "--density nan is outside [0, 1]"},
        BadInput{"gen --rows 4 --cols 4 --generator fractal --out x.npy", 2, "unknown generator 'fractal'"},
        BadInput{"gen --rows 4 --cols 4 --generator blocks --block 0 --out x.npy", 2, "block edge 0 must be"},
        BadInput{"gen --rows 4 --cols 4 --operand C --out x.npy", 2, "--operand must be A or B"},
        BadInput{"verify --backend quantum", 2, "unknown backend 'quantum'"},
        BadInput{"run --a a.npy --b b.npy --out c.npy --backend quantum", 2, "unknown backend 'quantum'"},
        BadInput{"run --a a.npy --b b.npy --out c.npy --kernel warpdrive", 2, "unknown kernel 'warpdrive'"},
        BadInput{"bench --backend cpu --size 8 --warmup -1", 2, "--warmup must be 0 or more"},
        BadInput{"bench --size 8 --device -2", 2, "--device -2 is invalid"},
        BadInput{"bench --backend cpu --size 64 --density-a 1.5", 2, "outside [0, 1]"},
        BadInput{"bench --backend cpu --size 64 --density-b nan", 2, "outside [0, 1]"},
        BadInput{"bench --backend cpu --size 64 --kernel warpdrive", 2, "unknown kernel 'warpdrive'"},
        BadInput{"bench --backend cpu --size 64 --kernel cublas", 2, "does not implement kernel 'cublas'"},
        BadInput{"bench --backend quantum", 2, "unknown backend 'quantum'"},
        BadInput{"bench --backend cpu --size 64 --generator fractal", 2, "unknown generator 'fractal'"},
        BadInput{"bench --backend cpu --size 64 --format xml", 2, "unknown report format"},
        BadInput{"bench --backend cpu --size 64 --repeat 0", 2, "--repeat"},
        // regression: 2^64 was taken as 2^64 - 1; 2^31 - 1 runs ran for hours
        BadInput{"bench --backend cpu --size 64 --seed 18446744073709551616", 2, "is beyond 18446744073709551615"},
        BadInput{"gen --rows 2 --cols 2 --seed 18446744073709551616 --out x.npy", 2, "is beyond 18446744073709551615"},
        BadInput{"tune --backend cpu --seed 99999999999999999999999", 2, "is beyond 18446744073709551615"},
        BadInput{"bench --backend cpu --size 64 --seed -1", 2, "seed"},
        BadInput{"bench --backend cpu --size 64 --repeat 2147483647", 2, "--repeat must be at most 100000"},
        BadInput{"bench --backend cpu --size 64 --warmup 100001", 2, "--warmup must be at most 100000"},
        BadInput{"bench --backend cpu --size 64 --out /nonexistent/dir/r.json", 2, "cannot write"},
        BadInput{"bench --size abc", 2, "size"},
        BadInput{"gen --rows 4 --cols 4 --out x.txt", 2, "unknown matrix format"},
        BadInput{"gen --rows 4 --cols -4 --out /tmp/x.npy", 2, "invalid"},
        BadInput{"gen --rows 4 --cols 4 --density 2 --out /tmp/x.npy", 2, "outside [0, 1]"},
        BadInput{"gen --rows 4 --cols 4 --out /nonexistent/dir/x.npy", 2, "cannot write"},
        BadInput{"run --a /nonexistent/a.npy --b /nonexistent/b.npy --out /tmp/c.npy", 2, "no such file"},
        BadInput{"run --a /tmp --b /tmp --out /tmp/c.npy", 2, "unknown matrix format"},
        BadInput{"verify --backend cpu --kernel nope", 2, "unknown kernel"},
        // --kernel lists that name no kernel: `run --kernel ,` used to take front() of nothing and crash.
        BadInput{"run --a a.npy --b b.npy --out c.npy --kernel ,", 2, "--kernel ',' names no kernel"},
        BadInput{"run --a a.npy --b b.npy --out c.npy --kernel cpu,warptile", 2, "give a single id"},
        BadInput{"run --a a.npy --b b.npy --out c.npy --kernel all", 2, "give a single id"},
        BadInput{"verify --backend cpu --kernel ,,", 2, "--kernel ',,' names no kernel"},
        BadInput{"bench --backend cpu --size 64 --kernel ,", 2, "names no kernel"},
        // --out takes its format from the extension; a --format that contradicts it is refused
        BadInput{"bench --backend cpu --size 64 --format csv --out r.json", 2, "--format csv contradicts --out r.json"},
        BadInput{"bench --backend cpu --size 64 --format json --out R.CSV", 2, "means csv"},
        BadInput{"bench --backend cpu --size 64 --out r.xml", 2, "not a report format written here"},
        BadInput{"bench --backend cpu --suite sweep --out s.json", 2, "--suite sweep writes CSV"},
        BadInput{"bench --backend cpu --suite sweep --format json", 2, "--suite sweep writes CSV, not json"},
        BadInput{"bench --backend cpu --suite headline --out h.csv", 2, "writes a table or JSON, not CSV"},
        BadInput{"bench --backend cpu --size 64 --fail-on-target", 2, "--fail-on-target goes with --suite headline"},
        BadInput{"bench --backend cpu --size 64 --require cpu,tpu", 2, "'tpu' is not a backend"},
        BadInput{"tune --backend vulkan --require gpu", 2, "'gpu' is not a backend"},
        // the inputs' precision
        BadInput{"bench --backend cpu --size 8 --dtype fp64", 2, "unknown dtype 'fp64'; choose one of fp32, tf32, fp16, bf16"},
        BadInput{"bench --backend cpu --size 8 --kernel cpu --dtype bf16", 2, "kernel 'cpu' takes fp32 inputs, not bf16"},
        BadInput{"bench --backend cpu --size 8 --dtype fp16", 2, "no selected kernel that takes fp16 inputs"},
        BadInput{"bench --backend cpu --suite headline --dtype bf16", 2, "--dtype goes with a single problem"},
        BadInput{"verify --backend cpu --dtype fp8", 2, "unknown dtype 'fp8'"},
        BadInput{"verify --backend cpu --kernel cpu --dtype fp16", 2, "kernel 'cpu' takes fp32 inputs, not fp16"},
        BadInput{"inspect --backend cpu --size 8 --dtype tf32", 2, "backend cpu has no kernel that takes tf32 inputs"},
        BadInput{"run --a a.npy --b b.npy --out c.npy --dtype half", 2, "unknown dtype 'half'"}));

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
  for (const char* needle : {"cpu:", "joint-8x32", "S7", "segments", "relu"}) EXPECT_NE(o.output.find(needle), std::string::npos) << needle;
}

// `list --format json` is the catalogue row for row, with the backends this build finds: what the
// docs check (scripts/check_docs.py) and other tools read instead of parsing the table.
// Text for people fits a 100-column terminal unless the user asks for every column (--wide,
// before or after the command) or the terminal says it is wider (COLUMNS): the tables keep
// their most telling columns and name the others, help and notes wrap under their column.
TEST(Cli, OutputFitsOneHundredColumnsUnlessWide) {
  auto longest = [](const std::string& text) {
    std::size_t widest = 0;
    std::stringstream lines(text);
    for (std::string line; std::getline(lines, line);) widest = std::max(widest, line.size());
    return widest;
  };
  const std::string narrow = "env -u COLUMNS " + std::string(TILESKIP_BINARY) + " ";
  for (const std::string command : {"list", "--help", "bench --help", "view --help", "run --help",
                                    "inspect --backend cpu --size 96 --density-a 0.1 --density-b 1",
                                    "bench --backend cpu --size 64 --kernel all --generator blocks --density-a 0.3 --repeat 1"}) {
    Outcome o = runCommand(narrow + command);
    EXPECT_EQ(o.exitCode, 0) << command << "\n" << o.output;
    EXPECT_LE(longest(o.output), kTerminalColumns) << command << "\n" << o.output;
  }
  Outcome list = runCommand(narrow + "list");
  EXPECT_EQ(list.output.find("what it teaches  "), std::string::npos) << list.output;
  EXPECT_NE(list.output.find("(--wide adds "), std::string::npos) << list.output;
  for (const std::string wide : {"--wide list", "list --wide"}) {
    Outcome o = runCommand(narrow + wide);
    EXPECT_NE(o.output.find("what it teaches"), std::string::npos) << wide << "\n" << o.output;
    EXPECT_GT(longest(o.output), kTerminalColumns) << wide;
  }
  Outcome columns = runCommand("env COLUMNS=400 " + std::string(TILESKIP_BINARY) + " list");
  EXPECT_GT(longest(columns.output), kTerminalColumns);

  // bench marks the fastest of two or more timed rows, and counts its steps.
  const std::vector<BackendStatus> found = discoverBackends();
  if (std::none_of(found.begin(), found.end(), [](const BackendStatus& s) { return s.name == "vulkan" && s.backend; })) {
    GTEST_SKIP() << "the fastest row's mark needs two kernels: the vulkan backend";
  }
  Outcome all = runCommand(narrow + "bench --backend vulkan --size 64 --kernel naive,coalesced --repeat 1");
  ASSERT_EQ(all.exitCode, 0) << all.output;
  EXPECT_LE(longest(all.output), kTerminalColumns) << all.output;
  EXPECT_EQ(std::count(all.output.begin(), all.output.end(), '*'), 2) << all.output;  // the row and the key
  EXPECT_NE(all.output.find("* fastest median"), std::string::npos) << all.output;
  EXPECT_NE(all.output.find("[1/"), std::string::npos) << all.output;
  EXPECT_NE(all.output.find(": verifying, then timing"), std::string::npos) << all.output;
}

TEST(Cli, ListAsJsonIsTheCatalogueWithWhatImplementsEachRow) {
  fs::path dir = scratch();
  std::string stdoutPath = (dir / "list.json").string();
  Outcome o = runCommand("{ " + std::string(TILESKIP_BINARY) + " list --format json >" + stdoutPath + "; }");
  ASSERT_EQ(o.exitCode, 0) << o.output;
  std::ifstream file(stdoutPath);
  nlohmann::json doc = nlohmann::json::parse(file);  // stdout is the document alone
  EXPECT_EQ(doc["schema"], "tileskip.list/1");
  EXPECT_EQ(doc["tool"]["version"], toolVersion());
  EXPECT_EQ(doc["tool"]["commit"], toolCommit());

  std::vector<BackendStatus> found = discoverBackends();
  ASSERT_EQ(doc["backends"].size(), found.size());
  for (std::size_t i = 0; i < found.size(); ++i) {
    const nlohmann::json& b = doc["backends"][i];
    EXPECT_EQ(b["name"], found[i].name);
    EXPECT_EQ(b["available"], found[i].backend != nullptr) << found[i].name;
    if (found[i].backend) {
      EXPECT_EQ(b["device"], found[i].backend->device().name);
      EXPECT_EQ(b["driver"], found[i].backend->device().driver);
      EXPECT_TRUE(b["reason"].is_null());
    } else {
      EXPECT_FALSE(b["reason"].get<std::string>().empty()) << found[i].name;  // why, never a bare "unavailable"
    }
  }

  ASSERT_EQ(doc["kernels"].size(), kCatalogue.size());
  for (std::size_t i = 0; i < kCatalogue.size(); ++i) {
    const KernelInfo& k = kCatalogue[i];
    const nlohmann::json& row = doc["kernels"][i];
    SCOPED_TRACE(std::string(k.id));
    EXPECT_EQ(row["id"], std::string(k.id));
    EXPECT_EQ(row["number"], std::string(k.number));
    EXPECT_EQ(row["family"], std::string(familyName(k.family)));
    EXPECT_EQ(row["stem"], std::string(k.stem));
    EXPECT_EQ(row["source"], std::string(k.source));
    EXPECT_EQ(row["summary"], std::string(k.summary));
    EXPECT_EQ(row["a_granularity"], k.aGranularity);
    EXPECT_EQ(row["b_granularity"], k.bGranularity);
    const TileShape& t = k.tile;
    EXPECT_EQ(row["tile"], nlohmann::json({{"BM", t.BM}, {"BN", t.BN}, {"BK", t.BK}, {"WM", t.WM}, {"WN", t.WN},
                                           {"TM", t.TM}, {"TN", t.TN}, {"threads", t.threads}}));
    EXPECT_EQ(row["structure"]["k_block_list"], k.structure.kBlockList);
    EXPECT_EQ(row["structure"]["ring_stages"], k.structure.ringStages);
    EXPECT_EQ(row["structure"]["skip"], k.skips() ? (k.divergent() ? "thread" : k.compacts() ? "block" : k.readsPackedA() ? "topology" : "warp") : "none");
    EXPECT_EQ(row["structure"]["scheduling"], k.persistent()                                         ? "persistent"
                                              : k.structure.scheduling == Scheduling::SplitBlocks ? "split_blocks"
                                                                                                  : "tile_per_block");
    EXPECT_EQ(row["structure"]["vendor"].is_null(), !k.isBaseline());
    EXPECT_TRUE(row["structure"]["mapping"].is_string());
    EXPECT_TRUE(row["structure"]["loop"].is_string());
    EXPECT_EQ(row["glsl_twin"], k.hasGlslTwin());
    EXPECT_EQ(row["needs_hopper"], k.needsHopper());
    std::vector<std::string> dtypes;
    for (DType type : {DType::Fp32, DType::Tf32, DType::Fp16, DType::Bf16}) {
      if (k.takes(type)) dtypes.emplace_back(dtypeName(type));
    }
    EXPECT_EQ(row["dtypes"], nlohmann::json(dtypes));
    std::vector<std::string> by;
    for (const BackendStatus& s : found) {
      if (s.backend && s.backend->implements(k.id)) by.push_back(s.name);
    }
    EXPECT_EQ(row["implemented_by"], nlohmann::json(by));
  }
  // The cpu backend is in every build and implements its baseline, and only it does.
  auto cpuRow = std::find_if(doc["kernels"].begin(), doc["kernels"].end(), [](const nlohmann::json& r) { return r["id"] == "cpu"; });
  ASSERT_NE(cpuRow, doc["kernels"].end());
  EXPECT_EQ((*cpuRow)["implemented_by"], nlohmann::json::array({"cpu"}));

  ASSERT_EQ(doc["generators"].size(), generators().size());
  EXPECT_EQ(doc["generators"][0]["name"], std::string(generators()[0].name));
  EXPECT_FALSE(doc["generators"][0]["summary"].get<std::string>().empty());

  // The table stays the default.
  Outcome table = runTileskip("list");
  EXPECT_NE(table.output.find("Kernels\n"), std::string::npos) << table.output;
  EXPECT_EQ(table.output.find("\"schema\""), std::string::npos) << table.output;
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

// --suite blocksparse at a small size on whatever this machine has (lavapipe and OpenBLAS in CI): every
// field of its JSON, per case and per kernel, and the vendor GEMM and packed ceiling beside them.
TEST(Cli, BlocksparseSuiteWritesEveryCaseWithItsCeiling) {
  const fs::path out = scratch() / "blocksparse.json";
  Outcome o = runTileskip("bench --suite blocksparse --dtype fp32 --size 48 --warmup 0 --repeat 1 --out " + out.string());
  ASSERT_EQ(o.exitCode, 0) << o.output;
  std::ifstream in(out);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["schema"], "tileskip.blocksparse/1");
  EXPECT_EQ(doc["suite"], "blocksparse");
  EXPECT_EQ(doc["dtype"], "fp32");
  EXPECT_EQ(doc["size"], 48);
  ASSERT_EQ(doc["cases"].size(), 15u);  // 32-, 64- and 128-blocks: A alone at three densities, A and B at two
  // cuBLAS is the baseline where the cuda backend runs (list says so), the host's BLAS elsewhere.
  const std::string listPath = (out.parent_path() / "list.json").string();
  ASSERT_EQ(runCommand("{ " + std::string(TILESKIP_BINARY) + " list --format json >" + listPath + "; }").exitCode, 0);
  std::ifstream listFile(listPath);
  const nlohmann::json list = nlohmann::json::parse(listFile);
  bool cuda = false;
  for (const nlohmann::json& backend : list["backends"]) {
    cuda = cuda || (backend["name"] == "cuda" && backend["available"].get<bool>());
  }
  for (const nlohmann::json& c : doc["cases"]) {
    const std::string name = c["case"];
    for (const char* field : {"block", "density_a", "density_b", "joint_density", "packed_k", "baseline_ms", "ceiling_ms"}) {
      EXPECT_TRUE(c[field].is_number()) << name << " " << field;
    }
    EXPECT_EQ(c["baseline"], cuda ? "cublas" : "cpu") << name;
    EXPECT_EQ(c["cublas_ms"].is_null(), !cuda) << name;
    EXPECT_GE(c["joint_density"].get<double>(), 0.0);
    EXPECT_LE(c["joint_density"].get<double>(), 1.0);
    EXPECT_TRUE(c["failures"].empty()) << name << ": " << c["failures"];
    ASSERT_FALSE(c["kernels"].empty()) << name;
    int autos = 0;
    for (const nlohmann::json& k : c["kernels"]) {
      for (const char* field : {"kernel_ms", "prepare_ms", "e2e_ms", "speedup", "ceiling_fraction"}) {
        EXPECT_TRUE(k[field].is_number()) << name << " " << k["kernel"] << " " << field;
      }
      EXPECT_NEAR(k["speedup"].get<double>(), c["baseline_ms"].get<double>() / k["kernel_ms"].get<double>(), 1e-9);
      EXPECT_NEAR(k["ceiling_fraction"].get<double>(), c["ceiling_ms"].get<double>() / k["kernel_ms"].get<double>(), 1e-9);
      autos += k["auto"].get<bool>();
    }
    EXPECT_GE(autos, 1) << name << ": auto's choice is marked";
  }
}

// The weights suite from the command line, at a small size on what runs here: every case of the
// grid asked for, the bytes bound from the copy bandwidth and the packed ceiling beside each kernel,
// the bsr kernels among them.
TEST(Cli, WeightsSuiteWritesEveryCaseWithItsBounds) {
  const fs::path out = scratch() / "weights.json";
  Outcome o = runTileskip("bench --suite weights --dtype fp32 --size 96 --blocks 32,64 --densities 0.5 --tokens 1,24 --warmup 0 "
                          "--repeat 1 --out " + out.string());
  ASSERT_EQ(o.exitCode, 0) << o.output;
  std::ifstream in(out);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["schema"], "tileskip.weights/1");
  EXPECT_EQ(doc["suite"], "weights");
  EXPECT_EQ(doc["dtype"], "fp32");
  EXPECT_EQ(doc["size"], 96);
  EXPECT_EQ(doc["blocks"], nlohmann::json({32, 64}));
  EXPECT_EQ(doc["tokens"], nlohmann::json({1, 24}));
  ASSERT_TRUE(doc["copy_bandwidth"].is_number()) << "a device here times a copy";
  const double bandwidth = doc["copy_bandwidth"];
  // 96 x 96, the up projection 256 x 96 (96 x 2.6875 to a multiple of 16) and the down one 96 x 256;
  // two blocks, one density, two token counts.
  ASSERT_EQ(doc["cases"].size(), 3u * 2 * 1 * 2);
  const std::set<std::pair<int, int>> shapes = {{96, 96}, {256, 96}, {96, 256}};
  for (const nlohmann::json& c : doc["cases"]) {
    const std::string name = c["case"];
    const int m = c["m"], k = c["k"], n = c["n"], block = c["block"];
    EXPECT_TRUE(shapes.contains({m, k})) << name;
    EXPECT_TRUE(n == 1 || n == 24) << name;
    EXPECT_TRUE(block == 32 || block == 64) << name;
    EXPECT_EQ(c["density"], 0.5) << name;
    const double kept = c["kept_fraction"];
    EXPECT_GT(kept, 0.0) << name;
    EXPECT_LE(kept, 1.0) << name;
    // The kept blocks, X and C, once each; the bound the longer of the bytes and the packed ceiling.
    const double blocks = std::ceil(m / static_cast<double>(block)) * std::ceil(k / static_cast<double>(block));
    EXPECT_NEAR(c["bytes"].get<double>(), std::floor(kept * blocks * block * block * 4 + 4.0 * k * n + 4.0 * m * n), 1.0) << name;
    EXPECT_NEAR(c["bytes_bound_ms"].get<double>(), c["bytes"].get<double>() / bandwidth * 1e3, 1e-9) << name;
    EXPECT_TRUE(c["ceiling_ms"].is_number()) << name;
    EXPECT_DOUBLE_EQ(c["bound_ms"].get<double>(), std::max(c["bytes_bound_ms"].get<double>(), c["ceiling_ms"].get<double>())) << name;
    EXPECT_TRUE(c["failures"].empty()) << name << ": " << c["failures"];
    std::set<std::string> kernels;
    for (const nlohmann::json& kernel : c["kernels"]) {
      kernels.insert(kernel["kernel"].get<std::string>());
      EXPECT_EQ(kernel["ms"], kernel["kernel_ms"]);
      EXPECT_NEAR(kernel["bandwidth_fraction"].get<double>(), c["bytes_bound_ms"].get<double>() / kernel["ms"].get<double>(), 1e-9);
      EXPECT_NEAR(kernel["bound_fraction"].get<double>(), c["bound_ms"].get<double>() / kernel["ms"].get<double>(), 1e-9);
      if (c["baseline_ms"].is_number()) {
        EXPECT_NEAR(kernel["speedup"].get<double>(), c["baseline_ms"].get<double>() / kernel["ms"].get<double>(), 1e-9);
      }
    }
    EXPECT_TRUE(kernels.contains("bsr-64") && kernels.contains("bsr-stream-64")) << name;
  }
  // Its own options are refused elsewhere, and numbers it cannot take are refused by name.
  EXPECT_EQ(runTileskip("bench --blocks 64").exitCode, 2);
  Outcome badBlock = runTileskip("bench --suite weights --blocks 48");
  EXPECT_EQ(badBlock.exitCode, 2);
  EXPECT_NE(badBlock.output.find("--blocks 48 is not a block size"), std::string::npos) << badBlock.output;
  EXPECT_EQ(runTileskip("bench --suite weights --tokens 1,x").exitCode, 2);
  EXPECT_EQ(runTileskip("bench --suite weights --densities 1.5").exitCode, 2);
}

// `tileskip pack` packs a dense file into the .npz the bsr kernels read, describes one, and refuses
// what it cannot do without writing anything.
TEST(Cli, PackWritesAndDescribesAPackedMatrix) {
  const fs::path dir = scratch();
  const std::string dense = (dir / "w.npy").string(), packed = (dir / "w.npz").string();
  ASSERT_EQ(runTileskip("gen --generator blocks --rows 128 --cols 192 --density 0.5 --block 64 --out " + dense).exitCode, 0);
  Outcome o = runTileskip("pack " + dense + " " + packed + " --block 64 --dtype bf16");
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("128 x 192 in blocks of 64:"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("of bf16 values"), std::string::npos) << o.output;
  const BlockSparseMatrix back = readBlockSparse(packed);
  EXPECT_EQ(back.dtype(), DType::Bf16);
  EXPECT_EQ(back.block(), 64);
  Outcome described = runTileskip("pack " + packed);
  EXPECT_EQ(described.exitCode, 0) << described.output;
  EXPECT_NE(described.output.find(std::to_string(back.keptBlocks()) + " of 6 blocks kept"), std::string::npos) << described.output;
  for (const std::string& bad : {"pack " + dense + " " + (dir / "x.npz").string() + " --block 48",
                                 "pack " + dense + " " + (dir / "x.npy").string(), "pack " + dense,
                                 "pack " + dense + " " + (dir / "x.npz").string() + " --dtype tf32",
                                 "pack " + (dir / "missing.npy").string() + " " + (dir / "x.npz").string()}) {
    Outcome refused = runTileskip(bad);
    EXPECT_EQ(refused.exitCode, 2) << bad << ": " << refused.output;
  }
  EXPECT_FALSE(fs::exists(dir / "x.npz"));
  EXPECT_FALSE(fs::exists(dir / "x.npy"));  // `pack w.npy x.npy` wrote nothing
  // A packed file stands for its dense matrix wherever a matrix is read, and is never written as one.
  const std::string x = (dir / "x.npy").string(), c = (dir / "c.npy").string();
  ASSERT_EQ(runTileskip("gen --rows 192 --cols 8 --out " + x).exitCode, 0);
  Outcome run = runTileskip("run --backend cpu --a " + packed + " --b " + x + " --out " + c);
  EXPECT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find("A 128x192"), std::string::npos) << run.output;
  EXPECT_EQ(runTileskip("gen --rows 4 --cols 4 --out " + (dir / "g.npz").string()).exitCode, 2);
}

// The activations suite from the command line: eleven cases (a dense A; each sparse one as generated
// and sorted by firing), the live fraction and its 8-column groups, inspect's prediction beside each
// measured speedup on the baseline's backend, and the down projection's whole layer on every backend
// that takes the dtype.
TEST(Cli, ActivationsSuiteWritesEachCaseSortedAndNot) {
  const fs::path out = scratch() / "activations.json";
  // Vulkan alone has nothing for bf16 (its cooperative matrices take fp16): refused, no file.
  Outcome refused = runTileskip("bench --suite activations --backend vulkan --size 64 --out " + out.string());
  EXPECT_EQ(refused.exitCode, 2) << refused.output;
  EXPECT_NE(refused.output.find("no selected backend has a kernel that takes bf16"), std::string::npos) << refused.output;
  EXPECT_FALSE(fs::exists(out));
  Outcome o = runTileskip("bench --suite activations --dtype fp32 --size 64 --warmup 0 --repeat 1 --out " + out.string());
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("sorted by firing"), std::string::npos) << o.output;
  std::ifstream in(out);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["schema"], "tileskip.activations/1");
  EXPECT_EQ(doc["dtype"], "fp32");
  ASSERT_EQ(doc["cases"].size(), 11u);
  for (std::size_t i = 0; i < doc["cases"].size(); ++i) {
    const nlohmann::json& c = doc["cases"][i];
    const std::string name = c["case"];
    EXPECT_EQ(c["sorted"].get<bool>(), i > 0 && i % 2 == 0) << name;
    EXPECT_TRUE(c["failures"].empty()) << name << ": " << c["failures"];
    EXPECT_LE(c["live_fraction"].get<double>(), c["live_group_fraction"].get<double>()) << name;
    if (c["sorted"].get<bool>()) {
      const nlohmann::json& generated = doc["cases"][i - 1];
      EXPECT_EQ(c["live_fraction"], generated["live_fraction"]) << name;
      // Sorting gathers the live columns into fewer 8-column groups once the firing is skewed.
      if (c["skew"].get<double>() >= 1.5) {
        EXPECT_LT(c["live_group_fraction"].get<double>(), generated["live_group_fraction"].get<double>()) << name;
      } else {
        EXPECT_LE(c["live_group_fraction"].get<double>(), generated["live_group_fraction"].get<double>()) << name;
      }
    }
    const std::string baseline = c["baseline"];
    int predicted = 0;
    for (const nlohmann::json& k : c["kernels"]) {
      if (!k["predicted_speedup"].is_null()) ++predicted;
      if (k["kernel"] == baseline) {
        EXPECT_DOUBLE_EQ(k["predicted_speedup"].get<double>(), 1.0) << name;
      }
    }
    EXPECT_GE(predicted, 1) << name;
    const bool layer = name.rfind("LLaMA", 0) == 0;
    EXPECT_EQ(c["mlp_ms"].is_number(), layer) << name;
    if (layer) {
      EXPECT_FALSE(c["layers"].empty()) << name;
    }
  }
}

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

// A CI gate that verifies nothing does not pass: the CPU backend takes no bf16 inputs.
TEST(Cli, VerifyOfADtypeNoKernelTakesIsRefusedNotPassed) {
  Outcome o = runTileskip("verify --backend cpu --quick --dtype bf16");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("no selected kernel that takes bf16 inputs"), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("totals"), std::string::npos) << o.output;
}

TEST(Cli, GenThenRunGivesTheReferenceProduct) {
  fs::path dir = scratch();
  std::string a = (dir / "a.npy").string(), b = (dir / "b.mtx").string(), c = (dir / "c.npy").string();
  ASSERT_EQ(runTileskip("gen --generator segments --rows 70 --cols 45 --density 0.5 --seed 3 --out " + a).exitCode, 0);
  ASSERT_EQ(runTileskip("gen --generator uniform --operand B --rows 45 --cols 33 --density 0.3 --out " + b).exitCode, 0);
  Outcome o = runTileskip("run --backend cpu --a " + a + " --b " + b + " --out " + c);
  ASSERT_EQ(o.exitCode, 0) << o.output;
  Matrix product = readMatrix(c);
  EXPECT_TRUE(compareToReference(product, referenceProduct(readMatrix(a), readMatrix(b))).passed);
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

// An MLP layer from files: Y is act(X·W1)·W2 (whole numbers: exact), each GEMM said and checked,
// and the compared layer's time beside it.
TEST(Cli, MlpWritesTheLayerAndComparesIt) {
  fs::path dir = scratch();
  auto whole = [](Matrix m) {
    for (float& v : m.values()) v = std::nearbyint(5.0f * v);
    return m;
  };
  const Matrix x = whole(generate("uniform", Operand::A, 40, 17, 1.0, 1));
  const Matrix w1 = whole(generate("uniform", Operand::B, 17, 60, 1.0, 2));
  const Matrix w2 = whole(generate("uniform", Operand::B, 60, 9, 1.0, 3));
  const std::string fx = (dir / "x.npy").string(), fw1 = (dir / "w1.npy").string(), fw2 = (dir / "w2.mtx").string();
  const std::string y = (dir / "y.npy").string();
  writeMatrix(fx, x);
  writeMatrix(fw1, w1);
  writeMatrix(fw2, w2);
  Outcome o = runTileskip("mlp --backend cpu --x " + fx + " --w1 " + fw1 + " --w2 " + fw2 + " --out " + y + " --compare cpu");
  ASSERT_EQ(o.exitCode, 0) << o.output;
  Matrix h = referenceExact(x, w1);
  for (float& v : h.values()) v = std::max(v, 0.0f);
  const Matrix expected = referenceExact(h, w2);
  const Matrix written = readMatrix(y);
  ASSERT_EQ(written.size(), expected.size());
  EXPECT_EQ(std::memcmp(written.data(), expected.data(), expected.bytes()), 0);
  for (const char* said : {"= relu(X 40x17 · W1 17x60) · W2 60x9 by cpu", "X·W1: cpu ", "H·W2: cpu ", "relu on the host: ",
                           "verified against the float64 reference", "the same layer by cpu twice: "}) {
    EXPECT_NE(o.output.find(said), std::string::npos) << said << "\n" << o.output;
  }

  // Shapes that do not chain are refused, by name, and nothing is written.
  const std::string never = (dir / "never.npy").string();
  Outcome bad = runTileskip("mlp --backend cpu --x " + fx + " --w1 " + fw2 + " --w2 " + fw2 + " --out " + never);
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.output.find("W1 is 60x9 but X has 17 columns"), std::string::npos) << bad.output;
  EXPECT_FALSE(fs::exists(never));
  Outcome gelu = runTileskip("mlp --backend cpu --x " + fx + " --w1 " + fw1 + " --w2 " + fw2 + " --out " + never +
                             " --activation gelu");
  EXPECT_EQ(gelu.exitCode, 2);
  EXPECT_NE(gelu.output.find("unknown activation 'gelu': choose relu or none"), std::string::npos) << gelu.output;
  Outcome all = runTileskip("mlp --backend cpu --x " + fx + " --w1 " + fw1 + " --w2 " + fw2 + " --out " + never +
                            " --compare all");
  EXPECT_EQ(all.exitCode, 2);
  EXPECT_NE(all.output.find("--compare 'all': mlp multiplies with one kernel"), std::string::npos) << all.output;
  EXPECT_FALSE(fs::exists(never));
}

// The parse-and-validate path in-process, as the CLI fuzzer calls it: nothing runs, nothing is
// opened or written, and the verdict matches what the command would exit with.
namespace {

struct Parsed {
  std::optional<int> exitCode;  // nullopt: the command would run
  std::string output;
};

Parsed parseOnly(const std::vector<std::string>& arguments) {
  std::vector<const char*> argv = {"tileskip"};
  for (const std::string& a : arguments) argv.push_back(a.c_str());
  std::ostringstream out;
  cli::Cli cli;
  std::optional<int> code = cli.parse(static_cast<int>(argv.size()), argv.data(), out, out);
  return {code, out.str()};
}

}  // namespace

TEST(CliParse, ValidCommandsWouldRunAndTouchNothing) {
  fs::path never = scratch() / "never-created.npy";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"list"},
        {"bench", "--backend", "all", "--kernel", "warptile,joint-8x32", "--size", "64", "--density-a", "0.25"},
        {"verify", "--backend", "cpu", "--quick"},
        {"gen", "--rows", "3", "--cols", "4", "--out", never.string()},
        {"run", "--a", "/nonexistent/a.npy", "--b", "b.mtx", "--out", never.string(), "--kernel", "cpu"},
        {"mlp", "--x", "/nonexistent/x.npy", "--w1", "w1.npy", "--w2", "w2.mtx", "--out", never.string(), "--dtype", "bf16",
         "--kernel", "compact-mma-64", "--compare", "cublas", "--activation", "none"}}) {
    Parsed p = parseOnly(args);
    EXPECT_FALSE(p.exitCode.has_value()) << args.front() << ": " << p.output;
  }
  EXPECT_FALSE(fs::exists(never));
}

TEST(CliParse, HelpAndBadValuesGiveTheExitCodeTheCommandWould) {
  Parsed help = parseOnly({"bench", "--help"});
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.output.find("--density-a"), std::string::npos);
  Parsed unknownFlag = parseOnly({"bench", "--frobnicate"});
  EXPECT_EQ(unknownFlag.exitCode, 2);
  EXPECT_NE(unknownFlag.output.find("Run with --help"), std::string::npos);
  Parsed badSize = parseOnly({"bench", "--size", "0"});
  EXPECT_EQ(badSize.exitCode, 2);
  EXPECT_NE(badSize.output.find("tileskip: error: --size 0 is invalid"), std::string::npos) << badSize.output;
  Parsed badRepeat = parseOnly({"bench", "--repeat", "0"});
  EXPECT_EQ(badRepeat.exitCode, 2);
  EXPECT_NE(badRepeat.output.find("--repeat must be at least 1"), std::string::npos) << badRepeat.output;
}

namespace {

fs::path emptyFolder(const std::string& name) { return tileskip::testing::emptyFolder(scratch(), name); }

std::vector<std::string> namesIn(const fs::path& dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST(Cli, RunKilledMidWriteLeavesNoOutputAndNoTemporary) {
  // A file size limit makes the kernel send SIGXFSZ in the middle of writing C (360 kB): the
  // same path as Ctrl-C or SIGTERM there, but at a deterministic moment.
  fs::path dir = emptyFolder("killed");
  std::string a = (dir / "a.npy").string(), b = (dir / "b.npy").string(), c = (dir / "c.npy").string();
  writeMatrix(a, generate("uniform", Operand::A, 300, 40, 0.5, 1));
  writeMatrix(b, generate("uniform", Operand::B, 40, 300, 0.5, 2));
  Outcome o = runTileskip("run --backend cpu --a " + a + " --b " + b + " --out " + c);
  ASSERT_EQ(o.exitCode, 0) << o.output;  // the same run without the limit succeeds
  fs::remove(c);
  Outcome killed = runCommand("sh -c 'ulimit -c 0; ulimit -f 16; exec \"$0\" \"$@\"' " + std::string(TILESKIP_BINARY) +
                                   " run --backend cpu --a " + a + " --b " + b + " --out " + c);
  EXPECT_EQ(killed.exitCode, 128 + SIGXFSZ) << killed.output;
  EXPECT_EQ(namesIn(dir), (std::vector<std::string>{"a.npy", "b.npy"}));
}

TEST(Cli, BenchFailingAfterItsReportWasOpenedLeavesNoReport) {
  fs::path dir = emptyFolder("no_report");
  Outcome o = runTileskip("bench --backend cpu --size 64 --kernel warptile --out " + (dir / "r.json").string());
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_NE(o.output.find("does not implement kernel 'warptile'"), std::string::npos) << o.output;
  EXPECT_TRUE(fs::is_empty(dir));
}

namespace {

// Runs tileskip with host memory capped at about 2 GiB: a ulimit in a normal build; in an
// AddressSanitizer build (which reserves terabytes of address space, so a ulimit -v would
// stop it from starting) ASan's own allocation cap does it.
Outcome runWithLittleHostMemory(const std::string& arguments) {
#if defined(TILESKIP_ADDRESS_SANITIZER)
  return runCommand("env ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=2048 " +
                     std::string(TILESKIP_BINARY) + " " + arguments);
#else
  return runCommand("sh -c 'ulimit -v 2000000; exec \"$0\" \"$@\"' " + std::string(TILESKIP_BINARY) + " " + arguments);
#endif
}

}  // namespace

TEST(Cli, AProblemTooLargeForHostMemorySaysHowMuchItNeedsAndExits3) {
  // 40000 x 40000 floats is 6.0 GiB: within 32-bit indexing, beyond the cap.
  Outcome gen = runWithLittleHostMemory("gen --rows 40000 --cols 40000 --out " + (scratch() / "huge.npy").string());
  EXPECT_EQ(gen.exitCode, 3) << gen.output;
  EXPECT_NE(gen.output.find("needs 6.0 GiB of host memory for a 40000x40000 matrix"), std::string::npos) << gen.output;
  EXPECT_FALSE(fs::exists(scratch() / "huge.npy"));

  Outcome bench = runWithLittleHostMemory("bench --backend cpu --kernel cpu --size 40000");
  EXPECT_EQ(bench.exitCode, 3) << bench.output;
  EXPECT_NE(bench.output.find(" GiB of host memory for "), std::string::npos) << bench.output;
}

// Bad files given to `tileskip run`: each is refused with exit 2 and a message that names what
// is wrong, and no C is written. "@" in the arguments stands for the folder of test files.
namespace {

std::string bytesOf(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeBytes(const fs::path& file, const std::string& bytes) { std::ofstream(file, std::ios::binary) << bytes; }

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  std::size_t at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("'" + from + "' not found");
  return text.replace(at, from.size(), to);
}

fs::path badFileFolder() {
  static const fs::path dir = [] {
    fs::path d = emptyFolder("bad_files");
    writeMatrix(d / "good_4x3.npy", generate("uniform", Operand::A, 4, 3, 0.5, 1));
    writeMatrix(d / "good_3x5.npy", generate("uniform", Operand::B, 3, 5, 0.5, 2));
    writeMatrix(d / "good_3x5.mtx", generate("uniform", Operand::B, 3, 5, 0.5, 2));
    std::string npy = bytesOf(d / "good_4x3.npy");
    std::string mtx = bytesOf(d / "good_3x5.mtx");
    writeBytes(d / "truncated.npy", npy.substr(0, npy.size() - 5));
    writeBytes(d / "truncated.mtx", mtx.substr(0, mtx.rfind('\n', mtx.size() - 2) + 1));
    writeBytes(d / "header_only.npy", npy.substr(0, 10));
    writeBytes(d / "not_numpy.npy", "PK\x03\x04 a zip file");
    writeBytes(d / "no_banner.mtx", "1 1 1\n1 1 2\n");
    writeBytes(d / "vector.mtx", replaced(mtx, "matrix coordinate", "vector coordinate"));
    writeBytes(d / "complex.npy", replaced(npy, "'<f4'", "'<c8'"));
    writeBytes(d / "cube.npy", replaced(npy, "(4, 3), }", "(4,3,1),}"));
    writeBytes(d / "fortran_maybe.npy", replaced(npy, "False", "Maybe"));
    writeBytes(d / "empty.npy", "");
    writeBytes(d / "empty.mtx", "");
    fs::create_directories(d / "folder.npy");
    fs::create_directories(d / "blocked.npy" / "inside");
    return d;
  }();
  return dir;
}

}  // namespace

class CliBadFile : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadFile, IsRefusedWithExitCode2AndAReasonAndNothingIsWritten) {
  std::string arguments = GetParam().arguments;
  for (std::size_t at; (at = arguments.find('@')) != std::string::npos;) arguments.replace(at, 1, badFileFolder().string());
  expectRefusal(runTileskip(arguments), GetParam());
  EXPECT_FALSE(fs::exists(badFileFolder() / "c.npy"));
  for (const std::string& name : namesIn(badFileFolder())) EXPECT_EQ(name.find(".tmp"), std::string::npos) << name;
}

INSTANTIATE_TEST_SUITE_P(
    Files, CliBadFile,
    ::testing::Values(
        BadInput{"run --backend cpu --a @/missing.npy --b @/good_3x5.npy --out @/c.npy", 2, "missing.npy: no such file"},
        BadInput{"run --backend cpu --a @/good_4x3.npy --b @/missing.mtx --out @/c.npy", 2, "missing.mtx: no such file"},
        BadInput{"run --backend cpu --a @/folder.npy --b @/good_3x5.npy --out @/c.npy", 2, "is a directory"},
        BadInput{"run --backend cpu --a @/truncated.npy --b @/good_3x5.npy --out @/c.npy", 2, "(truncated file)"},
        BadInput{"run --backend cpu --a @/header_only.npy --b @/good_3x5.npy --out @/c.npy", 2, "ends inside the header"},
        BadInput{"run --backend cpu --a @/good_4x3.npy --b @/truncated.mtx --out @/c.npy", 2, "(truncated?)"},
        BadInput{"run --backend cpu --a @/not_numpy.npy --b @/good_3x5.npy --out @/c.npy", 2, "NumPy magic string"},
        BadInput{"run --backend cpu --a @/empty.npy --b @/good_3x5.npy --out @/c.npy", 2, "NumPy magic string"},
        BadInput{"run --backend cpu --a @/good_4x3.npy --b @/no_banner.mtx --out @/c.npy", 2,
                 "no_banner.mtx:1: expected the banner"},
        BadInput{"run --backend cpu --a @/good_4x3.npy --b @/vector.mtx --out @/c.npy", 2,
                 "vector.mtx:1: object 'vector' is not 'matrix'"},
        BadInput{"run --backend cpu --a @/good_4x3.npy --b @/empty.mtx --out @/c.npy", 2, "empty.mtx: empty file"},
        BadInput{"run --backend cpu --a @/complex.npy --b @/good_3x5.npy --out @/c.npy", 2, "dtype <c8 is not a real number type"},
        BadInput{"run --backend cpu --a @/cube.npy --b @/good_3x5.npy --out @/c.npy", 2, "expected a 2-D array, got 3"},
        BadInput{"run --backend cpu --a @/fortran_maybe.npy --b @/good_3x5.npy --out @/c.npy", 2, "fortran_order is Maybe"},
        BadInput{"run --backend cpu --a @/good_4x3.npy --b @/good_4x3.npy --out @/c.npy", 2,
                 "shapes do not agree: A is 4x3 and B is 4x3"},
        BadInput{"run --backend cpu --a @/good_4x3.npy --b @/good_3x5.mtx --out @/c.csv", 2, "unknown matrix format '.csv'"},
        BadInput{"run --backend cpu --a @/good_4x3.npy --b @/good_3x5.mtx --out /proc/c.npy", 2,
                 "/proc/c.npy: cannot write here"},
        BadInput{"run --backend cpu --a @/good_4x3.npy --b @/good_3x5.mtx --out @/no/such/folder/c.npy", 2,
                 "cannot write here (does the folder exist"},
        BadInput{"run --backend cpu --a @/good_4x3.npy --b @/good_3x5.mtx --out @/blocked.npy", 2,
                 "blocked.npy: cannot replace the file"}));

TEST(Cli, RunComputesWithNaNAndInfInputsAndSaysSo) {
  fs::path dir = emptyFolder("non_finite");
  Matrix a = generate("uniform", Operand::A, 6, 16, 1.0, 4);
  a(1, 3) = std::numeric_limits<float>::quiet_NaN();
  a(4, 9) = std::numeric_limits<float>::infinity();
  Matrix b = generate("uniform", Operand::B, 16, 5, 1.0, 5);
  writeMatrix(dir / "a.npy", a);
  writeMatrix(dir / "b.mtx", b);
  Outcome o = runTileskip("run --backend cpu --a " + (dir / "a.npy").string() + " --b " + (dir / "b.mtx").string() +
                          " --out " + (dir / "c.npy").string());
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("its finite elements verified against the float64 reference"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("the inputs hold NaN/Inf (A: 1 NaN and 1 Inf; B: no NaN or Inf), computed with IEEE "
                          "arithmetic: C holds 5 NaN and 5 Inf"),
            std::string::npos)
      << o.output;
  // Row 1 meets the NaN and row 4 the Inf in every column (B is dense and non-zero); no other
  // row is touched.
  Matrix c = readMatrix(dir / "c.npy");
  for (int j = 0; j < c.cols(); ++j) {
    EXPECT_TRUE(std::isnan(c(1, j))) << j;
    EXPECT_TRUE(std::isinf(c(4, j))) << j;
    for (int i : {0, 2, 3, 5}) EXPECT_TRUE(std::isfinite(c(i, j))) << i << "," << j;
  }
}

// Regression: fp32 partial sums that overflow where the float64 product is finite are the inputs'
// scale, reported, not a wrong C (exit 1) with a garbled message.
TEST(Cli, RunWhosePartialSumsOverflowFp32SaysSoAndSucceeds) {
  fs::path dir = emptyFolder("partial_overflow");
  Matrix a(2, 3), b(3, 2);
  a(0, 0) = a(0, 1) = 3e38f;
  a(0, 2) = -3e38f;
  a(1, 0) = 1.0f;
  for (int p = 0; p < 3; ++p) b(p, 0) = b(p, 1) = 1.0f;
  writeMatrix(dir / "a.npy", a);
  writeMatrix(dir / "b.npy", b);
  Outcome o = runTileskip("run --backend cpu --a " + (dir / "a.npy").string() + " --b " + (dir / "b.npy").string() +
                          " --out " + (dir / "c.npy").string());
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("exceeds fp32's range"), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("closest ;"), std::string::npos) << o.output;
  EXPECT_EQ(readMatrix(dir / "c.npy")(1, 0), 1.0f);
}

// Regression: a device as the output is written to, never replaced by a regular file,
// and a write that fails there is an error.
TEST(Cli, BenchToADeviceWritesToItAndAFullOneFails) {
  struct stat before {};
  ASSERT_EQ(::stat("/dev/null", &before), 0);
  Outcome ok = runTileskip("bench --backend cpu --size 16 --warmup 0 --repeat 1 --format json --out /dev/null");
  EXPECT_EQ(ok.exitCode, 0) << ok.output;
  struct stat after {};
  ASSERT_EQ(::stat("/dev/null", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode));
  EXPECT_EQ(after.st_rdev, before.st_rdev);
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full";
  Outcome full = runTileskip("bench --backend cpu --size 16 --warmup 0 --repeat 1 --format json --out /dev/full");
  EXPECT_EQ(full.exitCode, 2) << full.output;
  EXPECT_NE(full.output.find("/dev/full: writing failed"), std::string::npos) << full.output;
  EXPECT_EQ(full.output.find("wrote /dev/full"), std::string::npos) << full.output;
}

// Gates: `tileskip --version`, and `--require` for list and verify (exit 3 naming
// what is missing; 2 for a name that is no backend).
TEST(Cli, VersionNamesTheToolVersionAndCommit) {
  Outcome o = runTileskip("--version");
  EXPECT_EQ(o.exitCode, 0) << o.output;
  EXPECT_EQ(o.output.rfind("tileskip 0.", 0), 0u) << o.output;
  EXPECT_NE(o.output.find("(commit "), std::string::npos) << o.output;
  // The commit is the tree's as built, not as configured: a report once named a commit dozens
  // of commits old. (Where the sources are no git checkout, there is nothing to compare.)
  Outcome git = runCommand("git -C '" + std::string(TILESKIP_SOURCE_DIR) + "' describe --always --dirty --abbrev=12");
  if (git.exitCode == 0) {
    std::string commit = git.output.substr(0, git.output.find('\n'));
    EXPECT_NE(o.output.find("(commit " + commit + ")"), std::string::npos) << o.output << " vs git: " << commit;
  }
}

TEST(Cli, RequireFailsWithExitThreeNamingWhatIsMissing) {
  Outcome cpu = runTileskip("list --require cpu");
  EXPECT_EQ(cpu.exitCode, 0) << cpu.output;
  Outcome unknown = runTileskip("list --require cpu,tpu");
  EXPECT_EQ(unknown.exitCode, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("'tpu' is not a backend"), std::string::npos) << unknown.output;
  Outcome cuda = runTileskip("list --require cpu,cuda");
  if (cuda.exitCode == 0) GTEST_SKIP() << "cuda is available here";
  EXPECT_EQ(cuda.exitCode, 3) << cuda.output;
  EXPECT_NE(cuda.output.find("a required backend is unavailable: cuda: "), std::string::npos) << cuda.output;
  Outcome verify = runTileskip("verify --backend cpu --quick --require cuda");
  EXPECT_EQ(verify.exitCode, 3) << verify.output;
  EXPECT_NE(verify.output.find("cuda: "), std::string::npos) << verify.output;
}

TEST(Cli, BenchAndTuneRequireTheBackendsTheyRunOn) {
  Outcome cpu = runTileskip("bench --backend cpu --size 16 --warmup 0 --repeat 1 --require cpu");
  EXPECT_EQ(cpu.exitCode, 0) << cpu.output;
  // cuda is missing here, or present but not what --backend cpu runs: either way the gate fails.
  Outcome cuda = runTileskip("bench --backend cpu --size 16 --warmup 0 --repeat 1 --require cpu,cuda");
  EXPECT_EQ(cuda.exitCode, 3) << cuda.output;
  EXPECT_NE(cuda.output.find("a required backend is unavailable: cuda: "), std::string::npos) << cuda.output;
  EXPECT_EQ(cuda.output.find("verified"), std::string::npos) << "the gate comes before any kernel runs: " << cuda.output;
  Outcome tune = runTileskip("tune --backend cpu --require vulkan");
  EXPECT_EQ(tune.exitCode, 3) << tune.output;
  EXPECT_NE(tune.output.find("vulkan: "), std::string::npos) << tune.output;
}

// Self-describing results: a row read alone says what made it.
TEST(Cli, BenchFilesTakeTheirFormatFromTheExtensionAndDescribeThemselves) {
  fs::path dir = scratch();
  std::string csvPath = (dir / "rows.csv").string(), jsonPath = (dir / "rows.json").string();
  Outcome csv = runTileskip("bench --backend cpu --m 40 --n 24 --k 16 --block-b 8 --warmup 1 --repeat 2 --out " + csvPath);
  ASSERT_EQ(csv.exitCode, 0) << csv.output;
  EXPECT_NE(csv.output.find("wrote " + csvPath + " (csv)"), std::string::npos) << csv.output;
  EXPECT_NE(csv.output.find("median ms"), std::string::npos) << "the screen gets the table: " << csv.output;
  std::ifstream csvFile(csvPath);
  std::string header, row;
  std::getline(csvFile, header);
  std::getline(csvFile, row);
  auto columns = [](const std::string& line) {  // RFC 4180: a quoted field may hold commas and doubled quotes
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        cells.emplace_back();
      } else {
        cells.back() += c;
      }
    }
    return cells;
  };
  std::vector<std::string> names = columns(header), values = columns(row);
  ASSERT_EQ(names.size(), values.size()) << header << "\n" << row;
  auto field = [&](const std::string& name) {
    auto it = std::find(names.begin(), names.end(), name);
    EXPECT_NE(it, names.end()) << name << " missing from " << header;
    return it == names.end() ? std::string() : values[static_cast<std::size_t>(it - names.begin())];
  };
  EXPECT_EQ(field("block_a"), "32");
  EXPECT_EQ(field("block_b"), "8");
  EXPECT_EQ(field("dtype"), "fp32");
  EXPECT_EQ(field("tool_version"), toolVersion());
  EXPECT_EQ(field("tool_commit"), toolCommit());
  EXPECT_NE(field("api").find("OpenBLAS"), std::string::npos);  // the cpu backend's library; a GPU's has a driver too
  field("driver");
  EXPECT_EQ(field("warmup"), "1");
  EXPECT_EQ(field("repeat"), "2");
  EXPECT_GT(std::stod(field("tolerance")), 0.0);
  EXPECT_EQ(field("host"), hostDescription());
  EXPECT_EQ(field("tune_overrides"), "");

  Outcome json = runTileskip("bench --backend cpu --size 24 --warmup 0 --repeat 3 --out " + jsonPath);
  ASSERT_EQ(json.exitCode, 0) << json.output;
  std::ifstream jsonFile(jsonPath);
  nlohmann::json doc = nlohmann::json::parse(jsonFile);
  EXPECT_EQ(doc["schema"], "tileskip.bench/1");
  EXPECT_EQ(doc["tool"]["version"], toolVersion());
  EXPECT_EQ(doc["tool"]["commit"], toolCommit());
  EXPECT_EQ(doc["dtype"], "fp32");
  EXPECT_EQ(doc["timing"]["repeat"], 3);
  EXPECT_EQ(doc["timing"]["warmup"], 0);
  EXPECT_EQ(doc["problem"]["block_a"], 32);
  EXPECT_TRUE(doc["rows"][0]["driver"].is_string());
  EXPECT_NE(doc["rows"][0]["api"].get<std::string>().find("OpenBLAS"), std::string::npos);
  EXPECT_GT(doc["rows"][0]["error"]["tolerance"].get<double>(), 0.0);
  // .txt is the table; --format agreeing with the extension is fine.
  Outcome text = runTileskip("bench --backend cpu --size 16 --warmup 0 --repeat 1 --format table --out " + (dir / "r.txt").string());
  ASSERT_EQ(text.exitCode, 0) << text.output;
  std::ifstream textFile(dir / "r.txt");
  std::string first;
  std::getline(textFile, first);
  EXPECT_EQ(first.rfind("tileskip bench", 0), 0u) << first;
}

TEST(Cli, VerifyWritesJsonAndJunitWithTotalsAndShowsProgress) {
  fs::path dir = scratch();
  std::string junit = (dir / "verify.xml").string();
  // stdout alone is the JSON document; progress and the totals line go to stderr.
  std::string stdoutPath = (dir / "stdout.json").string();
  Outcome json = runCommand("{ " + std::string(TILESKIP_BINARY) + " verify --backend cpu --quick --format json --junit " +
                            junit + " >" + stdoutPath + "; }");
  ASSERT_EQ(json.exitCode, 0) << json.output;
  std::ifstream stdoutFile(stdoutPath);
  nlohmann::json doc = nlohmann::json::parse(stdoutFile);
  EXPECT_EQ(doc["schema"], "tileskip.verify/1");
  int cases = doc["totals"]["cases"].get<int>();
  EXPECT_GT(cases, 0);
  EXPECT_EQ(doc["totals"]["passed"], cases);
  EXPECT_EQ(doc["backends"][0]["backend"], "cpu");
  const std::string& err = json.output;
  EXPECT_NE(err.find("totals: " + std::to_string(cases) + " cases, " + std::to_string(cases) + " passed, 0 failed"), std::string::npos) << err;
  EXPECT_NE(err.find("[1/"), std::string::npos) << err;
  EXPECT_NE(err.find(", about "), std::string::npos) << err;
  EXPECT_NE(err.find("wrote " + junit + " (JUnit XML)"), std::string::npos) << err;
  std::ifstream xmlFile(junit);
  std::string xml((std::istreambuf_iterator<char>(xmlFile)), std::istreambuf_iterator<char>());
  EXPECT_NE(xml.find("<testsuites name=\"tileskip verify\" tests=\"" + std::to_string(cases) + "\" failures=\"0\""),
            std::string::npos)
      << xml;
  Outcome table = runTileskip("verify --backend cpu --quick");
  EXPECT_NE(table.output.find("totals: " + std::to_string(cases) + " cases"), std::string::npos) << table.output;
  Outcome badFormat = runTileskip("verify --backend cpu --format xml");
  EXPECT_EQ(badFormat.exitCode, 2) << badFormat.output;
  Outcome unwritable = runTileskip("verify --backend cpu --quick --junit /nonexistent/dir/v.xml");
  EXPECT_EQ(unwritable.exitCode, 2) << unwritable.output;
  EXPECT_EQ(unwritable.output.find("pass"), std::string::npos) << "refused before verifying: " << unwritable.output;

  // --out in the format its extension names; another extension is refused before verifying.
  const fs::path outDir = emptyFolder("verify_out");
  for (const char* name : {"v.json", "v.xml", "v.txt"}) {
    Outcome o = runTileskip("verify --backend cpu --quick --out " + (outDir / name).string());
    ASSERT_EQ(o.exitCode, 0) << name << ": " << o.output;
  }
  std::ifstream jsonOut(outDir / "v.json");
  const nlohmann::json written = nlohmann::json::parse(jsonOut);
  EXPECT_EQ(written["suite"], "quick");
  EXPECT_TRUE(written["unavailable"].is_array());
  std::ifstream xmlOut(outDir / "v.xml");
  const std::string junitOut((std::istreambuf_iterator<char>(xmlOut)), std::istreambuf_iterator<char>());
  EXPECT_EQ(junitOut.rfind("<?xml", 0), 0u) << junitOut;
  EXPECT_NE(junitOut.find("<testcase "), std::string::npos);
  std::ifstream textOut(outDir / "v.txt");
  const std::string tableOut((std::istreambuf_iterator<char>(textOut)), std::istreambuf_iterator<char>());
  EXPECT_NE(tableOut.find("totals: "), std::string::npos) << tableOut;
  Outcome unknown = runTileskip("verify --backend cpu --quick --out " + (outDir / "v.html").string());
  EXPECT_EQ(unknown.exitCode, 2) << unknown.output;
  EXPECT_EQ(unknown.output.find("pass"), std::string::npos) << "refused before verifying: " << unknown.output;
  EXPECT_FALSE(fs::exists(outDir / "v.html"));
}
