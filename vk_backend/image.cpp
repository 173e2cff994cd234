#include "vkcl/vk_backend/image.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "blocks.h"
#include "external.h"
#include "inject.h"

namespace vkcl::vk {

namespace {

VkImageType vk_type(ImageType type) {
  switch (type) {
    case ImageType::k1D:
    case ImageType::k1DArray: return VK_IMAGE_TYPE_1D;
    case ImageType::k2D:
    case ImageType::k2DArray: return VK_IMAGE_TYPE_2D;
    case ImageType::k3D: return VK_IMAGE_TYPE_3D;
  }
  return VK_IMAGE_TYPE_2D;
}

VkImageViewType view_type(ImageType type) {
  switch (type) {
    case ImageType::k1D: return VK_IMAGE_VIEW_TYPE_1D;
    case ImageType::k1DArray: return VK_IMAGE_VIEW_TYPE_1D_ARRAY;
    case ImageType::k2D: return VK_IMAGE_VIEW_TYPE_2D;
    case ImageType::k2DArray: return VK_IMAGE_VIEW_TYPE_2D_ARRAY;
    case ImageType::k3D: return VK_IMAGE_VIEW_TYPE_3D;
  }
  return VK_IMAGE_VIEW_TYPE_2D;
}

VkImageSubresourceLayers layers_of(const ImageRegion& region) {
  return {VK_IMAGE_ASPECT_COLOR_BIT, 0, region.base_layer, region.layer_count};
}

// Every texel of |image| from UNDEFINED to GENERAL, once, on the device's setup stream (whose
// work every later batch of the device waits for: Device::setup), so the image is ready for
// any queue's commands without per-queue layout tracking, and its creation does not wait for
// the device (50-90 us on lavapipe). And zeroed: Vulkan promises nothing about new memory
// (lavapipe's comes from the process heap, where an earlier context's images were).
void record_general(VkCommandBuffer cb, const Image& image) {
  VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  barrier.srcAccessMask = 0;
  barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  barrier.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  barrier.newLayout = VK_IMAGE_LAYOUT_GENERAL;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = image.handle();
  barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, image.layers()};
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                       VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
                       nullptr, 0, nullptr, 1, &barrier);
  VkClearColorValue zero{};
  vkCmdClearColorImage(cb, image.handle(), VK_IMAGE_LAYOUT_GENERAL, &zero, 1, &barrier.subresourceRange);
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.oldLayout = VK_IMAGE_LAYOUT_GENERAL;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
                       nullptr, 0, nullptr, 1, &barrier);
}

}  // namespace

FormatSupport format_support(const DeviceInfo& device, VkFormat format) {
  FormatSupport s;
  VkFormatProperties3 properties3{VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_3};
  bool has3 = device.properties.apiVersion >= VK_API_VERSION_1_3;
  VkFormatProperties2 properties{VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2, has3 ? &properties3 : nullptr};
  vkGetPhysicalDeviceFormatProperties2(device.physical, format, &properties);
  const VkFormatFeatureFlags optimal = properties.formatProperties.optimalTilingFeatures;
  const VkFormatFeatureFlags buffer = properties.formatProperties.bufferFeatures;
  s.transfer = (optimal & VK_FORMAT_FEATURE_TRANSFER_SRC_BIT) && (optimal & VK_FORMAT_FEATURE_TRANSFER_DST_BIT);
  s.sampled = optimal & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
  s.linear_filter = optimal & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
  s.storage = optimal & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT;
  // The device-wide features cover every storage format (Device enables them); Vulkan 1.3's
  // per-format bits add formats a device allows without them.
  s.storage_read_without_format = s.storage && device.features.shaderStorageImageReadWithoutFormat;
  s.storage_write_without_format = s.storage && device.features.shaderStorageImageWriteWithoutFormat;
  if (has3) {
    s.storage_read_without_format = s.storage_read_without_format ||
        (properties3.optimalTilingFeatures & VK_FORMAT_FEATURE_2_STORAGE_READ_WITHOUT_FORMAT_BIT);
    s.storage_write_without_format = s.storage_write_without_format ||
        (properties3.optimalTilingFeatures & VK_FORMAT_FEATURE_2_STORAGE_WRITE_WITHOUT_FORMAT_BIT);
  }
  s.uniform_texel_buffer = buffer & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT;
  s.storage_texel_buffer = buffer & VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT;
  return s;
}

