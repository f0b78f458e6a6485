// The sweep's plot, drawn by matplotlib: scripts/plot_sweep.py reads the sweep's CSV and prints
// the PNG, which is written here atomically (core/io/atomic_file.hpp), so a full disk or a device
// behaves as every other output does. Python and matplotlib are run-time needs of the plot only:
// without them the CSV stands and the caller says that no plot was drawn, and why.
#pragma once

#include <filesystem>
#include <string>

#include "core/process/script_run.hpp"  // kPythonVariable

namespace tileskip {

inline constexpr const char* kPlotScriptVariable = "TILESKIP_PLOT_SCRIPT";  // the script to run instead

// Where plot_sweep.py is: $TILESKIP_PLOT_SCRIPT where set, else beside the binary (an install's
// ../share/tileskip/, or the binary's own folder), else the source tree's scripts/ this build
// was configured from. Empty where none exists.
std::filesystem::path sweepPlotScript();

struct PlotOutcome {
  bool drawn = false;
  std::string whyNot;  // where not drawn: what is missing and what to install
};

// Runs the script on `csvPath` and writes the PNG to `pngPath`. Not drawn (whyNot says why)
// where Python, matplotlib or the script is missing; throws InputError where the PNG cannot be
// written (nothing partial is left) or the script refuses the CSV, UnavailableError where the
// script fails otherwise.
PlotOutcome drawSweepPlot(const std::filesystem::path& csvPath, const std::filesystem::path& pngPath);

}  // namespace tileskip
