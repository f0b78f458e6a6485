#pragma once

// Whether this translation unit is built under AddressSanitizer or ThreadSanitizer. GCC defines
// __SANITIZE_ADDRESS__ and __SANITIZE_THREAD__; clang (the sanitizer build, which also builds the
// fuzz targets) answers only through __has_feature. Code that must behave differently under a
// sanitizer tests these, never the compiler's own macros.
#if defined(__SANITIZE_ADDRESS__)
#define TILESKIP_ADDRESS_SANITIZER 1
#endif
#if defined(__SANITIZE_THREAD__)
#define TILESKIP_THREAD_SANITIZER 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(TILESKIP_ADDRESS_SANITIZER)
#define TILESKIP_ADDRESS_SANITIZER 1
#endif
#if __has_feature(thread_sanitizer) && !defined(TILESKIP_THREAD_SANITIZER)
#define TILESKIP_THREAD_SANITIZER 1
#endif
#endif

// A call through a function pointer whose type the callee cannot prove, by design: a run-time
// module's entry point, found by name with dlsym and checked by its stamp after the call (see
// core/process/runtime_module.hpp). Clang's UndefinedBehaviorSanitizer checks such calls
// (-fsanitize=function) and would report the stamp test's module from another build before the
// stamp could refuse it; GCC has no such check.
#if defined(__clang__)
#define TILESKIP_UNCHECKED_FUNCTION_POINTER_CALL __attribute__((no_sanitize("function")))
#else
#define TILESKIP_UNCHECKED_FUNCTION_POINTER_CALL
#endif
