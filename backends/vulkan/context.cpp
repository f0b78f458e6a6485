#include "backends/vulkan/context.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>
#include <tuple>
#include <utility>

#include "backends/vulkan/embedded_spirv.hpp"
#include "core/model/error.hpp"
#include "core/process/process_exit.hpp"

namespace tileskip::vk {

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";
constexpr auto kSpecializationCount = static_cast<std::uint32_t>(SpecId::Count);

bool hasExtension(const std::vector<VkExtensionProperties>& list, const char* name) {
  return std::any_of(list.begin(), list.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

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

DeviceKind kindOf(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return DeviceKind::Discrete;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return DeviceKind::Integrated;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return DeviceKind::Virtual;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return DeviceKind::Cpu;
    default: return DeviceKind::Other;
  }
}

// Everything a physical device reports that the backend uses, queried once.
struct DeviceReport {
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceMaintenance3Properties maintenance3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  VkPhysicalDeviceSubgroupSizeControlPropertiesEXT sizeControl{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES_EXT};
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceSubgroupSizeControlFeaturesEXT sizeControlFeatures{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT};
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV smBuiltins{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executableFeatures{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  std::vector<VkQueueFamilyProperties> queues;
  std::vector<VkExtensionProperties> extensions;
  bool hasSizeControl = false;  // Vulkan 1.3 or VK_EXT_subgroup_size_control
  bool hasDriverProperties = false;
  bool hasSmBuiltins = false;  // VK_NV_shader_sm_builtins: the SM count
  bool hasExecutableProperties = false;  // VK_KHR_pipeline_executable_properties with pipelineExecutableInfo

  DeviceReport(const InstanceFunctions& vi, VkPhysicalDevice device) {
    VkPhysicalDeviceProperties basic{};
    vi.vkGetPhysicalDeviceProperties(device, &basic);
    std::uint32_t count = 0;
    vi.vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr);
    extensions.resize(count);
    vi.vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data());
    extensions.resize(count);
    vi.vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
    queues.resize(count);
    vi.vkGetPhysicalDeviceQueueFamilyProperties(device, &count, queues.data());
    if (basic.apiVersion < VK_API_VERSION_1_1) {
      properties.properties = basic;  // too old for the chained queries; unsuitable anyway
      return;
    }
    hasSizeControl = basic.apiVersion >= VK_API_VERSION_1_3 || hasExtension(extensions, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
    hasDriverProperties = basic.apiVersion >= VK_API_VERSION_1_2 || hasExtension(extensions, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
    properties.pNext = &subgroup;
    subgroup.pNext = &maintenance3;
    void** tail = &maintenance3.pNext;
    if (hasSizeControl) {
      *tail = &sizeControl;
      tail = &sizeControl.pNext;
    }
    hasSmBuiltins = hasExtension(extensions, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
    if (hasSmBuiltins) {
      *tail = &smBuiltins;
      tail = &smBuiltins.pNext;
    }
    if (hasDriverProperties) *tail = &driver;
    vi.vkGetPhysicalDeviceProperties2(device, &properties);
    bool executableExtension = hasExtension(extensions, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    if (hasSizeControl || executableExtension) {
      VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
      void** featureTail = &features.pNext;
      if (hasSizeControl) {
        *featureTail = &sizeControlFeatures;
        featureTail = &sizeControlFeatures.pNext;
      }
      if (executableExtension) *featureTail = &executableFeatures;
      vi.vkGetPhysicalDeviceFeatures2(device, &features);
    }
    hasExecutableProperties = executableExtension && executableFeatures.pipelineExecutableInfo;
  }

  const VkPhysicalDeviceLimits& limits() const { return properties.properties.limits; }

  DeviceCandidate candidate() const {
    DeviceCandidate c;
    c.name = properties.properties.deviceName;
    c.kind = kindOf(properties.properties.deviceType);
    c.apiVersion = properties.properties.apiVersion;
    c.computeQueue = std::any_of(queues.begin(), queues.end(),
                                 [](const VkQueueFamilyProperties& q) { return (q.queueFlags & VK_QUEUE_COMPUTE_BIT) != 0; });
    c.subgroupInCompute = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
    c.subgroupBallot = (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT) != 0;
    c.subgroupVote = (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_VOTE_BIT) != 0;
    return c;
  }
};

std::string severityName(VkDebugUtilsMessageSeverityFlagBitsEXT severity) {
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) return "error";
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) return "warning";
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT) return "info";
  return "verbose";
}

}  // namespace

bool Specialization::operator<(const Specialization& other) const {
  return std::lexicographical_compare(std::begin(values), std::end(values), std::begin(other.values),
                                      std::end(other.values));
}

VKAPI_ATTR VkBool32 VKAPI_CALL Context::onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                  VkDebugUtilsMessageTypeFlagsEXT types,
                                                  const VkDebugUtilsMessengerCallbackDataEXT* data, void* self) {
  std::string kind = (types & VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT)    ? "validation"
                     : (types & VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT) ? "performance"
                                                                                   : "general";
  std::string text = "Vulkan " + kind + " " + severityName(severity) + ": ";
  if (data->pMessageIdName != nullptr) text += std::string(data->pMessageIdName) + ": ";
  text += data->pMessage != nullptr ? data->pMessage : "(no message)";
  auto* context = static_cast<Context*>(self);
  std::lock_guard lock(context->diagnosticsMutex_);
  context->diagnostics_.push_back(std::move(text));
  return VK_FALSE;  // never abort the call: the test that reads the message fails instead
}

Context::Context(const BackendOptions& options) {
  try {
    pipelineReport_ = PipelineReportRequest::fromEnvironment();
    createInstance(options.validation);
    std::uint32_t count = 0;
    check(vi_.vkEnumeratePhysicalDevices(instance_, &count, nullptr), "listing Vulkan devices");
    std::vector<VkPhysicalDevice> devices(count);
    check(vi_.vkEnumeratePhysicalDevices(instance_, &count, devices.data()), "listing Vulkan devices");
    devices.resize(count);
    std::vector<DeviceCandidate> candidates = describeDevices(devices);
    physical_ = devices[chooseDevice(candidates, options.deviceIndex)];
    describe(physical_);
    createDevice(physical_);
    watchProcessExit();  // after the driver loaded, so our handler runs before its teardown
    createCommandObjects();
    createLayouts();
  } catch (...) {
    release();  // a constructor that throws gets no destructor call
    throw;
  }
}

Context::~Context() { release(); }

void Context::release() {
  // After exit() began, the driver may already have torn itself down: calling it would crash.
  if (processExiting()) return;
  if (device_ != VK_NULL_HANDLE) {
    vk_.vkDeviceWaitIdle(device_);  // a lost device returns an error here; teardown goes on
    for (auto& [key, pipeline] : pipelines_) vk_.vkDestroyPipeline(device_, pipeline, nullptr);
    pipelines_.clear();
    if (pipelineLayout_) vk_.vkDestroyPipelineLayout(device_, pipelineLayout_, nullptr);
    if (setLayout_) vk_.vkDestroyDescriptorSetLayout(device_, setLayout_, nullptr);
    if (queryPool_) vk_.vkDestroyQueryPool(device_, queryPool_, nullptr);
    if (fence_) vk_.vkDestroyFence(device_, fence_, nullptr);
    if (commandPool_) vk_.vkDestroyCommandPool(device_, commandPool_, nullptr);
    vk_.vkDestroyDevice(device_, nullptr);
    device_ = VK_NULL_HANDLE;
    pipelineLayout_ = VK_NULL_HANDLE;
    setLayout_ = VK_NULL_HANDLE;
    queryPool_ = VK_NULL_HANDLE;
    fence_ = VK_NULL_HANDLE;
    commandPool_ = VK_NULL_HANDLE;
    commandBuffer_ = VK_NULL_HANDLE;  // freed with its pool
  }
  if (messenger_ != VK_NULL_HANDLE) {
    vi_.vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
    messenger_ = VK_NULL_HANDLE;
  }
  if (instance_ != VK_NULL_HANDLE) {
    vi_.vkDestroyInstance(instance_, nullptr);
    instance_ = VK_NULL_HANDLE;
  }
}

void Context::createInstance(bool validation) {
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
    messengerInfo.pfnUserCallback = &Context::onMessage;
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

std::vector<DeviceCandidate> Context::describeDevices(const std::vector<VkPhysicalDevice>& devices) {
  std::vector<DeviceCandidate> candidates;
  for (VkPhysicalDevice device : devices) candidates.push_back(DeviceReport(vi_, device).candidate());
  return candidates;
}

void Context::describe(VkPhysicalDevice physical) {
  DeviceReport report(vi_, physical);
  const VkPhysicalDeviceProperties& p = report.properties.properties;
  info_.name = p.deviceName;
  info_.api = "Vulkan " + versionText(p.apiVersion);
  if (report.hasDriverProperties && report.driver.driverInfo[0] != '\0') {
    info_.driver = std::string(report.driver.driverName) + " " + report.driver.driverInfo;
  } else {
    info_.driver = std::to_string(p.driverVersion);
  }
  info_.isGpu = p.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
  info_.subgroupSize = static_cast<int>(report.subgroup.subgroupSize);
  info_.sharedMemoryBytes = p.limits.maxComputeSharedMemorySize;

  limits_.maxSharedBytes = p.limits.maxComputeSharedMemorySize;
  limits_.maxInvocations = p.limits.maxComputeWorkGroupInvocations;
  limits_.maxWorkgroupSizeX = p.limits.maxComputeWorkGroupSize[0];
  limits_.maxGroupCountX = p.limits.maxComputeWorkGroupCount[0];
  limits_.maxGroupCountY = p.limits.maxComputeWorkGroupCount[1];
  limits_.maxStorageBufferRange = p.limits.maxStorageBufferRange;
  limits_.maxAllocationBytes = report.maintenance3.maxMemoryAllocationSize;
  limits_.subgroupSize = report.subgroup.subgroupSize;
  limits_.minSubgroupSize = limits_.maxSubgroupSize = report.subgroup.subgroupSize;
  if (report.hasSizeControl && report.sizeControlFeatures.subgroupSizeControl &&
      (report.sizeControl.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT)) {
    limits_.minSubgroupSize = report.sizeControl.minSubgroupSize;
    limits_.maxSubgroupSize = report.sizeControl.maxSubgroupSize;
    limits_.maxWorkgroupSubgroups = report.sizeControl.maxComputeWorkgroupSubgroups;
    limits_.pinSubgroupSize = true;
    limits_.fullSubgroups = report.sizeControlFeatures.computeFullSubgroups;
  }
  if (report.hasSmBuiltins) limits_.multiprocessors = report.smBuiltins.shaderSMCount;
  if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) limits_.cpuThreads = std::max(1u, std::thread::hardware_concurrency());
  if (isLavapipe(info_.name)) limits_.maxLoopIterations = kLavapipeLoopIterations;
  timestampPeriodNs_ = p.limits.timestampPeriod;

  vi_.vkGetPhysicalDeviceMemoryProperties(physical, &memory_);
  for (std::uint32_t h = 0; h < memory_.memoryHeapCount; ++h) {
    if (memory_.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) {
      info_.memoryBytes = std::max<std::size_t>(info_.memoryBytes, memory_.memoryHeaps[h].size);
    }
  }
  const VkMemoryPropertyFlags mapped =
      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  unifiedMemory_ = p.deviceType != VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU && memoryType(~0u, mapped).has_value();
  memoryBudget_ = hasExtension(report.extensions, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
}

void Context::createDevice(VkPhysicalDevice physical) {
  DeviceReport report(vi_, physical);
  // The compute family with the most timestamp bits (graphics+compute families count too).
  std::optional<std::uint32_t> family;
  for (std::uint32_t i = 0; i < report.queues.size(); ++i) {
    const VkQueueFamilyProperties& q = report.queues[i];
    if (!(q.queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
    if (!family || q.timestampValidBits > report.queues[*family].timestampValidBits) family = i;
  }
  queueFamily_ = *family;  // chooseDevice() accepted only devices with a compute queue
  timestampValidBits_ = report.queues[queueFamily_].timestampValidBits;

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = queueFamily_;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;

  std::vector<const char*> extensions;
  VkPhysicalDeviceSubgroupSizeControlFeaturesEXT sizeControl{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  void** featureTail = &features.pNext;
  if (limits_.pinSubgroupSize) {
    if (report.properties.properties.apiVersion < VK_API_VERSION_1_3) extensions.push_back(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
    sizeControl.subgroupSizeControl = VK_TRUE;
    sizeControl.computeFullSubgroups = limits_.fullSubgroups ? VK_TRUE : VK_FALSE;
    *featureTail = &sizeControl;
    featureTail = &sizeControl.pNext;
  }
  if (memoryBudget_) extensions.push_back(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  // Only where asked for: capturing statistics may cost the driver time or its pipeline cache.
  if (pipelineReport_.wanted()) {
    if (report.hasExecutableProperties) {
      extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
      executable.pipelineExecutableInfo = VK_TRUE;
      *featureTail = &executable;
      featureTail = &executable.pNext;
    } else {
      pipelineReport_.unavailable(info_.name);
    }
  }

  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = &features;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queueInfo;
  info.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  check(vi_.vkCreateDevice(physical, &info, nullptr, &device_), "opening the Vulkan device " + info_.name);
  reportPipelines_ = pipelineReport_.wanted() && report.hasExecutableProperties;
  vk_ = loadDeviceFunctions(vi_, device_, reportPipelines_);
  if (reportPipelines_ && (!vk_.vkGetPipelineExecutablePropertiesKHR || !vk_.vkGetPipelineExecutableStatisticsKHR ||
                           !vk_.vkGetPipelineExecutableInternalRepresentationsKHR)) {
    reportPipelines_ = false;
    pipelineReport_.unavailable(info_.name);
  }
  vk_.vkGetDeviceQueue(device_, queueFamily_, 0, &queue_);
}

void Context::createCommandObjects() {
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  poolInfo.queueFamilyIndex = queueFamily_;
  check(vk_.vkCreateCommandPool(device_, &poolInfo, nullptr, &commandPool_), "creating a command pool");
  VkCommandBufferAllocateInfo bufferInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  bufferInfo.commandPool = commandPool_;
  bufferInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  bufferInfo.commandBufferCount = 1;
  check(vk_.vkAllocateCommandBuffers(device_, &bufferInfo, &commandBuffer_), "allocating a command buffer");
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  check(vk_.vkCreateFence(device_, &fenceInfo, nullptr, &fence_), "creating a fence");
  if (timestampValidBits_ > 0) {
    VkQueryPoolCreateInfo queryInfo{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    queryInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
    queryInfo.queryCount = 2;
    check(vk_.vkCreateQueryPool(device_, &queryInfo, nullptr, &queryPool_), "creating a timestamp query pool");
  } else {
    info_.api += " (no timestamps on the compute queue: host-timed)";
  }
}

void Context::createLayouts() {
  // One layout for every shader: A, B, C, A-pattern, B-pattern (shaders/tileskip_common.glsl) and
  // the block tile queue of the persistent kernels (shaders/tileskip_skip.glsl).
  VkDescriptorSetLayoutBinding bindings[kBindings] = {};
  for (std::uint32_t i = 0; i < kBindings; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setInfo.bindingCount = kBindings;
  setInfo.pBindings = bindings;
  check(vk_.vkCreateDescriptorSetLayout(device_, &setInfo, nullptr, &setLayout_), "creating the descriptor set layout");
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(PushConstants)};
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &setLayout_;
  layoutInfo.pushConstantRangeCount = 1;
  layoutInfo.pPushConstantRanges = &range;
  check(vk_.vkCreatePipelineLayout(device_, &layoutInfo, nullptr, &pipelineLayout_), "creating the pipeline layout");
}

std::vector<std::string> Context::takeDiagnostics() {
  std::lock_guard lock(diagnosticsMutex_);
  return std::exchange(diagnostics_, {});
}

std::optional<std::uint32_t> Context::memoryType(std::uint32_t typeBits, VkMemoryPropertyFlags required,
                                                 VkMemoryPropertyFlags preferred, VkMemoryPropertyFlags avoided) const {
  std::optional<std::uint32_t> best;
  int bestScore = -1;
  for (std::uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    VkMemoryPropertyFlags flags = memory_.memoryTypes[i].propertyFlags;
    if (!(typeBits & (1u << i)) || (flags & required) != required) continue;
    int score = ((flags & preferred) == preferred ? 2 : 0) + ((flags & avoided) == 0 ? 1 : 0);
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  }
  return best;
}

std::uint64_t Context::deviceMemoryAvailable() const {
  // Before a device is chosen (creating the instance failed) there is nothing to ask.
  if (physical_ == VK_NULL_HANDLE || vi_.vkGetPhysicalDeviceMemoryProperties2 == nullptr) return 0;
  VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
  VkPhysicalDeviceMemoryProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
  if (memoryBudget_) properties.pNext = &budget;
  vi_.vkGetPhysicalDeviceMemoryProperties2(physical_, &properties);
  std::uint64_t available = 0;
  for (std::uint32_t h = 0; h < properties.memoryProperties.memoryHeapCount; ++h) {
    const VkMemoryHeap& heap = properties.memoryProperties.memoryHeaps[h];
    if (!(heap.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)) continue;
    std::uint64_t free = heap.size;
    if (memoryBudget_) free = budget.heapBudget[h] > budget.heapUsage[h] ? budget.heapBudget[h] - budget.heapUsage[h] : 0;
    available = std::max(available, free);
  }
  return available;
}

void Context::throwIfLost() const {
  if (lost_) {
    throw UnavailableError("the Vulkan device " + info_.name +
                           " was lost earlier in this run; nothing more can run on it (restart the program)");
  }
}

void Context::check(VkResult result, const std::string& what) {
  if (result == VK_SUCCESS) return;
  if (result == VK_ERROR_DEVICE_LOST) {
    lost_ = true;
    throw UnavailableError("the Vulkan device " + info_.name + " was lost while " + what +
                           " (a kernel fault, a watchdog timeout or a driver reset); nothing more can run on it in "
                           "this process");
  }
  if (physical_ == VK_NULL_HANDLE && result == VK_ERROR_OUT_OF_HOST_MEMORY) {
    // No device yet: the loader also answers so for a driver manifest it cannot parse.
    throw UnavailableError(what + " failed: " + resultName(result) +
                           " (the Vulkan loader reports this for a malformed driver manifest too: check "
                           "VK_DRIVER_FILES / VK_ICD_FILENAMES and the files in /usr/share/vulkan/icd.d)");
  }
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY) {
    throw UnavailableError(what + " failed: the Vulkan device is out of " +
                           (result == VK_ERROR_OUT_OF_DEVICE_MEMORY ? "device" : "host") + " memory (" +
                           byteText(deviceMemoryAvailable()) + " of device memory available)");
  }
  throw UnavailableError(what + " failed: " + resultName(result));
}

void Context::stepBarrier(VkCommandBuffer cmd) const {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask =
      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vk_.vkCmdPipelineBarrier(cmd, stages, stages, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

double Context::execute(const std::function<void(VkCommandBuffer)>& record, bool timed) {
  throwIfLost();
  VkCommandBuffer cmd = commandBuffer_;
  check(vk_.vkResetCommandBuffer(cmd, 0), "resetting a command buffer");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(vk_.vkBeginCommandBuffer(cmd, &begin), "recording a command buffer");
  // Queue order alone does not make an earlier submission's writes visible to this one.
  VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  before.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT;
  before.dstAccessMask =
      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  const VkPipelineStageFlags work = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vk_.vkCmdPipelineBarrier(cmd, work | VK_PIPELINE_STAGE_HOST_BIT, work, 0, 1, &before, 0, nullptr, 0, nullptr);
  bool deviceTimed = timed && queryPool_ != VK_NULL_HANDLE;
  if (deviceTimed) {
    vk_.vkCmdResetQueryPool(cmd, queryPool_, 0, 2);
    vk_.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queryPool_, 0);
  }
  record(cmd);
  if (deviceTimed) vk_.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queryPool_, 1);
  // The host reads mapped results (downloads) once the fence says the work is done.
  VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  after.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  after.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vk_.vkCmdPipelineBarrier(cmd, work, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0, nullptr, 0, nullptr);
  check(vk_.vkEndCommandBuffer(cmd), "recording a command buffer");

  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  auto start = std::chrono::steady_clock::now();
  check(vk_.vkQueueSubmit(queue_, 1, &submit, fence_), "submitting work");
  VkResult waited = vk_.vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX);
  double hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  check(waited, "waiting for the device");
  check(vk_.vkResetFences(device_, 1, &fence_), "resetting a fence");
  if (!timed) return 0.0;
  if (!deviceTimed) return hostMs;
  std::uint64_t stamps[2] = {};
  check(vk_.vkGetQueryPoolResults(device_, queryPool_, 0, 2, sizeof stamps, stamps, sizeof stamps[0],
                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
        "reading timestamps");
  std::uint64_t mask = timestampValidBits_ >= 64 ? ~0ull : (1ull << timestampValidBits_) - 1;
  std::uint64_t ticks = (stamps[1] - stamps[0]) & mask;  // correct across one wrap of the counter
  return static_cast<double>(ticks) * timestampPeriodNs_ * 1e-6;
}

bool Context::hasPipeline(std::string_view stem, const Specialization& constants) const {
  return pipelines_.count(std::pair(std::string(stem), constants)) > 0;
}

VkPipeline Context::pipeline(std::string_view stem, const Specialization& constants, std::uint32_t workgroupSize,
                             std::string_view kernel) {
  auto key = std::pair(std::string(stem), constants);
  if (auto it = pipelines_.find(key); it != pipelines_.end()) return it->second;
  throwIfLost();
  std::span<const std::uint32_t> spirv = embeddedSpirv(stem);
  if (spirv.empty()) throw InputError("no shader '" + std::string(stem) + "' is embedded in this build");

  VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  moduleInfo.codeSize = spirv.size_bytes();
  moduleInfo.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  check(vk_.vkCreateShaderModule(device_, &moduleInfo, nullptr, &module), "loading shader " + std::string(stem));

  VkSpecializationMapEntry entries[kSpecializationCount];
  for (std::uint32_t i = 0; i < kSpecializationCount; ++i) {
    entries[i] = {i, static_cast<std::uint32_t>(i * sizeof(std::uint32_t)), sizeof(std::uint32_t)};
  }
  VkSpecializationInfo specialization{kSpecializationCount, entries, sizeof constants.values, constants.values};
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  info.stage.pSpecializationInfo = &specialization;
  info.layout = pipelineLayout_;
  if (reportPipelines_) {
    info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    if (!pipelineReport_.irDirectory.empty()) info.flags |= VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
  }
  // Kernels are correct at any subgroup size; a warp-sized one is what they are tuned for.
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfoEXT required{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO_EXT};
  if (std::optional<std::uint32_t> size = pinnedSubgroupSize(workgroupSize, limits_)) {
    required.requiredSubgroupSize = *size;
    info.stage.pNext = &required;
    if (limits_.fullSubgroups) info.stage.flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT_EXT;
  }
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkResult result = vk_.vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline);
  vk_.vkDestroyShaderModule(device_, module, nullptr);
  check(result, "building the pipeline of " + std::string(stem));
  pipelines_.emplace(std::move(key), pipeline);
  if (reportPipelines_) reportPipeline(pipeline, kernel.empty() ? stem : kernel, stem, constants);
  return pipeline;
}

void Context::reportPipeline(VkPipeline pipeline, std::string_view kernel, std::string_view stem, const Specialization& constants) {
  // A report that fails says why and leaves the pipeline as it is: it is a diagnosis, not the run.
  auto query = [&](VkResult result, const char* what) {
    if (result != VK_SUCCESS && result != VK_INCOMPLETE) throw UnavailableError(std::string(what) + ": " + resultName(result));
  };
  std::vector<ExecutableStatistics> executables;
  std::vector<std::string> written;
  try {
    VkPipelineInfoKHR pipelineInfo{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
    pipelineInfo.pipeline = pipeline;
    std::uint32_t count = 0;
    query(vk_.vkGetPipelineExecutablePropertiesKHR(device_, &pipelineInfo, &count, nullptr), "vkGetPipelineExecutablePropertiesKHR");
    std::vector<VkPipelineExecutablePropertiesKHR> properties(count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
    query(vk_.vkGetPipelineExecutablePropertiesKHR(device_, &pipelineInfo, &count, properties.data()),
          "vkGetPipelineExecutablePropertiesKHR");
    properties.resize(count);
    for (std::uint32_t e = 0; e < count; ++e) {
      VkPipelineExecutableInfoKHR executable{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
      executable.pipeline = pipeline;
      executable.executableIndex = e;
      ExecutableStatistics report{properties[e].name, {{"subgroup size", std::to_string(properties[e].subgroupSize)}}};
      std::uint32_t statistics = 0;
      query(vk_.vkGetPipelineExecutableStatisticsKHR(device_, &executable, &statistics, nullptr), "vkGetPipelineExecutableStatisticsKHR");
      std::vector<VkPipelineExecutableStatisticKHR> values(statistics, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
      query(vk_.vkGetPipelineExecutableStatisticsKHR(device_, &executable, &statistics, values.data()),
            "vkGetPipelineExecutableStatisticsKHR");
      for (std::uint32_t i = 0; i < statistics && i < values.size(); ++i) report.statistics.emplace_back(values[i].name, statisticValueText(values[i]));
      executables.push_back(std::move(report));
      if (pipelineReport_.irDirectory.empty()) continue;
      std::uint32_t irCount = 0;
      query(vk_.vkGetPipelineExecutableInternalRepresentationsKHR(device_, &executable, &irCount, nullptr),
            "vkGetPipelineExecutableInternalRepresentationsKHR");
      std::vector<VkPipelineExecutableInternalRepresentationKHR> irs(irCount, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR});
      query(vk_.vkGetPipelineExecutableInternalRepresentationsKHR(device_, &executable, &irCount, irs.data()),
            "vkGetPipelineExecutableInternalRepresentationsKHR");  // the sizes
      std::vector<std::vector<char>> data(irCount);
      for (std::uint32_t i = 0; i < irCount; ++i) {
        data[i].resize(irs[i].dataSize);
        irs[i].pData = data[i].data();
      }
      query(vk_.vkGetPipelineExecutableInternalRepresentationsKHR(device_, &executable, &irCount, irs.data()),
            "vkGetPipelineExecutableInternalRepresentationsKHR");  // the contents
      for (std::uint32_t i = 0; i < irCount; ++i) {
        std::filesystem::path file = std::filesystem::path(pipelineReport_.irDirectory) /
                                     internalRepresentationFileName(stem, constants, e, irs[i].name, irs[i].isText);
        std::ofstream out(file, std::ios::binary);
        if (irs[i].isText) out << "// " << kernel << " (" << stem << ") " << specializationText(constants) << "\n";
        auto end = irs[i].isText ? std::find(data[i].begin(), data[i].end(), '\0') : data[i].end();  // text ends at its NUL
        out.write(data[i].data(), static_cast<std::streamsize>(end - data[i].begin()));
        if (out) written.push_back(file.filename().string());
      }
    }
  } catch (const Error& e) {
    std::cerr << "tileskip: vulkan pipeline " << kernel << " (" << stem << "): no statistics: " << e.what() << "\n";
    return;
  }
  if (pipelineReport_.statistics) {
    std::string line = pipelineStatisticsLine(kernel, stem, constants, executables);
    if (!written.empty()) {
      line += " | internal representations:";
      for (const std::string& name : written) line += " " + name;
    }
    std::cerr << "tileskip: " << line << "\n";
  }
}

void Context::dispatch(VkCommandBuffer cmd, VkPipeline pipeline, VkDescriptorSet set, PushConstants constants,
                       std::uint64_t groupsX, std::uint64_t groupsY) const {
  vk_.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vk_.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelineLayout_, 0, 1, &set, 0, nullptr);
  bool first = true;
  for (std::uint64_t y = 0; y < groupsY; y += limits_.maxGroupCountY) {
    for (std::uint64_t x = 0; x < groupsX; x += limits_.maxGroupCountX) {
      // Chunks write disjoint parts of C, but to the validation layers they share one buffer.
      if (!first) stepBarrier(cmd);
      first = false;
      constants.groupOffsetX = static_cast<std::uint32_t>(x);
      constants.groupOffsetY = static_cast<std::uint32_t>(y);
      vk_.vkCmdPushConstants(cmd, pipelineLayout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof constants, &constants);
      vk_.vkCmdDispatch(cmd, static_cast<std::uint32_t>(std::min<std::uint64_t>(groupsX - x, limits_.maxGroupCountX)),
                        static_cast<std::uint32_t>(std::min<std::uint64_t>(groupsY - y, limits_.maxGroupCountY)), 1);
    }
  }
}

}  // namespace tileskip::vk