bool image_limits(const DeviceInfo& device, VkFormat format, ImageType type, VkImageUsageFlags usage,
                  VkImageFormatProperties* out, VkImageCreateFlags flags) {
  return vkGetPhysicalDeviceImageFormatProperties(device.physical, format, vk_type(type),
                                                  VK_IMAGE_TILING_OPTIMAL, usage, flags, out) == VK_SUCCESS;
}

VkFormat srgb_sibling(VkFormat format) {
  switch (format) {
    case VK_FORMAT_R8G8B8A8_UNORM: return VK_FORMAT_R8G8B8A8_SRGB;
    case VK_FORMAT_R8G8B8A8_SRGB: return VK_FORMAT_R8G8B8A8_UNORM;
    case VK_FORMAT_B8G8R8A8_UNORM: return VK_FORMAT_B8G8R8A8_SRGB;
    case VK_FORMAT_B8G8R8A8_SRGB: return VK_FORMAT_B8G8R8A8_UNORM;
    default: return VK_FORMAT_UNDEFINED;
  }
}

namespace {

// The kernel uses a device allows for images viewed as |format|.
VkImageUsageFlags view_usage(const DeviceInfo& device, VkFormat format) {
  FormatSupport support = format_support(device, format);
  VkImageUsageFlags usage = 0;
  if (support.sampled) usage |= VK_IMAGE_USAGE_SAMPLED_BIT;
  if (support.storage) usage |= VK_IMAGE_USAGE_STORAGE_BIT;
  return usage;
}

// A view of the whole of |image| as |format| for the uses in |usage| (a subset of the image's).
VkResult make_view(VkDevice d, const Image& image, VkFormat format, VkImageUsageFlags usage,
                   VkComponentMapping components, VkImageView* out) {
  VkImageViewUsageCreateInfo restricted{VK_STRUCTURE_TYPE_IMAGE_VIEW_USAGE_CREATE_INFO};
  restricted.usage = usage;
  VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, &restricted};
  view.image = image.handle();
  view.viewType = view_type(image.type());
  view.format = format;
  view.components = components;
  view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, image.layers()};
  if (detail::injected_object_failure()) return VK_ERROR_OUT_OF_HOST_MEMORY;
  return vkCreateImageView(d, &view, nullptr, out);
}

// The view of |image| as |format| for kernels (|view|), and where its swizzle is not the
// identity and the format has storage, one without it for storage descriptors (|storage|).
VkResult make_views(VkDevice d, const Image& image, VkFormat format, VkImageUsageFlags usage,
                    VkComponentMapping components, VkImageView* view, VkImageView* storage) {
  VkResult r = make_view(d, image, format, usage, components, view);
  const bool identity = components.r == VK_COMPONENT_SWIZZLE_IDENTITY && components.g == VK_COMPONENT_SWIZZLE_IDENTITY &&
                        components.b == VK_COMPONENT_SWIZZLE_IDENTITY && components.a == VK_COMPONENT_SWIZZLE_IDENTITY;
  if (r != VK_SUCCESS || identity || !(usage & VK_IMAGE_USAGE_STORAGE_BIT)) return r;
  return make_view(d, image, format, VK_IMAGE_USAGE_STORAGE_BIT, VkComponentMapping{}, storage);
}

}  // namespace

