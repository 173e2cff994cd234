// cl_khr_external_memory for images: a Vulkan program of its own (the test, through the Vulkan
// loader) makes an image as vkcl makes one (optimal tiling, RGBA32UI, transfer, sampled and
// storage use), exports its memory as an opaque fd and uploads texels; CL kernels read the
// imported image and write it back changed; the Vulkan side reads what they wrote.
// Each side is checked against the CPU.
#include <CL/cl_ext.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include <cstring>

#include "runtime/cl_harness.h"
#include "runtime/vulkan_peer.h"

namespace vkcl::test {
namespace {

constexpr uint32_t kWidth = 64, kHeight = 16;
constexpr VkDeviceSize kBytes = kWidth * kHeight * 16;

// The test's own Vulkan device (VulkanPeerDevice) with an exported image, a host-visible
// buffer to fill and read it through, and a queue to copy with.
class VulkanImagePeer {
 public:
  explicit VulkanImagePeer(const cl_uchar (&uuid)[CL_UUID_SIZE_KHR]) : peer_(uuid) {
    if (!peer_.ok() || !make_image() || !make_buffer()) return;
    VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    if (vkCreateCommandPool(peer_.device(), &pool, nullptr, &pool_) != VK_SUCCESS) return;
    fd_ = peer_.export_fd(image_memory_);
  }
  ~VulkanImagePeer() {
    if (fd_ >= 0) close(fd_);
    VkDevice d = peer_.device();
    if (!d) return;
    vkDeviceWaitIdle(d);
    if (pool_) vkDestroyCommandPool(d, pool_, nullptr);
    if (image_) vkDestroyImage(d, image_, nullptr);
    if (buffer_) vkDestroyBuffer(d, buffer_, nullptr);
    if (image_memory_) vkFreeMemory(d, image_memory_, nullptr);
    if (buffer_memory_) vkFreeMemory(d, buffer_memory_, nullptr);
  }
  VulkanImagePeer(const VulkanImagePeer&) = delete;
  VulkanImagePeer& operator=(const VulkanImagePeer&) = delete;

  int fd() const { return fd_; }
  uint32_t* texels() const { return static_cast<uint32_t*>(mapped_); }
  // The buffer's texels into the image, which then goes to the external queue family in
  // VK_IMAGE_LAYOUT_GENERAL (the first time from UNDEFINED).
  bool upload() {
    return submit([&](VkCommandBuffer cb) {
      barrier(cb, first_ ? VK_IMAGE_LAYOUT_UNDEFINED : VK_IMAGE_LAYOUT_GENERAL, 0, 0, VK_ACCESS_TRANSFER_WRITE_BIT);
      first_ = false;
      VkBufferImageCopy copy = whole();
      vkCmdCopyBufferToImage(cb, buffer_, image_, VK_IMAGE_LAYOUT_GENERAL, 1, &copy);
      barrier(cb, VK_IMAGE_LAYOUT_GENERAL, 1, VK_ACCESS_TRANSFER_WRITE_BIT, 0);
    });
  }
  // The image (acquired back from the external queue family) into the buffer.
  bool download() {
    return submit([&](VkCommandBuffer cb) {
      barrier(cb, VK_IMAGE_LAYOUT_GENERAL, 2, 0, VK_ACCESS_TRANSFER_READ_BIT);
      VkBufferImageCopy copy = whole();
      vkCmdCopyImageToBuffer(cb, image_, VK_IMAGE_LAYOUT_GENERAL, buffer_, 1, &copy);
    });
  }

