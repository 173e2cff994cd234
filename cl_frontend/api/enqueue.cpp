// Enqueue entry points: buffer reads, writes, copies, fills, maps, kernels, markers.
#include <cstring>
#include <new>
#include <optional>

#include "api/api.h"
#include "api/enqueue_made.h"
#include "core/gpu_command.h"
#include "core/image.h"
#include "core/kernel.h"
#include "core/queue.h"
#include "core/residency.h"
#include "core/transfer.h"

namespace vkcl::api {

using cl::Ref;

cl_int finish_enqueue(cl::Result<Ref<_cl_event>> r, bool blocking, cl_event* event) {
  if (!r) return r.error();
  Ref<_cl_event> e = std::move(*r);
  cl_int status = CL_SUCCESS;
  if (blocking) {
    // CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the operation is blocking and the
    // execution status of any of the events in event_wait_list is a negative integer value.
    cl_int s = e->wait();
    if (s < 0) status = s == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST ? s : CL_OUT_OF_RESOURCES;
  }
  if (event) *event = e.release_to_api();
  return status;
}

namespace {

// Common checks of commands on one buffer.
cl_int check_buffer_command(cl_command_queue queue, cl_mem buffer, size_t offset, size_t size,
                            cl_uint num_events, const cl_event* wait_list,
                            std::vector<_cl_event*>* waits) {
  // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue.
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  // CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object.
  if (!cl::validate(buffer) || buffer->image) return CL_INVALID_MEM_OBJECT;
  // CL_INVALID_CONTEXT if the context associated with command_queue and buffer are not the
  // same.
  if (buffer->context.get() != queue->context.get()) return CL_INVALID_CONTEXT;
  // CL_INVALID_VALUE if the region being read or written specified by (offset, size) is out
  // of bounds.
  if (offset > buffer->size || size > buffer->size - offset) return CL_INVALID_VALUE;
  return check_wait_list(num_events, wait_list, queue->context.get(), waits);
}

cl_int CL_API_CALL EnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                     size_t offset, size_t size, void* ptr, cl_uint num_events,
                                     const cl_event* wait_list, cl_event* event) {
  std::vector<_cl_event*> waits;
  cl_int e = check_buffer_command(queue, buffer, offset, size, num_events, wait_list, &waits);
  if (e != CL_SUCCESS) return e;
  // CL_INVALID_VALUE if ptr is NULL or size is 0.
  if (!ptr || size == 0) return CL_INVALID_VALUE;
  // CL_INVALID_OPERATION if clEnqueueReadBuffer is called on buffer which has been created
  // with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS.
  if (buffer->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)) return CL_INVALID_OPERATION;
  auto r = queue->enqueue(CL_COMMAND_READ_BUFFER, waits, false,
                          [queue, buffer, offset, size, ptr] {
                            cl_int s = queue->sync();
                            return s ? s : cl::read_from_buffer(*queue, *buffer, offset, size, ptr);
                          },
                          {cl::keep(buffer)});
  return finish_enqueue(std::move(r), blocking, event);
}

cl_int CL_API_CALL EnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                      size_t offset, size_t size, const void* ptr,
                                      cl_uint num_events, const cl_event* wait_list,
                                      cl_event* event) {
  std::vector<_cl_event*> waits;
  cl_int e = check_buffer_command(queue, buffer, offset, size, num_events, wait_list, &waits);
  if (e != CL_SUCCESS) return e;
  if (!ptr || size == 0) return CL_INVALID_VALUE;
  // CL_INVALID_OPERATION if clEnqueueWriteBuffer is called on buffer which has been created
  // with CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS.
  if (buffer->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)) return CL_INVALID_OPERATION;
  // Non-blocking, |ptr| is read when the command runs: "the memory pointed to by ptr cannot
  // be reused by the application after the call returns" until the command completes.
  auto r = queue->enqueue(CL_COMMAND_WRITE_BUFFER, waits, false,
                          [queue, buffer, offset, size, ptr] {
                            cl_int s = queue->sync();
                            return s ? s : cl::write_to_buffer(*queue, *buffer, offset, size, ptr);
                          },
                          {cl::keep(buffer)});
  return finish_enqueue(std::move(r), blocking, event);
}

}  // namespace

cl_int copy_buffer_command(_cl_command_queue* queue, cl_mem src, cl_mem dst, size_t src_offset,
                           size_t dst_offset, size_t size, cl::GpuCommand* out) {
  // CL_INVALID_MEM_OBJECT if src_buffer and dst_buffer are not valid buffer objects.
  if (!cl::validate(src) || src->image || !cl::validate(dst) || dst->image) return CL_INVALID_MEM_OBJECT;
  // CL_INVALID_CONTEXT if the context associated with command_queue, src_buffer and
  // dst_buffer are not the same.
  if (src->context.get() != queue->context.get() || dst->context.get() != queue->context.get())
    return CL_INVALID_CONTEXT;
  // CL_INVALID_VALUE if src_offset, dst_offset, size, src_offset + size or dst_offset + size
  // require accessing elements outside the src_buffer and dst_buffer buffer objects
  // respectively, or if size is 0.
  if (size == 0 || src_offset > src->size || size > src->size - src_offset ||
      dst_offset > dst->size || size > dst->size - dst_offset)
    return CL_INVALID_VALUE;
  // CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same buffer or sub-buffer object
  // and the source and destination regions overlap.
  if (src->storage == dst->storage) {
    size_t a = src->offset + src_offset, b = dst->offset + dst_offset;
    if (a < b + size && b < a + size) return CL_MEM_COPY_OVERLAP;
  }
  out->type = CL_COMMAND_COPY_BUFFER;
  out->record = [src, dst, src_offset, dst_offset, size](_cl_command_queue& q) {
    if (cl_int e = cl::use_on(q, *src, false)) return e;
    if (cl_int e = cl::use_on(q, *dst, true)) return e;
    return cl::cl_error_from(q.stream->copy_buffer(src->buffer_on(q.device), src->offset + src_offset,
                                                   dst->buffer_on(q.device), dst->offset + dst_offset, size));
  };
  out->keep = {cl::keep(src), cl::keep(dst)};
  out->fixed = true;
  return CL_SUCCESS;
}

