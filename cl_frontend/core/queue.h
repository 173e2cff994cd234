// A command queue, in order or out of order (which differ only in the barriers between GPU
// commands: _cl_command_queue::execute). GPU commands are recorded into the queue's vk::CommandStream
// batch; host commands (reads, writes, maps) run on the calling thread once the GPU work
// before them is done. A command whose wait list holds an unfinished user event (or a command
// of another queue held back by one), and every command after it, is held back and run when
// the event completes (out of order: only the commands that depend on it, through their
// wait lists or a marker or barrier); a command waiting on a failed event fails, and so do
// its dependents.
// A command that may need more GPU work than it recorded (continue_with) is taken on by the
// host before anything after it is recorded.
#pragma once

#include <CL/cl.h>

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "core/context.h"
#include "core/event.h"
#include "core/object.h"
#include "core/result.h"

struct _cl_command_queue : vkcl::cl::Object<_cl_command_queue, vkcl::cl::ObjectKind::Queue> {
  using Work = std::function<cl_int()>;
  using Keep = std::vector<std::shared_ptr<void>>;  // objects a command uses, until it completes

  vkcl::cl::Ref<_cl_context> context;
  _cl_device_id* device = nullptr;
  cl_command_queue_properties properties = 0;
  std::vector<cl_queue_properties> property_list;
  std::shared_ptr<vkcl::vk::Device> vk;
  std::unique_ptr<vkcl::vk::CommandStream> stream;

  static vkcl::cl::Result<_cl_command_queue*> create(
      _cl_context* context, _cl_device_id* device, cl_command_queue_properties properties,
      vkcl::vk::QueuePriority priority = vkcl::vk::QueuePriority::Medium);
  ~_cl_command_queue();

  // Enqueues a command. |gpu| work records into the stream; host work does everything itself
  // (calling sync() first when it touches memory the GPU may use). |gpu_status|, for GPU
  // work, gives the command's status once the work has completed (CL_COMPLETE without it).
  // |timed|: on a profiling queue, GPU work gets device timestamps (false where the
  // application never sees the event: on lavapipe each timestamp is a query its rasterizer
  // threads answer, 15-40 us, whatever the pipeline stage).
  vkcl::cl::Result<vkcl::cl::Ref<_cl_event>> enqueue(cl_command_type type,
                                                      const std::vector<_cl_event*>& waits,
                                                      bool gpu, Work work, Keep keep = {},
                                                      std::function<cl_int()> gpu_status = {},
                                                      bool timed = true);
  vkcl::cl::Result<void> flush();
  vkcl::cl::Result<void> finish();
  // Blocks until the stream reaches |point|.
  void wait_point(uint64_t point);
  // Inside host work: waits until all GPU work recorded so far has completed.
  cl_int sync();
  // Inside GPU work: copies |size| bytes into an argument block; returns its device address.
  vkcl::cl::Result<uint64_t> argument_block(const void* data, size_t size);
  // Inside host work: the queue's staging buffer |slot| (0 or 1), host-visible (cached where
  // the device has such memory) and at least |size| bytes; kept for later transfers.
  vkcl::cl::Result<vkcl::vk::Buffer*> staging(int slot, size_t size);
  // Inside GPU work: the command may need more GPU work once what it recorded has run (a
  // kernel whose work-items had not finished after the rounds it recorded). Once it has run,
  // |more| is called: it records more work and returns true, or returns false when the
  // command is done. Nothing recorded after the command runs before it is done.
  using More = std::function<vkcl::cl::Result<bool>()>;
  void continue_with(More more) { next_more_ = std::move(more); }
  // Inside GPU work that records several commands (a command buffer): takes what the command
  // just recorded set with continue_with, if anything.
  More take_continuation() { return std::exchange(next_more_, nullptr); }
  // Takes the command that continues as far as the GPU has got; with |block|, to its end.
  void settle(bool block);

  // Commands recorded once and replayed (command buffers): what |record| records into the
  // stream, with the argument blocks it asks for in memory of its own.
  struct Capture {
    std::unique_ptr<vkcl::vk::Captured> commands;
    std::vector<std::unique_ptr<vkcl::vk::Buffer>> arguments;
    size_t used = 0;  // of the last argument buffer
  };
  vkcl::cl::Result<std::shared_ptr<Capture>> capture(const std::function<cl_int()>& record);
  // Inside GPU work: records |capture| into the stream.
  cl_int replay(const Capture& capture);

  // Runs the commands held back by user events that can run now, in order (a failed user
  // event terminates the commands waiting on it). Returns whether any ran.
  bool drain();
  // The same on every queue, until none can run: a command held on one queue may wait for
  // one held on another.
  static void drain_all();

 private:
  struct Pending {
    cl_command_type type;
    std::vector<vkcl::cl::Ref<_cl_event>> waits;
    bool gpu;
    Work work;
    Keep keep;
    vkcl::cl::Ref<_cl_event> event;
    std::function<cl_int()> gpu_status;
    bool timed;
  };
  void execute(Pending& p);
  bool in_order() const { return !(properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE); }
  // Out of order: a marker or barrier without a wait list waits for every command before it;
  // a barrier, for its part, holds back every command after it.
  static bool waits_for_all(const Pending& p);
  bool held_barrier() const;
  // execute(), and a command that could not start fails its event.
  void run(Pending& p);
  // Keeps a command's objects until the stream passes |point| (in_flight_), without failing.
  void keep_until(uint64_t point, Keep keep);
  void retire();

  // The command that continues, while it is not done: the point its work so far signals.
  struct Open {
    uint64_t point;
    More more;
    vkcl::cl::Ref<_cl_event> event;
    Keep keep;
  };
  std::optional<Open> open_;
  // Makes this queue's batch wait on the device for |w|, submitted GPU work of another queue
  // of the same Vulkan device; false where |w| is anything else.
  bool waits_on_device(_cl_event& w);
  bool barrier_next_ = false;  // out of order: a barrier command was the last GPU command
  More next_more_;  // set by the work being recorded

  std::recursive_mutex mutex_;
  std::deque<Pending> held_;
  std::deque<std::pair<uint64_t, Keep>> in_flight_;
  std::vector<vkcl::cl::Ref<_cl_event>> batch_events_;
  size_t batch_commands_ = 0;
  struct Chunk {
    std::unique_ptr<vkcl::vk::Buffer> buffer;
    uint64_t busy_until = 0;
  };
  std::vector<Chunk> chunks_;
  std::unique_ptr<vkcl::vk::Buffer> staging_[2];
  size_t chunk_ = SIZE_MAX;
  size_t chunk_offset_ = 0;
  Capture* capturing_ = nullptr;  // argument blocks go there while set
};

namespace vkcl::cl {
using Queue = _cl_command_queue;
template <typename T>
std::shared_ptr<void> keep(T* object) {
  return std::make_shared<Ref<T>>(object);
}
}  // namespace vkcl::cl
