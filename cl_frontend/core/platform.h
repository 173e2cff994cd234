// The one vkcl platform and its devices, created on first use and alive for the process.
#pragma once

#include <CL/cl.h>

#include <vector>

#include "core/object.h"

struct _cl_device_id;

struct _cl_platform_id : vkcl::cl::Object<_cl_platform_id, vkcl::cl::ObjectKind::Platform> {
  std::vector<_cl_device_id*> devices;

  // The platform, or nullptr when no Vulkan device can back a CL device.
  static _cl_platform_id* get();
  cl_int get_info(cl_platform_info param, size_t size, void* value, size_t* size_ret) const;
};

namespace vkcl::cl {
using Platform = _cl_platform_id;
inline constexpr const char* kPlatformExtensions = "cl_khr_icd cl_khr_il_program";
}  // namespace vkcl::cl
