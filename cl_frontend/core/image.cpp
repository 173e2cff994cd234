#include "core/image.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/device.h"
#include "core/image_format.h"
#include "core/residency.h"
#include "core/transfer.h"

namespace vkcl::cl {

vk::Image& Image::on(const _cl_context& context, const _cl_device_id* device) const {
  const size_t i = others.empty() ? 0 : context.index_of(device);
  return i == 0 ? *storage : *others[i - 1];
}

cl_int Image::ensure_on(_cl_context& context, const _cl_device_id* device) {
  const size_t i = others.empty() ? 0 : context.index_of(device);
  if (i == 0) return CL_SUCCESS;
  std::lock_guard<std::mutex> lock(others_mutex);
  if (others[i - 1]) return CL_SUCCESS;
  std::unique_ptr<vk::Image> made;
  VkResult r;
  if (from_image()) {
    Image& base = *desc.mem_object->image;
    if (cl_int e = base.ensure_on(context, device)) return e;
    r = vk::Image::alias(*base.others[i - 1], storage->format(), kernel_swizzle(format), &made);
  } else {
    auto vk = context.vk_device(context.devices[i]);
    if (!vk) return vk.error();
    r = vk::Image::create(*vk, storage->format(), storage->type(), storage->extent(), storage->layers(),
                          kernel_swizzle(format), &made, context.spare_owner);
  }
  if (r != VK_SUCCESS) return cl_error_from(r, CL_MEM_OBJECT_ALLOCATION_FAILURE);
  others[i - 1] = std::move(made);
  return CL_SUCCESS;
}

VkBufferView Image::texel_view_on(const _cl_context& context, const _cl_device_id* device) const {
  const size_t i = other_texel_views.empty() ? 0 : context.index_of(device);
  const auto& view = i == 0 ? texel_view : other_texel_views[i - 1];
  return view ? view->handle() : VK_NULL_HANDLE;
}

size_t Image::height() const {
  switch (desc.image_type) {
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: return desc.image_array_size;
    case CL_MEM_OBJECT_IMAGE2D: case CL_MEM_OBJECT_IMAGE2D_ARRAY: case CL_MEM_OBJECT_IMAGE3D:
      return desc.image_height;
    default: return 1;
  }
}

size_t Image::depth() const {
  switch (desc.image_type) {
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: return desc.image_array_size;
    case CL_MEM_OBJECT_IMAGE3D: return desc.image_depth;
    default: return 1;
  }
}

vk::ImageRegion Image::whole() const {
  const size_t zero[3] = {0, 0, 0}, all[3] = {width(), height(), depth()};
  return vk_region(zero, all);
}

vk::ImageRegion Image::vk_region(const size_t* origin, const size_t* region) const {
  vk::ImageRegion r;
  r.offset = {int32_t(origin[0]), 0, 0};
  r.extent = {uint32_t(region[0]), 1, 1};
  switch (desc.image_type) {
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
      r.base_layer = uint32_t(origin[1]);
      r.layer_count = uint32_t(region[1]);
      break;
    case CL_MEM_OBJECT_IMAGE2D:
      r.offset.y = int32_t(origin[1]);
      r.extent.height = uint32_t(region[1]);
      break;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
      r.offset.y = int32_t(origin[1]);
      r.extent.height = uint32_t(region[1]);
      r.base_layer = uint32_t(origin[2]);
      r.layer_count = uint32_t(region[2]);
      break;
    case CL_MEM_OBJECT_IMAGE3D:
      r.offset = {int32_t(origin[0]), int32_t(origin[1]), int32_t(origin[2])};
      r.extent = {uint32_t(region[0]), uint32_t(region[1]), uint32_t(region[2])};
      break;
    default: break;
  }
  return r;
}

void Image::host_steps(const size_t* region, size_t row_pitch, size_t slice_pitch, size_t* y_step,
                       size_t* z_step) const {
  const size_t row = row_pitch ? row_pitch : region[0] * element_size;
  if (is_1d_array()) {
    // "If slice_pitch is 0, slice_pitch is calculated as row_pitch for a 1D image array";
    // a 1D array's rows are its layers, slice_pitch apart.
    *y_step = slice_pitch ? slice_pitch : row;
    *z_step = *y_step * region[1];
    return;
  }
  *y_step = row;
  *z_step = slice_pitch ? slice_pitch : row * region[1];
}

namespace {

vk::ImageType vk_type(cl_mem_object_type type) {
  switch (type) {
    case CL_MEM_OBJECT_IMAGE1D: return vk::ImageType::k1D;
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: return vk::ImageType::k1DArray;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: return vk::ImageType::k2DArray;
    case CL_MEM_OBJECT_IMAGE3D: return vk::ImageType::k3D;
    default: return vk::ImageType::k2D;
  }
}

size_t region_bytes(const Image& image, const size_t* region) {
  return image.element_size * region[0] * region[1] * region[2];
}

// Copies the rows of |region| between tightly packed |packed| and host memory |host| laid out
// with |y_step| and |z_step|.
void copy_rows(const Image& image, const size_t* region, size_t y_step, size_t z_step,
               uint8_t* host, uint8_t* packed, bool to_host) {
  const size_t row = region[0] * image.element_size;
  for (size_t z = 0; z < region[2]; ++z)
    for (size_t y = 0; y < region[1]; ++y) {
      uint8_t* h = host + z * z_step + y * y_step;
      uint8_t* p = packed + (z * region[1] + y) * row;
      if (to_host) std::memcpy(h, p, row);
      else std::memcpy(p, h, row);
    }
}

// Stages host memory into a buffer and records its copy into |region| of the image; the
// caller waits for |stream| before |*staging| goes.
VkResult stage_write(const std::shared_ptr<vk::Device>& device, vk::CommandStream& stream,
                     const Image& image, vk::Image& target, const size_t* origin, const size_t* region,
                     size_t y_step, size_t z_step, const void* src, std::unique_ptr<vk::Buffer>* staging) {
  VkResult r = vk::Buffer::create(device, region_bytes(image, region), vk::MemoryPlacement::HostVisible,
                                  staging);
  if (r != VK_SUCCESS) return r;
  copy_rows(image, region, y_step, z_step, static_cast<uint8_t*>(const_cast<void*>(src)),
            static_cast<uint8_t*>((*staging)->mapped()), false);
  return vk::copy_buffer_to_image(stream, **staging, 0, 0, 0, target, image.vk_region(origin, region));
}

}  // namespace

namespace {

Result<_cl_mem*> create_buffer_image(_cl_context* context, cl_mem_flags flags, std::unique_ptr<Image> image,
                                     const std::shared_ptr<vk::Device>& device) {
  _cl_mem* buffer = image->desc.mem_object;
  const size_t bytes = image->size();
  // Sub-buffers start at multiples of CL_DEVICE_MEM_BASE_ADDR_ALIGN, which is more than any
  // device's texel buffer alignment so far; a device where it is not refuses the image.
  if (buffer->offset % context->memory_device()->vk_info().properties.limits.minTexelBufferOffsetAlignment)
    return Error{CL_INVALID_IMAGE_DESCRIPTOR};
  VkResult r = vk::TexelBufferView::create(device, *buffer->storage, buffer->offset, bytes,
                                           vulkan_format(image->format).format, &image->texel_view);
  if (r != VK_SUCCESS) return Error{cl_error_from(r, CL_MEM_OBJECT_ALLOCATION_FAILURE)};
  for (size_t i = 1; i < context->devices.size(); ++i) {
    auto other = context->vk_device(context->devices[i]);
    if (!other) return Error{other.error()};
    if (cl_int e = buffer->ensure_on(context->devices[i])) return Error{e};
    std::unique_ptr<vk::TexelBufferView> view;
    r = vk::TexelBufferView::create(*other, buffer->buffer_on(context->devices[i]), buffer->offset, bytes,
                                    vulkan_format(image->format).format, &view);
    if (r != VK_SUCCESS) return Error{cl_error_from(r, CL_MEM_OBJECT_ALLOCATION_FAILURE)};
    image->other_texel_views.push_back(std::move(view));
  }
  auto mem = Ref<_cl_mem>::adopt(new _cl_mem());
  mem->context = Ref<_cl_context>(context);
  mem->flags = flags;
  mem->size = bytes;
  mem->storage = buffer->storage;
  mem->copies = buffer->copies;
  mem->offset = buffer->offset;
  mem->parent = Ref<_cl_mem>(buffer);
  mem->image = std::move(image);
  return mem.release_to_api();
}

Result<_cl_mem*> create_image_view(_cl_context* context, cl_mem_flags flags, std::unique_ptr<Image> image) {
  _cl_mem* from = image->desc.mem_object;
  VkResult r = vk::Image::alias(*from->image->storage, vulkan_format(image->format).format,
                                kernel_swizzle(image->format), &image->storage);
  image->others.resize(from->image->others.size());  // (made over the other's, when used)
  if (r == VK_ERROR_FORMAT_NOT_SUPPORTED) return Error{CL_IMAGE_FORMAT_NOT_SUPPORTED};
  if (r != VK_SUCCESS) return Error{cl_error_from(r, CL_OUT_OF_RESOURCES)};
  image->current = from->image->current;
  auto mem = Ref<_cl_mem>::adopt(new _cl_mem());
  mem->context = Ref<_cl_context>(context);
  mem->flags = flags;
  mem->size = image->size();
  mem->parent = Ref<_cl_mem>(from);
  mem->image = std::move(image);
  return mem.release_to_api();
}

// A 1D buffer image's bytes from texel |x| on.
size_t buffer_at(const Mem& mem, size_t x) { return x * mem.image->element_size; }

}  // namespace

Result<_cl_mem*> create_image(_cl_context* context, cl_mem_flags flags, const cl_image_format& format,
                              const cl_image_desc& desc, void* host_ptr, const ImportedMemory* imported) {
  auto device = context->vk_device(context->memory_device());
  if (!device) return Error{device.error()};
  auto image = std::make_unique<Image>();
  image->format = format;
  image->desc = desc;
  image->element_size = element_size(format);
  if (image->is_buffer()) return create_buffer_image(context, flags, std::move(image), *device);
  if (image->from_image()) return create_image_view(context, flags, std::move(image));
  _cl_mem* from = image->from_buffer() ? image->desc.mem_object : nullptr;
  if (from) host_ptr = nullptr;
  VkExtent3D extent{uint32_t(image->width()), 1, 1};
  uint32_t layers = 1;
  switch (desc.image_type) {
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: layers = uint32_t(desc.image_array_size); break;
    case CL_MEM_OBJECT_IMAGE2D: extent.height = uint32_t(desc.image_height); break;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
      extent.height = uint32_t(desc.image_height);
      layers = uint32_t(desc.image_array_size);
      break;
    case CL_MEM_OBJECT_IMAGE3D:
      extent.height = uint32_t(desc.image_height);
      extent.depth = uint32_t(desc.image_depth);
      break;
    default: break;
  }
  vk::ApplicationAllocation application;
  VkResult r = imported ? vk::Image::import_fd(*device, vulkan_format(format).format, vk_type(desc.image_type), extent,
                                                layers, kernel_swizzle(format), VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
                                                imported->fd, &image->storage)
                        : vk::Image::create(*device, vulkan_format(format).format, vk_type(desc.image_type), extent,
                                            layers, kernel_swizzle(format), &image->storage, context->spare_owner);
  // CL_INVALID_VALUE for a handle the device cannot import as such an image (as buffers).
  if (imported && r == VK_ERROR_INVALID_EXTERNAL_HANDLE) return Error{CL_INVALID_VALUE};
  image->others.resize(context->devices.size() - 1);  // (made when used there)
  // The format's own limits (vkGetPhysicalDeviceImageFormatProperties) may be below the
  // device's.
  if (r == VK_ERROR_FORMAT_NOT_SUPPORTED) return Error{CL_INVALID_IMAGE_SIZE};
  if (r != VK_SUCCESS) return Error{cl_error_from(r, CL_MEM_OBJECT_ALLOCATION_FAILURE)};
  // The texels (the host's, or none yet) are the first device's.
  if (!from && context->devices.size() > 1) {
    image->current = std::make_shared<Image::Current>();
    image->current->devices = 1;
  }
  auto mem = Ref<_cl_mem>::adopt(new _cl_mem());
  mem->context = Ref<_cl_context>(context);
  mem->flags = flags;
  mem->size = image->size();
  if (imported) mem->external = imported->type;
  if (flags & CL_MEM_USE_HOST_PTR) mem->host_ptr = host_ptr;
  if (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) {
    const size_t origin[3] = {0, 0, 0};
    const size_t region[3] = {image->width(), image->height(), image->depth()};
    size_t y_step, z_step;
    image->host_steps(region, desc.image_row_pitch, desc.image_slice_pitch, &y_step, &z_step);
    std::unique_ptr<vk::CommandStream> stream;
    std::unique_ptr<vk::Buffer> staging;
    r = vk::CommandStream::create(*device, &stream);
    if (r == VK_SUCCESS)
      r = stage_write(*device, *stream, *image, *image->storage, origin, region, y_step, z_step, host_ptr, &staging);
    uint64_t point = 0;
    if (r == VK_SUCCESS) r = stream->submit({}, &point);
    if (r == VK_SUCCESS) r = stream->wait(point);
    if (r != VK_SUCCESS) return Error{cl_error_from(r, CL_MEM_OBJECT_ALLOCATION_FAILURE)};
  }
  if (from) {
    mem->parent = Ref<_cl_mem>(from);
    mem->offset = from->offset;
  }
  mem->image = std::move(image);
  return mem.release_to_api();
}

namespace {

// A 2D image from a buffer: the bytes of rows |region[1]| from texel |origin| on, as a span of
// the buffer (from its first texel to its last) and the step between rows.
struct Rows {
  size_t at, span, row, pitch;
};
Rows buffer_rows(const Image& image, const size_t* origin, const size_t* region) {
  const size_t pitch = image.desc.image_row_pitch;
  const size_t row = region[0] * image.element_size;
  return {origin[1] * pitch + origin[0] * image.element_size, (region[1] - 1) * pitch + row, row, pitch};
}

}  // namespace

cl_int sync_from_buffer(Queue& queue, Mem& mem) {
  const Image& image = *mem.image;
  VkResult r = queue.stream->barrier();
  if (r == VK_SUCCESS)
    r = vk::copy_buffer_to_image(*queue.stream, mem.parent->buffer_on(queue.device), mem.parent->offset,
                                 uint32_t(image.desc.image_row_pitch / image.element_size), 0, image.on(queue),
                                 image.whole());
  if (r == VK_SUCCESS) r = queue.stream->barrier();
  return cl_error_from(r);
}

cl_int sync_to_buffer(Queue& queue, Mem& mem) {
  const Image& image = *mem.image;
  VkResult r = queue.stream->barrier();
  if (r == VK_SUCCESS)
    r = vk::copy_image_to_buffer(*queue.stream, image.on(queue), image.whole(), mem.parent->buffer_on(queue.device),
                                 mem.parent->offset, uint32_t(image.desc.image_row_pitch / image.element_size), 0);
  return cl_error_from(r);
}

cl_int read_image(Queue& queue, Mem& mem, const size_t* origin, const size_t* region,
                  size_t row_pitch, size_t slice_pitch, void* dst) {
  if (cl_int e = use_on(queue, mem, false)) return e;
  const Image& image = *mem.image;
  if (image.is_buffer()) return read_from_buffer(queue, mem, buffer_at(mem, origin[0]), buffer_at(mem, region[0]), dst);
  if (image.from_buffer()) {
    // The rows' span in one read, then each row to where the host wants it.
    Rows rows = buffer_rows(image, origin, region);
    std::vector<uint8_t> span(rows.span);
    cl_int e = read_from_buffer(queue, *mem.parent, rows.at, rows.span, span.data());
    if (e != CL_SUCCESS) return e;
    size_t y_step, z_step;
    image.host_steps(region, row_pitch, slice_pitch, &y_step, &z_step);
    for (size_t y = 0; y < region[1]; ++y)
      std::memcpy(static_cast<uint8_t*>(dst) + y * y_step, span.data() + y * rows.pitch, rows.row);
    return CL_SUCCESS;
  }
  std::unique_ptr<vk::Buffer> staging;
  VkResult r = vk::Buffer::create(queue.vk, region_bytes(image, region), vk::MemoryPlacement::HostVisible,
                                  &staging);
  if (r == VK_SUCCESS)
    r = vk::copy_image_to_buffer(*queue.stream, image.on(queue), image.vk_region(origin, region), *staging, 0, 0, 0);
  if (r != VK_SUCCESS) return cl_error_from(r);
  cl_int e = queue.sync();
  if (e != CL_SUCCESS) return e;
  size_t y_step, z_step;
  image.host_steps(region, row_pitch, slice_pitch, &y_step, &z_step);
  copy_rows(image, region, y_step, z_step, static_cast<uint8_t*>(dst),
            static_cast<uint8_t*>(staging->mapped()), true);
  return CL_SUCCESS;
}

cl_int write_image(Queue& queue, Mem& mem, const size_t* origin, const size_t* region,
                   size_t row_pitch, size_t slice_pitch, const void* src) {
  if (cl_int e = use_on(queue, mem, true)) return e;
  const Image& image = *mem.image;
  if (image.is_buffer()) return write_to_buffer(queue, mem, buffer_at(mem, origin[0]), buffer_at(mem, region[0]), src);
  if (image.from_buffer()) {
    // The rows' span as it is (the bytes between rows are the buffer's own), the rows put
    // in, the span back: two copies at most, not one per row (the queue is synchronised).
    Rows rows = buffer_rows(image, origin, region);
    std::vector<uint8_t> span(rows.span);
    cl_int e = region[1] > 1 ? read_from_buffer(queue, *mem.parent, rows.at, rows.span, span.data()) : CL_SUCCESS;
    if (e != CL_SUCCESS) return e;
    size_t y_step, z_step;
    image.host_steps(region, row_pitch, slice_pitch, &y_step, &z_step);
    for (size_t y = 0; y < region[1]; ++y)
      std::memcpy(span.data() + y * rows.pitch, static_cast<const uint8_t*>(src) + y * y_step, rows.row);
    return write_to_buffer(queue, *mem.parent, rows.at, rows.span, span.data());
  }
  size_t y_step, z_step;
  image.host_steps(region, row_pitch, slice_pitch, &y_step, &z_step);
  std::unique_ptr<vk::Buffer> staging;
  VkResult r = stage_write(queue.vk, *queue.stream, image, image.on(queue), origin, region, y_step, z_step, src,
                           &staging);
  if (r != VK_SUCCESS) return cl_error_from(r);
  return queue.sync();
}

namespace {

// Vulkan copies between images of the same dimensionality, and between 2D (array) and 3D;
// not between 1D and 2D or 3D.
bool copies_directly(const Image& a, const Image& b) {
  auto one_d = [](const Image& i) {
    return i.desc.image_type == CL_MEM_OBJECT_IMAGE1D || i.desc.image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
  };
  return one_d(a) == one_d(b);
}

Result<Scratch> scratch_buffer(Queue& queue, size_t size, vk::MemoryPlacement placement) {
  std::unique_ptr<vk::Buffer> buffer;
  VkResult r = vk::Buffer::create(queue.vk, size, placement, &buffer);
  if (r != VK_SUCCESS) return Error{cl_error_from(r)};
  return Scratch(std::move(buffer));
}

}  // namespace

Result<Scratch> prepare_copy_image(Queue& queue, Mem& src, Mem& dst, const size_t* region) {
  if (copies_directly(*src.image, *dst.image) || src.image->is_buffer() || dst.image->is_buffer()) return Scratch();
  // Through a tightly packed buffer, whose order (x, then y, then z) is the same for both.
  return scratch_buffer(queue, region_bytes(*src.image, region), vk::MemoryPlacement::DeviceLocal);
}

cl_int copy_image_texels(Queue& queue, Mem& src, Mem& dst, const size_t* src_origin, const size_t* dst_origin,
                         const size_t* region, const Scratch& scratch);

cl_int copy_image(Queue& queue, Mem& src, Mem& dst, const size_t* src_origin, const size_t* dst_origin,
                  const size_t* region, const Scratch& scratch) {
  if (cl_int e = use_on(queue, src, false)) return e;
  if (cl_int e = use_on(queue, dst, true)) return e;
  // Images from buffers: their copies made current first, the destination's written back.
  cl_int e = CL_SUCCESS;
  if (src.image->from_buffer()) e = sync_from_buffer(queue, src);
  if (e == CL_SUCCESS && dst.image->from_buffer() && &dst != &src) e = sync_from_buffer(queue, dst);
  if (e == CL_SUCCESS) e = copy_image_texels(queue, src, dst, src_origin, dst_origin, region, scratch);
  if (e == CL_SUCCESS && dst.image->from_buffer()) e = sync_to_buffer(queue, dst);
  return e;
}

cl_int copy_image_texels(Queue& queue, Mem& src, Mem& dst, const size_t* src_origin, const size_t* dst_origin,
                         const size_t* region, const Scratch& scratch) {
  const Image& s = *src.image;
  const Image& d = *dst.image;
  VkResult r;
  // 1D buffer images are rows of texels in their buffers, which Vulkan copies to and from
  // any image type.
  if (s.is_buffer() && d.is_buffer())
    return cl_error_from(queue.stream->copy_buffer(src.buffer_on(queue.device), src.offset + buffer_at(src, src_origin[0]),
                                                   dst.buffer_on(queue.device), dst.offset + buffer_at(dst, dst_origin[0]),
                                                   buffer_at(src, region[0])));
  if (s.is_buffer())
    return cl_error_from(vk::copy_buffer_to_image(*queue.stream, src.buffer_on(queue.device),
                                                  src.offset + buffer_at(src, src_origin[0]), 0, 0, d.on(queue),
                                                  d.vk_region(dst_origin, region)));
  if (d.is_buffer())
    return cl_error_from(vk::copy_image_to_buffer(*queue.stream, s.on(queue), s.vk_region(src_origin, region),
                                                  dst.buffer_on(queue.device), dst.offset + buffer_at(dst, dst_origin[0]),
                                                  0, 0));
  if (!scratch) {
    r = vk::copy_image(*queue.stream, s.on(queue), s.vk_region(src_origin, region), d.on(queue),
                       d.vk_region(dst_origin, region));
  } else {
    r = vk::copy_image_to_buffer(*queue.stream, s.on(queue), s.vk_region(src_origin, region), *scratch, 0, 0, 0);
    if (r == VK_SUCCESS) r = queue.stream->barrier();
    if (r == VK_SUCCESS)
      r = vk::copy_buffer_to_image(*queue.stream, *scratch, 0, 0, 0, d.on(queue), d.vk_region(dst_origin, region));
  }
  return cl_error_from(r);
}

Result<Scratch> prepare_image_buffer_copy(Queue& queue, Mem& image, Mem& buffer, size_t offset,
                                          const size_t* region) {
  // Vulkan wants a buffer offset that is a multiple of the texel size; OpenCL allows any.
  if ((buffer.offset + offset) % image.image->element_size == 0 || image.image->is_buffer()) return Scratch();
  return scratch_buffer(queue, region_bytes(*image.image, region), vk::MemoryPlacement::DeviceLocal);
}

cl_int copy_image_to_buffer(Queue& queue, Mem& image, Mem& buffer, const size_t* origin,
                            const size_t* region, size_t offset, const Scratch& scratch) {
  if (cl_int e = use_on(queue, image, false)) return e;
  if (cl_int e = use_on(queue, buffer, true)) return e;
  const Image& i = *image.image;
  const size_t at = buffer.offset + offset;
  if (i.is_buffer())
    return cl_error_from(queue.stream->copy_buffer(image.buffer_on(queue.device), image.offset + buffer_at(image, origin[0]),
                                                   buffer.buffer_on(queue.device), at, buffer_at(image, region[0])));
  if (i.from_buffer()) {
    cl_int e = sync_from_buffer(queue, image);
    if (e != CL_SUCCESS) return e;
  }
  if (!scratch)
    return cl_error_from(vk::copy_image_to_buffer(*queue.stream, i.on(queue), i.vk_region(origin, region),
                                                  buffer.buffer_on(queue.device), at, 0, 0));
  VkResult r = vk::copy_image_to_buffer(*queue.stream, i.on(queue), i.vk_region(origin, region), *scratch, 0, 0, 0);
  if (r == VK_SUCCESS) r = queue.stream->barrier();
  if (r == VK_SUCCESS)
    r = queue.stream->copy_buffer(*scratch, 0, buffer.buffer_on(queue.device), at, region_bytes(i, region));
  return cl_error_from(r);
}

cl_int copy_buffer_to_image_texels(Queue& queue, Mem& buffer, Mem& image, size_t offset, const size_t* origin,
                                   const size_t* region, const Scratch& scratch);

cl_int copy_buffer_to_image(Queue& queue, Mem& buffer, Mem& image, size_t offset, const size_t* origin,
                            const size_t* region, const Scratch& scratch) {
  if (cl_int e = use_on(queue, buffer, false)) return e;
  if (cl_int e = use_on(queue, image, true)) return e;
  if (!image.image->from_buffer()) return copy_buffer_to_image_texels(queue, buffer, image, offset, origin, region, scratch);
  cl_int e = sync_from_buffer(queue, image);
  if (e == CL_SUCCESS) e = copy_buffer_to_image_texels(queue, buffer, image, offset, origin, region, scratch);
  if (e == CL_SUCCESS) e = sync_to_buffer(queue, image);
  return e;
}

cl_int copy_buffer_to_image_texels(Queue& queue, Mem& buffer, Mem& image, size_t offset, const size_t* origin,
                                   const size_t* region, const Scratch& scratch) {
  const Image& i = *image.image;
  const size_t at = buffer.offset + offset;
  if (i.is_buffer())
    return cl_error_from(queue.stream->copy_buffer(buffer.buffer_on(queue.device), at, image.buffer_on(queue.device),
                                                   image.offset + buffer_at(image, origin[0]),
                                                   buffer_at(image, region[0])));
  if (!scratch)
    return cl_error_from(vk::copy_buffer_to_image(*queue.stream, buffer.buffer_on(queue.device), at, 0, 0,
                                                  i.on(queue), i.vk_region(origin, region)));
  VkResult r = queue.stream->copy_buffer(buffer.buffer_on(queue.device), at, *scratch, 0, region_bytes(i, region));
  if (r == VK_SUCCESS) r = queue.stream->barrier();
  if (r == VK_SUCCESS)
    r = vk::copy_buffer_to_image(*queue.stream, *scratch, 0, 0, 0, i.on(queue), i.vk_region(origin, region));
  return cl_error_from(r);
}

namespace {

// A fill copies a block of rows of the fill colour over the region, as often as it takes:
// memory for at most this much of the pattern, whatever the image's size.
constexpr size_t kFillBlock = size_t(1) << 20;

size_t fill_rows(const Image& image, const size_t* region) {
  const size_t row = region[0] * image.element_size;
  return std::max<size_t>(1, std::min(region[1], kFillBlock / std::max<size_t>(row, 1)));
}

}  // namespace

Result<Scratch> prepare_fill_image(Queue& queue, Mem& image, const uint8_t* texel, const size_t* region) {
  const size_t element = image.image->element_size;
  const size_t texels = region[0] * fill_rows(*image.image, region);
  auto pattern = scratch_buffer(queue, texels * element, vk::MemoryPlacement::HostVisible);
  if (!pattern) return pattern;
  uint8_t* p = static_cast<uint8_t*>((*pattern)->mapped());
  for (size_t i = 0; i < texels; ++i) std::memcpy(p + i * element, texel, element);
  return pattern;
}

cl_int fill_image(Queue& queue, Mem& image, const size_t* origin, const size_t* region,
                  const Scratch& pattern) {
  if (cl_int e = use_on(queue, image, true)) return e;
  const Image& i = *image.image;
  if (i.is_buffer())
    return cl_error_from(queue.stream->copy_buffer(*pattern, 0, image.buffer_on(queue.device), image.offset + buffer_at(image, origin[0]),
                                                   buffer_at(image, region[0])));
  // The pattern's rows over each block of rows of each slice.
  const size_t rows = fill_rows(i, region);
  std::vector<vk::ImageRegion> blocks;
  for (size_t z = 0; z < region[2]; ++z)
    for (size_t y = 0; y < region[1]; y += rows) {
      const size_t at[3] = {origin[0], origin[1] + y, origin[2] + z};
      const size_t size[3] = {region[0], std::min(rows, region[1] - y), 1};
      blocks.push_back(i.vk_region(at, size));
    }
  cl_int e = i.from_buffer() ? sync_from_buffer(queue, image) : CL_SUCCESS;
  if (e == CL_SUCCESS) e = cl_error_from(vk::copy_buffer_to_image_regions(*queue.stream, *pattern, 0, i.on(queue), blocks));
  if (e == CL_SUCCESS && i.from_buffer()) e = sync_to_buffer(queue, image);
  return e;
}

}  // namespace vkcl::cl
