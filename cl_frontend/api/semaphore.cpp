// cl_khr_semaphore (0.9.0, the version of Debian 12's headers): binary semaphores that
// queues signal and wait for (core/semaphore.h). No external handles
// (cl_khr_external_semaphore): see docs/not-implemented.md.
#include <algorithm>
#include <cstring>

#include "api/api.h"
#include "core/info.h"
#include "core/queue.h"
#include "core/semaphore.h"

namespace vkcl::api {
namespace {

using Semaphore = _cl_semaphore_khr;

cl_semaphore_khr CL_API_CALL CreateSemaphoreWithPropertiesKHR(cl_context context,
                                                              const cl_semaphore_properties_khr* props,
                                                              cl_int* errcode_ret) {
  // CL_INVALID_CONTEXT if context is not a valid context.
  if (!cl::validate(context)) return set_error(errcode_ret, CL_INVALID_CONTEXT), nullptr;
  // CL_INVALID_VALUE if sema_props is NULL, names a property twice or an unknown one, or
  // does not give CL_SEMAPHORE_TYPE_KHR (binary is the only type).
  if (!props) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  std::vector<cl_semaphore_properties_khr> list;
  bool typed = false, devices = false;
  for (const cl_semaphore_properties_khr* p = props; *p;) {
    if (p[0] == CL_SEMAPHORE_TYPE_KHR) {
      if (typed || p[1] != CL_SEMAPHORE_TYPE_BINARY_KHR) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
      typed = true;
      list.insert(list.end(), {p[0], p[1]});
      p += 2;
    } else if (p[0] == CL_DEVICE_HANDLE_LIST_KHR) {
      if (devices) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
      devices = true;
      list.push_back(*p++);
      for (; *p != CL_DEVICE_HANDLE_LIST_END_KHR; ++p) {
        // CL_INVALID_DEVICE if a device in the list is not one of the context's.
        auto* d = reinterpret_cast<cl_device_id>(*p);
        if (std::find(context->devices.begin(), context->devices.end(), d) == context->devices.end())
          return set_error(errcode_ret, CL_INVALID_DEVICE), nullptr;
        list.push_back(*p);
      }
      list.push_back(*p++);
    } else {
      return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
    }
  }
  if (!typed) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  list.push_back(0);
  return hand_out(Semaphore::create(context, std::move(list)), errcode_ret);
}

// The checks both enqueue functions start with, the wait list's too. The commands do not keep the semaphores:
// a signal is handed over when it is enqueued, and a wait depends on an event; a semaphore
// the application releases while a wait still waits for its signal (which can then never
// come) fails that wait rather than hold its queue for ever.
cl_int check_semaphores(cl_command_queue queue, cl_uint count, const cl_semaphore_khr* semaphores,
                        cl_uint num_events, const cl_event* wait_list, std::vector<Semaphore*>* out,
                        std::vector<_cl_event*>* waits) {
  // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command-queue.
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  // CL_INVALID_VALUE if num_sema_objects is 0.
  if (count == 0 || !semaphores) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < count; ++i) {
    // CL_INVALID_SEMAPHORE_KHR if any of the semaphore objects specified by sema_objects is
    // not valid.
    Semaphore* s = semaphores[i];
    if (!cl::validate(s)) return CL_INVALID_SEMAPHORE_KHR;
    // CL_INVALID_CONTEXT if the context associated with command_queue and any of the
    // semaphore objects in sema_objects are not the same.
    if (s->context.get() != queue->context.get()) return CL_INVALID_CONTEXT;
    out->push_back(s);
  }
  return check_wait_list(num_events, wait_list, queue->context.get(), waits);
}

// A semaphore command records nothing. "The semaphore wait command waits for a list of events
// to complete and a list of semaphore objects to become signaled": it waits for the wait list
// and for the signal each semaphore pairs it with (core/semaphore.h). "The semaphore signal
// command waits for a list of events to complete and then signals a list of semaphore
// objects": its event is the signal.
cl_int semaphore_command(cl_command_type type, cl_command_queue queue, cl_uint count,
                         const cl_semaphore_khr* semaphores, cl_uint num_events, const cl_event* wait_list,
                         cl_event* event) {
  std::vector<Semaphore*> list;
  std::vector<_cl_event*> waits;
  cl_int e = check_semaphores(queue, count, semaphores, num_events, wait_list, &list, &waits);
  if (e != CL_SUCCESS) return e;
  const bool signal = type == CL_COMMAND_SEMAPHORE_SIGNAL_KHR;
  _cl_command_queue::Keep keep;
  if (!signal) {
    for (Semaphore* s : list) {
      cl::Ref<_cl_event> taken = s->take_signal();
      waits.push_back(taken.get());
      keep.push_back(cl::keep(taken.get()));
    }
  }
  auto r = queue->enqueue(type, waits, true, [] { return CL_SUCCESS; }, std::move(keep));
  if (!r || !signal) return finish_enqueue(std::move(r), false, event);
  for (Semaphore* s : list) {
    if (auto given = s->give_signal(r->get()); !given) return given.error();
  }
  // A waiter may be on another queue that the application finishes without flushing this
  // one: the signal goes to the device now.
  (void)queue->flush();
  return finish_enqueue(std::move(r), false, event);
}

cl_int CL_API_CALL EnqueueWaitSemaphoresKHR(cl_command_queue queue, cl_uint count,
                                            const cl_semaphore_khr* semaphores,
                                            const cl_semaphore_payload_khr* /*payloads: binary only*/,
                                            cl_uint num_events, const cl_event* wait_list, cl_event* event) {
  return semaphore_command(CL_COMMAND_SEMAPHORE_WAIT_KHR, queue, count, semaphores, num_events, wait_list, event);
}

cl_int CL_API_CALL EnqueueSignalSemaphoresKHR(cl_command_queue queue, cl_uint count,
                                              const cl_semaphore_khr* semaphores,
                                              const cl_semaphore_payload_khr* /*payloads: binary only*/,
                                              cl_uint num_events, const cl_event* wait_list, cl_event* event) {
  return semaphore_command(CL_COMMAND_SEMAPHORE_SIGNAL_KHR, queue, count, semaphores, num_events, wait_list, event);
}

cl_int CL_API_CALL GetSemaphoreInfoKHR(cl_semaphore_khr semaphore, cl_semaphore_info_khr param, size_t size,
                                       void* value, size_t* size_ret) {
  if (!cl::validate(semaphore)) return CL_INVALID_SEMAPHORE_KHR;
  cl::InfoOut out{size, value, size_ret};
  switch (param) {
    case CL_SEMAPHORE_CONTEXT_KHR: return out(static_cast<cl_context>(semaphore->context.get()));
    case CL_SEMAPHORE_REFERENCE_COUNT_KHR: return out(cl_uint(semaphore->reference_count()));
    case CL_SEMAPHORE_PROPERTIES_KHR: return out(semaphore->properties);
    case CL_SEMAPHORE_TYPE_KHR: return out(cl_semaphore_type_khr(CL_SEMAPHORE_TYPE_BINARY_KHR));
    case CL_SEMAPHORE_PAYLOAD_KHR: return out(semaphore->payload());
    case CL_DEVICE_HANDLE_LIST_KHR: {
      std::vector<cl_device_id> devices(semaphore->context->devices.begin(), semaphore->context->devices.end());
      return out(devices);
    }
    // CL_INVALID_VALUE if param_name is not one of the supported values.
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL RetainSemaphoreKHR(cl_semaphore_khr semaphore) {
  if (!cl::validate(semaphore)) return CL_INVALID_SEMAPHORE_KHR;
  semaphore->retain();
  return CL_SUCCESS;
}

cl_int CL_API_CALL ReleaseSemaphoreKHR(cl_semaphore_khr semaphore) {
  if (!cl::validate(semaphore)) return CL_INVALID_SEMAPHORE_KHR;
  semaphore->release();
  return CL_SUCCESS;
}

}  // namespace

void* semaphore_function(const char* name) {
#define VKCL_ENTRY(F) \
  if (std::strcmp(name, "cl" #F) == 0) return reinterpret_cast<void*>(guard<F>);
  VKCL_ENTRY(CreateSemaphoreWithPropertiesKHR)
  VKCL_ENTRY(EnqueueWaitSemaphoresKHR)
  VKCL_ENTRY(EnqueueSignalSemaphoresKHR)
  VKCL_ENTRY(GetSemaphoreInfoKHR)
  VKCL_ENTRY(RetainSemaphoreKHR)
  VKCL_ENTRY(ReleaseSemaphoreKHR)
#undef VKCL_ENTRY
  return nullptr;
}

}  // namespace vkcl::api
