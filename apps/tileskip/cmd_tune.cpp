// tileskip tune: tries a backend's run-time variants of each kernel (the Vulkan backend: tile
// shapes and shader switches) on this device, keeps the fastest that verifies, and caches the
// choice for this device and driver, where the backend finds it next time (core/measure/tune.hpp).
#include <iostream>

#include "cli_common.hpp"
#include "require.hpp"
#include "core/model/error.hpp"
#include "core/measure/tune.hpp"

namespace tileskip::cli {

namespace {

struct TuneFlags {
  BackendFlags backend;
  std::string kernels = "all";
  int size = 0;  // 0: the device's default
  std::uint64_t seed = 42;
  int warmup = 2;
  int repeat = 10;
  std::string require;  // --require BACKEND[,...]
};

void validateTune(const TuneFlags& flags) {
  flags.backend.validate(false);
  if (!flags.require.empty()) parseRequiredBackends(flags.require);
  parseKernelList(flags.kernels);
  checkBenchOptions({.warmup = flags.warmup, .repeat = flags.repeat});
}

int runTuneCommand(const TuneFlags& flags) {
  BackendFlags chosen = flags.backend;
  if (chosen.backend.empty()) chosen.backend = "vulkan";  // the backend with run-time variants
  std::vector<std::unique_ptr<Backend>> opened = chosen.open();
  requireOpened(flags.require, opened, flags.backend.options());
  Backend& backend = *opened.front();
  std::vector<const KernelInfo*> kernels;
  std::vector<const KernelInfo*> selected = selectKernels(flags.kernels, backend, flags.kernels != "all");
  if (const Tunable* tunable = backend.tuning()) {
    for (const KernelInfo* k : selected) {
      if (!tunable->variants(*k).empty()) kernels.push_back(k);
    }
  }
  if (kernels.empty()) {
    throw InputError("backend " + std::string(backend.name()) + " has nothing to tune in '" + flags.kernels +
                     "': its kernels' shapes are fixed when it is built (the Vulkan backend has run-time variants; "
                     "the CUDA shapes were chosen offline, lab/02-tile-shape-search)");
  }
  TuneOptions options;
  options.size = flags.size > 0 ? flags.size : defaultSizeFor(backend);
  options.seed = flags.seed;
  options.timing = {.warmup = flags.warmup, .repeat = flags.repeat};
  note("tuning " + std::to_string(kernels.size()) + " kernels of " + std::string(backend.name()) + " at " +
       std::to_string(options.size) + " (" + backend.device().describe() + ")");
  // "[i/N] kernel variant, round r of R, about ... left" as each trial begins, then one labelled
  // line per variant with its median and spread.
  TuneReport report = runTune(backend, kernels, options, note);
  std::cout << formatTuneTable(report) << std::flush;
  if (report.anyFailedVerification()) {
    note("not saved: a variant failed verification (FAILED rows above)");
    return static_cast<int>(ExitCode::VerificationFailed);
  }
  std::optional<std::filesystem::path> cache = tuneCachePath();
  if (!cache) {
    note(std::string("not saved: ") + kTuneCacheVariable + "=off (or no home folder)");
    return 0;
  }
  writeTuneCache(*cache, report);
  note("saved to " + cache->string() + ": " + std::string(backend.name()) + " runs these choices on " + backend.device().name +
       " from now on (" + kTuneCacheVariable + "=off ignores them)");
  return 0;
}

}  // namespace

Command addTuneCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "tune", "try each kernel's run-time variants on this device and cache the fastest that verifies (Vulkan)");
  auto flags = std::make_shared<TuneFlags>();
  flags->backend.addTo(app, " (default: vulkan, the backend with run-time variants)");
  app->add_option("--kernel", flags->kernels, "kernel ids, comma separated, or all")->capture_default_str();
  app->add_option("--size", flags->size, "M = N = K (default: 4096 on a GPU, 512 on a CPU device)")->check(CLI::Range(1, 32768));
  app->add_option("--seed", flags->seed, "random seed of the generated inputs")->check(seedValidator())->capture_default_str();
  app->add_option("--warmup", flags->warmup, "untimed runs before timing each variant")->capture_default_str();
  app->add_option("--repeat", flags->repeat, "timed runs per variant; the median counts")->capture_default_str();
  app->add_option("--require", flags->require, "BACKEND[,...]: exit 3 naming any of these the run does not tune (a CI gate)");
  return {app, [flags] { return runTuneCommand(*flags); }, [flags] { validateTune(*flags); }};
}

}  // namespace tileskip::cli