cl_int enqueue_gpu(_cl_command_queue* queue, const std::vector<_cl_event*>& waits,
                   cl::GpuCommand command, cl_event* event) {
  auto record = std::move(command.record);
  auto r = queue->enqueue(command.type, waits, true, [queue, record] { return record(*queue); },
                          std::move(command.keep), std::move(command.status), event != nullptr);
  return finish_enqueue(std::move(r), false, event);
}

namespace {

cl_int CL_API_CALL EnqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst,
                                     size_t src_offset, size_t dst_offset, size_t size,
                                     cl_uint num_events, const cl_event* wait_list,
                                     cl_event* event) {
  return enqueue_made(queue, num_events, wait_list, event, [&](cl::GpuCommand* c) {
    return copy_buffer_command(queue, src, dst, src_offset, dst_offset, size, c);
  });
}

}  // namespace

cl_int fill_buffer_command(_cl_command_queue* queue, cl_mem buffer, const void* pattern,
                           size_t pattern_size, size_t offset, size_t size, cl::GpuCommand* out) {
  // CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object.
  if (!cl::validate(buffer) || buffer->image) return CL_INVALID_MEM_OBJECT;
  // CL_INVALID_CONTEXT if the context associated with command_queue and buffer are not the
  // same.
  if (buffer->context.get() != queue->context.get()) return CL_INVALID_CONTEXT;
  // CL_INVALID_VALUE if offset or offset + size require accessing elements outside the
  // buffer object.
  if (offset > buffer->size || size > buffer->size - offset) return CL_INVALID_VALUE;
  // CL_INVALID_VALUE if pattern is NULL or if pattern_size is 0 or if pattern_size is not
  // one of {1, 2, 4, 8, 16, 32, 64, 128}; if offset and size are not a multiple of
  // pattern_size.
  if (!pattern || pattern_size == 0 || pattern_size > 128 || (pattern_size & (pattern_size - 1)))
    return CL_INVALID_VALUE;
  if (offset % pattern_size || size % pattern_size) return CL_INVALID_VALUE;
  out->type = CL_COMMAND_FILL_BUFFER;
  out->keep = {cl::keep(buffer)};
  out->fixed = true;
  const auto* bytes = static_cast<const uint8_t*>(pattern);
  const size_t absolute = buffer->offset + offset;
  if (pattern_size <= 4 && absolute % 4 == 0 && size % 4 == 0) {
    uint32_t word = 0;
    for (size_t i = 0; i < 4; ++i) reinterpret_cast<uint8_t*>(&word)[i] = bytes[i % pattern_size];
    out->record = [buffer, absolute, size, word](_cl_command_queue& q) {
      if (cl_int e = cl::use_on(q, *buffer, true)) return e;
      return cl::cl_error_from(q.stream->fill_buffer(buffer->buffer_on(q.device), absolute, size, word));
    };
    return CL_SUCCESS;
  }
  // Patterns Vulkan's fill cannot write (wider than 4 bytes, or not at 4-byte places): the
  // pattern repeated in a block of host-visible memory, copied over the range a block at a
  // time (copies have no alignment rule). The block is always 64 KiB (a multiple of every
  // pattern size) and comes from the context's kept memory, so fills do not allocate device
  // memory each time.
  const size_t block = size_t(64) << 10;
  if (size == 0) {
    out->record = [](_cl_command_queue&) { return CL_SUCCESS; };
    return CL_SUCCESS;
  }
  std::unique_ptr<vk::Buffer> source;
  VkResult vr = vk::Buffer::create(queue->vk, block, vk::MemoryPlacement::HostVisible, &source,
                                   /*reusable=*/true, queue->context->spare_owner);
  if (vr != VK_SUCCESS) return cl::cl_error_from(vr);
  auto* to = static_cast<uint8_t*>(source->mapped());
  for (size_t i = 0; i < block; ++i) to[i] = bytes[i % pattern_size];
  std::shared_ptr<vk::Buffer> shared = std::move(source);
  out->keep.push_back(shared);
  out->record = [buffer, absolute, size, block, shared](_cl_command_queue& q) {
    if (cl_int e = cl::use_on(q, *buffer, true)) return e;
    for (size_t done = 0; done < size; done += block) {
      VkResult r = q.stream->copy_buffer(*shared, 0, buffer->buffer_on(q.device), absolute + done,
                                         std::min(block, size - done));
      if (r != VK_SUCCESS) return cl::cl_error_from(r);
    }
    return CL_SUCCESS;
  };
  return CL_SUCCESS;
}

namespace {

cl_int CL_API_CALL EnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void* pattern,
                                     size_t pattern_size, size_t offset, size_t size,
                                     cl_uint num_events, const cl_event* wait_list,
                                     cl_event* event) {
  return enqueue_made(queue, num_events, wait_list, event, [&](cl::GpuCommand* c) {
    return fill_buffer_command(queue, buffer, pattern, pattern_size, offset, size, c);
  });
}

// Rectangular copies between host memory and a buffer, done row by row on the host.
struct Rect {
  size_t buffer_origin, host_origin, region[3];
  size_t buffer_row, buffer_slice, host_row, host_slice;
};

