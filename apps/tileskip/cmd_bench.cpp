// tileskip bench: verified, device-timed benchmark of kernels on one or all backends.
#include <iostream>
#include <optional>

#include "cli_common.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/host_memory.hpp"
#include "core/report.hpp"

namespace tileskip::cli {

namespace {

struct BenchFlags {
  BackendFlags backend;
  ProblemFlags problem;
  std::string kernels = "all";
  int warmup = 2;
  int repeat = 10;
  std::string format = "table";
  std::string out;
  bool noBaseline = false;
};

// When no selected kernel is a vendor baseline, borrow the preferred one from any available
// backend, so every table carries its "vs baseline" column.
void addBaseline(std::vector<std::unique_ptr<Backend>>& backends, std::vector<BenchTarget>& targets) {
  for (const BenchTarget& t : targets) {
    for (const KernelInfo* k : t.kernels) {
      if (k->isBaseline()) return;
    }
  }
  for (std::string_view id : kBaselinePreference) {
    for (BackendStatus& s : discoverBackends()) {
      if (s.backend && s.backend->implements(id)) {
        targets.push_back({s.backend.get(), {&kernelInfo(id)}});
        backends.push_back(std::move(s.backend));
        return;
      }
    }
  }
}

// Any problem size passes validation as the real default does (512 on a CPU device, 4096 on a GPU).
constexpr int kValidationDefaultSize = 512;

void validateBench(const BenchFlags& flags) {
  parseReportFormat(flags.format);
  flags.backend.validate(true);
  parseKernelList(flags.kernels);
  flags.problem.toSpec(kValidationDefaultSize);
  checkBenchOptions({.warmup = flags.warmup, .repeat = flags.repeat});
}

int runBenchCommand(const BenchFlags& flags) {
  ReportFormat format = parseReportFormat(flags.format);
  // Create the report's temporary first: an unwritable path should fail before minutes of
  // benchmarking, and an interrupted run should leave no half-written report.
  std::optional<AtomicFile> file;
  if (!flags.out.empty()) file.emplace(flags.out);
  std::vector<std::unique_ptr<Backend>> backends = flags.backend.open();
  int defaultSize = 512;
  for (const auto& b : backends) defaultSize = std::max(defaultSize, defaultSizeFor(*b));
  ProblemSpec spec = flags.problem.toSpec(defaultSize);

  std::vector<BenchTarget> targets;
  bool strict = backends.size() == 1;
  for (const auto& b : backends) {
    std::vector<const KernelInfo*> kernels = selectKernels(flags.kernels, *b, strict);
    if (!kernels.empty()) targets.push_back({b.get(), std::move(kernels)});
  }
  if (targets.empty()) throw InputError("no selected kernel is implemented by the selected backends");
  if (!flags.noBaseline) addBaseline(backends, targets);

  // A, B, the reference C and one downloaded C live on the host at once.
  auto elements = [](int rows, int cols) { return static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols); };
  checkHostMemory(sizeof(float) * (elements(spec.m, spec.k) + elements(spec.k, spec.n) + 2 * elements(spec.m, spec.n)),
                  "A, B, C and the reference C at M=" + std::to_string(spec.m) + " N=" + std::to_string(spec.n) +
                      " K=" + std::to_string(spec.k));
  note("generating A and B: " + spec.describe());
  ProblemData data = generateProblem(spec);
  BenchReport report = runBench(targets, spec, data, {.warmup = flags.warmup, .repeat = flags.repeat}, note);

  std::string text = formatReport(report, format);
  if (file) {
    file->stream() << text;
    file->commit();
    note("wrote " + flags.out);
    if (format != ReportFormat::Table) text = formatTable(report);
  }
  std::cout << text << std::flush;

  bool anyFailed = false;
  for (const BenchRow& row : report.rows) anyFailed = anyFailed || !row.timed();
  return anyFailed ? static_cast<int>(ExitCode::VerificationFailed) : 0;
}

}  // namespace

Command addBenchCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("bench", "verify, then time kernels on the device (median of repeated runs)");
  auto flags = std::make_shared<BenchFlags>();
  flags->backend.addTo(app, ", or all");
  app->add_option("--kernel", flags->kernels, "kernel ids, comma separated, or all: " + catalogueIdList())
      ->capture_default_str();
  flags->problem.addTo(app);
  app->add_option("--warmup", flags->warmup, "untimed runs before timing")->capture_default_str();
  app->add_option("--repeat", flags->repeat, "timed runs; the median is reported")->capture_default_str();
  app->add_option("--format", flags->format, "table, csv or json")->capture_default_str();
  app->add_option("--out", flags->out, "also write the report in --format to this file");
  app->add_flag("--no-baseline", flags->noBaseline, "do not add a vendor baseline row from another backend");
  return {app, [flags] { return runBenchCommand(*flags); }, [flags] { validateBench(*flags); }};
}

}  // namespace tileskip::cli
