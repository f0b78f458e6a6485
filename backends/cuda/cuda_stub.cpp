// The cuda backend as the executables see it: host-only code that finds libtileskip_cuda.so
// beside the running executable (or at $TILESKIP_CUDA_MODULE), loads it and asks it to open
// the backend. Nothing here needs a CUDA header or library, so a machine with no NVIDIA
// driver and no CUDA libraries runs everything else and reports why CUDA is unavailable.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "backends/backend_registry.hpp"
#include "backends/cuda/cuda_module.hpp"
#include "core/error.hpp"

namespace tileskip {

namespace {

std::string executableFolder() {
  std::string path(4096, '\0');
  ssize_t length = readlink("/proc/self/exe", path.data(), path.size());
  if (length <= 0 || static_cast<std::size_t>(length) >= path.size()) return ".";
  path.resize(static_cast<std::size_t>(length));
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string modulePath() {
  if (const char* overridden = std::getenv("TILESKIP_CUDA_MODULE"); overridden != nullptr && *overridden != '\0') {
    return overridden;
  }
  return executableFolder() + "/" + TILESKIP_CUDA_MODULE_FILE;
}

// The module stays loaded for the life of the process: backends it created may outlive any
// one caller, and unloading CUDA runtimes at exit is a known source of crashes.
const cuda::ModuleInterface& loadModule() {
  const std::string path = modulePath();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    throw UnavailableError("cannot load the CUDA backend module " + path + ": " + (reason ? reason : "unknown error") +
                           ". It needs the CUDA 13 libraries cuBLAS and cuSPARSE (install the CUDA toolkit, or put "
                           "their folder in LD_LIBRARY_PATH); set TILESKIP_CUDA_MODULE to load it from elsewhere");
  }
  auto entry = reinterpret_cast<cuda::ModuleEntryPoint>(dlsym(handle, cuda::kModuleSymbol));
  if (entry == nullptr) {
    dlclose(handle);
    throw UnavailableError(path + " is not a tileskip CUDA module (it has no " + cuda::kModuleSymbol + ")");
  }
  const cuda::ModuleInterface* module = entry();
  if (module == nullptr || !(module->stamp == cuda::LayoutStamp{})) {
    // Not dlclose()d: the module may have started threads of its own by now.
    throw UnavailableError(path + " comes from a different tileskip build than this executable; rebuild, or copy the " +
                           std::string(TILESKIP_CUDA_MODULE_FILE) + " built with it");
  }
  return *module;
}

}  // namespace

BackendEntry cudaBackendEntry() {
  return {"cuda", 30, [](const BackendOptions& options) { return loadModule().open(options); }};
}

}  // namespace tileskip
