// What the subcommands share: problem flags, backend and kernel selection, and the command
// table. Nothing here knows a particular backend.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend_registry.hpp"
#include "core/measure/bench.hpp"
#include "core/measure/inspect.hpp"
#include "core/measure/kernel_selection.hpp"
#include "core/model/reorder.hpp"
#include "core/model/problem.hpp"

namespace tileskip::cli {

// A subcommand: `run` does the work and returns the exit code; `validate`, where a command has
// one, checks the parsed flags first without opening a backend or touching a file (throws
// InputError), so that tests and the CLI fuzzer can parse and validate in-process.
struct Command {
  CLI::App* app;
  std::function<int()> run;
  std::function<void()> validate = {};
};

Command addListCommand(CLI::App& parent);
Command addBenchCommand(CLI::App& parent);
Command addVerifyCommand(CLI::App& parent);
Command addGenCommand(CLI::App& parent);
Command addPackCommand(CLI::App& parent);
Command addInspectCommand(CLI::App& parent);
Command addRunCommand(CLI::App& parent);
Command addMlpCommand(CLI::App& parent);
Command addViewCommand(CLI::App& parent);
Command addTuneCommand(CLI::App& parent);
Command addCompareCommand(CLI::App& parent);

// For --seed: CLI11 reads an unsigned number beyond 2^64 - 1 as 2^64 - 1 without a word; this
// refuses it (and anything but a plain decimal number) so the seed used is the seed given.
const CLI::Validator& seedValidator();

// --size / --m --n --k / --density-a / --density-b / --generator / --seed / --block,
// per operand --generator-a/-b and --block-a/-b, and --a / --b to read an operand from a
// .npy / .mtx file instead
struct ProblemFlags {
  // Read only where the flag was given; 64-bit so that a size beyond 32-bit indexing gets our
  // message rather than a conversion error.
  std::int64_t size = 0, m = 0, n = 0, k = 0;
  CLI::Option *sizeOption = nullptr, *mOption = nullptr, *nOption = nullptr, *kOption = nullptr;
  double densityA = 0.5, densityB = 0.5;
  std::string generator = "segments";
  std::uint64_t seed = 42;
  int block = 32;
  std::string generatorA, generatorB;  // empty: --generator
  int blockA = 0, blockB = 0;  // 0: --block
  std::string fileA, fileB;
  bool reorder = false;
  int packA = 0;  // --pack-a BLOCK: A packed as a weight is (0: only where --a is a packed .npz)
  std::string dtype = "fp32";  // --dtype
  CLI::Option* dtypeOption = nullptr;

  // `withReorder`: the command also takes --reorder.
  void addTo(CLI::App* app, bool withReorder = false);
  // Sizes not given fall back to --size, then to `defaultSize`. Throws InputError on bad values.
  ProblemSpec toSpec(int defaultSize) const;
  // The spec with the operands: files read once (their shapes set M, N, K), the rest generated.
  // Notes what it reads and generates on stderr.
  std::pair<ProblemSpec, ProblemData> load(int defaultSize) const;
  bool sizeGiven(char dimension) const;
};

// --backend NAME|all and --device N
struct BackendFlags {
  std::string backend;  // empty: the best available
  int device = -1;

  void addTo(CLI::App* app, const std::string& allowAllNote);
  // The name is empty, "all" where `allowAll`, or compiled in; the device index is -1 or more.
  void validate(bool allowAll) const;
  BackendOptions options() const { return {.deviceIndex = device, .validation = false}; }
  // "all": every available backend; a name: that one (throws if unavailable); empty: the best.
  // With "all", the backends that cannot run here go to `unavailable` (name, why) where given.
  std::vector<std::unique_ptr<Backend>> open(std::vector<std::pair<std::string, std::string>>* unavailable = nullptr) const;
};

// Notes auto's choice on stderr: "auto: cuda picks joint-64x32: ...". (Kernel lists, auto's
// choice and bench targets: core/measure/kernel_selection.hpp.)
void noteAuto(const Backend& backend, const Recommendation& choice);

// Problem size that suits a device: 4096 on a GPU, 512 on a CPU device.
int defaultSizeFor(const Backend& backend);
// The largest of those over several backends (a GPU among them sets 4096).
int defaultSizeFor(const std::vector<std::unique_ptr<Backend>>& backends);

// Finds and applies a reordering of A·B (core/measure/multiply.hpp's reorderForSkipping), noting on
// stderr what it gained.
Reordering reorderOperands(Matrix& a, Matrix& b);

// Prints a line to stderr as the tool's progress voice.
void note(const std::string& text);

}  // namespace tileskip::cli
