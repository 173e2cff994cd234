// single-block-loops: a loop tested at its header whose body is one straight line of blocks
// becomes a guard and a loop of one block tested at its end (`if (c) do { body } while (c)`),
// its own continue target.
//
// Mesa's SPIR-V front end (vtn, every Mesa Vulkan driver) gives a loop whose continue target
// is another block than its header a flag, set after the first pass, and runs the continue
// construct under it at the top of the next pass; llvmpipe then carries every value the loop
// changes through that flag's selects and the execution mask twice per pass. A straight
// 4-wide mad loop on lavapipe ran 1.4x as long as the same loop in one block.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace vkcl::k2s {

std::unique_ptr<Pass> create_single_block_loops_pass();

}  // namespace vkcl::k2s
