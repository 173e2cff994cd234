#include "core/context.h"

#include <algorithm>
#include <atomic>

vkcl::cl::Result<std::shared_ptr<vkcl::vk::Device>> _cl_context::vk_device(_cl_device_id* d) {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t index = size_t(std::find(devices.begin(), devices.end(), d) - devices.begin());
  if (index == devices.size()) return d->vk_device();  // (not the context's: not pinned)
  if (vk_devices_.size() < devices.size()) vk_devices_.resize(devices.size());
  if (!vk_devices_[index]) {
    auto fresh = d->vk_device();
    if (!fresh) return fresh;
    vk_devices_[index] = *fresh;
  }
  return vk_devices_[index];
}

bool _cl_context::has_device(_cl_device_id* d) const {
  return std::find(devices.begin(), devices.end(), d) != devices.end();
}

size_t _cl_context::index_of(const _cl_device_id* d) const {
  return size_t(std::find(devices.begin(), devices.end(), d) - devices.begin());
}

void _cl_context::add_destructor_callback(Destructor fn, void* data) {
  std::lock_guard<std::mutex> lock(mutex_);
  destructors_.push_back({fn, data});
}

_cl_context::~_cl_context() {
  // Called in reverse order of registration, as the specification asks.
  for (auto it = destructors_.rbegin(); it != destructors_.rend(); ++it) it->first(this, it->second);
  for (const auto& d : vk_devices_)
    if (d) d->drop_spares(spare_owner);
}

uint64_t _cl_context::next_spare_owner() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

cl_device_svm_capabilities _cl_context::svm_capabilities() const {
  cl_device_svm_capabilities common = ~cl_device_svm_capabilities(0);
  for (_cl_device_id* d : devices) common &= d->svm_capabilities();
  return common;
}
