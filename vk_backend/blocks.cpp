#include "blocks.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace vkcl::vk::detail {

namespace {
constexpr VkDeviceSize kFirstBlock = VkDeviceSize(1) << 20;
constexpr VkDeviceSize kLargestBlock = VkDeviceSize(64) << 20;
constexpr size_t kNone = SIZE_MAX;

size_t round_up(size_t x, size_t step) { return (x + step - 1) / step * step; }
}  // namespace

struct Block {
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint32_t type = 0;
  uint64_t owner = 0;
  size_t granules = 0;
  uint8_t* mapped = nullptr;
  bool zeroed = false;         // its memory came zeroed (Device::allocate_buffer_memory)
  std::vector<uint64_t> used;  // a bit per granule
  size_t used_granules = 0;
  size_t high_water = 0;  // granules at or past this were never handed out
  size_t first_free = 0;  // no granule before this is free

  bool is_used(size_t g) const { return used[g / 64] >> (g % 64) & 1; }
  void mark(size_t first, size_t n, bool on) {
    for (size_t g = first; g < first + n; ++g) {
      if (on) used[g / 64] |= uint64_t(1) << (g % 64);
      else used[g / 64] &= ~(uint64_t(1) << (g % 64));
    }
    used_granules = on ? used_granules + n : used_granules - n;
    if (!on) first_free = std::min(first_free, first);
    else if (first <= first_free) first_free = first + n;
  }
  // The first run of |n| free granules starting at a multiple of |step|, or kNone.
  size_t find(size_t n, size_t step) const {
    if (granules - used_granules < n) return kNone;
    size_t start = round_up(first_free, step);
    while (start + n <= granules) {
      size_t g = start;
      while (g < start + n) {
        if (g % 64 == 0 && start + n - g >= 64 && used[g / 64] == 0) {
          g += 64;
        } else if (!is_used(g)) {
          ++g;
        } else {
          break;
        }
      }
      if (g >= start + n) return start;
      start = round_up(g + 1, step);
      while (start < granules && used[start / 64] == ~uint64_t(0)) start = round_up((start / 64 + 1) * 64, step);
    }
    return kNone;
  }
};

Blocks::Blocks(Device& device) : device_(device) {}

Blocks::~Blocks() {
  for (auto& b : blocks_) device_.free_memory(b->memory);
}

VkResult Blocks::take(uint32_t type, uint64_t owner, VkDeviceSize size, VkDeviceSize alignment, Piece* out,
                      bool zero_new) {
  const size_t n = size_t(round_up(size_t(size), size_t(kGranule)) / kGranule);
  const size_t step = std::max<size_t>(1, round_up(size_t(alignment), size_t(kGranule)) / kGranule);
  auto carve = [&](Block& b) {
    size_t first = b.find(n, step);
    if (first == kNone) return false;
    b.mark(first, n, true);
    out->block = &b;
    out->memory = b.memory;
    out->offset = first * kGranule;
    out->size = n * kGranule;
    out->mapped = b.mapped ? b.mapped + out->offset : nullptr;
    // What was never handed out may hold what another part of the process freed (lavapipe's
    // memory is the process heap's): zeroed here where mapped, by the caller elsewhere.
    const size_t zero_from = std::max(first, b.high_water);
    out->fresh = first + n > zero_from && !b.mapped && !b.zeroed;
    if (zero_new && b.mapped && !b.zeroed && first + n > zero_from)
      std::memset(b.mapped + zero_from * kGranule, 0, (first + n - zero_from) * kGranule);
    b.high_water = std::max(b.high_water, first + n);
    return true;
  };
  size_t owned = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& b : blocks_) {
      if (b->type != type || b->owner != owner) continue;
      ++owned;
      if (carve(*b)) return VK_SUCCESS;
    }
  }
  // A new block, larger for each one the owner has (a context with a few buffers holds
  // little; one with thousands few allocations), allocated without the lock: under memory
  // pressure the device frees empty blocks first (drop_empty).
  VkDeviceSize bytes = std::min(kLargestBlock, kFirstBlock << std::min<size_t>(2 * owned, 6));
  while (bytes < 2 * n * kGranule) bytes *= 2;
  auto block = std::unique_ptr<Block>(new (std::nothrow) Block());
  if (!block) return VK_ERROR_OUT_OF_HOST_MEMORY;
  block->type = type;
  block->owner = owner;
  block->granules = size_t(bytes / kGranule);
  try {
    block->used.assign((block->granules + 63) / 64, 0);
  } catch (const std::bad_alloc&) {
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &flags};
  alloc.allocationSize = bytes;
  alloc.memoryTypeIndex = type;
  // (Images' memory is not buffers': their blocks are allocated plainly.)
  VkResult r = owner & kImageOwner ? device_.allocate_memory(alloc, &block->memory)
                                   : device_.allocate_buffer_memory(alloc, &block->memory, &block->zeroed);
  if (r != VK_SUCCESS) return r;
  if (device_.info().memory.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    void* mapped = nullptr;
    r = vkMapMemory(device_.handle(), block->memory, 0, VK_WHOLE_SIZE, 0, &mapped);
    if (r != VK_SUCCESS) {
      device_.free_memory(block->memory);
      return r;
    }
    block->mapped = static_cast<uint8_t*>(mapped);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  try {
    blocks_.push_back(nullptr);
  } catch (const std::bad_alloc&) {
    device_.free_memory(block->memory);
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  blocks_.back() = std::move(block);
  carve(*blocks_.back());  // fits: the block is at least twice the piece
  return VK_SUCCESS;
}

template <typename Which>
void Blocks::free_empty(Which which) {
  for (size_t i = blocks_.size(); i-- > 0;) {
    if (blocks_[i]->used_granules || !which(*blocks_[i])) continue;
    device_.free_memory(blocks_[i]->memory);
    blocks_.erase(blocks_.begin() + i);
  }
}

void Blocks::give_back(const Piece& piece) {
  if (!piece.block) return;
  std::lock_guard<std::mutex> lock(mutex_);
  Block& b = *piece.block;
  b.mark(size_t(piece.offset / kGranule), size_t(piece.size / kGranule), false);
  if (b.used_granules) return;
  // Empty blocks are kept for their owner's next buffers, up to the device's limit for spare
  // memory: a client that makes and drops arrays of megabytes in bursts (PyOpenCL's
  // temporaries, enqueued ahead of the device) would otherwise get fresh memory for every
  // burst, a driver allocation and, on lavapipe, page faults and zeroing on the host.
  VkDeviceSize empty = 0;
  for (auto& other : blocks_)
    if (!other->used_granules) empty += other->granules * kGranule;
  if (empty > device_.spare_limit()) free_empty([&](const Block& x) { return &x == &b; });
}

void Blocks::drop(uint64_t owner) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_empty([&](const Block& b) { return b.owner == owner; });
}

void Blocks::drop_empty() {
  std::lock_guard<std::mutex> lock(mutex_);
  free_empty([](const Block&) { return true; });
}

}  // namespace vkcl::vk::detail
