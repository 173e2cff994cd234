#include "core/command_buffer.h"

using namespace vkcl;

namespace {

// One execution of a command buffer: its commands, made for it, recorded in order. A command
// that continues (a kernel whose loops resume) holds back the ones after it until it is done,
// as a queue does between commands.
struct Execution {
  std::vector<cl::GpuCommand> commands;
  size_t next = 0;
  _cl_command_queue::More more;  // of the command recorded last, while it continues

  // Records commands from |next| until one continues or none is left.
  cl_int record(_cl_command_queue& queue) {
    while (next < commands.size()) {
      if (next > 0)
        if (VkResult r = queue.stream->barrier(); r != VK_SUCCESS) return cl::cl_error_from(r);
      cl_int e = commands[next++].record(queue);
      if (e != CL_SUCCESS) return e;
      if ((more = queue.take_continuation())) return CL_SUCCESS;
    }
    return CL_SUCCESS;
  }

  // The queue's continuation: the continuing command's, then the commands after it.
  cl::Result<bool> step(_cl_command_queue& queue) {
    if (more) {
      auto r = more();
      if (!r || *r) return r;
      more = nullptr;
    }
    if (next == commands.size()) return false;
    if (cl_int e = record(queue); e != CL_SUCCESS) return cl::Error{e};
    return true;
  }

  cl_int status() const {
    for (const cl::GpuCommand& c : commands)
      if (c.status)
        if (cl_int s = c.status(); s < 0) return s;
    return CL_COMPLETE;
  }
};

}  // namespace

cl::Result<cl_sync_point_khr> _cl_command_buffer_khr::add(Make make, cl::GpuCommand checked) {
  std::lock_guard<std::mutex> lock(mutex_);
  // CL_INVALID_OPERATION if command_buffer has been finalized.
  if (finalized_) return cl::Error{CL_INVALID_OPERATION};
  Recorded r{std::move(make), std::nullopt};
  // (In a context of several devices each execution makes the copies it uses current.)
  if (checked.fixed && queue->context->devices.size() == 1) r.fixed = std::move(checked);
  commands_.push_back(std::move(r));
  return cl_sync_point_khr(commands_.size() - 1);
}

size_t _cl_command_buffer_khr::size() {
  std::lock_guard<std::mutex> lock(mutex_);
  return commands_.size();
}

cl::Result<void> _cl_command_buffer_khr::finalize() {
  std::lock_guard<std::mutex> lock(mutex_);
  // CL_INVALID_OPERATION if command_buffer is not in the recording state.
  if (finalized_) return cl::Error{CL_INVALID_OPERATION};
  for (size_t i = 0; i < commands_.size();) {
    if (!commands_[i].fixed) {
      steps_.push_back(commands_[i++].make);
      continue;
    }
    size_t end = i;
    while (end < commands_.size() && commands_[end].fixed) ++end;
    auto captured = queue->capture([&] {
      for (size_t j = i; j < end; ++j) {
        if (j > i)
          if (VkResult r = queue->stream->barrier(); r != VK_SUCCESS) return cl::cl_error_from(r);
        if (cl_int e = commands_[j].fixed->record(*queue); e != CL_SUCCESS) return e;
      }
      return CL_SUCCESS;
    });
    if (!captured) {
      // (Out of memory for the capture: recorded for each execution instead.)
      for (; i < end; ++i) steps_.push_back(commands_[i].make);
      continue;
    }
    auto keep = std::make_shared<_cl_command_queue::Keep>();
    for (size_t j = i; j < end; ++j)
      for (auto& k : commands_[j].fixed->keep) keep->push_back(k);
    steps_.push_back([capture = *captured, keep](_cl_command_queue&) -> cl::Result<cl::GpuCommand> {
      cl::GpuCommand c;
      c.type = CL_COMMAND_COMMAND_BUFFER_KHR;
      c.record = [capture](_cl_command_queue& q) { return q.replay(*capture); };
      c.keep = {capture, keep};
      return c;
    });
    i = end;
  }
  finalized_ = true;
  return {};
}

cl_command_buffer_state_khr _cl_command_buffer_khr::state() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!finalized_) return CL_COMMAND_BUFFER_STATE_RECORDING_KHR;
  std::erase_if(executions_, [](const cl::Ref<_cl_event>& e) { return e->status() <= CL_COMPLETE; });
  return executions_.empty() ? CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR : CL_COMMAND_BUFFER_STATE_PENDING_KHR;
}

cl::Result<cl::Ref<_cl_event>> _cl_command_buffer_khr::enqueue(_cl_command_queue* on,
                                                                const std::vector<_cl_event*>& waits, bool timed) {
  // CL_INVALID_OPERATION if command_buffer is not finalized, or was not created with the
  // CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR flag and is in the Pending state.
  const cl_command_buffer_state_khr now = state();
  if (now == CL_COMMAND_BUFFER_STATE_RECORDING_KHR) return cl::Error{CL_INVALID_OPERATION};
  if (!(flags & CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR) && now == CL_COMMAND_BUFFER_STATE_PENDING_KHR)
    return cl::Error{CL_INVALID_OPERATION};
  auto run = std::make_shared<Execution>();
  _cl_command_queue::Keep keep;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Make& make : steps_) {
      auto c = make(*on);
      if (!c) return cl::Error{c.error()};
      for (auto& k : c->keep) keep.push_back(std::move(k));
      c->keep.clear();
      run->commands.push_back(std::move(*c));
    }
  }
  keep.push_back(run);
  keep.push_back(cl::keep(this));
  auto event = on->enqueue(
      CL_COMMAND_COMMAND_BUFFER_KHR, waits, true,
      [on, run] {
        cl_int e = run->record(*on);
        if (e == CL_SUCCESS && (run->more || run->next < run->commands.size()))
          on->continue_with([on, run] { return run->step(*on); });
        return e;
      },
      std::move(keep), [run] { return run->status(); }, timed);
  if (!event) return event;
  std::lock_guard<std::mutex> lock(mutex_);
  executions_.push_back(*event);
  return event;
}
