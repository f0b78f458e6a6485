// tileskip verify: the correctness suite of every kernel (shapes, adversarial patterns,
// generators) with a pass/fail table; exit 1 on any failure.
#include <algorithm>
#include <iostream>
#include <map>

#include "cli_common.hpp"
#include "require.hpp"
#include "core/error.hpp"
#include "core/report.hpp"
#include "core/verify_suite.hpp"

namespace tileskip::cli {

namespace {

struct VerifyFlags {
  BackendFlags backend;
  std::string kernels = "all";
  bool quick = false;
  bool verbose = false;
  std::string require;  // --require BACKEND[,...]
};

int runVerifyCommand(const VerifyFlags& flags) {
  std::vector<std::unique_ptr<Backend>> backends;
  if (flags.backend.backend.empty()) {
    // Verify everything that can run here, not only the best backend.
    BackendFlags all = flags.backend;
    all.backend = "all";
    backends = all.open();
  } else {
    backends = flags.backend.open();
  }
  if (!flags.require.empty()) {
    std::vector<std::string> opened;
    for (const auto& backend : backends) opened.emplace_back(backend->name());
    std::vector<std::string> required = parseRequiredBackends(flags.require);
    bool allThere = std::all_of(required.begin(), required.end(), [&](const std::string& name) {
      return std::find(opened.begin(), opened.end(), name) != opened.end();
    });
    if (!allThere) checkRequiredBackends(required, opened, discoverBackends(flags.backend.options()));
  }
  std::vector<VerifyCase> cases = verifyCases(flags.quick);

  struct Tally {
    int passed = 0, total = 0;
    double worstError = 0.0;
    std::vector<std::string> failures;
  };
  std::vector<std::vector<std::string>> cells = {{"backend", "kernel", "device", "cases", "worst rel.err", "result"}};
  bool anyFailed = false;
  for (const auto& backend : backends) {
    std::vector<const KernelInfo*> kernels = selectKernels(flags.kernels, *backend, backends.size() == 1);
    if (kernels.empty()) continue;
    note("verifying " + std::to_string(kernels.size()) + " kernels of " + std::string(backend->name()) + " on " +
         std::to_string(cases.size()) + " cases (" + backend->device().describe() + ")");
    std::map<std::string, Tally> tallies;
    runVerify(*backend, kernels, cases, [&](const VerifyResult& r) {
      Tally& t = tallies[r.kernel];
      ++t.total;
      t.passed += r.passed();
      t.worstError = std::max(t.worstError, r.error.relativeFrobenius);
      if (!r.passed()) t.failures.push_back(r.caseName + ": " + r.failure);
      if (flags.verbose) {
        std::cerr << "  " << r.kernel << " " << r.caseName << ": " << (r.passed() ? "ok" : r.failure) << "\n";
      }
    });
    for (const KernelInfo* k : kernels) {
      const Tally& t = tallies[std::string(k->id)];
      bool ok = t.passed == t.total;
      anyFailed = anyFailed || !ok;
      char error[32];
      std::snprintf(error, sizeof error, "%.2e", t.worstError);
      cells.push_back({std::string(backend->name()), std::string(k->id), backend->device().name,
                       std::to_string(t.passed) + "/" + std::to_string(t.total), error, ok ? "pass" : "FAIL"});
      for (const std::string& f : t.failures) std::cerr << "FAIL " << backend->name() << " " << k->id << " " << f << "\n";
    }
  }
  std::cout << alignColumns(cells, 3) << std::flush;
  return anyFailed ? static_cast<int>(ExitCode::VerificationFailed) : 0;
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
  auto validate = [flags] {
    flags->backend.validate(true);
    if (!flags->require.empty()) parseRequiredBackends(flags->require);
    parseKernelList(flags->kernels);
  };
  return {app, [flags] { return runVerifyCommand(*flags); }, validate};
}

}  // namespace tileskip::cli
