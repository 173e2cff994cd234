// Checked mode (VKCL_CHECKED=1, like a sanitizer): kernels check each access they make
// through a pointer against what their launch may reach (kernel_to_shader/passes/
// checked_memory.cpp); the launch gives them the table of those objects and, once it has
// run, names the first access that failed and fails the command.
#pragma once

#include <CL/cl.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"
#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::cl {

// Whether VKCL_CHECKED=1 asks for checked kernels.
bool checked_mode();

// Something a checked access may reach: global memory [begin, end) by device address, or
// local memory [begin, end) by offset.
struct CheckedObject {
  std::string name;  // "argument 0 'a' (a buffer)"
  uint64_t begin = 0, end = 0;
  uint32_t argument = UINT32_MAX;  // the kernel argument it is, if one
};

class CheckReport {
 public:
  struct Launch {
    std::string kernel;
    std::vector<std::string> sites;        // k2s::KernelInterface::check_sites
    std::vector<uint32_t> site_arguments;  // and check_site_arguments
    std::vector<CheckedObject> global;     // listed in the table
    std::vector<CheckedObject> local;      // listed in the table too
    uint64_t local_bytes = 0, private_bytes = 0;
  };
  // A zeroed table listing |launch.global|; its device address goes to the argument block.
  static Result<std::shared_ptr<CheckReport>> create(const std::shared_ptr<vk::Device>& device,
                                                     Launch launch);
  uint64_t table_address() const { return table_->address(); }
  // Once the command has completed: CL_COMPLETE, or CL_OUT_OF_RESOURCES when an access
  // failed, which the first call also describes on stderr.
  cl_int command_status();
  ~CheckReport();

 private:
  CheckReport() = default;
  std::string describe(uint32_t code, uint64_t where, uint32_t bytes, uint32_t failed) const;
  std::unique_ptr<vk::Buffer> table_;
  Launch launch_;
  std::once_flag read_;
  cl_int status_ = CL_COMPLETE;
};

}  // namespace vkcl::cl
