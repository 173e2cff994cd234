#include "core/queue.h"

#include <cstring>
#include <new>
#include <set>
#include <thread>
#include <sched.h>

using namespace vkcl;

namespace {
constexpr size_t kArgumentChunk = 64 * 1024;
constexpr size_t kBatchLimit = 64;  // commands per batch before it is submitted anyway

// Every live queue, for drain_all(). Made on the heap and never destroyed: an application
// may release its last queue from an atexit handler or a static destructor, after the static
// destructors of vkcl's own variables have run.
struct Queues {
  std::mutex mutex;
  std::set<_cl_command_queue*> set;
};
Queues& live_queues() {
  static Queues* queues = new Queues();
  return *queues;
}
}  // namespace

cl::Result<_cl_command_queue*> _cl_command_queue::create(_cl_context* context,
                                                         _cl_device_id* device,
                                                         cl_command_queue_properties properties,
                                                         vk::QueuePriority priority) {
  auto vk = context->vk_device(device);
  if (!vk) return cl::Error{vk.error()};
  auto q = cl::Ref<_cl_command_queue>::adopt(new _cl_command_queue());
  q->context = cl::Ref<_cl_context>(context);
  q->device = device;
  q->properties = properties;
  q->vk = *vk;
  VkResult r = vk::CommandStream::create(q->vk, &q->stream, priority);
  if (r != VK_SUCCESS) return cl::Error{cl::cl_error_from(r)};
  {
    std::lock_guard<std::mutex> lock(live_queues().mutex);
    live_queues().set.insert(q.get());
  }
  return q.release_to_api();
}

_cl_command_queue::~_cl_command_queue() {
  {
    std::lock_guard<std::mutex> lock(live_queues().mutex);
    live_queues().set.erase(this);
  }
  if (stream) {
    (void)flush();
    settle(true);
    stream->wait(stream->last_point());
  }
}

cl::Result<cl::Ref<_cl_event>> _cl_command_queue::enqueue(cl_command_type type,
                                                         const std::vector<_cl_event*>& waits,
                                                         bool gpu, Work work, Keep keep,
                                                         std::function<cl_int()> gpu_status,
                                                         bool timed) {
  auto event = cl::Ref<_cl_event>::adopt(new _cl_event());
  event->context = context;
  event->queue = cl::Ref<_cl_command_queue>(this);
  event->type = type;
  event->queued = cl::host_time_ns();
  Pending p{type, {}, gpu, std::move(work), std::move(keep), event, std::move(gpu_status), timed};
  for (_cl_event* w : waits) p.waits.emplace_back(w);
  // GPU work of other queues this command waits for goes to the device now, before this
  // queue's lock is taken (flushing under it could meet another queue doing the same the
  // other way round), so that the command can wait for it on the device.
  for (_cl_event* w : waits) {
    _cl_command_queue* other = w->queue.get();
    if (gpu && other && other != this && other->vk == vk) (void)other->flush();
  }
  // Decided under the lock: clSetUserEventStatus sets the status first and then drains every
  // queue, taking this lock, so either the status is seen here or the command is in held_
  // when the drain comes (deciding before the lock lost that drain, and the command waited
  // for ever).
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  drain();
  bool hold = !held_.empty() && (in_order() || waits_for_all(p) || held_barrier());
  for (auto& w : p.waits) hold = hold || w->waits_on_application();
  if (hold) {
    event->held = true;
    held_.push_back(std::move(p));
    return event;
  }
  run(p);
  return event;
}

void _cl_command_queue::run(Pending& p) {
  // A command that could not even start (no memory for its bookkeeping) fails its event,
  // which nothing else would ever complete.
  try {
    execute(p);
  } catch (const std::bad_alloc&) {
    p.event->set_complete(CL_OUT_OF_HOST_MEMORY);
  }
}

// The command's own work: an exception (no host memory) is its failure, as an error it
// returned would be.
static cl_int run_work(const _cl_command_queue::Work& work) {
  try {
    return work();
  } catch (const std::bad_alloc&) {
    return CL_OUT_OF_HOST_MEMORY;
  }
}

