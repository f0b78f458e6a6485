#include "core/io/verify_report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/measure/bench.hpp"
#include "core/io/provenance.hpp"
#include "core/io/report.hpp"

namespace tileskip {

namespace {

struct KernelTally {
  std::string kernel;                 // its id
  std::string dtype = "fp32";         // the inputs it was verified on
  int passed = 0, total = 0;
  double worstError = 0.0;
  double seconds = 0.0;
  std::vector<const VerifyResult*> failures;
};

std::map<std::string, KernelTally> tallies(const VerifyBackendRun& run) {
  std::map<std::string, KernelTally> out;
  for (const std::string& kernel : run.kernels) out[kernel];
  for (const VerifyResult& r : run.results) {
    KernelTally& t = out[r.label()];
    t.kernel = r.kernel;
    t.dtype = dtypeName(r.dtype);
    ++t.total;
    t.passed += r.passed();
    t.worstError = std::max(t.worstError, r.error.relativeFrobenius);
    t.seconds += r.seconds;
    if (!r.passed()) t.failures.push_back(&r);
  }
  return out;
}

std::string scientific(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2e", value);
  return text;
}

std::string xmlEscaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\n': out += "&#10;"; break;
      default:
        // XML 1.0 has no other control characters, not even escaped.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') out += c;
    }
  }
  return out;
}

std::string seconds(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", value);
  return text;
}

double runSeconds(const VerifyBackendRun& run) {
  double total = 0.0;
  for (const VerifyResult& r : run.results) total += r.seconds;
  return total;
}

// The input precisions verified, in DType's order: "fp32" or "fp32, fp16, bf16".
std::string dtypesVerified(const std::vector<VerifyBackendRun>& runs) {
  DTypeSet seen;
  for (const VerifyBackendRun& run : runs) {
    for (const VerifyResult& r : run.results) seen = seen.with(r.dtype);
  }
  return seen.empty() ? std::string(dtypeName(DType::Fp32)) : dtypeNames(seen);
}

}  // namespace

VerifyTotals verifyTotals(const std::vector<VerifyBackendRun>& runs) {
  VerifyTotals totals;
  for (const VerifyBackendRun& run : runs) {
    for (const auto& [kernel, t] : tallies(run)) {
      ++totals.kernels;
      totals.kernelsFailed += t.passed != t.total;
      totals.cases += t.total;
      totals.passed += t.passed;
      totals.failed += t.total - t.passed;
    }
  }
  return totals;
}

std::string formatVerifyTotals(const VerifyTotals& t) {
  return "totals: " + std::to_string(t.cases) + " cases, " + std::to_string(t.passed) + " passed, " +
         std::to_string(t.failed) + " failed; " + std::to_string(t.kernels) + " kernels, " +
         std::to_string(t.kernelsFailed) + " failed";
}

std::string formatVerifyTable(const std::vector<VerifyBackendRun>& runs) {
  std::vector<std::vector<std::string>> cells = {{"backend", "kernel", "device", "cases", "worst rel.err", "result"}};
  for (const VerifyBackendRun& run : runs) {
    std::map<std::string, KernelTally> byKernel = tallies(run);
    for (const std::string& kernel : run.kernels) {
      const KernelTally& t = byKernel[kernel];
      cells.push_back({run.backend, kernel, run.device.name, std::to_string(t.passed) + "/" + std::to_string(t.total),
                       scientific(t.worstError), t.passed == t.total ? "pass" : "FAIL"});
    }
  }
  return alignColumns(cells, 3) + formatVerifyTotals(verifyTotals(runs)) + "\n";
}

