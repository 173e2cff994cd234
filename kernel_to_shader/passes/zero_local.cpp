// Local memory zeroed at the start of each work-group (LeftoverLocals, CVE-2023-4969: on
// several GPUs a work-group could read the shared memory another kernel, of any process, left
// behind). The entry point's wrapper does it under a specialization constant the frontend sets
// only for launches that have local memory, so other kernels keep no loop and no barrier.
// Vulkan's zero-initialized Workgroup variables would need a feature not every device has,
// and could not be switched per launch.
#include "passes/lower_to_shader.h"

namespace vkcl::k2s {

using spv::Op;

void Lowering::emit_local_zeroing(ir::Function& main, uint32_t kernel) {
  if (!zero_local_) {
    zero_local_ = take_id();
    out_.globals.emplace_back(Op::OpSpecConstantFalse, t_bool(), zero_local_, std::vector<uint32_t>{});
    decorate(zero_local_, spv::Decoration::SpecId, {kSpecZeroLocalMemory});
  }
  uint32_t then = take_id(), merge = take_id();
  emit_void(Op::OpSelectionMerge, {merge, 0});
  emit_void(Op::OpBranchConditional, {zero_local_, then, merge});
  main.blocks.push_back(ir::Block{then, {}});
  block_ = &main.blocks.back().instructions;

  uint32_t u32 = t_uint(32);
  const Arena arena = arena_of(kernel);
  uint32_t step = workgroup_invocations();
  emit_loop(*this, main, u32, local_linear_id(), arena.length,
            [&](uint32_t j) { return emit(Op::OpIAdd, u32, {j, step}); },
            [&](uint32_t j) {
              uint32_t at = emit(Op::OpAccessChain, t_ptr(spv::StorageClass::Workgroup, arena.element),
                                 {arena.variable, j});
              emit_void(Op::OpStore, {at, c_null(arena.element)});
            });
  workgroup_barrier(false);
  emit_void(Op::OpBranch, {merge});
  main.blocks.push_back(ir::Block{merge, {}});
  block_ = &main.blocks.back().instructions;
}

}  // namespace vkcl::k2s
