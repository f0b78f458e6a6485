// Your own matrices end to end: file operands through bench, inspect and run, per-operand
// generators, `inspect`'s documented JSON, and `--kernel auto`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "core/model/block_sparse.hpp"
#include "core/model/generators.hpp"
#include "core/model/live_columns.hpp"
#include "core/io/matrix_io.hpp"
#include "core/model/reference.hpp"
#include "run_command.hpp"

using namespace tileskip;
namespace fs = std::filesystem;
using tileskip::testing::Outcome;
using tileskip::testing::runTileskip;

namespace {

fs::path scratch() { return tileskip::testing::scratchFolder("tileskip_inspect_test_"); }

bool vulkanAvailable() {
  static const bool available = runTileskip("list").output.find("vulkan: unavailable") == std::string::npos &&
                                runTileskip("list").output.find("vulkan:") != std::string::npos;
  return available;
}

struct Files {
  std::string a, b;
};

// 128-aligned zero blocks at density 0.25: a clear case for skipping.
Files blockFiles(const fs::path& dir, int m = 256, int k = 256, int n = 256) {
  GeneratorOptions options;
  options.block = 128;
  Files f{(dir / "a.npy").string(), (dir / "b.mtx").string()};
  writeMatrix(f.a, generate("blocks", Operand::A, m, k, 0.25, 1, options));
  writeMatrix(f.b, generate("blocks", Operand::B, k, n, 0.25, 2, options));
  return f;
}

nlohmann::json readJson(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST(CliInspect, JsonCarriesTheDocumentedFields) {
  if (!vulkanAvailable()) GTEST_SKIP() << "no Vulkan device: inspect of a single-kernel backend says little";
  const fs::path dir = scratch();
  const Files f = blockFiles(dir, 200, 136, 190);
  const fs::path out = dir / "inspect.json";
  Outcome o = runTileskip("inspect --backend vulkan --a " + f.a + " --b " + f.b + " --format json --out " + out.string());
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("recommendation:"), std::string::npos) << o.output;  // the screen gets the table
  const nlohmann::json doc = readJson(out);
  EXPECT_EQ(doc["schema"], "tileskip.inspect/1");
  EXPECT_TRUE(doc["tool"]["version"].is_string());
  EXPECT_EQ(doc["a"]["rows"], 200);
  EXPECT_EQ(doc["a"]["cols"], 136);
  EXPECT_EQ(doc["b"]["cols"], 190);
  EXPECT_EQ(doc["a"]["source"], f.a);
  ASSERT_TRUE(doc["kernels"].is_array());
  bool sawSkipping = false;
  for (const nlohmann::json& k : doc["kernels"]) {
    for (const char* field : {"kernel", "a_granularity", "b_granularity", "joint_density", "ideal_speedup",
                              "load_bound_speedup", "predicted_speedup"}) {
      EXPECT_TRUE(k.contains(field)) << field << " in " << k.dump();
    }
    if (k["kernel"] == "joint-8x32") {
      sawSkipping = true;
      EXPECT_EQ(k["a_granularity"], 8);
      EXPECT_EQ(k["b_granularity"], 32);
      EXPECT_LT(k["joint_density"].get<double>(), 0.5);
    }
    if (k["kernel"] == "a-warp") {
      EXPECT_EQ(k["b_granularity"], 0);  // not inspected
    }
  }
  EXPECT_TRUE(sawSkipping);
  ASSERT_TRUE(doc["compaction"].is_array());
  EXPECT_EQ(doc["compaction"].size(), std::size(kCompactionRows) * std::size(kCompactionGranularities));
  for (const nlohmann::json& c : doc["compaction"]) {
    for (const char* field : {"rows", "granularity", "live_fraction", "max_live_fraction"}) {
      EXPECT_TRUE(c.contains(field)) << field << " in " << c.dump();
    }
    EXPECT_LE(c["live_fraction"].get<double>(), c["max_live_fraction"].get<double>());
  }
  EXPECT_TRUE(doc["recommendation"]["kernel"].is_string());
  EXPECT_FALSE(doc["recommendation"]["reason"].get<std::string>().empty());
}

TEST(CliInspect, UnstructuredFilesAreToldToStayDense) {
  if (!vulkanAvailable()) GTEST_SKIP() << "no Vulkan device";
  const fs::path dir = scratch();
  const std::string a = (dir / "a.npy").string(), b = (dir / "b.npy").string();
  writeMatrix(a, generate("uniform", Operand::A, 256, 256, 0.5, 1));
  writeMatrix(b, generate("uniform", Operand::B, 256, 256, 0.5, 2));
  Outcome o = runTileskip("inspect --backend vulkan --a " + a + " --b " + b);
  ASSERT_EQ(o.exitCode, 0) << o.output;
  // The fastest dense kernel by the model's defaults: K12 (dense 0.92 of K11's time).
  EXPECT_NE(o.output.find("recommendation: hoisted: stay dense"), std::string::npos) << o.output;
}

// Activations whose zeros are spread out (neurons that fire by a power law, `gen --skew`) leave
// columns dead in whole row tiles: inspect says what gathering them would multiply, beside what
// the tiles skip; dense operands have nothing to gather. A skew outside its range is refused.
TEST(CliInspect, SpreadOutZerosAreToldWhatCompactionWouldGather) {
  if (!vulkanAvailable()) GTEST_SKIP() << "no Vulkan device";
  const fs::path dir = scratch();
  const std::string a = (dir / "h.npy").string(), b = (dir / "w.npy").string(), dense = (dir / "x.npy").string();
  ASSERT_EQ(runTileskip("gen --generator neurons --skew 2 --rows 512 --cols 1024 --density 0.1 --out " + a).exitCode, 0);
  ASSERT_EQ(runTileskip("gen --generator uniform --rows 1024 --cols 256 --density 1 --operand B --out " + b).exitCode, 0);
  ASSERT_EQ(runTileskip("gen --generator uniform --rows 512 --cols 1024 --density 1 --out " + dense).exitCode, 0);
  Outcome sparse = runTileskip("inspect --backend vulkan --a " + a + " --b " + b);
  ASSERT_EQ(sparse.exitCode, 0) << sparse.output;
  EXPECT_NE(sparse.output.find("K-compaction"), std::string::npos) << sparse.output;
  EXPECT_NE(sparse.output.find("gathering A's live columns would multiply 0.5"), std::string::npos) << sparse.output;
  EXPECT_NE(sparse.output.find("gathered by compact-mma-64 at 64 rows"), std::string::npos) << sparse.output;
  Outcome full = runTileskip("inspect --backend vulkan --a " + dense + " --b " + b);
  ASSERT_EQ(full.exitCode, 0) << full.output;
  EXPECT_NE(full.output.find("nothing to gather: every row tile keeps 1.00 of K"), std::string::npos) << full.output;
  Outcome bad = runTileskip("gen --generator neurons --skew -1 --rows 8 --cols 8 --out " + (dir / "bad.npy").string());
  EXPECT_EQ(bad.exitCode, 2) << bad.output;
  EXPECT_NE(bad.output.find("skew"), std::string::npos) << bad.output;
  EXPECT_FALSE(fs::exists(dir / "bad.npy"));
}

TEST(CliInspect, FileOperandsSetTheSizesAndMustAgreeWithThem) {
  const fs::path dir = scratch();
  const Files f = blockFiles(dir, 70, 45, 33);
  Outcome bench = runTileskip("bench --backend cpu --repeat 1 --a " + f.a + " --b " + f.b);
  ASSERT_EQ(bench.exitCode, 0) << bench.output;
  EXPECT_NE(bench.output.find("M=70 N=33 K=45, A: " + f.a + ", B: " + f.b), std::string::npos) << bench.output;
  // One operand from a file, the other generated at the sizes the file leaves open.
  Outcome half = runTileskip("bench --backend cpu --repeat 1 --n 20 --generator-b uniform --density-b 0.3 --a " + f.a);
  ASSERT_EQ(half.exitCode, 0) << half.output;
  EXPECT_NE(half.output.find("M=70 N=20 K=45, A: " + f.a + ", B: uniform d=0.3"), std::string::npos) << half.output;
  Outcome disagree = runTileskip("inspect --backend cpu --m 10 --a " + f.a);
  EXPECT_EQ(disagree.exitCode, 2) << disagree.output;
  EXPECT_NE(disagree.output.find("--m 10 disagrees with " + f.a), std::string::npos) << disagree.output;
  const std::string other = (dir / "other.npy").string();
  writeMatrix(other, generate("uniform", Operand::B, 44, 33, 1.0, 3));
  Outcome mismatch = runTileskip("inspect --backend cpu --a " + f.a + " --b " + other);
  EXPECT_EQ(mismatch.exitCode, 2) << mismatch.output;
  EXPECT_NE(mismatch.output.find("A's columns must equal B's rows"), std::string::npos) << mismatch.output;
  Outcome unknown = runTileskip("bench --backend cpu --a " + (dir / "a.txt").string());
  EXPECT_EQ(unknown.exitCode, 2) << unknown.output;
}

// Reports on file operands describe the files: their sources and real densities, and nothing a
// generator was asked for (no default generator, density, seed or block standing in for them).
TEST(CliInspect, ReportsOnFilesDescribeTheFilesNotTheGeneratorDefaults) {
  const fs::path dir = scratch();
  const Files f = blockFiles(dir, 64, 48, 40);
  const Matrix a = readMatrix(f.a), b = readMatrix(f.b);
  Outcome o = runTileskip("bench --backend cpu --repeat 1 --a " + f.a + " --b " + f.b + " --out " + (dir / "files.json").string());
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_EQ(o.output.find("seed"), std::string::npos) << "two files need no seed: " << o.output;
  const nlohmann::json problem = readJson(dir / "files.json")["problem"];
  for (const char* field : {"generator", "density_a", "density_b", "seed", "block", "block_a", "block_b"}) {
    EXPECT_TRUE(problem[field].is_null()) << field << " = " << problem[field];
  }
  EXPECT_EQ(problem["operands"]["a"]["source"], f.a);
  EXPECT_EQ(problem["operands"]["a"]["file"], true);
  EXPECT_EQ(problem["operands"]["a"]["rows"], 64);
  EXPECT_EQ(problem["operands"]["a"]["cols"], 48);
  EXPECT_DOUBLE_EQ(problem["operands"]["a"]["density"].get<double>(), a.nonZeroFraction());
  EXPECT_DOUBLE_EQ(problem["operands"]["b"]["density"].get<double>(), b.nonZeroFraction());
  // Each file by its SHA-256, as coreutils computes it; stderr names it by its first 12 digits.
  for (const auto& [file, key] : {std::pair{f.a, "a"}, std::pair{f.b, "b"}}) {
    const std::string sha256 = tileskip::testing::runCommand("sha256sum " + file).output.substr(0, 64);
    EXPECT_EQ(problem["operands"][key]["sha256"], sha256) << file;
    EXPECT_NE(o.output.find("sha256 " + sha256.substr(0, 12)), std::string::npos) << o.output;
  }
  // The CSV keeps its columns, empty for the files.
  ASSERT_EQ(runTileskip("bench --backend cpu --repeat 1 --a " + f.a + " --b " + f.b + " --out " + (dir / "files.csv").string()).exitCode, 0);
  std::ifstream csv(dir / "files.csv");
  std::string header, row;
  std::getline(csv, header);
  std::getline(csv, row);
  auto field = [](const std::string& line, int index) {
    std::stringstream in(line);
    std::string cell;
    for (int i = 0; i <= index; ++i) std::getline(in, cell, ',');
    return cell;
  };
  ASSERT_EQ(field(header, 7), "generator");
  for (int column = 7; column <= 10; ++column) EXPECT_EQ(field(row, column), "") << field(header, column) << " in " << row;
  // One file and one generated operand: the generated one keeps its description.
  ASSERT_EQ(runTileskip("bench --backend cpu --repeat 1 --n 20 --generator-b uniform --density-b 0.3 --a " + f.a + " --out " +
                        (dir / "files-half.json").string())
                .exitCode,
            0);
  const nlohmann::json half = readJson(dir / "files-half.json")["problem"];
  EXPECT_TRUE(half["density_a"].is_null());
  EXPECT_EQ(half["density_b"], 0.3);
  EXPECT_EQ(half["generator"], "uniform");
  EXPECT_EQ(half["operands"]["b"]["file"], false);
  EXPECT_TRUE(half["operands"]["b"]["sha256"].is_null());
  EXPECT_EQ(half["operands"]["a"]["sha256"], problem["operands"]["a"]["sha256"]);
}

TEST(CliInspect, EachOperandHasItsOwnGenerator) {
  const fs::path dir = scratch();
  const fs::path out = dir / "r.json";
  Outcome o = runTileskip("bench --backend cpu --size 48 --repeat 1 --generator-a relu --generator-b blocks "
                          "--block-b 16 --density-a 0.3 --format json --out " + out.string());
  ASSERT_EQ(o.exitCode, 0) << o.output;
  const nlohmann::json doc = readJson(out);
  EXPECT_EQ(doc["problem"]["a"], "relu d=0.3");
  EXPECT_EQ(doc["problem"]["b"], "blocks d=0.5 block=16");
}

TEST(CliInspect, AutoBenchmarksItsChoiceBesideTheDenseReference) {
  if (!vulkanAvailable()) GTEST_SKIP() << "no Vulkan device";
  const fs::path dir = scratch();
  const Files f = blockFiles(dir);
  const fs::path out = dir / "auto.json";
  Outcome o = runTileskip("bench --backend vulkan --kernel auto --repeat 1 --no-baseline --a " + f.a + " --b " + f.b +
                          " --format json --out " + out.string());
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("auto: vulkan runs "), std::string::npos) << o.output;
  const nlohmann::json doc = readJson(out);
  bool sawAuto = false, sawDense = false;
  for (const nlohmann::json& row : doc["rows"]) {
    if (row["auto"].is_string()) {
      sawAuto = true;
      EXPECT_NE(row["kernel"], "pipelined") << "128-aligned blocks at 0.25 are a clear case for skipping";
      EXPECT_GT(row["predicted_speedup"].get<double>(), 1.0);
    }
    sawDense = sawDense || row["kernel"] == "pipelined";
  }
  EXPECT_TRUE(sawAuto && sawDense) << doc["rows"].dump();
}

