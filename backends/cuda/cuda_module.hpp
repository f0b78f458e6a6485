// The seam between the executables and libtileskip_cuda.so. The stub (cuda_stub.cpp) loads the
// module through core/process/runtime_module.hpp, which looks up one C symbol, kModuleSymbol, returning
// a ModuleInterface. C++ objects cross the seam (Backend, Matrix, Pattern, exceptions); the
// layout stamp catches a module left over from another build.
#pragma once

#include <memory>
#include <string_view>

#include "core/model/backend.hpp"
#include "core/model/pattern.hpp"
#include "core/process/runtime_module.hpp"

namespace tileskip::cuda {

inline constexpr std::string_view kModuleSymbol = "tileskip_cuda_module";

// Bumped whenever ModuleInterface or the meaning of its members changes (2: the stamp became
// core's ModuleStamp; 3: Backend::multiplyInPlace; 4: Backend::tuning() in place of
// tuningVariants and useVariant, and Backend::upload takes the inputs' dtype; 5:
// DeviceProblem::attachPackedA, the packed A crossing the seam).
inline constexpr int kModuleAbiVersion = 5;

// Compared by the stub before anything is called.
using LayoutStamp =
    ModuleStamp<kModuleAbiVersion, BackendOptions, DeviceInfo, DeviceOperands, KernelInfo, Matrix, Pattern, BlockSparseMatrix>;

struct ModuleInterface {
  LayoutStamp stamp;
  // Opens the CUDA backend; throws UnavailableError (no driver, no device, no kernel image for
  // this GPU) or InputError (a device index that does not exist).
  std::unique_ptr<Backend> (*open)(const BackendOptions& options);
};

}  // namespace tileskip::cuda
