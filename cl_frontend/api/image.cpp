// Image entry points: creation, queries and image commands.
#include <algorithm>
#include <cstring>

#include "api/api.h"
#include "api/enqueue_made.h"
#include "core/device.h"
#include "core/gpu_command.h"
#include "core/image.h"
#include "core/image_format.h"
#include "core/info.h"
#include "core/queue.h"

namespace vkcl::api {
namespace {

using cl::Ref;

bool is_image_type(cl_mem_object_type t) {
  return t == CL_MEM_OBJECT_IMAGE1D || t == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
         t == CL_MEM_OBJECT_IMAGE1D_BUFFER || t == CL_MEM_OBJECT_IMAGE2D ||
         t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE3D;
}

bool is_array(cl_mem_object_type t) {
  return t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D_ARRAY;
}

// Whether the context's device reports images (CL_DEVICE_IMAGE_SUPPORT).
// (Every device of the context: an image has a copy on each.)
bool images_supported(cl_context context) {
  for (_cl_device_id* d : context->devices)
    if (!d->images()) return false;
  return true;
}

// A 2D image from another 2D image |from| (desc.mem_object): "All the values specified in
// image_desc except for mem_object must match the image descriptor information associated
// with mem_object", which clGetImageInfo gives (so a pitch is 0 or the one it reports).
cl_int check_image_from_image(const cl_image_desc& desc, const cl::Image& from, cl_image_desc* out) {
  // (A 2D image from a buffer keeps a copy of the buffer's rows for kernels; an image seen
  // through it would need a second copy kept in step. Not built.)
  if (from.from_buffer()) return CL_INVALID_IMAGE_DESCRIPTOR;
  if (desc.image_width != from.desc.image_width || desc.image_height != from.desc.image_height ||
      (desc.image_row_pitch && desc.image_row_pitch != from.row_pitch()) || desc.image_slice_pitch)
    return CL_INVALID_IMAGE_DESCRIPTOR;
  *out = from.desc;
  out->mem_object = desc.mem_object;
  return CL_SUCCESS;
}

// The checks of clCreateImage on |desc| (not NULL) that give CL_INVALID_IMAGE_DESCRIPTOR or
// CL_INVALID_IMAGE_SIZE; computes the host memory's pitches into |*out|.
cl_int check_image_desc(cl_context context, const cl_image_desc& desc, size_t element, void* host_ptr,
                        cl_image_desc* out) {
  // CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid.
  if (!is_image_type(desc.image_type)) return CL_INVALID_IMAGE_DESCRIPTOR;
  const cl_mem_object_type t = desc.image_type;
  const bool two_d = t == CL_MEM_OBJECT_IMAGE2D || t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE3D;
  // "image_width ... must be >= 1", "image_height ... must be >= 1" (2D, 2D array, 3D),
  // "image_depth ... must be >= 1" (3D), "image_array_size ... must be >= 1" (arrays).
  if (desc.image_width == 0 || (two_d && desc.image_height == 0) ||
      (t == CL_MEM_OBJECT_IMAGE3D && desc.image_depth == 0) || (is_array(t) && desc.image_array_size == 0))
    return CL_INVALID_IMAGE_DESCRIPTOR;
  // "num_mip_levels and num_samples must be 0."
  if (desc.num_mip_levels != 0 || desc.num_samples != 0) return CL_INVALID_IMAGE_DESCRIPTOR;
  // "mem_object ... can be a buffer memory object if image_type is CL_MEM_OBJECT_IMAGE1D_BUFFER
  // or CL_MEM_OBJECT_IMAGE2D [cl_khr_image2d_from_buffer]. mem_object can be an image object if
  // image_type is CL_MEM_OBJECT_IMAGE2D. Otherwise it must be NULL."
  if (t == CL_MEM_OBJECT_IMAGE1D_BUFFER || (t == CL_MEM_OBJECT_IMAGE2D && desc.mem_object)) {
    if (!cl::validate(desc.mem_object) || desc.mem_object->context.get() != context)
      return CL_INVALID_IMAGE_DESCRIPTOR;
    const cl::Image* from = desc.mem_object->image.get();
    if (from && (t != CL_MEM_OBJECT_IMAGE2D || from->desc.image_type != CL_MEM_OBJECT_IMAGE2D))
      return CL_INVALID_IMAGE_DESCRIPTOR;
    if (from) return check_image_from_image(desc, *from, out);
  } else if (desc.mem_object) {
    return CL_INVALID_IMAGE_DESCRIPTOR;
  }
  // CL_INVALID_IMAGE_SIZE if image dimensions specified in image_desc exceed the maximum image
  // dimensions described in the Device Queries table for all devices in context.
  cl::ImageLimits limits = cl::image_limits(context->memory_device()->vk_info());
  for (_cl_device_id* d : context->devices) {
    cl::ImageLimits own = cl::image_limits(d->vk_info());
    limits = {std::min(limits.width_2d, own.width_2d), std::min(limits.height_2d, own.height_2d),
              std::min(limits.size_3d, own.size_3d), std::min(limits.array_size, own.array_size),
              std::min(limits.buffer_size, own.buffer_size)};
  }
  switch (t) {
    case CL_MEM_OBJECT_IMAGE1D:
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
      if (desc.image_width > limits.width_2d) return CL_INVALID_IMAGE_SIZE;
      break;
    case CL_MEM_OBJECT_IMAGE1D_BUFFER:
      if (desc.image_width > limits.buffer_size) return CL_INVALID_IMAGE_SIZE;
      break;
    case CL_MEM_OBJECT_IMAGE2D:
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
      if (desc.image_width > limits.width_2d || desc.image_height > limits.height_2d) return CL_INVALID_IMAGE_SIZE;
      break;
    default:
      if (desc.image_width > limits.size_3d || desc.image_height > limits.size_3d ||
          desc.image_depth > limits.size_3d)
        return CL_INVALID_IMAGE_SIZE;
  }
  if (is_array(t) && desc.image_array_size > limits.array_size) return CL_INVALID_IMAGE_SIZE;

  *out = desc;
  // "image_row_pitch ... must be 0 if host_ptr is NULL and can be either 0 or >= image_width *
  // size of element in bytes if host_ptr is not NULL. ... If image_row_pitch is not 0, it must
  // be a multiple of the image element size in bytes."
  // "image_slice_pitch ... must be 0 if host_ptr is NULL. If host_ptr is not NULL,
  // image_slice_pitch can be either 0 or >= image_row_pitch * image_height for a 2D image
  // array or 3D image and can be either 0 or >= image_row_pitch for a 1D image array. ... If
  // image_slice_pitch is not 0, it must be a multiple of the image_row_pitch."
  if (t == CL_MEM_OBJECT_IMAGE2D && desc.mem_object) {
    // cl_khr_image2d_from_buffer: the rows are the buffer's, image_row_pitch (or the row's
    // bytes when 0) apart: at least a row's bytes, a multiple of CL_DEVICE_IMAGE_PITCH_ALIGNMENT
    // pixels (1); no slice pitch.
    const size_t row = desc.image_row_pitch ? desc.image_row_pitch : desc.image_width * element;
    if (desc.image_slice_pitch || row < desc.image_width * element || row % element) return CL_INVALID_IMAGE_DESCRIPTOR;
    out->image_row_pitch = row;
    out->image_slice_pitch = 0;
    return CL_SUCCESS;
  }
  if (t == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
    // One row, in the buffer: a row pitch there is one the buffer's row could have (the
    // conformance tests give one), and host pitches play no part.
    if (desc.image_slice_pitch ||
        (desc.image_row_pitch && (desc.image_row_pitch < desc.image_width * element || desc.image_row_pitch % element)))
      return CL_INVALID_IMAGE_DESCRIPTOR;
    out->image_row_pitch = out->image_slice_pitch = 0;
    return CL_SUCCESS;
  }
  if (!host_ptr) {
    if (desc.image_row_pitch || desc.image_slice_pitch) return CL_INVALID_IMAGE_DESCRIPTOR;
    return CL_SUCCESS;
  }
  const size_t min_row = desc.image_width * element;
  if (desc.image_row_pitch && (desc.image_row_pitch < min_row || desc.image_row_pitch % element))
    return CL_INVALID_IMAGE_DESCRIPTOR;
  const size_t row = desc.image_row_pitch ? desc.image_row_pitch : min_row;
  size_t min_slice = 0;
  if (t == CL_MEM_OBJECT_IMAGE1D_ARRAY) min_slice = row;
  if (t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE3D) min_slice = row * desc.image_height;
  if (desc.image_slice_pitch && (desc.image_slice_pitch < min_slice || desc.image_slice_pitch % row))
    return CL_INVALID_IMAGE_DESCRIPTOR;
  out->image_row_pitch = row;
  out->image_slice_pitch = desc.image_slice_pitch ? desc.image_slice_pitch : min_slice;
  return CL_SUCCESS;
}

cl_int inherit_flags(const _cl_mem& from, cl_mem_flags* flags);

// An image over a buffer (desc.mem_object, validated; pitches computed): the flags it may
// have, with those it inherits (into |*flags|), and the buffer's size.
cl_int check_buffer_image(const cl_image_desc& desc, size_t element, cl_mem_flags* flags) {
  const _cl_mem& buffer = *desc.mem_object;
  // A 1D buffer image's buffer "must be >= image_width * size of element in bytes" (an
  // image_desc that is not valid); a 2D image's, >= image_row_pitch * image_height.
  size_t bytes = 0;
  if (desc.image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER &&
      (__builtin_mul_overflow(desc.image_width, element, &bytes) || bytes > buffer.size))
    return CL_INVALID_IMAGE_DESCRIPTOR;
  if (desc.image_type == CL_MEM_OBJECT_IMAGE2D &&
      (__builtin_mul_overflow(desc.image_row_pitch, desc.image_height, &bytes) || bytes > buffer.size))
    return CL_INVALID_IMAGE_SIZE;
  // Its first texel at a multiple of CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT pixels (1).
  if (buffer.offset % element) return CL_INVALID_IMAGE_DESCRIPTOR;
  return inherit_flags(buffer, flags);
}

// "The image channel data type specified in image_format must match the image channel data
// type associated with mem_object", and the orders must be one of the spec's pairs (CL_sBGRA
// and CL_BGRA, CL_sRGBA and CL_RGBA, CL_sRGB and CL_RGB, CL_sRGBx and CL_RGBx, CL_DEPTH and
// CL_R) or the same.
bool views_alike(const cl_image_format& from, const cl_image_format& to) {
  if (from.image_channel_data_type != to.image_channel_data_type) return false;
  if (from.image_channel_order == to.image_channel_order) return true;
  const cl_channel_order pairs[][2] = {{CL_sBGRA, CL_BGRA}, {CL_sRGBA, CL_RGBA}, {CL_sRGB, CL_RGB},
                                       {CL_sRGBx, CL_RGBx}, {CL_DEPTH, CL_R}};
  for (const auto& pair : pairs) {
    if ((from.image_channel_order == pair[0] && to.image_channel_order == pair[1]) ||
        (from.image_channel_order == pair[1] && to.image_channel_order == pair[0]))
      return true;
  }
  return false;
}

// Flags of an image made from memory object |from|: the ones it may not have, and those it
// inherits (into |*flags|).
cl_int inherit_flags(const _cl_mem& from, cl_mem_flags* flags) {
  // CL_INVALID_VALUE if an image is being created from another memory object (buffer or
  // image) under one of the following circumstances: 1) mem_object was created with
  // CL_MEM_WRITE_ONLY and flags specifies CL_MEM_READ_WRITE or CL_MEM_READ_ONLY, 2) mem_object
  // was created with CL_MEM_READ_ONLY and flags specifies CL_MEM_READ_WRITE or
  // CL_MEM_WRITE_ONLY, 3) flags specifies CL_MEM_USE_HOST_PTR or CL_MEM_ALLOC_HOST_PTR or
  // CL_MEM_COPY_HOST_PTR.
  const cl_mem_flags f = *flags;
  if ((from.flags & CL_MEM_WRITE_ONLY) && (f & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))) return CL_INVALID_VALUE;
  if ((from.flags & CL_MEM_READ_ONLY) && (f & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))) return CL_INVALID_VALUE;
  if (f & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)) return CL_INVALID_VALUE;
  // CL_INVALID_VALUE if an image is being created from another memory object (buffer or
  // image) and mem_object was created with CL_MEM_HOST_WRITE_ONLY and flags specifies
  // CL_MEM_HOST_READ_ONLY, or if mem_object was created with CL_MEM_HOST_READ_ONLY and flags
  // specifies CL_MEM_HOST_WRITE_ONLY, or if mem_object was created with CL_MEM_HOST_NO_ACCESS
  // and flags specifies CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_WRITE_ONLY.
  if ((from.flags & CL_MEM_HOST_WRITE_ONLY) && (f & CL_MEM_HOST_READ_ONLY)) return CL_INVALID_VALUE;
  if ((from.flags & CL_MEM_HOST_READ_ONLY) && (f & CL_MEM_HOST_WRITE_ONLY)) return CL_INVALID_VALUE;
  if ((from.flags & CL_MEM_HOST_NO_ACCESS) && (f & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY)))
    return CL_INVALID_VALUE;
  // "If the CL_MEM_READ_WRITE, CL_MEM_READ_ONLY or CL_MEM_WRITE_ONLY values are not specified
  // in flags, they are inherited from the corresponding memory access qualifiers associated
  // with mem_object", and so the host access flags.
  const cl_mem_flags host = CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
  if (!(f & kAccess)) *flags |= from.flags & kAccess;
  if (!(f & host)) *flags |= from.flags & host;
  return CL_SUCCESS;
}

