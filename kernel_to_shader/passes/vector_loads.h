// vector-loads: loads of every component of one vector, read one by one in a block with no
// write between them, become one load of the vector. LLVM scalarises a vector load whose
// components are only used one at a time (CLBlast's Xgemm reads its float4 tiles so); each
// scalar load is then an access of its own in the driver (on llvmpipe, a loop over the lanes
// per load of local memory), where the vector is one.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace vkcl::k2s {

std::unique_ptr<Pass> create_vector_loads_pass();

}  // namespace vkcl::k2s
