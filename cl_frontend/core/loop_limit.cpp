#include "core/loop_limit.h"

#include <cstdio>
#include <cstring>

namespace vkcl::cl {

namespace {
constexpr size_t kWordsPerBuffer = 256;
}

uint32_t StatusWordPool::Word::read() const {
  uint32_t v = 0;
  std::memcpy(&v, static_cast<const uint8_t*>(buffer->mapped()) + offset, 4);
  return v;
}

StatusWordPool::Word StatusWordPool::take(const std::shared_ptr<vk::Device>& device,
                                          VkResult* result) {
  Word word;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) {
      std::unique_ptr<vk::Buffer> fresh;
      *result = vk::Buffer::create(device, kWordsPerBuffer * 4, vk::MemoryPlacement::HostVisible, &fresh);
      if (*result != VK_SUCCESS) return {};
      if (!fresh->mapped()) {
        *result = VK_ERROR_MEMORY_MAP_FAILED;
        return {};
      }
      std::shared_ptr<vk::Buffer> buffer = std::move(fresh);
      for (uint32_t i = 0; i < kWordsPerBuffer; ++i) free_.push_back({buffer, 4 * i});
    }
    word = std::move(free_.back());
    free_.pop_back();
  }
  std::memset(static_cast<uint8_t*>(word.buffer->mapped()) + word.offset, 0, 4);
  *result = VK_SUCCESS;
  return word;
}

void StatusWordPool::give_back(Word word) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back(std::move(word));
}

cl_int LoopLimitStatus::command_status() {
  std::call_once(read_, [&] {
    if (word_.read() == 0) return;
    status_ = CL_OUT_OF_RESOURCES;
    std::fprintf(stderr,
                 "vkcl: kernel %s: its loops ran more than the %u iterations that this Vulkan "
                 "driver (Mesa's llvmpipe) allows per batch of work-items and were cut short; "
                 "its results are wrong and its command fails with CL_OUT_OF_RESOURCES\n",
                 pool_->kernel().c_str(), kDriverLoopIterationLimit);
    std::fflush(stderr);
  });
  return status_;
}

LoopLimitStatus::~LoopLimitStatus() {
  // The command has completed by now (the queue lets go of it when it retires, the event
  // when it completes): a launch whose event nobody asked about still reports.
  (void)command_status();
  pool_->give_back(std::move(word_));
}

}  // namespace vkcl::cl
