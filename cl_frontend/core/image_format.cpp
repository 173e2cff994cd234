#include "core/image_format.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include <spirv/unified1/spirv.hpp11>

#include "vkcl/kernel_to_shader/translate.h"
#include "vkcl/vk_backend/image.h"

namespace vkcl::cl {

bool images_hidden() {
  const char* list = std::getenv("VKCL_WITHOUT_FEATURES");
  return list && (std::string(",") + list + ",").find(",images,") != std::string::npos;
}

ImageLimits image_limits(const vk::DeviceInfo& device) {
  const VkPhysicalDeviceLimits& l = device.properties.limits;
  ImageLimits limits;
  // CL_DEVICE_IMAGE2D_MAX_WIDTH bounds 1D images too.
  limits.width_2d = std::min(l.maxImageDimension1D, l.maxImageDimension2D);
  limits.height_2d = l.maxImageDimension2D;
  limits.size_3d = l.maxImageDimension3D;
  limits.array_size = l.maxImageArrayLayers;
  limits.buffer_size = l.maxTexelBufferElements;
  return limits;
}

namespace {

constexpr cl_channel_order kOrders[] = {
    CL_R,         CL_A,     CL_RG,     CL_RA,     CL_RGB,   CL_RGBA,  CL_BGRA,  CL_ARGB,
    CL_INTENSITY, CL_LUMINANCE, CL_Rx, CL_RGx,    CL_RGBx,  CL_DEPTH, CL_sRGB,  CL_sRGBx,
    CL_sRGBA,     CL_sBGRA, CL_ABGR};

constexpr cl_channel_type kTypes[] = {
    CL_SNORM_INT8,       CL_SNORM_INT16,    CL_UNORM_INT8,     CL_UNORM_INT16,
    CL_UNORM_SHORT_565,  CL_UNORM_SHORT_555, CL_UNORM_INT_101010, CL_SIGNED_INT8,
    CL_SIGNED_INT16,     CL_SIGNED_INT32,   CL_UNSIGNED_INT8,  CL_UNSIGNED_INT16,
    CL_UNSIGNED_INT32,   CL_HALF_FLOAT,     CL_FLOAT,          CL_UNORM_INT_101010_2};

bool packed(cl_channel_type t) {
  return t == CL_UNORM_SHORT_565 || t == CL_UNORM_SHORT_555 || t == CL_UNORM_INT_101010 ||
         t == CL_UNORM_INT_101010_2;
}

bool eight_bit(cl_channel_type t) {
  return t == CL_UNORM_INT8 || t == CL_SNORM_INT8 || t == CL_SIGNED_INT8 || t == CL_UNSIGNED_INT8;
}

bool known_order(cl_channel_order o) { return std::find(std::begin(kOrders), std::end(kOrders), o) != std::end(kOrders); }
bool known_type(cl_channel_type t) { return std::find(std::begin(kTypes), std::end(kTypes), t) != std::end(kTypes); }

size_t channel_bytes(cl_channel_type t) {
  switch (t) {
    case CL_SNORM_INT8: case CL_UNORM_INT8: case CL_SIGNED_INT8: case CL_UNSIGNED_INT8: return 1;
    case CL_SNORM_INT16: case CL_UNORM_INT16: case CL_SIGNED_INT16: case CL_UNSIGNED_INT16:
    case CL_HALF_FLOAT: return 2;
    default: return 4;
  }
}

// The spec's rules for which data types each channel order takes (clCreateImage's table of
// channel orders).
bool valid_pair(cl_channel_order o, cl_channel_type t) {
  if (!known_order(o) || !known_type(t)) return false;
  switch (o) {
    // "CL_RGB or CL_RGBx. This format can only be used if channel data type =
    // CL_UNORM_SHORT_565, CL_UNORM_SHORT_555 or CL_UNORM_INT_101010."
    case CL_RGB: case CL_RGBx:
      return t == CL_UNORM_SHORT_565 || t == CL_UNORM_SHORT_555 || t == CL_UNORM_INT_101010;
    // "CL_ARGB, CL_BGRA, CL_ABGR. This format can only be used if channel data type =
    // CL_UNORM_INT8, CL_SNORM_INT8, CL_SIGNED_INT8 or CL_UNSIGNED_INT8."
    case CL_ARGB: case CL_BGRA: case CL_ABGR: return eight_bit(t);
    // "CL_INTENSITY, CL_LUMINANCE. This format can only be used if channel data type =
    // CL_UNORM_INT8, CL_UNORM_INT16, CL_SNORM_INT8, CL_SNORM_INT16, CL_HALF_FLOAT, or
    // CL_FLOAT."
    case CL_INTENSITY: case CL_LUMINANCE:
      return t == CL_UNORM_INT8 || t == CL_UNORM_INT16 || t == CL_SNORM_INT8 ||
             t == CL_SNORM_INT16 || t == CL_HALF_FLOAT || t == CL_FLOAT;
    // "CL_DEPTH. This format can only be used if channel data type = CL_UNORM_INT16 or
    // CL_FLOAT."
    case CL_DEPTH: return t == CL_UNORM_INT16 || t == CL_FLOAT;
    // "CL_sRGB, CL_sRGBx, CL_sRGBA, CL_sBGRA. This format can only be used if channel data
    // type = CL_UNORM_INT8."
    case CL_sRGB: case CL_sRGBx: case CL_sRGBA: case CL_sBGRA: return t == CL_UNORM_INT8;
    // "CL_UNORM_INT_101010_2 ... can only be used with CL_RGBA".
    case CL_RGBA: return t == CL_UNORM_INT_101010_2 || !packed(t);
    default: return !packed(t);
  }
}

VkFormat family(cl_uint components, cl_channel_type t) {
  static const VkFormat kOne[] = {VK_FORMAT_R8_UNORM, VK_FORMAT_R8_SNORM, VK_FORMAT_R8_UINT,
                                  VK_FORMAT_R8_SINT, VK_FORMAT_R16_UNORM, VK_FORMAT_R16_SNORM,
                                  VK_FORMAT_R16_UINT, VK_FORMAT_R16_SINT, VK_FORMAT_R16_SFLOAT,
                                  VK_FORMAT_R32_UINT, VK_FORMAT_R32_SINT, VK_FORMAT_R32_SFLOAT};
  static const VkFormat kTwo[] = {VK_FORMAT_R8G8_UNORM, VK_FORMAT_R8G8_SNORM, VK_FORMAT_R8G8_UINT,
                                  VK_FORMAT_R8G8_SINT, VK_FORMAT_R16G16_UNORM, VK_FORMAT_R16G16_SNORM,
                                  VK_FORMAT_R16G16_UINT, VK_FORMAT_R16G16_SINT, VK_FORMAT_R16G16_SFLOAT,
                                  VK_FORMAT_R32G32_UINT, VK_FORMAT_R32G32_SINT, VK_FORMAT_R32G32_SFLOAT};
  static const VkFormat kFour[] = {
      VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SNORM, VK_FORMAT_R8G8B8A8_UINT,
      VK_FORMAT_R8G8B8A8_SINT, VK_FORMAT_R16G16B16A16_UNORM, VK_FORMAT_R16G16B16A16_SNORM,
      VK_FORMAT_R16G16B16A16_UINT, VK_FORMAT_R16G16B16A16_SINT, VK_FORMAT_R16G16B16A16_SFLOAT,
      VK_FORMAT_R32G32B32A32_UINT, VK_FORMAT_R32G32B32A32_SINT, VK_FORMAT_R32G32B32A32_SFLOAT};
  static const cl_channel_type kTypeIndex[] = {
      CL_UNORM_INT8, CL_SNORM_INT8, CL_UNSIGNED_INT8, CL_SIGNED_INT8, CL_UNORM_INT16,
      CL_SNORM_INT16, CL_UNSIGNED_INT16, CL_SIGNED_INT16, CL_HALF_FLOAT, CL_UNSIGNED_INT32,
      CL_SIGNED_INT32, CL_FLOAT};
  auto it = std::find(std::begin(kTypeIndex), std::end(kTypeIndex), t);
  if (it == std::end(kTypeIndex)) return VK_FORMAT_UNDEFINED;
  size_t i = size_t(it - std::begin(kTypeIndex));
  return components == 1 ? kOne[i] : components == 2 ? kTwo[i] : kFour[i];
}

VkFormat bgra(cl_channel_type t) {
  switch (t) {
    case CL_UNORM_INT8: return VK_FORMAT_B8G8R8A8_UNORM;
    case CL_SNORM_INT8: return VK_FORMAT_B8G8R8A8_SNORM;
    case CL_UNSIGNED_INT8: return VK_FORMAT_B8G8R8A8_UINT;
    case CL_SIGNED_INT8: return VK_FORMAT_B8G8R8A8_SINT;
    default: return VK_FORMAT_UNDEFINED;
  }
}

}  // namespace

cl_uint channel_count(cl_channel_order order) {
  switch (order) {
    case CL_R: case CL_A: case CL_INTENSITY: case CL_LUMINANCE: case CL_DEPTH: return 1;
    case CL_RG: case CL_RA: case CL_Rx: return 2;
    case CL_RGB: case CL_RGx: case CL_sRGB: return 3;
    case CL_RGBA: case CL_BGRA: case CL_ARGB: case CL_ABGR: case CL_RGBx: case CL_sRGBA:
    case CL_sBGRA: case CL_sRGBx: return 4;
    default: return 0;
  }
}

size_t element_size(const cl_image_format& f) {
  if (!valid_pair(f.image_channel_order, f.image_channel_data_type)) return 0;
  switch (f.image_channel_data_type) {
    case CL_UNORM_SHORT_565: case CL_UNORM_SHORT_555: return 2;
    case CL_UNORM_INT_101010: case CL_UNORM_INT_101010_2: return 4;
    default: return channel_count(f.image_channel_order) * channel_bytes(f.image_channel_data_type);
  }
}

VulkanFormat vulkan_format(const cl_image_format& f) {
  const cl_channel_type t = f.image_channel_data_type;
  if (!element_size(f)) return {};
  switch (f.image_channel_order) {
    case CL_R: return {family(1, t), false};
    case CL_A: case CL_INTENSITY: case CL_LUMINANCE: return {family(1, t), true};
    case CL_RG: return {family(2, t), false};
    case CL_RA: return {family(2, t), true};
    case CL_RGBA:
      // CL_UNORM_INT_101010_2's bit layout is not one of Vulkan's packed formats' (left out).
      return {t == CL_UNORM_INT_101010_2 ? VK_FORMAT_UNDEFINED : family(4, t), false};
    case CL_BGRA: return {bgra(t), false};
    // Bytes A,R,G,B and A,B,G,R: RGBA's bytes read through a swizzle.
    case CL_ARGB: case CL_ABGR: return {family(4, t), true};
    case CL_RGB: case CL_RGBx:
      // 565 is R in bits 15:11, G 10:5, B 4:0, as VK_FORMAT_R5G6B5_UNORM_PACK16; 555 and
      // 101010 have an unused top bit or two, Vulkan's alpha there (read as 1 by a swizzle).
      if (t == CL_UNORM_SHORT_565) return {VK_FORMAT_R5G6B5_UNORM_PACK16, false};
      if (t == CL_UNORM_SHORT_555) return {VK_FORMAT_A1R5G5B5_UNORM_PACK16, true};
      return {VK_FORMAT_A2R10G10B10_UNORM_PACK32, true};
    case CL_sRGBA: return {VK_FORMAT_R8G8B8A8_SRGB, false};
    case CL_sBGRA: return {VK_FORMAT_B8G8R8A8_SRGB, false};
    case CL_sRGB: return {VK_FORMAT_R8G8B8_SRGB, false};
    case CL_sRGBx: return {VK_FORMAT_R8G8B8A8_SRGB, true};
    // Depth images (cl_khr_depth_images) only ever meet kernels and the host: a colour
    // format of one channel holds them (R16_UNORM, R32_SFLOAT).
    case CL_DEPTH: return {family(1, t), false};
    // CL_Rx and CL_RGx have no Vulkan format of their size without a swizzle nobody asked
    // for yet.
    default: return {};
  }
}

VkComponentMapping kernel_swizzle(const cl_image_format& f) {
  constexpr VkComponentSwizzle R = VK_COMPONENT_SWIZZLE_R, G = VK_COMPONENT_SWIZZLE_G,
                               B = VK_COMPONENT_SWIZZLE_B, A = VK_COMPONENT_SWIZZLE_A,
                               ZERO = VK_COMPONENT_SWIZZLE_ZERO, ONE = VK_COMPONENT_SWIZZLE_ONE;
  if (!vulkan_format(f).swizzled) return {};
  switch (f.image_channel_order) {
    case CL_A: return {ZERO, ZERO, ZERO, R};        // (0, 0, 0, A)
    case CL_INTENSITY: return {R, R, R, R};         // (I, I, I, I)
    case CL_LUMINANCE: return {R, R, R, ONE};       // (L, L, L, 1.0)
    case CL_RA: return {R, ZERO, ZERO, G};          // (R, 0, 0, A)
    case CL_ARGB: return {G, B, A, R};              // bytes A, R, G, B
    case CL_ABGR: return {A, B, G, R};              // bytes A, B, G, R
    default: return {R, G, B, ONE};                 // an unused channel in Vulkan's alpha
  }
}

namespace {

vk::ImageType vk_image_type(cl_mem_object_type type) {
  switch (type) {
    case CL_MEM_OBJECT_IMAGE1D: return vk::ImageType::k1D;
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: return vk::ImageType::k1DArray;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: return vk::ImageType::k2DArray;
    case CL_MEM_OBJECT_IMAGE3D: return vk::ImageType::k3D;
    default: return vk::ImageType::k2D;
  }
}

}  // namespace

bool format_supported(const vk::DeviceInfo& device, cl_mem_flags flags, cl_mem_object_type type,
                      const cl_image_format& format) {
  // "CL_sRGBx: a four channel image format ... The fourth channel is ignored" (5.3.1.1), so 4
  // bytes per element in memory. The conformance tests store 3 (OpenCL-CTS issue #1110, open):
  // given 4, their read and write tests overflow their own buffers and crash. An optional
  // format that the spec and the tests disagree on is not listed.
  if (format.image_channel_order == CL_sRGBx) return false;
  VulkanFormat vf = vulkan_format(format);
  if (vf.format == VK_FORMAT_UNDEFINED) return false;
  vk::FormatSupport s = vk::format_support(device, vf.format);
  const bool read_write = flags & CL_MEM_KERNEL_READ_AND_WRITE;
  const bool reads = !(flags & CL_MEM_WRITE_ONLY);
  const bool writes = !(flags & CL_MEM_READ_ONLY);
  if (type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
    // Texel buffers, which have no swizzle: read through a uniform texel buffer, written (and
    // read_write) through a storage one of format Unknown.
    if (vf.swizzled || format.image_channel_order == CL_DEPTH) return false;
    if (reads && !read_write && !s.uniform_texel_buffer) return false;
    if (writes && !read_write && (!s.storage_texel_buffer || !device.features.shaderStorageImageWriteWithoutFormat))
      return false;
    if (read_write && (!s.storage_texel_buffer || !read_write_runs(device, type, vf.format))) return false;
    // And only formats 1D images have too: the conformance tests compare the two (lavapipe
    // has texel buffers of 3-byte CL_sRGB, not images).
    return format_supported(device, flags, CL_MEM_OBJECT_IMAGE1D, format);
  }
  // cl_khr_depth_images: "CL_DEPTH ... for image objects of type CL_MEM_OBJECT_IMAGE2D and
  // CL_MEM_OBJECT_IMAGE2D_ARRAY" only.
  if (format.image_channel_order == CL_DEPTH && type != CL_MEM_OBJECT_IMAGE2D &&
      type != CL_MEM_OBJECT_IMAGE2D_ARRAY)
    return false;
  if (!s.transfer) return false;
  // What a kernel will do with it. Kernels bind images per enqueue, so written images are
  // storage images of format Unknown.
  VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  if (reads && !read_write) {
    if (!s.sampled) return false;
    usage |= VK_IMAGE_USAGE_SAMPLED_BIT;
  }
  if (writes || read_write) {
    // A storage view has no swizzle: a swizzled format is written only where its one channel
    // takes the colour's first component, as Vulkan's R does: "CL_INTENSITY (I, I, I, I)",
    // "CL_LUMINANCE (L, L, L, 1.0)" (OpenCL C 6.15.15.7). Read through storage, they would
    // read as (I, 0, 0, 1): not read_write.
    const bool written_as_red = format.image_channel_order == CL_INTENSITY ||
                                format.image_channel_order == CL_LUMINANCE;
    if ((vf.swizzled && (read_write || !written_as_red)) || !s.storage) return false;
    if (!read_write && !s.storage_write_without_format) return false;
    // read_write images without the device's formatless storage reads name their format.
    if (read_write && !read_write_runs(device, type, vf.format)) return false;
    usage |= VK_IMAGE_USAGE_STORAGE_BIT;
  }
  VkImageFormatProperties limits;
  return vk::image_limits(device, vf.format, vk_image_type(type), usage, &limits);
}

std::vector<cl_image_format> supported_formats(const vk::DeviceInfo& device, cl_mem_flags flags,
                                               cl_mem_object_type type) {
  std::vector<cl_image_format> formats;
  for (cl_channel_order o : kOrders)
    for (cl_channel_type t : kTypes) {
      cl_image_format f{o, t};
      if (format_supported(device, flags, type, f)) formats.push_back(f);
    }
  return formats;
}

namespace {

// Round to nearest even, saturated to [lo, hi]; NaN (implementation-defined) gives 0.
uint32_t normalized(float x, float scale, float lo, float hi) {
  if (std::isnan(x)) return 0;
  float f = std::max(lo, std::min(hi, scale * x));
  return uint32_t(int32_t(std::nearbyint(f)));
}

// float -> half, round to nearest even; NaN stays NaN, infinities stay infinite.
uint16_t to_half(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000u);
  uint32_t exponent = (bits >> 23) & 0xff;
  uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0xff) return uint16_t(sign | 0x7c00u | (mantissa ? 0x200u : 0));
  int e = int(exponent) - 127 + 15;
  if (e >= 31) return uint16_t(sign | 0x7c00u);  // overflow rounds to infinity
  if (e <= 0) {
    if (e < -10) return sign;  // below half the smallest denormal
    mantissa |= 0x800000u;
    uint32_t shift = uint32_t(14 - e);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1))) ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = (uint32_t(e) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) ++half;  // may carry into infinity
  return uint16_t(sign | half);
}

