// tileskip inspect: will skipping help these matrices? Per kernel of a backend: pattern
// densities at its granularities, joint density, ideal and load-bound speedup, and the speedup
// the device's calibrated model predicts; then the kernel to use and why. Runs no kernel.
#include <cmath>
#include <iostream>
#include <optional>

#include "cli_common.hpp"
#include "core/io/atomic_file.hpp"
#include "core/model/error.hpp"
#include "core/io/report.hpp"
#include "core/measure/modelled_device.hpp"
#include "core/model/live_columns.hpp"

namespace tileskip::cli {

namespace {

struct InspectFlags {
  BackendFlags backend;
  ProblemFlags problem;
  std::string format = "table";
  CLI::Option* formatOption = nullptr;  // whether --format was given (else --out's extension decides the file's)
  std::string out;
  std::string model;  // a calibrated GPU to predict for instead of the device here ("" for that one)
};

// The backend inspected: the one here, or with --model that GPU's (--backend's name, else cuda).
std::unique_ptr<Backend> inspectedBackend(const InspectFlags& flags) {
  if (flags.model.empty()) return std::move(flags.backend.open().front());
  return modelledBackend(flags.model, flags.backend.backend.empty() ? "cuda" : flags.backend.backend);
}

// The file's format: its extension's (.json, .txt: the table), which a --format given must agree
// with; a name without an extension takes --format.
// An extension inspect does not write is refused before anything runs, not written as a table.
ReportFormat inspectFileFormat(const InspectFlags& flags) {
  const ReportFormat format = outputFileFormat(flags.format, flags.formatOption != nullptr && flags.formatOption->count() > 0, flags.out);
  if (format == ReportFormat::Csv) throw InputError("inspect writes table or json, not csv: " + flags.out);
  return format;
}

void validateInspect(const InspectFlags& flags) {
  const ReportFormat format = parseReportFormat(flags.format);
  if (format == ReportFormat::Csv) throw InputError("inspect writes table or json, not csv");
  if (!flags.out.empty()) inspectFileFormat(flags);
  flags.backend.validate(false);
  if (!flags.model.empty()) {
    if (flags.backend.device >= 0) throw InputError("--model predicts for a GPU that is not here: it takes no --device");
    modelledBackend(flags.model, flags.backend.backend.empty() ? "cuda" : flags.backend.backend);  // names it knows
  }
  flags.problem.toSpec(512);
}

std::string granularity(int g) { return g > 0 ? std::to_string(g) : "-"; }

std::string formatInspectTable(const Inspection& r, const Backend& backend, DType dtype) {
  std::ostringstream out;
  auto heading = [&](const std::string& label, const std::string& text) { out << headingLine(label, text); };
  auto operand = [](const OperandSummary& s) {
    return s.source + ": " + std::to_string(s.rows) + "x" + std::to_string(s.cols) + ", " + fixed(100.0 * s.density, 1) +
           " % non-zero";
  };
  out << "tileskip inspect\n";
  heading("A", operand(r.a));
  heading("B", operand(r.b));
  heading("device", std::string(backend.name()) + ": " + backend.device().describe());
  heading("model", r.modelName + " (predicted speedup over " + std::string(denseReferenceKernel(dtype)) + ")");
  out << "\n";
  std::vector<std::vector<std::string>> cells = {
      {"kernel", "A rows", "B cols", "A pattern", "B pattern", "joint", "loaded", "waste x", "ideal x", "load bound x",
       "predicted x"}};
  for (const KernelInspection& k : r.kernels) {
    const bool skips = k.kernel->skips();
    cells.push_back({std::string(k.kernel->id), granularity(k.aGranularity), granularity(k.bGranularity),
                     skips ? fixed(k.aPatternDensity, 3) : "-", skips ? fixed(k.bPatternDensity, 3) : "-",
                     fixed(k.jointDensity, 3), skips ? fixed(k.loadedFraction, 3) : "-",
                     skips && k.jointDensity > 0.0 ? fixed(k.loadedFraction / k.jointDensity, 2) : "-",
                     fixed(k.idealSpeedup, 2), fixed(k.loadBoundSpeedup, 2),
                     std::isfinite(k.predictedSpeedup) ? fixed(k.predictedSpeedup, 2) : "-"});
  }
  out << alignColumns(cells);
  for (const KernelInspection& k : r.kernels) {
    if (!k.refusal.empty()) out << wrapText("refused here: " + std::string(k.kernel->id) + ": " + k.refusal, outputColumns(), 2) << "\n";
  }
  if (!r.compaction.empty()) {
    out << "\nK-compaction: the fraction of K live (non-zero in some row) in A's row tiles, per K-group width\n";
    std::vector<std::vector<std::string>> live = {{"rows"}};
    for (int g : kCompactionGranularities) live.front().push_back(std::to_string(g) + (g == 1 ? " column" : " columns"));
    for (int rows : kCompactionRows) {
      live.push_back({std::to_string(rows)});
      for (const CompactionBound& c : r.compaction) {
        if (c.rows == rows) live.back().push_back(fixed(c.meanLiveFraction, 3));
      }
    }
    out << alignColumns(live, 1) << wrapText("compaction: " + compactionNote(r), outputColumns(), 2) << "\n";
  }
  if (r.packed) out << "\n" << wrapText(packedWeightNote(*r.packed), outputColumns(), 2) << "\n";
  out << "\n" << wrapText("recommendation: " + std::string(r.recommendation.kernel->id) + ": " + r.recommendation.reason, outputColumns(), 2)
      << "\n";
  return out.str();
}

int runInspect(const InspectFlags& flags) {
  const ReportFormat format = parseReportFormat(flags.format);
  const ReportFormat fileFormat = flags.out.empty() ? format : inspectFileFormat(flags);
  std::optional<AtomicFile> file;
  if (!flags.out.empty()) file.emplace(flags.out);
  std::unique_ptr<Backend> backend = inspectedBackend(flags);
  auto [spec, data] = flags.problem.load(defaultSizeFor(*backend));
  Inspection result =
      inspectOnBackend(*backend, data.a, data.b, spec.sourceOf(Operand::A), spec.sourceOf(Operand::B), spec.dtype);
  result.compaction = compactionBounds(data.a);
  if (data.packedA) result.packed = packedWeightBounds(*data.packedA, data.b.cols(), spec.dtype, *backend);
  std::string text =
      format == ReportFormat::Json ? inspectionJson(result, *backend) : formatInspectTable(result, *backend, spec.dtype);
  if (file) {
    file->stream() << (fileFormat == ReportFormat::Json ? inspectionJson(result, *backend)
                                                        : formatInspectTable(result, *backend, spec.dtype));
    file->commit();
    note("wrote " + flags.out);
    text = formatInspectTable(result, *backend, spec.dtype);  // the file has the report, the screen the table
  }
  std::cout << text << std::flush;
  return 0;
}

}  // namespace

Command addInspectCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "inspect", "will skipping help these matrices? patterns, joint density, load bound and predicted speedup per "
                 "kernel, and the kernel to use (runs no kernel)");
  auto flags = std::make_shared<InspectFlags>();
  flags->backend.addTo(app, "");
  flags->problem.addTo(app, true);
  flags->formatOption = app->add_option("--format", flags->format, "table or json")->capture_default_str();
  app->add_option("--out", flags->out, "also write the report to this file: in --format where given, else by its extension (.json, .txt)");
  app->add_option("--model", flags->model,
                  "predict for this calibrated GPU instead of the device here, with --backend's kernels (default cuda) as they "
                  "run there: " + modelledDeviceList());
  return {app, [flags] { return runInspect(*flags); }, [flags] { validateInspect(*flags); }};
}

}  // namespace tileskip::cli
