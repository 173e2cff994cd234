// vk_backend images: VkImages with optimal tiling and their own memory, kept in
// VK_IMAGE_LAYOUT_GENERAL for their whole life, the copies between them and buffers, and what
// a Vulkan device can do with a format. Knows nothing of OpenCL.
#pragma once

#include <vector>

#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::vk {

enum class ImageType { k1D, k1DArray, k2D, k2DArray, k3D };

// What a device can do with |format| (vkGetPhysicalDeviceFormatProperties).
struct FormatSupport {
  bool transfer = false;        // copies to and from buffers and images (optimal tiling)
  bool sampled = false;         // a sampled image, optimal tiling
  bool linear_filter = false;   // sampled with VK_FILTER_LINEAR
  bool storage = false;         // a storage image, optimal tiling
  // Storage reads and writes through an OpTypeImage of format Unknown (per format where
  // Vulkan 1.3's VkFormatProperties3 says so, else the device-wide features).
  bool storage_read_without_format = false;
  bool storage_write_without_format = false;
  bool uniform_texel_buffer = false;
  bool storage_texel_buffer = false;
};
FormatSupport format_support(const DeviceInfo& device, VkFormat format);

// The largest image of |type| and |format| the device can create with |usage| (optimal
// tiling), from vkGetPhysicalDeviceImageFormatProperties; false when it cannot create one.
bool image_limits(const DeviceInfo& device, VkFormat format, ImageType type, VkImageUsageFlags usage,
                  VkImageFormatProperties* out, VkImageCreateFlags flags = 0);

// The format that sees the same texel bits through the sRGB transfer function, or without it
// (R8G8B8A8_UNORM <-> R8G8B8A8_SRGB, B8G8R8A8_UNORM <-> B8G8R8A8_SRGB); VK_FORMAT_UNDEFINED
// for other formats.
VkFormat srgb_sibling(VkFormat format);

// A box of texels in one image: texel offset and extent (y is 0 and height 1 for 1D types, z
// is 0 and depth 1 for all but 3D) and the array layers it covers.
struct ImageRegion {
  VkOffset3D offset{0, 0, 0};
  VkExtent3D extent{1, 1, 1};
  uint32_t base_layer = 0;
  uint32_t layer_count = 1;
};

// A VkImage of one mip level with its own device-local memory, usable as a transfer source and
// destination and, where the format allows, as a sampled and a storage image. It is in
// VK_IMAGE_LAYOUT_GENERAL once create() returns and stays there, so commands on it need only
// the memory barriers CommandStream::barrier() records.
class Image {
 public:
  // |extent| has height 1 for 1D types and depth 1 for all but 3D; |layers| is 1 except for
  // arrays. VK_ERROR_FORMAT_NOT_SUPPORTED when the device cannot make such an image,
  // VK_ERROR_OUT_OF_DEVICE_MEMORY when its memory cannot be had.
  // |components| is the swizzle of view() (identity when the format's channels are the
  // caller's).
  static VkResult create(std::shared_ptr<Device> device, VkFormat format, ImageType type,
                         VkExtent3D extent, uint32_t layers, std::unique_ptr<Image>* out) {
    return create(std::move(device), format, type, extent, layers, VkComponentMapping{}, out);
  }
  // With an |owner| (a CL context), an image of up to 256 KiB takes a piece of a block of
  // that owner's images (blocks.h) unless the driver wants it alone.
  static VkResult create(std::shared_ptr<Device> device, VkFormat format, ImageType type,
                         VkExtent3D extent, uint32_t layers, VkComponentMapping components,
                         std::unique_ptr<Image>* out, uint64_t owner = 0) {
    return make(std::move(device), format, type, extent, layers, components, nullptr, out, owner);
  }
  // An image over memory another API allocated for an image and exported as |fd| (|handle|,
  // an opaque fd), for a VkImage made as create() makes one: optimal tiling, the format,
  // type, extent and layers given, usage TRANSFER_SRC | TRANSFER_DST plus SAMPLED and STORAGE
  // where the format has them, mutable with the sRGB sibling's usage for 8-bit RGBA and
  // BGRA; a dedicated allocation where the driver asks for one. Its texels are the other
  // API's, handed over in VK_IMAGE_LAYOUT_GENERAL (external_ownership). The caller keeps
  // |fd|. VK_ERROR_INVALID_EXTERNAL_HANDLE when it cannot be imported.
  struct Import {
    VkExternalMemoryHandleTypeFlagBits handle;
    int fd;
  };
  static VkResult import_fd(std::shared_ptr<Device> device, VkFormat format, ImageType type, VkExtent3D extent,
                            uint32_t layers, VkComponentMapping components, VkExternalMemoryHandleTypeFlagBits handle,
                            int fd, std::unique_ptr<Image>* out);
  // Records the transfer of an imported image from another API (|acquire|) or back to it: a
  // queue family ownership transfer with VK_QUEUE_FAMILY_EXTERNAL, in VK_IMAGE_LAYOUT_GENERAL.
  VkResult external_ownership(CommandStream& stream, bool acquire) const;
  // A second Image over |base|'s texels and memory, seen as |format| (base's own or its
  // srgb_sibling, which create() made the image ready for) with the swizzle |components|: an
  // OpenCL 2D image made from another. |base| must outlive it.
  static VkResult alias(const Image& base, VkFormat format, VkComponentMapping components,
                        std::unique_ptr<Image>* out);
  ~Image();
  Image(const Image&) = delete;
  Image& operator=(const Image&) = delete;

