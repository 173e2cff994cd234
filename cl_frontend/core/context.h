#pragma once

#include <CL/cl.h>

#include <functional>
#include <mutex>
#include <vector>

#include "core/device.h"
#include "core/object.h"
#include "core/svm.h"

struct _cl_context : vkcl::cl::Object<_cl_context, vkcl::cl::ObjectKind::Context> {
  using Notify = void(CL_CALLBACK*)(const char*, const void*, size_t, void*);
  using Destructor = void(CL_CALLBACK*)(cl_context, void*);

  std::vector<_cl_device_id*> devices;
  std::vector<cl_context_properties> properties;  // as given, zero-terminated, or empty
  Notify notify = nullptr;
  void* notify_data = nullptr;
  vkcl::cl::SvmSpace svm;  // clSVMAlloc's allocations

  bool has_device(_cl_device_id* d) const;
  // |d|'s place in |devices| (which holds it).
  size_t index_of(const _cl_device_id* d) const;
  // Owner of the released buffers' memory kept for this context's next ones (vk::Device::Spare).
  const uint64_t spare_owner = next_spare_owner();
  // The Vulkan device every buffer of this context lives on.
  _cl_device_id* memory_device() const { return devices.front(); }
  // The Vulkan device of |d| for this context's objects: the device's when the context first
  // asks, then the same one for the context's life (a device lost meanwhile keeps failing
  // here, while contexts made later get a new one).
  vkcl::cl::Result<std::shared_ptr<vkcl::vk::Device>> vk_device(_cl_device_id* d);
  // The SVM capabilities every device of the context has (clSVMAlloc needs them all).
  cl_device_svm_capabilities svm_capabilities() const;
  void add_destructor_callback(Destructor fn, void* data);
  ~_cl_context();

 private:
  static uint64_t next_spare_owner();
  std::mutex mutex_;
  std::vector<std::shared_ptr<vkcl::vk::Device>> vk_devices_;  // by index in |devices|
  std::vector<std::pair<Destructor, void*>> destructors_;
};

namespace vkcl::cl {
using Context = _cl_context;
}
