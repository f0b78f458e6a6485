#include "core/io/report.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/model/error.hpp"
#include "core/io/provenance.hpp"

namespace tileskip {

std::string fixed(double value, int decimals) {
  if (!std::isfinite(value)) return value > 0 ? "inf" : "n/a";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

namespace {

std::string optionalFixed(const std::optional<double>& value, int decimals, const char* suffix = "") {
  return value ? fixed(*value, decimals) + suffix : "-";
}

nlohmann::json optionalJson(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json finiteJson(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr); }

// The generator that made an operand of `p`, if one did: A's unless A is a file, then B's.
std::optional<std::string> generatorUsed(const ProblemSpec& p) {
  if (!p.fileA.empty() && !p.fileB.empty()) return std::nullopt;
  return p.fileA.empty() ? p.generator : p.generatorOf(Operand::B);
}

// The problem as the JSON gives it: its sizes, and per operand where it came from and the density
// it really has. What a generator was asked for (generator, density, seed, block) is null for an
// operand read from a file, which no generator made.
nlohmann::json problemJson(const ProblemSpec& p, const BenchReport& report) {
  const bool fileA = !p.fileA.empty(), fileB = !p.fileB.empty();
  auto unlessFile = [](bool file, const nlohmann::json& value) { return file ? nlohmann::json(nullptr) : value; };
  auto operand = [&](Operand which, int rows, int cols, double density, const std::string& sha256) {
    return nlohmann::json{{"source", p.sourceOf(which)}, {"file", !p.fileOf(which).empty()}, {"rows", rows}, {"cols", cols},
                          {"density", density}, {"sha256", sha256.empty() ? nlohmann::json(nullptr) : nlohmann::json(sha256)}};
  };
  return {{"m", p.m},
          {"n", p.n},
          {"k", p.k},
          {"generator", unlessFile(!generatorUsed(p), generatorUsed(p).value_or(""))},
          {"density_a", unlessFile(fileA, p.densityA)},
          {"density_b", unlessFile(fileB, p.densityB)},
          {"seed", unlessFile(!generatorUsed(p), p.seed)},
          {"block", unlessFile(fileA, p.options.block)},
          {"block_a", unlessFile(fileA, p.optionsOf(Operand::A).block)},
          {"block_b", unlessFile(fileB, p.optionsOf(Operand::B).block)},
          {"a", p.sourceOf(Operand::A)},
          {"b", p.sourceOf(Operand::B)},
          {"operands", {{"a", operand(Operand::A, p.m, p.k, report.elementDensityA, report.sha256A)},
                        {"b", operand(Operand::B, p.k, p.n, report.elementDensityB, report.sha256B)}}}};
}

}  // namespace

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

ReportFormat parseReportFormat(std::string_view name) {
  if (name == "table") return ReportFormat::Table;
  if (name == "csv") return ReportFormat::Csv;
  if (name == "json") return ReportFormat::Json;
  throw InputError("unknown report format '" + std::string(name) + "'; use table, csv or json");
}

std::string_view reportFormatName(ReportFormat format) {
  switch (format) {
    case ReportFormat::Table: return "table";
    case ReportFormat::Csv: return "csv";
    case ReportFormat::Json: return "json";
  }
  return "table";
}

ReportFormat outputFileFormat(std::string_view formatFlag, bool formatGiven, const std::string& path) {
  ReportFormat flagged = parseReportFormat(formatFlag);
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(), [](unsigned char c) { return std::tolower(c); });
  std::optional<ReportFormat> implied;
  if (extension == ".csv") implied = ReportFormat::Csv;
  if (extension == ".json") implied = ReportFormat::Json;
  if (extension == ".txt" || extension == ".table") implied = ReportFormat::Table;
  // A name with no extension (or a device such as /dev/null) takes --format, and so does any other
  // extension where --format is given; without it, such an extension must not silently get a table.
  if (!implied && !extension.empty() && !formatGiven) {
    throw InputError("--out " + path + ": " + extension + " is not a report format written here; use .csv, .json or .txt (a table)");
  }
  if (!implied) return flagged;
  if (formatGiven && flagged != *implied) {
    throw InputError("--format " + std::string(formatFlag) + " contradicts --out " + path + ", whose extension " + extension +
                     " means " + std::string(reportFormatName(*implied)) + "; drop --format or change the extension");
  }
  return *implied;
}

std::string formatReport(const BenchReport& report, ReportFormat format) {
  switch (format) {
    case ReportFormat::Table: return formatTable(report);
    case ReportFormat::Csv: return formatCsv(report);
    case ReportFormat::Json: return formatJson(report);
  }
  return {};
}

namespace {
std::optional<std::size_t> gOutputColumns;
}  // namespace

std::size_t outputColumns() {
  if (gOutputColumns) return *gOutputColumns;
  // A terminal that says how wide it is (COLUMNS, where the shell exports it) is taken at its word.
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const unsigned long value = std::strtoul(columns, &end, 10);
    if (end != columns && *end == '\0' && value >= 40) return value;
  }
  return kTerminalColumns;
}
void setOutputColumns(std::size_t columns) { gOutputColumns = columns; }

