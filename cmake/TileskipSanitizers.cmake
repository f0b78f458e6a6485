# TILESKIP_SANITIZE: AddressSanitizer (LeakSanitizer included) and UndefinedBehaviorSanitizer
# over everything we compile, any compiler. TILESKIP_FUZZ: the same sanitizers plus libFuzzer's
# coverage instrumentation, clang only; the fuzz targets alone link libFuzzer's driver.
set(_tileskip_sanitizers address,undefined,float-cast-overflow)

if(TILESKIP_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "TILESKIP_FUZZ=ON needs clang for libFuzzer, but the C++ compiler is "
                        "${CMAKE_CXX_COMPILER_ID} (${CMAKE_CXX_COMPILER}). Configure a fresh build directory with "
                        "`cmake --preset fuzz`, or pass -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++.")
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
  add_compile_options(-fsanitize=fuzzer-no-link,${_tileskip_sanitizers} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${_tileskip_sanitizers})
elseif(TILESKIP_SANITIZE)
  add_compile_options(-fsanitize=${_tileskip_sanitizers} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${_tileskip_sanitizers})
endif()

# Sanitizer options compiled into every program that links tileskip_core (core links this).
# libFuzzer sets its own, so the fuzz build goes without.
if(TILESKIP_SANITIZE AND NOT TILESKIP_FUZZ)
  add_library(tileskip_sanitizer_defaults INTERFACE)
  target_sources(tileskip_sanitizer_defaults INTERFACE ${PROJECT_SOURCE_DIR}/tests/sanitizer/sanitizer_defaults.cpp)
endif()
