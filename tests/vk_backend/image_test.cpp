// vk_backend images on the real Vulkan driver: format queries, creation of every image type,
// and texels through buffer -> image -> image -> buffer copies, checked on the host.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "vkcl/vk_backend/image.h"

namespace vkcl::vk {
namespace {

class BackendImage : public ::testing::Test {
 protected:
  void SetUp() override {
    Instance* instance = Instance::get();
    ASSERT_NE(instance, nullptr) << "no Vulkan";
    for (const auto& d : instance->devices())
      if (d.usable) {
        ASSERT_EQ(VK_SUCCESS, Device::create(d, &device_));
        break;
      }
    ASSERT_TRUE(device_) << "no usable Vulkan device";
    ASSERT_EQ(VK_SUCCESS, CommandStream::create(device_, &stream_));
  }
  void TearDown() override { EXPECT_EQ(Instance::validation_message_count(), 0u); }
  void run() {
    uint64_t point = 0;
    ASSERT_EQ(VK_SUCCESS, stream_->submit({}, &point));
    ASSERT_EQ(VK_SUCCESS, stream_->wait(point));
  }

  std::shared_ptr<Device> device_;
  std::unique_ptr<CommandStream> stream_;
};

TEST_F(BackendImage, FormatSupport) {
  // Vulkan's required formats: R8G8B8A8_UNORM is sampled, filtered, stored and copied.
  FormatSupport rgba8 = format_support(device_->info(), VK_FORMAT_R8G8B8A8_UNORM);
  EXPECT_TRUE(rgba8.transfer);
  EXPECT_TRUE(rgba8.sampled);
  EXPECT_TRUE(rgba8.linear_filter);
  EXPECT_TRUE(rgba8.storage);
  EXPECT_TRUE(rgba8.uniform_texel_buffer);
  // Integer formats are never filtered.
  EXPECT_FALSE(format_support(device_->info(), VK_FORMAT_R32_UINT).linear_filter);
  VkImageFormatProperties limits;
  ASSERT_TRUE(image_limits(device_->info(), VK_FORMAT_R8G8B8A8_UNORM, ImageType::k3D,
                           VK_IMAGE_USAGE_TRANSFER_DST_BIT, &limits));
  EXPECT_GE(limits.maxExtent.depth, 256u);
}

TEST_F(BackendImage, CreationChecksTheFormatsLimits) {
  std::unique_ptr<Image> image;
  const uint32_t too_wide = device_->info().properties.limits.maxImageDimension2D + 1;
  EXPECT_EQ(VK_ERROR_FORMAT_NOT_SUPPORTED,
            Image::create(device_, VK_FORMAT_R8G8B8A8_UNORM, ImageType::k2D, {too_wide, 1, 1}, 1, &image));
  ASSERT_EQ(VK_SUCCESS, Image::create(device_, VK_FORMAT_R8G8B8A8_UNORM, ImageType::k2DArray, {8, 4, 1}, 3, &image));
  EXPECT_EQ(3u, image->layers());
  EXPECT_TRUE(image->usage() & VK_IMAGE_USAGE_STORAGE_BIT);
}

// Rows of a 2D array go in, are copied to a 3D image (layers to slices) and come back out.
TEST_F(BackendImage, TexelsSurviveBufferAndImageCopies) {
  const uint32_t w = 13, h = 7, layers = 3;
  const VkDeviceSize bytes = VkDeviceSize(w) * h * layers * 4;
  std::unique_ptr<Buffer> in, out;
  ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, bytes, MemoryPlacement::HostVisible, &in));
  ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, bytes, MemoryPlacement::HostVisible, &out));
  std::mt19937 rng(7);
  auto* src = static_cast<uint8_t*>(in->mapped());
  for (VkDeviceSize i = 0; i < bytes; ++i) src[i] = uint8_t(rng());
  std::memset(out->mapped(), 0xAB, bytes);
  std::unique_ptr<Image> array, volume;
  ASSERT_EQ(VK_SUCCESS, Image::create(device_, VK_FORMAT_R8G8B8A8_UINT, ImageType::k2DArray, {w, h, 1}, layers, &array));
  ASSERT_EQ(VK_SUCCESS, Image::create(device_, VK_FORMAT_R8G8B8A8_UINT, ImageType::k3D, {w, h, layers}, 1, &volume));
  ImageRegion layered;
  layered.extent = {w, h, 1};
  layered.layer_count = layers;
  ImageRegion slices;
  slices.extent = {w, h, layers};
  ASSERT_EQ(VK_SUCCESS, copy_buffer_to_image(*stream_, *in, 0, 0, 0, *array, layered));
  ASSERT_EQ(VK_SUCCESS, stream_->barrier());
  ASSERT_EQ(VK_SUCCESS, copy_image(*stream_, *array, layered, *volume, slices));
  ASSERT_EQ(VK_SUCCESS, stream_->barrier());
  ASSERT_EQ(VK_SUCCESS, copy_image_to_buffer(*stream_, *volume, slices, *out, 0, 0, 0));
  run();
  EXPECT_EQ(0, std::memcmp(in->mapped(), out->mapped(), bytes));
}

