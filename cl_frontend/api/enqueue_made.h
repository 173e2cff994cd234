// The shape of the entry points that enqueue one GPU command.
#pragma once

#include "api/api.h"
#include "core/gpu_command.h"

namespace vkcl::api {

// The queue's checks, then the command's own (|make| fills a cl::GpuCommand and returns its
// error), then the wait list's; then the command is enqueued.
template <typename Make>
cl_int enqueue_made(cl_command_queue queue, cl_uint num_events, const cl_event* wait_list, cl_event* event,
                    Make make) {
  // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue.
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  cl::GpuCommand command;
  cl_int e = make(&command);
  if (e != CL_SUCCESS) return e;
  std::vector<_cl_event*> waits;
  if ((e = check_wait_list(num_events, wait_list, queue->context.get(), &waits)) != CL_SUCCESS) return e;
  return enqueue_gpu(queue, waits, std::move(command), event);
}

}  // namespace vkcl::api
