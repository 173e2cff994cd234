#include "core/platform.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <string>

#include "core/device.h"
#include "core/info.h"

namespace {

bool contains_ignoring_case(std::string text, std::string part) {
  for (std::string* s : {&text, &part})
    for (char& c : *s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text.find(part) != std::string::npos;
}

// The usable Vulkan devices, GPUs first (CL_DEVICE_TYPE_DEFAULT is the first device); or, with
// VKCL_DEVICES set, those it names in its order: a comma-separated list of Vulkan device
// indices (vkEnumeratePhysicalDevices' order) or parts of device names, any case
// ("VKCL_DEVICES=llvmpipe", "VKCL_DEVICES=1,0").
std::vector<const vkcl::vk::DeviceInfo*> chosen_devices(const std::vector<vkcl::vk::DeviceInfo>& all) {
  std::vector<const vkcl::vk::DeviceInfo*> chosen;
  auto take = [&](const vkcl::vk::DeviceInfo& d) {
    if (d.usable && std::find(chosen.begin(), chosen.end(), &d) == chosen.end()) chosen.push_back(&d);
  };
  const char* list = std::getenv("VKCL_DEVICES");
  if (!list || !*list) {
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& info : all)
        if ((pass == 0) != (info.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU)) take(info);
    return chosen;
  }
  std::string entries(list);
  for (size_t at = 0; at <= entries.size();) {
    size_t end = std::min(entries.find(',', at), entries.size());
    std::string entry = entries.substr(at, end - at);
    at = end + 1;
    if (entry.empty()) continue;
    if (entry.find_first_not_of("0123456789") == std::string::npos) {
      size_t index = std::strtoul(entry.c_str(), nullptr, 10);
      if (index < all.size()) take(all[index]);
      continue;
    }
    for (const auto& info : all)
      if (contains_ignoring_case(info.properties.deviceName, entry)) take(info);
  }
  return chosen;
}

}  // namespace

_cl_platform_id* _cl_platform_id::get() {
  static std::once_flag once;
  static _cl_platform_id* platform = nullptr;
  std::call_once(once, [] {
    vkcl::vk::Instance* instance = vkcl::vk::Instance::get();
    if (!instance) return;
    auto* p = new _cl_platform_id();
    for (const vkcl::vk::DeviceInfo* info : chosen_devices(instance->devices()))
      p->devices.push_back(new _cl_device_id(p, *info));
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
    case CL_PLATFORM_SEMAPHORE_TYPES_KHR: return out(std::vector<cl_semaphore_type_khr>{CL_SEMAPHORE_TYPE_BINARY_KHR});
    case CL_PLATFORM_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR: {
      // Those every device can import.
      std::vector<cl_external_memory_handle_type_khr> common = devices.front()->external_memory_handles();
      for (const _cl_device_id* d : devices) {
        auto own = d->external_memory_handles();
        std::erase_if(common, [&](auto t) { return std::find(own.begin(), own.end(), t) == own.end(); });
      }
      return out(common);
    }
    default:
      // CL_INVALID_VALUE if param_name is not one of the supported values.
      return CL_INVALID_VALUE;
  }
}
