// The only symbols libvkcl.so exports (icd/exports.map): what the ICD loader looks up.
#include "api/api.h"

extern "C" {

CL_API_ENTRY cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries,
                                                      cl_platform_id* platforms,
                                                      cl_uint* num_platforms) {
  return vkcl::api::icd_get_platform_ids(num_entries, platforms, num_platforms);
}

CL_API_ENTRY void* CL_API_CALL clGetExtensionFunctionAddress(const char* name) {
  return vkcl::api::extension_function(name);
}

CL_API_ENTRY void* CL_API_CALL clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                                        const char* name) {
  return vkcl::api::extension_function_for_platform(platform, name);
}

CL_API_ENTRY cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform,
                                                 cl_platform_info param_name,
                                                 size_t param_value_size, void* param_value,
                                                 size_t* param_value_size_ret) {
  return vkcl::cl::g_dispatch_table.clGetPlatformInfo(platform, param_name, param_value_size,
                                                      param_value, param_value_size_ret);
}

}  // extern "C"
