#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <memory>
#include <utility>

#include "exit.h"
#include "inject.h"
#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::vk {

namespace {

constexpr uint32_t kQueriesPerPool = 256;
// How long wait() polls before it blocks (GPUs only): about a short kernel's round trip.
constexpr int kPollMicroseconds = 100;

uint64_t host_now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// |ticks| of the device's timestamp counter in nanoseconds.
int64_t to_ns(uint64_t ticks, double tick_ns) {
  return tick_ns == 1.0 ? int64_t(ticks) : int64_t(double(ticks) * tick_ns);
}

}  // namespace

struct CommandStream::Impl {
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer recording = VK_NULL_HANDLE;
  size_t recorded_commands = 0;
  VkPipeline bound = VK_NULL_HANDLE;
  uint64_t submitted = 0;  // timeline value of the last submission
  // Submitted batches: the buffer, its point, and the other streams' semaphores it waits
  // on, kept until it has run (a semaphore a pending batch waits on must not be destroyed,
  // even where its value was reached long ago: lavapipe's queue thread then walks a freed
  // list).
  struct InFlight {
    VkCommandBuffer buffer;
    uint64_t point;
    std::vector<std::shared_ptr<TimelineSemaphore>> waited;
  };
  std::deque<InFlight> in_flight;
  std::vector<VkCommandBuffer> spare;
  std::vector<VkQueryPool> query_pools;
  std::vector<uint32_t> free_slots;
  double tick_ns = 1.0;
  int64_t host_offset_ns = 0;  // host = ticks * tick_ns + offset
  bool calibrated = false;
  uint64_t calibrated_at_ns = 0;  // host time of the last calibration (calibrated timestamps)
  std::mutex mutex;            // guards query reads against pool growth, and the clock offset
  // Device loss: the last point seen complete, and once the device is lost the last point
  // that completed (UINT64_MAX before).
  std::atomic<uint64_t> seen_done{0};
  std::atomic<uint64_t> lost_after{UINT64_MAX};
  // VKCL_INJECT_DEVICE_LOST=N when the stream was made: its Nth submission finds the device
  // lost (after the work before it has finished, so nothing in flight uses freed memory).
  uint64_t inject_at = 0;
  uint64_t submissions = 0;
  // While capturing: the capture, and the batch's recording state put aside.
  std::unique_ptr<Captured> capture;
  VkCommandBuffer batch = VK_NULL_HANDLE;
  size_t batch_commands = 0;
  VkPipeline batch_bound = VK_NULL_HANDLE;
  // What the batch being recorded waits for (wait_before_batch), taken by its submission.
  std::vector<std::pair<std::shared_ptr<TimelineSemaphore>, uint64_t>> batch_waits;
};

// A stream's timeline semaphore, given back to its device when neither the stream nor a
// batch of another stream that waits on it needs it any more (Device::keep_timeline).
struct TimelineSemaphore {
  std::shared_ptr<Device> device;
  VkSemaphore handle = VK_NULL_HANDLE;
  ~TimelineSemaphore() {
    if (handle && vulkan_usable()) device->keep_timeline(handle);
  }
};

namespace {
// Marks |device| lost; the stream's work completed up to what it last saw.
void lose(Device& device, CommandStream::Impl& impl) {
  device.mark_lost();
  uint64_t unset = UINT64_MAX;
  impl.lost_after.compare_exchange_strong(unset, impl.seen_done.load());
}
}  // namespace

