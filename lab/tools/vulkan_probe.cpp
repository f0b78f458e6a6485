// tileskip_vulkan_probe: times builds of one Vulkan kernel that the product does not embed, in one
// process, on one problem: SPIR-V files (e.g. from lab/tools/vulkan_variants.py) run with a
// catalogue kernel's tile, constants and bindings in place of its own shader. Where the CUDA side
// has lab/tools/dense_variants/dense_variants.cu, this is how a change to a shader is timed on the GPU machine
// without a rebuild there (lab/25-vulkan-k13-driver).
//
// A variant may compute something else on purpose (a probe that leaves out the global loads, to
// see what they cost), so every variant is timed; its C is compared with the catalogue build's on
// the same operands and the largest difference printed beside the time.
//
//   tileskip_vulkan_probe --kernel mma --dtype fp16 --size 4096 --spirv DIR NAME[@SHAPE]...
// (operands uniform and dense unless --generator, --density-a/-b, --granularity say otherwise)
// runs DIR/NAME.spv for each NAME, and `catalogue` for the embedded shader itself. SHAPE changes
// what the build is run with, comma separated: a tile in tileNotation() ("128x128x32/64x32/0x0/256"),
// ring=N (the catalogue's ring: K-tiles at once), list=N (a persistent kernel's K-block list). The
// tile is checked as TILESKIP_VULKAN_TILES checks one.
// Exit codes as the tool's: 2 bad input (unknown kernel, missing or malformed file), 3 no device.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <deque>
#include <fstream>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "backends/vulkan/context.hpp"
#include "backends/vulkan/embedded_spirv.hpp"
#include "backends/vulkan/limits.hpp"
#include "backends/vulkan/vulkan_backend.hpp"
#include "core/model/catalogue.hpp"
#include "core/model/dtype.hpp"
#include "core/model/error.hpp"
#include "core/model/generators.hpp"
#include "core/measure/bench.hpp"
#include "core/measure/kernel_variant.hpp"
#include "core/model/tile_layout.hpp"

using namespace tileskip;

namespace {

// Words of a SPIR-V file; InputError unless it is whole words starting with SPIR-V's magic.
std::vector<std::uint32_t> readSpirv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read " + path);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 20 || bytes.size() % 4 != 0) throw InputError(path + " is not SPIR-V: " + std::to_string(bytes.size()) + " bytes");
  std::vector<std::uint32_t> words(bytes.size() / 4);
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(words.data()));
  if (words[0] != vk::kSpirvMagic) throw InputError(path + " is not SPIR-V: no magic number");
  return words;
}

// The whole number after "ring=" or "list=" in a @SHAPE item; InputError naming the variant otherwise.
int shapeNumber(const std::string& name, std::string_view item) {
  const std::string digits(item.substr(5));
  if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) {
    throw InputError(name + ": '" + std::string(item) + "' needs a whole number");
  }
  return std::stoi(digits);
}

// The kernel `name` runs as: its SPIR-V stem, and the tile, ring and K-block list of its @SHAPE.
KernelInfo variantOf(const KernelInfo& kernel, const std::string& name, std::string_view stem, const vk::ComputeLimits& limits) {
  KernelInfo variant = kernel;
  if (!stem.empty()) variant.stem = stem;
  std::size_t at = name.find('@');
  if (at == std::string::npos) return variant;
  for (std::string_view item : splitList(std::string_view(name).substr(at + 1), ',')) {
    if (item.starts_with("ring=")) {
      variant.structure.ringStages = shapeNumber(name, item);
    } else if (item.starts_with("list=")) {
      variant.structure.kBlockList = shapeNumber(name, item);
    } else if (std::optional<TileShape> tile = parseTileNotation(item)) {
      variant.tile = *tile;
    } else {
      throw InputError(name + ": '" + std::string(item) + "' is not ring=N, list=N or a tile BMxBNxBK/WMxWN/TMxTN/threads");
    }
  }
  for (auto problem : {tileShapeProblem(variant), vk::launchProblem(variant, limits)}) {
    if (problem) throw InputError(name + ": " + *problem);
  }
  return variant;
}

double largestDifference(const Matrix& x, const Matrix& y) {
  double worst = 0.0;
  for (int r = 0; r < x.rows(); ++r) {
    for (int c = 0; c < x.cols(); ++c) {
      double d = std::abs(static_cast<double>(x(r, c)) - static_cast<double>(y(r, c)));
      if (!(d <= worst)) worst = d;  // NaN wins
    }
  }
  return worst;
}

