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

// "totals: 412 cases, 410 passed, 2 failed; 12 kernels, 1 failed"
std::string formatVerifyTotals(const VerifyTotals& totals);

// One row per backend and kernel (cases passed, worst relative error, pass/FAIL), then the totals line.
std::string formatVerifyTable(const std::vector<VerifyBackendRun>& runs);
std::string formatVerifyJson(const std::vector<VerifyBackendRun>& runs);
// JUnit XML as CI systems read it: a <testsuite> per backend, a <testcase> per kernel and case
// (classname "tileskip.BACKEND.KERNEL"), a <failure> with the reason where it failed.
std::string formatVerifyJunit(const std::vector<VerifyBackendRun>& runs);

}  // namespace tileskip
