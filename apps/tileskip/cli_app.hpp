// The whole `tileskip` command line as an object, so that parsing and validating arguments can
// run in-process (tests, the CLI fuzzer) without opening a backend, running a kernel or
// touching a file; main() is parse() then run().
#pragma once

#include <iosfwd>
#include <optional>
#include <vector>

#include "cli_common.hpp"

namespace tileskip::cli {

class Cli {
 public:
  Cli();

  // Parses argv and checks every parsed value that can be checked without a backend or a file.
  // Returns the exit code to end with, having printed why (0 after --help, 2 on bad usage or a
  // bad value), or nullopt when the subcommand may run.
  std::optional<int> parse(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

  // Runs the parsed subcommand and returns its exit code; errors are printed to `err`.
  int run(std::ostream& err);

 private:
  CLI::App app_;
  std::vector<Command> commands_;
};

}  // namespace tileskip::cli
