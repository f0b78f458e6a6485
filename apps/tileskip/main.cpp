// tileskip: benchmark, verify and explore tiled zero-block skipping GEMM kernels.
// Exit codes: 0 success, 1 verification failure, 2 bad usage or bad input, 3 backend or device
// unavailable.
#include <iostream>
#include <vector>

#include "cli_common.hpp"
#include "core/error.hpp"

int main(int argc, char** argv) {
  using namespace tileskip;
  CLI::App app{"tileskip: tiled, warp-uniform zero-block skipping GEMM on GPUs (CUDA and Vulkan)"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "help for every subcommand");

  std::vector<cli::Command> commands = {cli::addListCommand(app), cli::addBenchCommand(app),
                                        cli::addVerifyCommand(app), cli::addGenCommand(app),
                                        cli::addRunCommand(app),    cli::addViewCommand(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    std::cerr << "Run with --help for usage." << std::endl;
    return static_cast<int>(ExitCode::BadInput);
  }
  try {
    for (const cli::Command& command : commands) {
      if (command.app->parsed()) return command.run();
    }
  } catch (const Error& e) {
    std::cerr << "tileskip: error: " << e.what() << std::endl;
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    std::cerr << "tileskip: error: out of host memory; choose a smaller problem" << std::endl;
    return static_cast<int>(ExitCode::Unavailable);
  } catch (const std::exception& e) {
    std::cerr << "tileskip: internal error: " << e.what() << std::endl;
    return static_cast<int>(ExitCode::Unavailable);
  }
  return static_cast<int>(ExitCode::BadInput);
}
