// Shared pieces of the API layer: error plumbing at the C boundary and the registration
// functions that fill the ICD dispatch table, one per object family.
#pragma once

#include <CL/cl.h>
#include <CL/cl_icd.h>
#include <CL/cl_ext.h>

#include <type_traits>
#include <vector>

#include "core/object.h"
#include "core/result.h"
#include "vkcl/common/host_allocation.h"

struct _cl_command_queue;
struct _cl_context;
struct _cl_event;
namespace vkcl::cl {
struct GpuCommand;
}

namespace vkcl::api {

// Memory flags by kind: the device's access, and where the host's memory comes in.
constexpr cl_mem_flags kAccess = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
constexpr cl_mem_flags kHostPtr = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;

inline void set_error(cl_int* errcode_ret, cl_int code) {
  if (errcode_ret) *errcode_ret = code;
}

// Entry points let no exception out (std::bad_alloc, or std::length_error from a size the
// application got wrong, such as a source length of SIZE_MAX): it ends as
// CL_OUT_OF_HOST_MEMORY, through errcode_ret where the entry point returns an object. The
// dispatch table holds guard<F> for each entry point F.
template <auto F>
struct Guarded;
template <typename R, typename... A, R(CL_API_CALL* F)(A...)>
struct Guarded<F> {
  static R CL_API_CALL call(A... args) {
    // Allocations in the call may be failed by VKCL_FAIL_HOST_ALLOCATIONS.
    host_allocation::EntryPoint inside;
    try {
      return F(args...);
    } catch (...) {
      if constexpr (std::is_same_v<R, cl_int>) {
        return CL_OUT_OF_HOST_MEMORY;
      } else {
        cl_int* errcode = nullptr;
        ((errcode = last_errcode(args, errcode)), ...);
        if (errcode) *errcode = CL_OUT_OF_HOST_MEMORY;
        if constexpr (!std::is_void_v<R>) return R{};
      }
    }
  }
  template <typename T>
  static cl_int* last_errcode(T value, cl_int* previous) {
    if constexpr (std::is_same_v<T, cl_int*>) return value;
    else return previous;
  }
};
template <auto F>
constexpr auto guard = &Guarded<F>::call;

// Hands a created object to the application, or nullptr and the error.
template <typename T>
T* hand_out(cl::Result<T*> r, cl_int* errcode_ret) {
  set_error(errcode_ret, r.error());
  return r.ok() ? r.value() : nullptr;
}

// CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and num_events_in_wait_list > 0, or
// event_wait_list is not NULL and num_events_in_wait_list is 0, or if event objects in
// event_wait_list are not valid events; CL_INVALID_CONTEXT if their context differs.
cl_int check_wait_list(cl_uint count, const cl_event* list, _cl_context* context,
                       std::vector<_cl_event*>* out);

// CL_INVALID_VALUE if values specified in flags are not valid (the cl_mem_flags of buffers
// and images).
bool valid_mem_flags(cl_mem_flags flags);

// Hands the event of an enqueued command out (or drops it) and, for blocking calls, waits
// for it; the command's status is returned.
cl_int finish_enqueue(cl::Result<cl::Ref<_cl_event>> r, bool blocking, cl_event* event);
// GPU commands as the enqueue entry points make them, for command buffers to record as well
// (api/command_buffer.cpp): each checks its objects against |queue|'s context and device as
// the entry point does, and fills |out|.
cl_int copy_buffer_command(_cl_command_queue* queue, cl_mem src, cl_mem dst, size_t src_offset,
                           size_t dst_offset, size_t size, cl::GpuCommand* out);
cl_int copy_buffer_rect_command(_cl_command_queue* queue, cl_mem src, cl_mem dst,
                                const size_t* src_origin, const size_t* dst_origin,
                                const size_t* region, size_t src_row, size_t src_slice,
                                size_t dst_row, size_t dst_slice, cl::GpuCommand* out);
cl_int fill_buffer_command(_cl_command_queue* queue, cl_mem buffer, const void* pattern,
                           size_t pattern_size, size_t offset, size_t size, cl::GpuCommand* out);
cl_int kernel_command(_cl_command_queue* queue, cl_kernel kernel, cl_uint work_dim,
                      const size_t* offset, const size_t* global, const size_t* local,
                      cl::GpuCommand* out);
cl_int copy_image_command(_cl_command_queue* queue, cl_mem src, cl_mem dst, const size_t* src_origin,
                          const size_t* dst_origin, const size_t* region, cl::GpuCommand* out);
cl_int fill_image_command(_cl_command_queue* queue, cl_mem image, const void* fill_color,
                          const size_t* origin, const size_t* region, cl::GpuCommand* out);
cl_int copy_image_to_buffer_command(_cl_command_queue* queue, cl_mem src, cl_mem dst,
                                    const size_t* origin, const size_t* region, size_t offset,
                                    cl::GpuCommand* out);
cl_int copy_buffer_to_image_command(_cl_command_queue* queue, cl_mem src, cl_mem dst, size_t offset,
                                    const size_t* origin, const size_t* region, cl::GpuCommand* out);
// Enqueues |command| on |queue| after |waits| (the entry points' common end).
cl_int enqueue_gpu(_cl_command_queue* queue, const std::vector<_cl_event*>& waits,
                   cl::GpuCommand command, cl_event* event);

// clEnqueueUnmapMemObject for an image (arguments checked but |mapped|).
cl_int unmap_image(cl_command_queue queue, cl_mem image, void* mapped,
                   const std::vector<_cl_event*>& waits, cl_event* event);

// The properties of clCreateBufferWithProperties: cl_khr_external_memory's and
// cl_ext_buffer_device_address's (checked: the spec's error, or CL_SUCCESS); |properties| may
// be null. No handle: fd -1.
struct ExternalMemory {
  cl_external_memory_handle_type_khr type = 0;
  int fd = -1;
  bool device_address_given = false;  // CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT in the list
  bool device_address = false;        // and set to CL_TRUE
  std::vector<cl_mem_properties> properties;  // as given, 0-terminated ({0} when empty)
};
cl_int parse_external_memory(cl_context context, const cl_mem_properties* properties, ExternalMemory* out);
// cl_khr_external_memory's entry points by name (api/external_memory.cpp), or NULL.
void* external_memory_function(const char* name);
// cl_ext_buffer_device_address's (api/svm.cpp), or NULL.
void* device_address_function(const char* name);
void* semaphore_function(const char* name);
// cl_khr_command_buffer's entry points by name (api/command_buffer.cpp), or NULL.
void* command_buffer_function(const char* name);
// Extension entry points by name (clGetExtensionFunctionAddress*).
void* CL_API_CALL extension_function(const char* name);
// The same for |platform|: NULL when it is not vkcl's platform.
void* extension_function_for_platform(cl_platform_id platform, const char* name);
cl_int icd_get_platform_ids(cl_uint num_entries, cl_platform_id* platforms,
                            cl_uint* num_platforms);

void register_platform(cl_icd_dispatch& table);
void register_context(cl_icd_dispatch& table);
void register_queue(cl_icd_dispatch& table);
void register_memory(cl_icd_dispatch& table);
void register_event(cl_icd_dispatch& table);
void register_enqueue(cl_icd_dispatch& table);
void register_program(cl_icd_dispatch& table);
void register_kernel(cl_icd_dispatch& table);
// cl_khr_suggested_local_work_size (found through extension_function).
cl_int CL_API_CALL GetKernelSuggestedLocalWorkSize(cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
                                                   const size_t* global_work_offset, const size_t* global_work_size,
                                                   size_t* suggested_local_work_size);
void register_image(cl_icd_dispatch& table);
void register_sampler(cl_icd_dispatch& table);
void register_svm(cl_icd_dispatch& table);

}  // namespace vkcl::api
