#include "core/memory.h"

#include <cstring>
#include <unordered_map>

#include "core/image.h"

using namespace vkcl;

namespace {
// Every live buffer by serial, for WeakMem. On the heap and never destroyed, so a buffer
// released from an atexit handler or a static destructor still finds it.
struct LiveBuffers {
  std::mutex mutex;
  std::unordered_map<uint64_t, _cl_mem*> by_serial;
  uint64_t next_serial = 1;
};
LiveBuffers& live_buffers() {
  static LiveBuffers* live = new LiveBuffers();
  return *live;
}

uint64_t register_live(_cl_mem* m) {
  LiveBuffers& live = live_buffers();
  std::lock_guard<std::mutex> lock(live.mutex);
  live.by_serial[live.next_serial] = m;
  return live.next_serial++;
}
}  // namespace

_cl_mem::_cl_mem() : serial(register_live(this)) {}

cl::Ref<_cl_mem> cl::WeakMem::lock() const {
  LiveBuffers& live = live_buffers();
  std::lock_guard<std::mutex> lock(live.mutex);
  auto it = live.by_serial.find(serial_);
  // A buffer whose count reached zero is being deleted and cannot come back.
  if (it == live.by_serial.end() || !it->second->try_retain()) return {};
  return Ref<_cl_mem>::adopt(it->second);
}

cl::Result<_cl_mem*> _cl_mem::import_buffer(_cl_context* context, cl_mem_flags flags, size_t size,
                                            cl_external_memory_handle_type_khr type, int fd) {
  auto device = context->vk_device(context->memory_device());
  if (!device) return cl::Error{device.error()};
  const VkExternalMemoryHandleTypeFlagBits vk_type = type == CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR
                                                         ? VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
                                                         : VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  std::unique_ptr<vk::Buffer> imported;
  VkResult r = vk::Buffer::import_fd(*device, vk_type, fd, size, &imported);
  // CL_INVALID_VALUE for a handle the device cannot import (not a memory fd, or not one of
  // this device's memory types).
  if (r == VK_ERROR_INVALID_EXTERNAL_HANDLE) return cl::Error{CL_INVALID_VALUE};
  if (r != VK_SUCCESS) return cl::Error{cl::cl_error_from(r, CL_MEM_OBJECT_ALLOCATION_FAILURE)};
  auto mem = cl::Ref<_cl_mem>::adopt(new _cl_mem());
  mem->context = cl::Ref<_cl_context>(context);
  mem->flags = flags;
  mem->size = size;
  mem->external = type;
  mem->storage = std::move(imported);
  return mem.release_to_api();
}

