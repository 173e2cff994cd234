// Launches on a driver that cuts loops short (k2s::TargetCaps::loop_iteration_limit): each
// gets a status word the kernel sets when its loops were cut, read when the command has
// completed, so the command fails instead of handing back wrong results in silence.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::cl {

// The iterations one batch of invocations may run in all its loops on such a driver
// (Mesa's gallivm, used by llvmpipe and lavapipe).
constexpr uint32_t kDriverLoopIterationLimit = 65535;

// Status words of one kernel's launches, taken from host-visible buffers of many words (a
// launch must not allocate device memory of its own) and reused once a launch completes.
// The buffers are pieces of blocks of |owner| | vk::kInternalOwner (|owner|: the kernel's
// context's spare owner), not allocations of their own.
class StatusWordPool {
 public:
  StatusWordPool(std::string kernel, uint64_t owner) : kernel_(std::move(kernel)), owner_(owner) {}
  struct Word {
    std::shared_ptr<vk::Buffer> buffer;
    uint32_t offset = 0;
    uint64_t address() const { return buffer->address() + offset; }
    uint32_t read() const;
  };
  // A word set to zero, or one without a buffer with |*result| set.
  Word take(const std::shared_ptr<vk::Device>& device, VkResult* result);
  void give_back(Word word);
  const std::string& kernel() const { return kernel_; }  // named when a launch is cut

 private:
  const std::string kernel_;
  const uint64_t owner_;
  std::mutex mutex_;
  std::vector<Word> free_;
};

// Rounds a launch of a kernel that resumes (k2s::KernelInterface::resume_area_offset) gets
// after its first dispatch: indirect re-dispatches, each of which runs the work-groups again
// only when a work-item stopped in the round before. 16 rounds give every batch of
// work-items about 16 x 60000 loop iterations; where that was not enough, the queue records
// 16 more once they have run (more_rounds in api/enqueue.cpp), until every work-item is done.
// Each empty round costs a barrier and an indirect dispatch of nothing (lavapipe: 2000
// launches of a small kernel with a loop, 16 rounds 60-70 us each, 64 rounds 75-115 us),
// and going on past the recorded rounds a wait for them on the host (~100 us), little next
// to a round that runs 60000 iterations a work-item.
constexpr uint32_t kResumeRounds = 16;

// Where a launch of such a kernel keeps its work-items' saved state: byte offsets in a
// host-visible buffer of its own.
struct ResumeArea {
  std::shared_ptr<vk::Buffer> buffer;
  uint64_t items = 0, groups = 0, arguments = 0, counters = 0;
  uint32_t regions = 0;
  uint32_t epoch = 0;  // the launch's number, which marks the records it wrote
  // Device address of the indirect arguments round |round| of region |region| writes.
  uint64_t arguments_offset(uint32_t region, uint32_t round) const {
    return arguments + (uint64_t(region) * (kResumeRounds + 1) + round) * 16;
  }
  // Once the command has completed: whether a work-item stopped in the last round, so it
  // never finished.
  bool unfinished() const;
  // Then, before more rounds: they start where the last round ended (its arguments become
  // the first round's, the others zero).
  void carry_over() const;
};

// An area for |items| records of |record| bytes, |groups| group records of |group_record|
// bytes (none where |group_record| is 0) and as many counter blocks of |counters| bytes, for
// |regions| dispatch regions, with its indirect arguments zeroed. Its memory is the device's
// spare memory of |owner| | vk::kInternalOwner (|owner|: the kernel's context's spare owner)
// once the area goes: kept for the next launch of about the size (areas are rounded up to a
// quarter of a power of two), freed when memory runs short or the context goes. A pool in
// each kernel kept its largest areas for as long as the kernel lived, and the kernels
// applications keep, or leak, held hundreds of MiB.
ResumeArea take_resume_area(const std::shared_ptr<vk::Device>& device, uint64_t owner, uint64_t items,
                            uint32_t record, uint64_t groups, uint32_t group_record, uint32_t counters,
                            uint32_t regions, VkResult* result);

// One launch's status word, shared by the command (until it retires) and its event (until
// the event sees the command complete); the last of them to let go returns the word.
class LoopLimitStatus {
 public:
  LoopLimitStatus(StatusWordPool::Word word, std::shared_ptr<StatusWordPool> pool)
      : word_(std::move(word)), pool_(std::move(pool)) {}
  // The launch resumes its work-items from |area| (let go with the word).
  void set_resume(ResumeArea area) { resume_ = std::move(area); }
  const ResumeArea& resume() const { return resume_; }
  ~LoopLimitStatus();
  LoopLimitStatus(const LoopLimitStatus&) = delete;
  LoopLimitStatus& operator=(const LoopLimitStatus&) = delete;

  // Once the command has completed: CL_COMPLETE, or CL_OUT_OF_RESOURCES when the kernel's
  // loops were cut short (a kernel that cannot resume), which the first call also says on
  // stderr.
  cl_int command_status();
  // Instead, for a first attempt that runs again resumable when its loops were cut
  // (k2s::KernelInterface::rerunnable): whether they were; the attempt then fails nothing.
  bool cut_for_rerun();

 private:
  StatusWordPool::Word word_;
  std::shared_ptr<StatusWordPool> pool_;
  ResumeArea resume_;
  std::once_flag read_;
  cl_int status_ = CL_COMPLETE;
};

}  // namespace vkcl::cl
