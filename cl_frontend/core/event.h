// Events: a point on a queue's timeline (GPU commands), a flag (host commands), or a status
// the application sets (user events). Profiling times are CLOCK_MONOTONIC nanoseconds.
#pragma once

#include <CL/cl.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <vector>

#include "core/context.h"
#include "core/object.h"
#include "core/result.h"

struct _cl_command_queue;

struct _cl_event : vkcl::cl::Object<_cl_event, vkcl::cl::ObjectKind::Event> {
  using Callback = void(CL_CALLBACK*)(cl_event, cl_int, void*);

  vkcl::cl::Ref<_cl_context> context;
  vkcl::cl::Ref<_cl_command_queue> queue;  // null for user events
  cl_command_type type = CL_COMMAND_USER;

  // Profiling (host clock, ns).
  cl_ulong queued = 0, submitted = 0, started = 0, ended = 0;
  uint32_t start_slot = UINT32_MAX, end_slot = UINT32_MAX;

  // Set while the command sits in its queue's list of commands held back by a user event:
  // it then waits on the application, and a command of another queue waiting on it must be
  // held back too rather than block its caller.
  std::atomic<bool> held{false};

  // Lifecycle, written by the queue.
  // GPU work recorded; completes when |point| signals. |status|, when given, is called once
  // the work has completed and gives the command's status (CL_COMPLETE or a negative error).
  void set_recorded(uint64_t point, std::function<cl_int()> status = {});
  // A command its queue continues (_cl_command_queue::continue_with) is recorded at
  // kOpenPoint, and its point is set once the queue has taken it to the end.
  static constexpr uint64_t kOpenPoint = UINT64_MAX;
  void set_point(uint64_t point);
  // Host work done (or failed), or a user event's status. False if the status was set
  // already (it is set once).
  bool set_complete(cl_int status = CL_COMPLETE);
  void mark_submitted(uint64_t at = 0);  // at: the host time of the submission (0: now)
  void mark_running();  // host commands, as their work starts (GPU work is seen at its end)
  bool is_user() const { return type == CL_COMMAND_USER; }
  // Whether the command cannot complete before the application does something: a user event
  // not set yet, or a command held back by one.
  bool waits_on_application();

  cl_int status();  // CL_QUEUED, CL_SUBMITTED, CL_RUNNING, CL_COMPLETE or a negative error
  // The timeline point of GPU work submitted and not known complete (false for anything
  // else: host commands, user events, work not submitted yet or whose point is still open).
  bool pending_point(uint64_t* point);
  // Waits for completion (flushing the queue first). Returns the final status.
  cl_int wait();
  vkcl::cl::Result<void> add_callback(cl_int when, Callback fn, void* data);
  cl_int profiling_info(cl_profiling_info param, size_t size, void* value, size_t* size_ret);
  ~_cl_event();

 private:
  // Calls and forgets the callbacks registered for |reached| or an earlier status
  // (CL_SUBMITTED, CL_RUNNING, CL_COMPLETE, or a negative error that reaches all of them).
  void run_callbacks(cl_int reached);
  // set_complete in two steps: the status set (false if it was already), then the waiters
  // woken and the callbacks called, with no lock held.
  bool settle(cl_int status);
  void announce(cl_int status);
  // Reads the command's device timestamps into started and ended and gives their slots
  // back, if it still holds them; with completing_ held.
  void take_timestamps();
  std::mutex mutex_;
  std::mutex completing_;  // one thread completes a GPU command's event
  std::condition_variable changed_;
  bool recorded_ = false;
  bool done_ = false;
  bool submitted_ = false;
  bool running_ = false;
  bool watched_ = false;  // a helper thread waits for the GPU work, for the callbacks
  cl_int final_status_ = CL_COMPLETE;
  uint64_t point_ = 0;
  std::function<cl_int()> gpu_status_;  // see set_recorded
  std::vector<std::tuple<cl_int, Callback, void*>> callbacks_;
};

namespace vkcl::cl {
using Event = _cl_event;
uint64_t host_time_ns();
}
