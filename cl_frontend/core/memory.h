// Buffers (and sub-buffers). A buffer's storage is a vk::Buffer on the context's device;
// a sub-buffer shares its parent's storage at an offset. In a context of several devices a
// buffer has a copy on each (Copies), made current on a device by the commands that use it
// there (core/residency.h).
#pragma once

#include <CL/cl.h>
#include <CL/cl_ext.h>

// cl_ext_buffer_device_address, which Debian 12's headers predate: the registry's tokens.
#ifndef cl_ext_buffer_device_address
#define cl_ext_buffer_device_address 1
typedef cl_ulong cl_mem_device_address_ext;
#define CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT 0x5000
#define CL_MEM_DEVICE_ADDRESS_EXT 0x5001
#define CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT 0x5002
#endif

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "core/context.h"
#include "core/object.h"
#include "core/result.h"

namespace vkcl::cl {
struct Image;  // core/image.h

// A buffer's copies in a context of several devices, shared with its sub-buffers: one per
// device of the context, by its index there (buffers[0] is the buffer's |storage|), made when
// a command first needs it there (null until then: a context over a GPU and lavapipe does not
// hold every buffer twice). Copies with the same |memory| number are one memory (a
// USE_HOST_PTR buffer imported on each).
struct Copies {
  std::vector<std::shared_ptr<vk::Buffer>> buffers;
  vk::MemoryPlacement placement = vk::MemoryPlacement::DeviceLocal;  // of those made later
  std::vector<uint32_t> memory;
  size_t size = 0;  // bytes of the (parent) buffer
  std::mutex mutex;
  // Which copies hold the contents, per range: from each offset to the next (or |size|), bit
  // i set where buffers[i] does. Ranges, because sub-buffers that do not overlap may be
  // written on different devices at once.
  std::map<size_t, uint64_t> current;
};
}  // namespace vkcl::cl

struct _cl_mem : vkcl::cl::Object<_cl_mem, vkcl::cl::ObjectKind::Mem> {
  using Destructor = void(CL_CALLBACK*)(cl_mem, void*);

  _cl_mem();
  const uint64_t serial;  // never reused; names the buffer in the live registry

  vkcl::cl::Ref<_cl_context> context;
  cl_mem_flags flags = 0;
  size_t size = 0;
  void* host_ptr = nullptr;         // CL_MEM_USE_HOST_PTR pointer
  bool host_ptr_imported = false;   // the device reads host_ptr directly
  bool uses_svm = false;            // host_ptr is SVM memory, which the buffer uses
  // CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT (cl_ext_buffer_device_address): its addresses are
  // handed out, so it has its copy on every device of the context from the start.
  bool device_address_fixed = false;
  // cl_khr_external_memory: the handle type its memory was imported from (0: its own).
  cl_external_memory_handle_type_khr external = 0;
  std::shared_ptr<vkcl::vk::Buffer> storage;  // on the context's first device
  std::shared_ptr<vkcl::cl::Copies> copies;    // several devices: the copy on each
  size_t offset = 0;                // sub-buffers
  vkcl::cl::Ref<_cl_mem> parent;
  std::vector<cl_mem_properties> properties;
  std::atomic<uint32_t> map_count{0};
  // Host copies handed out by clEnqueueMapBuffer when the storage is not host-visible or is a
  // cached USE_HOST_PTR copy: mapped pointer -> (offset, size, map flags).
  struct Mapping {
    size_t offset, size;
    cl_map_flags flags;
    std::vector<uint8_t> shadow;  // empty when the pointer is the storage or host_ptr itself
  };
  std::mutex map_mutex;
  std::map<void*, Mapping> mappings;
  // Set for image objects (core/image.h), whose |storage| is null.
  std::unique_ptr<vkcl::cl::Image> image;

  static vkcl::cl::Result<_cl_mem*> create_buffer(_cl_context* context, cl_mem_flags flags,
                                                  size_t size, void* host_ptr);
  // A buffer over memory another API exported as |fd| (cl_khr_external_memory).
  static vkcl::cl::Result<_cl_mem*> import_buffer(_cl_context* context, cl_mem_flags flags, size_t size,
                                                  cl_external_memory_handle_type_khr type, int fd);
  static vkcl::cl::Result<_cl_mem*> create_sub_buffer(_cl_mem* parent, cl_mem_flags flags,
                                                      size_t origin, size_t size);
  // The storage seen by commands on |device| (its copy in a context of several devices, which
  // ensure_on made).
  vkcl::vk::Buffer& buffer_on(const _cl_device_id* device) const;
  // Makes |device|'s copy if it has none yet (CL_MEM_OBJECT_ALLOCATION_FAILURE without memory
  // for it). Its contents are not current: cl::use_on brings them.
  cl_int ensure_on(const _cl_device_id* device);
  uint64_t device_address(const _cl_device_id* device) const { return buffer_on(device).address() + offset; }
  // Host pointer to byte 0 of |device|'s storage when it is host-visible, else nullptr.
  uint8_t* host_view(const _cl_device_id* device) const {
    void* mapped = buffer_on(device).mapped();
    return mapped ? static_cast<uint8_t*>(mapped) + offset : nullptr;
  }
  // host_view() where the host reads it through its caches, else nullptr: reads from a
  // discrete GPU's memory go through a DMA copy instead (vk::Buffer::host_cached).
  uint8_t* host_read_view(const _cl_device_id* device) const {
    return buffer_on(device).host_cached() ? host_view(device) : nullptr;
  }
  void add_destructor_callback(Destructor fn, void* data);
  ~_cl_mem();

 private:
  std::vector<std::pair<Destructor, void*>> destructors_;
};

namespace vkcl::cl {
using Mem = _cl_mem;

// The buffer of |context| with CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT whose storage on some device
// of the context holds |address|, or null.
Ref<_cl_mem> find_addressed(const _cl_context* context, uint64_t address);

// Makes copy |index| of |copies| (a buffer of |context|) if it is not made yet; the caller
// holds copies.mutex.
cl_int make_copy(_cl_context& context, Copies& copies, size_t index);

// A reference that does not keep a buffer alive. Kernels hold their buffer arguments this way:
// an application may release a buffer that is still set as an argument, and its destructor
// callbacks must run then, as on native drivers. lock() gives null once the buffer is gone.
class WeakMem {
 public:
  WeakMem() = default;
  explicit WeakMem(_cl_mem* m) : serial_(m ? m->serial : 0) {}
  Ref<_cl_mem> lock() const;
  explicit operator bool() const { return serial_ != 0; }

 private:
  uint64_t serial_ = 0;
};
}  // namespace vkcl::cl
