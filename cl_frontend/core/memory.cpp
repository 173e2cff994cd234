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

cl::Ref<_cl_mem> cl::find_addressed(const _cl_context* context, uint64_t address) {
  LiveBuffers& live = live_buffers();
  std::lock_guard<std::mutex> lock(live.mutex);
  for (const auto& [serial, m] : live.by_serial) {
    if (m->context.get() != context || !m->device_address_fixed || m->image) continue;
    for (const _cl_device_id* d : context->devices) {
      const uint64_t start = m->device_address(d);
      // A buffer whose count reached zero is being deleted and cannot come back.
      if (address >= start && address - start < m->size && m->try_retain()) return Ref<_cl_mem>::adopt(m);
    }
  }
  return {};
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
  if (context->devices.size() > 1) {
    // The other devices have copies of their own, current once a command there needs them.
    mem->copies = std::make_shared<cl::Copies>();
    mem->copies->size = size;
    mem->copies->buffers.resize(context->devices.size());
    mem->copies->buffers[0] = mem->storage;
    for (size_t i = 0; i < context->devices.size(); ++i) mem->copies->memory.push_back(uint32_t(i));
    mem->copies->current[0] = 1;
  }
  return mem.release_to_api();
}

namespace {
// Gives new memory of a buffer its first contents: |host_ptr|'s |size| bytes, or zeros where
// |host_ptr| is null and the memory is fresh (Vulkan promises nothing about new memory, and
// lavapipe's comes from the process heap: what an earlier context freed).
VkResult initialise(const std::shared_ptr<vk::Device>& device, vk::Buffer& buffer, size_t size,
                    const void* host_ptr) {
  if (!host_ptr && !buffer.fresh()) return VK_SUCCESS;
  if (void* mapped = buffer.mapped()) {
    if (host_ptr) std::memcpy(mapped, host_ptr, size);
    else std::memset(mapped, 0, size);
    return VK_SUCCESS;
  }
  // Discrete memory: filled on the device, or through a host-visible staging buffer.
  std::unique_ptr<vk::Buffer> staging;
  if (host_ptr) {
    VkResult r = vk::Buffer::create(device, size, vk::MemoryPlacement::HostVisible, &staging);
    if (r != VK_SUCCESS) return r;
    std::memcpy(staging->mapped(), host_ptr, size);
  }
  std::unique_ptr<vk::CommandStream> stream;
  VkResult r = vk::CommandStream::create(device, &stream);
  if (r == VK_SUCCESS)
    r = staging ? stream->copy_buffer(*staging, 0, buffer, 0, size) : stream->fill_buffer(buffer, 0, VK_WHOLE_SIZE, 0);
  uint64_t point = 0;
  if (r == VK_SUCCESS) r = stream->submit({}, &point);
  if (r == VK_SUCCESS) r = stream->wait(point);
  return r;
}

// The Copies::current of |n| copies that all hold the contents.
uint64_t made_current(size_t n) { return n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1; }
}  // namespace