namespace {

// What |handle| memory can do for an image of these parameters (0: nothing).
VkExternalMemoryFeatureFlags external_features(const DeviceInfo& device, VkFormat format, ImageType type,
                                               VkImageUsageFlags usage, VkImageCreateFlags flags,
                                               VkExternalMemoryHandleTypeFlagBits handle) {
  VkPhysicalDeviceExternalImageFormatInfo external{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO};
  external.handleType = handle;
  VkPhysicalDeviceImageFormatInfo2 info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2, &external};
  info.format = format;
  info.type = vk_type(type);
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = usage;
  info.flags = flags;
  VkExternalImageFormatProperties features{VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES};
  VkImageFormatProperties2 properties{VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2, &features};
  if (vkGetPhysicalDeviceImageFormatProperties2(device.physical, &info, &properties) != VK_SUCCESS) return 0;
  return features.externalMemoryProperties.externalMemoryFeatures;
}

// Imports |import|'s memory for |image| (|req| its requirements): an opaque fd must come in
// with the exporter's size and memory type, which OpenCL does not pass, so the image's own
// size and each allowed type, device-local first, until the driver takes one.
VkResult import_memory(Device& device, VkImage image, const VkMemoryRequirements& req, const Image::Import& import,
                       bool dedicated, VkDeviceMemory* out) {
  const VkPhysicalDeviceMemoryProperties& memory = device.info().memory;
  for (int pass = 0; pass < 2; ++pass)
    for (uint32_t t = 0; t < memory.memoryTypeCount; ++t) {
      if (!(req.memoryTypeBits & (1u << t)) ||
          bool(memory.memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != (pass == 0))
        continue;
      // Vulkan owns an imported fd; the application keeps its own.
      int copy = dup(import.fd);
      if (copy < 0) return VK_ERROR_INVALID_EXTERNAL_HANDLE;
      VkMemoryDedicatedAllocateInfo one{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
      one.image = image;
      VkImportMemoryFdInfoKHR fd{VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR, dedicated ? &one : nullptr};
      fd.handleType = import.handle;
      fd.fd = copy;
      VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &fd};
      alloc.allocationSize = req.size;
      alloc.memoryTypeIndex = t;
      if (detail::injected_object_failure()) {
        close(copy);
        return VK_ERROR_OUT_OF_HOST_MEMORY;
      }
      if (vkAllocateMemory(device.handle(), &alloc, nullptr, out) == VK_SUCCESS) return VK_SUCCESS;
      detail::close_failed_import(copy, import.fd);
      *out = VK_NULL_HANDLE;
    }
  return VK_ERROR_INVALID_EXTERNAL_HANDLE;
}

}  // namespace

VkResult Image::external_ownership(CommandStream& stream, bool acquire) const {
  VkCommandBuffer cb;
  VkResult r = stream.command_buffer(&cb);
  if (r != VK_SUCCESS) return r;
  const detail::ExternalTransfer t = detail::external_transfer(device_->info(), acquire);
  VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  barrier.srcAccessMask = t.src_access;
  barrier.dstAccessMask = t.dst_access;
  barrier.oldLayout = barrier.newLayout = VK_IMAGE_LAYOUT_GENERAL;
  barrier.srcQueueFamilyIndex = t.src_family;
  barrier.dstQueueFamilyIndex = t.dst_family;
  barrier.image = image_;
  barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, layers_};
  vkCmdPipelineBarrier(cb, t.src_stage, t.dst_stage, 0, 0, nullptr, 0, nullptr, 1, &barrier);
  return VK_SUCCESS;
}

VkResult Image::import_fd(std::shared_ptr<Device> device, VkFormat format, ImageType type, VkExtent3D extent,
                          uint32_t layers, VkComponentMapping components, VkExternalMemoryHandleTypeFlagBits handle,
                          int fd, std::unique_ptr<Image>* out) {
  // What can never hold memory is refused here: drivers trust the handle.
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISDIR(st.st_mode))
    return VK_ERROR_INVALID_EXTERNAL_HANDLE;
  const Import import{handle, fd};
  return make(std::move(device), format, type, extent, layers, components, &import, out);
}

