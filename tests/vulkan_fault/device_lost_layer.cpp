// A Vulkan layer for the tests only (VK_LAYER_TILESKIP_device_lost): it passes every call to the
// driver until the process has made TILESKIP_TEST_LOSE_DEVICE_AFTER queue submissions (0 when
// unset), then answers every submission and every wait with VK_ERROR_DEVICE_LOST, as a driver does
// after a GPU fault, a watchdog timeout or a reset. No driver here loses its device on demand, so
// this is how the suite sees what a user would: exit 3 with the reason, and no output file.
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string_view>

namespace {

struct InstanceCalls {
  PFN_vkGetInstanceProcAddr next = nullptr;
  PFN_vkDestroyInstance destroy = nullptr;
};

struct DeviceCalls {
  PFN_vkGetDeviceProcAddr next = nullptr;
  PFN_vkDestroyDevice destroy = nullptr;
  PFN_vkQueueSubmit queueSubmit = nullptr;
  PFN_vkWaitForFences waitForFences = nullptr;
  PFN_vkQueueWaitIdle queueWaitIdle = nullptr;
  PFN_vkDeviceWaitIdle deviceWaitIdle = nullptr;
};

std::mutex guard;
std::map<void*, InstanceCalls> instances;  // by the loader's dispatch table, which a handle starts with
std::map<void*, DeviceCalls> devices;      // a device's queues share its dispatch table
std::atomic<long> submissions{0};

void* dispatchKey(const void* handle) { return *static_cast<void* const*>(handle); }

InstanceCalls instanceCalls(const void* handle) {
  std::lock_guard lock(guard);
  return instances.at(dispatchKey(handle));
}

DeviceCalls deviceCalls(const void* handle) {
  std::lock_guard lock(guard);
  return devices.at(dispatchKey(handle));
}

bool lost() {
  const char* after = std::getenv("TILESKIP_TEST_LOSE_DEVICE_AFTER");
  return submissions.load() >= (after != nullptr ? std::atol(after) : 0);
}

// The loader's link to the next layer or the driver, in the create info's chain.
template <class LinkInfo, VkStructureType kType>
LinkInfo* linkInfo(const void* next) {
  for (auto* link = static_cast<const VkBaseInStructure*>(next); link != nullptr; link = link->pNext) {
    auto* candidate = reinterpret_cast<LinkInfo*>(const_cast<VkBaseInStructure*>(link));
    if (link->sType == kType && candidate->function == VK_LAYER_LINK_INFO) return candidate;
  }
  return nullptr;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* info, const VkAllocationCallbacks* allocator,
                                              VkInstance* instance) {
  auto* link = linkInfo<VkLayerInstanceCreateInfo, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO>(info->pNext);
  if (link == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr next = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  auto create = reinterpret_cast<PFN_vkCreateInstance>(next(VK_NULL_HANDLE, "vkCreateInstance"));
  VkResult result = create(info, allocator, instance);
  if (result != VK_SUCCESS) return result;
  std::lock_guard lock(guard);
  instances[dispatchKey(*instance)] = {next, reinterpret_cast<PFN_vkDestroyInstance>(next(*instance, "vkDestroyInstance"))};
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyInstance(VkInstance instance, const VkAllocationCallbacks* allocator) {
  void* key = dispatchKey(instance);  // read before the handle's memory is freed
  InstanceCalls calls = instanceCalls(instance);
  calls.destroy(instance, allocator);
  std::lock_guard lock(guard);
  instances.erase(key);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo* info,
                                            const VkAllocationCallbacks* allocator, VkDevice* device) {
  auto* link = linkInfo<VkLayerDeviceCreateInfo, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO>(info->pNext);
  if (link == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr nextInstance = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr next = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  auto create = reinterpret_cast<PFN_vkCreateDevice>(nextInstance(VK_NULL_HANDLE, "vkCreateDevice"));
  VkResult result = create(physical, info, allocator, device);
  if (result != VK_SUCCESS) return result;
  DeviceCalls calls;
  calls.next = next;
  calls.destroy = reinterpret_cast<PFN_vkDestroyDevice>(next(*device, "vkDestroyDevice"));
  calls.queueSubmit = reinterpret_cast<PFN_vkQueueSubmit>(next(*device, "vkQueueSubmit"));
  calls.waitForFences = reinterpret_cast<PFN_vkWaitForFences>(next(*device, "vkWaitForFences"));
  calls.queueWaitIdle = reinterpret_cast<PFN_vkQueueWaitIdle>(next(*device, "vkQueueWaitIdle"));
  calls.deviceWaitIdle = reinterpret_cast<PFN_vkDeviceWaitIdle>(next(*device, "vkDeviceWaitIdle"));
  std::lock_guard lock(guard);
  devices[dispatchKey(*device)] = calls;
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyDevice(VkDevice device, const VkAllocationCallbacks* allocator) {
  void* key = dispatchKey(device);  // read before the handle's memory is freed
  DeviceCalls calls = deviceCalls(device);
  calls.destroy(device, allocator);
  std::lock_guard lock(guard);
  devices.erase(key);
}

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo* submits, VkFence fence) {
  if (lost()) return VK_ERROR_DEVICE_LOST;
  ++submissions;
  return deviceCalls(queue).queueSubmit(queue, count, submits, fence);
}

// A lost device runs nothing more, and the application may then free what the work used. The
// driver underneath has not lost it, so every wait lets the work submitted so far finish first:
// otherwise the driver would still be running it while the application frees its memory.
VkResult drainAndLose(VkDevice device) {
  deviceCalls(device).deviceWaitIdle(device);
  return VK_ERROR_DEVICE_LOST;
}

VKAPI_ATTR VkResult VKAPI_CALL WaitForFences(VkDevice device, uint32_t count, const VkFence* fences, VkBool32 all,
                                             uint64_t timeout) {
  if (lost()) return drainAndLose(device);
  return deviceCalls(device).waitForFences(device, count, fences, all, timeout);
}

VKAPI_ATTR VkResult VKAPI_CALL QueueWaitIdle(VkQueue queue) {
  if (lost()) {
    deviceCalls(queue).queueWaitIdle(queue);
    return VK_ERROR_DEVICE_LOST;
  }
  return deviceCalls(queue).queueWaitIdle(queue);
}

VKAPI_ATTR VkResult VKAPI_CALL DeviceWaitIdle(VkDevice device) {
  if (lost()) return drainAndLose(device);
  return deviceCalls(device).deviceWaitIdle(device);
}

PFN_vkVoidFunction deviceCall(const char* name) {
  static const std::map<std::string_view, PFN_vkVoidFunction> calls = {
      {"vkDestroyDevice", reinterpret_cast<PFN_vkVoidFunction>(DestroyDevice)},
      {"vkQueueSubmit", reinterpret_cast<PFN_vkVoidFunction>(QueueSubmit)},
      {"vkWaitForFences", reinterpret_cast<PFN_vkVoidFunction>(WaitForFences)},
      {"vkQueueWaitIdle", reinterpret_cast<PFN_vkVoidFunction>(QueueWaitIdle)},
      {"vkDeviceWaitIdle", reinterpret_cast<PFN_vkVoidFunction>(DeviceWaitIdle)},
  };
  auto found = calls.find(name);
  return found == calls.end() ? nullptr : found->second;
}

}  // namespace

extern "C" {

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char* name);

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char* name) {
  static const std::map<std::string_view, PFN_vkVoidFunction> calls = {
      {"vkGetInstanceProcAddr", reinterpret_cast<PFN_vkVoidFunction>(vkGetInstanceProcAddr)},
      {"vkGetDeviceProcAddr", reinterpret_cast<PFN_vkVoidFunction>(vkGetDeviceProcAddr)},
      {"vkCreateInstance", reinterpret_cast<PFN_vkVoidFunction>(CreateInstance)},
      {"vkDestroyInstance", reinterpret_cast<PFN_vkVoidFunction>(DestroyInstance)},
      {"vkCreateDevice", reinterpret_cast<PFN_vkVoidFunction>(CreateDevice)},
  };
  if (auto found = calls.find(name); found != calls.end()) return found->second;
  if (PFN_vkVoidFunction ours = deviceCall(name)) return ours;
  if (instance == VK_NULL_HANDLE) return nullptr;
  return instanceCalls(instance).next(instance, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char* name) {
  if (PFN_vkVoidFunction ours = deviceCall(name)) return ours;
  return deviceCalls(device).next(device, name);
}

}  // extern "C"