void _cl_command_queue::execute(Pending& p) {
  // Whatever this command is, the one that continues comes first.
  settle(true);
  // A command whose wait list holds a failed event is terminated, and so in turn the
  // commands waiting on it. The same queue's events are ordered already, and a failure among
  // them is known by now (commands fail when they are recorded or run). A GPU command waits
  // on the device for GPU work of another queue of the same Vulkan device (its batch waits
  // for that queue's timeline point; such work that fails later fails this command's status
  // too); anything else (user events, host commands, work still being taken on) is waited
  // for on the host.
  // Out of order, the GPU commands of this queue wait for each other only through a barrier
  // (below); host commands wait on the host.
  const bool in_order = !(properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  bool waits_on_queue = false;
  std::vector<cl::Ref<_cl_event>> on_device;
  for (auto& w : p.waits) {
    const bool own = w->queue.get() == this;
    cl_int s;
    if (own && (in_order || p.gpu)) {
      s = w->status();
    } else if (p.gpu && waits_on_device(*w)) {
      on_device.emplace_back(w);
      s = CL_SUBMITTED;
    } else {
      s = w->wait();
    }
    if (s < 0) {
      p.event->set_complete(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
      return;
    }
    waits_on_queue = waits_on_queue || (own && s != CL_COMPLETE);
  }
  if (!on_device.empty()) {
    // The other queues (their timeline semaphores, which this batch waits on) live until
    // the batch has run, whatever becomes of this command.
    Keep waited;
    for (const auto& w : on_device) waited.push_back(cl::keep(w.get()));
    keep_until(stream->last_point(), std::move(waited));
    p.gpu_status = [on_device, own = std::move(p.gpu_status)] {
      for (const auto& w : on_device) {
        if (w->status() < 0) return cl_int(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
      }
      return own ? own() : CL_COMPLETE;
    };
  }
  const bool profiling = (properties & CL_QUEUE_PROFILING_ENABLE) && p.timed;
  if (!p.gpu) {
    p.event->mark_running();
    p.event->started = cl::host_time_ns();
    cl_int status = run_work(p.work);
    p.event->ended = cl::host_time_ns();
    p.event->set_complete(status == CL_SUCCESS ? CL_COMPLETE : status);
    return;
  }
  // In order, a command depends on the one before it: a barrier between each pair. Out of
  // order, only a command that waits for one of this queue's or follows a barrier command
  // has one, and commands between run concurrently where the device can.
  if (in_order || waits_on_queue || barrier_next_ || !on_device.empty()) stream->barrier();
  barrier_next_ = p.type == CL_COMMAND_BARRIER;
  // Room for its event made before anything is recorded: nothing after the work may fail.
  batch_events_.reserve(batch_events_.size() + 1);
  if (profiling) stream->write_timestamp(&p.event->start_slot);
  next_more_ = nullptr;
  cl_int status = run_work(p.work);
  More more = std::move(next_more_);
  next_more_ = nullptr;
  if (status != CL_SUCCESS) {
    if (p.event->start_slot != UINT32_MAX) stream->release_timestamp(p.event->start_slot);
    p.event->start_slot = UINT32_MAX;
    p.event->set_complete(status);
    return;
  }
  if (profiling) stream->write_timestamp(&p.event->end_slot);
  uint64_t point = stream->last_point();
  batch_events_.push_back(p.event);
  if (more) {
    // It ends its batch: what comes after it is recorded once it is done.
    p.event->set_recorded(_cl_event::kOpenPoint, std::move(p.gpu_status));
    open_ = Open{point, std::move(more), p.event, std::move(p.keep)};
    (void)flush();
    return;
  }
  p.event->set_recorded(point, std::move(p.gpu_status));
  keep_until(point, std::move(p.keep));
  if (++batch_commands_ >= kBatchLimit) (void)flush();
}

bool _cl_command_queue::waits_on_device(_cl_event& w) {
  _cl_command_queue* other = w.queue.get();
  uint64_t point = 0;
  // Submitted already (enqueue flushed its queue): this queue's batch is submitted after it.
  if (!other || other->vk != vk || !w.pending_point(&point)) return false;
  return stream->wait_before_batch(*other->stream, point) == VK_SUCCESS;
}

void _cl_command_queue::settle(bool block) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (open_ && !vk::vulkan_usable()) {
    // At exit, after Vulkan went away (an application releasing its queue from an atexit
    // handler): nothing more can run, and the command's memory may be gone.
    open_->event->set_complete(CL_OUT_OF_RESOURCES);
    open_.reset();
    return;
  }
  while (open_) {
    if (stream->completed_point() < open_->point) {
      if (!block) return;
      (void)flush();
      // No polling here: on a CPU device the host thread would take a core from the device's
      // threads (see CommandStream::wait, which polls on GPUs).
      stream->wait(open_->point);
      continue;
    }
    // Its work so far has run: more, or done (failed, when recording more needed memory
    // there was none of: settle runs in waits and in the queue's destructor).
    cl::Result<bool> more = cl::Error{CL_OUT_OF_HOST_MEMORY};
    try {
      more = open_->more();
    } catch (const std::bad_alloc&) {
    }
    if (more && *more) {
      uint32_t end_slot = UINT32_MAX;
      const bool timed = open_->event->start_slot != UINT32_MAX;
      if (timed && stream->write_timestamp(&end_slot) == VK_SUCCESS) {
        if (open_->event->end_slot != UINT32_MAX) stream->release_timestamp(open_->event->end_slot);
        open_->event->end_slot = end_slot;
      }
      uint64_t point = 0;
      if (stream->submit({}, &point) == VK_SUCCESS) {
        open_->point = point;
        continue;
      }
      more = cl::Error{CL_OUT_OF_RESOURCES};
    }
    Open done = std::move(*open_);
    open_.reset();
    if (!more) {
      done.event->set_complete(more.error());
    } else {
      done.event->set_point(done.point);
      keep_until(done.point, std::move(done.keep));
    }
  }
}

cl::Result<void> _cl_command_queue::flush() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  uint64_t point = 0;
  // The time before the submission: a GPU may start the work before vkQueueSubmit returns
  // (an H100's START came before a SUBMIT taken after it, and was clamped to it).
  const uint64_t submitted = cl::host_time_ns();
  VkResult r = stream->submit({}, &point);
  if (r != VK_SUCCESS) return cl::Error{cl::cl_error_from(r)};
  for (auto& e : batch_events_) e->mark_submitted(submitted);
  batch_events_.clear();
  batch_commands_ = 0;
  retire();
  return {};
}

void _cl_command_queue::keep_until(uint64_t point, Keep keep) {
  std::pair<uint64_t, Keep> entry{point, std::move(keep)};
  try {
    in_flight_.push_back(std::move(entry));  // on failure |entry| is left as it was
  } catch (const std::bad_alloc&) {
    // No memory to note them: the GPU is waited for here, and then they may go.
    try {
      stream->wait(point);
    } catch (const std::bad_alloc&) {
    }
  }
}

void _cl_command_queue::retire() {
  uint64_t done = stream->completed_point();
  while (!in_flight_.empty() && in_flight_.front().first <= done) in_flight_.pop_front();
}

void _cl_command_queue::wait_point(uint64_t point) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  settle(true);
  // (The point of a command that continued is known now: its event asks again.)
  if (point != _cl_event::kOpenPoint && point > stream->completed_point()) {
    (void)flush();
    stream->wait(point);
  }
  retire();
}

