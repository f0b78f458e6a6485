#include "core/process/runtime_module.hpp"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cstdlib>

namespace tileskip {

std::string executableFolder() {
  std::string path(4096, '\0');
  ssize_t length = readlink("/proc/self/exe", path.data(), path.size());
  if (length <= 0 || static_cast<std::size_t>(length) >= path.size()) return ".";
  path.resize(static_cast<std::size_t>(length));
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string binaryFolder() {
  // The loader's record of the object holding this function: the main program's has an empty
  // name (dladdr() would give argv[0] for it, which is no path), a shared library's the path
  // it was loaded from.
  Dl_info info{};
  link_map* object = nullptr;
  if (dladdr1(reinterpret_cast<void*>(&binaryFolder), &info, reinterpret_cast<void**>(&object), RTLD_DL_LINKMAP) == 0 ||
      object == nullptr || object->l_name == nullptr || object->l_name[0] == '\0') {
    return executableFolder();
  }
  const std::string path = object->l_name;
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string runtimeModulePath(const RuntimeModuleSpec& spec) {
  const std::string variable(spec.pathVariable);
  if (const char* overridden = std::getenv(variable.c_str()); overridden != nullptr && *overridden != '\0') {
    return overridden;
  }
  return binaryFolder() + "/" + std::string(spec.fileName);
}

void* loadRuntimeModuleEntry(const RuntimeModuleSpec& spec) {
  const std::string path = runtimeModulePath(spec);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    throw UnavailableError("cannot load the " + std::string(spec.description) + " " + path + ": " +
                           (reason ? reason : "unknown error") + ". " + std::string(spec.advice) + "; set " +
                           std::string(spec.pathVariable) + " to load it from elsewhere");
  }
  const std::string symbol(spec.entrySymbol);
  void* entry = dlsym(handle, symbol.c_str());
  if (entry == nullptr) {
    dlclose(handle);
    throw UnavailableError(path + " is not a " + std::string(spec.description) + " (it has no " + symbol + ")");
  }
  return entry;
}

std::string runtimeModuleFromAnotherBuild(const RuntimeModuleSpec& spec) {
  // Not dlclose()d by the caller either: the module may have started threads of its own by now.
  return runtimeModulePath(spec) + " comes from a different tileskip build than this executable; rebuild, or copy the " +
         std::string(spec.fileName) + " built with it";
}

}  // namespace tileskip
