#include "core/svm.h"

#include <algorithm>
#include <cstdlib>

namespace vkcl::cl {

bool host_and_device_addresses_agree(const std::shared_ptr<vk::Device>& device) {
  std::unique_ptr<vk::Buffer> probe;
  if (vk::Buffer::create(device, 4096, vk::MemoryPlacement::HostVisible, &probe) != VK_SUCCESS) return false;
  return probe->mapped() && reinterpret_cast<uintptr_t>(probe->mapped()) == probe->address();
}

namespace {

// Host memory of |size| bytes or more that every device of |devices| imports, each seeing it
// at the host's address; the buffers, by device, into |a|.
cl_int import_everywhere(const std::vector<std::shared_ptr<vk::Device>>& devices, size_t size, SvmAllocation* a) {
  size_t page = 1;
  for (const auto& d : devices) page = std::max<size_t>(page, d->info().min_imported_host_pointer_alignment);
  if (page & (page - 1)) return CL_OUT_OF_RESOURCES;
  const size_t bytes = (size + page - 1) / page * page;
  void* host = std::aligned_alloc(page, bytes);
  if (!host) return CL_OUT_OF_HOST_MEMORY;
  a->host = std::shared_ptr<void>(host, std::free);
  for (const auto& d : devices) {
    std::unique_ptr<vk::Buffer> imported;
    if (vk::Buffer::import_host(d, host, bytes, &imported) != VK_SUCCESS) return CL_OUT_OF_RESOURCES;
    if (imported->address() != reinterpret_cast<uintptr_t>(host)) return CL_INVALID_OPERATION;
    a->buffers.push_back(std::move(imported));
  }
  return CL_SUCCESS;
}

}  // namespace

Result<void*> SvmSpace::allocate(const std::vector<std::shared_ptr<vk::Device>>& devices, cl_svm_mem_flags flags,
                                 size_t size, size_t alignment) {
  auto a = std::make_shared<SvmAllocation>();
  vk::ApplicationAllocation application;
  if (devices.size() == 1) {
    std::unique_ptr<vk::Buffer> buffer;
    VkResult r = vk::Buffer::create(devices[0], size + alignment, vk::MemoryPlacement::HostVisible, &buffer);
    if (r != VK_SUCCESS) return Error{CL_OUT_OF_RESOURCES};
    a->buffers.push_back(std::move(buffer));
  } else if (cl_int e = import_everywhere(devices, size + alignment, a.get()); e != CL_SUCCESS) {
    return Error{e};
  }
  a->buffer = a->buffers[0];
  uintptr_t start = reinterpret_cast<uintptr_t>(a->buffer->mapped());
  // Only where the two addresses agree (the device reports SVM then).
  if (!start || start != a->buffer->address()) return Error{CL_INVALID_OPERATION};
  a->base = reinterpret_cast<uint8_t*>((start + alignment - 1) / alignment * alignment);
  a->size = size;
  a->flags = flags;
  std::lock_guard<std::mutex> lock(mutex_);
  by_base_[reinterpret_cast<uintptr_t>(a->base)] = a;
  return static_cast<void*>(a->base);
}

bool SvmSpace::free(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  return by_base_.erase(reinterpret_cast<uintptr_t>(ptr)) > 0;
}

std::shared_ptr<SvmAllocation> SvmSpace::find(const void* ptr, size_t size) const {
  uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = by_base_.upper_bound(p);
  if (it == by_base_.begin()) return nullptr;
  --it;
  const SvmAllocation& a = *it->second;
  uintptr_t base = it->first;
  if (p - base >= a.size || size > a.size - (p - base)) return nullptr;
  return it->second;
}

}  // namespace vkcl::cl
