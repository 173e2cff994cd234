#include "core/event.h"

#include <time.h>

#include <algorithm>

#include <thread>

#include "core/info.h"
#include "core/queue.h"

namespace vkcl::cl {
uint64_t host_time_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}
}  // namespace vkcl::cl

using namespace vkcl;

void _cl_event::set_recorded(uint64_t point, std::function<cl_int()> status) {
  std::lock_guard<std::mutex> lock(mutex_);
  recorded_ = true;
  point_ = point;
  gpu_status_ = std::move(status);
}

void _cl_event::set_point(uint64_t point) {
  std::lock_guard<std::mutex> lock(mutex_);
  point_ = point;
}

void _cl_event::mark_submitted(uint64_t at) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (submitted_) return;
    submitted_ = true;
    submitted = at ? at : cl::host_time_ns();
  }
  run_callbacks(CL_SUBMITTED);
}

void _cl_event::mark_running() {
  mark_submitted();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (running_) return;
    running_ = true;
  }
  run_callbacks(CL_RUNNING);
}

bool _cl_event::set_complete(cl_int status) {
  if (!settle(status)) return false;
  announce(status);
  return true;
}

bool _cl_event::settle(cl_int status) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (done_) return false;
  done_ = true;
  final_status_ = status;
  if (!submitted) submitted = cl::host_time_ns();
  if (!started) started = cl::host_time_ns();
  if (!ended) ended = cl::host_time_ns();
  return true;
}

void _cl_event::announce(cl_int status) {
  changed_.notify_all();
  run_callbacks(status);
}

bool _cl_event::waits_on_application() {
  if (held.load()) return true;
  return is_user() && status() > CL_COMPLETE;
}

cl_int _cl_event::status() {
  uint64_t point;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (done_) return final_status_;
    if (!recorded_) return submitted_ ? CL_SUBMITTED : CL_QUEUED;
    point = point_;
  }
  if (point == kOpenPoint && queue) {
    // Let the queue take the command on as far as the GPU has got.
    queue->settle(false);
    std::lock_guard<std::mutex> lock(mutex_);
    point = point_;
  }
  if (queue && point != kOpenPoint && queue->stream->completed_point() >= point) {
    // Threads that see the work complete together: one reads the timestamps and the status.
    // Its callbacks run after completing_ is let go: they may ask for the event's profiling
    // times, which take it (a layer timing every kernel does, from its CL_COMPLETE callback).
    std::unique_lock<std::mutex> completing(completing_);
    std::function<cl_int()> gpu_status;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (done_) return final_status_;
      gpu_status = std::move(gpu_status_);
    }
    // The timestamps are read when the application asks for them (profiling_info): on
    // lavapipe each read flushes the driver's context from this thread, 100 us and more, which
    // every status check of a profiled queue's event paid. Only the first read of a queue that
    // cannot calibrate its clock happens here, where it dates the device's clock.
    if (start_slot != UINT32_MAX && !queue->stream->timestamps_calibrated()) take_timestamps();
    cl_int s = gpu_status ? gpu_status() : CL_COMPLETE;
    if (queue->stream->failed(point)) s = cl::lost_device_status(*queue->vk);
    if (!settle(s)) {
      std::lock_guard<std::mutex> lock(mutex_);
      return final_status_;
    }
    completing.unlock();
    announce(s);
    return s;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  return submitted_ ? CL_SUBMITTED : CL_QUEUED;
}

bool _cl_event::pending_point(uint64_t* point) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!recorded_ || !submitted_ || done_ || point_ == kOpenPoint) return false;
  *point = point_;
  return true;
}

cl_int _cl_event::wait() {
  while (true) {
    cl_int s = status();
    if (s <= CL_COMPLETE) return s;
    bool recorded;
    uint64_t point;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      recorded = recorded_;
      point = point_;
    }
    if (recorded && queue) {
      queue->wait_point(point);
      continue;
    }
    if (queue) {
      // Held back by a user event that may have been set meanwhile: run it if it can run.
      // (Only held commands drain here: a command being executed waits on events that are
      // not held, so this never takes a second queue's lock inside the first one's.)
      if (held.load()) queue->drain();
      (void)queue->flush();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_for(lock, std::chrono::milliseconds(1), [&] { return done_ || recorded_; });
  }
}

