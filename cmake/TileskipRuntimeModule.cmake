# A run-time module (see core/process/runtime_module.hpp): a shared library in bin/, beside the
# executables, that they dlopen() when its part of the tool is used. It exports one C symbol,
# `entry_symbol`; everything else stays local, including the static libraries it carries and
# the template code it instantiates from libstdc++ headers, so nothing in it can interpose on
# the executable or be interposed.
function(tileskip_runtime_module target entry_symbol)
  set(_map ${CMAKE_CURRENT_BINARY_DIR}/${target}_exports.map)
  file(CONFIGURE OUTPUT ${_map} CONTENT "{\n  global: ${entry_symbol};\n  local: *;\n};\n")
  set_target_properties(${target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin
    LINK_DEPENDS ${_map})
  # Unresolved symbols fail the link here, not the dlopen() on a user's machine; only the
  # libraries the module really uses are recorded. Not under clang's sanitizers, whose runtime
  # lives in the executable and is unresolved in every shared library (GCC links libasan.so).
  if(NOT (TILESKIP_SANITIZE AND CMAKE_CXX_COMPILER_ID MATCHES "Clang"))
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endif()
  target_link_options(${target} PRIVATE
    -Wl,--exclude-libs,ALL -Wl,--as-needed -Wl,--version-script=${_map})
endfunction()
