#include "cli_common.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "core/model/error.hpp"
#include "core/io/matrix_io.hpp"
#include "core/io/report.hpp"
#include "core/measure/multiply.hpp"
#include "core/model/reorder.hpp"

namespace tileskip::cli {

const CLI::Validator& seedValidator() {
  static const CLI::Validator validator(
      [](std::string& text) -> std::string {
        bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (!digits) return "the seed must be a whole number from 0 to 18446744073709551615, not '" + text + "'";
        errno = 0;
        std::strtoull(text.c_str(), nullptr, 10);
        if (errno == ERANGE) return "the seed " + text + " is beyond 18446744073709551615 (2^64 - 1)";
        return "";
      },
      "SEED");
  return validator;
}

void ProblemFlags::addTo(CLI::App* app, bool withReorder) {
  if (withReorder) {
    app->add_flag("--reorder", reorder,
                  "permute A's rows, B's columns and K to gather zeros into skippable tiles (C is the product of "
                  "the permuted operands; `run` puts it back in the original order)");
  }
  sizeOption = app->add_option("--size", size, "M = N = K (default: 4096 on a GPU, 512 on a CPU device)");
  mOption = app->add_option("--m", m, "rows of A and C (overrides --size)");
  nOption = app->add_option("--n", n, "columns of B and C (overrides --size)");
  kOption = app->add_option("--k", k, "columns of A, rows of B (overrides --size)");
  app->add_option("--density-a", densityA, "fraction of non-zero elements of A, in [0,1]")->capture_default_str();
  app->add_option("--density-b", densityB, "fraction of non-zero elements of B, in [0,1]")->capture_default_str();
  app->add_option("--generator", generator, "how A and B are generated: " + generatorNameList())->capture_default_str();
  app->add_option("--seed", seed, "random seed; the same seed gives the same matrices")
      ->check(seedValidator())
      ->capture_default_str();
  app->add_option("--block", block, "rows/columns of a zero segment or edge of a zero block")
      ->capture_default_str();
  app->add_option("--generator-a", generatorA, "A's generator (default: --generator)");
  app->add_option("--generator-b", generatorB, "B's generator (default: --generator)");
  app->add_option("--block-a", blockA, "A's --block (default: --block)");
  app->add_option("--block-b", blockB, "B's --block (default: --block)");
  app->add_option("--a", fileA, "read A (M x K) from a .npy or .mtx file, or a packed block-sparse .npz, instead of generating it");
  app->add_option("--pack-a", packA,
                  "BLOCK: A packed in square blocks of this edge (16, 32, 64 or 128, the blocks holding a non-zero kept), as a "
                  "block-sparse weight is: what the bsr kernels of that block read, and what inspect measures in bytes");
  app->add_option("--b", fileB, "read B (K x N) from a .npy or .mtx file instead of generating it");
  dtypeOption = app->add_option("--dtype", dtype,
                  "the inputs' precision: " + dtypeNames() +
                      "; A and B are rounded to it, only kernels that take it run, and C accumulates in fp32")
      ->capture_default_str();
}

bool ProblemFlags::sizeGiven(char dimension) const {
  const CLI::Option* option = dimension == 'm' ? mOption : dimension == 'n' ? nOption : kOption;
  return (option != nullptr && option->count() > 0) || (sizeOption != nullptr && sizeOption->count() > 0);
}

std::pair<ProblemSpec, ProblemData> ProblemFlags::load(int defaultSize) const {
  ProblemSpec spec = toSpec(defaultSize);
  ProblemData data = loadProblem(spec, [&](char dimension) { return sizeGiven(dimension); });
  for (const std::string& line : data.readNotes) note(line);
  if (reorder) {
    reorderOperands(data.a, data.b);
    spec.reordered = true;
  }
  // Each operand as it really is: a file's real density, a generator's seed only where one ran.
  // A file is named by its SHA-256's first 12 digits too (reports carry the whole).
  auto density = [](const Matrix& operand, const std::string& sha256) {
    return fixed(100.0 * operand.nonZeroFraction(), 1) + " % non-zero" + (sha256.empty() ? "" : ", sha256 " + sha256.substr(0, 12));
  };
  const bool generated = spec.fileA.empty() || spec.fileB.empty();
  note("A: " + spec.sourceOf(Operand::A) + " (" + density(data.a, data.sha256A) + "), B: " + spec.sourceOf(Operand::B) + " (" +
       density(data.b, data.sha256B) + ") (M=" + std::to_string(spec.m) + " N=" + std::to_string(spec.n) + " K=" + std::to_string(spec.k) +
       (generated ? ", seed " + std::to_string(spec.seed) : "") + ")");
  return {std::move(spec), std::move(data)};
}

ProblemSpec ProblemFlags::toSpec(int defaultSize) const {
  auto given = [](const CLI::Option* option) { return option != nullptr && option->count() > 0; };
  auto pick = [&](const CLI::Option* option, std::int64_t value, const char* flag) {
    const char* from = flag;
    if (!given(option)) {
      option = sizeOption;
      value = given(sizeOption) ? size : defaultSize;
      from = "--size";
    }
    // As typed: CLI11 saturates a number beyond 64 bits.
    std::string text = given(option) ? option->results().back() : std::to_string(value);
    if (value < 1) throw InputError(std::string(from) + " " + text + " is invalid; sizes must be at least 1");
    if (value > kMaxElements) {
      throw InputError(std::string(from) + " " + text +
                       " is beyond the kernels' 32-bit indexing; sizes are at most 2^31-1 (and so are M·K, K·N, M·N)");
    }
    return static_cast<int>(value);
  };
  ProblemSpec spec;
  spec.m = pick(mOption, m, "--m");
  spec.n = pick(nOption, n, "--n");
  spec.k = pick(kOption, k, "--k");
  spec.generator = generator;
  spec.densityA = densityA;
  spec.densityB = densityB;
  spec.seed = seed;
  spec.dtype = parseDType(dtype);
  spec.options.block = block;
  if (block < 1) throw InputError("--block " + std::to_string(block) + " must be at least 1");
  for (int g : {blockA, blockB}) {
    if (g < 0) throw InputError("--block-a/-b " + std::to_string(g) + " must be at least 1");
  }
  if (blockA > 0) spec.options.block = blockA;
  if (!generatorA.empty()) spec.generator = generatorA;
  if (!generatorB.empty() && generatorB != spec.generator) spec.generatorB = generatorB;
  if (!generatorB.empty() || blockB > 0 || blockA > 0) {
    GeneratorOptions b = spec.options;
    b.block = blockB > 0 ? blockB : block;
    if (b.block != spec.options.block) spec.optionsB = b;
  }
  if (!generatorA.empty() && generatorB.empty() && spec.generator != generator) spec.generatorB = generator;
  spec.fileA = fileA;
  spec.fileB = fileB;
  for (const std::string& file : {fileA, fileB}) {
    if (!file.empty()) formatFromPath(file);  // an unknown extension is refused before any work
  }
  spec.packBlock = packA;
  if (reorder && (packA > 0 || (!fileA.empty() && formatFromPath(fileA) == MatrixFormat::PackedNpz))) {
    throw InputError("--reorder permutes A, whose packed blocks are its own: drop --reorder for a packed A");
  }
  spec.validate();
  return spec;
}

void BackendFlags::addTo(CLI::App* app, const std::string& allowAllNote) {
  app->add_option("--backend", backend, "backend: " + compiledBackendList() + allowAllNote +
                                            " (default: the best found, a GPU first)");
  app->add_option("--device", device, "device index within the backend (default: a discrete GPU first)");
}

void BackendFlags::validate(bool allowAll) const {
  if (!backend.empty() && !(allowAll && backend == "all")) checkBackendName(backend);
  if (device < -1) throw InputError("--device " + std::to_string(device) + " is invalid; device indices start at 0");
}

std::vector<std::unique_ptr<Backend>> BackendFlags::open(std::vector<std::pair<std::string, std::string>>* unavailable) const {
  std::vector<std::unique_ptr<Backend>> opened;
  if (backend.empty()) {
    opened.push_back(openBestBackend(options()));
  } else if (backend == "all") {
    for (BackendStatus& status : discoverBackends(options())) {
      if (status.backend) {
        opened.push_back(std::move(status.backend));
      } else {
        note(status.name + " is unavailable: " + status.unavailableReason);
        if (unavailable != nullptr) unavailable->emplace_back(status.name, status.unavailableReason);
      }
    }
    if (opened.empty()) throw UnavailableError("no backend can run on this machine");
  } else {
    opened.push_back(openBackend(backend, options()));
  }
  return opened;
}

void noteAuto(const Backend& backend, const Recommendation& choice) {
  note("auto: " + std::string(backend.name()) + " runs " + std::string(choice.kernel->id) + ": " + choice.reason);
}

int defaultSizeFor(const Backend& backend) { return backend.device().isGpu ? 4096 : 512; }

int defaultSizeFor(const std::vector<std::unique_ptr<Backend>>& backends) {
  int size = 512;
  for (const auto& b : backends) size = std::max(size, defaultSizeFor(*b));
  return size;
}

Reordering reorderOperands(Matrix& a, Matrix& b) {
  GatheredZeros gathered = reorderForSkipping(a, b);
  note(gathered.note);
  return std::move(gathered.reordering);
}

void note(const std::string& text) { std::cerr << wrapText("tileskip: " + text, outputColumns(), 10) << std::endl; }

}  // namespace tileskip::cli