cl_int check_rect(const size_t* buffer_origin, const size_t* host_origin, const size_t* region,
                  size_t& buffer_row, size_t& buffer_slice, size_t& host_row, size_t& host_slice,
                  size_t buffer_size, Rect* out) {
  // CL_INVALID_VALUE if buffer_origin, host_origin or region is NULL, or any region value
  // is 0, or pitches are invalid, or the region is out of bounds (sums and products that
  // overflow size_t included).
  if (!buffer_origin || !host_origin || !region) return CL_INVALID_VALUE;
  if (!region[0] || !region[1] || !region[2]) return CL_INVALID_VALUE;
  bool overflow = false;
  auto mul = [&](size_t a, size_t b) {
    size_t r = 0;
    overflow = overflow || __builtin_mul_overflow(a, b, &r);
    return r;
  };
  auto add = [&](size_t a, size_t b) {
    size_t r = 0;
    overflow = overflow || __builtin_add_overflow(a, b, &r);
    return r;
  };
  if (buffer_row == 0) buffer_row = region[0];
  else if (buffer_row < region[0]) return CL_INVALID_VALUE;
  if (buffer_slice == 0) buffer_slice = mul(region[1], buffer_row);
  else if (buffer_slice < mul(region[1], buffer_row) || buffer_slice % buffer_row) return CL_INVALID_VALUE;
  if (host_row == 0) host_row = region[0];
  else if (host_row < region[0]) return CL_INVALID_VALUE;
  if (host_slice == 0) host_slice = mul(region[1], host_row);
  else if (host_slice < mul(region[1], host_row) || host_slice % host_row) return CL_INVALID_VALUE;
  size_t start = add(add(mul(buffer_origin[2], buffer_slice), mul(buffer_origin[1], buffer_row)), buffer_origin[0]);
  size_t end = add(add(add(start, mul(region[2] - 1, buffer_slice)), mul(region[1] - 1, buffer_row)), region[0]);
  size_t host_start = add(add(mul(host_origin[2], host_slice), mul(host_origin[1], host_row)), host_origin[0]);
  add(add(add(host_start, mul(region[2] - 1, host_slice)), mul(region[1] - 1, host_row)), region[0]);
  if (overflow || end > buffer_size) return CL_INVALID_VALUE;
  *out = {start, host_start, {region[0], region[1], region[2]}, buffer_row, buffer_slice, host_row, host_slice};
  return CL_SUCCESS;
}

cl_int rect_transfer(cl_command_queue queue, cl_mem buffer, bool read, const Rect& r, void* ptr) {
  cl_int s = queue->sync();
  if (s) return s;
  for (size_t z = 0; z < r.region[2]; ++z)
    for (size_t y = 0; y < r.region[1]; ++y) {
      size_t b = r.buffer_origin + z * r.buffer_slice + y * r.buffer_row;
      uint8_t* h = static_cast<uint8_t*>(ptr) + r.host_origin + z * r.host_slice + y * r.host_row;
      s = read ? cl::read_from_buffer(*queue, *buffer, b, r.region[0], h)
               : cl::write_to_buffer(*queue, *buffer, b, r.region[0], h);
      if (s) return s;
    }
  return CL_SUCCESS;
}

cl_int CL_API_CALL EnqueueReadBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                         const size_t* buffer_origin, const size_t* host_origin,
                                         const size_t* region, size_t buffer_row,
                                         size_t buffer_slice, size_t host_row, size_t host_slice,
                                         void* ptr, cl_uint num_events, const cl_event* wait_list,
                                         cl_event* event) {
  std::vector<_cl_event*> waits;
  cl_int e = check_buffer_command(queue, buffer, 0, 0, num_events, wait_list, &waits);
  if (e != CL_SUCCESS) return e;
  if (!ptr) return CL_INVALID_VALUE;
  Rect rect;
  e = check_rect(buffer_origin, host_origin, region, buffer_row, buffer_slice, host_row,
                 host_slice, buffer->size, &rect);
  if (e != CL_SUCCESS) return e;
  if (buffer->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)) return CL_INVALID_OPERATION;
  auto r = queue->enqueue(CL_COMMAND_READ_BUFFER_RECT, waits, false,
                          [=] { return rect_transfer(queue, buffer, true, rect, ptr); },
                          {cl::keep(buffer)});
  return finish_enqueue(std::move(r), blocking, event);
}

cl_int CL_API_CALL EnqueueWriteBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                          const size_t* buffer_origin, const size_t* host_origin,
                                          const size_t* region, size_t buffer_row,
                                          size_t buffer_slice, size_t host_row, size_t host_slice,
                                          const void* ptr, cl_uint num_events,
                                          const cl_event* wait_list, cl_event* event) {
  std::vector<_cl_event*> waits;
  cl_int e = check_buffer_command(queue, buffer, 0, 0, num_events, wait_list, &waits);
  if (e != CL_SUCCESS) return e;
  if (!ptr) return CL_INVALID_VALUE;
  Rect rect;
  e = check_rect(buffer_origin, host_origin, region, buffer_row, buffer_slice, host_row,
                 host_slice, buffer->size, &rect);
  if (e != CL_SUCCESS) return e;
  if (buffer->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)) return CL_INVALID_OPERATION;
  void* p = const_cast<void*>(ptr);
  auto r = queue->enqueue(CL_COMMAND_WRITE_BUFFER_RECT, waits, false,
                          [=] { return rect_transfer(queue, buffer, false, rect, p); },
                          {cl::keep(buffer)});
  // The application's memory is read when the command runs, so a non-blocking rectangular
  // write completes before returning (allowed: it only may return earlier).
  (void)blocking;
  return finish_enqueue(std::move(r), true, event);
}

}  // namespace

cl_int copy_buffer_rect_command(_cl_command_queue* queue, cl_mem src, cl_mem dst,
                                const size_t* src_origin, const size_t* dst_origin,
                                const size_t* region, size_t src_row, size_t src_slice,
                                size_t dst_row, size_t dst_slice, cl::GpuCommand* out) {
  if (!cl::validate(src) || src->image || !cl::validate(dst) || dst->image) return CL_INVALID_MEM_OBJECT;
  if (src->context.get() != queue->context.get() || dst->context.get() != queue->context.get())
    return CL_INVALID_CONTEXT;
  Rect s, d;
  cl_int e = check_rect(src_origin, dst_origin, region, src_row, src_slice, dst_row, dst_slice,
                        src->size, &s);
  if (e != CL_SUCCESS) return e;
  e = check_rect(dst_origin, src_origin, region, dst_row, dst_slice, src_row, src_slice,
                 dst->size, &d);
  if (e != CL_SUCCESS) return e;
  out->type = CL_COMMAND_COPY_BUFFER_RECT;
  out->record = [=](_cl_command_queue& q) {
    if (cl_int e = cl::use_on(q, *src, false)) return e;
    if (cl_int e = cl::use_on(q, *dst, true)) return e;
    for (size_t z = 0; z < s.region[2]; ++z)
      for (size_t y = 0; y < s.region[1]; ++y) {
        size_t a = s.buffer_origin + z * s.buffer_slice + y * s.buffer_row;
        size_t b = d.buffer_origin + z * d.buffer_slice + y * d.buffer_row;
        VkResult vr = q.stream->copy_buffer(src->buffer_on(q.device), src->offset + a, dst->buffer_on(q.device),
                                            dst->offset + b, s.region[0]);
        if (vr != VK_SUCCESS) return cl::cl_error_from(vr);
      }
    return CL_SUCCESS;
  };
  out->keep = {cl::keep(src), cl::keep(dst)};
  out->fixed = true;
  return CL_SUCCESS;
}

