// libFuzzer target: the tileskip command line (parse and validate); see harness.hpp for what counts as a bug.
#include <cstddef>
#include <cstdint>

#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tileskip::fuzz::checkCli({data, size});
  return 0;
}