 private:
  bool make_image() {
    VkExternalMemoryImageCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO};
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, &external};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = VK_FORMAT_R32G32B32A32_UINT;
    info.extent = {kWidth, kHeight, 1};
    info.mipLevels = info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                 VK_IMAGE_USAGE_STORAGE_BIT;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    if (vkCreateImage(peer_.device(), &info, nullptr, &image_) != VK_SUCCESS) return false;
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(peer_.device(), image_, &req);
    VkExportMemoryAllocateInfo exported{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    exported.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &exported};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = peer_.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (alloc.memoryTypeIndex == UINT32_MAX) alloc.memoryTypeIndex = peer_.memory_type(req.memoryTypeBits, 0);
    return vkAllocateMemory(peer_.device(), &alloc, nullptr, &image_memory_) == VK_SUCCESS &&
           vkBindImageMemory(peer_.device(), image_, image_memory_, 0) == VK_SUCCESS;
  }
  bool make_buffer() {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = kBytes;
    info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (vkCreateBuffer(peer_.device(), &info, nullptr, &buffer_) != VK_SUCCESS) return false;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(peer_.device(), buffer_, &req);
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = peer_.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                                VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    return alloc.memoryTypeIndex != UINT32_MAX && vkAllocateMemory(peer_.device(), &alloc, nullptr, &buffer_memory_) == VK_SUCCESS &&
           vkBindBufferMemory(peer_.device(), buffer_, buffer_memory_, 0) == VK_SUCCESS &&
           vkMapMemory(peer_.device(), buffer_memory_, 0, VK_WHOLE_SIZE, 0, &mapped_) == VK_SUCCESS;
  }
  static VkBufferImageCopy whole() {
    VkBufferImageCopy copy{};
    copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    copy.imageExtent = {kWidth, kHeight, 1};
    return copy;
  }
  // |handover|: 0 none, 1 release to the external family, 2 acquire from it.
  void barrier(VkCommandBuffer cb, VkImageLayout from, int handover, VkAccessFlags src, VkAccessFlags dst) const {
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = src;
    b.dstAccessMask = dst;
    b.oldLayout = from;
    b.newLayout = VK_IMAGE_LAYOUT_GENERAL;
    b.srcQueueFamilyIndex = handover == 2 ? VK_QUEUE_FAMILY_EXTERNAL : handover == 1 ? 0 : VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = handover == 1 ? VK_QUEUE_FAMILY_EXTERNAL : handover == 2 ? 0 : VK_QUEUE_FAMILY_IGNORED;
    b.image = image_;
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, nullptr, 0,
                         nullptr, 1, &b);
  }
  template <typename Record>
  bool submit(Record record) {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool_;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cb;
    if (vkAllocateCommandBuffers(peer_.device(), &alloc, &cb) != VK_SUCCESS) return false;
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(cb, &begin);
    record(cb);
    vkEndCommandBuffer(cb);
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cb;
    bool ok = vkQueueSubmit(peer_.queue(), 1, &submit, VK_NULL_HANDLE) == VK_SUCCESS && vkQueueWaitIdle(peer_.queue()) == VK_SUCCESS;
    vkFreeCommandBuffers(peer_.device(), pool_, 1, &cb);
    return ok;
  }

  VulkanPeerDevice peer_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkImage image_ = VK_NULL_HANDLE;
  VkDeviceMemory image_memory_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory buffer_memory_ = VK_NULL_HANDLE;
  void* mapped_ = nullptr;
  int fd_ = -1;
  bool first_ = true;
};