VkResult CommandStream::create(std::shared_ptr<Device> device, std::unique_ptr<CommandStream>* out,
                               QueuePriority priority) {
  if (!vulkan_usable()) return VK_ERROR_DEVICE_LOST;
  std::unique_ptr<CommandStream> s(new CommandStream());
  s->device_ = device;
  s->queue_ = device->queue(priority);
  s->impl_ = std::make_unique<Impl>();
  VkDevice d = device->handle();
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo sem{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
  if (detail::injected_object_failure()) return VK_ERROR_OUT_OF_HOST_MEMORY;
  try {
    s->timeline_owner_ = std::make_shared<TimelineSemaphore>();
  } catch (const std::bad_alloc&) {
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  s->timeline_owner_->device = device;
  VkResult r = VK_SUCCESS;
  if (!(s->timeline_owner_->handle = device->take_timeline())) {
    r = vkCreateSemaphore(d, &sem, nullptr, &s->timeline_owner_->handle);
    if (r != VK_SUCCESS) return r;
  }
  s->timeline_ = s->timeline_owner_->handle;
  // A semaphore another stream used goes on from its value.
  uint64_t value = 0;
  if (vkGetSemaphoreCounterValue(d, s->timeline_, &value) != VK_SUCCESS) return VK_ERROR_DEVICE_LOST;
  s->impl_->submitted = value;
  s->impl_->seen_done = value;
  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = device->info().compute_queue_family;
  if (detail::injected_object_failure()) return VK_ERROR_OUT_OF_HOST_MEMORY;
  r = vkCreateCommandPool(d, &pool, nullptr, &s->impl_->pool);
  if (r != VK_SUCCESS) return r;
  s->impl_->tick_ns = device->info().properties.limits.timestampPeriod;
  if (const char* inject = std::getenv("VKCL_INJECT_DEVICE_LOST")) s->impl_->inject_at = std::strtoull(inject, nullptr, 10);
  s->calibrate();
  detail::track_stream(s.get(), true);
  *out = std::move(s);
  return VK_SUCCESS;
}

CommandStream::~CommandStream() {
  if (!device_) return;
  detail::track_stream(this, false);
  if (!vulkan_usable()) return;  // its work was submitted and finished at exit
  VkDevice d = device_->handle();
  if (impl_) {
    if (impl_->submitted) {
      VkSemaphoreWaitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
      wait.semaphoreCount = 1;
      wait.pSemaphores = &timeline_;
      wait.pValues = &impl_->submitted;
      vkWaitSemaphores(d, &wait, UINT64_MAX);
    }
    if (impl_->pool) vkDestroyCommandPool(d, impl_->pool, nullptr);
    for (VkQueryPool q : impl_->query_pools) vkDestroyQueryPool(d, q, nullptr);
  }
  timeline_owner_.reset();  // back to the device unless a batch of another stream waits on it
}

static VkResult begin(Device& device, CommandStream::Impl& impl, VkSemaphore timeline) {
  // Every recording command starts here, a batch already begun included.
  if (!vulkan_usable()) return VK_ERROR_DEVICE_LOST;
  if (impl.recording) return VK_SUCCESS;
  uint64_t done = 0;
  vkGetSemaphoreCounterValue(device.handle(), timeline, &done);
  while (!impl.in_flight.empty() && impl.in_flight.front().point <= done) {
    impl.spare.push_back(impl.in_flight.front().buffer);
    impl.in_flight.pop_front();
  }
  if (!impl.spare.empty()) {
    impl.recording = impl.spare.back();
    impl.spare.pop_back();
    vkResetCommandBuffer(impl.recording, 0);
  } else {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = impl.pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    if (detail::injected_object_failure()) return VK_ERROR_OUT_OF_HOST_MEMORY;
    VkResult r = vkAllocateCommandBuffers(device.handle(), &alloc, &impl.recording);
    if (r != VK_SUCCESS) return r;
  }
  VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  impl.bound = VK_NULL_HANDLE;
  impl.recorded_commands = 0;
  return vkBeginCommandBuffer(impl.recording, &info);
}

VkResult CommandStream::bind(const ComputePipeline& pipeline, const void* push_constants,
                             uint32_t push_size) {
  VkResult r = begin(*device_, *impl_, timeline_);
  if (r != VK_SUCCESS) return r;
  if (impl_->bound != pipeline.handle()) {
    vkCmdBindPipeline(impl_->recording, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
    impl_->bound = pipeline.handle();
  }
  if (push_size)
    vkCmdPushConstants(impl_->recording, pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       push_size, push_constants);
  return VK_SUCCESS;
}

VkResult CommandStream::dispatch(const ComputePipeline& pipeline, const void* push_constants,
                                 uint32_t push_size, uint32_t gx, uint32_t gy, uint32_t gz) {
  VkResult r = bind(pipeline, push_constants, push_size);
  if (r != VK_SUCCESS) return r;
  vkCmdDispatch(impl_->recording, gx, gy, gz);
  impl_->recorded_commands++;
  return VK_SUCCESS;
}

VkResult CommandStream::dispatch_indirect(const ComputePipeline& pipeline, const void* push_constants,
                                          uint32_t push_size, const Buffer& arguments,
                                          VkDeviceSize offset) {
  VkResult r = bind(pipeline, push_constants, push_size);
  if (r != VK_SUCCESS) return r;
  vkCmdDispatchIndirect(impl_->recording, arguments.handle(), offset);
  impl_->recorded_commands++;
  return VK_SUCCESS;
}

VkResult CommandStream::copy_buffer(const Buffer& src, VkDeviceSize src_offset, const Buffer& dst,
                                    VkDeviceSize dst_offset, VkDeviceSize size) {
  VkResult r = begin(*device_, *impl_, timeline_);
  if (r != VK_SUCCESS) return r;
  VkBufferCopy region{src_offset, dst_offset, size};
  vkCmdCopyBuffer(impl_->recording, src.handle(), dst.handle(), 1, &region);
  impl_->recorded_commands++;
  return VK_SUCCESS;
}

VkResult CommandStream::fill_buffer(const Buffer& dst, VkDeviceSize offset, VkDeviceSize size,
                                    uint32_t pattern) {
  VkResult r = begin(*device_, *impl_, timeline_);
  if (r != VK_SUCCESS) return r;
  vkCmdFillBuffer(impl_->recording, dst.handle(), offset, size, pattern);
  impl_->recorded_commands++;
  return VK_SUCCESS;
}

VkResult CommandStream::command_buffer(VkCommandBuffer* out) {
  VkResult r = begin(*device_, *impl_, timeline_);
  if (r != VK_SUCCESS) return r;
  impl_->recorded_commands++;
  *out = impl_->recording;
  return VK_SUCCESS;
}

static void full_barrier(VkCommandBuffer cb) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                          VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT |
                          VK_ACCESS_TRANSFER_READ_BIT;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                          VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                          VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT |
                          VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
  VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                                VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT;
  // Indirect dispatches read their group counts in the draw-indirect stage.
  VkPipelineStageFlags after = stages | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;
  vkCmdPipelineBarrier(cb, stages, after, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

VkResult CommandStream::barrier() {
  if (!impl_->recording || impl_->recorded_commands == 0) return VK_SUCCESS;
  if (!vulkan_usable()) return VK_ERROR_DEVICE_LOST;
  full_barrier(impl_->recording);
  return VK_SUCCESS;
}

Captured::~Captured() {
  // (The pool's command buffer goes with it.)
  if (pool_ && vulkan_usable()) vkDestroyCommandPool(device_->handle(), pool_, nullptr);
}

VkResult CommandStream::begin_capture() {
  if (!vulkan_usable()) return VK_ERROR_DEVICE_LOST;
  std::unique_ptr<Captured> c(new Captured());
  c->device_ = device_;
  VkDevice d = device_->handle();
  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.queueFamilyIndex = device_->info().compute_queue_family;
  if (detail::injected_object_failure()) return VK_ERROR_OUT_OF_HOST_MEMORY;
  VkResult r = vkCreateCommandPool(d, &pool, nullptr, &c->pool_);
  if (r != VK_SUCCESS) return r;
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = c->pool_;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_SECONDARY;
  alloc.commandBufferCount = 1;
  if (detail::injected_object_failure()) return VK_ERROR_OUT_OF_HOST_MEMORY;
  if ((r = vkAllocateCommandBuffers(d, &alloc, &c->buffer_)) != VK_SUCCESS) return r;
  VkCommandBufferInheritanceInfo inheritance{VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO};
  VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  info.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
  info.pInheritanceInfo = &inheritance;
  if ((r = vkBeginCommandBuffer(c->buffer_, &info)) != VK_SUCCESS) return r;
  Impl& impl = *impl_;
  impl.batch = std::exchange(impl.recording, c->buffer_);
  impl.batch_commands = std::exchange(impl.recorded_commands, 0);
  impl.batch_bound = std::exchange(impl.bound, VK_NULL_HANDLE);
  impl.capture = std::move(c);
  return VK_SUCCESS;
}

VkResult CommandStream::end_capture(std::unique_ptr<Captured>* out) {
  Impl& impl = *impl_;
  if (!impl.capture) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult r = vulkan_usable() ? vkEndCommandBuffer(impl.recording) : VK_ERROR_DEVICE_LOST;
  impl.recording = std::exchange(impl.batch, VK_NULL_HANDLE);
  impl.recorded_commands = impl.batch_commands;
  impl.bound = impl.batch_bound;
  std::unique_ptr<Captured> c = std::move(impl.capture);
  if (r == VK_SUCCESS) *out = std::move(c);
  return r;
}

VkResult CommandStream::execute(const Captured& captured) {
  VkResult r = begin(*device_, *impl_, timeline_);
  if (r != VK_SUCCESS) return r;
  vkCmdExecuteCommands(impl_->recording, 1, &captured.buffer_);
  // The pipeline bound after a secondary command buffer is undefined.
  impl_->bound = VK_NULL_HANDLE;
  impl_->recorded_commands++;
  return VK_SUCCESS;
}

VkResult CommandStream::write_timestamp(uint32_t* slot) {
  VkResult r = begin(*device_, *impl_, timeline_);
  if (r != VK_SUCCESS) return r;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (impl_->free_slots.empty()) {
    // Room first: once the pool exists nothing may fail (it would be lost), and a slot given
    // back (release_timestamp, from an event's destructor) must never need memory.
    impl_->query_pools.reserve(impl_->query_pools.size() + 1);
    impl_->free_slots.reserve((impl_->query_pools.size() + 1) * kQueriesPerPool);
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = kQueriesPerPool;
    VkQueryPool pool;
    if (detail::injected_object_failure()) return VK_ERROR_OUT_OF_HOST_MEMORY;
    r = vkCreateQueryPool(device_->handle(), &info, nullptr, &pool);
    if (r != VK_SUCCESS) return r;
    uint32_t base = uint32_t(impl_->query_pools.size()) * kQueriesPerPool;
    impl_->query_pools.push_back(pool);
    for (uint32_t i = kQueriesPerPool; i > 0; --i) impl_->free_slots.push_back(base + i - 1);
  }
  *slot = impl_->free_slots.back();
  impl_->free_slots.pop_back();
  VkQueryPool pool = impl_->query_pools[*slot / kQueriesPerPool];
  vkCmdResetQueryPool(impl_->recording, pool, *slot % kQueriesPerPool, 1);
  vkCmdWriteTimestamp(impl_->recording, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, pool,
                      *slot % kQueriesPerPool);
  return VK_SUCCESS;
}

// Sets the device-to-host time offset where the driver can tell it: the sample of least
// deviation of a few. The two clocks drift apart (an H100's by enough within seconds that
// START came out before SUBMIT and was clamped to it), so the offset is renewed when a
// timestamp is read 10 ms or more after it was set.
static void calibrate_clocks(Device& device, CommandStream::Impl& impl) {
  if (!device.info().calibrated_timestamps || !vkGetCalibratedTimestampsEXT) return;
  VkCalibratedTimestampInfoEXT domains[2] = {
      {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, nullptr, VK_TIME_DOMAIN_DEVICE_EXT},
      {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, nullptr, VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT}};
  uint64_t best = UINT64_MAX;
  for (int sample = 0; sample < 3; ++sample) {
    uint64_t times[2] = {0, 0}, deviation = 0;
    if (vkGetCalibratedTimestampsEXT(device.handle(), 2, domains, times, &deviation) != VK_SUCCESS) return;
    if (deviation >= best) continue;
    best = deviation;
    uint32_t bits = device.info().timestamp_valid_bits;
    if (bits && bits < 64) times[0] &= (1ull << bits) - 1;
    impl.host_offset_ns = int64_t(times[1]) - to_ns(times[0], impl.tick_ns);
  }
  impl.calibrated = true;
  impl.calibrated_at_ns = host_now_ns();
}

bool CommandStream::timestamps_calibrated() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->calibrated;
}

uint64_t CommandStream::read_timestamp(uint32_t slot) const {
  uint64_t ticks = 0;
  VkQueryPool pool;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (slot / kQueriesPerPool >= impl_->query_pools.size()) return 0;
    pool = impl_->query_pools[slot / kQueriesPerPool];
  }
  if (!vulkan_usable()) return 0;
  vkGetQueryPoolResults(device_->handle(), pool, slot % kQueriesPerPool, 1, sizeof(ticks),
                        &ticks, sizeof(ticks), VK_QUERY_RESULT_64_BIT);
  uint32_t bits = device_->info().timestamp_valid_bits;
  if (bits && bits < 64) ticks &= (1ull << bits) - 1;
  // Events of one queue complete on whichever threads look at them.
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (impl_->calibrated_at_ns && host_now_ns() - impl_->calibrated_at_ns > 10000000)
    calibrate_clocks(*device_, *impl_);
  if (!impl_->calibrated) {
    // Without calibrated timestamps: the first timestamp read belongs to work that completed
    // a moment ago, so device times come out late by however long the read waited.
    impl_->host_offset_ns = int64_t(host_now_ns()) - to_ns(ticks, impl_->tick_ns);
    impl_->calibrated = true;
  }
  return uint64_t(to_ns(ticks, impl_->tick_ns) + impl_->host_offset_ns);
}

// Reads the device's timestamp counter and CLOCK_MONOTONIC together where the driver can, so
// profiling times are host times (QUEUED <= SUBMIT <= START <= END with real distances).
void CommandStream::calibrate() { calibrate_clocks(*device_, *impl_); }

void CommandStream::release_timestamp(uint32_t slot) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  // Only slots write_timestamp handed out (a command that failed has no end slot).
  if (slot / kQueriesPerPool < impl_->query_pools.size()) impl_->free_slots.push_back(slot);
}

bool CommandStream::has_pending() const { return impl_->recording != VK_NULL_HANDLE; }

uint64_t CommandStream::last_point() const {
  return impl_->submitted + (has_pending() ? 1 : 0);
}

VkResult CommandStream::submit(const std::vector<std::pair<VkSemaphore, uint64_t>>& wait_points,
                               uint64_t* point) {
  if (!impl_->recording) {
    if (point) *point = impl_->submitted;
    return VK_SUCCESS;
  }
  if (!vulkan_usable() || device_->lost()) return VK_ERROR_DEVICE_LOST;
  if (impl_->inject_at && ++impl_->submissions == impl_->inject_at) {
    {
      std::lock_guard<std::mutex> lock(device_->queue_mutex());
      vkDeviceWaitIdle(device_->handle());  // (every queue: the mutex held is theirs)
    }
    impl_->seen_done = impl_->submitted;
    lose(*device_, *impl_);
    return VK_ERROR_DEVICE_LOST;
  }
  uint64_t signal = impl_->submitted + 1;
  // What needs memory comes before the batch is ended and submitted, so that a failure (no
  // host memory) leaves it recording, to submit again; the batch is noted in flight first
  // and taken back if it does not go.
  std::vector<VkSemaphore> wait_semaphores;
  std::vector<uint64_t> wait_values;
  std::vector<VkPipelineStageFlags> wait_stages;
  std::vector<std::pair<VkSemaphore, uint64_t>> waits = wait_points;
  // Objects this batch may use were made ready on the device's setup stream (Device::setup).
  if (auto [setup, value] = device_->pending_setup(timeline_); setup) waits.emplace_back(setup, value);
  std::vector<std::shared_ptr<TimelineSemaphore>> waited;
  for (const auto& [semaphore, value] : impl_->batch_waits) {
    waits.emplace_back(semaphore->handle, value);
    waited.push_back(semaphore);
  }
  for (auto [s, v] : waits) {
    wait_semaphores.push_back(s);
    wait_values.push_back(v);
    wait_stages.push_back(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  }
  impl_->in_flight.push_back({impl_->recording, signal, std::move(waited)});
  // Everything the batch wrote is visible to the host once its point signals.
  full_barrier(impl_->recording);
  VkResult r = vkEndCommandBuffer(impl_->recording);
  if (r != VK_SUCCESS) {
    impl_->in_flight.pop_back();
    return r;
  }
  VkTimelineSemaphoreSubmitInfo timeline{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  timeline.waitSemaphoreValueCount = uint32_t(wait_values.size());
  timeline.pWaitSemaphoreValues = wait_values.data();
  timeline.signalSemaphoreValueCount = 1;
  timeline.pSignalSemaphoreValues = &signal;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, &timeline};
  submit.waitSemaphoreCount = uint32_t(wait_semaphores.size());
  submit.pWaitSemaphores = wait_semaphores.data();
  submit.pWaitDstStageMask = wait_stages.data();
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &impl_->recording;
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &timeline_;
  {
    std::lock_guard<std::mutex> lock(device_->queue_mutex());
    r = vkQueueSubmit(queue_, 1, &submit, VK_NULL_HANDLE);
  }
  if (r != VK_SUCCESS) impl_->in_flight.pop_back();
  if (r == VK_ERROR_DEVICE_LOST) lose(*device_, *impl_);
  if (r != VK_SUCCESS) return r;
  impl_->recording = VK_NULL_HANDLE;
  impl_->batch_waits.clear();
  impl_->submitted = signal;
  if (point) *point = signal;
  return VK_SUCCESS;
}

VkResult CommandStream::wait_before_batch(const CommandStream& other, uint64_t value) {
  VkCommandBuffer cb;
  VkResult r = command_buffer(&cb);  // the batch exists, so last_point() is its point
  if (r != VK_SUCCESS) return r;
  try {
    impl_->batch_waits.emplace_back(other.timeline_owner_, value);
  } catch (const std::bad_alloc&) {
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  return VK_SUCCESS;
}

uint64_t CommandStream::completed_point() const {
  // At exit every submission finished before Vulkan went away.
  if (!vulkan_usable()) return impl_->submitted;
  if (device_->lost()) {
    lose(*device_, *impl_);  // (lost through another stream: settles this one's point)
    return UINT64_MAX;
  }
  uint64_t value = 0;
  if (vkGetSemaphoreCounterValue(device_->handle(), timeline_, &value) == VK_ERROR_DEVICE_LOST) {
    lose(*device_, *impl_);
    return UINT64_MAX;
  }
  uint64_t seen = impl_->seen_done.load();
  while (value > seen && !impl_->seen_done.compare_exchange_weak(seen, value)) {}
  return value;
}

bool CommandStream::failed(uint64_t point) const {
  return device_->lost() && point > impl_->lost_after.load();
}

VkResult CommandStream::wait(uint64_t point) {
  if (point > impl_->submitted) {
    VkResult r = submit({}, nullptr);
    if (r != VK_SUCCESS) return r;
  }
  if (!vulkan_usable()) return VK_SUCCESS;  // submitted, so finished at exit
  if (device_->lost()) return VK_ERROR_DEVICE_LOST;
  VkSemaphoreWaitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  wait.semaphoreCount = 1;
  wait.pSemaphores = &timeline_;
  uint64_t value = std::min(point, impl_->submitted);
  wait.pValues = &value;
  // On a GPU a short command is done sooner than a blocking wait wakes up (NVIDIA: an empty
  // kernel's enqueue + finish took 61 us against its OpenCL's 24), so the host polls the
  // timeline for a while first. Not on a CPU device: there the host's cores run the work.
  if (device_->info().properties.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kPollMicroseconds);
    do {
      if (completed_point() >= value) return VK_SUCCESS;
    } while (std::chrono::steady_clock::now() < until);
  }
  VkResult r = vkWaitSemaphores(device_->handle(), &wait, UINT64_MAX);
  if (r == VK_ERROR_DEVICE_LOST) lose(*device_, *impl_);
  return r;
}

}  // namespace vkcl::vk
