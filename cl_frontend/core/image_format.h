// OpenCL image formats: which channel order / data type pairs the spec allows, their element
// sizes, the Vulkan format that holds the same bytes, which of them a device supports, and
// the conversion of a fill colour to a texel.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <vector>

#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::cl {

// VKCL_WITHOUT_FEATURES=images: the device reports no images (read at each query, so tests
// can switch it).
bool images_hidden();
// Whether |device| backs OpenCL 3.0's minimum list of image formats "for either reading or
// writing in a kernel" (CL_RGBA of ten data types, CL_BGRA of CL_UNORM_INT8), as 2D images
// read and written in kernels: where it does not, the device reports no image support.
bool backs_minimum_image_formats(const vk::DeviceInfo& device);
// cl_khr_depth_images: CL_DEPTH with CL_UNORM_INT16 and CL_FLOAT, read-only and write-only,
// for 2D images and 2D image arrays.
bool backs_depth_images(const vk::DeviceInfo& device);

// The image size limits a device reports (CL_DEVICE_IMAGE*_MAX_*), from its Vulkan limits.
struct ImageLimits {
  size_t width_2d;      // 1D and 2D widths: maxImageDimension1D and 2D
  size_t height_2d;
  size_t size_3d;       // width, height and depth of 3D images
  size_t array_size;    // maxImageArrayLayers
  size_t buffer_size;   // maxTexelBufferElements (1D buffer images)
};
ImageLimits image_limits(const vk::DeviceInfo& device);

// Bytes per element of |format|, or 0 when its channel order and data type are not a pair
// the spec allows (CL_INVALID_IMAGE_FORMAT_DESCRIPTOR).
size_t element_size(const cl_image_format& format);
// Channels of |order| (CL_Rx counts its padding channel), 0 for an unknown order.
cl_uint channel_count(cl_channel_order order);

// The Vulkan format whose texels hold the same bytes as |format|'s elements.
struct VulkanFormat {
  VkFormat format = VK_FORMAT_UNDEFINED;
  // The Vulkan format's channels are not the order's (CL_A, CL_ARGB, CL_INTENSITY, padding
  // channels read as 1, ...): a kernel reads such an image through a view's component
  // swizzle, and writes it (storage views take no swizzle) only where the one channel is the
  // colour's x (CL_INTENSITY, CL_LUMINANCE), never as read_write.
  bool swizzled = false;
};
// VK_FORMAT_UNDEFINED when vkcl has no Vulkan format for |format|.
VulkanFormat vulkan_format(const cl_image_format& format);
// The swizzle that makes vulkan_format(|format|)'s texels read as |format|'s channels (x, y, z,
// w) in a kernel: identity unless VulkanFormat::swizzled.
VkComponentMapping kernel_swizzle(const cl_image_format& format);

// The SPIR-V image format (spv::ImageFormat) naming |format| in a storage image's type; 0
// (Unknown) where SPIR-V has none (BGRA, packed 5-6-5, sRGB, three channels).
uint32_t spirv_image_format(VkFormat format);
// Whether a read_write image of |format| and |type| is a storage image of its SPIR-V format
// on |device| (which cannot read or write a storage image of format Unknown of it; where it
// can, the translated kernel's Unknown format is kept).
bool read_write_typed(const vk::DeviceInfo& device, cl_mem_object_type type, VkFormat format);
// Whether |device| can run a read_write image of |format| and |type|: without a format, or
// as a storage image of a SPIR-V format it supports.
bool read_write_runs(const vk::DeviceInfo& device, cl_mem_object_type type, VkFormat format);
// Whether |device| backs OpenCL 3.0's minimum list for read_write images (CL_R and CL_RGBA
// of CL_UNORM_INT8, the six integer types, CL_HALF_FLOAT and CL_FLOAT, as 2D images).
bool backs_read_write_images(const vk::DeviceInfo& device);

// The formats of the spec's tables that |device| supports for images of |type| used as
// |flags| says (CL_MEM_READ_ONLY: sampled; CL_MEM_WRITE_ONLY: written as storage;
// CL_MEM_READ_WRITE: both; CL_MEM_KERNEL_READ_AND_WRITE: read and written as storage).
std::vector<cl_image_format> supported_formats(const vk::DeviceInfo& device, cl_mem_flags flags,
                                               cl_mem_object_type type);
bool format_supported(const vk::DeviceInfo& device, cl_mem_flags flags, cl_mem_object_type type,
                      const cl_image_format& format);

// Writes to |texel| (element_size(format) bytes) the element |color| converts to, by the
// SPIR-V environment spec's §7.4 rules for image writes: |color| is four floats, or four
// cl_int / cl_uint for unnormalized signed / unsigned integer data types (clEnqueueFillImage).
void pack_fill_color(const cl_image_format& format, const void* color, uint8_t* texel);

}  // namespace vkcl::cl
