// Binary semaphores (cl_khr_semaphore 0.9.0). A semaphore pairs each wait with one signal in
// the order both were enqueued: a signal command's event goes into |signals| for the next
// wait to depend on, and a wait enqueued before any signal depends on a gate (an internal
// user event) that the next signal's completion sets. Dependencies on events are what queues
// already honour (across queues too, and behind held commands), so a semaphore adds no
// mechanism of its own; nothing here touches Vulkan.
#pragma once

#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <deque>
#include <mutex>
#include <vector>

#include "core/context.h"
#include "core/event.h"
#include "core/object.h"
#include "core/result.h"

struct _cl_semaphore_khr : vkcl::cl::Object<_cl_semaphore_khr, vkcl::cl::ObjectKind::Semaphore> {
  vkcl::cl::Ref<_cl_context> context;
  std::vector<cl_semaphore_properties_khr> properties;  // as given, 0-terminated

  static vkcl::cl::Result<_cl_semaphore_khr*> create(_cl_context* context,
                                                     std::vector<cl_semaphore_properties_khr> properties);
  // The event a wait enqueued now depends on: the oldest signal no wait has taken, or a gate
  // that the next signal will set.
  vkcl::cl::Ref<_cl_event> take_signal();
  // A signal command was enqueued: |signal| is its event.
  vkcl::cl::Result<void> give_signal(_cl_event* signal);
  // 1 while a completed signal waits for a wait to take it, else 0.
  cl_semaphore_payload_khr payload();
  // Gates no signal came for fail (CL_INVALID_SEMAPHORE_KHR), so the waits behind them end.
  ~_cl_semaphore_khr();

 private:
  std::mutex mutex_;
  std::deque<vkcl::cl::Ref<_cl_event>> signals_;
  std::deque<vkcl::cl::Ref<_cl_event>> gates_;
};