// A new image is zeroed and in its layout by work on the device's setup stream, which its
// creation does not wait for: work of any other stream submitted later comes after it. Here
// the setup work waits for the host (an event), so it is still pending when another stream
// submits a copy of what it writes.
TEST_F(BackendImage, SetupWorkComesBeforeLaterBatchesOfOtherStreams) {
  std::unique_ptr<Buffer> filled, out;
  ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, 256, MemoryPlacement::HostVisible, &filled));
  ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, 256, MemoryPlacement::HostVisible, &out));
  std::memset(filled->mapped(), 0, 256);
  std::memset(out->mapped(), 0, 256);
  VkEventCreateInfo info{VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
  VkEvent event = VK_NULL_HANDLE;
  ASSERT_EQ(VK_SUCCESS, vkCreateEvent(device_->handle(), &info, nullptr, &event));
  uint64_t point = 0;
  ASSERT_EQ(VK_SUCCESS, device_->setup(
                            [&](VkCommandBuffer cb) {
                              vkCmdWaitEvents(cb, 1, &event, VK_PIPELINE_STAGE_HOST_BIT,
                                              VK_PIPELINE_STAGE_TRANSFER_BIT, 0, nullptr, 0, nullptr, 0, nullptr);
                              vkCmdFillBuffer(cb, filled->handle(), 0, 256, 0x5a5a5a5a);
                            },
                            &point));
  auto [semaphore, value] = device_->pending_setup(stream_->timeline());
  EXPECT_NE(semaphore, VK_NULL_HANDLE) << "the setup work is not done yet: batches must wait for it";
  EXPECT_EQ(value, point);
  EXPECT_EQ(device_->pending_setup(semaphore).first, VK_NULL_HANDLE) << "the setup stream waits for itself";
  VkCommandBuffer cb;
  ASSERT_EQ(VK_SUCCESS, stream_->command_buffer(&cb));
  VkBufferCopy copy{0, 0, 256};
  vkCmdCopyBuffer(cb, filled->handle(), out->handle(), 1, &copy);
  uint64_t copied = 0;
  ASSERT_EQ(VK_SUCCESS, stream_->submit({}, &copied));
  ASSERT_EQ(VK_SUCCESS, vkSetEvent(device_->handle(), event));
  ASSERT_EQ(VK_SUCCESS, stream_->wait(copied));
  const auto* bytes = static_cast<const uint8_t*>(out->mapped());
  for (int i = 0; i < 256; ++i) ASSERT_EQ(bytes[i], 0x5a) << "byte " << i;
  device_->wait_setup(point);
  EXPECT_EQ(device_->pending_setup(stream_->timeline()).first, VK_NULL_HANDLE);
  vkDestroyEvent(device_->handle(), event, nullptr);
}

