#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::vk {

namespace {

std::atomic<uint64_t> g_validation_messages{0};

// vkcl keeps images in VK_IMAGE_LAYOUT_GENERAL for their whole life (image.h): kernels use
// them as storage images, which need GENERAL, and a transition around every copy would cost
// two barriers for what lavapipe and most GPUs do as fast in GENERAL. The layers' hint that a
// copy would be faster in TRANSFER_*_OPTIMAL is that design choice, not a fault.
bool expected_performance_hint(VkDebugUtilsMessageTypeFlagsEXT type,
                               const VkDebugUtilsMessengerCallbackDataEXT* data) {
  return (type & VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT) && data->pMessageIdName &&
         std::strcmp(data->pMessageIdName, "UNASSIGNED-CoreValidation-DrawState-InvalidImageLayout") == 0;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT type,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
  if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT && !expected_performance_hint(type, data)) {
    g_validation_messages.fetch_add(1);
    std::fprintf(stderr, "vkcl: Vulkan validation: %s\n", data->pMessage);
  }
  return VK_FALSE;
}

bool has_extension(const std::vector<VkExtensionProperties>& list, const char* name) {
  for (const auto& e : list)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

// Features queried through their own structures, each only where its extension (or core
// version) is there to define it.
void describe_extension_features(VkPhysicalDevice physical,
                              const std::vector<VkExtensionProperties>& extensions,
                              DeviceInfo* info) {
  VkPhysicalDeviceZeroInitializeWorkgroupMemoryFeatures zero{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ZERO_INITIALIZE_WORKGROUP_MEMORY_FEATURES};
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT float_add{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
  VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT float_min_max{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_2_FEATURES_EXT};
  VkPhysicalDeviceShaderClockFeaturesKHR clock{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
  VkPhysicalDeviceImageRobustnessFeatures image_robustness{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_ROBUSTNESS_FEATURES};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  auto chain = [&](auto* s) {
    s->pNext = features.pNext;
    features.pNext = s;
  };
  bool has_zero = info->properties.apiVersion >= VK_API_VERSION_1_3 ||
                  has_extension(extensions, VK_KHR_ZERO_INITIALIZE_WORKGROUP_MEMORY_EXTENSION_NAME);
  bool has_float = has_extension(extensions, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  bool has_float2 = has_extension(extensions, VK_EXT_SHADER_ATOMIC_FLOAT_2_EXTENSION_NAME);
  if (has_zero) chain(&zero);
  if (has_float) chain(&float_add);
  if (has_float2) chain(&float_min_max);
  bool has_clock = has_extension(extensions, VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
  if (has_clock) chain(&clock);
  bool has_image_robustness = info->properties.apiVersion >= VK_API_VERSION_1_3 ||
                              has_extension(extensions, VK_EXT_IMAGE_ROBUSTNESS_EXTENSION_NAME);
  if (has_image_robustness) chain(&image_robustness);
  if (!features.pNext || info->properties.apiVersion < VK_API_VERSION_1_2) return;
  vkGetPhysicalDeviceFeatures2(physical, &features);
  info->zero_initialize_workgroup_memory = has_zero && zero.shaderZeroInitializeWorkgroupMemory;
  info->float32_atomic_add_buffer = has_float && float_add.shaderBufferFloat32AtomicAdd;
  info->float32_atomic_add_shared = has_float && float_add.shaderSharedFloat32AtomicAdd;
  info->float32_atomic_min_max_buffer = has_float2 && float_min_max.shaderBufferFloat32AtomicMinMax;
  info->float32_atomic_min_max_shared = has_float2 && float_min_max.shaderSharedFloat32AtomicMinMax;
  info->zero_initialize_needs_extension = info->properties.apiVersion < VK_API_VERSION_1_3;
  info->shader_device_clock = has_clock && clock.shaderDeviceClock;
  info->shader_subgroup_clock = has_clock && clock.shaderSubgroupClock;
  info->robust_image_access = has_image_robustness && image_robustness.robustImageAccess;
  info->image_robustness_needs_extension = info->properties.apiVersion < VK_API_VERSION_1_3;
}

// The number of cores (SMs, compute units, shader cores) where a vendor extension tells it,
// else 0. Properties structures need no enabled extension, only a listed one.
uint32_t core_count(VkPhysicalDevice physical, const std::vector<VkExtensionProperties>& extensions) {
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV nv{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  VkPhysicalDeviceShaderCorePropertiesAMD amd{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD};
  VkPhysicalDeviceShaderCoreBuiltinsPropertiesARM arm{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_BUILTINS_PROPERTIES_ARM};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  if (has_extension(extensions, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME)) props.pNext = &nv;
  else if (has_extension(extensions, VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME)) props.pNext = &amd;
  else if (has_extension(extensions, VK_ARM_SHADER_CORE_BUILTINS_EXTENSION_NAME)) props.pNext = &arm;
  else return 0;
  vkGetPhysicalDeviceProperties2(physical, &props);
  if (props.pNext == &nv) return nv.shaderSMCount;
  if (props.pNext == &amd)
    return amd.shaderEngineCount * amd.shaderArraysPerEngineCount * amd.computeUnitsPerShaderArray;
  return arm.shaderCoreCount;
}

// Whether the device's timestamps and CLOCK_MONOTONIC can be read together
// (VK_EXT_calibrated_timestamps), which puts profiling times on the host's clock.
bool calibrateable(VkPhysicalDevice physical, const std::vector<VkExtensionProperties>& extensions) {
  if (!has_extension(extensions, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME) ||
      !vkGetPhysicalDeviceCalibrateableTimeDomainsEXT)
    return false;
  uint32_t count = 0;
  vkGetPhysicalDeviceCalibrateableTimeDomainsEXT(physical, &count, nullptr);
  std::vector<VkTimeDomainEXT> domains(count);
  vkGetPhysicalDeviceCalibrateableTimeDomainsEXT(physical, &count, domains.data());
  auto has = [&](VkTimeDomainEXT d) { return std::find(domains.begin(), domains.end(), d) != domains.end(); };
  return has(VK_TIME_DOMAIN_DEVICE_EXT) && has(VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT);
}

// VKCL_WITHOUT_FEATURES=int8,int16,storage8,storage16,float16: the device is described, and
// later created, as if it lacked these features, so the emulation a smaller device needs runs
// (and is tested) on any driver.
void hide_features(DeviceInfo* info) {
  const char* list = std::getenv("VKCL_WITHOUT_FEATURES");
  if (!list) return;
  std::string names = std::string(",") + list + ",";
  auto hidden = [&](const char* name) { return names.find(std::string(",") + name + ",") != std::string::npos; };
  if (hidden("int8")) info->shader_int8 = false;
  if (hidden("int16")) info->features.shaderInt16 = false;
  if (hidden("storage8")) info->storage_buffer_8bit = false;
  if (hidden("storage16")) info->storage_buffer_16bit = false;
  if (hidden("float16")) info->shader_float16 = false;
  if (hidden("push_descriptor")) info->push_descriptor = false;
}

// The fd handle types whose memory the driver imports for buffers like vkcl's.
VkExternalMemoryHandleTypeFlags importable_buffer_handles(VkPhysicalDevice physical, const DeviceInfo& info) {
  VkExternalMemoryHandleTypeFlags importable = 0;
  std::vector<VkExternalMemoryHandleTypeFlagBits> types;
  if (info.external_memory_fd) types.push_back(VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
  if (info.external_memory_dma_buf) types.push_back(VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT);
  for (VkExternalMemoryHandleTypeFlagBits type : types) {
    VkPhysicalDeviceExternalBufferInfo query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
    query.usage = buffer_usage();
    query.handleType = type;
    VkExternalBufferProperties properties{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    vkGetPhysicalDeviceExternalBufferProperties(physical, &query, &properties);
    if (properties.externalMemoryProperties.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT)
      importable |= type;
  }
  return importable;
}

DeviceInfo describe(VkPhysicalDevice physical) {
  DeviceInfo info;
  info.physical = physical;
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, extensions.data());
  info.external_memory_host = has_extension(extensions, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
  info.push_descriptor = has_extension(extensions, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  info.memory_budget = has_extension(extensions, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  info.external_memory_fd = has_extension(extensions, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
  info.external_memory_dma_buf =
      info.external_memory_fd && has_extension(extensions, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME);
  info.importable_buffer_handles = importable_buffer_handles(physical, info);

  VkPhysicalDeviceExternalMemoryHostPropertiesEXT host_props{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
  VkPhysicalDeviceMaintenance3Properties maintenance3{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  info.driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
  info.subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  info.driver.pNext = &info.subgroup;
  info.float_controls.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES;
  info.subgroup.pNext = &info.float_controls;
  info.float_controls.pNext = &maintenance3;
  info.id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
  maintenance3.pNext = &info.id;
  if (info.external_memory_host) info.id.pNext = &host_props;
  VkPhysicalDevicePCIBusInfoPropertiesEXT pci{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT};
  if (has_extension(extensions, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME)) {
    pci.pNext = maintenance3.pNext;
    maintenance3.pNext = &pci;
  }
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &info.driver};
  vkGetPhysicalDeviceProperties2(physical, &props);
  info.properties = props.properties;
  info.driver.pNext = nullptr;
  info.subgroup.pNext = nullptr;
  info.float_controls.pNext = nullptr;
  info.id.pNext = nullptr;
  if (has_extension(extensions, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME))
    info.pci_bus = {{pci.pciDomain, pci.pciBus, pci.pciDevice, pci.pciFunction}};
  info.max_allocation_size = maintenance3.maxMemoryAllocationSize;
  info.min_imported_host_pointer_alignment = host_props.minImportedHostPointerAlignment;

  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  f11.pNext = &f12;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f11};
  if (info.properties.apiVersion >= VK_API_VERSION_1_2) vkGetPhysicalDeviceFeatures2(physical, &features);
  else vkGetPhysicalDeviceFeatures(physical, &features.features);
  info.features = features.features;
  info.shader_int8 = f12.shaderInt8;
  info.shader_float16 = f12.shaderFloat16;
  info.storage_buffer_8bit = f12.storageBuffer8BitAccess;
  info.storage_buffer_16bit = f11.storageBuffer16BitAccess;
  info.buffer_device_address = f12.bufferDeviceAddress;
  info.timeline_semaphore = f12.timelineSemaphore;
  info.vulkan_memory_model = f12.vulkanMemoryModel && f12.vulkanMemoryModelDeviceScope;
  info.uniform_buffer_standard_layout = f12.uniformBufferStandardLayout;
  info.shader_buffer_int64_atomics = f12.shaderBufferInt64Atomics;
  info.shader_shared_int64_atomics = f12.shaderSharedInt64Atomics;
  info.subgroup_extended_types = f12.shaderSubgroupExtendedTypes;
  describe_extension_features(physical, extensions, &info);
  info.core_count = core_count(physical, extensions);
  info.calibrated_timestamps = calibrateable(physical, extensions);
  info.pipeline_statistics = std::getenv("VKCL_PIPELINE_STATS") &&
                             has_extension(extensions, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  hide_features(&info);

  vkGetPhysicalDeviceMemoryProperties(physical, &info.memory);
  // VKCL_WITHOUT_FEATURES=host_cached: no memory the host reads through its caches, as a
  // discrete GPU's device-local memory behind the PCI BAR.
  const char* hidden = std::getenv("VKCL_WITHOUT_FEATURES");
  if (hidden && std::string(",") .append(hidden).append(",").find(",host_cached,") != std::string::npos)
    for (uint32_t i = 0; i < info.memory.memoryTypeCount; ++i)
      info.memory.memoryTypes[i].propertyFlags &= ~VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  for (uint32_t i = 0; i < info.memory.memoryTypeCount; ++i) {
    VkMemoryPropertyFlags f = info.memory.memoryTypes[i].propertyFlags;
    const VkMemoryPropertyFlags unified = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if ((f & unified) == unified) info.unified_memory = true;
  }
  for (uint32_t i = 0; i < info.memory.memoryHeapCount; ++i)
    if (info.memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      info.device_local_heap_size = std::max(info.device_local_heap_size, info.memory.memoryHeaps[i].size);
  if (!info.max_allocation_size) info.max_allocation_size = info.device_local_heap_size;

  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
  int compute = -1;
  for (uint32_t i = 0; i < count; ++i) {
    bool has_compute = families[i].queueFlags & VK_QUEUE_COMPUTE_BIT;
    bool graphics = families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT;
    if (has_compute && (compute < 0 || !graphics)) {
      // A compute-only family is preferred only if it has timestamps too.
      if (compute >= 0 && families[i].timestampValidBits == 0) continue;
      compute = int(i);
    }
  }
  if (compute >= 0) {
    info.compute_queue_family = uint32_t(compute);
    info.compute_queue_count = families[compute].queueCount;
    info.timestamp_valid_bits = families[compute].timestampValidBits;
  }
  info.usable = compute >= 0 && info.buffer_device_address && info.timeline_semaphore &&
                info.features.shaderInt64 && info.properties.apiVersion >= VK_API_VERSION_1_2;
  return info;
}

}  // namespace

uint64_t Instance::validation_message_count() { return g_validation_messages.load(); }

Instance* Instance::get() {
  static std::once_flag once;
  static Instance* instance = nullptr;
  std::call_once(once, [] {
    if (volkInitialize() != VK_SUCCESS) return;
    auto* self = new Instance();
    const char* validation = std::getenv("VKCL_VALIDATION");
    self->validation_ = validation && std::strcmp(validation, "0") != 0;

    uint32_t count = 0;
    vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
    std::vector<VkExtensionProperties> available(count);
    vkEnumerateInstanceExtensionProperties(nullptr, &count, available.data());
    std::vector<const char*> extensions;
    VkInstanceCreateFlags flags = 0;
    if (has_extension(available, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
      extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
      flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    }
    std::vector<const char*> layers;
    if (self->validation_) {
      vkEnumerateInstanceLayerProperties(&count, nullptr);
      std::vector<VkLayerProperties> layer_props(count);
      vkEnumerateInstanceLayerProperties(&count, layer_props.data());
      bool found = false;
      for (const auto& l : layer_props)
        if (std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0) found = true;
      if (found && has_extension(available, VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) {
        layers.push_back("VK_LAYER_KHRONOS_validation");
        extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
      } else {
        std::fprintf(stderr, "vkcl: VKCL_VALIDATION is set but the validation layer is missing\n");
        self->validation_ = false;
      }
    }
    uint32_t api = VK_API_VERSION_1_2;
    if (vkEnumerateInstanceVersion) {
      uint32_t loader = 0;
      vkEnumerateInstanceVersion(&loader);
      if (loader >= VK_API_VERSION_1_3) api = VK_API_VERSION_1_3;
    }
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "vkcl";
    app.pEngineName = "vkcl";
    app.apiVersion = api;
    VkInstanceCreateInfo create{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    create.flags = flags;
    create.pApplicationInfo = &app;
    create.enabledExtensionCount = uint32_t(extensions.size());
    create.ppEnabledExtensionNames = extensions.data();
    create.enabledLayerCount = uint32_t(layers.size());
    create.ppEnabledLayerNames = layers.data();
    if (vkCreateInstance(&create, nullptr, &self->instance_) != VK_SUCCESS) {
      delete self;
      return;
    }
    volkLoadInstance(self->instance_);
    if (self->validation_) {
      VkDebugUtilsMessengerCreateInfoEXT messenger{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
      messenger.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                  VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
      messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
      messenger.pfnUserCallback = on_validation_message;
      vkCreateDebugUtilsMessengerEXT(self->instance_, &messenger, nullptr, &self->messenger_);
    }
    vkEnumeratePhysicalDevices(self->instance_, &count, nullptr);
    std::vector<VkPhysicalDevice> physical(count);
    vkEnumeratePhysicalDevices(self->instance_, &count, physical.data());
    for (VkPhysicalDevice p : physical) self->devices_.push_back(describe(p));
    instance = self;
  });
  return instance;
}

// The instance lives for the whole process: ICDs are never unloaded while objects may exist.
Instance::~Instance() = default;

const char* result_name(VkResult result) {
  switch (result) {
#define NAME(r) case r: return #r;
    NAME(VK_SUCCESS) NAME(VK_NOT_READY) NAME(VK_TIMEOUT) NAME(VK_INCOMPLETE)
    NAME(VK_ERROR_OUT_OF_HOST_MEMORY) NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    NAME(VK_ERROR_INITIALIZATION_FAILED) NAME(VK_ERROR_DEVICE_LOST)
    NAME(VK_ERROR_MEMORY_MAP_FAILED) NAME(VK_ERROR_LAYER_NOT_PRESENT)
    NAME(VK_ERROR_EXTENSION_NOT_PRESENT) NAME(VK_ERROR_FEATURE_NOT_PRESENT)
    NAME(VK_ERROR_INCOMPATIBLE_DRIVER) NAME(VK_ERROR_TOO_MANY_OBJECTS)
    NAME(VK_ERROR_FORMAT_NOT_SUPPORTED) NAME(VK_ERROR_FRAGMENTED_POOL) NAME(VK_ERROR_UNKNOWN)
    NAME(VK_ERROR_INVALID_EXTERNAL_HANDLE) NAME(VK_ERROR_INVALID_SHADER_NV)
#undef NAME
    default: return "VK_ERROR_(unknown)";
  }
}

}  // namespace vkcl::vk