TEST(CliInspect, RunChoosesByDefaultAndRepeats) {
  const fs::path dir = scratch();
  const Files f = blockFiles(dir, 64, 40, 48);
  const std::string c = (dir / "c.npy").string();
  Outcome o = runTileskip("run --backend cpu --repeat 3 --a " + f.a + " --b " + f.b + " --out " + c);
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("(auto: "), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("median of 3 runs"), std::string::npos) << o.output;
  EXPECT_EQ(readMatrix(c).rows(), 64);
  Outcome zero = runTileskip("run --backend cpu --repeat 0 --a " + f.a + " --b " + f.b + " --out " + c);
  EXPECT_EQ(zero.exitCode, 2) << zero.output;
}

TEST(CliInspect, ReorderGathersScrambledZerosAndRunPutsCBack) {
  const fs::path dir = scratch();
  GeneratorOptions options;
  options.block = 32;
  Matrix blocks = generate("blocks", Operand::A, 96, 64, 0.3, 5, options);
  // Reverse the rows and swap halves of K: the zero blocks no longer line up with 32-row tiles.
  Matrix scrambled(96, 64);
  for (int r = 0; r < 96; ++r) {
    for (int k = 0; k < 64; ++k) scrambled(r, k) = blocks(95 - r, (k * 37) % 64);
  }
  const std::string a = (dir / "a.npy").string(), b = (dir / "b.npy").string(), c = (dir / "c.npy").string();
  writeMatrix(a, scrambled);
  writeMatrix(b, generate("uniform", Operand::B, 64, 40, 1.0, 6));
  Outcome o = runTileskip("run --backend cpu --reorder --a " + a + " --b " + b + " --out " + c);
  ASSERT_EQ(o.exitCode, 0) << o.output;
  // Its note: the tiles' reordering, or (here, where the tiles gain nothing) K in firing order.
  EXPECT_TRUE(o.output.find("reordered rows, columns and K") != std::string::npos ||
              o.output.find("sorted K by how many rows fire each column") != std::string::npos)
      << o.output;
  // C is in the original order: the product of the files as given.
  EXPECT_TRUE(compareToReference(readMatrix(c), referenceProduct(readMatrix(a), readMatrix(b))).passed);
  Outcome bench = runTileskip("bench --backend cpu --repeat 1 --reorder --a " + a + " --b " + b);
  ASSERT_EQ(bench.exitCode, 0) << bench.output;
  EXPECT_NE(bench.output.find(", reordered"), std::string::npos) << bench.output;
}

