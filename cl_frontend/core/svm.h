// Shared virtual memory (clSVMAlloc). Where a device's host-visible memory has one address
// for the host (its mapping) and for kernels (its buffer device address), as on lavapipe,
// an SVM allocation is such a buffer: the pointer the application holds is the one a kernel
// dereferences, so pointers stored in SVM memory work in kernels as they are. The memory is
// host-coherent, which fine-grained buffers need. Devices whose mappings are elsewhere
// (discrete GPUs) report no SVM.
#pragma once

#include <CL/cl.h>

#include <map>
#include <memory>
#include <mutex>

#include "core/result.h"
#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::cl {

struct SvmAllocation {
  std::shared_ptr<vk::Buffer> buffer;
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
  Result<void*> allocate(const std::shared_ptr<vk::Device>& device, cl_svm_mem_flags flags, size_t size,
                         size_t alignment);
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
