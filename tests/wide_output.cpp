// The suite reads whole messages out of the tool's output, in-process and from the processes it
// starts; a terminal's 100 columns would wrap them at a space anywhere. So the test process, and
// every tileskip it starts, writes as to a very wide terminal (core/io/report.hpp: COLUMNS); the
// tests of the 100-column default set COLUMNS themselves.
#include <cstdlib>

namespace {
[[maybe_unused]] const bool kWideTerminal = ::setenv("COLUMNS", "100000", 1) == 0;
}  // namespace