std::string wrapText(std::string_view text, std::size_t width, std::size_t indent) {
  if (width == 0 || (text.size() <= width && text.find('\n') == std::string_view::npos)) return std::string(text);
  std::string out;
  std::size_t lineLength = 0;
  bool lineStart = true;  // nothing but the indent on this line yet
  auto newLine = [&] {
    out += '\n' + std::string(indent, ' ');
    lineLength = indent;
    lineStart = true;
  };
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = std::min(text.find(' ', start), text.find('\n', start));
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(start, end - start);
    if (!lineStart && lineLength + 1 + word.size() > width) newLine();
    if (!lineStart) {
      out += ' ';
      ++lineLength;
    }
    out += word;
    lineLength += word.size();
    lineStart = false;
    if (end < text.size() && text[end] == '\n') newLine();  // the text's own line break
    start = end + 1;
  }
  return out;
}

std::string headingLine(const std::string& label, const std::string& text) {
  constexpr std::size_t kLabelColumns = 10;
  const std::size_t padding = label.size() < kLabelColumns ? kLabelColumns - label.size() : 1;
  return wrapText(label + std::string(padding, ' ') + text, outputColumns(), kLabelColumns) + "\n";
}

std::string alignColumns(const std::vector<std::vector<std::string>>& rows, std::size_t textColumns,
                         std::span<const std::size_t> keep) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  // Which columns fit: in `keep` order, then the rest left to right, while the line stays within
  // the limit; the first always.
  std::vector<bool> shown(widths.size(), true);
  std::size_t total = 0;
  for (std::size_t w : widths) total += w + 2;
  if (outputColumns() > 0 && total > outputColumns() + 2) {
    std::vector<std::size_t> order(keep.begin(), keep.end());
    for (std::size_t c = 0; c < widths.size(); ++c) {
      if (std::find(order.begin(), order.end(), c) == order.end()) order.push_back(c);
    }
    std::fill(shown.begin(), shown.end(), false);
    total = 0;
    for (std::size_t c : order) {
      if (c >= widths.size()) continue;
      if (total > 0 && total + widths[c] > outputColumns()) continue;
      shown[c] = true;
      total += widths[c] + 2;
    }
  }
  std::ostringstream out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (std::size_t c = 0; c < rows[r].size(); ++c) {
      if (!shown[c]) continue;
      const std::string& cell = rows[r][c];
      std::string padding(widths[c] - cell.size(), ' ');
      if (!line.empty()) line += "  ";
      line += c < textColumns ? cell + padding : padding + cell;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
    if (r == 0) out << std::string(total > 2 ? total - 2 : 0, '-') << '\n';
  }
  std::string hidden;
  for (std::size_t c = 0; c < shown.size() && !rows.empty(); ++c) {
    if (!shown[c] && c < rows.front().size()) hidden += (hidden.empty() ? "" : ", ") + rows.front()[c];
  }
  if (!hidden.empty()) out << wrapText("(--wide adds " + hidden + ")", outputColumns()) << '\n';
  return out.str();
}

