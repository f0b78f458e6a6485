#include "core/process/script_run.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "core/model/error.hpp"
#include "core/process/runtime_module.hpp"

extern char** environ;

namespace tileskip {

namespace {

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

}  // namespace

ScriptRun runCaptured(const std::vector<std::string>& argv) {
  int out[2], err[2];
  if (::pipe(out) != 0) throw UnavailableError(std::string("cannot run ") + argv.front() + ": " + std::strerror(errno));
  if (::pipe(err) != 0) {
    ::close(out[0]), ::close(out[1]);
    throw UnavailableError(std::string("cannot run ") + argv.front() + ": " + std::strerror(errno));
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
  // The output (a PNG, an animation) is far larger than stderr's few lines: read stdout to its
  // end first, then stderr (a script that fills stderr's pipe first is not ours).
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

std::filesystem::path findScript(std::string_view fileName, const char* variable) {
  if (const char* given = variable != nullptr ? std::getenv(variable) : nullptr; given != nullptr && *given != '\0') {
    std::error_code error;
    return std::filesystem::is_regular_file(given, error) ? std::filesystem::path(given) : std::filesystem::path();
  }
  const std::filesystem::path folder = binaryFolder();
  for (const std::filesystem::path& candidate :
       {folder / ".." / "share" / "tileskip" / fileName, folder / fileName,
        std::filesystem::path(TILESKIP_SOURCE_SCRIPTS) / fileName}) {
    std::error_code error;
    if (std::filesystem::is_regular_file(candidate, error)) return candidate.lexically_normal();
  }
  return {};
}

std::filesystem::path sourceScriptsFolder() { return TILESKIP_SOURCE_SCRIPTS; }

std::vector<std::string> pythonInterpreters() {
  if (const char* python = std::getenv(kPythonVariable); python != nullptr && *python != '\0') return {python};
  return {"/usr/bin/python3", "python3"};
}

bool programOnPath(const std::string& program) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::istringstream folders(path != nullptr ? path : "");
  for (std::string folder; std::getline(folders, folder, ':');) {
    if (folder.empty()) continue;
    if (::access((std::filesystem::path(folder) / program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::string lastLine(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  std::size_t start = text.rfind('\n');
  return start == std::string::npos ? text : text.substr(start + 1);
}

}  // namespace tileskip
