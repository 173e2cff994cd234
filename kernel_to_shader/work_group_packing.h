// Which kernels may run several of their work-groups in one Vulkan workgroup
// (KernelInterface::packable).
//
// A work-group smaller than the device's SIMD width wastes the rest of it: llvmpipe runs a
// work-group of one work-item in one lane of eight (hashcat asks every CPU device for
// work-groups of one), and a GPU runs it in one lane of a warp. A kernel whose work-groups
// never meet (no barrier, no __local memory, no work-group or sub-group function) cannot
// tell whether its groups share a Vulkan workgroup, so the frontend packs several into
// one, and the translated kernel computes its OpenCL ids from the packing.
#pragma once

#include <unordered_set>

#include "ir/module.h"

namespace vkcl::k2s {

// The entry point functions of |module| (Kernel model) whose work-groups do not meet: no
// function they reach has a barrier, a work-group or sub-group instruction, a sub-group
// built-in, a pointer to __local memory or a call to a function the module does not define.
std::unordered_set<uint32_t> packable_kernels(const ir::Module& module);

}  // namespace vkcl::k2s
