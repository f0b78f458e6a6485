#include "core/sweep_plot.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/runtime_module.hpp"

extern char** environ;

namespace tileskip {

namespace {

// The exit codes of scripts/plot_sweep.py (2, usage, is also Python's own for a missing script).
constexpr int kScriptNoMatplotlib = 3;
constexpr int kScriptBadCsv = 4;
// posix_spawnp's child exits with 127 where the interpreter cannot be executed.
constexpr int kCannotExecute = 127;

struct ScriptRun {
  int exitCode = -1;
  std::string output;  // the script's stdout (the PNG)
  std::string errors;  // its stderr
};

std::string readAll(int fd) {
  std::string text;
  std::array<char, 65536> buffer;
  for (;;) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n > 0) {
      text.append(buffer.data(), static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      return text;
    }
  }
}

// Runs `argv` with stdout and stderr captured. posix_spawn, not fork: a forked child of a process
// with OpenBLAS and driver threads can hang (tests/test_cli.cpp, the signal death test).
ScriptRun runCaptured(const std::vector<std::string>& argv) {
  int out[2], err[2];
  if (::pipe(out) != 0) throw UnavailableError(std::string("cannot run the plotting script: ") + std::strerror(errno));
  if (::pipe(err) != 0) {
    ::close(out[0]), ::close(out[1]);
    throw UnavailableError(std::string("cannot run the plotting script: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  for (int fd : {out[0], out[1], err[0], err[1]}) posix_spawn_file_actions_addclose(&actions, fd);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  ::close(err[1]);
  ScriptRun run;
  if (spawned != 0) {
    ::close(out[0]);
    ::close(err[0]);
    run.exitCode = kCannotExecute;
    return run;
  }
  // The PNG is far larger than stderr's few lines: read stdout to its end first, then stderr
  // (a script that fills stderr's pipe first is not ours).
  run.output = readAll(out[0]);
  run.errors = readAll(err[0]);
  ::close(out[0]);
  ::close(err[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

std::string lastLine(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  std::size_t start = text.rfind('\n');
  return start == std::string::npos ? text : text.substr(start + 1);
}

}  // namespace

std::filesystem::path sweepPlotScript() {
  if (const char* given = std::getenv(kPlotScriptVariable); given != nullptr && *given != '\0') {
    std::error_code error;
    return std::filesystem::is_regular_file(given, error) ? std::filesystem::path(given) : std::filesystem::path();
  }
  const std::filesystem::path folder = binaryFolder();
  for (const std::filesystem::path& candidate :
       {folder / ".." / "share" / "tileskip" / "plot_sweep.py", folder / "plot_sweep.py",
        std::filesystem::path(TILESKIP_SOURCE_SCRIPTS) / "plot_sweep.py"}) {
    std::error_code error;
    if (std::filesystem::is_regular_file(candidate, error)) return candidate.lexically_normal();
  }
  return {};
}

PlotOutcome drawSweepPlot(const std::filesystem::path& csvPath, const std::filesystem::path& pngPath) {
  std::filesystem::path script = sweepPlotScript();
  if (script.empty()) {
    return {false, "the plotting script plot_sweep.py was not found beside tileskip, in its share/tileskip/, or in " +
                       std::string(TILESKIP_SOURCE_SCRIPTS) + " (" + kPlotScriptVariable + " names another)"};
  }
  // $TILESKIP_PYTHON, else Debian's python3 (where python3-matplotlib installs), else the PATH's.
  std::vector<std::string> interpreters;
  if (const char* python = std::getenv(kPythonVariable); python != nullptr && *python != '\0') {
    interpreters = {python};
  } else {
    interpreters = {"/usr/bin/python3", "python3"};
  }
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
