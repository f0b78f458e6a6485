# TILESKIP_CI_CHECKS (on in the `test` preset): CTest entries that configure, build and run the
# sanitizer suite and the fuzz smoke in a build tree of their own (the `sanitize` preset, clang,
# which builds the fuzz targets beside the suite), so the README's single test command, and so
# CI, runs them too.
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
  message(FATAL_ERROR "TILESKIP_CI_CHECKS needs clang++ for the sanitizer build and the fuzz smoke: run scripts/install-deps.sh")
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

# The build takes both CI cores (PROCESSORS 2), so it overlaps nothing; the smokes run beside
# the test tree's own tests, one core each.
tileskip_nested_test(sanitize_build sanitize "${_cmake} --preset sanitize && ${_cmake} --build --preset sanitize"
                     PROCESSORS 2 TIMEOUT 1500 FIXTURES_SETUP sanitize_tree)
tileskip_nested_test(sanitize_suite sanitize "${_ctest} --preset sanitize"
                     PROCESSORS 2 TIMEOUT 1500 FIXTURES_REQUIRED sanitize_tree)
foreach(_target mtx npy cli)
  tileskip_nested_test(fuzz_smoke_${_target} fuzz "${_ctest} --preset fuzz -R '^fuzz_smoke_${_target}$'"
                       PROCESSORS 1 TIMEOUT 600 FIXTURES_REQUIRED sanitize_tree)
endforeach()