namespace {

cl_int CL_API_CALL EnqueueCopyBufferRect(cl_command_queue queue, cl_mem src, cl_mem dst,
                                         const size_t* src_origin, const size_t* dst_origin,
                                         const size_t* region, size_t src_row, size_t src_slice,
                                         size_t dst_row, size_t dst_slice, cl_uint num_events,
                                         const cl_event* wait_list, cl_event* event) {
  return enqueue_made(queue, num_events, wait_list, event, [&](cl::GpuCommand* c) {
    return copy_buffer_rect_command(queue, src, dst, src_origin, dst_origin, region, src_row, src_slice,
                                    dst_row, dst_slice, c);
  });
}

void* CL_API_CALL EnqueueMapBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                   cl_map_flags flags, size_t offset, size_t size,
                                   cl_uint num_events, const cl_event* wait_list,
                                   cl_event* event, cl_int* errcode_ret) {
  std::vector<_cl_event*> waits;
  cl_int e = check_buffer_command(queue, buffer, offset, size, num_events, wait_list, &waits);
  if (e != CL_SUCCESS) return set_error(errcode_ret, e), nullptr;
  // CL_INVALID_VALUE if size is 0 or values specified in map_flags are not valid.
  const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
  if (size == 0 || (flags & ~known) ||
      ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE))))
    return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  // CL_INVALID_OPERATION if buffer has been created with CL_MEM_HOST_WRITE_ONLY or
  // CL_MEM_HOST_NO_ACCESS and CL_MAP_READ is set in map_flags, or with
  // CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS and CL_MAP_WRITE or
  // CL_MAP_WRITE_INVALIDATE_REGION is set.
  if ((flags & CL_MAP_READ) && (buffer->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)))
    return set_error(errcode_ret, CL_INVALID_OPERATION), nullptr;
  if ((flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) &&
      (buffer->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)))
    return set_error(errcode_ret, CL_INVALID_OPERATION), nullptr;
  // Where the application will see the data: the storage itself when the host can see it
  // (and, unless the map only writes, read it through its caches), the application's own
  // pointer for USE_HOST_PTR, else a host copy.
  uint8_t* pointer;
  _cl_mem::Mapping mapping{offset, size, flags, {}};
  bool use_host_copy = buffer->host_ptr && !buffer->host_ptr_imported;
  if ((e = buffer->ensure_on(queue->device)) != CL_SUCCESS) return set_error(errcode_ret, e), nullptr;
  uint8_t* view = (flags & CL_MAP_WRITE_INVALIDATE_REGION) ? buffer->host_view(queue->device)
                                                            : buffer->host_read_view(queue->device);
  if (use_host_copy) pointer = static_cast<uint8_t*>(buffer->host_ptr) + offset;
  else if (view) pointer = view + offset;
  else {
    mapping.shadow.resize(size);
    pointer = mapping.shadow.data();
  }
  {
    std::lock_guard<std::mutex> lock(buffer->map_mutex);
    buffer->mappings[pointer] = std::move(mapping);
  }
  buffer->map_count++;
  bool needs_copy = use_host_copy || !view;
  cl::Result<cl::Ref<_cl_event>> r = cl::Error{CL_OUT_OF_HOST_MEMORY};
  try {
    r = queue->enqueue(CL_COMMAND_MAP_BUFFER, waits, false,
                       [queue, buffer, offset, size, flags, pointer, needs_copy] {
                         cl_int s = queue->sync();
                         // The application reads and writes the storage itself.
                         if (!s && !needs_copy)
                           s = cl::use_on(*queue, *buffer, flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION));
                         if (s || !needs_copy || (flags & CL_MAP_WRITE_INVALIDATE_REGION)) return s;
                         return cl::read_from_buffer(*queue, *buffer, offset, size, pointer);
                       },
                       {cl::keep(buffer)});
  } catch (const std::bad_alloc&) {
    // Not enqueued (no memory): nothing was mapped.
    buffer->map_count--;
    std::lock_guard<std::mutex> lock(buffer->map_mutex);
    buffer->mappings.erase(pointer);
    throw;
  }
  e = finish_enqueue(std::move(r), blocking, event);
  set_error(errcode_ret, e);
  return e == CL_SUCCESS ? pointer : nullptr;
}

