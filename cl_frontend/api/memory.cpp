// Buffer entry points.
#include "api/api.h"
#include "core/image.h"
#include "core/info.h"
#include "core/memory.h"

namespace vkcl::api {
namespace {

constexpr cl_mem_flags kHostAccess =
    CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;

bool more_than_one(cl_mem_flags bits) { return bits & (bits - 1); }

}  // namespace

bool valid_mem_flags(cl_mem_flags flags) {
  if (flags & ~(kAccess | kHostAccess | kHostPtr | CL_MEM_KERNEL_READ_AND_WRITE)) return false;
  if (more_than_one(flags & kAccess) || more_than_one(flags & kHostAccess)) return false;
  if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
    return false;
  return true;
}

namespace {

bool valid_flags(cl_mem_flags flags) { return valid_mem_flags(flags); }

cl_mem CL_API_CALL CreateBufferWithProperties(cl_context context,
                                              const cl_mem_properties* properties,
                                              cl_mem_flags flags, size_t size, void* host_ptr,
                                              cl_int* errcode_ret) {
  // CL_INVALID_CONTEXT if context is not a valid context.
  if (!cl::validate(context)) return set_error(errcode_ret, CL_INVALID_CONTEXT), nullptr;
  ExternalMemory external;
  if (cl_int e = parse_external_memory(context, properties, &external); e != CL_SUCCESS)
    return set_error(errcode_ret, e), nullptr;
  if (!valid_flags(flags)) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  if (!(flags & kAccess)) flags |= CL_MEM_READ_WRITE;
  // CL_INVALID_BUFFER_SIZE if size is 0, or if size is greater than
  // CL_DEVICE_MAX_MEM_ALLOC_SIZE for all devices in context.
  if (size == 0 || size > context->memory_device()->max_mem_alloc_size())
    return set_error(errcode_ret, CL_INVALID_BUFFER_SIZE), nullptr;
  // CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR
  // are set in flags or if host_ptr is not NULL but CL_MEM_COPY_HOST_PTR or
  // CL_MEM_USE_HOST_PTR are not set in flags.
  bool wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  if (wants_ptr != (host_ptr != nullptr)) return set_error(errcode_ret, CL_INVALID_HOST_PTR), nullptr;
  if (external.fd >= 0) {
    // Memory another API allocated: no host pointer to use, copy or allocate.
    if (host_ptr) return set_error(errcode_ret, CL_INVALID_HOST_PTR), nullptr;
    if (flags & kHostPtr) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  }
  auto mem = external.fd >= 0 ? _cl_mem::import_buffer(context, flags, size, external.type, external.fd)
                              : _cl_mem::create_buffer(context, flags, size, host_ptr);
  if (mem && properties) (*mem)->properties = external.properties;
  if (mem && external.device_address) {
    // Its address on each device is handed out: every device has its copy from now on.
    (*mem)->device_address_fixed = true;
    for (_cl_device_id* d : context->devices)
      if (cl_int e = (*mem)->ensure_on(d); e != CL_SUCCESS) {
        (*mem)->release();
        return set_error(errcode_ret, e), nullptr;
      }
  }
  return hand_out(std::move(mem), errcode_ret);
}

cl_mem CL_API_CALL CreateBuffer(cl_context context, cl_mem_flags flags, size_t size,
                                void* host_ptr, cl_int* errcode_ret) {
  return CreateBufferWithProperties(context, nullptr, flags, size, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL CreateSubBuffer(cl_mem buffer, cl_mem_flags flags,
                                   cl_buffer_create_type type, const void* info,
                                   cl_int* errcode_ret) {
  // CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object or is a sub-buffer object.
  if (!cl::validate(buffer) || buffer->parent || buffer->image) return set_error(errcode_ret, CL_INVALID_MEM_OBJECT), nullptr;
  if (!valid_flags(flags) || (flags & kHostPtr)) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  // CL_INVALID_VALUE if buffer was created with CL_MEM_WRITE_ONLY and flags specifies
  // CL_MEM_READ_WRITE or CL_MEM_READ_ONLY, or the opposite, or host access conflicts.
  if ((buffer->flags & CL_MEM_WRITE_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY)))
    return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  if ((buffer->flags & CL_MEM_READ_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY)))
    return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  if ((buffer->flags & CL_MEM_HOST_WRITE_ONLY) && (flags & CL_MEM_HOST_READ_ONLY))
    return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  if ((buffer->flags & CL_MEM_HOST_READ_ONLY) && (flags & CL_MEM_HOST_WRITE_ONLY))
    return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  if ((buffer->flags & CL_MEM_HOST_NO_ACCESS) && (flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY)))
    return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  // CL_INVALID_VALUE if value specified in buffer_create_type is not valid, or info is NULL.
  if (type != CL_BUFFER_CREATE_TYPE_REGION || !info) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  const auto* region = static_cast<const cl_buffer_region*>(info);
  // CL_INVALID_BUFFER_SIZE if the size field of the cl_buffer_region structure is 0.
  if (region->size == 0) return set_error(errcode_ret, CL_INVALID_BUFFER_SIZE), nullptr;
  // CL_INVALID_VALUE if the region specified by the cl_buffer_region structure is out of
  // bounds in buffer.
  if (region->origin > buffer->size || region->size > buffer->size - region->origin)
    return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  // CL_MISALIGNED_SUB_BUFFER_OFFSET if origin is not aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN.
  if (region->origin % 128) return set_error(errcode_ret, CL_MISALIGNED_SUB_BUFFER_OFFSET), nullptr;
  // Flags not given are inherited.
  if (!(flags & kAccess)) flags |= buffer->flags & kAccess;
  if (!(flags & kHostAccess)) flags |= buffer->flags & kHostAccess;
  flags |= buffer->flags & kHostPtr;
  return hand_out(_cl_mem::create_sub_buffer(buffer, flags, region->origin, region->size), errcode_ret);
}

cl_int CL_API_CALL RetainMemObject(cl_mem mem) {
  // CL_INVALID_MEM_OBJECT if memobj is not a valid memory object.
  if (!cl::validate(mem)) return CL_INVALID_MEM_OBJECT;
  mem->retain();
  return CL_SUCCESS;
}

cl_int CL_API_CALL ReleaseMemObject(cl_mem mem) {
  if (!cl::validate(mem)) return CL_INVALID_MEM_OBJECT;
  mem->release();
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetMemObjectInfo(cl_mem mem, cl_mem_info param, size_t size, void* value,
                                    size_t* size_ret) {
  if (!cl::validate(mem)) return CL_INVALID_MEM_OBJECT;
  cl::InfoOut out{size, value, size_ret};
  switch (param) {
    case CL_MEM_TYPE:
      return out(cl_mem_object_type(mem->image ? mem->image->desc.image_type : CL_MEM_OBJECT_BUFFER));
    case CL_MEM_FLAGS: return out(mem->flags);
    case CL_MEM_SIZE: return out(mem->size);
    case CL_MEM_HOST_PTR: return out(mem->host_ptr);
    case CL_MEM_MAP_COUNT: return out(cl_uint(mem->map_count.load()));
    case CL_MEM_REFERENCE_COUNT: return out(cl_uint(mem->reference_count()));
    case CL_MEM_CONTEXT: return out(static_cast<cl_context>(mem->context.get()));
    case CL_MEM_ASSOCIATED_MEMOBJECT: return out(static_cast<cl_mem>(mem->parent.get()));
    case CL_MEM_OFFSET: return out(size_t(mem->parent ? mem->offset - mem->parent->offset : 0));
    case CL_MEM_USES_SVM_POINTER: return out(cl_bool(mem->uses_svm || (mem->parent && mem->parent->uses_svm)));
    case CL_MEM_PROPERTIES: return out(mem->properties);
    case CL_MEM_DEVICE_ADDRESS_EXT: {
      // CL_INVALID_OPERATION for a buffer made without CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT (and
      // for images). One address per device of the context, in its order.
      if (!mem->device_address_fixed || mem->image) return CL_INVALID_OPERATION;
      std::vector<cl_mem_device_address_ext> addresses;
      for (_cl_device_id* d : mem->context->devices) addresses.push_back(mem->device_address(d));
      return out(addresses);
    }
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL SetMemObjectDestructorCallback(cl_mem mem, void(CL_CALLBACK* fn)(cl_mem, void*),
                                                  void* user_data) {
  if (!cl::validate(mem)) return CL_INVALID_MEM_OBJECT;
  // CL_INVALID_VALUE if pfn_notify is NULL.
  if (!fn) return CL_INVALID_VALUE;
  mem->add_destructor_callback(fn, user_data);
  return CL_SUCCESS;
}

// Pipes are not supported (CL_DEVICE_PIPE_SUPPORT is CL_FALSE), so no memory object is a
// pipe: "CL_INVALID_MEM_OBJECT if pipe is not a valid pipe object".
cl_int CL_API_CALL GetPipeInfo(cl_mem, cl_pipe_info, size_t, void*, size_t*) {
  return CL_INVALID_MEM_OBJECT;
}

}  // namespace

void register_memory(cl_icd_dispatch& t) {
  t.clCreateBuffer = guard<CreateBuffer>;
  t.clCreateBufferWithProperties = guard<CreateBufferWithProperties>;
  t.clCreateSubBuffer = guard<CreateSubBuffer>;
  t.clRetainMemObject = guard<RetainMemObject>;
  t.clReleaseMemObject = guard<ReleaseMemObject>;
  t.clGetMemObjectInfo = guard<GetMemObjectInfo>;
  t.clSetMemObjectDestructorCallback = guard<SetMemObjectDestructorCallback>;
  t.clGetPipeInfo = guard<GetPipeInfo>;
}

}  // namespace vkcl::api