// §7.4.5: linear to sRGB (the spec's formula omits the "- 0.055" of the sRGB standard's).
float to_srgb(float y) {
  if (std::isnan(y) || y < 0) return 0;
  if (y < 0.0031308f) return 12.92f * y;
  if (y <= 1) return 1.055f * std::pow(y, 1.0f / 2.4f) - 0.055f;
  return 1;
}

void store(uint8_t* p, cl_channel_type t, const float* f, const int32_t* i, const uint32_t* u) {
  switch (t) {
    case CL_UNORM_INT8: *p = uint8_t(normalized(*f, 255, 0, 255)); return;
    case CL_SNORM_INT8: *p = uint8_t(normalized(*f, 127, -128, 127)); return;
    case CL_UNORM_INT16: { uint16_t v = uint16_t(normalized(*f, 65535, 0, 65535)); std::memcpy(p, &v, 2); return; }
    case CL_SNORM_INT16: { uint16_t v = uint16_t(normalized(*f, 32767, -32768, 32767)); std::memcpy(p, &v, 2); return; }
    case CL_HALF_FLOAT: { uint16_t v = to_half(*f); std::memcpy(p, &v, 2); return; }
    case CL_FLOAT: std::memcpy(p, f, 4); return;
    // §7.4.4: integer writes saturate.
    case CL_SIGNED_INT8: *p = uint8_t(std::clamp(*i, -128, 127)); return;
    case CL_SIGNED_INT16: { int16_t v = int16_t(std::clamp(*i, -32768, 32767)); std::memcpy(p, &v, 2); return; }
    case CL_SIGNED_INT32: std::memcpy(p, i, 4); return;
    case CL_UNSIGNED_INT8: *p = uint8_t(std::min(*u, 255u)); return;
    case CL_UNSIGNED_INT16: { uint16_t v = uint16_t(std::min(*u, 65535u)); std::memcpy(p, &v, 2); return; }
    case CL_UNSIGNED_INT32: std::memcpy(p, u, 4); return;
    default: return;
  }
}

}  // namespace

