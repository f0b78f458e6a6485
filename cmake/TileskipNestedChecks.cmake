# TILESKIP_CI_CHECKS (on in the `test` preset): CTest entries that configure, build and run the
# sanitizer suite and the fuzz smoke in their own build trees (the `sanitize` and `fuzz`
# presets), so the README's single test command, and so CI, runs them too.
#
# Recursion guard: the nested trees are configured with TILESKIP_NESTED=1 in the environment
# and their presets turn TILESKIP_CI_CHECKS off; either one keeps them from adding these
# entries again.
if(NOT TILESKIP_CI_CHECKS)
  return()
endif()
if(DEFINED ENV{TILESKIP_NESTED} OR TILESKIP_SANITIZE OR TILESKIP_FUZZ)
  message(STATUS "tileskip: TILESKIP_CI_CHECKS ignored in a nested, sanitizer or fuzz build")
  return()
endif()

find_program(TILESKIP_CLANGXX NAMES clang++ clang++-14)
if(NOT TILESKIP_CLANGXX)
  message(FATAL_ERROR "TILESKIP_CI_CHECKS needs clang++ for the fuzz smoke: run scripts/install-deps.sh")
endif()

# Runs a shell line in the source tree, where the presets live, marked as nested.
function(tileskip_nested_test name label line)
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -E env TILESKIP_NESTED=1 sh -c "${line}"
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(${name} PROPERTIES LABELS "nested;${label}" ${ARGN})
endfunction()

set(_cmake "'${CMAKE_COMMAND}'")
set(_ctest "'${CMAKE_CTEST_COMMAND}'")

# Builds take both CI cores (PROCESSORS 2), so they never overlap each other or the fuzz runs.
tileskip_nested_test(sanitize_build sanitize "${_cmake} --preset sanitize && ${_cmake} --build --preset sanitize"
                     PROCESSORS 2 TIMEOUT 1500 FIXTURES_SETUP sanitize_tree)
tileskip_nested_test(sanitize_suite sanitize "${_ctest} --preset sanitize"
                     PROCESSORS 2 TIMEOUT 1500 FIXTURES_REQUIRED sanitize_tree)

tileskip_nested_test(fuzz_build fuzz "${_cmake} --preset fuzz && ${_cmake} --build --preset fuzz"
                     PROCESSORS 2 TIMEOUT 1200 FIXTURES_SETUP fuzz_tree)
foreach(_target mtx npy cli)
  tileskip_nested_test(fuzz_smoke_${_target} fuzz "${_ctest} --preset fuzz -R '^fuzz_smoke_${_target}$'"
                       PROCESSORS 1 TIMEOUT 600 FIXTURES_REQUIRED fuzz_tree)
endforeach()
