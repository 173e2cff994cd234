// structurize: turns the unstructured control flow of Kernel SPIR-V into the structured form
// Vulkan requires (OpSelectionMerge/OpLoopMerge, constructs nested, blocks in structured
// order). Works on any reducible CFG; an irreducible one fails with a log naming the function.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace vkcl::k2s {

std::unique_ptr<Pass> create_structurize_pass();

}  // namespace vkcl::k2s