void pack_fill_color(const cl_image_format& format, const void* color, uint8_t* texel) {
  const cl_channel_order o = format.image_channel_order;
  const cl_channel_type t = format.image_channel_data_type;
  float f[4];
  int32_t i[4];
  uint32_t u[4];
  std::memcpy(f, color, 16);
  std::memcpy(i, color, 16);
  std::memcpy(u, color, 16);
  const bool srgb = o == CL_sRGB || o == CL_sRGBx || o == CL_sRGBA || o == CL_sBGRA;
  if (srgb)
    for (int c = 0; c < 3; ++c) f[c] = to_srgb(f[c]);  // alpha stays linear
  if (t == CL_UNORM_SHORT_565 || t == CL_UNORM_SHORT_555 || t == CL_UNORM_INT_101010) {
    uint32_t r, g, b, v;
    if (t == CL_UNORM_SHORT_565) {
      r = normalized(f[0], 31, 0, 31), g = normalized(f[1], 63, 0, 63), b = normalized(f[2], 31, 0, 31);
      v = (r << 11) | (g << 5) | b;
      uint16_t h = uint16_t(v);
      std::memcpy(texel, &h, 2);
    } else if (t == CL_UNORM_SHORT_555) {
      r = normalized(f[0], 31, 0, 31), g = normalized(f[1], 31, 0, 31), b = normalized(f[2], 31, 0, 31);
      uint16_t h = uint16_t((r << 10) | (g << 5) | b);
      std::memcpy(texel, &h, 2);
    } else {
      r = normalized(f[0], 1023, 0, 1023), g = normalized(f[1], 1023, 0, 1023), b = normalized(f[2], 1023, 0, 1023);
      v = (r << 20) | (g << 10) | b;
      std::memcpy(texel, &v, 4);
    }
    return;
  }
  // The colour's components (R, G, B, A = 0..3) in the order the element stores them; a
  // padding channel (-1) is written as if it were alpha 1.
  int order[4] = {0, 1, 2, 3};
  switch (o) {
    case CL_A: order[0] = 3; break;
    case CL_RA: order[1] = 3; break;
    case CL_BGRA: case CL_sBGRA: order[0] = 2, order[2] = 0; break;
    case CL_ARGB: order[0] = 3, order[1] = 0, order[2] = 1, order[3] = 2; break;
    case CL_ABGR: order[0] = 3, order[1] = 2, order[2] = 1, order[3] = 0; break;
    case CL_Rx: order[1] = -1; break;
    case CL_RGx: order[2] = -1; break;
    case CL_sRGBx: order[3] = -1; break;
    default: break;
  }
  const float one_f = 1.0f;
  const int32_t one_i = 1;
  const uint32_t one_u = 1;
  const size_t bytes = channel_bytes(t);
  const cl_uint channels = channel_count(o);
  for (cl_uint c = 0; c < channels; ++c) {
    int k = order[c];
    if (k < 0) store(texel + c * bytes, t, &one_f, &one_i, &one_u);
    else store(texel + c * bytes, t, &f[k], &i[k], &u[k]);
  }
}