// A float64 .npy in Fortran order (W.T as NumPy saves it) goes in as it is, with a one-line note.
TEST(CliInspect, AFortranOrderFloat64NpyIsReadAndSaysSo) {
  const fs::path dir = scratch();
  const int rows = 6, cols = 4;
  std::string header = "{'descr': '<f8', 'fortran_order': True, 'shape': (6, 4), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size() & 0xFF);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  for (int c = 0; c < cols; ++c) {  // column-major: element (r, c) = 10 r + c
    for (int r = 0; r < rows; ++r) {
      const double v = 10.0 * r + c;
      bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
  }
  const fs::path a = dir / "wt.npy";
  std::ofstream(a, std::ios::binary) << bytes;
  const std::string b = (dir / "b.npy").string(), c = (dir / "c.npy").string();
  writeMatrix(b, generate("uniform", Operand::B, cols, 3, 1.0, 2));
  Outcome o = runTileskip("run --backend cpu --a " + a.string() + " --b " + b + " --out " + c);
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("A (" + a.string() + "): "), std::string::npos) << o.output;
  Matrix expectedA(rows, cols);
  for (int r = 0; r < rows; ++r) {
    for (int k = 0; k < cols; ++k) expectedA(r, k) = static_cast<float>(10 * r + k);
  }
  EXPECT_TRUE(compareToReference(readMatrix(c), referenceProduct(expectedA, readMatrix(b))).passed);
  Outcome inspect = runTileskip("inspect --backend cpu --a " + a.string() + " --b " + b);
  ASSERT_EQ(inspect.exitCode, 0) << inspect.output;
  EXPECT_NE(inspect.output.find("A (" + a.string() + "): "), std::string::npos) << inspect.output;
}