cl_mem CL_API_CALL CreateImageWithProperties(cl_context context, const cl_mem_properties* properties,
                                             cl_mem_flags flags, const cl_image_format* format,
                                             const cl_image_desc* desc, void* host_ptr,
                                             cl_int* errcode_ret) {
  // CL_INVALID_CONTEXT if context is not a valid context.
  if (!cl::validate(context)) return set_error(errcode_ret, CL_INVALID_CONTEXT), nullptr;
  // CL_INVALID_PROPERTY if a property name in properties is not a supported property name:
  // those of cl_khr_external_memory (an opaque fd, for images).
  ExternalMemory external;
  if (cl_int e = parse_external_memory(context, properties, &external); e != CL_SUCCESS)
    return set_error(errcode_ret, e), nullptr;
  if (external.fd >= 0 && external.type != CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR)
    return set_error(errcode_ret, CL_INVALID_PROPERTY), nullptr;
  // (cl_ext_buffer_device_address's property is for buffers.)
  if (external.device_address_given) return set_error(errcode_ret, CL_INVALID_PROPERTY), nullptr;
  // CL_INVALID_VALUE if values specified in flags are not valid.
  if (!valid_mem_flags(flags)) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  // CL_INVALID_OPERATION if there are no devices in context that support images (i.e.
  // CL_DEVICE_IMAGE_SUPPORT specified in the Device Queries table is CL_FALSE).
  if (!images_supported(context)) return set_error(errcode_ret, CL_INVALID_OPERATION), nullptr;
  // CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if values specified in image_format are not valid or if
  // image_format is NULL.
  const size_t element = format ? cl::element_size(*format) : 0;
  if (!element) return set_error(errcode_ret, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR), nullptr;
  // CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid or if
  // image_desc is NULL.
  if (!desc) return set_error(errcode_ret, CL_INVALID_IMAGE_DESCRIPTOR), nullptr;
  cl_image_desc checked;
  cl_int e = check_image_desc(context, *desc, element, host_ptr, &checked);
  if (e != CL_SUCCESS) return set_error(errcode_ret, e), nullptr;
  // CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR
  // are set in flags or if host_ptr is not NULL but CL_MEM_COPY_HOST_PTR or
  // CL_MEM_USE_HOST_PTR are not set in flags.
  const bool wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  if (wants_ptr != (host_ptr != nullptr)) return set_error(errcode_ret, CL_INVALID_HOST_PTR), nullptr;
  if (desc->mem_object && desc->mem_object->image) {
    // CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if a 2D image is created from a 2D image object and
    // the rules described above are not followed.
    if (!views_alike(desc->mem_object->image->format, *format))
      return set_error(errcode_ret, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR), nullptr;
    e = inherit_flags(*desc->mem_object, &flags);
    if (e != CL_SUCCESS) return set_error(errcode_ret, e), nullptr;
  } else if (desc->mem_object) {
    e = check_buffer_image(checked, element, &flags);
    if (e != CL_SUCCESS) return set_error(errcode_ret, e), nullptr;
  }
  if (external.fd >= 0) {
    // Memory another API allocated for an image: no host pointer to use, copy or allocate,
    // and no buffer or image whose memory it would be.
    if (flags & kHostPtr) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
    if (desc->mem_object) return set_error(errcode_ret, CL_INVALID_IMAGE_DESCRIPTOR), nullptr;
  }
  if (!(flags & kAccess)) flags |= CL_MEM_READ_WRITE;
  // CL_IMAGE_FORMAT_NOT_SUPPORTED if there are no devices in context that support
  // image_format. (The image has a copy on every device: each must.)
  for (_cl_device_id* d : context->devices)
    if (!cl::format_supported(d->vk_info(), flags, desc->image_type, *format))
      return set_error(errcode_ret, CL_IMAGE_FORMAT_NOT_SUPPORTED), nullptr;
  const cl::ImportedMemory imported{external.type, external.fd};
  auto mem = cl::create_image(context, flags, *format, checked, host_ptr, external.fd >= 0 ? &imported : nullptr);
  if (mem && properties) (*mem)->properties = external.properties;
  return hand_out(std::move(mem), errcode_ret);
}

