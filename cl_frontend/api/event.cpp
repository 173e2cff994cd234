// Event entry points.
#include <new>

#include "api/api.h"
#include "core/info.h"
#include "core/queue.h"

namespace vkcl::api {
namespace {

cl_int CL_API_CALL WaitForEvents(cl_uint num_events, const cl_event* events) {
  // CL_INVALID_VALUE if num_events is zero or event_list is NULL.
  if (num_events == 0 || !events) return CL_INVALID_VALUE;
  _cl_context* context = nullptr;
  for (cl_uint i = 0; i < num_events; ++i) {
    // CL_INVALID_EVENT if event objects specified in event_list are not valid event objects.
    if (!cl::validate(events[i])) return CL_INVALID_EVENT;
    // CL_INVALID_CONTEXT if events specified in event_list do not belong to the same context.
    if (context && events[i]->context.get() != context) return CL_INVALID_CONTEXT;
    context = events[i]->context.get();
  }
  cl_int result = CL_SUCCESS;
  for (cl_uint i = 0; i < num_events; ++i)
    // CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the execution status of any of the
    // events in event_list is a negative integer value.
    if (events[i]->wait() < 0) result = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  return result;
}

cl_int CL_API_CALL GetEventInfo(cl_event event, cl_event_info param, size_t size, void* value,
                                size_t* size_ret) {
  // CL_INVALID_EVENT if event is a not a valid event object.
  if (!cl::validate(event)) return CL_INVALID_EVENT;
  cl::InfoOut out{size, value, size_ret};
  switch (param) {
    case CL_EVENT_COMMAND_QUEUE: return out(static_cast<cl_command_queue>(event->queue.get()));
    case CL_EVENT_CONTEXT: return out(static_cast<cl_context>(event->context.get()));
    case CL_EVENT_COMMAND_TYPE: return out(event->type);
    case CL_EVENT_COMMAND_EXECUTION_STATUS: {
      cl_int s = event->status();
      // Polling is a sign the application waits: make sure the work is on its way.
      if (s > CL_COMPLETE && event->queue) (void)event->queue->flush();
      return out(s);
    }
    case CL_EVENT_REFERENCE_COUNT: return out(cl_uint(event->reference_count()));
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL RetainEvent(cl_event event) {
  if (!cl::validate(event)) return CL_INVALID_EVENT;
  event->retain();
  return CL_SUCCESS;
}

cl_int CL_API_CALL ReleaseEvent(cl_event event) {
  if (!cl::validate(event)) return CL_INVALID_EVENT;
  event->release();
  return CL_SUCCESS;
}

cl_event CL_API_CALL CreateUserEvent(cl_context context, cl_int* errcode_ret) {
  if (!cl::validate(context)) return set_error(errcode_ret, CL_INVALID_CONTEXT), nullptr;
  auto e = cl::Ref<_cl_event>::adopt(new _cl_event());
  e->context = cl::Ref<_cl_context>(context);
  e->type = CL_COMMAND_USER;
  e->queued = e->submitted = cl::host_time_ns();
  e->mark_submitted();
  set_error(errcode_ret, CL_SUCCESS);
  return e.release_to_api();
}

cl_int CL_API_CALL SetUserEventStatus(cl_event event, cl_int status) {
  // CL_INVALID_EVENT if event is not a valid user event object.
  if (!cl::validate(event) || !event->is_user()) return CL_INVALID_EVENT;
  // CL_INVALID_VALUE if the execution_status is not CL_COMPLETE or a negative integer value.
  if (status > CL_COMPLETE) return CL_INVALID_VALUE;
  // CL_INVALID_OPERATION if the execution_status for event has already been changed.
  if (!event->set_complete(status)) return CL_INVALID_OPERATION;
  // Commands held back by it run now, or, for a negative status, are terminated with every
  // command waiting on them. The status is set whatever happens here: were this to fail
  // (no memory), the commands still run, from the next wait, finish or enqueue, which drain
  // their queue too.
  try {
    _cl_command_queue::drain_all();
  } catch (const std::bad_alloc&) {
  }
  return CL_SUCCESS;
}

cl_int CL_API_CALL SetEventCallback(cl_event event, cl_int type,
                                    void(CL_CALLBACK* fn)(cl_event, cl_int, void*),
                                    void* user_data) {
  if (!cl::validate(event)) return CL_INVALID_EVENT;
  // CL_INVALID_VALUE if pfn_event_notify is NULL or if command_exec_callback_type is not
  // CL_SUBMITTED, CL_RUNNING, or CL_COMPLETE.
  if (!fn || (type != CL_SUBMITTED && type != CL_RUNNING && type != CL_COMPLETE))
    return CL_INVALID_VALUE;
  return event->add_callback(type, fn, user_data).error();
}

cl_int CL_API_CALL GetEventProfilingInfo(cl_event event, cl_profiling_info param, size_t size,
                                         void* value, size_t* size_ret) {
  if (!cl::validate(event)) return CL_INVALID_EVENT;
  return event->profiling_info(param, size, value, size_ret);
}

}  // namespace

void register_event(cl_icd_dispatch& t) {
  t.clWaitForEvents = guard<WaitForEvents>;
  t.clGetEventInfo = guard<GetEventInfo>;
  t.clRetainEvent = guard<RetainEvent>;
  t.clReleaseEvent = guard<ReleaseEvent>;
  t.clCreateUserEvent = guard<CreateUserEvent>;
  t.clSetUserEventStatus = guard<SetUserEventStatus>;
  t.clSetEventCallback = guard<SetEventCallback>;
  t.clGetEventProfilingInfo = guard<GetEventProfilingInfo>;
}

}  // namespace vkcl::api
