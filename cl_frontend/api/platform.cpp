// Platform and device entry points.
#include <cstring>

#include "api/api.h"
#include "core/device.h"
#include "core/event.h"
#include "core/platform.h"

namespace vkcl::api {
namespace {

cl_int CL_API_CALL GetPlatformIDs(cl_uint num_entries, cl_platform_id* platforms,
                                  cl_uint* num_platforms) {
  // CL_INVALID_VALUE if num_entries is equal to zero and platforms is not NULL or if both
  // num_platforms and platforms are NULL.
  if ((num_entries == 0 && platforms) || (!num_platforms && !platforms)) return CL_INVALID_VALUE;
  _cl_platform_id* p = _cl_platform_id::get();
  if (platforms && p) platforms[0] = p;
  if (num_platforms) *num_platforms = p ? 1 : 0;
  return p ? CL_SUCCESS : CL_PLATFORM_NOT_FOUND_KHR;
}

_cl_platform_id* platform_or_default(cl_platform_id platform) {
  if (!platform) return _cl_platform_id::get();
  return cl::validate(platform);
}

cl_int CL_API_CALL GetPlatformInfo(cl_platform_id platform, cl_platform_info param,
                                   size_t size, void* value, size_t* size_ret) {
  _cl_platform_id* p = platform_or_default(platform);
  // CL_INVALID_PLATFORM if platform is not a valid platform.
  if (!p) return CL_INVALID_PLATFORM;
  return p->get_info(param, size, value, size_ret);
}

cl_int CL_API_CALL GetDeviceIDs(cl_platform_id platform, cl_device_type type,
                                cl_uint num_entries, cl_device_id* devices,
                                cl_uint* num_devices) {
  _cl_platform_id* p = platform_or_default(platform);
  // CL_INVALID_PLATFORM if platform is not a valid platform.
  if (!p) return CL_INVALID_PLATFORM;
  const cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                               CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
  // CL_INVALID_DEVICE_TYPE if device_type is not a valid value.
  if (type == 0 || (type != CL_DEVICE_TYPE_ALL && (type & ~known))) return CL_INVALID_DEVICE_TYPE;
  // CL_INVALID_VALUE if num_entries is equal to zero and devices is not NULL or if both
  // num_devices and devices are NULL.
  if ((num_entries == 0 && devices) || (!num_devices && !devices)) return CL_INVALID_VALUE;
  std::vector<_cl_device_id*> found;
  for (_cl_device_id* d : p->devices) {
    bool match = type == CL_DEVICE_TYPE_ALL || (type & d->type()) ||
                 ((type & CL_DEVICE_TYPE_DEFAULT) && d == p->devices.front());
    if (match) found.push_back(d);
  }
  // CL_DEVICE_NOT_FOUND if no OpenCL devices that matched device_type were found.
  if (found.empty()) {
    if (num_devices) *num_devices = 0;
    return CL_DEVICE_NOT_FOUND;
  }
  if (devices)
    for (cl_uint i = 0; i < num_entries && i < found.size(); ++i) devices[i] = found[i];
  if (num_devices) *num_devices = cl_uint(found.size());
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetDeviceInfo(cl_device_id device, cl_device_info param, size_t size,
                                 void* value, size_t* size_ret) {
  // CL_INVALID_DEVICE if device is not a valid device.
  if (!cl::validate(device)) return CL_INVALID_DEVICE;
  return device->get_info(param, size, value, size_ret);
}

// Root devices are not reference counted (the specification makes retain/release no-ops).
cl_int CL_API_CALL RetainDevice(cl_device_id device) {
  return cl::validate(device) ? CL_SUCCESS : CL_INVALID_DEVICE;
}
cl_int CL_API_CALL ReleaseDevice(cl_device_id device) {
  return cl::validate(device) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

cl_int CL_API_CALL CreateSubDevices(cl_device_id device, const cl_device_partition_property*,
                                    cl_uint, cl_device_id*, cl_uint*) {
  if (!cl::validate(device)) return CL_INVALID_DEVICE;
  // CL_INVALID_VALUE if the partitioning scheme is not supported by device (none is).
  return CL_INVALID_VALUE;
}

cl_int CL_API_CALL GetHostTimer(cl_device_id device, cl_ulong* host_timestamp) {
  if (!cl::validate(device)) return CL_INVALID_DEVICE;
  if (!host_timestamp) return CL_INVALID_VALUE;
  *host_timestamp = cl::host_time_ns();
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetDeviceAndHostTimer(cl_device_id device, cl_ulong* device_timestamp,
                                         cl_ulong* host_timestamp) {
  if (!cl::validate(device)) return CL_INVALID_DEVICE;
  if (!host_timestamp || !device_timestamp) return CL_INVALID_VALUE;
  // Profiling timestamps are reported on the host clock, so both timers agree.
  *host_timestamp = *device_timestamp = cl::host_time_ns();
  return CL_SUCCESS;
}

cl_int CL_API_CALL UnloadCompiler() { return CL_SUCCESS; }
cl_int CL_API_CALL UnloadPlatformCompiler(cl_platform_id platform) {
  return cl::validate(platform) ? CL_SUCCESS : CL_INVALID_PLATFORM;
}

// vkcl's own query for tests: Vulkan validation messages seen so far (VKCL_VALIDATION=1).
cl_ulong CL_API_CALL GetValidationMessageCountVKCL() {
  return vk::Instance::validation_message_count();
}

// vkcl's own query for tests: host allocations VKCL_FAIL_HOST_ALLOCATIONS failed so far.
cl_ulong CL_API_CALL GetHostAllocationFailureCountVKCL() { return host_allocation::failures(); }

void* CL_API_CALL GetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                         const char* name) {
  // Returns NULL if platform is not a valid platform: the loader hands vkcl any handle whose
  // dispatch table is vkcl's, a device or a context included.
  if (!cl::validate(platform)) return nullptr;
  return extension_function(name);
}

}  // namespace

void* extension_function(const char* name) {
  if (!name) return nullptr;
  if (std::strcmp(name, "clIcdGetPlatformIDsKHR") == 0)
    return reinterpret_cast<void*>(guard<GetPlatformIDs>);
  if (std::strcmp(name, "clGetKernelSuggestedLocalWorkSizeKHR") == 0)
    return reinterpret_cast<void*>(guard<GetKernelSuggestedLocalWorkSize>);
  if (std::strcmp(name, "clGetValidationMessageCountVKCL") == 0)
    return reinterpret_cast<void*>(&GetValidationMessageCountVKCL);
  // Only where libvkcl.so has its own operator new (not in sanitizer builds).
  if (std::strcmp(name, "clGetHostAllocationFailureCountVKCL") == 0)
    return host_allocation::available() ? reinterpret_cast<void*>(&GetHostAllocationFailureCountVKCL)
                                        : nullptr;
  if (void* f = command_buffer_function(name)) return f;
  if (void* f = semaphore_function(name)) return f;
  if (void* f = device_address_function(name)) return f;
  return external_memory_function(name);
}

void* extension_function_for_platform(cl_platform_id platform, const char* name) {
  return GetExtensionFunctionAddressForPlatform(platform, name);
}

cl_int icd_get_platform_ids(cl_uint num_entries, cl_platform_id* platforms,
                            cl_uint* num_platforms) {
  // Guarded as every entry point: the loader calls it as one (no exception may reach it).
  return guard<GetPlatformIDs>(num_entries, platforms, num_platforms);
}

void register_platform(cl_icd_dispatch& t) {
  t.clGetPlatformIDs = guard<GetPlatformIDs>;
  t.clGetPlatformInfo = guard<GetPlatformInfo>;
  t.clGetDeviceIDs = guard<GetDeviceIDs>;
  t.clGetDeviceInfo = guard<GetDeviceInfo>;
  t.clRetainDevice = guard<RetainDevice>;
  t.clReleaseDevice = guard<ReleaseDevice>;
  t.clCreateSubDevices = guard<CreateSubDevices>;
  t.clGetHostTimer = guard<GetHostTimer>;
  t.clGetDeviceAndHostTimer = guard<GetDeviceAndHostTimer>;
  t.clUnloadCompiler = guard<UnloadCompiler>;
  t.clUnloadPlatformCompiler = guard<UnloadPlatformCompiler>;
  t.clGetExtensionFunctionAddressForPlatform = guard<GetExtensionFunctionAddressForPlatform>;
  t.clGetExtensionFunctionAddress = guard<extension_function>;
}

}  // namespace vkcl::api
