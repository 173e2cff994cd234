// What a module's code does besides computing: whether running its kernels again from the
// start can change what a first run left (KernelInterface::rerunnable).
#pragma once

#include "ir/module.h"

namespace vkcl::k2s {

// True when no function of |module| writes global memory (stores, copies, vstore, async
// copies to global, through global or generic pointers), does atomics outside local memory,
// writes a read_write image, prints, or calls a function the module does not define.
bool writes_only_local_memory_and_images(const ir::Module& module);

}  // namespace vkcl::k2s
