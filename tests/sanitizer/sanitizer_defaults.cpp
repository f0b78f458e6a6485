// Compiled into every program of a TILESKIP_SANITIZE build (see cmake/TileskipSanitizers.cmake),
// so that the options hold however a program is started: by CTest, by a test through popen(),
// by hand. A finding exits with 86, a code tileskip never uses, so a test that expects exit
// code 1 (a failed verification) cannot mistake a sanitizer report for it. ASAN_OPTIONS and
// UBSAN_OPTIONS in the environment still override these.
extern "C" {

__attribute__((used)) const char* __asan_default_options() {
  return "detect_leaks=1:exitcode=86:check_initialization_order=1:strict_init_order=1:"
         "strict_string_checks=1:detect_stack_use_after_return=1";
}

__attribute__((used)) const char* __ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1:exitcode=86";
}

// Memory that Mesa's lavapipe allocated for a Vulkan device: the test suite keeps each
// backend open for the whole process (tests/test_backends.cpp), and a backend releases nothing
// once exit() has begun (core/process/process_exit.hpp, on the Vulkan branch), so after lavapipe's own
// teardown LeakSanitizer would report its allocations at exit. Only allocations made inside
// lavapipe are suppressed; a leak of tileskip's own memory is still reported. (Vulkan objects
// tileskip forgets to destroy are the validation layers' to report.)
__attribute__((used)) const char* __lsan_default_suppressions() { return "leak:libvulkan_lvp.so\n"; }

}  // extern "C"

#include <dlfcn.h>

// The suppression above names lavapipe's module, so lavapipe must still be mapped when
// LeakSanitizer looks: with Mesa 22.3.6-1+deb12u2 the loader unloads it before exit, and what
// it allocated while enumerating devices showed as an unknown module that nothing can suppress.
// Kept loaded here (RTLD_NODELETE) from the start; where Mesa is not installed this does nothing.
namespace {
[[maybe_unused]] const bool kLavapipeKeptLoaded = dlopen("libvulkan_lvp.so", RTLD_LAZY | RTLD_NODELETE) != nullptr;
}
