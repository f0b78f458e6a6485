#include "core/measure/sweep_plot.hpp"

#include "core/io/atomic_file.hpp"
#include "core/model/error.hpp"
#include "core/process/script_run.hpp"

namespace tileskip {

namespace {

// The exit codes of scripts/plot_sweep.py (2, usage, is also Python's own for a missing script).
constexpr int kScriptNoMatplotlib = 3;
constexpr int kScriptBadCsv = 4;

}  // namespace

std::filesystem::path sweepPlotScript() { return findScript("plot_sweep.py", kPlotScriptVariable); }

PlotOutcome drawSweepPlot(const std::filesystem::path& csvPath, const std::filesystem::path& pngPath) {
  std::filesystem::path script = sweepPlotScript();
  if (script.empty()) {
    return {false, "the plotting script plot_sweep.py was not found beside tileskip, in its share/tileskip/, or in " +
                       sourceScriptsFolder().string() + " (" + kPlotScriptVariable + " names another)"};
  }
  // $TILESKIP_PYTHON, else Debian's python3 (where python3-matplotlib installs), else the PATH's.
  const std::vector<std::string> interpreters = pythonInterpreters();
  ScriptRun run;
  std::string whyNot;
  for (const std::string& interpreter : interpreters) {
    run = runCaptured({interpreter, script.string(), csvPath.string(), "-"});
    if (run.exitCode == kCannotExecute && run.output.empty()) {
      if (whyNot.empty()) whyNot = interpreter + " could not be run (Debian: apt install python3 python3-matplotlib)";
      continue;
    }
    if (run.exitCode == kScriptNoMatplotlib) {
      whyNot = "matplotlib is missing for " + interpreter + " (Debian: apt install python3-matplotlib)";
      continue;
    }
    whyNot.clear();
    break;
  }
  if (!whyNot.empty()) return {false, whyNot};
  if (run.exitCode == kScriptBadCsv) throw InputError("no plot drawn: " + lastLine(run.errors));
  if (run.exitCode != 0 || run.output.size() < 8 || run.output.compare(1, 3, "PNG") != 0) {
    throw UnavailableError("no plot drawn: " + script.string() + " failed (exit " + std::to_string(run.exitCode) +
                           (run.errors.empty() ? "" : "): " + lastLine(run.errors)) + (run.errors.empty() ? ")" : ""));
  }
  AtomicFile png(pngPath);
  png.stream().write(run.output.data(), static_cast<std::streamsize>(run.output.size()));
  png.commit();
  return {true, ""};
}

}  // namespace tileskip