std::string formatTable(const BenchReport& report) {
  std::ostringstream out;
  auto heading = [&](const std::string& label, const std::string& text) { out << headingLine(label, text); };
  heading("tileskip bench", report.date + "  (tileskip " + report.toolVersion + ", commit " + report.toolCommit + ", " +
                                std::string(dtypeName(report.problem.dtype)) + " inputs)");
  heading("problem", report.problem.describe());
  heading("patterns", "A density " + fixed(report.patternDensityA, 3) + ", B density " + fixed(report.patternDensityB, 3) +
                          " (8-row / 8-column tiles)");
  for (const std::string& device : report.devices) heading("device", device);
  heading("host", report.host);
  heading("timing", std::to_string(report.options.warmup) + " warm-up (on a GPU: until " +
                        fixed(report.options.warmupMilliseconds, 0) + " ms of work and until its times settle), median of " +
                        std::to_string(report.options.repeat) + " device-timed runs" +
                        (report.options.stableWithin > 0.0
                             ? " and more until its 95 % interval is within " + fixed(100.0 * report.options.stableWithin, 1) + " %"
                             : "") +
                        "; each kernel verified against the " +
                        report.referenceKind + " first");
  if (!report.baselineKernel.empty()) heading("baseline", report.baselineKernel);
  for (const std::string& model : report.models) heading("model", model + " (pred x: predicted speedup vs dense)");
  for (const BenchRow& row : report.rows) {
    if (!row.autoReason.empty()) heading("auto", row.backend + ": " + row.kernel + ": " + row.autoReason);
  }
  out << "\n";

  // The fastest of two or more timed rows is marked.
  const BenchRow* fastest = nullptr;
  int timed = 0;
  for (const BenchRow& row : report.rows) {
    if (!row.timed()) continue;
    ++timed;
    if (fastest == nullptr || row.kernelMs.median < fastest->kernelMs.median) fastest = &row;
  }
  if (timed < 2) fastest = nullptr;

  std::vector<std::vector<std::string>> cells = {{"backend", "kernel", "verified", "median ms", "min ms", "max ms",
                                                  "prep ms", "GFLOPS", "useful", "joint", "ideal x", "pred x",
                                                  "vs dense", "skip eff", "vs base", "e2e vs base", "median +-"}};
  std::vector<std::string> failures;
  for (const BenchRow& row : report.rows) {
    const KernelInfo& info = kernelInfo(row.kernel);
    std::string kernel = info.number.empty() ? row.kernel : row.kernel + " (" + std::string(info.number) + ")";
    if (!row.autoReason.empty()) kernel += " [auto]";
    if (&row == fastest) kernel += " *";
    if (!row.timed()) {
      cells.push_back({row.backend, kernel, row.error.tolerance > 0 ? "FAILED" : "error"});
      failures.push_back(row.backend + " " + row.kernel + ": " + row.failure);
      continue;
    }
    cells.push_back({row.backend, kernel, "yes", fixed(row.kernelMs.median, 3), fixed(row.kernelMs.min, 3),
                     fixed(row.kernelMs.max, 3), row.prepareMs.median > 0 ? fixed(row.prepareMs.median, 3) : "-",
                     fixed(row.effectiveGflops, 1), fixed(row.usefulGflops, 1), fixed(row.jointDensity, 3),
                     fixed(row.idealSpeedup, 2), (std::isfinite(row.predictedSpeedup) ? fixed(row.predictedSpeedup, 2) + "x" : "-"), optionalFixed(row.speedupVsDense, 2, "x"),
                     optionalFixed(row.skipEfficiency, 2), optionalFixed(row.vsBaseline, 2, "x"),
                     optionalFixed(row.endToEndVsBaseline, 2, "x"),
                     // The median's 95 % interval, half its width; "(unstable)" where --repeat-until-stable ran out.
                     row.kernelMs.runs >= kIntervalRuns
                         ? fixed(100.0 * row.kernelMs.spread(), 1) + " %" + (row.stable == false ? " (unstable)" : "")
                         : "-"});
  }
  // On a terminal the columns that say most stay: the time, then how it compares.
  static constexpr std::size_t kKeep[] = {0, 1, 2, 3, 12, 7, 13, 14, 9, 11, 16, 6, 15, 10, 8, 4, 5};
  out << alignColumns(cells, 3, kKeep);
  if (fastest != nullptr) out << "* fastest median\n";
  for (const std::string& failure : failures) out << "\n" << wrapText(failure, outputColumns(), 2);
  if (!failures.empty()) out << "\n";
  for (const std::string& message : report.diagnostics) out << "diagnostic: " << message << "\n";
  return out.str();
}