bool backs_minimum_image_formats(const vk::DeviceInfo& device) {
  const cl_channel_type rgba[] = {CL_UNORM_INT8,    CL_UNORM_INT16,   CL_SIGNED_INT8,    CL_SIGNED_INT16,
                                  CL_SIGNED_INT32,  CL_UNSIGNED_INT8, CL_UNSIGNED_INT16, CL_UNSIGNED_INT32,
                                  CL_HALF_FLOAT,    CL_FLOAT};
  std::vector<cl_image_format> required;
  for (cl_channel_type t : rgba) required.push_back({CL_RGBA, t});
  required.push_back({CL_BGRA, CL_UNORM_INT8});
  for (const cl_image_format& f : required)
    for (cl_mem_flags flags : {CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY})
      if (!format_supported(device, flags, CL_MEM_OBJECT_IMAGE2D, f)) return false;
  return true;
}

bool backs_read_write_images(const vk::DeviceInfo& device) {
  const cl_channel_type types[] = {CL_UNORM_INT8,   CL_SIGNED_INT8,    CL_SIGNED_INT16,   CL_SIGNED_INT32, CL_UNSIGNED_INT8,
                                   CL_UNSIGNED_INT16, CL_UNSIGNED_INT32, CL_HALF_FLOAT, CL_FLOAT};
  for (cl_channel_order o : {CL_R, CL_RGBA})
    for (cl_channel_type t : types)
      if (!format_supported(device, CL_MEM_READ_WRITE | CL_MEM_KERNEL_READ_AND_WRITE, CL_MEM_OBJECT_IMAGE2D, {o, t}))
        return false;
  return true;
}

