#include "core/transfer.h"

#include <cstring>

namespace vkcl::cl {

cl_int read_from_buffer(Queue& queue, Mem& mem, size_t offset, size_t size, void* dst) {
  if (size == 0) return CL_SUCCESS;
  if (uint8_t* view = mem.host_read_view()) {
    std::memcpy(dst, view + offset, size);
    return CL_SUCCESS;
  }
  std::unique_ptr<vk::Buffer> staging;
  VkResult r = vk::Buffer::create(queue.vk, size, vk::MemoryPlacement::HostVisible, &staging);
  if (r != VK_SUCCESS) return cl_error_from(r);
  r = queue.stream->copy_buffer(*mem.storage, mem.offset + offset, *staging, 0, size);
  if (r != VK_SUCCESS) return cl_error_from(r);
  cl_int e = queue.sync();
  if (e != CL_SUCCESS) return e;
  std::memcpy(dst, staging->mapped(), size);
  return CL_SUCCESS;
}

cl_int write_to_buffer(Queue& queue, Mem& mem, size_t offset, size_t size, const void* src) {
  if (size == 0) return CL_SUCCESS;
  if (uint8_t* view = mem.host_view()) {
    std::memcpy(view + offset, src, size);
    return CL_SUCCESS;
  }
  std::unique_ptr<vk::Buffer> staging;
  VkResult r = vk::Buffer::create(queue.vk, size, vk::MemoryPlacement::HostVisible, &staging);
  if (r != VK_SUCCESS) return cl_error_from(r);
  std::memcpy(staging->mapped(), src, size);
  r = queue.stream->copy_buffer(*staging, 0, *mem.storage, mem.offset + offset, size);
  if (r != VK_SUCCESS) return cl_error_from(r);
  return queue.sync();
}

}  // namespace vkcl::cl
