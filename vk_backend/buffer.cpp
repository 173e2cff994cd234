#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "blocks.h"
#include "external.h"
#include "inject.h"
#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::vk {

namespace {
constexpr VkBufferUsageFlags kUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                      VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
                                      VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                                      // __constant arguments are read as uniform buffers.
                                      VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                                      // OpenCL 1D buffer images view buffers as texels.
                                      VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                                      VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT;

uint64_t address_of(VkDevice device, VkBuffer buffer) {
  VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  info.buffer = buffer;
  return vkGetBufferDeviceAddress(device, &info);
}
}  // namespace

VkBufferUsageFlags buffer_usage() { return kUsage; }


VkResult Buffer::create(std::shared_ptr<Device> device, VkDeviceSize size,
                        MemoryPlacement placement, std::unique_ptr<Buffer>* out, bool reusable,
                        uint64_t owner) {
  if (size == 0) return VK_ERROR_UNKNOWN;
  if (!vulkan_usable()) return VK_ERROR_DEVICE_LOST;
  if (size > device->info().max_allocation_size) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  std::unique_ptr<Buffer> b(new Buffer());
  b->device_ = device;
  b->size_ = size;
  b->placement_ = placement;
  Device::Spare spare;
  b->owner_ = owner;
  const bool piece = reusable && size <= detail::Blocks::kLargestPiece;
  if (reusable && !piece && device->take_spare(size, placement, owner, &spare)) {
    b->buffer_ = spare.buffer;
    b->memory_ = spare.memory;
    b->address_ = spare.address;
    b->mapped_ = spare.mapped;
    b->host_cached_ = spare.host_cached;
    b->reusable_ = true;
    *out = std::move(b);
    return VK_SUCCESS;
  }
  VkDevice d = device->handle();
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  // Whole 32-bit words: kernels on devices without 8/16-bit storage read the word holding a
  // buffer's last byte.
  info.size = (size + 3) & ~VkDeviceSize(3);
  // A piece's buffer spans all of it, so that zeroing the buffer zeroes the piece.
  if (piece) info.size = (size + detail::Blocks::kGranule - 1) & ~(detail::Blocks::kGranule - 1);
  info.usage = kUsage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external.handleTypes = device->buffer_handle_types();
  if (external.handleTypes) info.pNext = &external;
  if (detail::injected_object_failure()) return VK_ERROR_OUT_OF_HOST_MEMORY;
  VkResult r = vkCreateBuffer(d, &info, nullptr, &b->buffer_);
  if (r != VK_SUCCESS) return r;
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(d, b->buffer_, &req);
  uint32_t type;
  const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                        VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  if (placement == MemoryPlacement::DeviceLocal)
    type = device->find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                                    VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | visible);
  else
    type = device->find_memory_type(req.memoryTypeBits, visible,
                                    visible | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  if (type == UINT32_MAX) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  const VkMemoryPropertyFlags properties = device->info().memory.memoryTypes[type].propertyFlags;
  b->host_cached_ = properties & VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  detail::Piece p;
  // A block that cannot be had (memory short for a whole one) leaves the buffer its own.
  if (piece && device->blocks().take(type, owner, req.size, req.alignment, &p) == VK_SUCCESS) {
    b->block_ = p.block;
    b->piece_offset_ = p.offset;
    b->piece_size_ = p.size;
    r = vkBindBufferMemory(d, b->buffer_, p.memory, p.offset);
    if (r != VK_SUCCESS) return r;
    b->address_ = address_of(d, b->buffer_);
    b->mapped_ = p.mapped;
    b->fresh_ = p.fresh;
    *out = std::move(b);
    return VK_SUCCESS;
  }
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &flags};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = type;
  bool zeroed = false;
  r = device->allocate_buffer_memory(alloc, &b->memory_, &zeroed);
  if (r != VK_SUCCESS) return r;
  r = vkBindBufferMemory(d, b->buffer_, b->memory_, 0);
  if (r != VK_SUCCESS) return r;
  b->address_ = address_of(d, b->buffer_);
  if (properties & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    r = vkMapMemory(d, b->memory_, 0, VK_WHOLE_SIZE, 0, &b->mapped_);
    if (r != VK_SUCCESS) return r;
  }
  b->reusable_ = reusable;
  b->fresh_ = !zeroed;
  *out = std::move(b);
  return VK_SUCCESS;
}

