// Owning handles for OpenCL objects and info strings, shared by the benchmarks.
#pragma once

#include <CL/cl.h>

#include <string>
#include <utility>

namespace vkcl_bench {

// Owns one reference to an OpenCL object and releases it with |Release|.
template <typename Handle, cl_int (*Release)(Handle)>
class Owned {
 public:
  Owned() = default;
  explicit Owned(Handle handle) : handle_(handle) {}
  Owned(Owned&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Owned& operator=(Owned&& other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() {
    if (handle_) Release(handle_);
  }
  Handle get() const { return handle_; }

 private:
  Handle handle_ = nullptr;
};

using Context = Owned<cl_context, clReleaseContext>;
using Queue = Owned<cl_command_queue, clReleaseCommandQueue>;
using Program = Owned<cl_program, clReleaseProgram>;
using Kernel = Owned<cl_kernel, clReleaseKernel>;
using Buffer = Owned<cl_mem, clReleaseMemObject>;
using Event = Owned<cl_event, clReleaseEvent>;

// A string parameter read through |get| (clGetPlatformInfo, clGetDeviceInfo), "" when it
// cannot be read.
template <typename Handle, typename Param>
std::string InfoString(cl_int (*get)(Handle, Param, size_t, void*, size_t*), Handle handle, Param what) {
  size_t size = 0;
  if (get(handle, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string text(size, '\0');
  get(handle, what, size, text.data(), nullptr);
  return text.substr(0, text.find('\0'));
}

inline std::string PlatformString(cl_platform_id platform, cl_platform_info what) {
  return InfoString(clGetPlatformInfo, platform, what);
}

inline std::string DeviceString(cl_device_id device, cl_device_info what) {
  return InfoString(clGetDeviceInfo, device, what);
}

}  // namespace vkcl_bench