cl::Result<void> _cl_event::add_callback(cl_int when, Callback fn, void* data) {
  (void)status();  // GPU work that has completed is noticed here
  auto reached_now = [&] {
    return done_ ? final_status_ : running_ ? CL_RUNNING : submitted_ ? CL_SUBMITTED : CL_QUEUED;
  };
  // Someone has to notice the progress of GPU work: a helper thread waits for it (user
  // events and host commands report their own). It starts before the callback is
  // registered, so that a thread (or its memory) that cannot be had fails the call with
  // nothing registered; a second helper, should two calls race here, only waits too.
  bool watch;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    watch = reached_now() > when && queue && !is_user() && !watched_;
  }
  if (watch) {
    retain();
    try {
      std::thread([this] {
        wait();
        release();
      }).detach();
    } catch (...) {
      release();
      throw;
    }
  }
  cl_int reached;
  {
    // The status and the list change under this lock, so a callback is either called here
    // or found in the list by the change that reaches its status.
    std::lock_guard<std::mutex> lock(mutex_);
    watched_ = watched_ || watch;
    reached = reached_now();
    if (reached > when) callbacks_.push_back({when, fn, data});
  }
  // "called when the execution status ... changes to an execution status equal to or past
  // the status specified": one already reached calls it now.
  if (reached <= when) fn(this, reached < 0 ? reached : when, data);
  return {};
}

void _cl_event::run_callbacks(cl_int reached) {
  // One at a time, taken out of the list under the lock and called outside it: nothing is
  // allocated, so a status change, once made, always reaches its callbacks.
  while (true) {
    std::tuple<cl_int, Callback, void*> next;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      // Those registered for |reached| or an earlier status (CL_SUBMITTED > CL_RUNNING >
      // CL_COMPLETE); a failure reaches all of them. In the order they were registered.
      auto it = std::find_if(callbacks_.begin(), callbacks_.end(), [&](const auto& c) {
        return reached < 0 || std::get<0>(c) >= reached;
      });
      if (it == callbacks_.end()) return;
      next = *it;
      callbacks_.erase(it);
    }
    // "event_command_status is equal to the command_exec_callback_type used while
    // registering the callback", or the error code of a command that was abnormally
    // terminated.
    auto& [when, fn, data] = next;
    fn(this, reached < 0 ? reached : when, data);
  }
}

cl_int _cl_event::profiling_info(cl_profiling_info param, size_t size, void* value,
                                 size_t* size_ret) {
  // CL_PROFILING_INFO_NOT_AVAILABLE if the CL_QUEUE_PROFILING_ENABLE flag is not set for the
  // command-queue, if the execution status of the command identified by event is not
  // CL_COMPLETE or if event is a user event object.
  if (is_user() || !queue || !(queue->properties & CL_QUEUE_PROFILING_ENABLE))
    return CL_PROFILING_INFO_NOT_AVAILABLE;
  if (status() != CL_COMPLETE) return CL_PROFILING_INFO_NOT_AVAILABLE;
  {
    std::lock_guard<std::mutex> completing(completing_);
    take_timestamps();
  }
  cl::InfoOut out{size, value, size_ret};
  switch (param) {
    case CL_PROFILING_COMMAND_QUEUED: return out(cl_ulong(queued));
    case CL_PROFILING_COMMAND_SUBMIT: return out(cl_ulong(std::max(submitted, queued)));
    case CL_PROFILING_COMMAND_START: return out(cl_ulong(std::max(started, std::max(submitted, queued))));
    case CL_PROFILING_COMMAND_END:
    case CL_PROFILING_COMMAND_COMPLETE:
      return out(cl_ulong(std::max(ended, std::max(started, std::max(submitted, queued)))));
    default: return CL_INVALID_VALUE;
  }
}

void _cl_event::take_timestamps() {
  if (start_slot == UINT32_MAX) return;
  started = queue->stream->read_timestamp(start_slot);
  ended = queue->stream->read_timestamp(end_slot);
  queue->stream->release_timestamp(start_slot);
  queue->stream->release_timestamp(end_slot);
  start_slot = end_slot = UINT32_MAX;
}

_cl_event::~_cl_event() {
  if (queue && start_slot != UINT32_MAX) {
    queue->stream->release_timestamp(start_slot);
    queue->stream->release_timestamp(end_slot);
  }
}
