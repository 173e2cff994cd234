// The test's own Vulkan device, as a program sharing memory with vkcl has one: an instance
// through the Vulkan loader and a device (with VK_KHR_external_memory_fd and one queue) on
// the physical device whose UUID is the CL device's. ok() is false where there is none.
#pragma once

#include <CL/cl_ext.h>
#include <vulkan/vulkan.h>

#include "runtime/cl_harness.h"

namespace vkcl::test {

class VulkanPeerDevice {
 public:
  explicit VulkanPeerDevice(const cl_uchar (&uuid)[CL_UUID_SIZE_KHR]);
  ~VulkanPeerDevice();
  VulkanPeerDevice(const VulkanPeerDevice&) = delete;
  VulkanPeerDevice& operator=(const VulkanPeerDevice&) = delete;

  bool ok() const { return device_ != VK_NULL_HANDLE; }
  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  // A memory type of |bits| with every flag of |wanted|, or UINT32_MAX.
  uint32_t memory_type(uint32_t bits, VkMemoryPropertyFlags wanted) const;
  // |memory| (allocated exportable) as an opaque fd the caller owns, or -1.
  int export_fd(VkDeviceMemory memory) const;

 private:
  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
};

// Tests of cl_khr_external_memory with opaque fds: skipped where the device imports none;
// the device's UUID (for VulkanPeerDevice) and the acquire and release entry points.
class ExternalMemoryTest : public KernelTest {
 protected:
  void SetUp() override;

  cl_uchar uuid_[CL_UUID_SIZE_KHR] = {};
  clEnqueueAcquireExternalMemObjectsKHR_fn acquire_ = nullptr;
  clEnqueueReleaseExternalMemObjectsKHR_fn release_ = nullptr;
};

}  // namespace vkcl::test
