// A kernel command of a command buffer that clUpdateMutableCommandsKHR may change
// (cl_khr_command_buffer_mutable_dispatch 0.9.0): its launch (a clone of the kernel holding
// the arguments, and the sizes) is read each time the command is made, so a mutable command
// is never recorded once into a Vulkan secondary (GpuCommand::fixed): each execution records
// it as it is then. Its command buffer owns it.
#pragma once

#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <array>
#include <mutex>
#include <vector>

#include "core/kernel.h"
#include "core/object.h"

struct _cl_command_buffer_khr;

struct _cl_mutable_command_khr
    : vkcl::cl::Object<_cl_mutable_command_khr, vkcl::cl::ObjectKind::MutableCommand> {
  using Sizes = std::array<size_t, 3>;
  struct Launch {
    vkcl::cl::Ref<_cl_kernel> arguments;  // a clone of the kernel, as updated
    Sizes offset{}, global{}, local{};
    bool has_offset = false, has_global = false, has_local = false;  // given (else NULL)
  };

  _cl_command_buffer_khr* buffer = nullptr;  // which owns this
  std::vector<cl_ndrange_kernel_command_properties_khr> properties;  // as given; empty for NULL
  cl_mutable_dispatch_fields_khr fields = 0;  // what may be updated
  vkcl::cl::Ref<_cl_kernel> kernel;  // the application's, as recorded
  cl_uint work_dim = 1;

  Launch launch() {
    std::lock_guard<std::mutex> lock(mutex_);
    return launch_;
  }
  void set_launch(Launch launch) {
    std::lock_guard<std::mutex> lock(mutex_);
    launch_ = std::move(launch);
  }

 private:
  std::mutex mutex_;
  Launch launch_;
};