bool read_write_runs(const vk::DeviceInfo& device, cl_mem_object_type type, VkFormat format) {
  if (!read_write_typed(device, type, format)) return true;
  uint32_t spirv = spirv_image_format(format);
  return spirv && (!k2s::extended_storage_format(spirv) || device.features.shaderStorageImageExtendedFormats);
}

bool read_write_typed(const vk::DeviceInfo& device, cl_mem_object_type type, VkFormat format) {
  // The device-wide features cover every format: no per-format query (this runs per launch).
  const bool device_wide = device.features.shaderStorageImageReadWithoutFormat &&
                           device.features.shaderStorageImageWriteWithoutFormat;
  if (device_wide || type == CL_MEM_OBJECT_IMAGE1D_BUFFER) return !device_wide;
  vk::FormatSupport s = vk::format_support(device, format);
  return !s.storage_read_without_format || !s.storage_write_without_format;
}

uint32_t spirv_image_format(VkFormat format) {
  using F = spv::ImageFormat;
  switch (format) {
    case VK_FORMAT_R32G32B32A32_SFLOAT: return uint32_t(F::Rgba32f);
    case VK_FORMAT_R16G16B16A16_SFLOAT: return uint32_t(F::Rgba16f);
    case VK_FORMAT_R32_SFLOAT: return uint32_t(F::R32f);
    case VK_FORMAT_R8G8B8A8_UNORM: return uint32_t(F::Rgba8);
    case VK_FORMAT_R8G8B8A8_SNORM: return uint32_t(F::Rgba8Snorm);
    case VK_FORMAT_R32G32_SFLOAT: return uint32_t(F::Rg32f);
    case VK_FORMAT_R16G16_SFLOAT: return uint32_t(F::Rg16f);
    case VK_FORMAT_R16_SFLOAT: return uint32_t(F::R16f);
    case VK_FORMAT_R16G16B16A16_UNORM: return uint32_t(F::Rgba16);
    case VK_FORMAT_A2B10G10R10_UNORM_PACK32: return uint32_t(F::Rgb10A2);
    case VK_FORMAT_R16G16_UNORM: return uint32_t(F::Rg16);
    case VK_FORMAT_R8G8_UNORM: return uint32_t(F::Rg8);
    case VK_FORMAT_R16_UNORM: return uint32_t(F::R16);
    case VK_FORMAT_R8_UNORM: return uint32_t(F::R8);
    case VK_FORMAT_R16G16B16A16_SNORM: return uint32_t(F::Rgba16Snorm);
    case VK_FORMAT_R16G16_SNORM: return uint32_t(F::Rg16Snorm);
    case VK_FORMAT_R8G8_SNORM: return uint32_t(F::Rg8Snorm);
    case VK_FORMAT_R16_SNORM: return uint32_t(F::R16Snorm);
    case VK_FORMAT_R8_SNORM: return uint32_t(F::R8Snorm);
    case VK_FORMAT_R32G32B32A32_SINT: return uint32_t(F::Rgba32i);
    case VK_FORMAT_R16G16B16A16_SINT: return uint32_t(F::Rgba16i);
    case VK_FORMAT_R8G8B8A8_SINT: return uint32_t(F::Rgba8i);
    case VK_FORMAT_R32_SINT: return uint32_t(F::R32i);
    case VK_FORMAT_R32G32_SINT: return uint32_t(F::Rg32i);
    case VK_FORMAT_R16G16_SINT: return uint32_t(F::Rg16i);
    case VK_FORMAT_R8G8_SINT: return uint32_t(F::Rg8i);
    case VK_FORMAT_R16_SINT: return uint32_t(F::R16i);
    case VK_FORMAT_R8_SINT: return uint32_t(F::R8i);
    case VK_FORMAT_R32G32B32A32_UINT: return uint32_t(F::Rgba32ui);
    case VK_FORMAT_R16G16B16A16_UINT: return uint32_t(F::Rgba16ui);
    case VK_FORMAT_R8G8B8A8_UINT: return uint32_t(F::Rgba8ui);
    case VK_FORMAT_R32_UINT: return uint32_t(F::R32ui);
    case VK_FORMAT_A2B10G10R10_UINT_PACK32: return uint32_t(F::Rgb10a2ui);
    case VK_FORMAT_R32G32_UINT: return uint32_t(F::Rg32ui);
    case VK_FORMAT_R16G16_UINT: return uint32_t(F::Rg16ui);
    case VK_FORMAT_R8G8_UINT: return uint32_t(F::Rg8ui);
    case VK_FORMAT_R16_UINT: return uint32_t(F::R16ui);
    case VK_FORMAT_R8_UINT: return uint32_t(F::R8ui);
    default: return 0;
  }
}

bool backs_depth_images(const vk::DeviceInfo& device) {
  for (cl_channel_type t : {CL_UNORM_INT16, CL_FLOAT})
    for (cl_mem_flags flags : {CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY})
      for (cl_mem_object_type type : {CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE2D_ARRAY})
        if (!format_supported(device, flags, type, {CL_DEPTH, t})) return false;
  return true;
}

}  // namespace vkcl::cl