// --out's extension chooses the file's format as bench's does: .json writes the JSON document
// (not the table under a .json name), .csv is refused before anything runs, .txt is the table.
TEST(CliInspect, OutChoosesItsFormatByExtension) {
  const fs::path dir = scratch();
  const fs::path json = dir / "r.json", csv = dir / "r.csv", txt = dir / "r.txt";
  Outcome o = runTileskip("inspect --backend cpu --size 64 --out " + json.string());
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("recommendation:"), std::string::npos) << o.output;
  EXPECT_EQ(readJson(json)["schema"], "tileskip.inspect/1");
  o = runTileskip("inspect --backend cpu --size 64 --out " + csv.string());
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("not csv"), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(csv));
  o = runTileskip("inspect --backend cpu --size 64 --out " + txt.string());
  ASSERT_EQ(o.exitCode, 0) << o.output;
  std::ifstream in(txt);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.rfind("tileskip inspect", 0), 0u) << text;
  o = runTileskip("inspect --backend cpu --size 64 --format table --out " + json.string());
  EXPECT_EQ(o.exitCode, 2) << o.output;  // the flag and the extension disagree
}

// A file name in another encoding than UTF-8 is still a report, its invalid bytes written as
// U+FFFD, not an internal error (JSON text is UTF-8).
TEST(CliInspect, AFileNameThatIsNotUtf8StillGivesValidJson) {
  const fs::path dir = scratch();
  const std::string a = (dir / "a\xff.npy").string(), b = (dir / "b\xfe.npy").string();
  writeMatrix(a, generate("uniform", Operand::A, 16, 24, 0.5, 1));
  writeMatrix(b, generate("uniform", Operand::B, 24, 8, 0.5, 2));
  const fs::path out = dir / "r.json";
  Outcome o = runTileskip("inspect --backend cpu --a '" + a + "' --b '" + b + "' --out " + out.string());
  ASSERT_EQ(o.exitCode, 0) << o.output;
  const nlohmann::json doc = readJson(out);  // parsing checks the text is UTF-8
  EXPECT_NE(doc["a"]["source"].get<std::string>().find("a\xEF\xBF\xBD.npy"), std::string::npos) << doc["a"]["source"];
  o = runTileskip("bench --backend cpu --repeat 1 --warmup 0 --a '" + a + "' --b '" + b + "' --out " + (dir / "b.json").string());
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_EQ(readJson(dir / "b.json")["schema"], "tileskip.bench/1");
}

