#include "core/context.h"

#include <algorithm>

bool _cl_context::has_device(_cl_device_id* d) const {
  return std::find(devices.begin(), devices.end(), d) != devices.end();
}

void _cl_context::add_destructor_callback(Destructor fn, void* data) {
  std::lock_guard<std::mutex> lock(mutex_);
  destructors_.push_back({fn, data});
}

_cl_context::~_cl_context() {
  // Called in reverse order of registration, as the specification asks.
  for (auto it = destructors_.rbegin(); it != destructors_.rend(); ++it) it->first(this, it->second);
}

cl_device_svm_capabilities _cl_context::svm_capabilities() const {
  cl_device_svm_capabilities common = ~cl_device_svm_capabilities(0);
  for (_cl_device_id* d : devices) common &= d->svm_capabilities();
  return common;
}
