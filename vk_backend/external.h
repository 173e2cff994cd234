// What a queue family ownership transfer between vkcl's compute family and another API
// (VK_QUEUE_FAMILY_EXTERNAL) needs in its barrier, for buffers and images alike.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::vk::detail {

struct ExternalTransfer {
  VkAccessFlags src_access, dst_access;
  uint32_t src_family, dst_family;
  VkPipelineStageFlags src_stage, dst_stage;
};

// |acquire|: from the other API to vkcl's kernels and copies; else back.
inline ExternalTransfer external_transfer(const DeviceInfo& device, bool acquire) {
  const uint32_t family = device.compute_queue_family;
  const VkAccessFlags work_access = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  const VkPipelineStageFlags work = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  if (acquire) return {0, work_access, VK_QUEUE_FAMILY_EXTERNAL, family, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, work};
  return {VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, 0, family, VK_QUEUE_FAMILY_EXTERNAL, work,
          VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT};
}

// Closes |copy|, the dup of |original| that a failed import was given. The spec leaves the fd
// with the caller when an import fails, but NVIDIA's driver (580) closes it anyway, and the
// number may then be another file's, opened meanwhile by the driver or another thread: it is
// closed only while it is still |original|'s file.
inline void close_failed_import(int copy, int original) {
  struct stat a, b;
  if (fstat(copy, &a) == 0 && fstat(original, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
    close(copy);
}

}  // namespace vkcl::vk::detail