class ExternalImage : public ExternalMemoryTest {
 protected:
  void SetUp() override {
    ExternalMemoryTest::SetUp();
    if (HasFatalFailure() || IsSkipped()) return;
    cl_bool images = CL_FALSE;
    clGetDeviceInfo(device_, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
    if (!images) GTEST_SKIP() << "no images";
  }
  cl_mem import(int fd, cl_mem_flags flags, void* host, cl_int* err, cl_mem buffer = nullptr) {
    const cl_mem_properties props[] = {CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR, cl_mem_properties(fd), 0};
    cl_image_format format{CL_RGBA, CL_UNSIGNED_INT32};
    cl_image_desc desc{};
    desc.image_type = buffer ? CL_MEM_OBJECT_IMAGE1D_BUFFER : CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = kWidth;
    desc.image_height = buffer ? 0 : kHeight;
    desc.mem_object = buffer;
    return clCreateImageWithProperties(context_, props, flags, &format, &desc, host, err);
  }
};

TEST_P(ExternalImage, AKernelReadsAndWritesAnImageAVulkanProgramExported) {
  VulkanImagePeer peer(uuid_);
  ASSERT_GE(peer.fd(), 0) << "the test's Vulkan device could not export an image";
  const size_t n = kWidth * kHeight * 4;
  for (size_t i = 0; i < n; ++i) peer.texels()[i] = uint32_t(i * 3 + 1);
  ASSERT_TRUE(peer.upload());
  cl_int err = CL_SUCCESS;
  Mem image(import(peer.fd(), CL_MEM_READ_WRITE, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  // The imported image read into one of CL's own, then written from it.
  Program p = build(R"(
    __kernel void step(__read_only image2d_t from, __write_only image2d_t to, uint add) {
      int2 at = (int2)(get_global_id(0), get_global_id(1));
      write_imageui(to, at, read_imageui(from, at) * 2u + add);
    })");
  cl_image_format format{CL_RGBA, CL_UNSIGNED_INT32};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = kWidth;
  desc.image_height = kHeight;
  Mem own(clCreateImage(context_, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Kernel in = kernel(p, "step"), out = kernel(p, "step");
  set_mem_arg(in, 0, image);
  set_mem_arg(in, 1, own);
  set_arg(in, 2, 5u);
  set_mem_arg(out, 0, own);
  set_mem_arg(out, 1, image);
  set_arg(out, 2, 0u);
  cl_mem m = image.get();
  const size_t global[2] = {kWidth, kHeight};
  ASSERT_EQ(CL_SUCCESS, acquire_(queue_, 1, &m, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, in, 2, nullptr, global, nullptr, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, out, 2, nullptr, global, nullptr, 0, nullptr, nullptr));
  // CL reads what its kernel wrote...
  const size_t origin[3] = {0, 0, 0}, region[3] = {kWidth, kHeight, 1};
  std::vector<uint32_t> got(n);
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, image, CL_TRUE, origin, region, 0, 0, got.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ((uint32_t(i * 3 + 1) * 2 + 5) * 2, got[i]) << i;
  ASSERT_EQ(CL_SUCCESS, release_(queue_, 1, &m, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
  // ...and so does the Vulkan side, in its own image.
  std::memset(peer.texels(), 0, kBytes);
  ASSERT_TRUE(peer.download());
  for (size_t i = 0; i < n; ++i) ASSERT_EQ((uint32_t(i * 3 + 1) * 2 + 5) * 2, peer.texels()[i]) << i;
  // Its properties come back as given.
  cl_mem_properties props[3] = {};
  EXPECT_EQ(CL_SUCCESS, clGetMemObjectInfo(image, CL_MEM_PROPERTIES, sizeof props, props, nullptr));
  EXPECT_EQ(cl_mem_properties(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR), props[0]);
  EXPECT_EQ(cl_mem_properties(peer.fd()), props[1]);
}

TEST_P(ExternalImage, ErrorCodes) {
  VulkanImagePeer peer(uuid_);
  ASSERT_GE(peer.fd(), 0);
  cl_int err = CL_SUCCESS;
  // A host pointer, memory of a buffer, not a memory fd, a dma-buf handle for an image.
  std::vector<uint32_t> host(kWidth * kHeight * 4);
  EXPECT_EQ(nullptr, import(peer.fd(), CL_MEM_COPY_HOST_PTR, host.data(), &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  Mem b = buffer(kBytes);
  EXPECT_EQ(nullptr, import(peer.fd(), 0, nullptr, &err, b.get()));
  EXPECT_EQ(CL_INVALID_IMAGE_DESCRIPTOR, err);
  int pipe_fds[2];
  ASSERT_EQ(0, pipe(pipe_fds));
  EXPECT_EQ(nullptr, import(pipe_fds[0], 0, nullptr, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  const cl_mem_properties dma_buf[] = {CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR, cl_mem_properties(peer.fd()), 0};
  cl_image_format format{CL_RGBA, CL_UNSIGNED_INT32};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = kWidth;
  desc.image_height = kHeight;
  EXPECT_EQ(nullptr, clCreateImageWithProperties(context_, dma_buf, 0, &format, &desc, nullptr, &err));
  EXPECT_EQ(CL_INVALID_PROPERTY, err);
}

INSTANTIATE_TEST_SUITE_P(Options, ExternalImage, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
