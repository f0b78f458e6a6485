// tileskip bench: verified, device-timed benchmark of kernels on one or all backends.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli_common.hpp"
#include "core/atomic_file.hpp"
#include "core/bench_suites.hpp"
#include "core/error.hpp"
#include "core/host_memory.hpp"
#include "core/report.hpp"
#include "core/suite_real.hpp"

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
  std::string suite;  // "", headline, sweep or real
  std::string data;   // --suite real: the folder of cases.json
};

// Any problem size passes validation as the real default does (512 on a CPU device, 4096 on a GPU).
constexpr int kValidationDefaultSize = 512;

void validateBench(const BenchFlags& flags) {
  if (!flags.suite.empty() && flags.suite != "headline" && flags.suite != "sweep" && flags.suite != "real") {
    throw InputError("unknown suite '" + flags.suite + "'; use headline, sweep or real");
  }
  if (!flags.data.empty() && flags.suite != "real") throw InputError("--data goes with --suite real");
  parseReportFormat(flags.format);
  flags.backend.validate(true);
  parseKernelList(flags.kernels);
  flags.problem.toSpec(kValidationDefaultSize);
  checkBenchOptions({.warmup = flags.warmup, .repeat = flags.repeat});
}

// The suites run on every kernel backend found (the cpu baseline only where nothing else runs):
// their ratios compare CUDA, Vulkan, cuBLAS and cuSPARSE in one process.
std::vector<std::unique_ptr<Backend>> suiteBackends(const BenchFlags& flags) {
  if (!flags.backend.backend.empty()) return flags.backend.open();
  BackendFlags all = flags.backend;
  all.backend = "all";
  std::vector<std::unique_ptr<Backend>> found = all.open();
  if (found.size() > 1) std::erase_if(found, [](const auto& b) { return b->name() == "cpu"; });
  return found;
}

std::vector<Backend*> pointers(const std::vector<std::unique_ptr<Backend>>& backends) {
  std::vector<Backend*> out;
  for (const auto& b : backends) out.push_back(b.get());
  return out;
}

bool anyGpu(const std::vector<std::unique_ptr<Backend>>& backends) {
  return std::any_of(backends.begin(), backends.end(), [](const auto& b) { return b->device().isGpu; });
}


int runHeadline(const BenchFlags& flags) {
  ReportFormat format = parseReportFormat(flags.format);
  std::optional<AtomicFile> file;
  if (!flags.out.empty()) file.emplace(flags.out);
  std::vector<std::unique_ptr<Backend>> backends = suiteBackends(flags);
  // --size (or the device's default) sets M = N = K; the suite chooses the densities itself.
  SuiteOptions options{.size = flags.problem.toSpec(defaultSizeFor(backends)).m, .warmup = flags.warmup,
                       .repeat = flags.repeat, .seed = flags.problem.seed};
  HeadlineReport report = runHeadlineSuite(pointers(backends), options, note);
  std::string text = format == ReportFormat::Json ? formatHeadlineJson(report) : formatHeadlineTable(report);
  if (file) {
    file->stream() << text;
    file->commit();
    note("wrote " + flags.out);
    text = formatHeadlineTable(report);
  }
  std::cout << text << std::flush;
  std::vector<BenchRow> rows;
  for (const BenchReport& run : report.runs) rows.insert(rows.end(), run.rows.begin(), run.rows.end());
  return benchExitCode(rows);
}

int runSweep(const BenchFlags& flags) {
  const std::string csvPath = flags.out.empty() ? "sweep.csv" : flags.out;
  std::filesystem::path pngPath = csvPath;
  pngPath.replace_extension(".png");
  AtomicFile csv(csvPath);
  std::vector<std::unique_ptr<Backend>> backends = suiteBackends(flags);
  SweepOptions options;
  options.warmup = flags.warmup;
  options.repeat = flags.repeat;
  options.seed = flags.problem.seed;
  if (!anyGpu(backends)) options.sizes = {128, 256};
  if (flags.problem.sizeOption != nullptr && flags.problem.sizeOption->count() > 0) {
    options.sizes = {flags.problem.toSpec(0).m};
  }
  SweepReport report = runSweepSuite(pointers(backends), options, note);
  csv.stream() << formatSweepCsv(report);
  csv.commit();
  writeSweepPlot(report, pngPath.string());
  std::cout << "wrote " << csvPath << " (" << report.points.size() << " points) and " << pngPath.string() << "\n";
  for (const std::string& failure : report.failures) std::cerr << "FAIL " << failure << "\n";
  return benchExitCode(report.failedRows);
}

