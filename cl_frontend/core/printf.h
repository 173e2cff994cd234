// printf output: the records a kernel wrote into its printf buffer, formatted on the host
// when the command completes (OpenCL C 6.15.14; the records' layout is in translate.h).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
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

// printf buffers of one kernel, reused from launch to launch (a launch must not allocate
// a megabyte of device memory each time).
class PrintfPool {
 public:
  // A buffer of at least |bytes| with its header reset, or nullptr with |*result| set.
  std::shared_ptr<vk::Buffer> take(const std::shared_ptr<vk::Device>& device, size_t bytes,
                                   VkResult* result);
  void give_back(std::shared_ptr<vk::Buffer> buffer);

 private:
  std::mutex mutex_;
  std::vector<std::shared_ptr<vk::Buffer>> free_;
};

// Owns one launch's printf buffer; prints its records to stdout when destroyed, which the
// queue does when the command has completed (commands retire in order), then returns the
// buffer to its pool.
class PrintfOutput {
 public:
  PrintfOutput(std::shared_ptr<vk::Buffer> buffer, std::vector<k2s::PrintfCall> calls,
               std::shared_ptr<PrintfPool> pool)
      : buffer_(std::move(buffer)), calls_(std::move(calls)), pool_(std::move(pool)) {}
  ~PrintfOutput();
  PrintfOutput(const PrintfOutput&) = delete;
  PrintfOutput& operator=(const PrintfOutput&) = delete;

 private:
  std::shared_ptr<vk::Buffer> buffer_;
  std::vector<k2s::PrintfCall> calls_;
  std::shared_ptr<PrintfPool> pool_;
};

}  // namespace vkcl::cl
