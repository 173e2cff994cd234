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
      *result = vk::Buffer::create(device, kWordsPerBuffer * 4, vk::MemoryPlacement::HostVisible, &fresh,
                                   /*reusable=*/true, owner_ | vk::kInternalOwner);
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

namespace {

// |size| rounded up to a multiple of a quarter of its largest power of two (at most a quarter
// more), so that launches of about one size find each other's areas among the spares, which
// are taken by exact size. Pieces of blocks need no rounding.
uint64_t area_size_class(uint64_t size) {
  if (size <= vk::kLargestBufferPiece) return size;
  uint64_t top = uint64_t(1) << (63 - __builtin_clzll(size));
  uint64_t step = top / 4;
  return (size + step - 1) / step * step;
}

}  // namespace

ResumeArea take_resume_area(const std::shared_ptr<vk::Device>& device, uint64_t owner, uint64_t items,
                            uint32_t record, uint64_t groups, uint32_t group_record, uint32_t counters,
                            uint32_t regions, VkResult* result) {
  ResumeArea area;
  area.regions = regions;
  area.arguments = 0;
  area.counters = (uint64_t(regions) * (kResumeRounds + 1) * 16 + 255) / 256 * 256;
  area.groups = (area.counters + groups * counters + 255) / 256 * 256;
  area.items = (area.groups + groups * group_record + 255) / 256 * 256;
  const uint64_t size = area.items + items * record;
  std::unique_ptr<vk::Buffer> buffer;
  *result = vk::Buffer::create(device, area_size_class(size), vk::MemoryPlacement::HostVisible, &buffer,
                               /*reusable=*/true, owner | vk::kInternalOwner);
  if (*result != VK_SUCCESS) return {};
  if (!buffer->mapped()) {
    *result = VK_ERROR_MEMORY_MAP_FAILED;
    return {};
  }
  // Records of earlier launches carry other epochs and are read as empty, and each batch
  // zeroes its counter when it starts: only the indirect arguments must start at zero, where
  // the memory held areas before. Memory fresh from the driver may hold anything, epochs
  // too.
  std::memset(buffer->mapped(), 0, buffer->fresh() ? size : area.counters);
  area.buffer = std::move(buffer);
  static std::atomic<uint32_t> launches{0};
  do area.epoch = ++launches;
  while (area.epoch == 0);
  *result = VK_SUCCESS;
  return area;
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
  } catch (const std::bad_alloc&) {
  }
}

}  // namespace vkcl::cl
