#include "backends/vulkan/vulkan_api.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>

#include "backends/vulkan/limits.hpp"
#include "core/model/error.hpp"

namespace tileskip::vk {

namespace {

GlobalFunctions openLoader() {
  // The loader stays loaded for the life of the process: drivers register atexit handlers.
  void* library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) library = dlopen("libvulkan.so", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    throw UnavailableError(
        "the Vulkan loader (libvulkan.so.1) is not installed; install libvulkan1 and a Vulkan driver "
        "(mesa-vulkan-drivers gives lavapipe on any CPU)");
  }
  GlobalFunctions f;
  f.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(library, "vkGetInstanceProcAddr"));
  if (f.vkGetInstanceProcAddr == nullptr) {
    throw UnavailableError("libvulkan.so.1 has no vkGetInstanceProcAddr: the Vulkan loader is broken; reinstall libvulkan1");
  }
#define TILESKIP_VK_LOAD_GLOBAL(name) \
  f.name = reinterpret_cast<PFN_##name>(f.vkGetInstanceProcAddr(VK_NULL_HANDLE, #name));
  TILESKIP_VK_GLOBAL_FUNCTIONS(TILESKIP_VK_LOAD_GLOBAL)
#undef TILESKIP_VK_LOAD_GLOBAL
  if (f.vkCreateInstance == nullptr) throw UnavailableError("the Vulkan loader does not provide vkCreateInstance");
  return f;
}

}  // namespace

const GlobalFunctions& globalFunctions() {
  static const GlobalFunctions functions = openLoader();
  return functions;
}

InstanceFunctions loadInstanceFunctions(VkInstance instance, bool debugUtils) {
  const GlobalFunctions& g = globalFunctions();
  InstanceFunctions f;
#define TILESKIP_VK_LOAD_INSTANCE(name) \
  f.name = reinterpret_cast<PFN_##name>(g.vkGetInstanceProcAddr(instance, #name));
  TILESKIP_VK_INSTANCE_FUNCTIONS(TILESKIP_VK_LOAD_INSTANCE)
  TILESKIP_VK_COOPERATIVE_MATRIX_FUNCTIONS(TILESKIP_VK_LOAD_INSTANCE)
  if (debugUtils) {
    TILESKIP_VK_DEBUG_FUNCTIONS(TILESKIP_VK_LOAD_INSTANCE)
  }
#undef TILESKIP_VK_LOAD_INSTANCE
  return f;
}

DeviceFunctions loadDeviceFunctions(const InstanceFunctions& instance, VkDevice device, bool executableProperties) {
  DeviceFunctions f;
#define TILESKIP_VK_LOAD_DEVICE(name) f.name = reinterpret_cast<PFN_##name>(instance.vkGetDeviceProcAddr(device, #name));
  TILESKIP_VK_DEVICE_FUNCTIONS(TILESKIP_VK_LOAD_DEVICE)
  if (executableProperties) {
    TILESKIP_VK_EXECUTABLE_FUNCTIONS(TILESKIP_VK_LOAD_DEVICE)
  }
#undef TILESKIP_VK_LOAD_DEVICE
  return f;
}

std::string resultName(VkResult result) {
  switch (result) {
#define TILESKIP_VK_RESULT(name) \
  case name: return #name;
    TILESKIP_VK_RESULT(VK_SUCCESS)
    TILESKIP_VK_RESULT(VK_NOT_READY)
    TILESKIP_VK_RESULT(VK_TIMEOUT)
    TILESKIP_VK_RESULT(VK_INCOMPLETE)
    TILESKIP_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    TILESKIP_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    TILESKIP_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    TILESKIP_VK_RESULT(VK_ERROR_DEVICE_LOST)
    TILESKIP_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    TILESKIP_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    TILESKIP_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    TILESKIP_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    TILESKIP_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    TILESKIP_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    TILESKIP_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    TILESKIP_VK_RESULT(VK_ERROR_UNKNOWN)
#undef TILESKIP_VK_RESULT
    default: return "VkResult " + std::to_string(static_cast<int>(result));
  }
}

std::string versionText(std::uint32_t version) {
  return std::to_string(VK_API_VERSION_MAJOR(version)) + "." + std::to_string(VK_API_VERSION_MINOR(version)) + "." +
         std::to_string(VK_API_VERSION_PATCH(version));
}

bool hasExtension(const std::vector<VkExtensionProperties>& list, const char* name) {
  return std::any_of(list.begin(), list.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

std::string failureText(VkResult result, const std::string& what, std::uint64_t deviceBytesAvailable) {
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY) {
    return what + " failed: the Vulkan device is out of " + (result == VK_ERROR_OUT_OF_DEVICE_MEMORY ? "device" : "host") +
           " memory (" + byteText(deviceBytesAvailable) + " of device memory available)";
  }
  return what + " failed: " + resultName(result);
}

}  // namespace tileskip::vk