VkResult Image::make(std::shared_ptr<Device> device, VkFormat format, ImageType type, VkExtent3D extent,
                     uint32_t layers, VkComponentMapping components, const Import* import,
                     std::unique_ptr<Image>* out, uint64_t owner) {
  if (!vulkan_usable()) return VK_ERROR_DEVICE_LOST;
  FormatSupport support = format_support(device->info(), format);
  if (!support.transfer) return VK_ERROR_FORMAT_NOT_SUPPORTED;
  // Every use the format allows, whatever the application said it would do: kernels bind
  // images per enqueue, and OpenCL's access flags are promises, not Vulkan usage.
  VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  const VkImageUsageFlags own_usage = view_usage(device->info(), format);
  usage |= own_usage;
  // An 8-bit RGBA or BGRA image may later be seen through its sRGB sibling (an OpenCL 2D image
  // made from it with CL_sRGBA for CL_RGBA, or the reverse): the image is made mutable with
  // both formats listed (so drivers may keep compressing it), and with the uses of both.
  VkImageCreateFlags flags = 0;
  VkImageFormatListCreateInfo format_list{VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO};
  const VkFormat formats[2] = {format, srgb_sibling(format)};
  if (formats[1] != VK_FORMAT_UNDEFINED && format_support(device->info(), formats[1]).transfer) {
    flags |= VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT;
    const VkImageUsageFlags sibling_usage = view_usage(device->info(), formats[1]);
    // A use only the sibling has (storage, for an sRGB image) needs EXTENDED_USAGE.
    if (sibling_usage & ~own_usage) flags |= VK_IMAGE_CREATE_EXTENDED_USAGE_BIT;
    usage |= sibling_usage;
    format_list.viewFormatCount = 2;
    format_list.pViewFormats = formats;
  }
  VkImageFormatProperties limits;
  if (!image_limits(device->info(), format, type, usage, &limits, flags)) return VK_ERROR_FORMAT_NOT_SUPPORTED;
  bool dedicated = false;
  if (import) {
    VkExternalMemoryFeatureFlags features = external_features(device->info(), format, type, usage, flags, import->handle);
    if (!(features & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT)) return VK_ERROR_INVALID_EXTERNAL_HANDLE;
    dedicated = features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT;
  }
  if (extent.width > limits.maxExtent.width || extent.height > limits.maxExtent.height ||
      extent.depth > limits.maxExtent.depth || layers > limits.maxArrayLayers)
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
  std::unique_ptr<Image> image(new Image());
  image->device_ = device;
  image->format_ = format;
  image->type_ = type;
  image->usage_ = usage;
  image->extent_ = extent;
  image->layers_ = layers;
  VkDevice d = device->handle();
  VkExternalMemoryImageCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
                                           flags ? &format_list : nullptr};
  if (import) external.handleTypes = import->handle;
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, import ? static_cast<void*>(&external)
                                                              : flags ? static_cast<void*>(&format_list) : nullptr};
  info.flags = flags;
  info.imageType = vk_type(type);
  info.format = format;
  info.extent = extent;
  info.mipLevels = 1;
  info.arrayLayers = layers;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  if (detail::injected_object_failure()) return VK_ERROR_OUT_OF_HOST_MEMORY;
  VkResult r = vkCreateImage(d, &info, nullptr, &image->image_);
  if (r != VK_SUCCESS) return r;
  VkMemoryDedicatedRequirements alone{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
  VkMemoryRequirements2 req2{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, &alone};
  VkImageMemoryRequirementsInfo2 which{VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2};
  which.image = image->image_;
  vkGetImageMemoryRequirements2(d, &which, &req2);
  const VkMemoryRequirements& req = req2.memoryRequirements;
  VkDeviceSize offset = 0;
  if (import) {
    r = import_memory(*device, image->image_, req, *import, dedicated, &image->memory_);
  } else {
    if (req.size > device->info().max_allocation_size) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    uint32_t type_index = device->find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                                                   VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type_index == UINT32_MAX) type_index = device->find_memory_type(req.memoryTypeBits, 0, 0);
    if (type_index == UINT32_MAX) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    detail::Piece piece;
    // Small images share blocks as small buffers do (one allocation each runs into
    // maxMemoryAllocationCount); a block that cannot be had leaves the image its own. Their
    // clear (record_general) zeroes them, not the block. Large ones gain nothing from it.
    constexpr VkDeviceSize kLargestPiece = VkDeviceSize(256) << 10;
    if (owner && req.size <= kLargestPiece && !alone.prefersDedicatedAllocation &&
        !alone.requiresDedicatedAllocation &&
        device->blocks().take(type_index, owner | detail::kImageOwner, req.size, req.alignment, &piece,
                              /*zero_new=*/false) == VK_SUCCESS) {
      image->block_ = piece.block;
      image->piece_offset_ = offset = piece.offset;
      image->piece_size_ = piece.size;
      image->memory_ = piece.memory;
    } else {
      VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
      alloc.allocationSize = req.size;
      alloc.memoryTypeIndex = type_index;
      r = device->allocate_memory(alloc, &image->memory_);
    }
  }
  if (r != VK_SUCCESS) return r;
  r = vkBindImageMemory(d, image->image_, image->memory_, offset);
  if (r != VK_SUCCESS) return r;
  // (An imported image's texels are the other API's, left as they are.)
  if (!import)
    r = device->setup([&image](VkCommandBuffer cb) { record_general(cb, *image); }, &image->setup_point_);
  if (r != VK_SUCCESS) return r;
  if (own_usage) {
    r = make_views(d, *image, format, own_usage, components, &image->view_, &image->storage_view_);
    if (r != VK_SUCCESS) return r;
  }
  image->usage_ = (usage & ~(VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT)) | own_usage;
  *out = std::move(image);
  return VK_SUCCESS;
}

