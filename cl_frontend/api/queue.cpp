// Command-queue entry points.
#include "api/api.h"
#include "core/info.h"
#include "core/queue.h"

#include <CL/cl_ext.h>

namespace vkcl::api {
namespace {

cl_command_queue make_queue(cl_context context, cl_device_id device,
                            cl_command_queue_properties props,
                            std::vector<cl_queue_properties> list, cl_int* errcode_ret,
                            vk::QueuePriority priority = vk::QueuePriority::Medium) {
  // CL_INVALID_CONTEXT if context is not a valid context.
  if (!cl::validate(context)) return set_error(errcode_ret, CL_INVALID_CONTEXT), nullptr;
  // CL_INVALID_DEVICE if device is not a valid device or is not associated with context.
  if (!cl::validate(device) || !context->has_device(device))
    return set_error(errcode_ret, CL_INVALID_DEVICE), nullptr;
  const cl_command_queue_properties known = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                            CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_ON_DEVICE |
                                            CL_QUEUE_ON_DEVICE_DEFAULT;
  // CL_INVALID_VALUE if values specified in properties are not valid.
  if (props & ~known) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  if ((props & CL_QUEUE_ON_DEVICE_DEFAULT) && !(props & CL_QUEUE_ON_DEVICE))
    return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  // CL_INVALID_QUEUE_PROPERTIES if values specified in properties are valid but are not
  // supported by the device (on-device queues are not).
  if (props & CL_QUEUE_ON_DEVICE)
    return set_error(errcode_ret, CL_INVALID_QUEUE_PROPERTIES), nullptr;
  auto q = _cl_command_queue::create(context, device, props, priority);
  if (q) (*q)->property_list = std::move(list);
  return hand_out(std::move(q), errcode_ret);
}

cl_command_queue CL_API_CALL CreateCommandQueueWithProperties(cl_context context,
                                                              cl_device_id device,
                                                              const cl_queue_properties* properties,
                                                              cl_int* errcode_ret) {
  cl_command_queue_properties props = 0;
  std::vector<cl_queue_properties> list;
  vk::QueuePriority priority = vk::QueuePriority::Medium;
  if (properties) {
    for (size_t i = 0; properties[i]; i += 2) {
      list.push_back(properties[i]);
      list.push_back(properties[i + 1]);
      const cl_queue_properties value = properties[i + 1];
      // cl_khr_priority_hints and cl_khr_throttle_hints: HIGH, MED or LOW. Priorities choose
      // the Vulkan queue where the device has one per level; throttling has no Vulkan
      // counterpart (a hint: accepted, no effect).
      const bool level = value == CL_QUEUE_PRIORITY_HIGH_KHR || value == CL_QUEUE_PRIORITY_MED_KHR ||
                         value == CL_QUEUE_PRIORITY_LOW_KHR;
      if (properties[i] == CL_QUEUE_PRIORITY_KHR || properties[i] == CL_QUEUE_THROTTLE_KHR) {
        if (!level) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
        if (properties[i] == CL_QUEUE_PRIORITY_KHR)
          priority = value == CL_QUEUE_PRIORITY_HIGH_KHR  ? vk::QueuePriority::High
                     : value == CL_QUEUE_PRIORITY_LOW_KHR ? vk::QueuePriority::Low
                                                          : vk::QueuePriority::Medium;
      } else if (properties[i] == CL_QUEUE_PROPERTIES) props = value;
      else if (properties[i] != CL_QUEUE_SIZE)
        return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
      else if (!(props & CL_QUEUE_ON_DEVICE))
        return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
    }
    list.push_back(0);
  }
  // CL_INVALID_QUEUE_PROPERTIES for a priority or throttle hint on a device queue (which
  // vkcl does not make anyway).
  return make_queue(context, device, props, std::move(list), errcode_ret, priority);
}

cl_command_queue CL_API_CALL CreateCommandQueue(cl_context context, cl_device_id device,
                                                cl_command_queue_properties props,
                                                cl_int* errcode_ret) {
  if (props & (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT))
    return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  return make_queue(context, device, props, {}, errcode_ret);
}

cl_int CL_API_CALL RetainCommandQueue(cl_command_queue queue) {
  // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command-queue.
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  queue->retain();
  return CL_SUCCESS;
}

cl_int CL_API_CALL ReleaseCommandQueue(cl_command_queue queue) {
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  // clReleaseCommandQueue performs an implicit flush. A kernel the queue still continues
  // (more rounds) is taken to its end: its event keeps the queue, and no later call of the
  // application's might.
  (void)queue->flush();
  queue->settle(true);
  queue->release();
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetCommandQueueInfo(cl_command_queue queue, cl_command_queue_info param,
                                       size_t size, void* value, size_t* size_ret) {
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  cl::InfoOut out{size, value, size_ret};
  switch (param) {
    case CL_QUEUE_CONTEXT: return out(static_cast<cl_context>(queue->context.get()));
    case CL_QUEUE_DEVICE: return out(static_cast<cl_device_id>(queue->device));
    case CL_QUEUE_REFERENCE_COUNT: return out(cl_uint(queue->reference_count()));
    case CL_QUEUE_PROPERTIES: return out(queue->properties);
    case CL_QUEUE_PROPERTIES_ARRAY: return out(queue->property_list);
    case CL_QUEUE_SIZE: return CL_INVALID_COMMAND_QUEUE;  // not a device queue
    case CL_QUEUE_DEVICE_DEFAULT: return out(static_cast<cl_command_queue>(nullptr));
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL Flush(cl_command_queue queue) {
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  return queue->flush().error();
}

cl_int CL_API_CALL Finish(cl_command_queue queue) {
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  return queue->finish().error();
}

cl_int CL_API_CALL SetCommandQueueProperty(cl_command_queue queue, cl_command_queue_properties,
                                           cl_bool, cl_command_queue_properties*) {
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  return CL_INVALID_OPERATION;
}

}  // namespace

void register_queue(cl_icd_dispatch& t) {
  t.clCreateCommandQueueWithProperties = guard<CreateCommandQueueWithProperties>;
  t.clCreateCommandQueue = guard<CreateCommandQueue>;
  t.clRetainCommandQueue = guard<RetainCommandQueue>;
  t.clReleaseCommandQueue = guard<ReleaseCommandQueue>;
  t.clGetCommandQueueInfo = guard<GetCommandQueueInfo>;
  t.clFlush = guard<Flush>;
  t.clFinish = guard<Finish>;
  t.clSetCommandQueueProperty = guard<SetCommandQueueProperty>;
}

}  // namespace vkcl::api
