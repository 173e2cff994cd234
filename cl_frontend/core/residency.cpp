#include "core/residency.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "core/image.h"

namespace vkcl::cl {

namespace {

// Copies between devices go through the host a block at a time, so that they need little
// memory beside the copies themselves however large the buffer or image.
constexpr size_t kBlock = size_t(8) << 20;

// A host-visible buffer and a command stream on one device, made at the first block and used
// for every block.
struct Staging {
  std::shared_ptr<vk::Device> device;
  std::unique_ptr<vk::Buffer> buffer;
  std::unique_ptr<vk::CommandStream> stream;

  // |record| (which uses |buffer|, at least |size| bytes), run to completion.
  VkResult run(size_t size, const std::function<VkResult(vk::CommandStream&, vk::Buffer&)>& record) {
    VkResult r = VK_SUCCESS;
    if (!buffer || buffer->size() < size) {
      buffer.reset();
      r = vk::Buffer::create(device, size, vk::MemoryPlacement::HostVisible, &buffer);
    }
    if (r == VK_SUCCESS && !stream) r = vk::CommandStream::create(device, &stream);
    if (r == VK_SUCCESS) r = record(*stream, *buffer);
    uint64_t point = 0;
    if (r == VK_SUCCESS) r = stream->submit({}, &point);
    if (r == VK_SUCCESS) r = stream->wait(point);
    return r;
  }
};

// Copies bytes [at, at + size) of |from| (on |from_device|) into |to| (on |to_device|):
// host memcpy where both are mapped, else through staging buffers.
VkResult copy_across(const std::shared_ptr<vk::Device>& from_device, vk::Buffer& from,
                     const std::shared_ptr<vk::Device>& to_device, vk::Buffer& to, size_t at, size_t size) {
  const uint8_t* mapped_from = from.host_cached() ? static_cast<const uint8_t*>(from.mapped()) : nullptr;
  uint8_t* mapped_to = static_cast<uint8_t*>(to.mapped());
  if (mapped_from && mapped_to) {
    std::memcpy(mapped_to + at, mapped_from + at, size);
    return VK_SUCCESS;
  }
  Staging out{from_device, nullptr, nullptr}, in{to_device, nullptr, nullptr};
  for (size_t done = 0; done < size; done += kBlock) {
    const size_t n = std::min(kBlock, size - done), offset = at + done;
    const uint8_t* src = mapped_from ? mapped_from + offset : nullptr;
    if (!src) {
      VkResult r = out.run(n, [&](vk::CommandStream& s, vk::Buffer& b) { return s.copy_buffer(from, offset, b, 0, n); });
      if (r != VK_SUCCESS) return r;
      src = static_cast<const uint8_t*>(out.buffer->mapped());
    }
    if (mapped_to) {
      std::memcpy(mapped_to + offset, src, n);
      continue;
    }
    VkResult r = in.run(n, [&](vk::CommandStream& s, vk::Buffer& b) {
      std::memcpy(b.mapped(), src, n);
      return s.copy_buffer(b, 0, to, offset, n);
    });
    if (r != VK_SUCCESS) return r;
  }
  return VK_SUCCESS;
}

// Makes |at| the start of a range of |current| (a range ends at |end|, the buffer's size).
void split(std::map<size_t, uint64_t>& current, size_t at, size_t end) {
  if (at >= end) return;
  auto it = current.upper_bound(at);
  --it;  // the range holding |at| (current[0] always exists)
  if (it->first != at) current.emplace_hint(std::next(it), at, it->second);
}

// The copies sharing |i|'s memory (|i| among them).
uint64_t same_memory(const Copies& c, size_t i) {
  uint64_t set = 0;
  for (size_t j = 0; j < c.memory.size(); ++j)
    if (c.memory[j] == c.memory[i]) set |= uint64_t(1) << j;
  return set;
}

// An image's texels, whole, from |from| (on |from_device|) into |to| (on |to_device|) through
// staging buffers, a block of rows of a slice at a time.
VkResult copy_image_across(const std::shared_ptr<vk::Device>& from_device, vk::Image& from,
                           const std::shared_ptr<vk::Device>& to_device, vk::Image& to, const Image& image) {
  const size_t row = image.width() * image.element_size;
  const size_t rows = std::max<size_t>(1, std::min(image.height(), kBlock / row));
  Staging out{from_device, nullptr, nullptr}, in{to_device, nullptr, nullptr};
  for (size_t z = 0; z < image.depth(); ++z)
    for (size_t y = 0; y < image.height(); y += rows) {
      const size_t at[3] = {0, y, z}, size[3] = {image.width(), std::min(rows, image.height() - y), 1};
      const vk::ImageRegion region = image.vk_region(at, size);
      const size_t bytes = size[0] * size[1] * image.element_size;
      VkResult r = out.run(bytes, [&](vk::CommandStream& s, vk::Buffer& b) {
        return vk::copy_image_to_buffer(s, from, region, b, 0, 0, 0);
      });
      if (r == VK_SUCCESS)
        r = in.run(bytes, [&](vk::CommandStream& s, vk::Buffer& b) {
          std::memcpy(b.mapped(), out.buffer->mapped(), bytes);
          return vk::copy_buffer_to_image(s, b, 0, 0, 0, to, region);
        });
      if (r != VK_SUCCESS) return r;
    }
  return VK_SUCCESS;
}

cl_int use_image_on(Queue& queue, Image& image, bool writes, bool keep_contents) {
  Image::Current* c = image.current.get();
  if (!c) return CL_SUCCESS;
  if (cl_int e = image.ensure_on(*queue.context, queue.device)) return e;
  const size_t to = queue.context->index_of(queue.device);
  std::lock_guard<std::mutex> lock(c->mutex);
  if (!(c->devices >> to & 1)) {
    if (keep_contents) {
      const size_t from = size_t(__builtin_ctzll(c->devices));
      _cl_device_id* from_device = queue.context->devices[from];
      auto from_vk = queue.context->vk_device(from_device);
      if (!from_vk) return from_vk.error();
      // (An image from another holds its own view of the texels there only once made.)
      if (cl_int e = image.ensure_on(*queue.context, from_device)) return e;
      VkResult r = copy_image_across(*from_vk, image.on(*queue.context, from_device), queue.vk, image.on(queue), image);
      if (r != VK_SUCCESS) return cl_error_from(r, CL_OUT_OF_RESOURCES);
    }
    c->devices |= uint64_t(1) << to;
  }
  if (writes) c->devices = uint64_t(1) << to;
  return CL_SUCCESS;
}

}  // namespace

cl_int use_on(Queue& queue, Mem& mem, bool writes, bool keep_contents) {
  // A 2D image from a buffer is made from the buffer's copy before each use; a 1D buffer
  // image is its buffer's copies (below).
  if (mem.image && mem.image->from_buffer()) {
    if (cl_int e = mem.image->ensure_on(*queue.context, queue.device)) return e;
    return use_on(queue, *mem.parent, writes, keep_contents);
  }
  if (mem.image && !mem.image->is_buffer()) return use_image_on(queue, *mem.image, writes, keep_contents);
  Copies* c = mem.copies.get();
  if (!c) return CL_SUCCESS;
  const size_t to = queue.context->index_of(queue.device);
  const uint64_t here = same_memory(*c, to);
  const size_t begin = mem.offset, end = mem.offset + mem.size;
  std::lock_guard<std::mutex> lock(c->mutex);
  if (cl_int e = make_copy(*queue.context, *c, to)) return e;
  split(c->current, begin, c->size);
  split(c->current, end, c->size);
  for (auto it = c->current.find(begin); it != c->current.end() && it->first < end; ++it) {
    if (!(it->second >> to & 1)) {
      if (keep_contents) {
        const size_t from = size_t(__builtin_ctzll(it->second));
        auto from_device = queue.context->vk_device(queue.context->devices[from]);
        if (!from_device) return from_device.error();
        const size_t range_end = std::next(it) == c->current.end() ? c->size : std::next(it)->first;
        VkResult r = copy_across(*from_device, *c->buffers[from], queue.vk, *c->buffers[to], it->first,
                                 range_end - it->first);
        if (r != VK_SUCCESS) return cl_error_from(r, CL_OUT_OF_RESOURCES);
      }
      it->second |= here;
    }
    if (writes) it->second = here;
  }
  // Neighbours that came to agree are one range again.
  for (auto it = c->current.begin(); it != c->current.end();) {
    auto next = std::next(it);
    if (next != c->current.end() && next->second == it->second) c->current.erase(next);
    else it = next;
  }
  return CL_SUCCESS;
}

}  // namespace vkcl::cl