  VkImage handle() const { return image_; }
  VkFormat format() const { return format_; }
  ImageType type() const { return type_; }
  VkImageUsageFlags usage() const { return usage_; }
  VkExtent3D extent() const { return extent_; }
  uint32_t layers() const { return layers_; }
  // A view of the whole image of its own type and format with the swizzle given to create(),
  // for kernels (VK_NULL_HANDLE when the format is neither sampled nor storage; only
  // sampled when the swizzle is not the identity).
  VkImageView view() const { return view_; }
  // The view a storage image descriptor takes: view() itself, or, where view() has a swizzle
  // (which storage descriptors may not have), one of the same image without it.
  VkImageView storage_view() const { return storage_view_ ? storage_view_ : view_; }

 private:
  Image() = default;
  // create(), or import_fd() where |import| is set.
  static VkResult make(std::shared_ptr<Device> device, VkFormat format, ImageType type, VkExtent3D extent,
                       uint32_t layers, VkComponentMapping components, const Import* import,
                       std::unique_ptr<Image>* out, uint64_t owner = 0);
  std::shared_ptr<Device> device_;
  VkImage image_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkImageView view_ = VK_NULL_HANDLE;
  VkImageView storage_view_ = VK_NULL_HANDLE;  // identity swizzle, where view_ has another
  bool owns_image_ = true;  // false for an alias: image_ and memory_ are the base's
  uint64_t setup_point_ = 0;  // its first layout and zeroed texels: Device::setup
  detail::Block* block_ = nullptr;  // where |memory_| is a block's, not the image's own
  VkDeviceSize piece_offset_ = 0, piece_size_ = 0;
  VkFormat format_ = VK_FORMAT_UNDEFINED;
  ImageType type_ = ImageType::k2D;
  VkImageUsageFlags usage_ = 0;
  VkExtent3D extent_{1, 1, 1};
  uint32_t layers_ = 1;
};

// Image commands recorded into |stream|. Buffer layouts are Vulkan's: |row_length| and
// |image_height| in texels (0 for tightly packed); |offset| a multiple of the texel size.
VkResult copy_buffer_to_image(CommandStream& stream, const Buffer& buffer, VkDeviceSize offset,
                              uint32_t row_length, uint32_t image_height, const Image& image,
                              const ImageRegion& region);
// The same tightly packed texels at |offset| of |buffer| into each of |regions| (a fill).
VkResult copy_buffer_to_image_regions(CommandStream& stream, const Buffer& buffer, VkDeviceSize offset,
                                      const Image& image, const std::vector<ImageRegion>& regions);
VkResult copy_image_to_buffer(CommandStream& stream, const Image& image, const ImageRegion& region,
                              const Buffer& buffer, VkDeviceSize offset, uint32_t row_length,
                              uint32_t image_height);
// Copies |src_region| of |src| to |dst_region| of |dst| (formats of the same texel size). The
// regions cover the same texels: equal extents, or a 3D image's slices against as many layers.
VkResult copy_image(CommandStream& stream, const Image& src, const ImageRegion& src_region,
                    const Image& dst, const ImageRegion& dst_region);

// |range| bytes of a buffer from |offset| seen as texels of |format|, for kernels: a uniform
// texel buffer where the format allows, and a storage texel buffer where it allows that (an
// OpenCL 1D buffer image). The buffer must outlive it.
class TexelBufferView {
 public:
  static VkResult create(std::shared_ptr<Device> device, const Buffer& buffer, VkDeviceSize offset,
                         VkDeviceSize range, VkFormat format, std::unique_ptr<TexelBufferView>* out);
  ~TexelBufferView();
  TexelBufferView(const TexelBufferView&) = delete;
  TexelBufferView& operator=(const TexelBufferView&) = delete;
  VkBufferView handle() const { return view_; }

 private:
  TexelBufferView() = default;
  std::shared_ptr<Device> device_;
  VkBufferView view_ = VK_NULL_HANDLE;
};

// What a kernel reads through binding |binding| of set 0: an image, as a sampled or storage
// image; (|texel_buffer| set, |image| null) a uniform or storage texel buffer; or (|type|
// UNIFORM_BUFFER) |range| bytes of |buffer| from |offset|.
struct Descriptor {
  uint32_t binding;
  VkDescriptorType type;  // SAMPLED_IMAGE, STORAGE_IMAGE, UNIFORM_ or STORAGE_TEXEL_BUFFER, UNIFORM_BUFFER
  const Image* image;
  VkBufferView texel_buffer = VK_NULL_HANDLE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0, range = 0;
};
// A descriptor set in a pool of its own, for devices without push descriptors. It must outlive
// the commands that use it: its owner keeps it until they complete.
class DescriptorSet {
 public:
  static VkResult create(std::shared_ptr<Device> device, const ComputePipeline& pipeline,
                         const std::vector<Descriptor>& descriptors,
                         std::unique_ptr<DescriptorSet>* out);
  ~DescriptorSet();
  DescriptorSet(const DescriptorSet&) = delete;
  DescriptorSet& operator=(const DescriptorSet&) = delete;
  VkDescriptorSet handle() const { return set_; }

 private:
  DescriptorSet() = default;
  std::shared_ptr<Device> device_;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
};

// Records |descriptors| as set 0 of |pipeline|'s layout for the dispatches recorded after it:
// push descriptors where the pipeline has them, else a DescriptorSet made into |*set| the
// first time (pipelines of one kernel have compatible layouts, so later calls bind it again).
VkResult bind_descriptors(CommandStream& stream, std::shared_ptr<Device> device,
                          const ComputePipeline& pipeline, const std::vector<Descriptor>& descriptors,
                          std::unique_ptr<DescriptorSet>* set);

}  // namespace vkcl::vk