cl_mem CL_API_CALL CreateImage(cl_context context, cl_mem_flags flags, const cl_image_format* format,
                               const cl_image_desc* desc, void* host_ptr, cl_int* errcode_ret) {
  return CreateImageWithProperties(context, nullptr, flags, format, desc, host_ptr, errcode_ret);
}

// clCreateImage2D and clCreateImage3D give CL_INVALID_IMAGE_SIZE where clCreateImage gives
// CL_INVALID_IMAGE_DESCRIPTOR: "if image_width or image_height are 0 ... or if values
// specified by image_row_pitch do not follow rules described in the argument description".
cl_mem create_legacy(cl_context context, cl_mem_flags flags, const cl_image_format* format,
                     const cl_image_desc& desc, void* host_ptr, cl_int* errcode_ret) {
  cl_int e = CL_SUCCESS;
  cl_mem mem = CreateImage(context, flags, format, &desc, host_ptr, &e);
  set_error(errcode_ret, e == CL_INVALID_IMAGE_DESCRIPTOR ? CL_INVALID_IMAGE_SIZE : e);
  return mem;
}

cl_mem CL_API_CALL CreateImage2D(cl_context context, cl_mem_flags flags, const cl_image_format* format,
                                 size_t width, size_t height, size_t row_pitch, void* host_ptr,
                                 cl_int* errcode_ret) {
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = width;
  desc.image_height = height;
  desc.image_row_pitch = row_pitch;
  return create_legacy(context, flags, format, desc, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL CreateImage3D(cl_context context, cl_mem_flags flags, const cl_image_format* format,
                                 size_t width, size_t height, size_t depth, size_t row_pitch,
                                 size_t slice_pitch, void* host_ptr, cl_int* errcode_ret) {
  // CL_INVALID_IMAGE_SIZE if ... image_depth <= 1.
  if (cl::validate(context) && images_supported(context) && depth <= 1 && format &&
      cl::element_size(*format))
    return set_error(errcode_ret, CL_INVALID_IMAGE_SIZE), nullptr;
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE3D;
  desc.image_width = width;
  desc.image_height = height;
  desc.image_depth = depth;
  desc.image_row_pitch = row_pitch;
  desc.image_slice_pitch = slice_pitch;
  return create_legacy(context, flags, format, desc, host_ptr, errcode_ret);
}

cl_int CL_API_CALL GetSupportedImageFormats(cl_context context, cl_mem_flags flags,
                                            cl_mem_object_type type, cl_uint num_entries,
                                            cl_image_format* formats, cl_uint* num_formats) {
  // CL_INVALID_CONTEXT if context is not a valid context.
  if (!cl::validate(context)) return CL_INVALID_CONTEXT;
  // CL_INVALID_VALUE if flags or image_type are not valid, or if num_entries is 0 and
  // image_formats is not NULL.
  if (!valid_mem_flags(flags) || !is_image_type(type) || (num_entries == 0 && formats))
    return CL_INVALID_VALUE;
  // "If no image formats are supported, num_image_formats returns 0": a context whose device
  // reports no images supports none.
  std::vector<cl_image_format> list;
  if (images_supported(context)) {
    if (!(flags & kAccess)) flags |= CL_MEM_READ_WRITE;
    list = cl::supported_formats(context->memory_device()->vk_info(), flags, type);
    // Those of every device of the context.
    for (_cl_device_id* d : context->devices)
      list.erase(std::remove_if(list.begin(), list.end(),
                                [&](const cl_image_format& f) { return !cl::format_supported(d->vk_info(), flags, type, f); }),
                 list.end());
  }
  if (formats) std::copy_n(list.begin(), std::min<size_t>(num_entries, list.size()), formats);
  if (num_formats) *num_formats = cl_uint(list.size());
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetImageInfo(cl_mem mem, cl_image_info param, size_t size, void* value,
                                size_t* size_ret) {
  // CL_INVALID_MEM_OBJECT if image is a not a valid image object.
  if (!cl::validate(mem) || !mem->image) return CL_INVALID_MEM_OBJECT;
  const cl::Image& image = *mem->image;
  const cl_mem_object_type t = image.desc.image_type;
  cl::InfoOut out{size, value, size_ret};
  const size_t row = image.row_pitch();
  size_t slice = image.desc.image_slice_pitch;
  if (!slice && t == CL_MEM_OBJECT_IMAGE1D_ARRAY) slice = row;
  if (!slice && (t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE3D)) slice = row * image.desc.image_height;
  switch (param) {
    case CL_IMAGE_FORMAT: return out(image.format);
    case CL_IMAGE_ELEMENT_SIZE: return out(image.element_size);
    case CL_IMAGE_ROW_PITCH: return out(row);
    // "For a 1D image, 1D image buffer and 2D image object return 0."
    case CL_IMAGE_SLICE_PITCH: return out(slice);
    case CL_IMAGE_WIDTH: return out(image.desc.image_width);
    // "For a 1D image, 1D image buffer and 1D image array object, height = 0."
    case CL_IMAGE_HEIGHT:
      return out(size_t(t == CL_MEM_OBJECT_IMAGE2D || t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE3D
                             ? image.desc.image_height : 0));
    // "For a 1D image, 1D image buffer, 2D image or 1D and 2D image array object, depth = 0."
    case CL_IMAGE_DEPTH: return out(size_t(t == CL_MEM_OBJECT_IMAGE3D ? image.desc.image_depth : 0));
    // "For an image object that is not an image array, array size = 0."
    case CL_IMAGE_ARRAY_SIZE: return out(size_t(is_array(t) ? image.desc.image_array_size : 0));
    // The buffer of a 1D buffer image or a 2D image from a buffer (not an image's image).
    case CL_IMAGE_BUFFER:
      return out(image.desc.mem_object && !image.desc.mem_object->image ? image.desc.mem_object : nullptr);
    case CL_IMAGE_NUM_MIP_LEVELS: return out(cl_uint(0));
    case CL_IMAGE_NUM_SAMPLES: return out(cl_uint(0));
    // CL_INVALID_VALUE if param_name is not valid.
    default: return CL_INVALID_VALUE;
  }
}

// Common checks of image commands but the queue's own and the wait list's: the image, its
// context, images on the queue's device.
cl_int check_image_object(_cl_command_queue* queue, cl_mem image) {
  // CL_INVALID_MEM_OBJECT if image is not a valid image object.
  if (!cl::validate(image) || !image->image) return CL_INVALID_MEM_OBJECT;
  // CL_INVALID_CONTEXT if the context associated with command_queue and image are not the
  // same.
  if (image->context.get() != queue->context.get()) return CL_INVALID_CONTEXT;
  // CL_INVALID_OPERATION if the device associated with command_queue does not support images.
  if (!queue->device->images()) return CL_INVALID_OPERATION;
  return CL_SUCCESS;
}

// Common checks of image commands: the queue, the image, their context, images on the
// queue's device, the wait list.
cl_int check_image_command(cl_command_queue queue, cl_mem image, cl_uint num_events,
                           const cl_event* wait_list, std::vector<_cl_event*>* waits) {
  // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue.
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int e = check_image_object(queue, image); e != CL_SUCCESS) return e;
  return check_wait_list(num_events, wait_list, queue->context.get(), waits);
}

// CL_INVALID_VALUE if the region being read or written specified by origin and region is out
// of bounds, or if values in origin and region do not follow rules described in the argument
// description for origin and region: "If image is a 2D image object, origin[2] must be 0. If
// image is a 1D image or 1D image buffer object, origin[1] and origin[2] must be 0. If image is
// a 1D image array object, origin[2] must be 0." "If image is a 2D image object, region[2] must
// be 1. If image is a 1D image or 1D image buffer object, region[1] and region[2] must be 1. If
// image is a 1D image array object, region[2] must be 1. The values in region cannot be 0."
cl_int check_region(const cl::Image& image, const size_t* origin, const size_t* region) {
  if (!origin || !region) return CL_INVALID_VALUE;
  const size_t extent[3] = {image.width(), image.height(), image.depth()};
  for (int i = 0; i < 3; ++i) {
    if (region[i] == 0) return CL_INVALID_VALUE;
    if (origin[i] > extent[i] || region[i] > extent[i] - origin[i]) return CL_INVALID_VALUE;
  }
  return CL_SUCCESS;
}

// "If image is a 1D or 2D image", the slice pitch "must be 0" (CL_INVALID_VALUE); a row pitch
// that is not 0 "must be >= region[0] * element size" and a slice pitch >= the rows it holds.
cl_int check_host_pitches(const cl::Image& image, const size_t* region, size_t row_pitch, size_t slice_pitch) {
  const cl_mem_object_type t = image.desc.image_type;
  if ((t == CL_MEM_OBJECT_IMAGE1D || t == CL_MEM_OBJECT_IMAGE1D_BUFFER || t == CL_MEM_OBJECT_IMAGE2D) && slice_pitch)
    return CL_INVALID_VALUE;
  if (row_pitch && row_pitch < region[0] * image.element_size) return CL_INVALID_VALUE;
  const size_t row = row_pitch ? row_pitch : region[0] * image.element_size;
  const size_t rows = t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : region[1];
  if (slice_pitch && slice_pitch < row * rows) return CL_INVALID_VALUE;
  // The host memory the region spans must have an end: pitches whose products overflow
  // size_t describe none (a row pitch of SIZE_MAX / 8 once walked the host pointer off into
  // unmapped memory).
  const size_t slices = t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? region[1] : region[2];
  const size_t slice = slice_pitch ? slice_pitch : row * rows;
  size_t a = 0, b = 0, span = 0;
  if (__builtin_mul_overflow(row, rows - 1, &a) || __builtin_mul_overflow(slice, slices - 1, &b) ||
      __builtin_add_overflow(a, b, &span) || __builtin_add_overflow(span, region[0] * image.element_size, &span))
    return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

struct Box {
  size_t v[3];
  explicit Box(const size_t* p) { std::memcpy(v, p, sizeof(v)); }
};

cl_int CL_API_CALL EnqueueReadImage(cl_command_queue queue, cl_mem image, cl_bool blocking,
                                    const size_t* origin, const size_t* region, size_t row_pitch,
                                    size_t slice_pitch, void* ptr, cl_uint num_events,
                                    const cl_event* wait_list, cl_event* event) {
  std::vector<_cl_event*> waits;
  cl_int e = check_image_command(queue, image, num_events, wait_list, &waits);
  if (e != CL_SUCCESS) return e;
  if ((e = check_region(*image->image, origin, region)) != CL_SUCCESS) return e;
  if ((e = check_host_pitches(*image->image, region, row_pitch, slice_pitch)) != CL_SUCCESS) return e;
  // CL_INVALID_VALUE if ... ptr is a NULL value.
  if (!ptr) return CL_INVALID_VALUE;
  // CL_INVALID_OPERATION if clEnqueueReadImage is called on image which has been created with
  // CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS.
  if (image->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)) return CL_INVALID_OPERATION;
  Box o(origin), r(region);
  auto result = queue->enqueue(CL_COMMAND_READ_IMAGE, waits, false,
                               [queue, image, o, r, row_pitch, slice_pitch, ptr] {
                                 cl_int s = queue->sync();
                                 return s ? s : cl::read_image(*queue, *image, o.v, r.v, row_pitch, slice_pitch, ptr);
                               },
                               {cl::keep(image)});
  return finish_enqueue(std::move(result), blocking, event);
}

cl_int CL_API_CALL EnqueueWriteImage(cl_command_queue queue, cl_mem image, cl_bool blocking,
                                     const size_t* origin, const size_t* region, size_t row_pitch,
                                     size_t slice_pitch, const void* ptr, cl_uint num_events,
                                     const cl_event* wait_list, cl_event* event) {
  std::vector<_cl_event*> waits;
  cl_int e = check_image_command(queue, image, num_events, wait_list, &waits);
  if (e != CL_SUCCESS) return e;
  if ((e = check_region(*image->image, origin, region)) != CL_SUCCESS) return e;
  if ((e = check_host_pitches(*image->image, region, row_pitch, slice_pitch)) != CL_SUCCESS) return e;
  if (!ptr) return CL_INVALID_VALUE;
  // CL_INVALID_OPERATION if clEnqueueWriteImage is called on image which has been created with
  // CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS.
  if (image->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)) return CL_INVALID_OPERATION;
  // Non-blocking, |ptr| is read when the command runs (the application may not reuse it
  // until the command completes).
  Box o(origin), r(region);
  auto result = queue->enqueue(CL_COMMAND_WRITE_IMAGE, waits, false,
                               [queue, image, o, r, row_pitch, slice_pitch, ptr] {
                                 cl_int s = queue->sync();
                                 return s ? s
                                          : cl::write_image(*queue, *image, o.v, r.v, row_pitch, slice_pitch, ptr);
                               },
                               {cl::keep(image)});
  return finish_enqueue(std::move(result), blocking, event);
}

bool same_format(const cl_image_format& a, const cl_image_format& b) {
  return a.image_channel_order == b.image_channel_order && a.image_channel_data_type == b.image_channel_data_type;
}

// The buffer side of copies between images and buffers: CL_INVALID_MEM_OBJECT if it is not a
// valid buffer object; CL_INVALID_VALUE if the bytes at |offset| for |region| "refer to a
// region outside" it.
cl_int check_buffer_side(cl_command_queue queue, cl_mem buffer, size_t offset, size_t bytes) {
  if (!cl::validate(buffer) || buffer->image) return CL_INVALID_MEM_OBJECT;
  if (buffer->context.get() != queue->context.get()) return CL_INVALID_CONTEXT;
  if (offset > buffer->size || bytes > buffer->size - offset) return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

}  // namespace

cl_int copy_image_command(_cl_command_queue* queue, cl_mem src, cl_mem dst, const size_t* src_origin,
                          const size_t* dst_origin, const size_t* region, cl::GpuCommand* out) {
  cl_int e = check_image_object(queue, src);
  if (e != CL_SUCCESS) return e;
  // CL_INVALID_MEM_OBJECT if src_image and dst_image are not valid image objects.
  if (!cl::validate(dst) || !dst->image) return CL_INVALID_MEM_OBJECT;
  if (dst->context.get() != queue->context.get()) return CL_INVALID_CONTEXT;
  // CL_IMAGE_FORMAT_MISMATCH if src_image and dst_image do not use the same image format.
  if (!same_format(src->image->format, dst->image->format)) return CL_IMAGE_FORMAT_MISMATCH;
  // CL_INVALID_VALUE if the 2D or 3D rectangular region specified by src_origin and
  // src_origin + region refers to a region outside src_image, or if the 2D or 3D rectangular
  // region specified by dst_origin and dst_origin + region refers to a region outside
  // dst_image; and the rules on origins and regions of both image types.
  if ((e = check_region(*src->image, src_origin, region)) != CL_SUCCESS) return e;
  if ((e = check_region(*dst->image, dst_origin, region)) != CL_SUCCESS) return e;
  // CL_MEM_COPY_OVERLAP if src_image and dst_image are the same image object and the source
  // and destination regions overlap.
  if (src == dst) {
    bool overlap = true;
    for (int i = 0; i < 3; ++i)
      overlap = overlap && src_origin[i] < dst_origin[i] + region[i] && dst_origin[i] < src_origin[i] + region[i];
    if (overlap) return CL_MEM_COPY_OVERLAP;
  }
  auto scratch = cl::prepare_copy_image(*queue, *src, *dst, region);
  if (!scratch) return scratch.error();
  Box so(src_origin), d(dst_origin), r(region);
  out->type = CL_COMMAND_COPY_IMAGE;
  out->record = [src, dst, so, d, r, s = *scratch](_cl_command_queue& q) {
    return cl::copy_image(q, *src, *dst, so.v, d.v, r.v, s);
  };
  out->keep = {cl::keep(src), cl::keep(dst), *scratch};
  out->fixed = true;
  return CL_SUCCESS;
}

cl_int fill_image_command(_cl_command_queue* queue, cl_mem image, const void* fill_color,
                          const size_t* origin, const size_t* region, cl::GpuCommand* out) {
  cl_int e = check_image_object(queue, image);
  if (e != CL_SUCCESS) return e;
  // CL_INVALID_VALUE if fill_color is NULL.
  if (!fill_color) return CL_INVALID_VALUE;
  if ((e = check_region(*image->image, origin, region)) != CL_SUCCESS) return e;
  uint8_t texel[16] = {};
  cl::pack_fill_color(image->image->format, fill_color, texel);
  auto pattern = cl::prepare_fill_image(*queue, *image, texel, region);
  if (!pattern) return pattern.error();
  Box o(origin), r(region);
  out->type = CL_COMMAND_FILL_IMAGE;
  out->record = [image, o, r, p = *pattern](_cl_command_queue& q) {
    return cl::fill_image(q, *image, o.v, r.v, p);
  };
  out->keep = {cl::keep(image), *pattern};
  out->fixed = true;
  return CL_SUCCESS;
}

cl_int copy_image_to_buffer_command(_cl_command_queue* queue, cl_mem src, cl_mem dst,
                                    const size_t* origin, const size_t* region, size_t offset,
                                    cl::GpuCommand* out) {
  cl_int e = check_image_object(queue, src);
  if (e != CL_SUCCESS) return e;
  if ((e = check_region(*src->image, origin, region)) != CL_SUCCESS) return e;
  // "dst_cb = src_image_width * src_image_height * src_image_depth * bytes per element".
  const size_t bytes = region[0] * region[1] * region[2] * src->image->element_size;
  if ((e = check_buffer_side(queue, dst, offset, bytes)) != CL_SUCCESS) return e;
  auto scratch = cl::prepare_image_buffer_copy(*queue, *src, *dst, offset, region);
  if (!scratch) return scratch.error();
  Box o(origin), r(region);
  out->type = CL_COMMAND_COPY_IMAGE_TO_BUFFER;
  out->record = [src, dst, o, r, offset, s = *scratch](_cl_command_queue& q) {
    return cl::copy_image_to_buffer(q, *src, *dst, o.v, r.v, offset, s);
  };
  out->keep = {cl::keep(src), cl::keep(dst), *scratch};
  out->fixed = true;
  return CL_SUCCESS;
}

cl_int copy_buffer_to_image_command(_cl_command_queue* queue, cl_mem src, cl_mem dst, size_t offset,
                                    const size_t* origin, const size_t* region, cl::GpuCommand* out) {
  cl_int e = check_image_object(queue, dst);
  if (e != CL_SUCCESS) return e;
  if ((e = check_region(*dst->image, origin, region)) != CL_SUCCESS) return e;
  const size_t bytes = region[0] * region[1] * region[2] * dst->image->element_size;
  if ((e = check_buffer_side(queue, src, offset, bytes)) != CL_SUCCESS) return e;
  auto scratch = cl::prepare_image_buffer_copy(*queue, *dst, *src, offset, region);
  if (!scratch) return scratch.error();
  Box o(origin), r(region);
  out->type = CL_COMMAND_COPY_BUFFER_TO_IMAGE;
  out->record = [src, dst, o, r, offset, s = *scratch](_cl_command_queue& q) {
    return cl::copy_buffer_to_image(q, *src, *dst, offset, o.v, r.v, s);
  };
  out->keep = {cl::keep(src), cl::keep(dst), *scratch};
  out->fixed = true;
  return CL_SUCCESS;
}

namespace {

cl_int CL_API_CALL EnqueueCopyImage(cl_command_queue queue, cl_mem src, cl_mem dst, const size_t* src_origin,
                                    const size_t* dst_origin, const size_t* region, cl_uint num_events,
                                    const cl_event* wait_list, cl_event* event) {
  return enqueue_made(queue, num_events, wait_list, event, [&](cl::GpuCommand* c) {
    return copy_image_command(queue, src, dst, src_origin, dst_origin, region, c);
  });
}

cl_int CL_API_CALL EnqueueFillImage(cl_command_queue queue, cl_mem image, const void* fill_color,
                                    const size_t* origin, const size_t* region, cl_uint num_events,
                                    const cl_event* wait_list, cl_event* event) {
  return enqueue_made(queue, num_events, wait_list, event, [&](cl::GpuCommand* c) {
    return fill_image_command(queue, image, fill_color, origin, region, c);
  });
}

cl_int CL_API_CALL EnqueueCopyImageToBuffer(cl_command_queue queue, cl_mem src, cl_mem dst,
                                            const size_t* origin, const size_t* region, size_t offset,
                                            cl_uint num_events, const cl_event* wait_list, cl_event* event) {
  return enqueue_made(queue, num_events, wait_list, event, [&](cl::GpuCommand* c) {
    return copy_image_to_buffer_command(queue, src, dst, origin, region, offset, c);
  });
}

cl_int CL_API_CALL EnqueueCopyBufferToImage(cl_command_queue queue, cl_mem src, cl_mem dst, size_t offset,
                                            const size_t* origin, const size_t* region, cl_uint num_events,
                                            const cl_event* wait_list, cl_event* event) {
  return enqueue_made(queue, num_events, wait_list, event, [&](cl::GpuCommand* c) {
    return copy_buffer_to_image_command(queue, src, dst, offset, origin, region, c);
  });
}

void* CL_API_CALL EnqueueMapImage(cl_command_queue queue, cl_mem image, cl_bool blocking, cl_map_flags flags,
                                  const size_t* origin, const size_t* region, size_t* row_pitch_out,
                                  size_t* slice_pitch_out, cl_uint num_events, const cl_event* wait_list,
                                  cl_event* event, cl_int* errcode_ret) {
  std::vector<_cl_event*> waits;
  cl_int e = check_image_command(queue, image, num_events, wait_list, &waits);
  if (e != CL_SUCCESS) return set_error(errcode_ret, e), nullptr;
  cl::Image& img = *image->image;
  if ((e = check_region(img, origin, region)) != CL_SUCCESS) return set_error(errcode_ret, e), nullptr;
  const cl_mem_object_type t = img.desc.image_type;
  // CL_INVALID_VALUE if image_row_pitch is NULL; if image is a 3D image, 1D or 2D image array
  // object and image_slice_pitch is NULL.
  if (!row_pitch_out || (!slice_pitch_out && (t == CL_MEM_OBJECT_IMAGE3D || is_array(t))))
    return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  // CL_INVALID_VALUE if values specified in map_flags are not valid.
  const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
  if ((flags & ~known) || ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE))))
    return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  // CL_INVALID_OPERATION if image has been created with CL_MEM_HOST_WRITE_ONLY or
  // CL_MEM_HOST_NO_ACCESS and CL_MAP_READ is set in map_flags, or with CL_MEM_HOST_READ_ONLY
  // or CL_MEM_HOST_NO_ACCESS and CL_MAP_WRITE or CL_MAP_WRITE_INVALIDATE_REGION is set.
  if ((flags & CL_MAP_READ) && (image->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)))
    return set_error(errcode_ret, CL_INVALID_OPERATION), nullptr;
  if ((flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) &&
      (image->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)))
    return set_error(errcode_ret, CL_INVALID_OPERATION), nullptr;
  // Where the application sees the texels: in its own memory for CL_MEM_USE_HOST_PTR ("The
  // pointer value returned by clEnqueueMapImage will be derived from the host_ptr"), else in
  // a tightly packed host copy.
  cl::Image::Mapping mapping{};
  std::memcpy(mapping.origin, origin, sizeof(mapping.origin));
  std::memcpy(mapping.region, region, sizeof(mapping.region));
  mapping.flags = flags;
  uint8_t* pointer;
  if (image->host_ptr) {
    mapping.row_pitch = img.desc.image_row_pitch;
    mapping.slice_pitch = img.desc.image_slice_pitch;
    size_t y_step, z_step;
    img.host_steps(region, mapping.row_pitch, mapping.slice_pitch, &y_step, &z_step);
    pointer = static_cast<uint8_t*>(image->host_ptr) + origin[0] * img.element_size + origin[1] * y_step +
              origin[2] * z_step;
  } else {
    mapping.row_pitch = region[0] * img.element_size;
    mapping.slice_pitch = t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? mapping.row_pitch
                          : (t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE3D)
                              ? mapping.row_pitch * region[1] : 0;
    mapping.shadow.resize(mapping.row_pitch * region[1] * region[2]);
    pointer = mapping.shadow.data();
  }
  *row_pitch_out = mapping.row_pitch;
  if (slice_pitch_out) *slice_pitch_out = mapping.slice_pitch;
  const size_t row = mapping.row_pitch, slice = mapping.slice_pitch;
  {
    std::lock_guard<std::mutex> lock(image->map_mutex);
    img.mappings.emplace(pointer, std::move(mapping));
  }
  image->map_count++;
  Box o(origin), r(region);
  auto result = queue->enqueue(CL_COMMAND_MAP_IMAGE, waits, false,
                               [queue, image, o, r, row, slice, flags, pointer] {
                                 cl_int s = queue->sync();
                                 if (s || (flags & CL_MAP_WRITE_INVALIDATE_REGION)) return s;
                                 return cl::read_image(*queue, *image, o.v, r.v, row, slice, pointer);
                               },
                               {cl::keep(image)});
  e = finish_enqueue(std::move(result), blocking, event);
  set_error(errcode_ret, e);
  return e == CL_SUCCESS ? pointer : nullptr;
}

}  // namespace

