#include "runtime/vulkan_peer.h"

#include <cstring>
#include <string>
#include <vector>

namespace vkcl::test {

VulkanPeerDevice::VulkanPeerDevice(const cl_uchar (&uuid)[CL_UUID_SIZE_KHR]) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  if (vkCreateInstance(&info, nullptr, &instance_) != VK_SUCCESS) return;
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance_, &count, nullptr);
  std::vector<VkPhysicalDevice> physicals(count);
  vkEnumeratePhysicalDevices(instance_, &count, physicals.data());
  for (VkPhysicalDevice p : physicals) {
    VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &id};
    vkGetPhysicalDeviceProperties2(p, &props);
    if (std::memcmp(id.deviceUUID, uuid, VK_UUID_SIZE) == 0) physical_ = p;
  }
  if (!physical_) return;
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  const char* extensions[] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME};
  VkDeviceCreateInfo device{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device.queueCreateInfoCount = 1;
  device.pQueueCreateInfos = &queue;
  device.enabledExtensionCount = 1;
  device.ppEnabledExtensionNames = extensions;
  if (vkCreateDevice(physical_, &device, nullptr, &device_) != VK_SUCCESS) return;
  vkGetDeviceQueue(device_, 0, 0, &queue_);
}

VulkanPeerDevice::~VulkanPeerDevice() {
  if (device_) vkDestroyDevice(device_, nullptr);
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

uint32_t VulkanPeerDevice::memory_type(uint32_t bits, VkMemoryPropertyFlags wanted) const {
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory);
  for (uint32_t t = 0; t < memory.memoryTypeCount; ++t)
    if ((bits & (1u << t)) && (memory.memoryTypes[t].propertyFlags & wanted) == wanted) return t;
  return UINT32_MAX;
}

int VulkanPeerDevice::export_fd(VkDeviceMemory memory) const {
  auto get_fd = reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(device_, "vkGetMemoryFdKHR"));
  VkMemoryGetFdInfoKHR get{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
  get.memory = memory;
  get.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  if (!get_fd || get_fd(device_, &get, &fd) != VK_SUCCESS) return -1;
  return fd;
}

void ExternalMemoryTest::SetUp() {
  KernelTest::SetUp();
  if (HasFatalFailure()) return;
  size_t size = 0;
  clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, 0, nullptr, &size);
  std::string extensions(size, '\0');
  clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr);
  if (extensions.find("cl_khr_external_memory_opaque_fd") == std::string::npos)
    GTEST_SKIP() << "the device does not import opaque fds";
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_UUID_KHR, sizeof uuid_, uuid_, nullptr));
  acquire_ = reinterpret_cast<clEnqueueAcquireExternalMemObjectsKHR_fn>(
      clGetExtensionFunctionAddressForPlatform(platform_, "clEnqueueAcquireExternalMemObjectsKHR"));
  release_ = reinterpret_cast<clEnqueueReleaseExternalMemObjectsKHR_fn>(
      clGetExtensionFunctionAddressForPlatform(platform_, "clEnqueueReleaseExternalMemObjectsKHR"));
  ASSERT_NE(nullptr, acquire_);
  ASSERT_NE(nullptr, release_);
}

}  // namespace vkcl::test