// A laptop asks about the GPU it will rent: --model predicts for a calibrated GPU with its
// backend's kernels as they run there (the Hopper ones too), under that GPU's model, named in the
// verdict; names no calibration covers are exit 2.
TEST(CliInspect, ModelPredictsForACalibratedGpuThatIsNotHere) {
  Outcome o = runTileskip("inspect --model h100 --dtype bf16 --generator blocks --block 128 --density-a 0.25 "
                          "--density-b 0.25 --size 1024 --format json");
  ASSERT_EQ(o.exitCode, 0) << o.output;
  const nlohmann::json doc = nlohmann::json::parse(o.output.substr(o.output.find('{')));
  EXPECT_EQ(doc["backend"], "cuda");
  EXPECT_NE(doc["device"].get<std::string>().find("H100"), std::string::npos) << doc["device"];
  EXPECT_NE(doc["model"].get<std::string>().find("H100 CUDA 16-bit"), std::string::npos) << doc["model"];
  EXPECT_EQ(doc["recommendation"]["kernel"], "wgmma-queue-joint-64x64") << doc["recommendation"];
  EXPECT_NE(doc["recommendation"]["reason"].get<std::string>().find("model: H100 CUDA 16-bit"), std::string::npos);
  for (const auto& k : doc["kernels"]) {
    EXPECT_TRUE(k["refused"].is_null()) << k["kernel"];
    EXPECT_TRUE(k["predicted_speedup"].is_number()) << k["kernel"];
  }
  Outcome vulkan = runTileskip("inspect --model h200 --backend vulkan --size 512 --format json");
  ASSERT_EQ(vulkan.exitCode, 0) << vulkan.output;
  EXPECT_NE(vulkan.output.find("H200 Vulkan"), std::string::npos) << vulkan.output;
  for (const char* bad : {"--model a100", "--model h100 --backend cpu", "--model h100 --device 0"}) {
    Outcome refused = runTileskip(std::string("inspect --size 64 ") + bad);
    EXPECT_EQ(refused.exitCode, 2) << bad << ": " << refused.output;
    EXPECT_NE(refused.output.find("--model"), std::string::npos) << bad << ": " << refused.output;
  }
}

