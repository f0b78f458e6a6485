#include "core/measure/suite_real.hpp"

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/model/error.hpp"
#include "core/measure/auto_choice.hpp"
#include "core/io/matrix_io.hpp"
#include "core/measure/progress.hpp"
#include "core/io/provenance.hpp"
#include "core/io/report.hpp"

namespace tileskip {

std::filesystem::path defaultRealDataFolder() {
  const char* folder = std::getenv("TILESKIP_REAL_DATA");
  return folder != nullptr && *folder != '\0' ? std::filesystem::path(folder) : std::filesystem::path("data/real");
}

std::vector<RealCase> readRealCases(const std::filesystem::path& folder) {
  const std::filesystem::path manifest = folder / "cases.json";
  const std::string fetch = "; scripts/fetch-real-data.sh fetches the cases (set TILESKIP_REAL_DATA for another folder)";
  std::ifstream in(manifest);
  if (!in) throw InputError("no real-data manifest at " + manifest.string() + fetch);
  nlohmann::json document;
  try {
    in >> document;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(manifest.string() + " is not valid JSON (" + e.what() + ")" + fetch);
  }
  const nlohmann::json& list = document.is_object() && document.contains("cases") ? document["cases"] : document;
  if (!list.is_array() || list.empty()) throw InputError(manifest.string() + " lists no cases" + fetch);
  std::vector<RealCase> cases;
  for (const nlohmann::json& entry : list) {
    auto text = [&](const char* key, bool required) -> std::string {
      if (entry.is_object() && entry.contains(key) && entry[key].is_string()) return entry[key].get<std::string>();
      if (required) throw InputError(manifest.string() + ": a case without a \"" + key + "\" string");
      return {};
    };
    RealCase c{text("name", true), folder / text("a", true), folder / text("b", true), text("source", false),
               text("note", false)};
    for (const std::filesystem::path& file : {c.a, c.b}) {
      if (!std::filesystem::exists(file)) throw InputError("case " + c.name + ": " + file.string() + " is missing" + fetch);
      formatFromPath(file);
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<RealCaseRun> runRealSuite(const std::vector<Backend*>& backends, const std::vector<RealCase>& cases,
                                      const BenchOptions& options, const ProgressCallback& progress) {
  std::vector<RealCaseRun> runs;
  ProgressMeter meter(static_cast<int>(cases.size()), progress);
  for (const RealCase& c : cases) {
    ProblemSpec spec;
    spec.fileA = c.a.string();
    spec.fileB = c.b.string();
    ProblemData data = loadProblem(spec, [](char) { return false; });
    meter.begin("real: " + c.name + ": " + spec.describe());
    std::vector<BenchTarget> targets;
    for (Backend* backend : backends) {
      BenchTarget target{backend, backend->kernels()};
      const AutoChoice choice = chooseKernel(*backend, data.a, data.b, spec.fileA, spec.fileB);
      target.autoKernel = choice.choice.kernel;
      target.autoReason = choice.choice.reason;
      targets.push_back(std::move(target));
    }
    runs.push_back({c, runBench(targets, spec, data, options, progress)});
  }
  return runs;
}

namespace {

std::string speed(const BenchRow* row, const BenchRow* dense) {
  if (row == nullptr || dense == nullptr) return "-";
  return fixed(dense->kernelMs.median / row->kernelMs.median, 2) + "x";
}

}  // namespace

std::string formatRealSummary(const std::vector<RealCaseRun>& runs) {
  std::vector<std::vector<std::string>> cells = {{"case", "M x K x N", "backend", "auto", "predicted", "measured",
                                                  "fastest kernel", "its speedup", "auto / fastest", "cublas",
                                                  "cusparse-csr"}};
  std::ostringstream failures;
  for (const RealCaseRun& run : runs) {
    const ProblemSpec& p = run.report.problem;
    std::vector<std::string> backends;
    for (const BenchRow& row : run.report.rows) {
      if (std::find(backends.begin(), backends.end(), row.backend) == backends.end()) backends.push_back(row.backend);
      if (!row.timed()) failures << run.realCase.name << ": " << row.backend << " " << row.kernel << ": " << row.failure << "\n";
    }
    for (const std::string& backend : backends) {
      const BenchRow* dense = timedRow(run.report, backend, kDenseReferenceKernel);
      const BenchRow* chosen = nullptr;
      const BenchRow* best = nullptr;
      for (const BenchRow& row : run.report.rows) {
        if (row.backend != backend || !row.timed()) continue;
        if (!row.autoReason.empty()) chosen = &row;
        if (best == nullptr || row.kernelMs.median < best->kernelMs.median) best = &row;
      }
      cells.push_back({run.realCase.name, std::to_string(p.m) + "x" + std::to_string(p.k) + "x" + std::to_string(p.n),
                       backend, chosen ? chosen->kernel : "-", chosen ? fixed(chosen->predictedSpeedup, 2) + "x" : "-",
                       speed(chosen, dense), best ? best->kernel : "-", speed(best, dense),
                       chosen && best ? fixed(best->kernelMs.median / chosen->kernelMs.median, 3) : "-",
                       speed(timedRow(run.report, backend, "cublas"), dense),
                       speed(timedRow(run.report, backend, "cusparse-csr"), dense)});
    }
  }
  std::string text = "speedups over " + std::string(kDenseReferenceKernel) + " on the same backend, same run\n\n" +
                     alignColumns(cells, 4);
  const std::string failed = failures.str();
  return failed.empty() ? text : text + "\nfailed:\n" + failed;
}

std::string formatRealJson(const std::vector<RealCaseRun>& runs) {
  nlohmann::json cases = nlohmann::json::array();
  for (const RealCaseRun& run : runs) {
    cases.push_back({{"name", run.realCase.name},
                     {"a", run.realCase.a.string()},
                     {"b", run.realCase.b.string()},
                     {"source", run.realCase.source},
                     {"note", run.realCase.note},
                     {"report", nlohmann::json::parse(formatJson(run.report))}});
  }
  return jsonDocumentText({{"schema", kRealSchema},
                           {"suite", "real"},
                           {"tool", {{"version", toolVersion()}, {"commit", toolCommit()}}},
                           {"dtype", kDtype},
                           {"cases", cases}});
}

}  // namespace tileskip