cl_int _cl_command_queue::sync() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  auto f = flush();
  if (!f) return f.error();
  settle(true);
  uint64_t point = stream->last_point();
  VkResult r = stream->wait(point);
  retire();
  return cl::cl_error_from(r);
}

cl::Result<void> _cl_command_queue::finish() {
  while (true) {
    {
      std::lock_guard<std::recursive_mutex> lock(mutex_);
      if (held_.empty()) {
        cl_int e = sync();
        if (e != CL_SUCCESS) return cl::Error{e};
        return {};
      }
    }
    // Commands held back by a user event: wait for the application to set it.
    drain();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

bool _cl_command_queue::waits_for_all(const Pending& p) {
  return (p.type == CL_COMMAND_MARKER || p.type == CL_COMMAND_BARRIER) && p.waits.empty();
}

bool _cl_command_queue::held_barrier() const {
  for (const Pending& h : held_)
    if (h.type == CL_COMMAND_BARRIER) return true;
  return false;
}

bool _cl_command_queue::drain() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  bool ran = false;
  // In order, the first held command runs first; out of order, any whose events are done,
  // except that a marker or barrier without a wait list waits for every command before it
  // and a barrier holds every command after it. Each that runs may let an earlier one run.
  for (auto it = held_.begin(); it != held_.end();) {
    bool ready = it == held_.begin() || !waits_for_all(*it);
    for (auto& w : it->waits) ready = ready && !w->waits_on_application();
    if (!ready) {
      if (in_order() || it->type == CL_COMMAND_BARRIER) return ran;
      ++it;
      continue;
    }
    Pending p = std::move(*it);
    held_.erase(it);
    p.event->held = false;
    run(p);
    ran = true;
    it = held_.begin();
  }
  return ran;
}

void _cl_command_queue::drain_all() {
  std::vector<cl::Ref<_cl_command_queue>> queues;
  {
    std::lock_guard<std::mutex> lock(live_queues().mutex);
    // A queue whose last reference is gone is being destroyed (it leaves the set in its
    // destructor): it has nothing held, and must not be revived.
    for (auto* q : live_queues().set)
      if (q->try_retain()) queues.push_back(cl::Ref<_cl_command_queue>::adopt(q));
  }
  bool ran = true;
  while (ran) {
    ran = false;
    for (auto& q : queues) ran = q->drain() || ran;
  }
}

cl::Result<vk::Buffer*> _cl_command_queue::staging(int slot, size_t size) {
  std::unique_ptr<vk::Buffer>& b = staging_[slot];
  if (!b || b->size() < size) {
    b.reset();
    VkResult r = vk::Buffer::create(vk, size, vk::MemoryPlacement::HostVisible, &b);
    if (r != VK_SUCCESS) return cl::Error{cl::cl_error_from(r)};
  }
  return b.get();
}

cl::Result<std::shared_ptr<_cl_command_queue::Capture>> _cl_command_queue::capture(
    const std::function<cl_int()>& record) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  auto c = std::make_shared<Capture>();
  VkResult r = stream->begin_capture();
  if (r != VK_SUCCESS) return cl::Error{cl::cl_error_from(r)};
  capturing_ = c.get();
  cl_int e = record();
  capturing_ = nullptr;
  r = stream->end_capture(&c->commands);
  if (e != CL_SUCCESS) return cl::Error{e};
  if (r != VK_SUCCESS) return cl::Error{cl::cl_error_from(r)};
  return c;
}

