#include "core/semaphore.h"

#include "core/queue.h"

using namespace vkcl;

cl::Result<_cl_semaphore_khr*> _cl_semaphore_khr::create(_cl_context* context,
                                                         std::vector<cl_semaphore_properties_khr> properties) {
  auto s = cl::Ref<_cl_semaphore_khr>::adopt(new _cl_semaphore_khr());
  s->context = cl::Ref<_cl_context>(context);
  s->properties = std::move(properties);
  return s.release_to_api();
}

cl::Ref<_cl_event> _cl_semaphore_khr::take_signal() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!signals_.empty()) {
    cl::Ref<_cl_event> signal = std::move(signals_.front());
    signals_.pop_front();
    return signal;
  }
  auto gate = cl::Ref<_cl_event>::adopt(new _cl_event());
  gate->context = context;
  gate->type = CL_COMMAND_USER;
  gate->queued = gate->submitted = cl::host_time_ns();
  gate->mark_submitted();
  gates_.push_back(gate);
  return gate;
}

namespace {

// A signal's event reached its final status: the gate it was given to takes it, and the
// commands held behind the gate go on (or fail with it).
void CL_CALLBACK open_gate(cl_event, cl_int status, void* data) {
  auto* gate = static_cast<_cl_event*>(data);
  gate->set_complete(status < 0 ? status : CL_COMPLETE);
  try {
    _cl_command_queue::drain_all();
  } catch (const std::bad_alloc&) {
    // The held commands run from the next wait, finish or enqueue, which drain too.
  }
  gate->release();
}

}  // namespace

cl::Result<void> _cl_semaphore_khr::give_signal(_cl_event* signal) {
  cl::Ref<_cl_event> gate;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (gates_.empty()) {
      signals_.push_back(cl::Ref<_cl_event>(signal));
      return {};
    }
    gate = std::move(gates_.front());
    gates_.pop_front();
  }
  gate->retain();  // released by open_gate
  auto r = signal->add_callback(CL_COMPLETE, open_gate, gate.get());
  if (!r) {
    gate->release();
    std::lock_guard<std::mutex> lock(mutex_);
    gates_.push_front(std::move(gate));
  }
  return r;
}

cl_semaphore_payload_khr _cl_semaphore_khr::payload() {
  std::lock_guard<std::mutex> lock(mutex_);
  return !signals_.empty() && signals_.front()->status() == CL_COMPLETE ? 1 : 0;
}

_cl_semaphore_khr::~_cl_semaphore_khr() {
  bool failed = false;
  for (auto& gate : gates_) failed = gate->set_complete(CL_INVALID_SEMAPHORE_KHR) || failed;
  if (!failed) return;
  try {
    _cl_command_queue::drain_all();
  } catch (const std::bad_alloc&) {
  }
}
