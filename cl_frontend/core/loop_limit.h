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
class StatusWordPool {
 public:
  explicit StatusWordPool(std::string kernel) : kernel_(std::move(kernel)) {}
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
  std::mutex mutex_;
  std::vector<Word> free_;
};

// One launch's status word, shared by the command (until it retires) and its event (until
// the event sees the command complete); the last of them to let go returns the word.
class LoopLimitStatus {
 public:
  LoopLimitStatus(StatusWordPool::Word word, std::shared_ptr<StatusWordPool> pool)
      : word_(std::move(word)), pool_(std::move(pool)) {}
  ~LoopLimitStatus();
  LoopLimitStatus(const LoopLimitStatus&) = delete;
  LoopLimitStatus& operator=(const LoopLimitStatus&) = delete;

  // Once the command has completed: CL_COMPLETE, or CL_OUT_OF_RESOURCES when the kernel's
  // loops were cut short, which the first call also says on stderr.
  cl_int command_status();

 private:
  StatusWordPool::Word word_;
  std::shared_ptr<StatusWordPool> pool_;
  std::once_flag read_;
  cl_int status_ = CL_COMPLETE;
};

}  // namespace vkcl::cl