int probe(int argc, char** argv) {
  CLI::App app{"time SPIR-V builds of one Vulkan kernel in place of its embedded shader"};
  std::string kernelId = "mma", dtypeName = "fp16", directory = ".", generator = "uniform";
  int size = 4096, warmup = 3, repeat = 20, rounds = 2;
  double densityA = 1.0, densityB = 1.0;
  GeneratorOptions generatorOptions;
  bool validation = false;
  int printWords = 0;
  std::vector<std::string> names;
  app.add_option("--kernel", kernelId, "the catalogue kernel whose tile, constants and bindings the variants run with");
  app.add_option("--dtype", dtypeName, "the inputs' precision (fp32, tf32, fp16, bf16)");
  app.add_option("--size", size, "M = N = K")->check(CLI::Range(1, 16384));
  app.add_option("--warmup", warmup, "untimed runs of each variant at least (on a GPU, also until its times settle, as bench)")->check(CLI::NonNegativeNumber);
  app.add_option("--repeat", repeat, "timed runs of each variant per round")->check(CLI::PositiveNumber);
  app.add_option("--rounds", rounds, "rounds of every variant in turn; the best round's median is printed")
      ->check(CLI::PositiveNumber);
  app.add_flag("--validation", validation, "the Vulkan validation layers on; each message is printed as a diagnostic");
  app.add_option("--print-c", printWords, "print the first N words of each variant's C after its first run, as unsigned integers (probes that count)")
      ->check(CLI::Range(0, 64));
  app.add_option("--spirv", directory, "the folder holding NAME.spv");
  // The operands, as bench makes them: a skipping kernel's variants timed where they skip.
  app.add_option("--generator", generator, "the generator of both operands (tileskip gen's names)");
  app.add_option("--density-a", densityA, "A's density");
  app.add_option("--density-b", densityB, "B's density");
  app.add_option("--block", generatorOptions.block, "the zero segments' or blocks' size")->check(CLI::PositiveNumber);
  app.add_option("names", names, "variants: NAME.spv files of --spirv, or `catalogue` for the embedded shader")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : static_cast<int>(ExitCode::BadInput);
  }

  const KernelInfo* kernel = findKernelInfo(kernelId);
  if (kernel == nullptr || !kernel->hasGlslTwin()) throw InputError("no Vulkan kernel '" + kernelId + "' in the catalogue");
  DType dtype = parseDType(dtypeName);
  // Read every file first, so a bad name fails before the device is opened.
  std::deque<std::vector<std::uint32_t>> words;
  std::deque<std::string> stems;
  std::vector<vk::EmbeddedShader> shaders;
  std::vector<std::string> stemOf;  // per name: "" for the embedded shader
  for (const std::string& name : names) {
    std::string file = name.substr(0, name.find('@'));
    if (file == "catalogue") {
      stemOf.emplace_back();
      continue;
    }
    stemOf.push_back("probe_" + file);  // never one of the product's stems, which win the lookup
    if (std::find(stems.begin(), stems.end(), stemOf.back()) != stems.end()) continue;
    words.push_back(readSpirv(directory + "/" + file + ".spv"));
    stems.push_back(stemOf.back());
  }
  for (std::size_t i = 0; i < words.size(); ++i) shaders.push_back({stems[i], words[i]});
  vk::addEmbeddedShaders(shaders);

  vk::VulkanBackend backend(BackendOptions{.deviceIndex = -1, .validation = validation});
  if (!backend.takes(*kernel, dtype)) throw UnavailableError(std::string(kernel->id) + " does not run in " + dtypeName + " on " + backend.device().name);
  Matrix a = generate(generator, Operand::A, size, size, densityA, 1, generatorOptions);
  Matrix b = generate(generator, Operand::B, size, size, densityB, 2, generatorOptions);
  std::unique_ptr<DeviceProblem> problem = backend.upload(a, b, dtype);
  problem->run(*kernel);
  Matrix expected = problem->downloadC();
  // Every variant's pipeline is built and its C checked first, so no compile falls between
  // timings; then rounds of the variants in turn, each warmed up as bench warms a kernel up (a GPU
  // left idle by a compile drops its clock: lab/13-gpu-clock), the best round's median kept.
  std::vector<KernelInfo> variants;
  std::vector<double> differences, best;
  for (std::size_t v = 0; v < names.size(); ++v) {
    KernelInfo variant = variantOf(*kernel, names[v], stemOf[v], backend.context().device().limits());
    problem->poisonC();
    problem->run(variant);
    Matrix c = problem->downloadC();
    differences.push_back(largestDifference(c, expected));
    if (printWords > 0) {
      std::printf("%s: C's first words:", names[v].c_str());
      for (int i = 0; i < printWords && i < static_cast<int>(c.size()); ++i) {
        std::printf(" %u", std::bit_cast<std::uint32_t>(c(i / c.cols(), i % c.cols())));
      }
      std::printf("\n");
    }
    variants.push_back(variant);
    best.push_back(std::numeric_limits<double>::infinity());
  }
  BenchOptions options;
  options.warmup = warmup;
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t v = 0; v < variants.size(); ++v) {
      warmUp(*problem, variants[v], options, backend.device().isGpu);
      std::vector<double> times;
      for (int i = 0; i < repeat; ++i) times.push_back(problem->run(variants[v]));
      best[v] = std::min(best[v], summarize(times).median);
    }
  }
  std::printf("%s on %s, %s, %d^3, %s A %.3g B %.3g G %d: median of %d runs, best of %d rounds\n", std::string(kernel->id).c_str(),
              backend.device().name.c_str(), dtypeName.c_str(), size, generator.c_str(), densityA, densityB,
              generatorOptions.block, repeat, rounds);
  std::printf("%-28s %10s %10s %14s\n", "variant", "ms", "TFLOPS", "max |C - cat|");
  for (std::size_t v = 0; v < variants.size(); ++v) {
    std::printf("%-28s %10.4f %10.1f %14.3g\n", names[v].c_str(), best[v], 2.0 * size * double(size) * size / (best[v] * 1e9),
                differences[v]);
  }
  std::vector<std::string> diagnostics = backend.takeDiagnostics();
  for (const std::string& message : diagnostics) std::printf("diagnostic: %s\n", message.c_str());
  return diagnostics.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return probe(argc, argv);
  } catch (const Error& e) {
    std::cerr << "tileskip_vulkan_probe: " << e.what() << "\n";
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::cerr << "tileskip_vulkan_probe: " << e.what() << "\n";
    return 1;
  }
}
