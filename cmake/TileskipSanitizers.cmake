# TILESKIP_SANITIZE: AddressSanitizer (LeakSanitizer included) and UndefinedBehaviorSanitizer
# over everything we compile, any compiler. TILESKIP_FUZZ, in such a build with clang: the
# libFuzzer targets of fuzz/ too, so that one sanitizer build serves both the suite and the fuzz
# smoke; libFuzzer's coverage instrumentation goes only on the code their inputs reach
# (tileskip_fuzz_coverage), because it costs every comparison a call that the suite need not pay.
set(_tileskip_sanitizers address,undefined,float-cast-overflow)

if(TILESKIP_FUZZ)
  if(NOT TILESKIP_SANITIZE)
    message(FATAL_ERROR "TILESKIP_FUZZ=ON builds the fuzz targets in a sanitizer build: configure with "
                        "`cmake --preset sanitize`, or add -DTILESKIP_SANITIZE=ON.")
  endif()
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "TILESKIP_FUZZ=ON needs clang for libFuzzer, but the C++ compiler is "
                        "${CMAKE_CXX_COMPILER_ID} (${CMAKE_CXX_COMPILER}). Configure a fresh build directory with "
                        "`cmake --preset sanitize`, or pass -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++.")
  endif()
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=fuzzer)
  set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
  check_cxx_source_compiles([[
    #include <cstddef>
    #include <cstdint>
    extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }
  ]] TILESKIP_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  unset(CMAKE_REQUIRED_FLAGS)
  if(NOT TILESKIP_HAVE_LIBFUZZER)
    message(FATAL_ERROR "TILESKIP_FUZZ=ON: clang cannot link -fsanitize=fuzzer; install libFuzzer's runtime "
                        "(Debian: libclang-rt-14-dev, see scripts/install-deps.sh)")
  endif()
endif()
if(TILESKIP_SANITIZE)
  add_compile_options(-fsanitize=${_tileskip_sanitizers} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${_tileskip_sanitizers})
endif()

# Adds a compile option to whole TARGETS and to some SOURCES of a target (called in the folder
# that defines it), for the two functions below.
function(_tileskip_compile_option option)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "TARGETS;SOURCES")
  foreach(_target IN LISTS arg_TARGETS)
    target_compile_options(${_target} PRIVATE ${option})
  endforeach()
  if(arg_SOURCES)
    set_property(SOURCE ${arg_SOURCES} APPEND PROPERTY COMPILE_OPTIONS ${option})
  endif()
endfunction()

# libFuzzer's coverage instrumentation in a TILESKIP_FUZZ build, on TARGETS and SOURCES; nothing
# in other builds.
function(tileskip_fuzz_coverage)
  if(TILESKIP_FUZZ)
    _tileskip_compile_option(-fsanitize=fuzzer-no-link ${ARGN})
  endif()
endfunction()

# The sanitizer build compiles at -O1 (the preset), which keeps every check and lets the suite's
# hard loops (patterns, the emulator, brute-force checks) run. Code that is slow to compile and
# runs little goes at -O0, half the compile time under the sanitizers: the command line (CLI11
# generates its parser in every file that includes it) and the tests that only start processes.
# Everything at -O0 built in 40 % less time and ran the suite in twice the time.
function(tileskip_sanitizer_unoptimized)
  if(TILESKIP_SANITIZE)
    _tileskip_compile_option(-O0 ${ARGN})
  endif()
endfunction()

# Sanitizer options compiled into every program that links tileskip_core (core links this),
# the fuzz targets included: a finding ends them with the same code.
if(TILESKIP_SANITIZE)
  add_library(tileskip_sanitizer_defaults INTERFACE)
  target_sources(tileskip_sanitizer_defaults INTERFACE ${PROJECT_SOURCE_DIR}/tests/sanitizer/sanitizer_defaults.cpp)
endif()