cl::Result<_cl_mem*> _cl_mem::create_buffer(_cl_context* context, cl_mem_flags flags, size_t size,
                                            void* host_ptr) {
  std::vector<std::shared_ptr<vk::Device>> devices;
  for (_cl_device_id* d : context->devices) {
    auto device = context->vk_device(d);
    if (!device) return cl::Error{device.error()};
    devices.push_back(*device);
  }
  auto mem = cl::Ref<_cl_mem>::adopt(new _cl_mem());
  mem->context = cl::Ref<_cl_context>(context);
  mem->flags = flags;
  mem->size = size;
  std::vector<std::shared_ptr<vk::Buffer>> made;  // by device
  if (flags & CL_MEM_USE_HOST_PTR) {
    mem->host_ptr = host_ptr;
    // "If clCreateBuffer is called with a pointer returned by clSVMAlloc as its host_ptr
    // argument, and CL_MEM_USE_HOST_PTR is set in its flags argument, clCreateBuffer will
    // succeed and return a valid non-zero buffer object ... that uses the SVM memory."
    // CL_INVALID_BUFFER_SIZE if ... host_ptr is an SVM pointer and size is greater than the
    // SVM allocation's size past it.
    if (context->svm.find(host_ptr) && !context->svm.find(host_ptr, size)) return cl::Error{CL_INVALID_BUFFER_SIZE};
    if (auto svm = context->svm.find(host_ptr, size)) {
      made = svm->buffers;  // (one memory on every device)
      mem->offset = static_cast<uint8_t*>(host_ptr) - static_cast<uint8_t*>(svm->buffer->mapped());
      mem->host_ptr_imported = mem->uses_svm = true;
    } else {
      // The application's memory itself, on every device or on none.
      for (const auto& device : devices) {
        std::unique_ptr<vk::Buffer> imported;
        if (vk::Buffer::import_host(device, host_ptr, size, &imported) != VK_SUCCESS) {
          made.clear();
          break;
        }
        made.push_back(std::move(imported));
      }
      mem->host_ptr_imported = !made.empty();
    }
  }
  const auto placement = (flags & CL_MEM_ALLOC_HOST_PTR) ? vk::MemoryPlacement::HostVisible
                                                          : vk::MemoryPlacement::DeviceLocal;
  if (made.empty()) {
    // On the first device; the others' copies come when a command there needs them.
    const void* contents = (flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR)) ? host_ptr : nullptr;
    std::unique_ptr<vk::Buffer> buffer;
    VkResult r = vk::Buffer::create(devices[0], size, placement, &buffer, /*reusable=*/true, context->spare_owner);
    if (r != VK_SUCCESS) return cl::Error{cl::cl_error_from(r, CL_MEM_OBJECT_ALLOCATION_FAILURE)};
    r = initialise(devices[0], *buffer, size, contents);
    if (r != VK_SUCCESS) return cl::Error{cl::cl_error_from(r, CL_MEM_OBJECT_ALLOCATION_FAILURE)};
    made.push_back(std::move(buffer));
  }
  mem->storage = made.front();
  if (devices.size() > 1) {
    mem->copies = std::make_shared<cl::Copies>();
    mem->copies->size = size;
    mem->copies->placement = placement;
    for (size_t i = 0; i < devices.size(); ++i) mem->copies->memory.push_back(mem->host_ptr_imported ? 0 : uint32_t(i));
    // Imported memory is every device's at once.
    mem->copies->current[0] = made.size() > 1 ? made_current(made.size()) : 1;
    made.resize(devices.size());
    mem->copies->buffers = std::move(made);
  }
  return mem.release_to_api();
}

vk::Buffer& _cl_mem::buffer_on(const _cl_device_id* device) const {
  if (!copies) return *storage;
  return *copies->buffers[context->index_of(device)];
}

cl_int _cl_mem::ensure_on(const _cl_device_id* device) {
  if (!copies) return CL_SUCCESS;
  std::lock_guard<std::mutex> lock(copies->mutex);
  return cl::make_copy(*context, *copies, context->index_of(device));
}

cl_int vkcl::cl::make_copy(_cl_context& context, Copies& copies, size_t index) {
  if (copies.buffers[index]) return CL_SUCCESS;
  auto device = context.vk_device(context.devices[index]);
  if (!device) return device.error();
  std::unique_ptr<vk::Buffer> buffer;
  VkResult r = vk::Buffer::create(*device, copies.size, copies.placement, &buffer, /*reusable=*/true,
                                  context.spare_owner);
  // Zeroed where fresh: until a command makes its ranges current, nothing reads them, but a
  // migration that leaves contents undefined may show them.
  if (r == VK_SUCCESS) r = initialise(*device, *buffer, copies.size, nullptr);
  if (r != VK_SUCCESS) return cl_error_from(r, CL_MEM_OBJECT_ALLOCATION_FAILURE);
  copies.buffers[index] = std::move(buffer);
  return CL_SUCCESS;
}

cl::Result<_cl_mem*> _cl_mem::create_sub_buffer(_cl_mem* parent, cl_mem_flags flags,
                                                size_t origin, size_t size) {
  auto mem = cl::Ref<_cl_mem>::adopt(new _cl_mem());
  mem->context = parent->context;
  mem->flags = flags;
  mem->size = size;
  mem->storage = parent->storage;
  mem->copies = parent->copies;
  mem->device_address_fixed = parent->device_address_fixed;
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
