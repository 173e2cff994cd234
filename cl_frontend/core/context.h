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
  // The Vulkan device every buffer of this context lives on.
  _cl_device_id* memory_device() const { return devices.front(); }
  // The SVM capabilities every device of the context has (clSVMAlloc needs them all).
  cl_device_svm_capabilities svm_capabilities() const;
  void add_destructor_callback(Destructor fn, void* data);
  ~_cl_context();

 private:
  std::mutex mutex_;
  std::vector<std::pair<Destructor, void*>> destructors_;
};

namespace vkcl::cl {
using Context = _cl_context;
}