std::string formatCsv(const BenchReport& report) {
  std::ostringstream out;
  out << "date,backend,device,kernel,m,n,k,generator,density_a,density_b,seed,verified,rel_frobenius,max_abs,"
         "median_ms,min_ms,max_ms,prepare_ms,effective_gflops,useful_gflops,joint_density,ideal_speedup,"
         "speedup_vs_dense,skip_efficiency,vs_baseline,end_to_end_vs_baseline,baseline,failure,predicted_speedup,"
         "auto,source_a,source_b,block_a,block_b,dtype,tool_version,tool_commit,driver,api,tune_overrides,"
         "warmup,warmup_ms,repeat,tolerance,host,runs,median_low_ms,median_high_ms,stable\n";
  const ProblemSpec& p = report.problem;
  // What a generator was asked for means nothing for an operand read from a file: those columns
  // stay empty for it (source_a / source_b name the file; the JSON has its real density).
  const bool fileA = !p.fileA.empty(), fileB = !p.fileB.empty();
  const std::string generator = generatorUsed(p).value_or("");
  auto text = [](double v) {
    std::ostringstream number;
    number << v;  // as the columns were always written: the stream's default form
    return number.str();
  };
  const std::string densityA = fileA ? "" : text(p.densityA), densityB = fileB ? "" : text(p.densityB);
  const std::string seed = generatorUsed(p) ? std::to_string(p.seed) : "";
  const std::string blockA = fileA ? "" : std::to_string(p.optionsOf(Operand::A).block);
  const std::string blockB = fileB ? "" : std::to_string(p.optionsOf(Operand::B).block);
  for (const BenchRow& row : report.rows) {
    auto opt = [](const std::optional<double>& v) { return v ? fixed(*v, 4) : std::string(); };
    out << report.date << ',' << row.backend << ',' << csvField(row.device) << ',' << row.kernel << ',' << p.m << ','
        << p.n << ',' << p.k << ',' << generator << ',' << densityA << ',' << densityB << ',' << seed << ','
        << (row.verified ? "true" : "false") << ',' << row.error.relativeFrobenius << ',' << row.error.maxAbs << ','
        << fixed(row.kernelMs.median, 5) << ',' << fixed(row.kernelMs.min, 5) << ',' << fixed(row.kernelMs.max, 5)
        << ',' << fixed(row.prepareMs.median, 5) << ',' << fixed(row.effectiveGflops, 2) << ','
        << fixed(row.usefulGflops, 2) << ',' << fixed(row.jointDensity, 5) << ',' << fixed(row.idealSpeedup, 4)
        << ',' << opt(row.speedupVsDense) << ',' << opt(row.skipEfficiency) << ',' << opt(row.vsBaseline) << ','
        << opt(row.endToEndVsBaseline) << ',' << report.baselineKernel << ',' << csvField(row.failure) << ','
        << fixed(row.predictedSpeedup, 4) << ',' << csvField(row.autoReason) << ',' << csvField(p.sourceOf(Operand::A))
        << ',' << csvField(p.sourceOf(Operand::B)) << ',' << blockA << ',' << blockB << ',' << dtypeName(p.dtype) << ',' << csvField(report.toolVersion) << ','
        << csvField(report.toolCommit) << ',' << csvField(row.driver) << ',' << csvField(row.api) << ',' << csvField(row.tuneOverrides) << ','
        << report.options.warmup << ',' << report.options.warmupMilliseconds << ',' << report.options.repeat << ','
        << row.error.tolerance << ',' << csvField(report.host) << ',' << row.kernelMs.runs << ','
        << fixed(row.kernelMs.medianLow, 5) << ',' << fixed(row.kernelMs.medianHigh, 5) << ','
        << (row.stable ? (*row.stable ? "true" : "false") : "") << '\n';
  }
  return out.str();
}

