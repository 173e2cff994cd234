// Small buffers placed in large shared allocations. Drivers limit how many allocations a
// device may hold at once (maxMemoryAllocationCount: 4096 on many GPUs), and each one costs a
// driver call and a mapping; clients that make thousands of small buffers would run out or
// pay for each. A block is one allocation of one memory type for one owner (a CL context:
// what one context released never shows up in another's buffer), cut into 256-byte granules
// handed out first-fit and tracked by a bitmap, so that giving a piece back never allocates
// (it happens in destructors).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::vk::detail {

struct Block;

// Where a buffer's bytes are in a block.
struct Piece {
  Block* block = nullptr;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize size = 0;
  void* mapped = nullptr;  // the piece's first byte, where the block is mapped
  // Whether some of its bytes were never handed out in this block before and are not
  // zeroed (the block is not mapped): they may hold what another part of the process freed.
  bool fresh = false;
};

// Images' blocks are their owner's with this bit set, apart from its buffers' (a linear and
// an optimal resource side by side in one allocation would have to keep
// bufferImageGranularity apart).
constexpr uint64_t kImageOwner = uint64_t(1) << 63;

class Blocks {
 public:
  // The largest buffer placed in a block; larger ones get an allocation of their own.
  static constexpr VkDeviceSize kLargestPiece = kLargestBufferPiece;
  static constexpr VkDeviceSize kGranule = 256;  // pieces start and end at multiples of it

  explicit Blocks(Device& device);
  ~Blocks();  // frees every block (the device is idle)
  Blocks(const Blocks&) = delete;
  Blocks& operator=(const Blocks&) = delete;

  // |size| bytes aligned to |alignment| in a block of memory type |type| for |owner|; a new
  // block is allocated (Device::allocate_memory) when none has room. |zero_new| false: the
  // caller overwrites the whole piece before anything reads it (images: their clear), so
  // bytes never handed out are not zeroed on the host.
  VkResult take(uint32_t type, uint64_t owner, VkDeviceSize size, VkDeviceSize alignment, Piece* out,
                bool zero_new = true);
  // Never allocates. A block left empty is kept for the owner's next buffers while the empty
  // blocks stay within Device::spare_limit().
  void give_back(const Piece& piece);
  void give_back(Block* block, VkDeviceSize offset, VkDeviceSize size) {
    give_back(Piece{block, VK_NULL_HANDLE, offset, size});
  }
  void drop(uint64_t owner);  // frees the owner's empty blocks
  void drop_empty();          // frees every empty block

 private:
  Device& device_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Block>> blocks_;
  // Frees the empty blocks for which |which| holds; mutex_ held.
  template <typename Which>
  void free_empty(Which which);
};

}  // namespace vkcl::vk::detail
