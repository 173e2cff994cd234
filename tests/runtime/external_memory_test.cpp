// cl_khr_external_memory: a Vulkan program of its own (the test, through the Vulkan loader)
// allocates memory, exports it as an opaque fd, and a CL kernel reads and writes it as a
// buffer; each side checks what the other wrote against the CPU.
#include <CL/cl_ext.h>
#include <sys/mman.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include <cstring>

#include "runtime/cl_harness.h"
#include "runtime/vulkan_peer.h"

namespace vkcl::test {
namespace {

// The test's own Vulkan device (VulkanPeerDevice) with a host-visible buffer whose memory it
// exports.
class VulkanPeer {
 public:
  VulkanPeer(const cl_uchar (&uuid)[CL_UUID_SIZE_KHR], VkDeviceSize size) : peer_(uuid) {
    if (!peer_.ok()) return;
    VkDevice d = peer_.device();
    VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkBufferCreateInfo buffer{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &external};
    buffer.size = size;
    buffer.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    if (vkCreateBuffer(d, &buffer, nullptr, &buffer_) != VK_SUCCESS) return;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(d, buffer_, &req);
    VkExportMemoryAllocateInfo exported{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    exported.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &exported};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = peer_.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (alloc.memoryTypeIndex == UINT32_MAX) return;
    if (vkAllocateMemory(d, &alloc, nullptr, &memory_) != VK_SUCCESS) return;
    if (vkBindBufferMemory(d, buffer_, memory_, 0) != VK_SUCCESS) return;
    if (vkMapMemory(d, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_) != VK_SUCCESS) return;
    fd_ = peer_.export_fd(memory_);
  }
  ~VulkanPeer() {
    if (fd_ >= 0) close(fd_);
    if (buffer_) vkDestroyBuffer(peer_.device(), buffer_, nullptr);
    if (memory_) vkFreeMemory(peer_.device(), memory_, nullptr);
  }
  VulkanPeer(const VulkanPeer&) = delete;
  VulkanPeer& operator=(const VulkanPeer&) = delete;

  int fd() const { return fd_; }
  float* data() const { return static_cast<float*>(mapped_); }

