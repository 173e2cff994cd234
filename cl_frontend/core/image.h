// Image objects: a cl_mem whose |image| is set. Its texels live in a vk::Image (optimal
// tiling, layout GENERAL); the host reaches them through staging buffers, so host pitches are
// free. Coordinates follow the OpenCL API: (x, y, z) where y is the layer of a 1D array and z
// the layer of a 2D array.
#pragma once

#include <CL/cl.h>

#include <map>
#include <mutex>
#include <memory>
#include <vector>

#include "core/memory.h"
#include "core/queue.h"
#include "core/result.h"
#include "vkcl/vk_backend/image.h"

namespace vkcl::cl {

struct Image {
  cl_image_format format{};
  // As the application described it, image_row_pitch and image_slice_pitch being the pitches
  // of its host memory (computed when it gave 0; 0 without host memory).
  cl_image_desc desc{};
  size_t element_size = 0;
  std::unique_ptr<vk::Image> storage;
  // In a context of several devices, the image on each other device (others[i - 1] on the
  // context's device i, made by ensure_on when a command first uses the image there) and
  // which of them hold the texels (shared with the images made from this one: one memory per
  // device). Kernels and commands make their device's current (core/residency.h). A 2D
  // image from a buffer has one per device too, each made from the buffer's copy there; a 1D
  // buffer image is its buffer's copies.
  std::vector<std::unique_ptr<vk::Image>> others;
  std::mutex others_mutex;  // held while one is made
  std::vector<std::unique_ptr<vk::TexelBufferView>> other_texel_views;
  struct Current {
    std::mutex mutex;
    uint64_t devices = 0;  // bit i: the image on device i holds the texels
  };
  std::shared_ptr<Current> current;
  // Makes the image on |device| if it has none yet (an image from an image: over the other's
  // there); CL_MEM_OBJECT_ALLOCATION_FAILURE without memory for it.
  cl_int ensure_on(_cl_context& context, const _cl_device_id* device);
  // The image of |device| (of |context|, which ensure_on made) and of |queue|'s device.
  vk::Image& on(const _cl_context& context, const _cl_device_id* device) const;
  vk::Image& on(const Queue& queue) const { return on(*queue.context, queue.device); }
  VkBufferView texel_view_on(const _cl_context& context, const _cl_device_id* device) const;
  // A 1D buffer image has no vk::Image: its texels are the buffer's (desc.mem_object), which
  // its _cl_mem shares as its own storage (offset and parent as a sub-buffer's), seen by
  // kernels through this view. Host commands on it are buffer commands.
  std::unique_ptr<vk::TexelBufferView> texel_view;
  bool is_buffer() const { return desc.image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER; }
  // A 2D image from a buffer (cl_khr_image2d_from_buffer): its texels are the buffer's rows,
  // desc.image_row_pitch bytes apart (its _cl_mem's parent is the buffer). |storage| is a
  // copy for kernels and image commands, made from the buffer before each command that uses
  // it and written back after each that may write it (sync_from_buffer, sync_to_buffer); the
  // host reads and writes the buffer's rows.
  bool from_buffer() const {
    return desc.image_type == CL_MEM_OBJECT_IMAGE2D && desc.mem_object && !desc.mem_object->image;
  }
  // A 2D image from another 2D image (desc.mem_object, its _cl_mem's parent): |storage| is a
  // vk::Image::alias of the other's, its texels seen in this image's format.
  bool from_image() const { return desc.mem_object && desc.mem_object->image; }
  // Host copies handed out by clEnqueueMapImage: mapped pointer -> what it covers.
  struct Mapping {
    size_t origin[3];
    size_t region[3];
    size_t row_pitch, slice_pitch;
    cl_map_flags flags;
    std::vector<uint8_t> shadow;  // empty when the pointer is inside the USE_HOST_PTR memory
  };
  std::multimap<void*, Mapping> mappings;  // guarded by the _cl_mem's map_mutex

