// loop-variables: the values a loop carries from pass to pass (its header's phis) go through
// Function variables, stored where each pass ends and loaded at the header, where the loop's
// continue target is a block of its own with nothing in it but phis.
//
// Mesa's SPIR-V front end (vtn) runs such a continue target under a flag at the top of the
// next pass (single_block_loops.h), and its phis are how the header's values arrive: through
// the flag's select and the execution mask, twice a pass on llvmpipe. Stored before the
// continue target instead, they leave it empty, the driver drops the flag, and its own SSA
// rebuild makes plain loop phis of the variables (a 4-wide mad loop: 1.4x as fast). This
// covers loops single-block-loops cannot make one block: bodies with selections, breaks.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace vkcl::k2s {

std::unique_ptr<Pass> create_loop_variables_pass();

}  // namespace vkcl::k2s
