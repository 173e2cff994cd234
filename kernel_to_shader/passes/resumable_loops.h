// resumable-loops: kernels whose loops outlast a driver's loop limit run to the end anyway.
//
// Mesa's gallivm (llvmpipe, lavapipe) gives each batch of invocations (a sub-group) one
// counter of 65535 loop iterations for all its loops, and then silently cuts every loop short
// (TargetCaps::loop_iteration_limit). Re-entering a loop cannot help: the counter is spent.
// So on such a driver a kernel counts its batch's loop iterations itself and, before the driver's
// counter runs out, saves its state and returns; the frontend dispatches the kernel again
// ("rounds", through indirect dispatches that only run when some work-item yielded) and the
// work-item resumes where it left off, with a fresh counter.
//
// The state of a work-item is its Function variables: the pass first puts every phi and every
// value that lives into a loop header into variables, so saving and restoring them is all
// there is. User functions with loops are inlined into the kernel first, so the only frames
// are the kernel's; library functions keep theirs and count their loops in copies of their
// own. Every edge into a loop header then goes through one "hub" block that switches on the
// header, so the resume path enters the kernel's control flow in one place. Local memory is
// saved by the batch that stops and restored at the start of the next round before any
// work-item runs.
//
// Kernels with barriers or group and sub-group operations cannot use the hub: in it all
// loops of a batch are one loop, and gallivm runs a barrier inside a loop once for every
// iteration of the batch, masked or not, so work-items that took different trip counts would
// meet at the wrong barriers. With TargetCaps::resumable_barrier_loops they keep their loops;
// their work-group stops together after a barrier inside a loop (a flag any batch raises
// when it runs low, read by all after the barrier through a sub-group vote, as llvmpipe
// needs a uniform loop exit) and resumes there. One such barrier per cycle, one passed in
// every iteration where there is one, and the loop is rotated to start after it, so that the
// resume path enters it at its header. A loop without a barrier stops at the barrier after
// it (the one place its work-items meet next, outside any loop or in one that is entered on
// every way and that this loop is not part of): the batch that runs low
// goes there straight from the loop, notes the loop's header as its place, and the others,
// resumed before that barrier, wait for it there; after the last barrier it stops alone.
// The resume path then reaches its places through guards along the kernel (a switch into
// every stretch is a ladder of joins the structurizer cannot merge). Loops that lead
// elsewhere keep the detection (a probe loop; the command fails with CL_OUT_OF_RESOURCES)
// when they are cut; a work-item that stops runs the probe too.
//
// The pass works on Kernel SPIR-V before the structurizer and leaves what only the lowering
// knows (record addresses, local memory, the dispatch block) to the instructions of an
// internal extended instruction set, kResumeSet, which lower-to-shader expands.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace vkcl::k2s {

std::unique_ptr<Pass> create_resumable_loops_pass();

// Named as a non-semantic set only so that SPIRV-Tools disassembles the modules between
// passes (vkcl-translate --pass); its instructions do have meaning and never leave the
// translator.
inline constexpr const char* kResumeSet = "NonSemantic.vkcl.resume";

// The instructions of kResumeSet. Operands and results are Kernel SPIR-V values.
enum class ResumeOp : uint32_t {
  Round = 0,        // u32: 0 in the first dispatch of a launch, then 1, 2, ...
  Epoch = 1,        // u32: this launch's number, which marks the records it wrote
  ItemRecord = 2,   // u64: address of this work-item's record (operand: its size, a constant)
  GroupRecord = 3,  // u64: address of this work-group's record (16 bytes, then local memory)
  Yield = 4,        // void (u32 due): asks for one more round; |due| says the work-item
                    // stopped because its budget ran low (0 where control flow got here
                    // only because the driver cut a loop: its probe must still run)
  SaveLocal = 5,    // void (u64 address, u32 constant cooperative): copies local memory out;
                    // cooperative: each work-item of the group copies its share, else all
  RestoreLocal = 6,  // void (u64 address): copies local memory back, the group together
  BudgetStep = 7,   // u32 (u32 constant step, 1 where absent): counts a loop iteration of
                    // this work-item; returns its count
  BudgetReset = 8,  // void
  FlagSet = 9,      // void: asks the work-group to stop at its next barrier
  FlagRead = 10,    // u32, right after a barrier: the flag; also brings the sub-group's
                    // GroupBudgetStep counts to their largest
  FlagReset = 11,   // void
  GroupBudgetStep = 12,   // u32 (u32 constant step, 1 where absent): counts a loop-header
                          // pass of this work-item (a register; FlagRead makes it the
                          // sub-group's); returns its count
  GroupBudgetReset = 13,  // void
};

// A work-item's record: [u32 epoch][u32 point][variables...].
inline constexpr uint32_t kResumeRecordHeader = 8;
// The point of a work-item that has finished.
inline constexpr uint32_t kResumeDone = 0xffffffffu;

}  // namespace vkcl::k2s
