// vulkan-memory-model: moves a lowered module from the GLSL450 memory model to Vulkan's, where
// the device has it (TargetCaps::vulkan_memory_model). OpenCL's global and local memory are
// shared between work-items, so every access to them is non-private (NonPrivatePointer), and
// acquires and releases make those accesses visible and available (MakeVisible,
// MakeAvailable): what OpenCL's fences, barriers and ordered atomics promise, stated in the
// terms Vulkan drivers optimise by. Without the pass the module keeps GLSL450.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace vkcl::k2s {

std::unique_ptr<Pass> create_vulkan_memory_model_pass();

}  // namespace vkcl::k2s
