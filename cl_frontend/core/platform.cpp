#include "core/platform.h"

#include <mutex>

#include "core/device.h"
#include "core/info.h"

_cl_platform_id* _cl_platform_id::get() {
  static std::once_flag once;
  static _cl_platform_id* platform = nullptr;
  std::call_once(once, [] {
    vkcl::vk::Instance* instance = vkcl::vk::Instance::get();
    if (!instance) return;
    auto* p = new _cl_platform_id();
    // GPUs first: CL_DEVICE_TYPE_DEFAULT is the first device.
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& info : instance->devices()) {
        if (!info.usable) continue;
        bool cpu = info.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
        if ((pass == 0) == cpu) continue;
        p->devices.push_back(new _cl_device_id(p, info));
      }
    if (p->devices.empty()) {
      delete p;
      return;
    }
    platform = p;
  });
  return platform;
}

cl_int _cl_platform_id::get_info(cl_platform_info param, size_t size, void* value,
                                 size_t* size_ret) const {
  vkcl::cl::InfoOut out{size, value, size_ret};
  switch (param) {
    case CL_PLATFORM_PROFILE: return out("FULL_PROFILE");
    case CL_PLATFORM_VERSION: return out("OpenCL 3.0 vkcl 0.1");
    case CL_PLATFORM_NUMERIC_VERSION: return out(cl_version(CL_MAKE_VERSION(3, 0, 0)));
    case CL_PLATFORM_NAME: return out("vkcl");
    case CL_PLATFORM_VENDOR: return out("vkcl");
    case CL_PLATFORM_EXTENSIONS: return out(vkcl::cl::kPlatformExtensions);
    case CL_PLATFORM_EXTENSIONS_WITH_VERSION: {
      std::vector<cl_name_version> v;
      for (const char* e : {"cl_khr_icd", "cl_khr_il_program"}) {
        cl_name_version n{CL_MAKE_VERSION(1, 0, 0), ""};
        std::snprintf(n.name, sizeof(n.name), "%s", e);
        v.push_back(n);
      }
      return out(v);
    }
    case CL_PLATFORM_HOST_TIMER_RESOLUTION: return out(cl_ulong(1));
    case CL_PLATFORM_ICD_SUFFIX_KHR: return out("vkcl");
    default:
      // CL_INVALID_VALUE if param_name is not one of the supported values.
      return CL_INVALID_VALUE;
  }
}