cl_int CL_API_CALL EnqueueUnmapMemObject(cl_command_queue queue, cl_mem mem, void* mapped,
                                         cl_uint num_events, const cl_event* wait_list,
                                         cl_event* event) {
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  // CL_INVALID_MEM_OBJECT if memobj is not a valid memory object or is a pipe object.
  if (!cl::validate(mem)) return CL_INVALID_MEM_OBJECT;
  // CL_INVALID_CONTEXT if context associated with command_queue and memobj are not the same.
  if (mem->context.get() != queue->context.get()) return CL_INVALID_CONTEXT;
  std::vector<_cl_event*> waits;
  cl_int e = check_wait_list(num_events, wait_list, queue->context.get(), &waits);
  if (e != CL_SUCCESS) return e;
  if (mem->image) return unmap_image(queue, mem, mapped, waits, event);
  auto shadow = std::make_shared<_cl_mem::Mapping>();
  decltype(mem->mappings)::node_type node;  // the mapping, out of the list
  {
    std::lock_guard<std::mutex> lock(mem->map_mutex);
    auto it = mem->mappings.find(mapped);
    // CL_INVALID_VALUE if mapped_ptr is not a valid pointer returned by clEnqueueMapBuffer
    // for memobj.
    if (it == mem->mappings.end()) return CL_INVALID_VALUE;
    node = mem->mappings.extract(it);
  }
  *shadow = std::move(node.mapped());
  bool write_back = (shadow->flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) &&
                    ((mem->host_ptr && !mem->host_ptr_imported) || !shadow->shadow.empty());
  cl::Result<cl::Ref<_cl_event>> r = cl::Error{CL_OUT_OF_HOST_MEMORY};
  try {
    r = queue->enqueue(CL_COMMAND_UNMAP_MEM_OBJECT, waits, false,
                       [queue, mem, mapped, shadow, write_back] {
                         mem->map_count--;
                         if (!write_back) return CL_SUCCESS;
                         cl_int s = queue->sync();
                         if (s) return s;
                         return cl::write_to_buffer(*queue, *mem, shadow->offset, shadow->size, mapped);
                       },
                       {cl::keep(mem)});
  } catch (const std::bad_alloc&) {
    // Not enqueued (no memory): the pointer stays mapped, for the application to unmap again
    // (the node goes back without allocating).
    node.mapped() = std::move(*shadow);
    std::lock_guard<std::mutex> lock(mem->map_mutex);
    mem->mappings.insert(std::move(node));
    throw;
  }
  return finish_enqueue(std::move(r), false, event);
}

// Push constants of a launch: the dispatch block, then the pushed arguments.
struct Push {
  explicit Push(const LaunchPlan& plan) {
    std::memcpy(bytes + sizeof(k2s::DispatchBlock), plan.arguments.data() + plan.pushed_offset,
                plan.pushed_size);
    size = uint32_t(sizeof(k2s::DispatchBlock) + plan.pushed_size);
  }
  void set(const k2s::DispatchBlock& block) { std::memcpy(bytes, &block, sizeof block); }
  uint8_t bytes[sizeof(k2s::DispatchBlock) + k2s::kMaxPushedArgumentBytes];
  uint32_t size;
};

// The rounds of a region of a kernel that resumes (after its first dispatch): each runs the
// region again where a work-item of the round before stopped, and is empty otherwise. They
// are numbered from |number| (never 0, the first dispatch's).
cl_int record_rounds(_cl_command_queue& queue, LaunchPlan& plan, const LaunchRegion& region,
                     uint32_t number, bool bind) {
  VkResult vr;
  if (bind && (vr = vk::bind_descriptors(*queue.stream, queue.vk, *region.pipeline, plan.descriptors,
                                         &plan.descriptor_set)) != VK_SUCCESS)
    return cl::cl_error_from(vr);
  Push push(plan);
  k2s::DispatchBlock next = region.dispatch;
  for (uint32_t round = 0; round < cl::kResumeRounds; ++round) {
    uint64_t from = plan.resume_arguments_offset + uint64_t(next.resume_slot) * 16;
    next.resume_round = number + round;
    next.resume_slot++;
    push.set(next);
    if ((vr = queue.stream->barrier()) != VK_SUCCESS ||
        (vr = queue.stream->dispatch_indirect(*region.pipeline, push.bytes, push.size,
                                              *plan.resume_arguments, from)) != VK_SUCCESS)
      return cl::cl_error_from(vr);
  }
  return CL_SUCCESS;
}

// After a launch: the 2D images from buffers it may have written go back into their buffers
// (again after more rounds: the last copy counts).
cl_int write_back_images(_cl_command_queue& queue, LaunchPlan& plan) {
  for (auto& [image, written] : plan.images_from_buffers)
    if (written)
      if (cl_int e = cl::sync_to_buffer(queue, *image); e != CL_SUCCESS) return e;
  return CL_SUCCESS;
}

// After a launch's rounds have run: where a work-item had not finished, as many rounds
// again, for as long as it takes (a loop of a billion iterations takes its time on a native
// driver too).
_cl_command_queue::More more_rounds(_cl_command_queue* queue, std::shared_ptr<LaunchPlan> plan,
                                    std::shared_ptr<cl::LoopLimitStatus> status) {
  return [queue, plan, status, number = uint32_t(1)]() mutable -> cl::Result<bool> {
    if (!status->resume().unfinished()) return false;
    status->resume().carry_over();
    number += cl::kResumeRounds;
    for (LaunchRegion& region : plan->regions) {
      cl_int e = record_rounds(*queue, *plan, region, number, true);
      if (e != CL_SUCCESS) return cl::Error{e};
    }
    if (cl_int e = write_back_images(*queue, *plan); e != CL_SUCCESS) return cl::Error{e};
    return true;
  };
}

// Checked mode: |status|, or the command fails where one of the launch's checked accesses
// did (cl::CheckReport).
std::function<cl_int()> with_check(std::function<cl_int()> status, std::shared_ptr<cl::CheckReport> check) {
  return [check = std::move(check), before = std::move(status)] {
    cl_int s = before ? before() : CL_COMPLETE;
    cl_int c = check->command_status();
    return s < 0 ? s : c;
  };
}

// Records a launch's dispatches: per region its first dispatch, and where it resumes the
// rounds after it; then writes back the 2D images from buffers it may have written.
cl_int record_launch(_cl_command_queue& queue, LaunchPlan& plan) {
  auto address = queue.argument_block(plan.arguments.data(), plan.arguments.size());
  if (!address) return address.error();
  Push push(plan);
  for (auto& [image, written] : plan.images_from_buffers)
    if (cl_int e = cl::sync_from_buffer(queue, *image); e != CL_SUCCESS) return e;
  for (LaunchRegion& region : plan.regions) {
    region.dispatch.argument_block_address = *address;
    push.set(region.dispatch);
    const vk::ComputePipeline& first = region.first_round ? *region.first_round : *region.pipeline;
    VkResult vr = vk::bind_descriptors(*queue.stream, queue.vk, first, plan.descriptors, &plan.descriptor_set);
    if (vr != VK_SUCCESS) return cl::cl_error_from(vr);
    vr = queue.stream->dispatch(first, push.bytes, push.size, region.groups[0], region.groups[1],
                                region.groups[2]);
    if (vr != VK_SUCCESS) return cl::cl_error_from(vr);
    if (!plan.resume_arguments || plan.loops_fit) continue;
    cl_int e = record_rounds(queue, plan, region, 1, region.first_round != nullptr);
    if (e != CL_SUCCESS) return e;
  }
  return write_back_images(queue, plan);
}

