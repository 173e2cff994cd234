#include "core/loop_limit.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <new>

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

bool ResumeArea::unfinished() const {
  if (!buffer) return false;
  const uint8_t* base = static_cast<const uint8_t*>(buffer->mapped());
  for (uint32_t r = 0; r < regions; ++r) {
    uint32_t counts[3];
    std::memcpy(counts, base + arguments_offset(r, kResumeRounds), sizeof counts);
    if (counts[0] | counts[1] | counts[2]) return true;
  }
  return false;
}

void ResumeArea::carry_over() const {
  uint8_t* base = static_cast<uint8_t*>(buffer->mapped());
  for (uint32_t r = 0; r < regions; ++r) {
    std::memmove(base + arguments_offset(r, 0), base + arguments_offset(r, kResumeRounds), 16);
    std::memset(base + arguments_offset(r, 1), 0, kResumeRounds * 16);
  }
}

ResumeArea ResumePool::take(const std::shared_ptr<vk::Device>& device, uint64_t items,
                            uint32_t record, uint64_t groups, uint32_t group_record,
                            uint32_t counters, uint32_t regions, VkResult* result) {
  ResumeArea area;
  area.regions = regions;
  area.arguments = 0;
  area.counters = (uint64_t(regions) * (kResumeRounds + 1) * 16 + 255) / 256 * 256;
  area.groups = (area.counters + groups * counters + 255) / 256 * 256;
  area.items = (area.groups + groups * group_record + 255) / 256 * 256;
  uint64_t size = area.items + items * record;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < free_.size(); ++i)
      if (free_[i]->size() >= size) {
        area.buffer = std::move(free_[i]);
        free_.erase(free_.begin() + i);
        break;
      }
  }
  if (!area.buffer) {
    std::unique_ptr<vk::Buffer> fresh;
    *result = vk::Buffer::create(device, size, vk::MemoryPlacement::HostVisible, &fresh);
    if (*result != VK_SUCCESS) return {};
    if (!fresh->mapped()) {
      *result = VK_ERROR_MEMORY_MAP_FAILED;
      return {};
    }
    area.buffer = std::move(fresh);
  }
  // Records of earlier launches carry other epochs and are read as empty, and each batch
  // zeroes its counter when it starts: only the indirect arguments must start at zero.
  std::memset(area.buffer->mapped(), 0, area.counters);
  static std::atomic<uint32_t> launches{0};
  do area.epoch = ++launches;
  while (area.epoch == 0);
  *result = VK_SUCCESS;
  return area;
}

void ResumePool::give_back(std::shared_ptr<vk::Buffer> buffer) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back(std::move(buffer));
  // A few of the largest are worth keeping.
  std::sort(free_.begin(), free_.end(), [](const auto& a, const auto& b) { return a->size() > b->size(); });
  if (free_.size() > 4) free_.resize(4);
}

cl_int LoopLimitStatus::command_status() {
  std::call_once(read_, [&] {
    // (A launch that resumes is done by now: the queue adds rounds until it is.)
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

bool LoopLimitStatus::cut_for_rerun() {
  bool cut = false;
  std::call_once(read_, [&] { cut = word_.read() != 0; });
  return cut;
}

LoopLimitStatus::~LoopLimitStatus() {
  // The command has completed by now (the queue lets go of it when it retires, the event
  // when it completes): a launch whose event nobody asked about still reports.
  // A destructor must not throw: without memory, no report and the buffers are freed
  // rather than kept.
  try {
    (void)command_status();
    pool_->give_back(std::move(word_));
    if (resume_pool_ && resume_.buffer) resume_pool_->give_back(std::move(resume_.buffer));
  } catch (const std::bad_alloc&) {
  }
}

}  // namespace vkcl::cl
