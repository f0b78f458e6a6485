// Run-time modules: the parts of tileskip that need libraries a machine may lack (the CUDA
// backend: the CUDA runtime libraries; the viewer: Vulkan, GLFW, X11, stb) are shared libraries
// beside the executables, dlopen()ed only when used. The executables then start everywhere, and
// asking for a missing part gets an UnavailableError (exit 3) saying what is missing and what to
// install. No GPU or UI header here: the seam is one C symbol returning a table of functions.
//
// C++ objects cross the seam (options, backends, matrices, exceptions), which is sound because
// a module and the executable come from one build with one compiler and libstdc++. A stamp that
// both sides compute checks that before anything is called.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "core/model/error.hpp"
#include "core/process/sanitizers.hpp"

namespace tileskip {

// The folder of the running executable (from /proc/self/exe); "." when it cannot be read.
std::string executableFolder();

// The folder of the binary this code is linked into: executableFolder() in the executables, and
// for a shared library that carries core (the Python extension, loaded by python3 from a
// package folder) that library's folder, where its modules are installed beside it.
std::string binaryFolder();

struct RuntimeModuleSpec {
  std::string_view description;   // in messages: "tileskip CUDA module"
  std::string_view fileName;      // looked for beside the executable: "libtileskip_cuda.so"
  std::string_view pathVariable;  // names another file to load instead: "TILESKIP_CUDA_MODULE"
  std::string_view entrySymbol;   // the one C symbol the module exports
  std::string_view advice;        // what to do when it cannot be loaded (missing libraries)
};

// $pathVariable when set and not empty, else fileName in binaryFolder().
std::string runtimeModulePath(const RuntimeModuleSpec& spec);

// dlopen()s the module and returns the address of its entry symbol. UnavailableError naming
// the path and the loader's reason, followed by spec.advice, when it cannot be loaded; when it
// lacks the symbol, that it is not such a module. A loaded module stays loaded for the life of
// the process: what it created may outlive any one caller, and it may have started threads.
void* loadRuntimeModuleEntry(const RuntimeModuleSpec& spec);

// The message for a module whose stamp differs from the executable's.
std::string runtimeModuleFromAnotherBuild(const RuntimeModuleSpec& spec);

// What a module and the executable must agree on: an ABI version bumped when the interface or
// the meaning of its members changes, the size of every type that crosses, and the compiler.
// Compared member by member in this order, so the version is read before anything whose
// layout it vouches for.
template <int AbiVersion, typename... Crossing>
struct ModuleStamp {
  int abiVersion = AbiVersion;
  std::array<std::size_t, sizeof...(Crossing)> sizes{sizeof(Crossing)...};
  std::string_view compiler = __VERSION__;

  bool operator==(const ModuleStamp&) const = default;
};

// Loads the module, calls its entry symbol as `const Interface* entry()` and checks the
// returned interface's `stamp` member against the one this executable computes.
template <typename Interface>
TILESKIP_UNCHECKED_FUNCTION_POINTER_CALL const Interface& loadRuntimeModule(const RuntimeModuleSpec& spec) {
  using Entry = const Interface* (*)();
  auto entry = reinterpret_cast<Entry>(loadRuntimeModuleEntry(spec));
  const Interface* module = entry();
  if (module == nullptr || !(module->stamp == decltype(module->stamp){})) {
    throw UnavailableError(runtimeModuleFromAnotherBuild(spec));
  }
  return *module;
}

}  // namespace tileskip
