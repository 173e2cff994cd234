// Which __constant kernel argument a pointer reads.
//
// A __constant argument stays a device address, but where a load's pointer is known to point
// into one argument's buffer, the load may instead read a uniform buffer bound to that buffer
// (lower_memory.cpp, TargetCaps::constant_buffer_words). Drivers read uniform buffers better:
// lavapipe (Mesa 22) loads a device address lane by lane inside any branch or loop, even
// where every lane reads the same field, and a kernel such as mandelbulber's, which reads its
// parameter block in hundreds of places, became thousands of LLVM loops (95 s to build); a
// uniform buffer read at an offset every lane shares is one scalar load.
//
// The analysis follows pointers over the whole module: a kernel's UniformConstant pointer
// parameter k is argument k; an access chain, bit cast or copy points where its base does; a
// phi or select where all its operands agree; a function's parameter where all its calls'
// arguments agree; a load of a private variable stored once where the stored pointer does
// (unoptimised code keeps pointers so). A program-scope __constant variable points into the program's data
// (kProgramConstantsBinding), read as a uniform buffer likewise. Anything else (a pointer
// loaded from memory or made from an integer) is not followed.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "ir/module.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::k2s {

// Input pointer id -> the index of the kernel argument it points into (the same index in
// every kernel that reaches it), or kProgramConstantsBinding. Only arguments below
// kMaxConstantBufferArgument count, and only in kernels with fewer than |max_buffers|
// __constant pointer arguments (the program's data takes one more).
std::unordered_map<uint32_t, uint32_t> constant_argument_pointers(const ir::Module& module,
                                                                 uint32_t max_buffers);

}  // namespace vkcl::k2s
