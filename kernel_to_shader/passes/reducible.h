// reducible: makes every function's control-flow graph reducible, so the structurizer (which
// needs each loop to have a single entry) can handle it. A cycle entered at several blocks
// (`goto` into a loop, state machines) gets a dispatch block: every edge into one of the
// cycle's entries goes to that block instead, which records the intended target in a selector
// phi and switches on it. The dispatch block is then the cycle's only entry, i.e. an ordinary
// loop header. Nested cycles are handled the same way, outermost first.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace vkcl::k2s {

std::unique_ptr<Pass> create_reducible_pass();

}  // namespace vkcl::k2s