int runReal(const BenchFlags& flags) {
  ReportFormat format = parseReportFormat(flags.format);
  std::optional<AtomicFile> file;
  if (!flags.out.empty()) file.emplace(flags.out);
  const std::vector<RealCase> cases = readRealCases(flags.data.empty() ? defaultRealDataFolder() : std::filesystem::path(flags.data));
  std::vector<std::unique_ptr<Backend>> backends = suiteBackends(flags);
  std::vector<RealCaseRun> runs =
      runRealSuite(pointers(backends), cases, {.warmup = flags.warmup, .repeat = flags.repeat}, note);
  std::string text;
  for (const RealCaseRun& run : runs) text += "== " + run.realCase.name + " (" + run.realCase.source + ")\n" + formatTable(run.report) + "\n";
  text += formatRealSummary(runs);
  if (file) {
    file->stream() << (format == ReportFormat::Json ? formatRealJson(runs) : text);
    file->commit();
    note("wrote " + flags.out);
  }
  std::cout << (format == ReportFormat::Json && !file ? formatRealJson(runs) : text) << std::flush;
  for (const RealCaseRun& run : runs) {
    for (const BenchRow& row : run.report.rows) {
      if (!row.timed()) return static_cast<int>(ExitCode::VerificationFailed);
    }
  }
  return 0;
}

int runBenchCommand(const BenchFlags& flags) {
  if (flags.suite == "real") return runReal(flags);
  if (flags.suite == "headline") return runHeadline(flags);
  if (flags.suite == "sweep") return runSweep(flags);
  ReportFormat format = parseReportFormat(flags.format);
  // Create the report's temporary first: an unwritable path should fail before minutes of
  // benchmarking, and an interrupted run should leave no half-written report.
  std::optional<AtomicFile> file;
  if (!flags.out.empty()) file.emplace(flags.out);
  std::vector<std::unique_ptr<Backend>> backends = flags.backend.open();
  ProblemSpec spec = flags.problem.toSpec(defaultSizeFor(backends));
  // A, B, the reference C and one downloaded C live on the host at once (files set the sizes
  // only once read, so a file operand is checked again below).
  auto elements = [](int rows, int cols) { return static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols); };
  auto checkMemory = [&](const ProblemSpec& p) {
    checkHostMemory(sizeof(float) * (elements(p.m, p.k) + elements(p.k, p.n) + 2 * elements(p.m, p.n)),
                    "A, B, C and the reference C at M=" + std::to_string(p.m) + " N=" + std::to_string(p.n) +
                        " K=" + std::to_string(p.k));
  };
  checkMemory(spec);
  auto [loadedSpec, data] = flags.problem.load(defaultSizeFor(backends));
  spec = std::move(loadedSpec);
  checkMemory(spec);

  std::vector<BenchTarget> targets;
  bool strict = backends.size() == 1;
  for (const auto& b : backends) {
    BenchTarget target = benchTarget(*b, flags.kernels, strict, data.a, data.b, spec);
    if (target.autoKernel != nullptr) noteAuto(*b, {target.autoKernel, target.autoReason});
    if (!target.kernels.empty()) targets.push_back(std::move(target));
  }
  if (targets.empty()) throw InputError("no selected kernel is implemented by the selected backends");
  if (!flags.noBaseline) addBaselineTarget(backends, targets);

  BenchReport report = runBench(targets, spec, data, {.warmup = flags.warmup, .repeat = flags.repeat}, note);

  std::string text = formatReport(report, format);
  if (file) {
    file->stream() << text;
    file->commit();
    note("wrote " + flags.out);
    if (format != ReportFormat::Table) text = formatTable(report);
  }
  std::cout << text << std::flush;

  return benchExitCode(report.rows);
}

}  // namespace

Command addBenchCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("bench", "verify, then time kernels on the device (median of repeated runs)");
  auto flags = std::make_shared<BenchFlags>();
  flags->backend.addTo(app, ", or all");
  app->add_option("--kernel", flags->kernels,
                  "kernel ids, comma separated, or all; auto: the kernel `tileskip inspect` recommends for these "
                  "operands on each backend: " + catalogueIdList())
      ->capture_default_str();
  flags->problem.addTo(app, true);
  app->add_option("--warmup", flags->warmup, "untimed runs before timing")->capture_default_str();
  app->add_option("--repeat", flags->repeat, "timed runs; the median is reported")->capture_default_str();
  app->add_option("--format", flags->format, "table, csv or json")->capture_default_str();
  app->add_option("--out", flags->out, "also write the report in --format to this file");
  app->add_flag("--no-baseline", flags->noBaseline, "do not add a vendor baseline row from another backend");
  app->add_option("--suite", flags->suite,
                  "headline: the performance targets as ratios measured in one run (every kernel backend found); "
                  "sweep: densities 1.0 -> 0.03 and sizes 1024 -> 8192, written as CSV (--out, default sweep.csv) "
                  "and a PNG plot beside it; real: the matrices scripts/fetch-real-data.sh fetched (--data), every "
                  "kernel of every backend with auto's choice marked");
  app->add_option("--data", flags->data, "--suite real: the folder holding cases.json (default $TILESKIP_REAL_DATA, "
                                         "else data/real)");
  return {app, [flags] { return runBenchCommand(*flags); }, [flags] { validateBench(*flags); }};
}

}  // namespace tileskip::cli
