// One suite case measured against what its zeros allow, the part the blocksparse and activations
// suites share: in one process, every fast kernel of each backend that takes the dtype (warp tiles
// or tensor cores) and auto's choice, the vendor's dense GEMM in the same dtype, the packed ceiling
// (the same vendor GEMM on only the kept products packed into a dense problem, K' = K · the kept
// fraction) and each skipping kernel's own ceiling (the dense kernel its loop is built on, on the
// packed problem). A kernel is judged by the fraction of the ceiling it reaches.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/io/provenance.hpp"
#include "core/io/report.hpp"
#include "core/measure/bench.hpp"
#include "core/measure/progress.hpp"
#include "core/model/backend.hpp"

namespace tileskip {

struct CeilingKernel {
  std::string backend, kernel;
  std::string autoReason;  // where auto chose this kernel on its backend: why ("" otherwise)
  double kernelMs = 0.0;
  double prepareMs = 0.0;  // its preparation: its patterns (and a compaction kernel's transposed A)
  double e2eMs = 0.0;      // kernel and preparation
  // With A prepared once and kept (a static weight): the kernel and what it prepares per call
  // then (BenchRow::prepareKeepingAMs). Nothing where the backend does not time it apart.
  std::optional<double> e2eStaticAMs;
  // The problem's 16-bit copies of A and B, made once from the fp32 values (BenchRow::roundingMs):
  // in no e2eMs, since a caller with operands in the dtype never makes them.
  double roundingMs = 0.0;
  std::optional<double> speedup;          // baselineMs / kernelMs
  // The speedup over the vendor GEMM that inspect's speed model predicts from the case's patterns
  // (the kernel's and the vendor GEMM's predicted times, on the vendor GEMM's backend), to judge
  // the model by beside `speedup`. Empty where the backend's model has no row for either.
  std::optional<double> predictedSpeedup;
  std::optional<double> ceilingFraction;  // ceilingMs / kernelMs
  // A skipping kernel's own ceiling: the dense kernel its main loop is built on (same loop and
  // thread mapping, same backend: K13 for S10 and S14, K14 for S11-S13) on the packed problem, and
  // ownCeilingMs / kernelMs. Empty where there is none.
  std::string ownCeiling;
  std::optional<double> ownCeilingMs, ownCeilingFraction;
};

struct CeilingMeasurement {
  int packedK = 0;        // K · the kept fraction, in whole K-blocks: the ceiling's K
  std::string baseline;   // the vendor GEMM that ran ("cublas", or "cpu" where there is no cuBLAS)
  std::optional<double> baselineMs, ceilingMs;
  std::vector<CeilingKernel> kernels;    // verified ones, fastest first
  std::vector<std::string> failures;     // "backend kernel: why" for the ones that did not run
  std::vector<BenchReport> runs;         // every bench run the case was computed from
};

// The kernels a case times on a backend in a dtype (the vendor GEMM among them).
using SuiteKernels = std::function<std::vector<const KernelInfo*>(Backend&, DType)>;
// The blocksparse and activations suites' choice: those that take the dtype and are built to be
// fast (warp tiles or tensor cores), and the vendor's dense GEMM.
std::vector<const KernelInfo*> fastKernels(Backend& backend, DType dtype);

// Measures one case: `data` generated from `spec` (its dtype the suite's), `keptFraction` of its
// products kept (the joint density at the zeros' block edge, or the live fraction of K). Three
// steps of `meter`: the kernels (`select`'s, and auto's choice where it is another), the ceiling,
// the own ceilings; `name` labels them.
CeilingMeasurement measureAgainstCeiling(const std::vector<Backend*>& backends, const ProblemSpec& spec, const ProblemData& data,
                                         double keptFraction, const BenchOptions& bench, const std::string& name,
                                         ProgressMeter& meter, const ProgressCallback& progress,
                                         const SuiteKernels& select = fastKernels);

// A case's kernels as the suites' JSON writes them, and as the table's rows (its header first).
nlohmann::json ceilingKernelsJson(const std::vector<CeilingKernel>& kernels);
std::vector<std::vector<std::string>> ceilingKernelCells(const std::vector<CeilingKernel>& kernels);

// 1 where a kernel failed verification, else the first other failure's code (benchExitCode), else 0.
int ceilingExitCode(const std::vector<BenchReport>& runs);

// InputError where no backend has a kernel the suite would time in `dtype` (a machine whose only
// GPU backend is Vulkan, asked for bf16): a suite of empty cases answers nothing.
void requireSuiteKernels(const std::vector<Backend*>& backends, DType dtype, const char* suite);

// A ceiling suite's report before its cases: the date, the host, each backend's device and the
// options (`Report` has those members, its options those of `Options`); requireSuiteKernels first.
template <class Report, class Options>
Report startCeilingSuite(const std::vector<Backend*>& backends, const Options& options, const char* suite) {
  requireSuiteKernels(backends, options.dtype, suite);
  Report report;
  report.date = utcTimestamp();
  report.host = hostDescription();
  report.options = options;
  for (Backend* b : backends) report.devices.push_back(std::string(b->name()) + ": " + b->device().describe());
  return report;
}

// A ceiling suite's options as each of its bench runs takes them.
template <class Options>
BenchOptions ceilingBenchOptions(const Options& o) {
  return {.warmup = o.warmup, .repeat = o.repeat, .warmupMilliseconds = o.warmupMilliseconds, .stableWithin = o.stableWithin};
}

// The first lines of a ceiling suite's table: the command and the date, each device, the host.
template <class Report>
std::string ceilingSuiteTableHead(const char* suite, const Report& report) {
  std::string head = std::string("tileskip bench --suite ") + suite + "  " + report.date + "\n";
  for (const std::string& d : report.devices) head += "device    " + d + "\n";
  return head + "host      " + report.host + "\n";
}

// The document a ceiling suite writes: `schema`, `suite`, the tool, the report's dtype, date, host,
// devices, size, timing and seed (its `options`' fields), its `cases` and every bench run as a
// tileskip.bench/1 document.
template <class Report>
std::string ceilingSuiteJson(const char* schema, const char* suite, const Report& report, nlohmann::json cases,
                             const std::vector<BenchReport>& runs) {
  nlohmann::json documents = nlohmann::json::array();
  for (const BenchReport& r : runs) documents.push_back(nlohmann::json::parse(formatJson(r)));
  const auto& o = report.options;
  nlohmann::json doc = {{"schema", schema},
                        {"suite", suite},
                        {"tool", {{"version", toolVersion()}, {"commit", toolCommit()}}},
                        {"dtype", dtypeName(o.dtype)},
                        {"date", report.date},
                        {"host", report.host},
                        {"devices", report.devices},
                        {"size", o.size},
                        {"timing", {{"warmup", o.warmup}, {"repeat", o.repeat},
                                    {"until_stable", o.stableWithin > 0.0 ? nlohmann::json(o.stableWithin) : nlohmann::json(nullptr)}}},
                        {"seed", o.seed},
                        {"cases", std::move(cases)},
                        {"runs", std::move(documents)}};
  return jsonDocumentText(doc);
}

}  // namespace tileskip