 private:
  VulkanPeerDevice peer_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  void* mapped_ = nullptr;
  int fd_ = -1;
};

class ExternalMemory : public ExternalMemoryTest {
 protected:
  cl_mem import(int fd, size_t size, cl_int* err) {
    const cl_mem_properties props[] = {CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR, cl_mem_properties(fd), 0};
    return clCreateBufferWithProperties(context_, props, CL_MEM_READ_WRITE, size, nullptr, err);
  }
};

TEST_P(ExternalMemory, AKernelReadsAndWritesMemoryAVulkanProgramExported) {
  constexpr size_t n = 4096;
  VulkanPeer peer(uuid_, n * sizeof(float));
  ASSERT_GE(peer.fd(), 0) << "the test's Vulkan device could not export memory";
  for (size_t i = 0; i < n; ++i) peer.data()[i] = float(i) * 0.25f;
  cl_int err;
  Mem shared(import(peer.fd(), n * sizeof(float), &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Program p = build(R"(
    __kernel void twice(__global float* a) { size_t i = get_global_id(0); a[i] = a[i] * 2.0f + 1.0f; })");
  Kernel k = kernel(p, "twice");
  set_mem_arg(k, 0, shared);
  cl_mem m = shared.get();
  cl_event acquired = nullptr, released = nullptr;
  ASSERT_EQ(CL_SUCCESS, acquire_(queue_, 1, &m, 0, nullptr, &acquired));
  Event a(acquired);
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, release_(queue_, 1, &m, 0, nullptr, &released));
  Event r(released);
  ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &released));
  cl_command_type type = 0;
  clGetEventInfo(acquired, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr);
  EXPECT_EQ(cl_command_type(CL_COMMAND_ACQUIRE_EXTERNAL_MEM_OBJECTS_KHR), type);
  clGetEventInfo(released, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr);
  EXPECT_EQ(cl_command_type(CL_COMMAND_RELEASE_EXTERNAL_MEM_OBJECTS_KHR), type);
  // The Vulkan side sees the kernel's writes in its own mapping...
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(float(i) * 0.25f * 2.0f + 1.0f, peer.data()[i]) << i;
  // ...and CL sees the Vulkan side's.
  for (size_t i = 0; i < n; ++i) peer.data()[i] = -float(i);
  std::vector<float> got = read<float>(shared, n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(-float(i), got[i]) << i;
  // The properties come back as given.
  cl_mem_properties props[3] = {};
  size_t size = 0;
  EXPECT_EQ(CL_SUCCESS, clGetMemObjectInfo(shared, CL_MEM_PROPERTIES, sizeof props, props, &size));
  EXPECT_EQ(sizeof props, size);
  EXPECT_EQ(cl_mem_properties(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR), props[0]);
  EXPECT_EQ(cl_mem_properties(peer.fd()), props[1]);
}

TEST_P(ExternalMemory, ErrorCodes) {
  constexpr size_t n = 256;
  VulkanPeer peer(uuid_, n * sizeof(float));
  ASSERT_GE(peer.fd(), 0);
  cl_int err;
  // Not a memory fd (a pipe), a negative fd, two handles, an unknown property, a host pointer.
  int pipe_fds[2];
  ASSERT_EQ(0, pipe(pipe_fds));
  EXPECT_EQ(nullptr, import(pipe_fds[0], n * 4, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  // Memory shorter than the buffer (a 16-byte memfd for 1 KiB).
  int small = memfd_create("small", 0);
  ASSERT_GE(small, 0);
  ASSERT_EQ(0, ftruncate(small, 16));
  EXPECT_EQ(nullptr, import(small, n * 4, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  close(small);
  const cl_mem_properties negative[] = {CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR, cl_mem_properties(-1), 0};
  EXPECT_EQ(nullptr, clCreateBufferWithProperties(context_, negative, 0, n * 4, nullptr, &err));
  EXPECT_EQ(CL_INVALID_PROPERTY, err);
  const cl_mem_properties twice[] = {CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR, cl_mem_properties(peer.fd()),
                                     CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR, cl_mem_properties(peer.fd()), 0};
  EXPECT_EQ(nullptr, clCreateBufferWithProperties(context_, twice, 0, n * 4, nullptr, &err));
  EXPECT_EQ(CL_INVALID_PROPERTY, err);
  const cl_mem_properties unknown[] = {0x7777, 1, 0};
  EXPECT_EQ(nullptr, clCreateBufferWithProperties(context_, unknown, 0, n * 4, nullptr, &err));
  EXPECT_EQ(CL_INVALID_PROPERTY, err);
  const cl_mem_properties handle[] = {CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR, cl_mem_properties(peer.fd()), 0};
  std::vector<float> host(n);
  EXPECT_EQ(nullptr, clCreateBufferWithProperties(context_, handle, CL_MEM_USE_HOST_PTR, n * 4, host.data(), &err));
  EXPECT_NE(CL_SUCCESS, err);
  // A device list naming a device of the context is fine; one that is not, is not.
  cl_device_id other = reinterpret_cast<cl_device_id>(&err);
  const cl_mem_properties bad_list[] = {CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR, cl_mem_properties(peer.fd()),
                                        CL_DEVICE_HANDLE_LIST_KHR, cl_mem_properties(other),
                                        CL_DEVICE_HANDLE_LIST_END_KHR, 0};
  EXPECT_EQ(nullptr, clCreateBufferWithProperties(context_, bad_list, 0, n * 4, nullptr, &err));
  EXPECT_EQ(CL_INVALID_DEVICE, err);
  const cl_mem_properties good_list[] = {CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR, cl_mem_properties(peer.fd()),
                                         CL_DEVICE_HANDLE_LIST_KHR, cl_mem_properties(device_),
                                         CL_DEVICE_HANDLE_LIST_END_KHR, 0};
  Mem listed(clCreateBufferWithProperties(context_, good_list, 0, n * 4, nullptr, &err));
  EXPECT_EQ(CL_SUCCESS, err);
  // Acquire and release take external memory objects only.
  Mem own = buffer(64);
  cl_mem m = own.get();
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, acquire_(queue_, 1, &m, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, release_(queue_, 1, &m, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, acquire_(queue_, 1, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, acquire_(queue_, 0, &m, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, acquire_(nullptr, 0, nullptr, 0, nullptr, nullptr));
  cl_mem l = listed.get();
  EXPECT_EQ(CL_INVALID_EVENT_WAIT_LIST, acquire_(queue_, 1, &l, 1, nullptr, nullptr));
  EXPECT_EQ(CL_SUCCESS, acquire_(queue_, 1, &l, 0, nullptr, nullptr));
  EXPECT_EQ(CL_SUCCESS, release_(queue_, 1, &l, 0, nullptr, nullptr));
  EXPECT_EQ(CL_SUCCESS, clFinish(queue_));
  // The device and the platform name the handle type.
  cl_external_memory_handle_type_khr types[4] = {};
  size_t got = 0;
  EXPECT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR, sizeof types,
                                        types, &got));
  EXPECT_EQ(cl_external_memory_handle_type_khr(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR), types[0]);
  EXPECT_EQ(CL_SUCCESS, clGetPlatformInfo(platform_, CL_PLATFORM_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR,
                                          sizeof types, types, &got));
  EXPECT_LE(sizeof(cl_external_memory_handle_type_khr), got);
}

INSTANTIATE_TEST_SUITE_P(Options, ExternalMemory, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
