// The seam between the executables and libtileskip_view.so, the part of the viewer that needs
// Dear ImGui, GLFW, Vulkan and stb. The stub (view_stub.cpp) loads the module through
// core/process/runtime_module.hpp; its one C symbol, kViewModuleSymbol, returns a ViewModuleInterface.
// The options, the backend opener and the backends it opens cross the seam; so do exceptions.
#pragma once

#include <string_view>

#include "core/process/runtime_module.hpp"
#include "ui/viewer.hpp"

namespace tileskip::ui {

inline constexpr std::string_view kViewModuleSymbol = "tileskip_view_module";

// Bumped whenever ViewModuleInterface or the meaning of its members changes, the Backend
// interface of the backends it is handed included (3: Backend::tuning() in place of
// tuningVariants and useVariant).
inline constexpr int kViewModuleAbiVersion = 3;

using ViewModuleStamp = ModuleStamp<kViewModuleAbiVersion, ViewerOptions, ViewerBackends, SessionRequest, ProblemSpec,
                                    BackendOptions, DeviceInfo, KernelInfo, Matrix, Pattern>;

struct ViewModuleInterface {
  ViewModuleStamp stamp;
  // runViewer() once the options are known to be valid: a window, or offscreen into a PNG.
  int (*run)(const ViewerOptions& options, const ViewerBackends& backends);
};

}  // namespace tileskip::ui
