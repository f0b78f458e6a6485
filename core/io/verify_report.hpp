// `tileskip verify`'s results for people (a table with a totals line) and for CI systems: JSON
// (schema tileskip.verify/1) and JUnit XML, one test case per kernel and case.
#pragma once

#include <string>
#include <vector>

#include "core/model/backend.hpp"
#include "core/measure/verify_suite.hpp"

namespace tileskip {

// Every result of one backend's kernels on the suite.
struct VerifyBackendRun {
  std::string backend;
  DeviceInfo device;
  std::vector<std::string> kernels;  // labels (VerifyResult::label: "mma (bf16)"), in the order verified
  std::vector<VerifyResult> results;
};

struct VerifyTotals {
  int cases = 0, passed = 0, failed = 0;  // one per kernel and case
  int kernels = 0, kernelsFailed = 0;     // one per backend and kernel
};

VerifyTotals verifyTotals(const std::vector<VerifyBackendRun>& runs);

// What else a CI system reads about the run: which suite, and the backends that could not run.
struct VerifyContext {
  std::string suite = "full";  // "quick" (verify --quick) or "full"
  std::vector<std::pair<std::string, std::string>> unavailable;  // backend, why it could not run here
};

// "totals: 412 cases, 410 passed, 2 failed; 12 kernels, 1 failed"
std::string formatVerifyTotals(const VerifyTotals& totals);

// One row per backend and kernel (cases passed, worst relative error, pass/FAIL), then the totals line.
std::string formatVerifyTable(const std::vector<VerifyBackendRun>& runs);
// JSON: `suite`, `unavailable[]` (`backend`, `reason`), per kernel its `seconds`, and the totals'.
std::string formatVerifyJson(const std::vector<VerifyBackendRun>& runs, const VerifyContext& context = {});
// JUnit XML as CI systems read it: a <testsuite> per backend, a <testcase> per kernel and case
// (classname "tileskip.BACKEND.KERNEL") with its `time`, a <failure> with the reason where it
// failed; a backend that could not run is a suite of one <skipped/> case saying why.
std::string formatVerifyJunit(const std::vector<VerifyBackendRun>& runs, const VerifyContext& context = {});

}  // namespace tileskip