std::string formatVerifyJson(const std::vector<VerifyBackendRun>& runs, const VerifyContext& context) {
  nlohmann::json backends = nlohmann::json::array();
  for (const VerifyBackendRun& run : runs) {
    std::map<std::string, KernelTally> byKernel = tallies(run);
    nlohmann::json kernels = nlohmann::json::array();
    for (const std::string& kernel : run.kernels) {
      const KernelTally& t = byKernel[kernel];
      nlohmann::json failures = nlohmann::json::array();
      for (const VerifyResult* r : t.failures) failures.push_back({{"case", r->caseName}, {"failure", r->failure}});
      kernels.push_back({{"kernel", t.kernel.empty() ? kernel : t.kernel},
                         {"dtype", t.dtype},
                         {"cases", t.total},
                         {"passed", t.passed},
                         {"worst_relative_frobenius", t.worstError},
                         {"seconds", t.seconds},
                         {"result", t.passed == t.total ? "pass" : "fail"},
                         {"failures", failures}});
    }
    backends.push_back({{"backend", run.backend},
                        {"device", run.device.name},
                        {"driver", run.device.driver},
                        {"api", run.device.api},
                        {"tune_overrides", tuneOverridesOf(run.device)},
                        {"kernels", kernels}});
  }
  VerifyTotals t = verifyTotals(runs);
  nlohmann::json unavailable = nlohmann::json::array();
  for (const auto& [backend, reason] : context.unavailable) unavailable.push_back({{"backend", backend}, {"reason", reason}});
  double total = 0.0;
  for (const VerifyBackendRun& run : runs) total += runSeconds(run);
  nlohmann::json doc = {{"schema", kVerifySchema},
                        {"tool", {{"version", toolVersion()}, {"commit", toolCommit()}}},
                        {"dtype", dtypesVerified(runs)},
                        {"date", utcTimestamp()},
                        {"host", hostDescription()},
                        {"suite", context.suite},
                        {"backends", backends},
                        {"unavailable", unavailable},
                        {"totals", {{"cases", t.cases}, {"passed", t.passed}, {"failed", t.failed},
                                    {"kernels", t.kernels}, {"kernels_failed", t.kernelsFailed}, {"seconds", total}}}};
  return jsonDocumentText(doc);
}

std::string formatVerifyJunit(const std::vector<VerifyBackendRun>& runs, const VerifyContext& context) {
  VerifyTotals t = verifyTotals(runs);
  double total = 0.0;
  for (const VerifyBackendRun& run : runs) total += runSeconds(run);
  const std::size_t skipped = context.unavailable.size();
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"tileskip verify\" tests=\"" << t.cases + skipped
      << "\" failures=\"" << t.failed << "\" errors=\"0\" skipped=\"" << skipped << "\" time=\"" << seconds(total) << "\">\n";
  for (const VerifyBackendRun& run : runs) {
    int failed = 0;
    for (const VerifyResult& r : run.results) failed += !r.passed();
    out << "  <testsuite name=\"" << xmlEscaped(run.backend) << "\" tests=\"" << run.results.size() << "\" failures=\""
        << failed << "\" errors=\"0\" skipped=\"0\" time=\"" << seconds(runSeconds(run)) << "\" timestamp=\""
        << xmlEscaped(utcTimestamp()) << "\" hostname=\"" << xmlEscaped(hostDescription()) << "\">\n";
    out << "    <properties>\n";
    auto property = [&](const std::string& name, const std::string& value) {
      out << "      <property name=\"" << xmlEscaped(name) << "\" value=\"" << xmlEscaped(value) << "\"/>\n";
    };
    property("device", run.device.name);
    property("driver", run.device.driver);
    property("api", run.device.api);
    property("tool_version", toolVersion());
    property("tool_commit", toolCommit());
    property("dtype", dtypesVerified(runs));
    property("suite", context.suite);
    out << "    </properties>\n";
    for (const VerifyResult& r : run.results) {
      out << "    <testcase classname=\"tileskip." << xmlEscaped(run.backend) << "." << xmlEscaped(r.label()) << "\" name=\""
          << xmlEscaped(r.caseName) << "\" time=\"" << seconds(r.seconds) << "\"";
      if (r.passed()) {
        out << "/>\n";
      } else {
        out << ">\n      <failure message=\"" << xmlEscaped(r.failure) << "\" type=\"verification\">"
            << xmlEscaped(r.failure) << "</failure>\n    </testcase>\n";
      }
    }
    out << "  </testsuite>\n";
  }
  for (const auto& [backend, reason] : context.unavailable) {
    out << "  <testsuite name=\"" << xmlEscaped(backend) << "\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\" time=\"0.000\">\n"
        << "    <testcase classname=\"tileskip." << xmlEscaped(backend) << "\" name=\"unavailable\" time=\"0.000\">\n"
        << "      <skipped message=\"" << xmlEscaped(reason) << "\"/>\n    </testcase>\n  </testsuite>\n";
  }
  out << "</testsuites>\n";
  return out.str();
}

}  // namespace tileskip
