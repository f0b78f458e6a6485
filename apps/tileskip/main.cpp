// tileskip: benchmark, verify and explore tiled zero-block skipping GEMM kernels.
// Exit codes: 0 success, 1 verification failure, 2 bad usage or bad input, 3 backend or device
// unavailable.
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cli_app.hpp"
#include "core/process/sanitizers.hpp"

#if !defined(TILESKIP_ADDRESS_SANITIZER) && !defined(TILESKIP_THREAD_SANITIZER)
namespace {

// A run that failed leaves without the libraries' exit-time teardown: everything of ours is
// already closed (reports are written atomically, scopes have ended), and that teardown is what
// can hang a failing run. Under an address-space ulimit on a 16-core machine, OpenBLAS's thread
// pool, half-started, hung at exit after "needs 6.0 GiB of host memory" was printed (seen on a
// 16-core NVIDIA H200 machine). Sanitizer builds exit normally: their leak check runs at exit.
[[noreturn]] void leaveAfterFailure(int code) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}

}  // namespace
#endif

int main(int argc, char** argv) {
  int code = 0;
  {
    tileskip::cli::Cli cli;
    if (std::optional<int> done = cli.parse(argc, argv, std::cout, std::cerr)) {
      code = *done;
    } else {
      code = cli.run(std::cerr);
    }
  }
#if !defined(TILESKIP_ADDRESS_SANITIZER) && !defined(TILESKIP_THREAD_SANITIZER)
  if (code != 0) leaveAfterFailure(code);
#endif
  return code;
}
