// What a module's code does besides computing: whether running its kernels again from the
// start can change what a first run left (KernelInterface::rerunnable).
#pragma once

#include "ir/module.h"

namespace vkcl::k2s {

// True when no function of |module| writes global memory (stores, copies, vstore, async
// copies to global, through global or generic pointers), does atomics outside local memory,
// writes a read_write image, prints, or calls a function the module does not define.
bool writes_only_local_memory_and_images(const ir::Module& module);

// True when |module| writes global memory only through the parameters of its kernels: no
// pointer is loaded from memory or made from an integer, no program-scope __global variable
// exists, and nothing prints or calls a function the module does not define. |*read_only| then
// holds, per entry point and parameter, whether LLVM proved it never written through
// (FuncParamAttr NoWrite, from readonly); it is empty for an entry point with a global (or
// generic) pointer parameter that is not NoCapture (LLVM's nocapture), as the kernel may then
// write through copies of it.
bool writes_global_only_through_parameters(const ir::Module& module,
                                           std::vector<std::vector<bool>>* read_only);

}  // namespace vkcl::k2s