// New images read as zeros, also where the driver's memory held something else before
// (lavapipe's comes from the process heap), whether or not a command used them first.
TEST_F(BackendImage, NewImagesReadAsZeros) {
  std::free(std::malloc(size_t(4) << 20));
  std::vector<void*> chunks;
  for (int i = 0; i < 8; ++i) {
    chunks.push_back(std::malloc(64 * 64 * 4 + 4096));
    std::memset(chunks.back(), 0xa5, 64 * 64 * 4 + 4096);
  }
  void* pin = std::malloc(64);
  for (void* c : chunks) std::free(c);
  const VkDeviceSize bytes = 64 * 64 * 4;
  std::vector<std::unique_ptr<Image>> images(32);
  // Half with memory of their own, half pieces of an owner's block (not zeroed by the block).
  for (size_t i = 0; i < images.size(); ++i)
    ASSERT_EQ(VK_SUCCESS, Image::create(device_, VK_FORMAT_R8G8B8A8_UINT, ImageType::k2D, {64, 64, 1}, 1,
                                        VkComponentMapping{}, &images[i], i % 2 ? 77 : 0));
  images.resize(16);  // half never used: released while their setup may still run
  std::unique_ptr<Buffer> out;
  ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, bytes * images.size(), MemoryPlacement::HostVisible, &out));
  std::memset(out->mapped(), 0xab, bytes * images.size());
  ImageRegion whole;
  whole.extent = {64, 64, 1};
  for (size_t i = 0; i < images.size(); ++i)
    ASSERT_EQ(VK_SUCCESS, copy_image_to_buffer(*stream_, *images[i], whole, *out, i * bytes, 0, 0));
  run();
  const auto* texels = static_cast<const uint8_t*>(out->mapped());
  for (VkDeviceSize i = 0; i < bytes * images.size(); ++i) ASSERT_EQ(texels[i], 0) << "byte " << i;
  images.clear();
  device_->drop_spares(77);
  std::free(pin);
}

// Small images of one owner share a few allocations (blocks.h), each with texels of its own;
// they go back to the blocks, and the blocks with their owner.
TEST_F(BackendImage, SmallImagesShareAFewAllocations) {
  const uint64_t owner = 4242;
  const size_t before = device_->allocation_count();
  const uint32_t w = 64, h = 32;
  const VkDeviceSize bytes = VkDeviceSize(w) * h * 4;
  std::vector<std::unique_ptr<Image>> images(300);
  for (auto& image : images)
    ASSERT_EQ(VK_SUCCESS, Image::create(device_, VK_FORMAT_R8G8B8A8_UINT, ImageType::k2D, {w, h, 1}, 1,
                                        VkComponentMapping{}, &image, owner));
  EXPECT_LT(device_->allocation_count() - before, 20u) << "one allocation per image";
  std::unique_ptr<Buffer> in, out;
  ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, bytes * images.size(), MemoryPlacement::HostVisible, &in));
  ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, bytes * images.size(), MemoryPlacement::HostVisible, &out));
  auto* src = static_cast<uint8_t*>(in->mapped());
  std::mt19937 rng(11);
  for (VkDeviceSize i = 0; i < bytes * images.size(); ++i) src[i] = uint8_t(rng());
  std::memset(out->mapped(), 0, bytes * images.size());
  ImageRegion whole;
  whole.extent = {w, h, 1};
  for (size_t i = 0; i < images.size(); ++i)
    ASSERT_EQ(VK_SUCCESS, copy_buffer_to_image(*stream_, *in, i * bytes, 0, 0, *images[i], whole));
  ASSERT_EQ(VK_SUCCESS, stream_->barrier());
  for (size_t i = 0; i < images.size(); ++i)
    ASSERT_EQ(VK_SUCCESS, copy_image_to_buffer(*stream_, *images[i], whole, *out, i * bytes, 0, 0));
  run();
  EXPECT_EQ(0, std::memcmp(in->mapped(), out->mapped(), bytes * images.size())) << "images overlap";
  images.clear();
  device_->drop_spares(owner);
  EXPECT_EQ(device_->allocation_count(), before + 2) << "blocks kept after their owner went";  // (in, out)
}

}  // namespace
}  // namespace vkcl::vk
