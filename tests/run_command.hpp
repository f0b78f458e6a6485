// Running the tileskip command from a test: its exit code and everything it printed.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

namespace tileskip::testing {

struct Outcome {
  int exitCode;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line; a signal shows as 128 + its number, like the shell's $?.
inline Outcome runCommand(const std::string& commandLine) {
  FILE* pipe = popen((commandLine + " 2>&1").c_str(), "r");
  std::string output;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), output};
}

// `tileskip ARGUMENTS`, the binary this test suite was built with.
inline Outcome runTileskip(const std::string& arguments) { return runCommand(std::string(TILESKIP_BINARY) + " " + arguments); }

// A folder of this test process's own, under the system's temporary folder.
inline std::filesystem::path scratchFolder(const std::string& prefix) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

// `parent / name`, emptied: what a test that counts the files it leaves behind starts from.
inline std::filesystem::path emptyFolder(const std::filesystem::path& parent, const std::string& name) {
  std::filesystem::path dir = parent / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace tileskip::testing
