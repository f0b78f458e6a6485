// Running the project's helper scripts (scripts/*.py) from the command: where a script is found,
// and a child process with its output captured. The sweep's plot (matplotlib) and the viewer's
// recordings (Pillow, ffmpeg) go through here; each caller turns a missing interpreter, library
// or script into its own "what to install" message.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tileskip {

inline constexpr const char* kPythonVariable = "TILESKIP_PYTHON";  // the interpreter (default python3)

// posix_spawnp's child exits with this where the program cannot be executed.
inline constexpr int kCannotExecute = 127;

struct ScriptRun {
  int exitCode = -1;
  std::string output;  // stdout
  std::string errors;  // stderr
};

// Runs `argv` (argv[0] looked up on the PATH) with stdout and stderr captured. posix_spawn, not
// fork: a forked child of a process with OpenBLAS and driver threads can hang.
ScriptRun runCaptured(const std::vector<std::string>& argv);

// Where the script `fileName` is: $`variable` where that is set (empty when it names no file),
// else beside the binary (an install's ../share/tileskip/, or the binary's own folder), else the
// source tree's scripts/ this build was configured from. Empty where none exists.
std::filesystem::path findScript(std::string_view fileName, const char* variable);
// The source tree's scripts/ folder this build was configured from.
std::filesystem::path sourceScriptsFolder();

// The interpreters to try, in order: $TILESKIP_PYTHON where set, else Debian's python3 (where
// python3-matplotlib and python3-pil install), else the PATH's.
std::vector<std::string> pythonInterpreters();

// Whether `program` can be found on the PATH (or is an executable path).
bool programOnPath(const std::string& program);

// The last non-empty line of a program's output, for an error message.
std::string lastLine(std::string text);

}  // namespace tileskip
