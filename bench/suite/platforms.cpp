// Platform discovery and labels: vkcl, rusticl, PoCL and NVIDIA are recognised by platform name
// and vendor; any other platform gets a column under its own name.

#include <algorithm>
#include <cstdio>

#include "suite.h"

namespace vkcl_bench {

std::string LabelFor(const std::string& name, const std::string& vendor) {
  if (ContainsIgnoringCase(name, "vkcl") || ContainsIgnoringCase(vendor, "vkcl")) return "vkcl";
  if (ContainsIgnoringCase(name, "rusticl")) return "rusticl";
  if (ContainsIgnoringCase(name, "Portable Computing Language") ||
      ContainsIgnoringCase(vendor, "pocl"))
    return "PoCL";
  if (ContainsIgnoringCase(name, "NVIDIA") || ContainsIgnoringCase(vendor, "NVIDIA"))
    return "NVIDIA";
  return name.empty() ? "unnamed" : name;
}

namespace {

template <typename T>
T DeviceValue(cl_device_id device, cl_device_info what) {
  T value{};
  if (clGetDeviceInfo(device, what, sizeof(value), &value, nullptr) != CL_SUCCESS) return T{};
  return value;
}

// vkcl first (it is the numerator of every ratio), then the others in a fixed order.
int OrderOf(const std::string& label) {
  static const char* const kOrder[] = {"vkcl", "NVIDIA", "rusticl", "PoCL"};
  for (int i = 0; i < 4; ++i)
    if (label == kOrder[i]) return i;
  return 4;
}

void Describe(Platform& platform) {
  cl_device_id device = platform.device;
  platform.device_name = DeviceString(device, CL_DEVICE_NAME);
  platform.driver_version = DeviceString(device, CL_DRIVER_VERSION);
  platform.device_type = DeviceValue<cl_device_type>(device, CL_DEVICE_TYPE);
  platform.compute_units = std::max<cl_uint>(1, DeviceValue<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS));
  platform.max_work_group_size =
      std::max<size_t>(1, DeviceValue<size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  platform.global_memory = DeviceValue<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE);
  platform.max_allocation = DeviceValue<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  const std::string extensions = DeviceString(device, CL_DEVICE_EXTENSIONS);
  platform.fp64 = DeviceValue<cl_device_fp_config>(device, CL_DEVICE_DOUBLE_FP_CONFIG) != 0 ||
                  extensions.find("cl_khr_fp64") != std::string::npos;
  platform.fp16 = extensions.find("cl_khr_fp16") != std::string::npos;
  platform.profiling_usable = DeviceValue<size_t>(device, CL_DEVICE_PROFILING_TIMER_RESOLUTION) > 0;
}

}  // namespace

std::vector<Platform> FindPlatforms(const Options& options) {
  std::vector<Platform> found;
  cl_uint count = 0;
  if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0) return found;
  std::vector<cl_platform_id> ids(count);
  clGetPlatformIDs(count, ids.data(), nullptr);

  // --platforms names labels in any case ("pocl" is PoCL); a name no platform has is said.
  auto named = [](const std::string& wanted, const std::string& label) {
    return wanted.size() == label.size() && ContainsIgnoringCase(label, wanted);
  };
  std::vector<bool> matched(options.platforms.size(), false);
  for (cl_platform_id id : ids) {
    Platform platform;
    platform.platform_name = PlatformString(id, CL_PLATFORM_NAME);
    platform.platform_version = PlatformString(id, CL_PLATFORM_VERSION);
    platform.label = LabelFor(platform.platform_name, PlatformString(id, CL_PLATFORM_VENDOR));
    bool wanted = options.platforms.empty();
    for (size_t k = 0; k < options.platforms.size(); ++k)
      if (named(options.platforms[k], platform.label)) wanted = matched[k] = true;
    if (!wanted) continue;
    cl_uint devices = 0;
    cl_int error = clGetDeviceIDs(id, CL_DEVICE_TYPE_ALL, 1, &platform.device, &devices);
    if (error != CL_SUCCESS || devices == 0) {
      platform.setup_error = "no device (clGetDeviceIDs " + std::to_string(error) + ")";
      found.push_back(std::move(platform));
      continue;
    }
    Describe(platform);
    platform.context =
        Context(clCreateContext(nullptr, 1, &platform.device, nullptr, nullptr, &error));
    if (error != CL_SUCCESS) {
      platform.setup_error = "clCreateContext " + std::to_string(error);
      found.push_back(std::move(platform));
      continue;
    }
    // The OpenCL 1.2 entry point: every platform compared here has it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    platform.queue = Queue(clCreateCommandQueue(platform.context.get(), platform.device,
                                                CL_QUEUE_PROFILING_ENABLE, &error));
#pragma GCC diagnostic pop
    if (error != CL_SUCCESS) platform.setup_error = "clCreateCommandQueue " + std::to_string(error);
    found.push_back(std::move(platform));
  }
  for (size_t k = 0; k < options.platforms.size(); ++k)
    if (!matched[k]) std::fprintf(stderr, "--platforms: no platform is %s\n", options.platforms[k].c_str());
  std::stable_sort(found.begin(), found.end(), [](const Platform& a, const Platform& b) {
    return OrderOf(a.label) < OrderOf(b.label);
  });
  return found;
}

}  // namespace vkcl_bench
