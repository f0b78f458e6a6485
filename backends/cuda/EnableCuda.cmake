# The CUDA backend, included from backends/CMakeLists.txt. TILESKIP_CUDA decides:
#   ON    build it, fail when nvcc is missing
#   AUTO  build it when CMake finds nvcc (check_language(CUDA)), skip it quietly otherwise
#   OFF   never build it
# The kernels, cuBLAS and cuSPARSE live in a shared module, libtileskip_cuda.so, beside the
# executables; the executables link only a host-only stub that dlopen()s it, so a binary with
# CUDA compiled in still starts on a machine with no NVIDIA driver and no CUDA libraries.
set(_tileskip_cuda_modes ON OFF AUTO)
if(NOT TILESKIP_CUDA IN_LIST _tileskip_cuda_modes)
  message(FATAL_ERROR "TILESKIP_CUDA must be ON, OFF or AUTO, not '${TILESKIP_CUDA}'")
endif()

set(_tileskip_build_cuda OFF)
if(TILESKIP_CUDA STREQUAL "ON")
  set(_tileskip_build_cuda ON)
elseif(TILESKIP_CUDA STREQUAL "AUTO")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(_tileskip_build_cuda ON)
  else()
    message(STATUS "CUDA backend: nvcc not found, not built (set CUDACXX or put nvcc on PATH)")
  endif()
endif()

# `pip install .` (scikit-build-core sets SKBUILD) builds for the user's own machine: the CUDA
# module for the GPUs nvidia-smi reports here, and none where it reports none (it could not run,
# and five architectures of nvcc cost minutes). CMAKE_CUDA_ARCHITECTURES, given, names the GPUs of
# another machine (--config-settings=cmake.define.CMAKE_CUDA_ARCHITECTURES=90a-real).
if(_tileskip_build_cuda AND DEFINED SKBUILD AND "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "")
  find_program(_tileskip_nvidia_smi nvidia-smi)
  set(_capabilities "")
  if(_tileskip_nvidia_smi)
    execute_process(COMMAND ${_tileskip_nvidia_smi} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE _capabilities RESULT_VARIABLE _smi_result ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT _smi_result EQUAL 0)
      set(_capabilities "")
    endif()
  endif()
  if(_capabilities STREQUAL "")
    message(STATUS "CUDA backend: no GPU here (nvidia-smi reports none), so the Python package is built "
                   "without it; define CMAKE_CUDA_ARCHITECTURES (e.g. 90a-real) to build it for another machine")
    set(_tileskip_build_cuda OFF)
  else()
    string(REPLACE "\n" ";" _capabilities "${_capabilities}")
    set(_architectures "")
    foreach(_capability IN LISTS _capabilities)
      string(STRIP "${_capability}" _capability)
      string(REPLACE "." "" _architecture "${_capability}")
      if(_architecture STREQUAL "90")
        set(_architecture "90a")  # K14's warpgroup MMAs exist only in the arch-specific target
      endif()
      list(APPEND _architectures "${_architecture}-real")
    endforeach()
    list(REMOVE_DUPLICATES _architectures)
    set(CMAKE_CUDA_ARCHITECTURES "${_architectures}" CACHE STRING "CUDA architectures for the tileskip kernels" FORCE)
  endif()
endif()

if(_tileskip_build_cuda)
  # The presets choose the architectures; a plain configure gets the release set: real code
  # for Ampere, Ada and Hopper (sm_90a: K14's warpgroup MMAs and copy engine exist only in the
  # arch-specific target), and PTX that newer GPUs compile at load time.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
    set(CMAKE_CUDA_ARCHITECTURES "80-real;86-real;89-real;90a-real;90-virtual" CACHE STRING
        "CUDA architectures for the tileskip kernels" FORCE)
  endif()
  enable_language(CUDA)
  # CMake 3.25 knows no C++20 flag for nvcc (3.26 does) and refuses targets that need it; nvcc
  # 12 and later take -std=c++20.
  if(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0 AND NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_COMPILE_FEATURES cuda_std_20)
    list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
  endif()
  find_package(CUDAToolkit REQUIRED)
  add_subdirectory(${CMAKE_CURRENT_LIST_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cuda)
  list(APPEND TILESKIP_BACKENDS cuda)
  message(STATUS "CUDA backend: nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}")
endif()