// The first attempt of a rerunnable kernel keeps a copy of every image it may write, and of
// every buffer argument it may write where it is rerunnable restoring buffers: where the
// driver cut its loops, what it wrote may not be what a whole run writes (a texel a
// data-dependent branch writes, one at a computed place, a sum into its own input), and the
// rerun starts from the copies (one per written object and launch, from the device's kept
// buffer memory).
cl_int snapshot_written(_cl_command_queue& queue, LaunchPlan& plan) {
  for (_cl_mem* m : plan.written_images) {
    const cl::Image& image = *m->image;
    std::unique_ptr<vk::Buffer> copy;
    VkResult r = vk::Buffer::create(queue.vk, image.size(), vk::MemoryPlacement::DeviceLocal, &copy, true);
    if (r == VK_SUCCESS) r = vk::copy_image_to_buffer(*queue.stream, image.on(queue), image.whole(), *copy, 0, 0, 0);
    if (r != VK_SUCCESS) return cl::cl_error_from(r);
    plan.snapshots.push_back(std::move(copy));
  }
  for (_cl_mem* m : plan.written_buffers) {
    std::unique_ptr<vk::Buffer> copy;
    VkResult r = vk::Buffer::create(queue.vk, m->size, vk::MemoryPlacement::DeviceLocal, &copy, true);
    if (r == VK_SUCCESS) r = queue.stream->copy_buffer(m->buffer_on(queue.device), m->offset, *copy, 0, m->size);
    if (r != VK_SUCCESS) return cl::cl_error_from(r);
    plan.snapshots.push_back(std::move(copy));
  }
  return cl::cl_error_from(queue.stream->barrier());
}

cl_int restore_written(_cl_command_queue& queue, LaunchPlan& plan) {
  VkResult r = queue.stream->barrier();
  for (size_t i = 0; r == VK_SUCCESS && i < plan.written_images.size(); ++i) {
    const cl::Image& image = *plan.written_images[i]->image;
    r = vk::copy_buffer_to_image(*queue.stream, *plan.snapshots[i], 0, 0, 0, image.on(queue), image.whole());
  }
  const size_t images = plan.written_images.size();
  for (size_t i = 0; r == VK_SUCCESS && i < plan.written_buffers.size(); ++i) {
    _cl_mem* m = plan.written_buffers[i];
    r = queue.stream->copy_buffer(*plan.snapshots[images + i], 0, m->buffer_on(queue.device), m->offset, m->size);
  }
  if (r == VK_SUCCESS) r = queue.stream->barrier();
  return cl::cl_error_from(r);
}

// The pipelines of a plan made without them (LaunchPlan::make_pipelines), once.
cl_int make_deferred_pipelines(LaunchPlan& plan) {
  if (!plan.make_pipelines) return CL_SUCCESS;
  cl_int e = plan.make_pipelines(plan);
  if (e == CL_SUCCESS) plan.make_pipelines = nullptr;
  return e;
}

// After the plain first attempt of a rerunnable kernel: done, or, where the driver cut its
// loops, the written images as they were and the whole launch again in the resumable form
// (and its rounds as long as needed).
_cl_command_queue::More rerun_if_cut(_cl_command_queue* queue, std::shared_ptr<LaunchPlan> plain,
                                     std::shared_ptr<LaunchPlan> plan,
                                     std::shared_ptr<cl::LoopLimitStatus> status) {
  return [queue, plain, plan, status, rounds = _cl_command_queue::More()]() mutable -> cl::Result<bool> {
    if (rounds) return rounds();
    if (!plain->loop_limit_status->cut_for_rerun()) return false;
    if (cl_int e = restore_written(*queue, *plain); e != CL_SUCCESS) return cl::Error{e};
    if (cl_int e = make_deferred_pipelines(*plan); e != CL_SUCCESS) return cl::Error{e};
    if (cl_int e = record_launch(*queue, *plan); e != CL_SUCCESS) return cl::Error{e};
    rounds = more_rounds(queue, plan, status);
    return true;
  };
}

}  // namespace