std::string formatJson(const BenchReport& report) {
  nlohmann::json rows = nlohmann::json::array();
  for (const BenchRow& row : report.rows) {
    rows.push_back({
        {"backend", row.backend},
        {"device", row.device},
        {"driver", row.driver},
        {"api", row.api},
        {"tune_overrides", row.tuneOverrides},
        {"kernel", row.kernel},
        {"verified", row.verified},
        {"failure", row.failure},
        {"error", {{"relative_frobenius", finiteJson(row.error.relativeFrobenius)},
                   {"max_abs", finiteJson(row.error.maxAbs)},
                   {"tolerance", row.error.tolerance}}},
        {"kernel_ms", {{"median", row.kernelMs.median}, {"min", row.kernelMs.min}, {"max", row.kernelMs.max},
                       {"runs", row.kernelMs.runs}, {"median_low", row.kernelMs.medianLow}, {"median_high", row.kernelMs.medianHigh}}},
        {"stable", row.stable ? nlohmann::json(*row.stable) : nlohmann::json(nullptr)},
        {"prepare_ms", {{"median", row.prepareMs.median}, {"min", row.prepareMs.min}, {"max", row.prepareMs.max}}},
        {"prepare_keeping_a_ms", row.prepareKeepingAMs ? nlohmann::json{{"median", row.prepareKeepingAMs->median},
                                                                        {"min", row.prepareKeepingAMs->min},
                                                                        {"max", row.prepareKeepingAMs->max}}
                                                        : nlohmann::json(nullptr)},
        {"rounding_ms", row.roundingMs},
        {"effective_gflops", row.effectiveGflops},
        {"useful_gflops", row.usefulGflops},
        {"joint_density", row.jointDensity},
        {"ideal_speedup", finiteJson(row.idealSpeedup)},
        {"speedup_vs_dense", optionalJson(row.speedupVsDense)},
        {"skip_efficiency", optionalJson(row.skipEfficiency)},
        {"vs_baseline", optionalJson(row.vsBaseline)},
        {"end_to_end_vs_baseline", optionalJson(row.endToEndVsBaseline)},
        {"predicted_speedup", finiteJson(row.predictedSpeedup)},
        {"features", {{"dense_tiles", row.features.denseTiles}, {"loads", row.features.loads},
                      {"work", row.features.work}, {"partial", row.features.partial}}},
        {"auto", row.autoReason.empty() ? nlohmann::json(nullptr) : nlohmann::json(row.autoReason)},
    });
  }
  const ProblemSpec& p = report.problem;
  nlohmann::json document = {
      {"schema", kBenchSchema},
      {"tool", {{"version", report.toolVersion}, {"commit", report.toolCommit}}},
      {"dtype", dtypeName(p.dtype)},
      {"date", report.date},
      {"host", report.host},
      {"devices", report.devices},
      {"problem", problemJson(p, report)},
      {"models", report.models},
      {"pattern_density", {{"a", report.patternDensityA}, {"b", report.patternDensityB}}},
      {"timing", {{"warmup", report.options.warmup}, {"warmup_ms", report.options.warmupMilliseconds}, {"repeat", report.options.repeat},
                  {"until_stable", report.options.stableWithin > 0.0 ? nlohmann::json(report.options.stableWithin) : nlohmann::json(nullptr)}}},
      {"reference", report.referenceKind},
      {"baseline", report.baselineKernel},
      {"rows", rows},
      {"diagnostics", report.diagnostics},
  };
  return jsonDocumentText(document);
}

std::string jsonDocumentText(const nlohmann::json& document) {
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace tileskip
