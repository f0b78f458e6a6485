#include "ui/render/graphics_device.hpp"

#include <string>

#include "core/model/error.hpp"

namespace tileskip::ui {

namespace {

const char* resultName(VkResult result) {
  switch (result) {
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY (not enough device memory)";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_SURFACE_LOST_KHR: return "VK_ERROR_SURFACE_LOST_KHR";
    case VK_ERROR_OUT_OF_DATE_KHR: return "VK_ERROR_OUT_OF_DATE_KHR";
    default: return "a Vulkan error";
  }
}

}  // namespace

void checkVk(VkResult result, const char* what) {
  if (result != VK_SUCCESS) {
    throw UnavailableError(std::string(what) + " failed: " + resultName(result) + " (" + std::to_string(result) + ")");
  }
}

int graphicsDeviceRank(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
  }
}

namespace {

std::string versionText(std::uint32_t version) {
  return std::to_string(VK_API_VERSION_MAJOR(version)) + "." + std::to_string(VK_API_VERSION_MINOR(version)) + "." +
         std::to_string(VK_API_VERSION_PATCH(version));
}

}  // namespace

GraphicsDevice::GraphicsDevice(const std::vector<const char*>& instanceExtensions,
                               const std::function<VkSurfaceKHR(VkInstance)>& makeSurface) {
  auto app = vkInfo<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "tileskip view";
  app.apiVersion = VK_API_VERSION_1_1;
  auto instanceInfo = vkInfo<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  instanceInfo.pApplicationInfo = &app;
  instanceInfo.enabledExtensionCount = static_cast<std::uint32_t>(instanceExtensions.size());
  instanceInfo.ppEnabledExtensionNames = instanceExtensions.data();
  VkResult created = vkCreateInstance(&instanceInfo, nullptr, &instance_);
  if (created == VK_ERROR_INCOMPATIBLE_DRIVER || created == VK_ERROR_INITIALIZATION_FAILED) {
    throw UnavailableError(std::string("no Vulkan driver found (") + resultName(created) +
                           "): the viewer draws with Vulkan; install a GPU driver, or mesa-vulkan-drivers for lavapipe, "
                           "Mesa's CPU implementation");
  }
  checkVk(created, "vkCreateInstance");
  try {
    if (makeSurface) surface_ = makeSurface(instance_);

    std::uint32_t count = 0;
    vkEnumeratePhysicalDevices(instance_, &count, nullptr);
    std::vector<VkPhysicalDevice> devices(count);
    vkEnumeratePhysicalDevices(instance_, &count, devices.data());
    int bestRank = 0;
    for (VkPhysicalDevice candidate : devices) {
      VkPhysicalDeviceProperties properties;
      vkGetPhysicalDeviceProperties(candidate, &properties);
      std::uint32_t families = 0;
      vkGetPhysicalDeviceQueueFamilyProperties(candidate, &families, nullptr);
      std::vector<VkQueueFamilyProperties> familyProperties(families);
      vkGetPhysicalDeviceQueueFamilyProperties(candidate, &families, familyProperties.data());
      for (std::uint32_t f = 0; f < families; ++f) {
        if ((familyProperties[f].queueFlags & VK_QUEUE_GRAPHICS_BIT) == 0) continue;
        if (surface_ != VK_NULL_HANDLE) {
          VkBool32 presents = VK_FALSE;
          vkGetPhysicalDeviceSurfaceSupportKHR(candidate, f, surface_, &presents);
          if (!presents) continue;
        }
        int rank = graphicsDeviceRank(properties.deviceType) + 1;
        if (rank > bestRank) {
          bestRank = rank;
          physical_ = candidate;
          queueFamily_ = f;
          description_ = std::string(properties.deviceName) + ", Vulkan " + versionText(properties.apiVersion);
        }
        break;
      }
    }
    if (physical_ == VK_NULL_HANDLE) {
      throw UnavailableError(count == 0 ? "Vulkan found no device: install a GPU driver, or mesa-vulkan-drivers for lavapipe"
                                        : std::string("no Vulkan device has a graphics queue") +
                                              (surface_ != VK_NULL_HANDLE ? " that can present to this window" : ""));
    }

    float priority = 1.0f;
    auto queueInfo = vkInfo<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
    queueInfo.queueFamilyIndex = queueFamily_;
    queueInfo.queueCount = 1;
    queueInfo.pQueuePriorities = &priority;
    const char* swapchain = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
    auto deviceInfo = vkInfo<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
    deviceInfo.queueCreateInfoCount = 1;
    deviceInfo.pQueueCreateInfos = &queueInfo;
    deviceInfo.enabledExtensionCount = surface_ != VK_NULL_HANDLE ? 1 : 0;
    deviceInfo.ppEnabledExtensionNames = &swapchain;
    checkVk(vkCreateDevice(physical_, &deviceInfo, nullptr, &device_), "vkCreateDevice");
    vkGetDeviceQueue(device_, queueFamily_, 0, &queue_);

    // ImGui needs one combined image sampler (its font); a few spare sets cost nothing.
    VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 16};
    auto poolInfo = vkInfo<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
    poolInfo.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
    poolInfo.maxSets = 16;
    poolInfo.poolSizeCount = 1;
    poolInfo.pPoolSizes = &poolSize;
    checkVk(vkCreateDescriptorPool(device_, &poolInfo, nullptr, &descriptorPool_), "vkCreateDescriptorPool");

    auto commandPoolInfo = vkInfo<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
    commandPoolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    commandPoolInfo.queueFamilyIndex = queueFamily_;
    checkVk(vkCreateCommandPool(device_, &commandPoolInfo, nullptr, &commandPool_), "vkCreateCommandPool");
  } catch (...) {
    release();
    throw;
  }
}