VkResult Image::alias(const Image& base, VkFormat format, VkComponentMapping components,
                      std::unique_ptr<Image>* out) {
  if (!vulkan_usable()) return VK_ERROR_DEVICE_LOST;
  if (format != base.format_ && format != srgb_sibling(base.format_)) return VK_ERROR_FORMAT_NOT_SUPPORTED;
  const VkImageUsageFlags own_usage = view_usage(base.device_->info(), format);
  std::unique_ptr<Image> image(new Image());
  image->device_ = base.device_;
  image->image_ = base.image_;
  image->owns_image_ = false;
  image->format_ = format;
  image->type_ = base.type_;
  image->usage_ = (base.usage_ & ~(VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT)) | own_usage;
  image->extent_ = base.extent_;
  image->layers_ = base.layers_;
  if (own_usage) {
    VkResult r = make_views(base.device_->handle(), *image, format, own_usage, components, &image->view_,
                            &image->storage_view_);
    if (r != VK_SUCCESS) return r;
  }
  *out = std::move(image);
  return VK_SUCCESS;
}

Image::~Image() {
  if (!device_ || !vulkan_usable()) return;
  VkDevice d = device_->handle();
  if (view_) vkDestroyImageView(d, view_, nullptr);
  if (storage_view_) vkDestroyImageView(d, storage_view_, nullptr);
  if (!owns_image_) return;
  if (setup_point_) device_->wait_setup(setup_point_);  // never used: made ready meanwhile?
  if (image_) vkDestroyImage(d, image_, nullptr);
  if (block_)
    device_->blocks().give_back(block_, piece_offset_, piece_size_);
  else if (memory_)
    device_->free_memory(memory_);
}

VkResult TexelBufferView::create(std::shared_ptr<Device> device, const Buffer& buffer, VkDeviceSize offset,
                                 VkDeviceSize range, VkFormat format, std::unique_ptr<TexelBufferView>* out) {
  if (!vulkan_usable()) return VK_ERROR_DEVICE_LOST;
  std::unique_ptr<TexelBufferView> v(new TexelBufferView());
  v->device_ = device;
  VkBufferViewCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
  info.buffer = buffer.handle();
  info.format = format;
  info.offset = offset;
  info.range = range;
  if (detail::injected_object_failure()) return VK_ERROR_OUT_OF_HOST_MEMORY;
  VkResult r = vkCreateBufferView(device->handle(), &info, nullptr, &v->view_);
  if (r != VK_SUCCESS) return r;
  *out = std::move(v);
  return VK_SUCCESS;
}