cl_int kernel_command(_cl_command_queue* queue, cl_kernel kernel, cl_uint work_dim,
                      const size_t* offset, const size_t* global, const size_t* local,
                      cl::GpuCommand* out) {
  // CL_INVALID_KERNEL if kernel is not a valid kernel object.
  if (!cl::validate(kernel)) return CL_INVALID_KERNEL;
  // CL_INVALID_CONTEXT if context associated with command_queue and kernel are not the same.
  if (kernel->program->context.get() != queue->context.get()) return CL_INVALID_CONTEXT;
  // CL_INVALID_WORK_DIMENSION if work_dim is not a valid value (i.e. a value between 1 and
  // CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS).
  if (work_dim < 1 || work_dim > 3) return CL_INVALID_WORK_DIMENSION;
  // OpenCL 3.0: "If global_work_size is NULL, or the value in any passed dimension is 0 then
  // the kernel command will trivially succeed after its event dependencies are satisfied"
  // (1.x returned CL_INVALID_GLOBAL_WORK_SIZE).
  static const size_t kNoWork[3] = {0, 0, 0};
  if (!global) global = kNoWork;
  // A kernel that resumes, where these arguments keep its loops short, runs its plain form
  // alone: the resuming form is then neither built for the driver nor run.
  // (Planned once: where it does not fit, a rerunnable kernel may still run it first, below.)
  const k2s::TranslatedKernel* plain_form = kernel->translated(queue->device, true);
  std::optional<LaunchPlan> plain_plan;
  bool plain_fits = false;
  if (plain_form && !plain_form->interface.counted_loops.empty()) {
    auto p = kernel->plan_launch(queue->device, work_dim, offset, global, local, true);
    if (!p) return p.error();
    plain_fits = kernel->loops_fit(queue->device, p->geometry);
    plain_plan = std::move(*p);
  }
  // (The resuming form's pipelines wait until it is known whether a plain first attempt
  // runs before it.)
  cl::Result<LaunchPlan> plan = plain_fits ? cl::Result<LaunchPlan>(std::move(*plain_plan))
                                           : kernel->plan_launch(queue->device, work_dim, offset, global, local,
                                                                 false, plain_form != nullptr);
  if (plain_fits) plain_plan.reset();
  if (!plan) return plan.error();
  auto shared = std::make_shared<LaunchPlan>(std::move(*plan));
  // Loops these arguments keep short cannot be cut: the launch needs no rounds after its
  // first dispatch and no check, so the queue records what follows it at once.
  shared->loops_fit = plain_fits || (shared->resume_arguments && kernel->loops_fit(queue->device, shared->geometry));
  _cl_command_queue::Keep keep = {cl::keep(kernel), shared};
  // The plan lives as long as the work lambda too; the printf output is only in |keep|, so
  // it prints when the command retires.
  if (shared->printf_output) keep.push_back(std::move(shared->printf_output));
  // The status word is read when the event sees the command complete, or else when the
  // command retires.
  std::function<cl_int()> gpu_status;
  auto status = shared->loop_limit_status;  // and the state of the rounds
  if (shared->loop_limit_status) {
    gpu_status = [status = shared->loop_limit_status] { return status->command_status(); };
    keep.push_back(std::move(shared->loop_limit_status));
  }
  if (shared->check) {
    gpu_status = with_check(std::move(gpu_status), shared->check);
    keep.push_back(shared->check);
  }
  // A kernel that resumes runs its plain form (not the slower resumable one) where its loops
  // fit, and a rerunnable one runs it first otherwise, again resumable only if the driver cut
  // its loops.
  std::shared_ptr<LaunchPlan> plain;
  if (shared->resume_arguments && plain_form) {
    auto p = plain_plan ? cl::Result<LaunchPlan>(std::move(*plain_plan))
                        : kernel->plan_launch(queue->device, work_dim, offset, global, local, true);
    if (!p) return p.error();
    const bool rerunnable = plain_form->interface.rerunnable || plain_form->interface.rerunnable_restoring_buffers;
    bool copyable = rerunnable;  // (a 1D buffer image's memory is a buffer's: no image to copy)
    for (_cl_mem* m : p->written_images) copyable = copyable && m->image->storage && !m->image->is_buffer();
    // Copying more than this per launch would cost about what resuming does.
    constexpr size_t kMostCopied = size_t(64) << 20;
    size_t copied = 0;
    for (_cl_mem* m : p->written_buffers) copied += m->size;
    copyable = copyable && copied <= kMostCopied;
    // SVM the kernel writes is not copied: it resumes instead.
    copyable = copyable && !p->writes_svm;
    if (p->loop_limit_status && !p->regions.empty() && copyable)
      plain = std::make_shared<LaunchPlan>(std::move(*p));
  }
  if (plain) {
    keep.push_back(plain);
  } else if (cl_int e = make_deferred_pipelines(*shared); e != CL_SUCCESS) {
    return e;
  }
  if (shared->loops_fit) {
    // Counted short: should the count be wrong, the command fails (and says so) rather than
    // leave the driver's cut or an unfinished work-item unseen.
    if (plain && plain->loop_limit_status) {
      gpu_status = [cut = plain->loop_limit_status] { return cut->command_status(); };
    } else if (status) {
      gpu_status = [status, before = std::move(gpu_status)] {
        cl_int s = before ? before() : CL_COMPLETE;
        return s == CL_COMPLETE && status->resume().unfinished() ? cl_int(CL_OUT_OF_RESOURCES) : s;
      };
    }
  }
  if (plain && plain->check) gpu_status = with_check(std::move(gpu_status), plain->check);
  out->type = CL_COMMAND_NDRANGE_KERNEL;
  // (Beyond the kernel and its plan, |keep| holds what a launch has of its own: printf's
  // output, the loop status, checked mode's report, the plain form's plan.)
  out->fixed = keep.size() == 2 && !shared->resume_arguments;
  out->record = [shared, status, plain](_cl_command_queue& q) {
    _cl_command_queue* queue = &q;
    if (shared->regions.empty()) return CL_SUCCESS;
    for (auto [mem, writes] : shared->buffer_uses)
      if (cl_int e = cl::use_on(q, *mem, writes)) return e;
    if (!plain) {
      cl_int e = record_launch(*queue, *shared);
      if (e == CL_SUCCESS && shared->resume_arguments && !shared->loops_fit)
        queue->continue_with(more_rounds(queue, shared, status));
      return e;
    }
    if (shared->loops_fit) return record_launch(*queue, *plain);  // it runs once, whole
    cl_int e = snapshot_written(*queue, *plain);
    if (e == CL_SUCCESS) e = record_launch(*queue, *plain);
    if (e == CL_SUCCESS) queue->continue_with(rerun_if_cut(queue, plain, shared, status));
    return e;
  };
  out->keep = std::move(keep);
  out->status = std::move(gpu_status);
  return CL_SUCCESS;
}

namespace {

cl_int CL_API_CALL EnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
                                        const size_t* offset, const size_t* global,
                                        const size_t* local, cl_uint num_events,
                                        const cl_event* wait_list, cl_event* event) {
  // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue.
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  // (The kernel's checks come before the wait list's.)
  if (!cl::validate(kernel)) return CL_INVALID_KERNEL;
  if (kernel->program->context.get() != queue->context.get()) return CL_INVALID_CONTEXT;
  if (work_dim < 1 || work_dim > 3) return CL_INVALID_WORK_DIMENSION;
  std::vector<_cl_event*> waits;
  cl_int e = check_wait_list(num_events, wait_list, queue->context.get(), &waits);
  if (e != CL_SUCCESS) return e;
  cl::GpuCommand command;
  e = kernel_command(queue, kernel, work_dim, offset, global, local, &command);
  if (e != CL_SUCCESS) return e;
  return enqueue_gpu(queue, waits, std::move(command), event);
}