cl::Result<_cl_mem*> _cl_mem::create_buffer(_cl_context* context, cl_mem_flags flags, size_t size,
                                            void* host_ptr) {
  auto device = context->vk_device(context->memory_device());
  if (!device) return cl::Error{device.error()};
  auto mem = cl::Ref<_cl_mem>::adopt(new _cl_mem());
  mem->context = cl::Ref<_cl_context>(context);
  mem->flags = flags;
  mem->size = size;
  if (flags & CL_MEM_USE_HOST_PTR) {
    mem->host_ptr = host_ptr;
    std::unique_ptr<vk::Buffer> imported;
    // "If clCreateBuffer is called with a pointer returned by clSVMAlloc as its host_ptr
    // argument, and CL_MEM_USE_HOST_PTR is set in its flags argument, clCreateBuffer will
    // succeed and return a valid non-zero buffer object ... that uses the SVM memory."
    // CL_INVALID_BUFFER_SIZE if ... host_ptr is an SVM pointer and size is greater than the
    // SVM allocation's size past it.
    if (context->svm.find(host_ptr) && !context->svm.find(host_ptr, size)) return cl::Error{CL_INVALID_BUFFER_SIZE};
    if (auto svm = context->svm.find(host_ptr, size)) {
      mem->storage = svm->buffer;
      mem->offset = static_cast<uint8_t*>(host_ptr) - static_cast<uint8_t*>(svm->buffer->mapped());
      mem->host_ptr_imported = mem->uses_svm = true;
    } else if (vk::Buffer::import_host(*device, host_ptr, size, &imported) == VK_SUCCESS) {
      mem->storage = std::move(imported);
      mem->host_ptr_imported = true;
    }
  }
  if (!mem->storage) {
    std::unique_ptr<vk::Buffer> buffer;
    auto placement = (flags & CL_MEM_ALLOC_HOST_PTR) ? vk::MemoryPlacement::HostVisible
                                                      : vk::MemoryPlacement::DeviceLocal;
    vk::ApplicationAllocation application;
    VkResult r = vk::Buffer::create(*device, size, placement, &buffer, /*reusable=*/true, context->spare_owner);
    if (r != VK_SUCCESS) return cl::Error{cl::cl_error_from(r, CL_MEM_OBJECT_ALLOCATION_FAILURE)};
    mem->storage = std::move(buffer);
  }
  // Vulkan promises nothing about new memory, and lavapipe's comes from the process heap
  // (what an earlier context freed): a new buffer is zeroed unless the host's data fills it.
  if (!(flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR)) && mem->storage->fresh()) {
    if (void* mapped = mem->storage->mapped()) {
      std::memset(mapped, 0, size);
    } else {
      std::unique_ptr<vk::CommandStream> stream;
      VkResult r = vk::CommandStream::create(*device, &stream);
      if (r == VK_SUCCESS) r = stream->fill_buffer(*mem->storage, 0, (size + 3) & ~size_t(3), 0);
      uint64_t point = 0;
      if (r == VK_SUCCESS) r = stream->submit({}, &point);
      if (r == VK_SUCCESS) r = stream->wait(point);
      if (r != VK_SUCCESS) return cl::Error{cl::cl_error_from(r)};
    }
  }
  if ((flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR)) && !mem->host_ptr_imported) {
    if (mem->storage->mapped()) {
      std::memcpy(mem->storage->mapped(), host_ptr, size);
    } else {
      // Discrete memory: go through a host-visible staging buffer.
      std::unique_ptr<vk::Buffer> staging;
      VkResult r = vk::Buffer::create(*device, size, vk::MemoryPlacement::HostVisible, &staging);
      if (r != VK_SUCCESS) return cl::Error{cl::cl_error_from(r, CL_MEM_OBJECT_ALLOCATION_FAILURE)};
      std::memcpy(staging->mapped(), host_ptr, size);
      std::unique_ptr<vk::CommandStream> stream;
      r = vk::CommandStream::create(*device, &stream);
      if (r == VK_SUCCESS) r = stream->copy_buffer(*staging, 0, *mem->storage, 0, size);
      uint64_t point = 0;
      if (r == VK_SUCCESS) r = stream->submit({}, &point);
      if (r == VK_SUCCESS) r = stream->wait(point);
      if (r != VK_SUCCESS) return cl::Error{cl::cl_error_from(r)};
    }
  }
  return mem.release_to_api();
}

cl::Result<_cl_mem*> _cl_mem::create_sub_buffer(_cl_mem* parent, cl_mem_flags flags,
                                                size_t origin, size_t size) {
  auto mem = cl::Ref<_cl_mem>::adopt(new _cl_mem());
  mem->context = parent->context;
  mem->flags = flags;
  mem->size = size;
  mem->storage = parent->storage;
  mem->offset = parent->offset + origin;
  mem->parent = cl::Ref<_cl_mem>(parent);
  if (parent->host_ptr) mem->host_ptr = static_cast<uint8_t*>(parent->host_ptr) + origin;
  mem->host_ptr_imported = parent->host_ptr_imported;
  return mem.release_to_api();
}

void _cl_mem::add_destructor_callback(Destructor fn, void* data) {
  std::lock_guard<std::mutex> lock(map_mutex);
  destructors_.push_back({fn, data});
}

_cl_mem::~_cl_mem() {
  {
    std::lock_guard<std::mutex> lock(live_buffers().mutex);
    live_buffers().by_serial.erase(serial);
  }
  for (auto it = destructors_.rbegin(); it != destructors_.rend(); ++it) it->first(this, it->second);
}