GraphicsDevice::~GraphicsDevice() { release(); }

void GraphicsDevice::release() {
  if (device_ != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(device_);
    if (commandPool_ != VK_NULL_HANDLE) vkDestroyCommandPool(device_, commandPool_, nullptr);
    if (descriptorPool_ != VK_NULL_HANDLE) vkDestroyDescriptorPool(device_, descriptorPool_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
  if (surface_ != VK_NULL_HANDLE) vkDestroySurfaceKHR(instance_, surface_, nullptr);
  if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
  device_ = VK_NULL_HANDLE;
  surface_ = VK_NULL_HANDLE;
  instance_ = VK_NULL_HANDLE;
  commandPool_ = VK_NULL_HANDLE;
  descriptorPool_ = VK_NULL_HANDLE;
}

void GraphicsDevice::submitNow(const std::function<void(VkCommandBuffer)>& record) {
  auto allocateInfo = vkInfo<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  allocateInfo.commandPool = commandPool_;
  allocateInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocateInfo.commandBufferCount = 1;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  checkVk(vkAllocateCommandBuffers(device_, &allocateInfo, &commands), "vkAllocateCommandBuffers");
  auto begin = vkInfo<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkBeginCommandBuffer(commands, &begin);
  record(commands);
  vkEndCommandBuffer(commands);
  auto submit = vkInfo<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands;
  VkResult result = vkQueueSubmit(queue_, 1, &submit, VK_NULL_HANDLE);
  if (result == VK_SUCCESS) result = vkQueueWaitIdle(queue_);
  vkFreeCommandBuffers(device_, commandPool_, 1, &commands);
  checkVk(result, "vkQueueSubmit");
}

std::uint32_t GraphicsDevice::memoryType(std::uint32_t typeBits, VkMemoryPropertyFlags properties) const {
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory);
  for (std::uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    if ((typeBits & (1u << i)) != 0 && (memory.memoryTypes[i].propertyFlags & properties) == properties) return i;
  }
  throw UnavailableError("the drawing device has no memory type the viewer needs");
}

}  // namespace tileskip::ui
