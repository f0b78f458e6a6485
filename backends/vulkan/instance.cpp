#include "backends/vulkan/instance.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/model/error.hpp"
#include "core/process/process_exit.hpp"

namespace tileskip::vk {

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

std::vector<VkExtensionProperties> instanceExtensions(const char* layer) {
  const GlobalFunctions& g = globalFunctions();
  std::uint32_t count = 0;
  g.vkEnumerateInstanceExtensionProperties(layer, &count, nullptr);
  std::vector<VkExtensionProperties> list(count);
  g.vkEnumerateInstanceExtensionProperties(layer, &count, list.data());
  list.resize(count);
  return list;
}

bool hasLayer(const char* name) {
  const GlobalFunctions& g = globalFunctions();
  std::uint32_t count = 0;
  g.vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  g.vkEnumerateInstanceLayerProperties(&count, layers.data());
  return std::any_of(layers.begin(), layers.begin() + count,
                     [&](const VkLayerProperties& l) { return std::strcmp(l.layerName, name) == 0; });
}

// A failed call before any device is open.
void check(VkResult result, const std::string& what) {
  if (result == VK_SUCCESS) return;
  if (result == VK_ERROR_OUT_OF_HOST_MEMORY) {
    // The loader also answers so for a driver manifest it cannot parse.
    throw UnavailableError(what + " failed: " + resultName(result) +
                           " (the Vulkan loader reports this for a malformed driver manifest too: check "
                           "VK_DRIVER_FILES / VK_ICD_FILENAMES and the files in /usr/share/vulkan/icd.d)");
  }
  throw UnavailableError(failureText(result, what, 0));
}

std::string severityName(VkDebugUtilsMessageSeverityFlagBitsEXT severity) {
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) return "error";
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) return "warning";
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT) return "info";
  return "verbose";
}

}  // namespace

VKAPI_ATTR VkBool32 VKAPI_CALL Instance::onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT types,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data, void* self) {
  std::string kind = (types & VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT)    ? "validation"
                     : (types & VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT) ? "performance"
                                                                                   : "general";
  std::string text = "Vulkan " + kind + " " + severityName(severity) + ": ";
  if (data->pMessageIdName != nullptr) text += std::string(data->pMessageIdName) + ": ";
  text += data->pMessage != nullptr ? data->pMessage : "(no message)";
  auto* instance = static_cast<Instance*>(self);
  std::lock_guard lock(instance->diagnosticsMutex_);
  instance->diagnostics_.push_back(std::move(text));
  return VK_FALSE;  // never abort the call: the test that reads the message fails instead
}

Instance::Instance(bool validation) {
  try {
    create(validation);
  } catch (...) {
    release();  // a constructor that throws gets no destructor call
    throw;
  }
}

Instance::~Instance() { release(); }

void Instance::release() {
  // After exit() began, the driver may already have torn itself down: calling it would crash.
  if (processExiting()) return;
  if (messenger_ != VK_NULL_HANDLE) {
    vi_.vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
    messenger_ = VK_NULL_HANDLE;
  }
  if (instance_ != VK_NULL_HANDLE) {
    vi_.vkDestroyInstance(instance_, nullptr);
    instance_ = VK_NULL_HANDLE;
  }
}

void Instance::create(bool validation) {
  const GlobalFunctions& g = globalFunctions();
  std::uint32_t loaderVersion = VK_API_VERSION_1_0;
  if (g.vkEnumerateInstanceVersion != nullptr) g.vkEnumerateInstanceVersion(&loaderVersion);
  if (loaderVersion < VK_API_VERSION_1_1) {
    throw UnavailableError("the Vulkan loader supports only Vulkan " + versionText(loaderVersion) +
                           "; the kernels need 1.1 or newer (update libvulkan1)");
  }
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "tileskip";
  app.pEngineName = "tileskip";
  app.apiVersion = std::min<std::uint32_t>(loaderVersion, VK_API_VERSION_1_3);

  std::vector<const char*> layers, extensions;
  VkDebugUtilsMessengerCreateInfoEXT messengerInfo{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  const VkValidationFeatureEnableEXT enabled[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  if (validation) {
    if (!hasLayer(kValidationLayer)) {
      throw UnavailableError(std::string("validation was requested but the ") + kValidationLayer +
                             " layer is not installed (Debian: vulkan-validationlayers)");
    }
    layers.push_back(kValidationLayer);
    std::vector<VkExtensionProperties> available = instanceExtensions(nullptr);
    std::vector<VkExtensionProperties> fromLayer = instanceExtensions(kValidationLayer);
    available.insert(available.end(), fromLayer.begin(), fromLayer.end());
    if (!hasExtension(available, VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) {
      throw UnavailableError("validation was requested but VK_EXT_debug_utils is missing, so its messages could not be collected");
    }
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    messengerInfo.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messengerInfo.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messengerInfo.pfnUserCallback = &Instance::onMessage;
    messengerInfo.pUserData = this;
    // Messages from vkCreateInstance and vkDestroyInstance themselves come through this one.
    info.pNext = &messengerInfo;
    if (hasExtension(available, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
      // Synchronization validation: a missing barrier between a copy and a dispatch is a bug the
      // core checks do not see.
      extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
      features.enabledValidationFeatureCount = 1;
      features.pEnabledValidationFeatures = enabled;
      messengerInfo.pNext = &features;
    }
  }
  info.enabledLayerCount = static_cast<std::uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  VkResult result = g.vkCreateInstance(&info, nullptr, &instance_);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER) {
    throw UnavailableError("no Vulkan driver found; install one (mesa-vulkan-drivers gives lavapipe on any CPU)");
  }
  check(result, "creating the Vulkan instance");
  vi_ = loadInstanceFunctions(instance_, validation);
  messengerInfo.pNext = nullptr;  // the validation features belong to the instance only
  if (validation) check(vi_.vkCreateDebugUtilsMessengerEXT(instance_, &messengerInfo, nullptr, &messenger_), "installing the debug messenger");
}

std::vector<VkPhysicalDevice> Instance::physicalDevices() const {
  std::uint32_t count = 0;
  check(vi_.vkEnumeratePhysicalDevices(instance_, &count, nullptr), "listing Vulkan devices");
  std::vector<VkPhysicalDevice> devices(count);
  check(vi_.vkEnumeratePhysicalDevices(instance_, &count, devices.data()), "listing Vulkan devices");
  devices.resize(count);
  return devices;
}

std::vector<std::string> Instance::takeDiagnostics() {
  std::lock_guard lock(diagnosticsMutex_);
  return std::exchange(diagnostics_, {});
}

}  // namespace tileskip::vk