TexelBufferView::~TexelBufferView() {
  if (device_ && view_ && vulkan_usable()) vkDestroyBufferView(device_->handle(), view_, nullptr);
}

VkResult copy_buffer_to_image(CommandStream& stream, const Buffer& buffer, VkDeviceSize offset,
                              uint32_t row_length, uint32_t image_height, const Image& image,
                              const ImageRegion& region) {
  VkCommandBuffer cb;
  VkResult r = stream.command_buffer(&cb);
  if (r != VK_SUCCESS) return r;
  VkBufferImageCopy copy{offset, row_length, image_height, layers_of(region), region.offset,
                         region.extent};
  vkCmdCopyBufferToImage(cb, buffer.handle(), image.handle(), VK_IMAGE_LAYOUT_GENERAL, 1, &copy);
  return VK_SUCCESS;
}

VkResult copy_buffer_to_image_regions(CommandStream& stream, const Buffer& buffer, VkDeviceSize offset,
                                      const Image& image, const std::vector<ImageRegion>& regions) {
  VkCommandBuffer cb;
  VkResult r = stream.command_buffer(&cb);
  if (r != VK_SUCCESS) return r;
  std::vector<VkBufferImageCopy> copies;
  copies.reserve(regions.size());
  for (const ImageRegion& region : regions)
    copies.push_back({offset, 0, 0, layers_of(region), region.offset, region.extent});
  vkCmdCopyBufferToImage(cb, buffer.handle(), image.handle(), VK_IMAGE_LAYOUT_GENERAL, uint32_t(copies.size()),
                         copies.data());
  return VK_SUCCESS;
}

VkResult copy_image_to_buffer(CommandStream& stream, const Image& image, const ImageRegion& region,
                              const Buffer& buffer, VkDeviceSize offset, uint32_t row_length,
                              uint32_t image_height) {
  VkCommandBuffer cb;
  VkResult r = stream.command_buffer(&cb);
  if (r != VK_SUCCESS) return r;
  VkBufferImageCopy copy{offset, row_length, image_height, layers_of(region), region.offset,
                         region.extent};
  vkCmdCopyImageToBuffer(cb, image.handle(), VK_IMAGE_LAYOUT_GENERAL, buffer.handle(), 1, &copy);
  return VK_SUCCESS;
}

VkResult copy_image(CommandStream& stream, const Image& src, const ImageRegion& src_region,
                    const Image& dst, const ImageRegion& dst_region) {
  VkCommandBuffer cb;
  VkResult r = stream.command_buffer(&cb);
  if (r != VK_SUCCESS) return r;
  VkImageCopy copy{layers_of(src_region), src_region.offset, layers_of(dst_region),
                   dst_region.offset, src_region.extent};
  // Between a 3D image and layers of a 2D one, the extent is the 3D image's (its depth counts
  // the layers).
  if (dst.type() == ImageType::k3D) copy.extent = dst_region.extent;
  vkCmdCopyImage(cb, src.handle(), VK_IMAGE_LAYOUT_GENERAL, dst.handle(), VK_IMAGE_LAYOUT_GENERAL, 1,
                 &copy);
  return VK_SUCCESS;
}

namespace {

void describe_writes(const std::vector<Descriptor>& descriptors, VkDescriptorSet set,
                     std::vector<VkDescriptorImageInfo>* infos, std::vector<VkBufferView>* views,
                     std::vector<VkDescriptorBufferInfo>* buffers, std::vector<VkWriteDescriptorSet>* writes) {
  infos->resize(descriptors.size());
  views->resize(descriptors.size());
  buffers->resize(descriptors.size());
  writes->resize(descriptors.size());
  for (size_t k = 0; k < descriptors.size(); ++k) {
    const Descriptor& d = descriptors[k];
    VkWriteDescriptorSet& w = (*writes)[k];
    w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = set;
    w.dstBinding = d.binding;
    w.descriptorCount = 1;
    w.descriptorType = d.type;
    if (d.type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER) {
      (*buffers)[k] = {d.buffer, d.offset, d.range};
      w.pBufferInfo = &(*buffers)[k];
    } else if (d.texel_buffer) {
      (*views)[k] = d.texel_buffer;
      w.pTexelBufferView = &(*views)[k];
    } else {
      const bool storage = d.type == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
      (*infos)[k] = {VK_NULL_HANDLE, storage ? d.image->storage_view() : d.image->view(), VK_IMAGE_LAYOUT_GENERAL};
      w.pImageInfo = &(*infos)[k];
    }
  }
}

}  // namespace

