// A GPU command made ready to record: what the enqueue entry points hand their queue and what
// a command buffer (core/command_buffer.h) makes again for each of its executions.
#pragma once

#include <CL/cl.h>

#include <functional>

#include "core/queue.h"

namespace vkcl::cl {

struct GpuCommand {
  cl_command_type type = 0;
  // Records the command into |queue|'s stream (a kernel that resumes also calls
  // queue.continue_with).
  std::function<cl_int(_cl_command_queue& queue)> record;
  _cl_command_queue::Keep keep;  // objects it uses, until it completes
  std::function<cl_int()> status;  // its status once run (none: CL_COMPLETE)
  // It records the same work each time and keeps no state of its own per run (no status to
  // read, nothing to print, no continuation): a command buffer records it once.
  bool fixed = false;
};

}  // namespace vkcl::cl
