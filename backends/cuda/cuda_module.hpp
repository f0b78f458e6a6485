// The seam between the executables and libtileskip_cuda.so. The stub (cuda_stub.cpp) dlopen()s
// the module and looks up one C symbol, kModuleSymbol, which returns a ModuleInterface. C++
// objects cross the seam (Backend, Matrix, Pattern, exceptions), which is sound because the
// module and the executable come from one build with one compiler and libstdc++; the layout
// stamp catches a module left over from another build.
#pragma once

#include <cstddef>
#include <memory>

#include "core/backend.hpp"
#include "core/pattern.hpp"

namespace tileskip::cuda {

inline constexpr const char* kModuleSymbol = "tileskip_cuda_module";

// Bumped whenever ModuleInterface or the meaning of its members changes.
inline constexpr int kModuleAbiVersion = 1;

// Sizes of the types that cross the seam, compared by the stub before anything is called.
struct LayoutStamp {
  int abiVersion = kModuleAbiVersion;
  std::size_t backendOptions = sizeof(BackendOptions);
  std::size_t deviceInfo = sizeof(DeviceInfo);
  std::size_t kernelInfo = sizeof(KernelInfo);
  std::size_t matrix = sizeof(Matrix);
  std::size_t pattern = sizeof(Pattern);

  bool operator==(const LayoutStamp&) const = default;
};

struct ModuleInterface {
  LayoutStamp stamp;
  // Opens the CUDA backend; throws UnavailableError (no driver, no device, no kernel image for
  // this GPU) or InputError (a device index that does not exist).
  std::unique_ptr<Backend> (*open)(const BackendOptions& options);
};

using ModuleEntryPoint = const ModuleInterface* (*)();

}  // namespace tileskip::cuda
