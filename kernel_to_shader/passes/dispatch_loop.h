// The structurizer's last resort: a function whose control flow it cannot place is rewritten
// into one loop around a switch on a "next block" variable, where every basic block is a case
// and every branch stores its target. That shape is always structured. It costs a switch per
// block executed, so it is used only when the ordinary structurizer fails.
//
// Barriers and other collectives must stay in uniform control flow, and in a dispatch loop two
// work-items reach the same block in different iterations. So only the part of the function
// before the first collective is rewritten: the region of blocks not dominated by the nearest
// common dominator X of all collective blocks (the whole function when there is none), moved
// up until X's part is left only by returning (so a loop holding a barrier is in it whole).
// The loop leaves for X, or returns.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "ir/module.h"

namespace vkcl::k2s {

// Ids of the functions that hold a barrier or a work-group/sub-group operation, directly or
// through calls.
std::unordered_set<uint32_t> collective_functions(const ir::Module& module);
// Barriers, work-group and sub-group operations, and calls to |collective| functions.
bool is_collective(const ir::Instruction& inst, const std::unordered_set<uint32_t>& collective);

// The loop, built already structured (a real OpSwitch, which lavapipe needs: a chain of
// two-way branches nests as deep as the region has blocks). |head| is also the label of the
// placeholder block that stands for it in the function meanwhile.
struct DispatchLoop {
  uint32_t head = 0;
  std::vector<ir::Block> blocks;  // from the head to the latch, the head without terminator
  uint32_t latch = 0, more = 0;   // continue target; head's "another block" condition (or 0)
  uint32_t exit = 0;              // the loop's merge block, made by splice_dispatch_loop
};

// Rewrites |function| as above, with the region replaced by a placeholder block, so that the
// structurizer sees only what is left. Returns false with |why| set when it cannot (the region
// would be empty, or is re-entered), leaving |function| unchanged.
// With |uniform|, the whole function goes into a loop that every work-item of the work-group
// runs in step (assemble_uniform in dispatch_loop.cpp), so barriers and work-group functions
// may be anywhere; not for functions with sub-group operations.
bool make_dispatch_loop(ir::Module& module, ir::Function& function, DispatchLoop* loop,
                        std::string* why, bool uniform = false);
// Puts |loop| in place of its placeholder, once the rest of |function| is structured.
bool splice_dispatch_loop(ir::Module& module, ir::Function& function, DispatchLoop loop);

}  // namespace vkcl::k2s
