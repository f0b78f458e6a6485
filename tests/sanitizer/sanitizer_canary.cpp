// Proof that the sanitizer suite can fail: each mode commits one bug that the sanitizers of a
// TILESKIP_SANITIZE build must report (tests/CMakeLists.txt matches the report). If a flag or
// an option silently stops working, these tests fail instead of the suite passing blind.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace {
void* volatile sink;  // volatile, so the optimizer keeps every allocation and access below
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  volatile int index = 16;
  if (std::strcmp(mode, "heap-overflow") == 0) {
    int* values = new int[16];
    sink = values;
    // Through memset, so that ASan (not UBSan's object-size check) is the one to report it.
    std::memset(values, 0, (index + 1) * sizeof(int));
    delete[] values;
  } else if (std::strcmp(mode, "leak") == 0) {
    sink = std::malloc(4096);
    sink = nullptr;
  } else if (std::strcmp(mode, "signed-overflow") == 0) {
    volatile int big = std::numeric_limits<int>::max();
    int result = big + index;
    std::printf("%d\n", result);
  } else if (std::strcmp(mode, "float-cast") == 0) {
    volatile float huge = 1e20f;
    int result = static_cast<int>(huge);
    std::printf("%d\n", result);
  } else {
    std::fprintf(stderr, "usage: sanitizer_canary heap-overflow|leak|signed-overflow|float-cast\n");
    return 2;
  }
  return 0;
}