VkResult DescriptorSet::create(std::shared_ptr<Device> device, const ComputePipeline& pipeline,
                               const std::vector<Descriptor>& descriptors,
                               std::unique_ptr<DescriptorSet>* out) {
  if (!vulkan_usable()) return VK_ERROR_DEVICE_LOST;
  std::unique_ptr<DescriptorSet> s(new DescriptorSet());
  s->device_ = device;
  VkDevice d = device->handle();
  std::vector<VkDescriptorPoolSize> sizes;
  for (const Descriptor& i : descriptors) {
    auto same = std::find_if(sizes.begin(), sizes.end(), [&](const VkDescriptorPoolSize& p) { return p.type == i.type; });
    if (same == sizes.end()) sizes.push_back({i.type, 1});
    else same->descriptorCount++;
  }
  VkDescriptorPoolCreateInfo pool{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool.maxSets = 1;
  pool.poolSizeCount = uint32_t(sizes.size());
  pool.pPoolSizes = sizes.data();
  if (detail::injected_object_failure()) return VK_ERROR_OUT_OF_HOST_MEMORY;
  VkResult r = vkCreateDescriptorPool(d, &pool, nullptr, &s->pool_);
  if (r != VK_SUCCESS) return r;
  VkDescriptorSetLayout layout = pipeline.set_layout();
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = s->pool_;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &layout;
  if (detail::injected_object_failure()) return VK_ERROR_OUT_OF_HOST_MEMORY;
  r = vkAllocateDescriptorSets(d, &alloc, &s->set_);
  if (r != VK_SUCCESS) return r;
  std::vector<VkDescriptorImageInfo> infos;
  std::vector<VkBufferView> views;
  std::vector<VkDescriptorBufferInfo> buffers;
  std::vector<VkWriteDescriptorSet> writes;
  describe_writes(descriptors, s->set_, &infos, &views, &buffers, &writes);
  vkUpdateDescriptorSets(d, uint32_t(writes.size()), writes.data(), 0, nullptr);
  *out = std::move(s);
  return VK_SUCCESS;
}

DescriptorSet::~DescriptorSet() {
  if (!device_ || !vulkan_usable()) return;
  if (pool_) vkDestroyDescriptorPool(device_->handle(), pool_, nullptr);
}

VkResult bind_descriptors(CommandStream& stream, std::shared_ptr<Device> device,
                          const ComputePipeline& pipeline, const std::vector<Descriptor>& descriptors,
                          std::unique_ptr<DescriptorSet>* set) {
  if (descriptors.empty()) return VK_SUCCESS;
  if (!pipeline.push_descriptors() && !*set) {
    VkResult r = DescriptorSet::create(std::move(device), pipeline, descriptors, set);
    if (r != VK_SUCCESS) return r;
  }
  VkCommandBuffer cb;
  VkResult r = stream.command_buffer(&cb);
  if (r != VK_SUCCESS) return r;
  if (!pipeline.push_descriptors()) {
    VkDescriptorSet s = (*set)->handle();
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0, 1, &s, 0, nullptr);
    return VK_SUCCESS;
  }
  std::vector<VkDescriptorImageInfo> infos;
  std::vector<VkBufferView> views;
  std::vector<VkDescriptorBufferInfo> buffers;
  std::vector<VkWriteDescriptorSet> writes;
  describe_writes(descriptors, VK_NULL_HANDLE, &infos, &views, &buffers, &writes);
  vkCmdPushDescriptorSetKHR(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0,
                            uint32_t(writes.size()), writes.data());
  return VK_SUCCESS;
}

}  // namespace vkcl::vk
