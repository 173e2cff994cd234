// Context entry points.
#include <algorithm>

#include "api/api.h"
#include "core/context.h"
#include "core/event.h"
#include "core/info.h"
#include "core/platform.h"

namespace vkcl::api {
namespace {

// Checks a context property list; returns CL_SUCCESS and copies it into |out|.
cl_int check_properties(const cl_context_properties* properties,
                        std::vector<cl_context_properties>* out) {
  if (!properties) return CL_SUCCESS;
  bool seen_platform = false, seen_sync = false;
  for (size_t i = 0; properties[i] != 0; i += 2) {
    cl_context_properties name = properties[i], value = properties[i + 1];
    switch (name) {
      case CL_CONTEXT_PLATFORM:
        // CL_INVALID_PROPERTY if the same property name is specified more than once.
        if (seen_platform) return CL_INVALID_PROPERTY;
        seen_platform = true;
        // CL_INVALID_PLATFORM if platform value specified in properties is not a valid platform.
        if (!cl::validate(reinterpret_cast<cl_platform_id>(value))) return CL_INVALID_PLATFORM;
        break;
      case CL_CONTEXT_INTEROP_USER_SYNC:
        // CL_INVALID_PROPERTY also if the value of a supported property is not valid.
        if (seen_sync || (value != CL_TRUE && value != CL_FALSE)) return CL_INVALID_PROPERTY;
        seen_sync = true;
        break;
      default:
        // CL_INVALID_PROPERTY if context property name in properties is not a supported
        // property name.
        return CL_INVALID_PROPERTY;
    }
    out->push_back(name);
    out->push_back(value);
  }
  out->push_back(0);
  return CL_SUCCESS;
}

cl_context make_context(const cl_context_properties* properties,
                        std::vector<_cl_device_id*> devices, _cl_context::Notify notify,
                        void* user_data, cl_int* errcode_ret) {
  // CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL.
  if (!notify && user_data) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  std::vector<cl_context_properties> props;
  cl_int e = check_properties(properties, &props);
  if (e != CL_SUCCESS) return set_error(errcode_ret, e), nullptr;
  // A device listed twice is one device of the context.
  std::vector<_cl_device_id*> unique;
  for (auto* d : devices)
    if (std::find(unique.begin(), unique.end(), d) == unique.end()) unique.push_back(d);
  devices = std::move(unique);
  // (A buffer's copies are tracked in 64 bits: cl::Copies.)
  if (devices.size() > 64) return set_error(errcode_ret, CL_OUT_OF_RESOURCES), nullptr;
  // The application has chosen vkcl: its first build will want the built-in function
  // libraries, which load meanwhile.
  k2s::preload_builtin_libraries();
  auto c = cl::Ref<_cl_context>::adopt(new _cl_context());
  c->devices = devices;
  c->properties = props;
  c->notify = notify;
  c->notify_data = user_data;
  set_error(errcode_ret, CL_SUCCESS);
  return c.release_to_api();
}

cl_context CL_API_CALL CreateContext(const cl_context_properties* properties, cl_uint num_devices,
                                     const cl_device_id* devices, _cl_context::Notify notify,
                                     void* user_data, cl_int* errcode_ret) {
  // CL_INVALID_VALUE if devices is NULL or if num_devices is equal to zero.
  if (!devices || num_devices == 0) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  std::vector<_cl_device_id*> list;
  for (cl_uint i = 0; i < num_devices; ++i) {
    // CL_INVALID_DEVICE if any device in devices is not a valid device.
    if (!cl::validate(devices[i])) return set_error(errcode_ret, CL_INVALID_DEVICE), nullptr;
    list.push_back(devices[i]);
  }
  return make_context(properties, list, notify, user_data, errcode_ret);
}

cl_context CL_API_CALL CreateContextFromType(const cl_context_properties* properties,
                                             cl_device_type type, _cl_context::Notify notify,
                                             void* user_data, cl_int* errcode_ret) {
  _cl_platform_id* p = _cl_platform_id::get();
  if (properties)
    for (size_t i = 0; properties[i]; i += 2)
      if (properties[i] == CL_CONTEXT_PLATFORM) p = reinterpret_cast<cl_platform_id>(properties[i + 1]);
  if (!cl::validate(p)) return set_error(errcode_ret, CL_INVALID_PLATFORM), nullptr;
  cl_uint count = 0;
  cl_int e = p->devices.empty() ? CL_DEVICE_NOT_FOUND : CL_SUCCESS;
  std::vector<cl_device_id> devices(p->devices.size());
  if (e == CL_SUCCESS)
    e = cl::g_dispatch_table.clGetDeviceIDs(p, type, cl_uint(devices.size()), devices.data(), &count);
  // CL_INVALID_DEVICE_TYPE / CL_DEVICE_NOT_FOUND as clGetDeviceIDs reports them.
  if (e != CL_SUCCESS) return set_error(errcode_ret, e), nullptr;
  devices.resize(count);
  return make_context(properties, {devices.begin(), devices.end()}, notify, user_data, errcode_ret);
}

cl_int CL_API_CALL RetainContext(cl_context context) {
  // CL_INVALID_CONTEXT if context is not a valid OpenCL context.
  if (!cl::validate(context)) return CL_INVALID_CONTEXT;
  context->retain();
  return CL_SUCCESS;
}

cl_int CL_API_CALL ReleaseContext(cl_context context) {
  if (!cl::validate(context)) return CL_INVALID_CONTEXT;
  context->release();
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetContextInfo(cl_context context, cl_context_info param, size_t size,
                                  void* value, size_t* size_ret) {
  if (!cl::validate(context)) return CL_INVALID_CONTEXT;
  cl::InfoOut out{size, value, size_ret};
  switch (param) {
    case CL_CONTEXT_REFERENCE_COUNT: return out(cl_uint(context->reference_count()));
    case CL_CONTEXT_NUM_DEVICES: return out(cl_uint(context->devices.size()));
    case CL_CONTEXT_DEVICES: {
      std::vector<cl_device_id> d(context->devices.begin(), context->devices.end());
      return out(d);
    }
    case CL_CONTEXT_PROPERTIES: return out(context->properties);
    default:
      // CL_INVALID_VALUE if param_name is not one of the supported values.
      return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL SetContextDestructorCallback(cl_context context, _cl_context::Destructor fn,
                                                void* user_data) {
  if (!cl::validate(context)) return CL_INVALID_CONTEXT;
  // CL_INVALID_VALUE if pfn_notify is NULL.
  if (!fn) return CL_INVALID_VALUE;
  context->add_destructor_callback(fn, user_data);
  return CL_SUCCESS;
}

}  // namespace

void register_context(cl_icd_dispatch& t) {
  t.clCreateContext = guard<CreateContext>;
  t.clCreateContextFromType = guard<CreateContextFromType>;
  t.clRetainContext = guard<RetainContext>;
  t.clReleaseContext = guard<ReleaseContext>;
  t.clGetContextInfo = guard<GetContextInfo>;
  t.clSetContextDestructorCallback = guard<SetContextDestructorCallback>;
}

cl_int check_wait_list(cl_uint count, const cl_event* list, _cl_context* context,
                       std::vector<_cl_event*>* out) {
  if ((count > 0 && !list) || (count == 0 && list)) return CL_INVALID_EVENT_WAIT_LIST;
  for (cl_uint i = 0; i < count; ++i) {
    if (!cl::validate(list[i])) return CL_INVALID_EVENT_WAIT_LIST;
    if (context && list[i]->context.get() != context) return CL_INVALID_CONTEXT;
    out->push_back(list[i]);
  }
  return CL_SUCCESS;
}

}  // namespace vkcl::api
