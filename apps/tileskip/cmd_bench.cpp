// tileskip bench: verified, device-timed benchmark of kernels on one or all backends.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli_common.hpp"
#include "require.hpp"
#include "core/io/atomic_file.hpp"
#include "core/measure/bench_suites.hpp"
#include "core/model/error.hpp"
#include "core/process/host_memory.hpp"
#include "core/io/report.hpp"
#include "core/measure/suite_activations.hpp"
#include "core/measure/suite_blocksparse.hpp"
#include "core/measure/suite_real.hpp"
#include "core/measure/suite_weights.hpp"
#include "core/model/block_sparse.hpp"
#include "core/model/generators.hpp"
#include "core/measure/sweep_plot.hpp"

namespace tileskip::cli {

namespace {

struct BenchFlags {
  BackendFlags backend;
  ProblemFlags problem;
  std::string kernels = "all";
  int warmup = 2;
  int repeat = 10;
  double stablePercent = 0.0;  // --repeat-until-stable PCT
  std::string format = "table";
  CLI::Option* formatOption = nullptr;  // given: it must agree with --out's extension
  std::string out;
  std::string require;        // --require BACKEND[,...]
  bool failOnTarget = false;  // --suite headline: exit 4 when a measured ratio misses its target
  bool noBaseline = false;
  std::string suite;  // "", headline, sweep, real, blocksparse, activations or weights
  std::string data;   // --suite real: the folder of cases.json
  // --suite weights: its block edges, densities and token counts, comma separated ("" the suite's own).
  std::string blocks, densities, tokens;
};

// A comma-separated list of numbers for `flag`; InputError naming it for anything else.
template <class Number>
std::vector<Number> numberList(const std::string& text, const char* flag) {
  std::vector<Number> numbers;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    std::size_t used = 0;
    Number value{};
    try {
      if constexpr (std::is_integral_v<Number>) {
        value = static_cast<Number>(std::stoi(item, &used));
      } else {
        value = static_cast<Number>(std::stod(item, &used));
      }
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size()) throw InputError(std::string(flag) + " takes numbers separated by commas, not '" + text + "'");
    numbers.push_back(value);
    at = comma + 1;
  }
  return numbers;
}

BenchOptions benchOptions(const BenchFlags& flags) {
  return {.warmup = flags.warmup, .repeat = flags.repeat, .stableWithin = flags.stablePercent / 100.0};
}

bool formatGiven(const BenchFlags& flags) { return flags.formatOption != nullptr && flags.formatOption->count() > 0; }

// What the report on screen is: --format without --out; with --out, the file takes the format
// (outputFileFormat) and the screen gets the table.
ReportFormat screenFormat(const BenchFlags& flags) {
  return flags.out.empty() ? parseReportFormat(flags.format) : ReportFormat::Table;
}
ReportFormat fileFormat(const BenchFlags& flags) { return outputFileFormat(flags.format, formatGiven(flags), flags.out); }

// The sweep writes CSV (and a plot beside it): a --format or --out extension meaning another
// format is refused rather than ignored.
std::string sweepCsvPath(const BenchFlags& flags) {
  std::string path = flags.out.empty() ? "sweep.csv" : flags.out;
  if (formatGiven(flags) && parseReportFormat(flags.format) != ReportFormat::Csv) {
    throw InputError("--suite sweep writes CSV, not " + flags.format + "; drop --format");
  }
  if (outputFileFormat("csv", false, path) != ReportFormat::Csv) {
    throw InputError("--suite sweep writes CSV; --out " + path + " names another format (use a .csv name)");
  }
  return path;
}

void wrote(const std::string& path, ReportFormat format) {
  note("wrote " + path + " (" + std::string(reportFormatName(format)) + ")");
}

// Any problem size passes validation as the real default does (512 on a CPU device, 4096 on a GPU).
constexpr int kValidationDefaultSize = 512;

void validateBench(const BenchFlags& flags) {
  if (!flags.suite.empty() && flags.suite != "headline" && flags.suite != "sweep" && flags.suite != "real" &&
      flags.suite != "blocksparse" && flags.suite != "activations" && flags.suite != "weights") {
    throw InputError("unknown suite '" + flags.suite + "'; use headline, sweep, real, blocksparse, activations or weights");
  }
  for (const auto& [list, flag] : {std::pair{&flags.blocks, "--blocks"}, std::pair{&flags.densities, "--densities"},
                                   std::pair{&flags.tokens, "--tokens"}}) {
    if (list->empty()) continue;
    if (flags.suite != "weights") throw InputError(std::string(flag) + " goes with --suite weights");
    if (list == &flags.densities) {
      for (double d : numberList<double>(*list, flag)) checkDensity(d, flag);
    } else {
      for (int v : numberList<int>(*list, flag)) {
        if (v < 1) throw InputError(std::string(flag) + " takes positive numbers, not " + std::to_string(v));
        if (list == &flags.blocks && !isPackedBlockSize(v)) {
          throw InputError("--blocks " + std::to_string(v) + " is not a block size the packed format takes (" + packedBlockSizeList() + ")");
        }
      }
    }
  }
  if (!flags.data.empty() && flags.suite != "real") throw InputError("--data goes with --suite real");
  parseReportFormat(flags.format);
  if (flags.failOnTarget && flags.suite != "headline") throw InputError("--fail-on-target goes with --suite headline");
  // The blocksparse, activations and weights suites take the dtype of their cases (bf16 unless --dtype says); the others set their own.
  const bool suiteTakesDType = flags.suite == "blocksparse" || flags.suite == "activations" || flags.suite == "weights";
  if (!flags.suite.empty() && !suiteTakesDType && parseDType(flags.problem.dtype) != DType::Fp32) {
    throw InputError("--dtype goes with a single problem or --suite blocksparse, activations or weights: --suite " + flags.suite +
                     " sets its own (fp32) problems");
  }
  if (flags.suite == "sweep") {
    sweepCsvPath(flags);
  } else if (!flags.out.empty()) {
    fileFormat(flags);
  }
  bool csv = screenFormat(flags) == ReportFormat::Csv || (!flags.out.empty() && fileFormat(flags) == ReportFormat::Csv);
  if ((flags.suite == "headline" || flags.suite == "real" || suiteTakesDType) && csv) {
    throw InputError("--suite " + flags.suite + " writes a table or JSON, not CSV");
  }
  if (!flags.require.empty()) parseRequiredBackends(flags.require);
  flags.backend.validate(true);
  parseKernelList(flags.kernels);
  flags.problem.toSpec(kValidationDefaultSize);
  checkBenchOptions(benchOptions(flags));
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
  std::optional<AtomicFile> file;
  if (!flags.out.empty()) file.emplace(flags.out);
  std::vector<std::unique_ptr<Backend>> backends = suiteBackends(flags);
  requireOpened(flags.require, backends, flags.backend.options());
  // --size (or the device's default) sets M = N = K; the suite chooses the densities itself.
  SuiteOptions options{.size = flags.problem.toSpec(defaultSizeFor(backends)).m, .warmup = flags.warmup,
                       .repeat = flags.repeat, .seed = flags.problem.seed, .stableWithin = benchOptions(flags).stableWithin};
  HeadlineReport report = runHeadlineSuite(pointers(backends), options, note);
  auto text = [&](ReportFormat format) {
    if (format == ReportFormat::Csv) throw InputError("--suite headline writes a table or JSON, not CSV");
    return format == ReportFormat::Json ? formatHeadlineJson(report) : formatHeadlineTable(report);
  };
  if (file) {
    file->stream() << text(fileFormat(flags));
    file->commit();
    wrote(flags.out, fileFormat(flags));
  }
  std::cout << text(screenFormat(flags)) << std::flush;
  for (const std::string& missed : missedTargets(report)) note("target missed: " + missed);
  return headlineExitCode(report, flags.failOnTarget);
}

int runSweep(const BenchFlags& flags) {
  const std::string csvPath = sweepCsvPath(flags);
  std::filesystem::path pngPath = csvPath;
  pngPath.replace_extension(".png");
  AtomicFile csv(csvPath);
  std::vector<std::unique_ptr<Backend>> backends = suiteBackends(flags);
  requireOpened(flags.require, backends, flags.backend.options());
  SweepOptions options;
  options.warmup = flags.warmup;
  options.repeat = flags.repeat;
  options.stableWithin = benchOptions(flags).stableWithin;
  options.seed = flags.problem.seed;
  if (!anyGpu(backends)) options.sizes = {128, 256};
  if (flags.problem.sizeOption != nullptr && flags.problem.sizeOption->count() > 0) {
    options.sizes = {flags.problem.toSpec(0).m};
  }
  SweepReport report = runSweepSuite(pointers(backends), options, note);
  csv.stream() << formatSweepCsv(report);
  csv.commit();
  for (const std::string& failure : report.failures) std::cerr << "FAIL " << failure << "\n";
  if (report.points.empty()) {
    std::cout << "wrote " << csvPath << " (no points); no plot drawn: nothing was measured\n";
    return benchExitCode(report.failedRows);
  }
  // The CSV is the result; the plot only draws it. Without Python or matplotlib the run still
  // succeeds, and says plainly that there is no plot and what to install (docs/results.md).
  PlotOutcome plot = drawSweepPlot(csvPath, pngPath);
  if (plot.drawn) {
    std::cout << "wrote " << csvPath << " (" << report.points.size() << " points) and " << pngPath.string() << "\n";
  } else {
    std::cout << "wrote " << csvPath << " (" << report.points.size() << " points); no plot drawn\n";
    note("no plot drawn: " + plot.whyNot + "; the CSV is complete, and scripts/plot_sweep.py " + csvPath + " " +
         pngPath.string() + " draws it later");
  }
  return benchExitCode(report.failedRows);
}

int runReal(const BenchFlags& flags) {
  std::optional<AtomicFile> file;
  if (!flags.out.empty()) file.emplace(flags.out);
  const std::vector<RealCase> cases = readRealCases(flags.data.empty() ? defaultRealDataFolder() : std::filesystem::path(flags.data));
  std::vector<std::unique_ptr<Backend>> backends = suiteBackends(flags);
  requireOpened(flags.require, backends, flags.backend.options());
  std::vector<RealCaseRun> runs =
      runRealSuite(pointers(backends), cases, benchOptions(flags), note);
  std::string text;
  for (const RealCaseRun& run : runs) text += "== " + run.realCase.name + " (" + run.realCase.source + ")\n" + formatTable(run.report) + "\n";
  text += formatRealSummary(runs);
  auto inFormat = [&](ReportFormat format) {
    if (format == ReportFormat::Csv) throw InputError("--suite real writes a table or JSON, not CSV");
    return format == ReportFormat::Json ? formatRealJson(runs) : text;
  };
  if (file) {
    file->stream() << inFormat(fileFormat(flags));
    file->commit();
    wrote(flags.out, fileFormat(flags));
  }
  std::cout << inFormat(screenFormat(flags)) << std::flush;
  for (const RealCaseRun& run : runs) {
    for (const BenchRow& row : run.report.rows) {
      if (!row.timed()) return static_cast<int>(ExitCode::VerificationFailed);
    }
  }
  return 0;
}

// The suites measured against a packed ceiling (blocksparse, activations): every backend, the host's
// BLAS beside the devices (where no cuBLAS runs it is the vendor GEMM the cases and their ceilings
// are timed with), in the suite's dtype (bf16 unless --dtype says). `run` makes the report from
// the backends, the size and the dtype; `table` and `json` write it; `code` is its exit code.
template <class Run, class Table, class Json, class Code>
int runCeilingSuite(const BenchFlags& flags, Run run, Table table, Json json, Code code) {
  std::optional<AtomicFile> file;
  if (!flags.out.empty()) file.emplace(flags.out);
  BackendFlags all = flags.backend;
  if (all.backend.empty()) all.backend = "all";
  std::vector<std::unique_ptr<Backend>> backends = all.open();
  requireOpened(flags.require, backends, flags.backend.options());
  const bool dtypeGiven = flags.problem.dtypeOption != nullptr && flags.problem.dtypeOption->count() > 0;
  const auto report = run(pointers(backends), flags.problem.toSpec(defaultSizeFor(backends)).m,
                          dtypeGiven ? parseDType(flags.problem.dtype) : DType::Bf16);
  auto text = [&](ReportFormat format) {
    if (format == ReportFormat::Csv) throw InputError("--suite " + flags.suite + " writes a table or JSON, not CSV");
    return format == ReportFormat::Json ? json(report) : table(report);
  };
  if (file) {
    file->stream() << text(fileFormat(flags));
    file->commit();
    wrote(flags.out, fileFormat(flags));
  }
  std::cout << text(screenFormat(flags)) << std::flush;
  return code(report);
}

int runBlocksparse(const BenchFlags& flags) {
  return runCeilingSuite(
      flags,
      [&](const std::vector<Backend*>& backends, int size, DType dtype) {
        const BlocksparseOptions options{.size = size, .dtype = dtype, .warmup = flags.warmup, .repeat = flags.repeat,
                                         .seed = flags.problem.seed, .stableWithin = benchOptions(flags).stableWithin};
        return runBlocksparseSuite(backends, options, note);
      },
      formatBlocksparseTable, formatBlocksparseJson, blocksparseExitCode);
}

int runActivations(const BenchFlags& flags) {
  return runCeilingSuite(
      flags,
      [&](const std::vector<Backend*>& backends, int size, DType dtype) {
        const ActivationsOptions options{.size = size, .dtype = dtype, .warmup = flags.warmup, .repeat = flags.repeat,
                                         .seed = flags.problem.seed, .stableWithin = benchOptions(flags).stableWithin};
        return runActivationsSuite(backends, options, note);
      },
      formatActivationsTable, formatActivationsJson, activationsExitCode);
}

int runWeights(const BenchFlags& flags) {
  return runCeilingSuite(
      flags,
      [&](const std::vector<Backend*>& backends, int size, DType dtype) {
        WeightsOptions options{.size = size, .dtype = dtype, .warmup = flags.warmup, .repeat = flags.repeat,
                               .seed = flags.problem.seed, .stableWithin = benchOptions(flags).stableWithin};
        if (!flags.blocks.empty()) options.blocks = numberList<int>(flags.blocks, "--blocks");
        if (!flags.densities.empty()) options.densities = numberList<double>(flags.densities, "--densities");
        if (!flags.tokens.empty()) options.tokens = numberList<int>(flags.tokens, "--tokens");
        return runWeightsSuite(backends, options, note);
      },
      formatWeightsTable, formatWeightsJson, weightsExitCode);
}

int runBenchCommand(const BenchFlags& flags) {
  if (flags.suite == "weights") return runWeights(flags);
  if (flags.suite == "blocksparse") return runBlocksparse(flags);
  if (flags.suite == "activations") return runActivations(flags);
  if (flags.suite == "real") return runReal(flags);
  if (flags.suite == "headline") return runHeadline(flags);
  if (flags.suite == "sweep") return runSweep(flags);
  // Create the report's temporary first: an unwritable path should fail before minutes of
  // benchmarking, and an interrupted run should leave no half-written report.
  std::optional<AtomicFile> file;
  if (!flags.out.empty()) file.emplace(flags.out);
  std::vector<std::unique_ptr<Backend>> backends = flags.backend.open();
  requireOpened(flags.require, backends, flags.backend.options());
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
  if (targets.empty()) {
    throw InputError(spec.dtype == DType::Fp32
                         ? "no selected kernel is implemented by the selected backends"
                         : "no selected kernel that takes " + std::string(dtypeName(spec.dtype)) +
                               " inputs is implemented by the selected backends (see `tileskip list`)");
  }
  if (!flags.noBaseline) addBaselineTarget(backends, targets, spec.dtype);

  BenchReport report = runBench(targets, spec, data, benchOptions(flags), note);

  if (file) {
    file->stream() << formatReport(report, fileFormat(flags));
    file->commit();
    wrote(flags.out, fileFormat(flags));
  }
  std::cout << formatReport(report, screenFormat(flags)) << std::flush;

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
  app->add_option("--repeat-until-stable", flags->stablePercent,
                  "PCT: after --repeat runs, go on until the median's 95 % interval is within PCT % of it (at most " +
                      std::to_string(kMaxStableRuns) + " runs or " + fixed(kMaxStableSeconds, 0) +
                      " s per kernel): for gates on devices whose times wander; rows that do not settle say so");
  flags->formatOption = app->add_option("--format", flags->format,
                                        "table, csv or json: the report on screen, or in --out's file (the screen "
                                        "then gets the table)")
                            ->capture_default_str();
  app->add_option("--out", flags->out,
                  "write the report to this file, in the format of its extension (.csv, .json, .txt) unless --format "
                  "says (a --format that contradicts the extension is refused)");
  app->add_option("--require", flags->require, "BACKEND[,...]: exit 3 naming any of these the run does not use (a CI gate)");
  app->add_flag("--fail-on-target", flags->failOnTarget,
                "--suite headline: exit 4 when a measured ratio misses its target (a CI performance gate)");
  app->add_flag("--no-baseline", flags->noBaseline, "do not add a vendor baseline row from another backend");
  app->add_option("--suite", flags->suite,
                  "headline: the performance targets as ratios measured in one run (every kernel backend found); "
                  "sweep: densities 1.0 -> 0.03 and sizes 1024 -> 8192, written as CSV (--out, default sweep.csv) "
                  "and a PNG plot beside it (drawn by matplotlib; without it, the CSV alone, and a note); real: the matrices scripts/fetch-real-data.sh fetched (--data), every "
                  "kernel of every backend with auto's choice marked; blocksparse: zeros in 32-, 64- and 128-blocks, A alone and "
                  "with B, every fast kernel, auto and the vendor GEMM beside the packed ceiling (the vendor GEMM on the "
                  "kept products packed), in --dtype (default bf16); activations: zeros spread out as ReLU activations "
                  "leave them (the neurons generator at 90 % inactive, a dense A, LLaMA-2-7B's down projection, each "
                  "sparse one also sorted by firing), the same against the packed ceiling of the live columns; weights: "
                  "LLaMA-shaped block-sparse weights (4096 x 4096, 11008 x 4096, 4096 x 11008 at --size 4096) times 1 to 4096 "
                  "tokens, every fast and every bsr kernel, auto and the vendor GEMM beside the packed ceiling and the memory "
                  "bound (the kept blocks, X and C once at the device's copy bandwidth), in --dtype (default bf16)");
  app->add_option("--blocks", flags->blocks, "--suite weights: the block edges, comma separated (default 32,64,128)");
  app->add_option("--densities", flags->densities, "--suite weights: the blocks' kept fractions, comma separated (default 0.5,0.25,0.1)");
  app->add_option("--tokens", flags->tokens, "--suite weights: the token counts, comma separated (default 1,16,64,512,4096 at size 4096)");
  app->add_option("--data", flags->data, "--suite real: the folder holding cases.json (default $TILESKIP_REAL_DATA, "
                                         "else data/real)");
  return {app, [flags] { return runBenchCommand(*flags); }, [flags] { validateBench(*flags); }};
}

}  // namespace tileskip::cli
