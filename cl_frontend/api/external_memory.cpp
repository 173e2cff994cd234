// cl_khr_external_memory (0.9.0) with opaque fd and dma-buf handles: buffers (and images, from
// opaque fds) over memory a Vulkan program (or another API) allocated and exported, and the commands that hand that
// memory between the two (acquire, release).
#include <algorithm>
#include <cstring>

#include "api/api.h"
#include "core/device.h"
#include "core/gpu_command.h"
#include "core/image.h"
#include "core/memory.h"
#include "core/residency.h"

namespace vkcl::api {

cl_int parse_external_memory(cl_context context, const cl_mem_properties* properties, ExternalMemory* out) {
  if (!properties) return CL_SUCCESS;
  bool devices_seen = false;
  for (const cl_mem_properties* p = properties; *p;) {
    const cl_mem_properties name = *p;
    out->properties.push_back(name);
    if (name == CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR || name == CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR) {
      // CL_INVALID_PROPERTY if a property name is not a supported property name, its value is
      // not valid, or the same property name (an external handle: one at most) is given more
      // than once.
      auto handles = context->memory_device()->external_memory_handles();
      const auto type = cl_external_memory_handle_type_khr(name);
      if (out->fd >= 0 || std::find(handles.begin(), handles.end(), type) == handles.end()) return CL_INVALID_PROPERTY;
      const cl_mem_properties fd = p[1];
      if (cl_long(fd) < 0 || fd > cl_mem_properties(INT32_MAX)) return CL_INVALID_PROPERTY;
      out->type = type;
      out->fd = int(fd);
      out->properties.push_back(fd);
      p += 2;
    } else if (name == CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT) {
      // CL_INVALID_PROPERTY for a value that is not a cl_bool, or the property twice.
      if (out->device_address_given || (p[1] != CL_TRUE && p[1] != CL_FALSE)) return CL_INVALID_PROPERTY;
      out->device_address_given = true;
      out->device_address = p[1] == CL_TRUE;
      out->properties.push_back(p[1]);
      p += 2;
    } else if (name == CL_DEVICE_HANDLE_LIST_KHR) {
      if (devices_seen) return CL_INVALID_PROPERTY;
      devices_seen = true;
      // CL_INVALID_DEVICE if a device in the list is not a valid device or not one of the
      // context's.
      for (++p; *p != CL_DEVICE_HANDLE_LIST_END_KHR; ++p) {
        auto* d = reinterpret_cast<cl_device_id>(*p);
        const auto& ds = context->devices;
        if (std::find(ds.begin(), ds.end(), d) == ds.end()) return CL_INVALID_DEVICE;
        out->properties.push_back(*p);
      }
      out->properties.push_back(CL_DEVICE_HANDLE_LIST_END_KHR);
      ++p;
    } else {
      return CL_INVALID_PROPERTY;
    }
  }
  // The device list restricts an external handle; alone it means nothing.
  if (devices_seen && out->fd < 0) return CL_INVALID_PROPERTY;
  out->properties.push_back(0);
  return CL_SUCCESS;
}

namespace {

// clEnqueueAcquireExternalMemObjectsKHR and clEnqueueReleaseExternalMemObjectsKHR: each
// buffer's memory passes from the other API's queue family to vkcl's or back (a queue family
// ownership transfer with VK_QUEUE_FAMILY_EXTERNAL); the other API orders its own use with
// semaphores or by waiting.
cl_int hand_over(bool acquire, cl_command_queue queue, cl_uint num_mem_objects, const cl_mem* mem_objects,
                 cl_uint num_events, const cl_event* wait_list, cl_event* event) {
  // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command-queue.
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  // CL_INVALID_VALUE if num_mem_objects is zero and mem_objects is not a NULL value, or if
  // num_mem_objects is greater than 0 and mem_objects is NULL.
  if ((num_mem_objects == 0) != (mem_objects == nullptr)) return CL_INVALID_VALUE;
  std::vector<_cl_mem*> mems;
  _cl_command_queue::Keep keep;
  for (cl_uint i = 0; i < num_mem_objects; ++i) {
    // CL_INVALID_MEM_OBJECT if any of the memory objects in mem_objects is not a valid
    // memory object or was not created from an external memory handle.
    _cl_mem* m = mem_objects[i];
    if (!cl::validate(m) || !m->external) return CL_INVALID_MEM_OBJECT;
    // CL_INVALID_CONTEXT if the context of command_queue and of the memory objects differ.
    if (m->context.get() != queue->context.get()) return CL_INVALID_CONTEXT;
    // The memory is imported on the context's first device: only its queues hand it over
    // (CL_INVALID_COMMAND_QUEUE as for a device the handle was not given for).
    if (queue->device != queue->context->memory_device()) return CL_INVALID_COMMAND_QUEUE;
    mems.push_back(m);
    keep.push_back(cl::keep(m));
  }
  std::vector<_cl_event*> waits;
  cl_int e = check_wait_list(num_events, wait_list, queue->context.get(), &waits);
  if (e != CL_SUCCESS) return e;
  cl::GpuCommand command;
  command.type = acquire ? CL_COMMAND_ACQUIRE_EXTERNAL_MEM_OBJECTS_KHR : CL_COMMAND_RELEASE_EXTERNAL_MEM_OBJECTS_KHR;
  command.record = [mems, acquire](_cl_command_queue& q) {
    for (_cl_mem* m : mems) {
      // In a context of several devices, what the other API wrote is the only current copy;
      // what it gets back is the latest.
      if (cl_int e = cl::use_on(q, *m, acquire, /*keep_contents=*/!acquire)) return e;
      VkResult r = m->image ? m->image->storage->external_ownership(*q.stream, acquire)
                            : m->storage->external_ownership(*q.stream, acquire);
      if (r != VK_SUCCESS) return cl::cl_error_from(r);
    }
    return CL_SUCCESS;
  };
  command.keep = std::move(keep);
  return enqueue_gpu(queue, waits, std::move(command), event);
}

cl_int CL_API_CALL EnqueueAcquireExternalMemObjectsKHR(cl_command_queue queue, cl_uint num_mem_objects,
                                                       const cl_mem* mem_objects, cl_uint num_events,
                                                       const cl_event* wait_list, cl_event* event) {
  return hand_over(true, queue, num_mem_objects, mem_objects, num_events, wait_list, event);
}

cl_int CL_API_CALL EnqueueReleaseExternalMemObjectsKHR(cl_command_queue queue, cl_uint num_mem_objects,
                                                       const cl_mem* mem_objects, cl_uint num_events,
                                                       const cl_event* wait_list, cl_event* event) {
  return hand_over(false, queue, num_mem_objects, mem_objects, num_events, wait_list, event);
}

}  // namespace

void* external_memory_function(const char* name) {
  if (std::strcmp(name, "clEnqueueAcquireExternalMemObjectsKHR") == 0)
    return reinterpret_cast<void*>(guard<EnqueueAcquireExternalMemObjectsKHR>);
  if (std::strcmp(name, "clEnqueueReleaseExternalMemObjectsKHR") == 0)
    return reinterpret_cast<void*>(guard<EnqueueReleaseExternalMemObjectsKHR>);
  return nullptr;
}

}  // namespace vkcl::api
