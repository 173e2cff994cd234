#include "core/svm.h"

namespace vkcl::cl {

bool host_and_device_addresses_agree(const std::shared_ptr<vk::Device>& device) {
  std::unique_ptr<vk::Buffer> probe;
  if (vk::Buffer::create(device, 4096, vk::MemoryPlacement::HostVisible, &probe) != VK_SUCCESS) return false;
  return probe->mapped() && reinterpret_cast<uintptr_t>(probe->mapped()) == probe->address();
}

Result<void*> SvmSpace::allocate(const std::shared_ptr<vk::Device>& device, cl_svm_mem_flags flags, size_t size,
                                 size_t alignment) {
  std::unique_ptr<vk::Buffer> buffer;
  vk::ApplicationAllocation application;
  VkResult r = vk::Buffer::create(device, size + alignment, vk::MemoryPlacement::HostVisible, &buffer);
  if (r != VK_SUCCESS) return Error{CL_OUT_OF_RESOURCES};
  auto a = std::make_shared<SvmAllocation>();
  uintptr_t start = reinterpret_cast<uintptr_t>(buffer->mapped());
  // Only where the two addresses agree (the device reports SVM then).
  if (!start || start != buffer->address()) return Error{CL_INVALID_OPERATION};
  a->base = reinterpret_cast<uint8_t*>((start + alignment - 1) / alignment * alignment);
  a->buffer = std::move(buffer);
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
