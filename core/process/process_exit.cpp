#include "core/process/process_exit.hpp"

#include <atomic>
#include <cstdlib>

namespace tileskip {

namespace {
std::atomic<bool> exiting{false};
}  // namespace

// Registered on every call, not once: a backend opened later may load its driver later, and only
// a handler registered after that driver's own runs before the destructors that would call it.
void watchProcessExit() { std::atexit([] { exiting.store(true); }); }

bool processExiting() { return exiting.load(); }

}  // namespace tileskip
