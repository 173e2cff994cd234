// The only symbols libvkcl.so exports (icd/exports.map): what the ICD loader looks up.
#include <cstring>

#include "api/api.h"
#include "core/platform.h"

extern "C" {

CL_API_ENTRY cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries,
                                                      cl_platform_id* platforms,
                                                      cl_uint* num_platforms) {
  // CL_INVALID_VALUE if num_entries is equal to zero and platforms is not NULL, or if both
  // num_platforms and platforms are NULL.
  if ((num_entries == 0 && platforms) || (!num_platforms && !platforms)) return CL_INVALID_VALUE;
  _cl_platform_id* p = _cl_platform_id::get();
  if (!p) {
    if (num_platforms) *num_platforms = 0;
    return CL_PLATFORM_NOT_FOUND_KHR;
  }
  if (platforms) platforms[0] = p;
  if (num_platforms) *num_platforms = 1;
  return CL_SUCCESS;
}

CL_API_ENTRY void* CL_API_CALL clGetExtensionFunctionAddress(const char* name) {
  if (name && std::strcmp(name, "clIcdGetPlatformIDsKHR") == 0)
    return reinterpret_cast<void*>(&clIcdGetPlatformIDsKHR);
  return nullptr;
}

CL_API_ENTRY void* CL_API_CALL clGetExtensionFunctionAddressForPlatform(cl_platform_id,
                                                                        const char* name) {
  return clGetExtensionFunctionAddress(name);
}

CL_API_ENTRY cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform,
                                                 cl_platform_info param_name,
                                                 size_t param_value_size, void* param_value,
                                                 size_t* param_value_size_ret) {
  return vkcl::cl::g_dispatch_table.clGetPlatformInfo(platform, param_name, param_value_size,
                                                      param_value, param_value_size_ret);
}

}  // extern "C"
