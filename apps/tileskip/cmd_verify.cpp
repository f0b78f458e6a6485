// tileskip verify: the correctness suite of every kernel (shapes, adversarial patterns,
// generators) with a pass/fail table or JSON and a totals line, JUnit XML for CI (--junit);
// exit 1 on any failure.
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli_common.hpp"
#include "require.hpp"
#include "core/io/atomic_file.hpp"
#include "core/model/error.hpp"
#include "core/measure/progress.hpp"
#include "core/io/verify_report.hpp"
#include "core/measure/verify_suite.hpp"

namespace tileskip::cli {

namespace {

struct VerifyFlags {
  BackendFlags backend;
  std::string kernels = "all";
  bool quick = false;
  bool verbose = false;
  std::string require;  // --require BACKEND[,...]
  std::string format = "table";
  std::string junit;  // --junit FILE
  std::string out;    // --out FILE: the report in the format its extension names (or --format's)
  CLI::Option* formatOption = nullptr;  // whether --format was given
  std::string dtype;  // --dtype: only inputs of this precision ("": every precision each kernel takes)
};

// --out's format: --format's where given, else by the file's extension: .json, .xml (JUnit), .txt
// (the table). Any other extension without --format is refused before anything runs.
std::string verifyFileFormat(const VerifyFlags& flags) {
  if (flags.formatOption != nullptr && flags.formatOption->count() > 0) return flags.format;
  const std::string extension = std::filesystem::path(flags.out).extension().string();
  if (extension == ".json") return "json";
  if (extension == ".xml") return "junit";
  if (extension == ".txt") return "table";
  throw InputError("--out " + flags.out + ": verify writes .json, .xml (JUnit) or .txt (the table); give --format for another name");
}

int runVerifyCommand(const VerifyFlags& flags) {
  std::vector<std::unique_ptr<Backend>> backends;
  VerifyContext context;
  context.suite = flags.quick ? "quick" : "full";
  if (flags.backend.backend.empty()) {
    // Verify everything that can run here, not only the best backend.
    BackendFlags all = flags.backend;
    all.backend = "all";
    backends = all.open(&context.unavailable);
  } else {
    backends = flags.backend.open(&context.unavailable);
  }
  requireOpened(flags.require, backends, flags.backend.options());
  std::vector<VerifyCase> cases = verifyCases(flags.quick);
  // The JUnit file's temporary first: an unwritable path fails before minutes of verifying.
  std::optional<AtomicFile> junit, out;
  if (!flags.junit.empty()) junit.emplace(flags.junit);
  if (!flags.out.empty()) out.emplace(flags.out);

  std::optional<DType> only;
  if (!flags.dtype.empty()) only = parseDType(flags.dtype);
  std::vector<VerifyBackendRun> runs;
  std::vector<std::vector<VerifyTarget>> selected;
  int steps = 0;
  for (const auto& backend : backends) {
    // Without --dtype every precision each kernel takes; with it, a kernel named that does not take it is refused.
    std::vector<const KernelInfo*> kernels = selectKernels(flags.kernels, *backend, backends.size() == 1, only);
    selected.push_back(verifyTargets(*backend, kernels, only));
    DTypeSet dtypes;
    for (const VerifyTarget& t : selected.back()) dtypes = dtypes.with(t.dtype);
    for (DType type : {DType::Fp32, DType::Tf32, DType::Fp16, DType::Bf16}) steps += dtypes.contains(type) ? static_cast<int>(cases.size()) : 0;
  }
  // A gate that verified nothing must not pass: as bench, refuse a selection no backend runs.
  if (steps == 0) {
    throw InputError(only && *only != DType::Fp32
                         ? "no selected kernel that takes " + std::string(dtypeName(*only)) +
                               " inputs is implemented by the selected backends (see `tileskip list`)"
                         : "no selected kernel is implemented by the selected backends (see `tileskip list`)");
  }
  ProgressMeter progress(steps, note);
  for (std::size_t b = 0; b < backends.size(); ++b) {
    Backend& backend = *backends[b];
    const std::vector<VerifyTarget>& targets = selected[b];
    if (targets.empty()) continue;
    note("verifying " + std::to_string(targets.size()) + " kernels of " + std::string(backend.name()) + " on " +
         std::to_string(cases.size()) + " cases (" + backend.device().describe() + ")");
    VerifyBackendRun run{.backend = std::string(backend.name()), .device = backend.device(), .kernels = {}, .results = {}};
    for (const VerifyTarget& t : targets) run.kernels.push_back(verifyLabel(*t.kernel, t.dtype));
    std::string lastStep;
    run.results = runVerifyTargets(backend, targets, cases, [&](const VerifyResult& r) {
      // Per dtype, cases run one after another, every kernel on each: a step per case and dtype.
      const std::string step = std::string(backend.name()) + " " + r.caseName + (r.dtype == DType::Fp32 ? "" : " " + std::string(dtypeName(r.dtype)));
      if (step != lastStep) progress.begin(lastStep = step);
      if (flags.verbose) {
        std::cerr << "  " << r.label() << " " << r.caseName << ": " << (r.passed() ? "ok" : r.failure) << "\n";
      }
      if (!r.passed()) std::cerr << "FAIL " << backend.name() << " " << r.label() << " " << r.caseName << ": " << r.failure << "\n";
    });
    runs.push_back(std::move(run));
  }
  if (junit) {
    junit->stream() << formatVerifyJunit(runs, context);
    junit->commit();
    note("wrote " + flags.junit + " (JUnit XML)");
  }
  auto report = [&](const std::string& format) {
    return format == "json" ? formatVerifyJson(runs, context) : format == "junit" ? formatVerifyJunit(runs, context) : formatVerifyTable(runs);
  };
  if (out) {
    out->stream() << report(verifyFileFormat(flags));
    out->commit();
    note("wrote " + flags.out);
  }
  std::cout << report(flags.format) << std::flush;
  VerifyTotals totals = verifyTotals(runs);
  if (flags.format == "json") note(formatVerifyTotals(totals));
  return totals.failed > 0 ? static_cast<int>(ExitCode::VerificationFailed) : 0;
}

}  // namespace

Command addVerifyCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("verify", "run every kernel against the CPU reference on the correctness suite");
  auto flags = std::make_shared<VerifyFlags>();
  flags->backend.addTo(app, ", or all (default: every available backend)");
  app->add_option("--kernel", flags->kernels, "kernel ids, comma separated, or all")->capture_default_str();
  app->add_flag("--quick", flags->quick, "a smaller suite: one shape per adversarial case");
  app->add_flag("-v,--verbose", flags->verbose, "print every case as it runs");
  app->add_option("--require", flags->require, "BACKEND[,...]: exit 3 naming any of these that is unavailable (a CI gate)");
  flags->formatOption = app->add_option("--format", flags->format, "table or json (schema tileskip.verify/1), each with the totals")
                            ->capture_default_str();
  app->add_option("--out", flags->out,
                  "also write the report to this file: in --format where given, else by its extension (.json, .xml for "
                  "JUnit, .txt)");
  app->add_option("--junit", flags->junit, "also write the results as JUnit XML to this file (a test case per kernel and case)");
  app->add_option("--dtype", flags->dtype,
                  "only inputs of this precision: " + dtypeNames() + " (default: every precision each kernel takes)");
  auto validate = [flags] {
    flags->backend.validate(true);
    if (!flags->require.empty()) parseRequiredBackends(flags->require);
    parseKernelList(flags->kernels);
    if (!flags->dtype.empty()) parseDType(flags->dtype);
    if (flags->format != "table" && flags->format != "json") {
      throw InputError("unknown verify format '" + flags->format + "'; use table or json");
    }
    if (!flags->out.empty()) verifyFileFormat(*flags);
  };
  return {app, [flags] { return runVerifyCommand(*flags); }, validate};
}

}  // namespace tileskip::cli
