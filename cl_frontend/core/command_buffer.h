// Command buffers (cl_khr_command_buffer 0.9.0, the version of Debian 12's headers): commands
// recorded once against a queue and run as one command each time the buffer is enqueued.
//
// A recorded command is kept as the means to make it (api/command_buffer.cpp): the objects
// it was checked with, a kernel's arguments as they were when it was recorded (a clone of the
// kernel). Commands that record the same work each time (GpuCommand::fixed: copies, fills,
// kernels that neither resume, print nor check) are recorded once, when the buffer is
// finalized, each run of them into a Vulkan secondary command buffer with its argument
// blocks (_cl_command_queue::capture). The others are made again for each execution, so
// that a launch's own state (the status words of resuming kernels, checked mode's table,
// printf's buffer) is its own. An execution records its steps into the queue's batch in
// order with a barrier between each two (every order sync points can ask for), and is one
// command of the queue: its event completes when the last step has, and fails where one
// does.
#pragma once

#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "core/gpu_command.h"
#include "core/mutable_command.h"
#include "core/object.h"
#include "core/queue.h"
#include "core/result.h"

struct _cl_command_buffer_khr
    : vkcl::cl::Object<_cl_command_buffer_khr, vkcl::cl::ObjectKind::CommandBuffer> {
  using Make = std::function<vkcl::cl::Result<vkcl::cl::GpuCommand>(_cl_command_queue& queue)>;

  vkcl::cl::Ref<_cl_command_queue> queue;
  std::vector<cl_command_buffer_properties_khr> properties;  // as given, 0-terminated
  cl_command_buffer_flags_khr flags = 0;
  // The mutable kernel commands recorded (handles given to the application).
  std::mutex mutables_mutex;
  std::vector<vkcl::cl::Ref<_cl_mutable_command_khr>> mutables;
  bool owns(const _cl_mutable_command_khr* command) {
    std::lock_guard<std::mutex> lock(mutables_mutex);
    for (const auto& m : mutables) {
      if (m.get() == command) return true;
    }
    return false;
  }

  // Recording: adds a command, made by |make| for each execution or, where |checked| (as
  // made when it was recorded) is fixed, recorded once; returns its sync point. Fails once
  // finalized.
  vkcl::cl::Result<cl_sync_point_khr> add(Make make, vkcl::cl::GpuCommand checked);
  // The number of commands recorded (sync points are 0 .. count - 1).
  size_t size();
  vkcl::cl::Result<void> finalize();
  cl_command_buffer_state_khr state();
  // Enqueues an execution on |on| (the buffer's queue or one like it) after |waits|.
  vkcl::cl::Result<vkcl::cl::Ref<_cl_event>> enqueue(_cl_command_queue* on,
                                                      const std::vector<_cl_event*>& waits, bool timed);

 private:
  struct Recorded {
    Make make;
    std::optional<vkcl::cl::GpuCommand> fixed;
  };
  std::mutex mutex_;
  bool finalized_ = false;
  std::vector<Recorded> commands_;
  std::vector<Make> steps_;  // once finalized: what each execution records
  std::vector<vkcl::cl::Ref<_cl_event>> executions_;  // not known complete yet
};

namespace vkcl::cl {
using CommandBuffer = _cl_command_buffer_khr;
}