VkResult Buffer::create_unbound(std::shared_ptr<Device> device, VkExternalMemoryHandleTypeFlags handle_types,
                                VkDeviceSize size, std::unique_ptr<Buffer>* out) {
  std::unique_ptr<Buffer> b(new Buffer());
  b->device_ = device;
  b->size_ = size;
  VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external.handleTypes = handle_types;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &external};
  info.size = size;
  info.usage = kUsage;
  if (detail::injected_object_failure()) return VK_ERROR_OUT_OF_HOST_MEMORY;
  VkResult r = vkCreateBuffer(device->handle(), &info, nullptr, &b->buffer_);
  if (r != VK_SUCCESS) return r;
  *out = std::move(b);
  return VK_SUCCESS;
}

VkResult Buffer::import_host(std::shared_ptr<Device> device, void* host_pointer,
                             VkDeviceSize size, std::unique_ptr<Buffer>* out) {
  if (!vulkan_usable()) return VK_ERROR_DEVICE_LOST;
  const DeviceInfo& di = device->info();
  VkDeviceSize align = di.min_imported_host_pointer_alignment;
  if (!di.external_memory_host || !align || reinterpret_cast<uintptr_t>(host_pointer) % align ||
      size % align || size == 0)
    return VK_ERROR_FEATURE_NOT_PRESENT;
  std::unique_ptr<Buffer> b;
  VkResult r = create_unbound(device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, size, &b);
  if (r != VK_SUCCESS) return r;
  VkDevice d = device->handle();
  VkMemoryHostPointerPropertiesEXT pointer{VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
  r = vkGetMemoryHostPointerPropertiesEXT(d, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
                                          host_pointer, &pointer);
  if (r != VK_SUCCESS) return VK_ERROR_FEATURE_NOT_PRESENT;
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(d, b->buffer_, &req);
  uint32_t type = device->find_memory_type(req.memoryTypeBits & pointer.memoryTypeBits,
                                           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0);
  if (type == UINT32_MAX) return VK_ERROR_FEATURE_NOT_PRESENT;
  VkImportMemoryHostPointerInfoEXT import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT};
  import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  import.pHostPointer = host_pointer;
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO, &import};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &flags};
  alloc.allocationSize = std::max(size, req.size);
  alloc.memoryTypeIndex = type;
  r = vkAllocateMemory(d, &alloc, nullptr, &b->memory_);
  if (r != VK_SUCCESS) return VK_ERROR_FEATURE_NOT_PRESENT;
  r = vkBindBufferMemory(d, b->buffer_, b->memory_, 0);
  if (r != VK_SUCCESS) return r;
  b->address_ = address_of(d, b->buffer_);
  b->mapped_ = host_pointer;
  b->host_cached_ = true;  // the application's own memory
  *out = std::move(b);
  return VK_SUCCESS;
}