cl_int _cl_command_queue::replay(const Capture& capture) {
  return cl::cl_error_from(stream->execute(*capture.commands));
}

cl::Result<uint64_t> _cl_command_queue::argument_block(const void* data, size_t size) {
  size_t aligned = (size + 255) / 256 * 256;
  if (capturing_) {
    // A captured command's arguments live as long as the capture, in blocks of its own.
    auto& blocks = capturing_->arguments;
    if (blocks.empty() || capturing_->used + aligned > blocks.back()->size()) {
      std::unique_ptr<vk::Buffer> b;
      VkResult r = vk::Buffer::create(vk, std::max(kArgumentChunk, aligned), vk::MemoryPlacement::HostVisible, &b);
      if (r != VK_SUCCESS) return cl::Error{cl::cl_error_from(r)};
      blocks.push_back(std::move(b));
      capturing_->used = 0;
    }
    std::memcpy(static_cast<uint8_t*>(blocks.back()->mapped()) + capturing_->used, data, size);
    uint64_t address = blocks.back()->address() + capturing_->used;
    capturing_->used += aligned;
    return address;
  }
  if (chunk_ == SIZE_MAX || chunk_offset_ + aligned > kArgumentChunk) {
    if (chunk_ != SIZE_MAX) chunks_[chunk_].busy_until = stream->last_point();
    uint64_t done = stream->completed_point();
    chunk_ = SIZE_MAX;
    for (size_t i = 0; i < chunks_.size(); ++i)
      if (chunks_[i].busy_until <= done && i != chunk_) {
        chunk_ = i;
        break;
      }
    if (chunk_ == SIZE_MAX) {
      Chunk c;
      VkResult r = vk::Buffer::create(vk, std::max(kArgumentChunk, aligned),
                                      vk::MemoryPlacement::HostVisible, &c.buffer);
      if (r != VK_SUCCESS) return cl::Error{cl::cl_error_from(r)};
      chunks_.push_back(std::move(c));
      chunk_ = chunks_.size() - 1;
    }
    chunks_[chunk_].busy_until = UINT64_MAX;
    chunk_offset_ = 0;
  }
  Chunk& c = chunks_[chunk_];
  std::memcpy(static_cast<uint8_t*>(c.buffer->mapped()) + chunk_offset_, data, size);
  uint64_t address = c.buffer->address() + chunk_offset_;
  chunk_offset_ += aligned;
  return address;
}
