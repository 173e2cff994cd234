// Shared virtual memory (clSVMAlloc). Where a device's host-visible memory has one address
// for the host (its mapping) and for kernels (its buffer device address), as on lavapipe,
// an SVM allocation is such a buffer: the pointer the application holds is the one a kernel
// dereferences, so pointers stored in SVM memory work in kernels as they are. The memory is
// host-coherent, which fine-grained buffers need. Devices whose mappings are elsewhere
// (discrete GPUs) report no SVM. In a context of several devices an allocation is host
// memory that every device imports (VK_EXT_external_memory_host) and sees at the host's
// address, or none is made.
#pragma once

#include <CL/cl.h>

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "core/result.h"
#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::cl {

struct SvmAllocation {
  std::shared_ptr<void> host;  // several devices: the host memory they import (goes last)
  std::shared_ptr<vk::Buffer> buffer;
  std::vector<std::shared_ptr<vk::Buffer>> buffers;  // by device of the context; [0] is |buffer|
  uint8_t* base = nullptr;  // the pointer clSVMAlloc returned, |alignment| aligned in |buffer|
  size_t size = 0;
  cl_svm_mem_flags flags = 0;
  size_t offset_in_buffer() const { return size_t(base - static_cast<uint8_t*>(buffer->mapped())); }
};

// Whether |device|'s host-visible memory has the same address for host and kernels.
bool host_and_device_addresses_agree(const std::shared_ptr<vk::Device>& device);

// A context's SVM allocations.
class SvmSpace {
 public:
  // On every device of the context, by its place there.
  Result<void*> allocate(const std::vector<std::shared_ptr<vk::Device>>& devices, cl_svm_mem_flags flags,
                         size_t size, size_t alignment);
  // Forgets the allocation that starts at |ptr| (its memory goes when the commands and kernel
  // arguments holding it let go). False when |ptr| starts none.
  bool free(void* ptr);
  // The allocation holding the |size| bytes at |ptr|, or null.
  std::shared_ptr<SvmAllocation> find(const void* ptr, size_t size = 1) const;

 private:
  mutable std::mutex mutex_;
  std::map<uintptr_t, std::shared_ptr<SvmAllocation>> by_base_;
};

}  // namespace vkcl::cl