cl_int CL_API_CALL EnqueueTask(cl_command_queue queue, cl_kernel kernel, cl_uint num_events,
                               const cl_event* wait_list, cl_event* event) {
  size_t one = 1;
  return EnqueueNDRangeKernel(queue, kernel, 1, nullptr, &one, &one, num_events, wait_list, event);
}

cl_int marker(cl_command_queue queue, cl_command_type type, cl_uint num_events,
              const cl_event* wait_list, cl_event* event) {
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  std::vector<_cl_event*> waits;
  cl_int e = check_wait_list(num_events, wait_list, queue->context.get(), &waits);
  if (e != CL_SUCCESS) return e;
  // In order: the marker completes with everything before it.
  auto r = queue->enqueue(type, waits, true, [] { return CL_SUCCESS; });
  return finish_enqueue(std::move(r), false, event);
}

cl_int CL_API_CALL EnqueueMigrateMemObjects(cl_command_queue queue, cl_uint num_mem_objects,
                                            const cl_mem* mem_objects, cl_mem_migration_flags flags,
                                            cl_uint num_events, const cl_event* wait_list,
                                            cl_event* event) {
  // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue.
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  // CL_INVALID_VALUE if num_mem_objects is zero or if mem_objects is NULL.
  if (num_mem_objects == 0 || !mem_objects) return CL_INVALID_VALUE;
  // CL_INVALID_VALUE if flags is not 0 or is not any of the values described in the table
  // above.
  if (flags & ~cl_mem_migration_flags(CL_MIGRATE_MEM_OBJECT_HOST |
                                      CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
    return CL_INVALID_VALUE;
  _cl_command_queue::Keep keep;
  for (cl_uint i = 0; i < num_mem_objects; ++i) {
    // CL_INVALID_MEM_OBJECT if any of the memory objects in mem_objects is not a valid memory
    // object.
    if (!cl::validate(mem_objects[i])) return CL_INVALID_MEM_OBJECT;
    // CL_INVALID_CONTEXT if the context associated with command_queue and memory objects in
    // mem_objects are not the same.
    if (mem_objects[i]->context.get() != queue->context.get()) return CL_INVALID_CONTEXT;
    keep.push_back(cl::keep(mem_objects[i]));
  }
  std::vector<_cl_event*> waits;
  cl_int e = check_wait_list(num_events, wait_list, queue->context.get(), &waits);
  if (e != CL_SUCCESS) return e;
  // To the queue's device: in a context of several devices its copy becomes current now
  // rather than at the first command there (with CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
  // without copying anything). The host reaches every copy where it is: migrating to the
  // host moves nothing, and in a context of one device neither does anything else.
  std::vector<_cl_mem*> mems(mem_objects, mem_objects + num_mem_objects);
  const bool undefined = flags & CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED;
  const bool to_host = flags & CL_MIGRATE_MEM_OBJECT_HOST;
  auto r = queue->enqueue(CL_COMMAND_MIGRATE_MEM_OBJECTS, waits, true,
                          [queue, mems, undefined, to_host] {
                            for (_cl_mem* m : mems)
                              if (cl_int e = to_host ? CL_SUCCESS : cl::use_on(*queue, *m, undefined, !undefined))
                                return e;
                            return CL_SUCCESS;
                          },
                          std::move(keep));
  return finish_enqueue(std::move(r), false, event);
}

cl_int CL_API_CALL EnqueueMarkerWithWaitList(cl_command_queue queue, cl_uint num_events,
                                             const cl_event* wait_list, cl_event* event) {
  return marker(queue, CL_COMMAND_MARKER, num_events, wait_list, event);
}

cl_int CL_API_CALL EnqueueBarrierWithWaitList(cl_command_queue queue, cl_uint num_events,
                                              const cl_event* wait_list, cl_event* event) {
  return marker(queue, CL_COMMAND_BARRIER, num_events, wait_list, event);
}

cl_int CL_API_CALL EnqueueMarker(cl_command_queue queue, cl_event* event) {
  // CL_INVALID_VALUE if event is a NULL value.
  if (cl::validate(queue) && !event) return CL_INVALID_VALUE;
  return marker(queue, CL_COMMAND_MARKER, 0, nullptr, event);
}

cl_int CL_API_CALL EnqueueBarrier(cl_command_queue queue) {
  return marker(queue, CL_COMMAND_BARRIER, 0, nullptr, nullptr);
}

cl_int CL_API_CALL EnqueueWaitForEvents(cl_command_queue queue, cl_uint num_events,
                                        const cl_event* events) {
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  if (num_events == 0 || !events) return CL_INVALID_VALUE;
  return marker(queue, CL_COMMAND_BARRIER, num_events, events, nullptr);
}

}  // namespace

void register_enqueue(cl_icd_dispatch& t) {
  t.clEnqueueReadBuffer = guard<EnqueueReadBuffer>;
  t.clEnqueueWriteBuffer = guard<EnqueueWriteBuffer>;
  t.clEnqueueCopyBuffer = guard<EnqueueCopyBuffer>;
  t.clEnqueueFillBuffer = guard<EnqueueFillBuffer>;
  t.clEnqueueReadBufferRect = guard<EnqueueReadBufferRect>;
  t.clEnqueueWriteBufferRect = guard<EnqueueWriteBufferRect>;
  t.clEnqueueCopyBufferRect = guard<EnqueueCopyBufferRect>;
  t.clEnqueueMapBuffer = guard<EnqueueMapBuffer>;
  t.clEnqueueUnmapMemObject = guard<EnqueueUnmapMemObject>;
  t.clEnqueueNDRangeKernel = guard<EnqueueNDRangeKernel>;
  t.clEnqueueTask = guard<EnqueueTask>;
  t.clEnqueueMigrateMemObjects = guard<EnqueueMigrateMemObjects>;
  t.clEnqueueMarkerWithWaitList = guard<EnqueueMarkerWithWaitList>;
  t.clEnqueueBarrierWithWaitList = guard<EnqueueBarrierWithWaitList>;
  t.clEnqueueMarker = guard<EnqueueMarker>;
  t.clEnqueueBarrier = guard<EnqueueBarrier>;
  t.clEnqueueWaitForEvents = guard<EnqueueWaitForEvents>;
}

}  // namespace vkcl::api