// A packed weight (its .npz, or a dense file with --pack-a) is inspected in bytes: what it reads
// packed and dense at B's tokens, and the most its bytes and its products allow; run and bench
// multiply it as it is and refuse to reorder it.
TEST(CliInspect, APackedWeightIsMeasuredInBytesAtItsTokens) {
  const fs::path dir = tileskip::testing::emptyFolder(scratch(), "packed");
  GeneratorOptions options;
  options.block = 64;
  const Matrix w = generate("blocks", Operand::A, 256, 384, 0.25, 7, options);
  const std::string dense = (dir / "w.npy").string(), packed = (dir / "w.npz").string(), x = (dir / "x.npy").string();
  writeMatrix(dense, w);
  ASSERT_EQ(runTileskip("pack " + dense + " " + packed + " --block 64 --dtype bf16").exitCode, 0);
  writeMatrix(x, generate("uniform", Operand::B, 384, 16, 1.0, 8));
  const BlockSparseMatrix expected = packBlocks(w, 64, DType::Bf16);
  for (const std::string& operand : {"--a " + packed, "--a " + dense + " --pack-a 64"}) {
    Outcome o = runTileskip("inspect " + operand + " --b " + x + " --model h100 --dtype bf16 --format json");
    ASSERT_EQ(o.exitCode, 0) << o.output;
    const nlohmann::json doc = nlohmann::json::parse(o.output.substr(o.output.find('{')));
    const nlohmann::json& p = doc["packed"];
    ASSERT_TRUE(p.is_object()) << operand;
    EXPECT_EQ(p["block"], 64);
    EXPECT_EQ(p["kept_blocks"], expected.keptBlocks());
    EXPECT_EQ(p["blocks"], 4 * 6);
    EXPECT_EQ(p["tokens"], 16);
    EXPECT_EQ(p["kept_bytes"], std::int64_t{expected.keptBlocks()} * 64 * 64 * 2);
    EXPECT_EQ(p["dense_bytes"], 256 * 384 * 2);
    EXPECT_EQ(p["other_bytes"], 384 * 16 * 2 + 256 * 16 * 4);
    EXPECT_EQ(p["bandwidth"], 3.35e12);
    EXPECT_TRUE(p["bandwidth_is_peak"].get<bool>());
    const double kept = p["kept_bytes"], other = p["other_bytes"], all = p["dense_bytes"];
    EXPECT_NEAR(p["bytes_speedup"].get<double>(), (all + other) / (kept + other), 1e-9);
    EXPECT_NEAR(p["bytes_bound_ms"].get<double>(), (kept + other) / 3.35e12 * 1e3, 1e-12);
    EXPECT_NEAR(p["products_speedup"].get<double>(), 24.0 / expected.keptBlocks(), 1e-9);
  }
  Outcome table = runTileskip("inspect --a " + packed + " --b " + x + " --model h200 --dtype bf16");
  EXPECT_NE(table.output.find("packed weight: " + std::to_string(expected.keptBlocks()) + " of 24 64-blocks kept"), std::string::npos)
      << table.output;
  EXPECT_NE(table.output.find("the data sheet's peak"), std::string::npos) << table.output;
  // A dense operand has no packed section.
  Outcome plain = runTileskip("inspect --a " + dense + " --b " + x + " --format json");
  ASSERT_EQ(plain.exitCode, 0) << plain.output;
  EXPECT_TRUE(nlohmann::json::parse(plain.output.substr(plain.output.find('{')))["packed"].is_null());
  // A packed A cannot be reordered, nor packed at a size the format does not take.
  for (const std::string& bad : {"bench --a " + packed + " --b " + x + " --reorder", "inspect --a " + dense + " --b " + x + " --pack-a 48",
                                 "run --a " + packed + " --b " + x + " --out " + (dir / "c.npy").string() + " --reorder",
                                 "run --a " + dense + " --b " + x + " --out " + (dir / "c.npy").string() + " --pack-a 24"}) {
    Outcome refused = runTileskip(bad);
    EXPECT_EQ(refused.exitCode, 2) << bad << ": " << refused.output;
  }
  EXPECT_FALSE(fs::exists(dir / "c.npy"));
  if (!vulkanAvailable()) return;
  // Multiplied as it is by the bsr kernels, as the dense matrix it stands for by the others.
  for (const std::string& kernel : {"bsr-64", "bsr-stream-64", "pipelined"}) {
    Outcome run = runTileskip("run --backend vulkan --a " + packed + " --b " + x + " --out " + (dir / "c.npy").string() + " --kernel " + kernel);
    EXPECT_EQ(run.exitCode, 0) << kernel << ": " << run.output;
    EXPECT_NE(run.output.find("verified against the float64 reference"), std::string::npos) << run.output;
  }
}
