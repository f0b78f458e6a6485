// tileskip: benchmark, verify and explore tiled zero-block skipping GEMM kernels.
// Exit codes: 0 success, 1 verification failure, 2 bad usage or bad input, 3 backend or device
// unavailable.
#include <iostream>

#include "cli_app.hpp"

int main(int argc, char** argv) {
  tileskip::cli::Cli cli;
  if (std::optional<int> done = cli.parse(argc, argv, std::cout, std::cerr)) return *done;
  return cli.run(std::cerr);
}
