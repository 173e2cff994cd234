// vk_backend images on the real Vulkan driver: format queries, creation of every image type,
// and texels through buffer -> image -> image -> buffer copies, checked on the host.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

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

}  // namespace
}  // namespace vkcl::vk
