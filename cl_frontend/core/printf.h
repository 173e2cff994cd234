// printf output: the records a kernel wrote into its printf buffer, formatted on the host
// when the command completes (OpenCL C 6.15.14; the records' layout is in translate.h).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "vkcl/kernel_to_shader/translate.h"
#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::cl {

// CL_DEVICE_PRINTF_BUFFER_SIZE: the full profile's minimum.
constexpr size_t kPrintfBufferSize = 1024 * 1024;

// The text of the records in |buffer| ([u32 used][u32 capacity][records]). Records that did
// not fit the capacity were dropped by the kernel and are not printed.
std::string format_printf_buffer(const uint8_t* buffer,
                                 const std::vector<k2s::PrintfCall>& calls);

// A printf buffer of at least |bytes| with its header reset, or nullptr with |*result| set.
// Its memory is a piece of a block of |owner| | vk::kInternalOwner (|owner|: the kernel's
// context's spare owner), back there once the launch has printed, so that a launch costs no
// allocation of its own, and a burst of launches leaves nothing behind with the kernel.
std::shared_ptr<vk::Buffer> take_printf_buffer(const std::shared_ptr<vk::Device>& device, uint64_t owner,
                                               size_t bytes, VkResult* result);

// Owns one launch's printf buffer; prints its records to stdout when destroyed, which the
// queue does when the command has completed (commands retire in order).
class PrintfOutput {
 public:
  PrintfOutput(std::shared_ptr<vk::Buffer> buffer, std::vector<k2s::PrintfCall> calls)
      : buffer_(std::move(buffer)), calls_(std::move(calls)) {}
  ~PrintfOutput();
  PrintfOutput(const PrintfOutput&) = delete;
  PrintfOutput& operator=(const PrintfOutput&) = delete;

 private:
  std::shared_ptr<vk::Buffer> buffer_;
  std::vector<k2s::PrintfCall> calls_;
};

}  // namespace vkcl::cl