VkResult Buffer::import_fd(std::shared_ptr<Device> device, VkExternalMemoryHandleTypeFlagBits type, int fd,
                           VkDeviceSize size, std::unique_ptr<Buffer>* out) {
  if (!vulkan_usable()) return VK_ERROR_DEVICE_LOST;
  if (!(device->info().importable_buffer_handles & type) || fd < 0 || size == 0)
    return VK_ERROR_INVALID_EXTERNAL_HANDLE;
  // Drivers trust the handle (lavapipe reads a pipe given as a memory fd for ever, and maps a
  // file shorter than the buffer, which then faults): what can never hold memory, or holds
  // too little of it, is refused here.
  struct stat st;
  if (fstat(fd, &st) != 0 || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISDIR(st.st_mode) ||
      (S_ISREG(st.st_mode) && VkDeviceSize(st.st_size) < size))
    return VK_ERROR_INVALID_EXTERNAL_HANDLE;
  std::unique_ptr<Buffer> b;
  VkResult r = create_unbound(device, type, size, &b);
  if (r != VK_SUCCESS) return r;
  VkDevice d = device->handle();
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(d, b->buffer_, &req);
  uint32_t types = req.memoryTypeBits;
  if (type != VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT) {
    VkMemoryFdPropertiesKHR fd_properties{VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR};
    if (vkGetMemoryFdPropertiesKHR(d, type, fd, &fd_properties) != VK_SUCCESS) return VK_ERROR_INVALID_EXTERNAL_HANDLE;
    types &= fd_properties.memoryTypeBits;
  }
  // An opaque fd's memory must be imported with the exporter's size and memory type, which
  // OpenCL does not pass: the buffer's own size, device-local types first (what a renderer
  // shares), each tried until the driver takes one.
  const VkPhysicalDeviceMemoryProperties& memory = device->info().memory;
  std::vector<uint32_t> order;
  for (int pass = 0; pass < 2; ++pass)
    for (uint32_t t = 0; t < memory.memoryTypeCount; ++t)
      if ((types & (1u << t)) &&
          bool(memory.memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) == (pass == 0))
        order.push_back(t);
  for (uint32_t t : order) {
    // Vulkan owns an imported fd; the application keeps its own.
    int copy = dup(fd);
    if (copy < 0) return VK_ERROR_INVALID_EXTERNAL_HANDLE;
    VkImportMemoryFdInfoKHR import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR};
    import.handleType = type;
    import.fd = copy;
    VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO, &import};
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &flags};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = t;
    if (detail::injected_object_failure()) {
      close(copy);
      return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    r = vkAllocateMemory(d, &alloc, nullptr, &b->memory_);
    if (r == VK_SUCCESS) {
      b->host_cached_ = memory.memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
      if (memory.memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
        if (vkMapMemory(d, b->memory_, 0, VK_WHOLE_SIZE, 0, &b->mapped_) != VK_SUCCESS) b->mapped_ = nullptr;
      break;
    }
    detail::close_failed_import(copy, fd);
    b->memory_ = VK_NULL_HANDLE;
  }
  if (!b->memory_) return VK_ERROR_INVALID_EXTERNAL_HANDLE;
  if ((r = vkBindBufferMemory(d, b->buffer_, b->memory_, 0)) != VK_SUCCESS) return r;
  b->address_ = address_of(d, b->buffer_);
  *out = std::move(b);
  return VK_SUCCESS;
}

VkResult Buffer::external_ownership(CommandStream& stream, bool acquire) const {
  VkCommandBuffer cb;
  VkResult r = stream.command_buffer(&cb);
  if (r != VK_SUCCESS) return r;
  const detail::ExternalTransfer t = detail::external_transfer(device_->info(), acquire);
  VkBufferMemoryBarrier barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  barrier.srcAccessMask = t.src_access;
  barrier.dstAccessMask = t.dst_access;
  barrier.srcQueueFamilyIndex = t.src_family;
  barrier.dstQueueFamilyIndex = t.dst_family;
  barrier.buffer = buffer_;
  barrier.offset = 0;
  barrier.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(cb, t.src_stage, t.dst_stage, 0, 0, nullptr, 1, &barrier, 0, nullptr);
  return VK_SUCCESS;
}

Buffer::~Buffer() {
  if (!device_ || !vulkan_usable()) return;
  if (reusable_ && buffer_ && memory_) {
    device_->keep_spare({buffer_, memory_, size_, placement_, address_, mapped_, host_cached_, owner_});
    return;
  }
  VkDevice d = device_->handle();
  if (buffer_) vkDestroyBuffer(d, buffer_, nullptr);
  if (memory_) device_->free_memory(memory_);
  if (block_) device_->blocks().give_back(block_, piece_offset_, piece_size_);
}

}  // namespace vkcl::vk
