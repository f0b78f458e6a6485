// GPU drivers register their own atexit handlers when they load and tear themselves down there.
// A backend that is still alive afterwards (held in a static, destroyed after main returns) must
// not call into the driver any more: the process is ending and the OS reclaims everything.
#pragma once

namespace tileskip {

// Call right after a driver has been loaded (device or context created). Registers an atexit
// handler that runs before the destructors of every object constructed earlier, so those
// destructors can ask processExiting().
void watchProcessExit();

// True once exit() has begun running the handlers registered by watchProcessExit().
bool processExiting();

}  // namespace tileskip
