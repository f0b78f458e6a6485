// The viewer proper, inside libtileskip_view.so: ImGui set up over a GLFW window or an offscreen
// Vulkan image, the frame loop, the screenshot. The executables reach it through view_stub.cpp.
#include "ui/viewer.hpp"

#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <memory>

#include "core/io/atomic_file.hpp"
#include "core/io/provenance.hpp"
#include "core/model/error.hpp"
#include "ui/render/graphics_device.hpp"
#include "ui/render/offscreen_target.hpp"
#include "ui/render/png.hpp"
#include "ui/render/window_target.hpp"
#include "ui/view_module.hpp"
#include "ui/viewer_app.hpp"

namespace tileskip::ui {

namespace {

constexpr float kClear[4] = {24 / 255.0f, 26 / 255.0f, 31 / 255.0f, 1.0f};

void imguiCheck(VkResult result) { checkVk(result, "ImGui's Vulkan renderer"); }

// What a screenshot shows, in its PNG text: the figures and settings (`view --facts` without the
// kernels' outcomes, which a run on another device may change) and the source lines on screen.
// scripts/make_pictures.py --check compares them with what the current tree computes.
PngText pictureText(const ViewerApp& app) {
  nlohmann::json facts = app.facts();
  facts.erase("kernels");
  return {{"Software", std::string("tileskip ") + toolVersion()},
          {"tileskip:facts", facts.dump(-1, ' ', true)},
          {"tileskip:source", app.shownSource().dump(-1, ' ', true)}};
}

// One ImGui context with its Vulkan renderer, set up and torn down in order.
class ImGuiRenderer {
 public:
  ImGuiRenderer(GraphicsDevice& device, VkRenderPass renderPass, std::uint32_t imageCount, ImVec2 displaySize,
                GLFWwindow* window, float scale) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the layout is fixed; nothing to remember between runs
    io.DisplaySize = displaySize;
    setUiScale(scale);
    applyStyle(scale);
    fonts = loadFonts(scale);
    if (window != nullptr) {
      ImGui_ImplGlfw_InitForVulkan(window, true);
      glfw_ = true;
    }
    ImGui_ImplVulkan_InitInfo info{};
    info.Instance = device.instance();
    info.PhysicalDevice = device.physicalDevice();
    info.Device = device.device();
    info.QueueFamily = device.queueFamily();
    info.Queue = device.queue();
    info.DescriptorPool = device.descriptorPool();
    info.MinImageCount = 2;
    info.ImageCount = std::max<std::uint32_t>(imageCount, 2);
    info.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
    info.CheckVkResultFn = imguiCheck;
    ImGui_ImplVulkan_Init(&info, renderPass);
    device.submitNow([](VkCommandBuffer commands) { ImGui_ImplVulkan_CreateFontsTexture(commands); });
    ImGui_ImplVulkan_DestroyFontUploadObjects();
  }
  ~ImGuiRenderer() {
    ImGui_ImplVulkan_Shutdown();
    if (glfw_) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
  ImGuiRenderer(const ImGuiRenderer&) = delete;
  ImGuiRenderer& operator=(const ImGuiRenderer&) = delete;

  Fonts fonts;

 private:
  bool glfw_ = false;
};

void writeJson(const std::string& path, const nlohmann::json& json) {
  AtomicFile out(path);  // complete or not at all; a failed write (/dev/full) throws
  out.stream() << json.dump(2) << "\n";
  out.commit();
}

void writeLayout(const std::string& path, const std::vector<ViewerApp::PanelRect>& layout) {
  nlohmann::json panels = nlohmann::json::object();
  for (const ViewerApp::PanelRect& r : layout) panels[r.name] = {{"x", r.x}, {"y", r.y}, {"width", r.width}, {"height", r.height}};
  writeJson(path, panels);
}

// Offscreen key presses (--press): the names a presenter's clicker and keyboard send, mapped to
// ImGui's keys. KeyMap is the identity here, as GLFW's backend maps its own key codes in a window.
ImGuiKey offscreenKey(const std::string& name) {
  switch (presenterKeyOf(name).value_or(PresenterKey::PageDown)) {
    case PresenterKey::Right: return ImGuiKey_RightArrow;
    case PresenterKey::Left: return ImGuiKey_LeftArrow;
    case PresenterKey::Down: return ImGuiKey_DownArrow;
    case PresenterKey::Up: return ImGuiKey_UpArrow;
    case PresenterKey::PageDown: return ImGuiKey_PageDown;
    case PresenterKey::PageUp: return ImGuiKey_PageUp;
    case PresenterKey::Space: return ImGuiKey_Space;
    case PresenterKey::Home: return ImGuiKey_Home;
    case PresenterKey::End: return ImGuiKey_End;
  }
  return ImGuiKey_PageDown;
}


int runOffscreen(const ViewerOptions& options, const ViewerBackends& backends) {
  GraphicsDevice device({}, {});
  OffscreenTarget target(device, options.width, options.height);
  ImGuiRenderer renderer(device, target.renderPass(), 2, {static_cast<float>(options.width), static_cast<float>(options.height)},
                         nullptr, options.uiScale);
  ImGuiIO& io = ImGui::GetIO();
  for (int key = 0; key < ImGuiKey_COUNT; ++key) io.KeyMap[key] = key;
  LiveSession session(backends.open);
  session.useDeviceClock();
  ViewerApp app(session, options, renderer.fonts, backends.names, device.description());

  // Settles the session in this thread, so the picture is the same on every run: the
  // analysis is there and each kernel has its verification and a few timed runs.
  auto settle = [&] {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(options.settleSeconds);
    while (!session.settled(options.settleSamples) && std::chrono::steady_clock::now() < deadline) {
      if (!session.step()) break;
    }
  };
  auto render = [&](std::optional<ImGuiKey> down) {
    io.DeltaTime = 1.0f / 30.0f;
    std::fill(std::begin(io.KeysDown), std::end(io.KeysDown), false);
    if (down) io.KeysDown[*down] = true;
    ImGui_ImplVulkan_NewFrame();
    ImGui::NewFrame();
    app.frame(io.DisplaySize, 0.0f);
    ImGui::Render();
    target.render(ImGui::GetDrawData(), kClear);
    settle();  // in case a frame changed the request
  };
  app.sendIfChanged();
  settle();
  for (int frame = 0; frame < std::max(options.frames, 1); ++frame) render(std::nullopt);
  // Each key goes down for one frame and up for the next, as a press does.
  for (const std::string& key : options.keys) {
    render(offscreenKey(key));
    render(std::nullopt);
  }
  SessionSnapshot last = session.snapshot();
  if (!options.recordFolder.empty()) {
    const int kBlocks = app.teachKBlocks();
    const int first = std::min(options.recordFirst, kBlocks - 1);
    const int lastKBlock = options.recordLast >= 0 ? std::min(options.recordLast, kBlocks - 1) : kBlocks - 1;
    for (int kb = first; kb <= lastKBlock; ++kb) {
      app.showKBlock(kb);
      render(std::nullopt);
      render(std::nullopt);  // ImGui sizes some widgets on the second frame
      char name[32];
      std::snprintf(name, sizeof name, "frame-%04d.png", kb - first);
      writePng((std::filesystem::path(options.recordFolder) / name).string(), target.pixels(), options.width, options.height);
    }
    std::cerr << "tileskip: rendered " << lastKBlock - first + 1 << " frames (K-blocks " << first << ".." << lastKBlock << ", "
              << options.width << "x" << options.height << ", " << last.served.spec.describe() << ", kernel "
              << last.served.kernel << ", drawn with " << device.description() << ")" << std::endl;
  } else {
    writePng(options.screenshot, target.pixels(), options.width, options.height, pictureText(app));
    std::cerr << "tileskip: wrote " << options.screenshot << " (" << options.width << "x" << options.height << ", "
              << last.served.spec.describe() << ", kernel " << last.served.kernel << ", drawn with " << device.description()
              << ")" << std::endl;
  }
  if (!options.layoutJson.empty()) writeLayout(options.layoutJson, app.layout());
  if (!options.factsJson.empty()) writeJson(options.factsJson, app.facts());
  return 0;
}

bool displayAvailable() {
  const char* x11 = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  return (x11 != nullptr && *x11 != '\0') || (wayland != nullptr && *wayland != '\0');
}

struct GlfwSession {
  GlfwSession() {
    glfwSetErrorCallback([](int, const char* description) { std::cerr << "tileskip: GLFW: " << description << std::endl; });
    if (!glfwInit()) {
      throw UnavailableError("cannot open a window: GLFW found no usable display. Use --screenshot FILE.png to render "
                             "offscreen, or run under xvfb-run");
    }
  }
  ~GlfwSession() { glfwTerminate(); }
};

int runWindow(const ViewerOptions& options, const ViewerBackends& backends) {
  if (!displayAvailable()) {
    throw UnavailableError("no display (neither DISPLAY nor WAYLAND_DISPLAY is set): use --screenshot FILE.png to render "
                           "offscreen without one, or run under xvfb-run");
  }
  GlfwSession glfw;
  if (!glfwVulkanSupported()) {
    throw UnavailableError("GLFW found no Vulkan loader or driver: install a Vulkan driver (mesa-vulkan-drivers gives "
                           "lavapipe on the CPU)");
  }
  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
  GLFWwindow* window = glfwCreateWindow(options.width, options.height, "tileskip view", nullptr, nullptr);
  if (window == nullptr) throw UnavailableError("cannot create a window on this display");
  struct WindowCloser {
    GLFWwindow* w;
    ~WindowCloser() { glfwDestroyWindow(w); }
  } closer{window};

  std::uint32_t count = 0;
  const char** required = glfwGetRequiredInstanceExtensions(&count);
  std::vector<const char*> extensions(required, required + count);
  GraphicsDevice device(extensions, [&](VkInstance instance) {
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    checkVk(glfwCreateWindowSurface(instance, window, nullptr, &surface), "glfwCreateWindowSurface");
    return surface;
  });
  WindowTarget target(device, window);
  int fbWidth = 0, fbHeight = 0;
  glfwGetFramebufferSize(window, &fbWidth, &fbHeight);
  ImGuiRenderer renderer(device, target.renderPass(), target.imageCount(),
                         {static_cast<float>(fbWidth), static_cast<float>(fbHeight)}, window, options.uiScale);
  LiveSession session(backends.open);
  ViewerApp app(session, options, renderer.fonts, backends.names, device.description());
  session.start();

  auto last = std::chrono::steady_clock::now();
  for (int frames = 0; !glfwWindowShouldClose(window) && (options.windowFrames == 0 || frames < options.windowFrames); ++frames) {
    glfwPollEvents();
    if (!target.prepare()) {
      glfwWaitEventsTimeout(0.1);
      continue;
    }
    auto now = std::chrono::steady_clock::now();
    float delta = std::chrono::duration<float>(now - last).count();
    last = now;
    ImGui_ImplVulkan_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    app.frame(ImGui::GetIO().DisplaySize, delta);
    ImGui::Render();
    target.render(ImGui::GetDrawData(), kClear);
  }
  session.stop();
  return 0;
}

int runLoadedViewer(const ViewerOptions& options, const ViewerBackends& backends) {
  const bool offscreen = !options.screenshot.empty() || !options.recordFolder.empty();
  return offscreen ? runOffscreen(options, backends) : runWindow(options, backends);
}

}  // namespace

}  // namespace tileskip::ui

extern "C" __attribute__((visibility("default"))) const tileskip::ui::ViewModuleInterface* tileskip_view_module() {
  static const tileskip::ui::ViewModuleInterface module{tileskip::ui::ViewModuleStamp{}, &tileskip::ui::runLoadedViewer};
  return &module;
}