cl_int unmap_image(cl_command_queue queue, cl_mem image, void* mapped, const std::vector<_cl_event*>& waits,
                   cl_event* event) {
  auto mapping = std::make_shared<cl::Image::Mapping>();
  {
    std::lock_guard<std::mutex> lock(image->map_mutex);
    auto it = image->image->mappings.find(mapped);
    // CL_INVALID_VALUE if mapped_ptr is not a valid pointer returned by clEnqueueMapImage for
    // memobj.
    if (it == image->image->mappings.end()) return CL_INVALID_VALUE;
    *mapping = std::move(it->second);
    image->image->mappings.erase(it);
  }
  const bool write_back = mapping->flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION);
  auto result = queue->enqueue(CL_COMMAND_UNMAP_MEM_OBJECT, waits, false,
                               [queue, image, mapped, mapping, write_back] {
                                 image->map_count--;
                                 if (!write_back) return CL_SUCCESS;
                                 cl_int s = queue->sync();
                                 if (s) return s;
                                 return cl::write_image(*queue, *image, mapping->origin, mapping->region,
                                                        mapping->row_pitch, mapping->slice_pitch, mapped);
                               },
                               {cl::keep(image)});
  return finish_enqueue(std::move(result), false, event);
}

void register_image(cl_icd_dispatch& t) {
  t.clCreateImage = guard<CreateImage>;
  t.clCreateImageWithProperties = guard<CreateImageWithProperties>;
  t.clCreateImage2D = guard<CreateImage2D>;
  t.clCreateImage3D = guard<CreateImage3D>;
  t.clGetSupportedImageFormats = guard<GetSupportedImageFormats>;
  t.clGetImageInfo = guard<GetImageInfo>;
  t.clEnqueueReadImage = guard<EnqueueReadImage>;
  t.clEnqueueWriteImage = guard<EnqueueWriteImage>;
  t.clEnqueueCopyImage = guard<EnqueueCopyImage>;
  t.clEnqueueFillImage = guard<EnqueueFillImage>;
  t.clEnqueueCopyImageToBuffer = guard<EnqueueCopyImageToBuffer>;
  t.clEnqueueCopyBufferToImage = guard<EnqueueCopyBufferToImage>;
  t.clEnqueueMapImage = guard<EnqueueMapImage>;
}

}  // namespace vkcl::api
