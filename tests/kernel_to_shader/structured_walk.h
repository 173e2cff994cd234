// A check of translated shaders against the reader that consumes them on Debian 12:
// Mesa 22.3's SPIR-V front end (lavapipe) walks structured control flow as a tree and
// rejects shapes spirv-val accepts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vkcl::test {

// Walks every function of |shader| as Mesa 22.3's vtn_cfg does: breadth first over
// constructs, each block placed once, under the construct that reaches it with a plain
// branch; a branch may also leave for the innermost loop's merge or continue target or an
// enclosing selection's merge. A block reached twice with plain branches (paths that meet
// inside a construct instead of at its merge) is what Mesa reports as "Invalid back or
// cross-edge in the CFG". Returns "" when all walk, else the first failure.
std::string structured_walk_error(const std::vector<uint32_t>& shader);

}  // namespace vkcl::test