  // Extent of each dimension as the API counts it (1 where the type has none).
  size_t width() const { return desc.image_width; }
  size_t height() const;  // rows: layers of a 1D array
  size_t depth() const;   // slices: layers of a 2D array
  bool is_1d_array() const { return desc.image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY; }
  // Where |origin| and |region| (API coordinates) lie in the Vulkan image.
  vk::ImageRegion vk_region(const size_t* origin, const size_t* region) const;
  vk::ImageRegion whole() const;  // every texel of every layer
  // The host layout the API means by |row_pitch| and |slice_pitch| for |region| (0 means
  // tightly packed): the byte step between rows (y) and slices (z) of the region.
  void host_steps(const size_t* region, size_t row_pitch, size_t slice_pitch, size_t* y_step,
                  size_t* z_step) const;
  // CL_IMAGE_ROW_PITCH: the application's host memory's where it gave one, else tightly
  // packed rows.
  size_t row_pitch() const { return desc.image_row_pitch ? desc.image_row_pitch : width() * element_size; }
  // Bytes of all texels (CL_MEM_SIZE).
  size_t size() const { return element_size * width() * height() * depth(); }
};

// Creates an image of |format| and |desc| (checked by the caller) in |context|'s device
// memory, or over the buffer desc.mem_object for a 1D buffer image; |desc|'s pitches are the
// host memory's, already computed, and |host_ptr| is copied in for CL_MEM_COPY_HOST_PTR and
// CL_MEM_USE_HOST_PTR.
// With |imported|, the image's texels are memory another API exported (cl_khr_external_memory,
// an opaque fd; |host_ptr| null): the other devices of the context have copies of their own.
struct ImportedMemory {
  cl_external_memory_handle_type_khr type;
  int fd;
};
Result<_cl_mem*> create_image(_cl_context* context, cl_mem_flags flags, const cl_image_format& format,
                              const cl_image_desc& desc, void* host_ptr,
                              const ImportedMemory* imported = nullptr);

// GPU work on a 2D image from a buffer (Image::from_buffer): records the copy of the buffer's
// texels into the image's storage, or back, each after a barrier.
cl_int sync_from_buffer(Queue& queue, Mem& image);
cl_int sync_to_buffer(Queue& queue, Mem& image);

// Host work (the queue synchronised): copies |region| at |origin| of |image| to or from host
// memory laid out with |row_pitch| and |slice_pitch| (0: tightly packed).
cl_int read_image(Queue& queue, Mem& image, const size_t* origin, const size_t* region,
                  size_t row_pitch, size_t slice_pitch, void* dst);
cl_int write_image(Queue& queue, Mem& image, const size_t* origin, const size_t* region,
                   size_t row_pitch, size_t slice_pitch, const void* src);

// GPU commands. Each may need a buffer of its own until it completes (an unaligned buffer
// offset, a copy between image types Vulkan cannot copy directly, a fill pattern): it is made
// by prepare_* when the command is enqueued and kept with the command.
using Scratch = std::shared_ptr<vk::Buffer>;
Result<Scratch> prepare_copy_image(Queue& queue, Mem& src, Mem& dst, const size_t* region);
cl_int copy_image(Queue& queue, Mem& src, Mem& dst, const size_t* src_origin,
                  const size_t* dst_origin, const size_t* region, const Scratch& scratch);
Result<Scratch> prepare_image_buffer_copy(Queue& queue, Mem& image, Mem& buffer, size_t offset,
                                          const size_t* region);
cl_int copy_image_to_buffer(Queue& queue, Mem& image, Mem& buffer, const size_t* origin,
                            const size_t* region, size_t offset, const Scratch& scratch);
cl_int copy_buffer_to_image(Queue& queue, Mem& buffer, Mem& image, size_t offset,
                            const size_t* origin, const size_t* region, const Scratch& scratch);
// |texel| is one element in the image's format (pack_fill_color).
Result<Scratch> prepare_fill_image(Queue& queue, Mem& image, const uint8_t* texel, const size_t* region);
cl_int fill_image(Queue& queue, Mem& image, const size_t* origin, const size_t* region,
                  const Scratch& pattern);

}  // namespace vkcl::cl
