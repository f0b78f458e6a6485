// `tileskip view` as the executables see it: host-only code that checks the options, loads
// libtileskip_view.so from beside the running executable (or from $TILESKIP_VIEW_MODULE) and
// hands it the options and the backends. Nothing here needs ImGui, GLFW, Vulkan or stb, so the
// tool starts on a machine without them, and only `view` says there what is missing.
#include "backends/backend_registry.hpp"
#include "core/model/error.hpp"
#include "ui/view_module.hpp"
#include "ui/viewer.hpp"

namespace tileskip::ui {

namespace {

#ifdef TILESKIP_VIEW_MODULE_FILE
constexpr RuntimeModuleSpec kViewModule{
    .description = "tileskip viewer module",
    .fileName = TILESKIP_VIEW_MODULE_FILE,
    .pathVariable = "TILESKIP_VIEW_MODULE",
    .entrySymbol = kViewModuleSymbol,
    .advice = "The viewer needs the " TILESKIP_VIEW_MODULE_FILE " built with this tileskip beside it, and the Vulkan "
              "loader, GLFW, stb and the X11 client libraries (Debian 12: apt install libvulkan1 libglfw3 libstb0 "
              "libx11-6, and mesa-vulkan-drivers for lavapipe where there is no GPU)",
};
#endif

const ViewModuleInterface& viewModule() {
#ifdef TILESKIP_VIEW_MODULE_FILE
  // Loaded once; a failed load throws and is tried again on the next call.
  static const ViewModuleInterface& module = loadRuntimeModule<ViewModuleInterface>(kViewModule);
  return module;
#else
  throw UnavailableError(
      "this tileskip was built without the viewer: install libglfw3-dev, libimgui-dev, libvulkan-dev and libstb-dev "
      "(scripts/install-deps.sh) and configure with -DTILESKIP_VIEWER=ON");
#endif
}

}  // namespace

void requireViewer() { viewModule(); }

ViewerBackends registryBackends() {
  ViewerBackends backends;
  for (const BackendEntry& entry : compiledBackends()) backends.names.emplace_back(entry.name);
  backends.open = [](const std::string& name) { return openBackend(name); };
  return backends;
}

int runViewer(const ViewerOptions& options, const ViewerBackends& backends) {
  if (options.width < 320 || options.height < 240 || options.width > 8192 || options.height > 8192) {
    throw InputError("viewer size " + std::to_string(options.width) + "x" + std::to_string(options.height) +
                     " is outside 320x240 .. 8192x8192");
  }
  return viewModule().run(options, backends);
}

}  // namespace tileskip::ui
