#include "core/event.h"

#include <time.h>

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

void _cl_event::set_recorded(uint64_t point) {
  std::lock_guard<std::mutex> lock(mutex_);
  recorded_ = true;
  point_ = point;
}

void _cl_event::mark_submitted() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!submitted_) {
    submitted_ = true;
    submitted = cl::host_time_ns();
  }
}

bool _cl_event::set_complete(cl_int status) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (done_) return false;
    done_ = true;
    final_status_ = status;
    if (!submitted) submitted = cl::host_time_ns();
    if (!started) started = cl::host_time_ns();
    if (!ended) ended = cl::host_time_ns();
  }
  changed_.notify_all();
  run_callbacks(status);
  return true;
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
  if (queue && queue->stream->completed_point() >= point) {
    if (start_slot != UINT32_MAX) {
      started = queue->stream->read_timestamp(start_slot);
      ended = queue->stream->read_timestamp(end_slot);
      queue->stream->release_timestamp(start_slot);
      queue->stream->release_timestamp(end_slot);
      start_slot = end_slot = UINT32_MAX;
    }
    set_complete(CL_COMPLETE);
    return CL_COMPLETE;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  return submitted_ ? CL_SUBMITTED : CL_QUEUED;
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
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!done_) {
      callbacks_.push_back({when, fn, data});
      if (is_user() || !queue) return {};
    }
  }
  cl_int s = status();
  if (s <= CL_COMPLETE) {
    run_callbacks(s);
    return {};
  }
  // Someone has to notice completion of GPU work: a helper thread waits for it.
  retain();
  std::thread([this] {
    wait();
    release();
  }).detach();
  return {};
}

void _cl_event::run_callbacks(cl_int status) {
  std::vector<std::tuple<cl_int, Callback, void*>> run;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // Every callback registered for CL_SUBMITTED, CL_RUNNING or CL_COMPLETE has happened by
    // completion; errors are reported to all of them.
    run.swap(callbacks_);
  }
  for (auto& [when, fn, data] : run) fn(this, status < 0 ? status : CL_COMPLETE, data);
}

cl_int _cl_event::profiling_info(cl_profiling_info param, size_t size, void* value,
                                 size_t* size_ret) {
  // CL_PROFILING_INFO_NOT_AVAILABLE if the CL_QUEUE_PROFILING_ENABLE flag is not set for the
  // command-queue, if the execution status of the command identified by event is not
  // CL_COMPLETE or if event is a user event object.
  if (is_user() || !queue || !(queue->properties & CL_QUEUE_PROFILING_ENABLE))
    return CL_PROFILING_INFO_NOT_AVAILABLE;
  if (status() != CL_COMPLETE) return CL_PROFILING_INFO_NOT_AVAILABLE;
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

_cl_event::~_cl_event() {
  if (queue && start_slot != UINT32_MAX) {
    queue->stream->release_timestamp(start_slot);
    queue->stream->release_timestamp(end_slot);
  }
}
