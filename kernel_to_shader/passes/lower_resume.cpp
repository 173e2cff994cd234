// The kResumeSet instructions resumable-loops leaves behind (resumable_loops.h): what only the
// lowering knows, the dispatch block, the argument block's resume slots, local memory.
#include "passes/lower_to_shader.h"
#include "passes/resumable_loops.h"

namespace vkcl::k2s {

using spv::Op;

namespace {
// Dispatch block words (after the argument block address), see DispatchBlock.
constexpr uint32_t kEnqueuedLocalSize = 8, kNumGroups = 16;
constexpr uint32_t kResumeEpoch = 7, kResumeRound = 11, kResumeSlotWord = 15;
}  // namespace

// copy(address u64, first u32, step u32): local memory words 4j .. 4j + 3 for j = first,
// first + step, ... below words / 4 (the frontend makes the word count a multiple of 4), to
// (save) or from the bytes at |address|.
uint32_t Lowering::resume_local_copy_helper(bool save) {
  std::vector<uint32_t> key = {save, arena_kind()};
  auto cached = resume_helpers_.find(key);
  if (cached != resume_helpers_.end()) return cached->second;
  auto* caller_block = block_;
  uint32_t u32 = t_uint(32), u64 = t_uint(64);
  ir::Function f;
  std::vector<uint32_t> p;
  start_helper(f, t_void(), {u64, u32, u32}, p);
  uint32_t quads = emit(Op::OpShiftRightLogical, u32, {local_words_, c_u32(2)});
  emit_loop(*this, f, u32, p[1], quads,
            [&](uint32_t j) { return emit(Op::OpIAdd, u32, {j, p[2]}); },
            [&](uint32_t j) {
              uint32_t bytes = emit(Op::OpShiftLeftLogical, u32, {j, c_u32(4)});
              uint32_t global = add_offset(AddressFormat::Global64, p[0], emit(Op::OpUConvert, u64, {bytes}));
              for (uint32_t q = 0; q < 4; ++q) {
                uint32_t local = q ? emit(Op::OpIAdd, u32, {bytes, c_u32(4 * q)}) : bytes;
                uint32_t g = q ? add_offset(AddressFormat::Global64, global, c_u64(4 * q)) : global;
                if (save)
                  store_out(AddressFormat::Global64, g, u32, load_out(AddressFormat::Local32, local, u32, 4), 4);
                else
                  store_out(AddressFormat::Local32, local, u32, load_out(AddressFormat::Global64, g, u32, 4), 4);
              }
            });
  emit_void(Op::OpReturn, {});
  out_.functions.push_back(std::move(f));
  block_ = caller_block;
  return resume_helpers_[key] = out_.functions.back().id();
}

// The work-item's count of loop iterations: a Private variable (a register).
uint32_t Lowering::budget_var() {
  if (!budget_var_) {
    budget_var_ = take_id();
    out_.globals.emplace_back(Op::OpVariable, t_ptr(spv::StorageClass::Private, t_uint(32)), budget_var_,
                              std::vector<uint32_t>{uint32_t(spv::StorageClass::Private), c_u32(0)});
    interface_.push_back(budget_var_);
  }
  return budget_var_;
}

bool Lowering::lower_resume(const ir::Instruction& i) {
  uint32_t u32 = t_uint(32), u64 = t_uint(64), uvec3 = t_vec(u32, 3);
  // The address in resume slot |k| of the argument block.
  auto slot = [&](uint32_t k) { return argument_slot(kResumeSlot + 8 * k); };
  // This work-group's OpenCL group id, component |c|.
  auto group = [&](uint32_t c) { return opencl_group_id(c); };
  // The linear id of this work-group in the NDRange.
  auto linear_group = [&] {
    uint32_t linear = group(2);
    for (int c = 1; c >= 0; --c)
      linear = emit(Op::OpIAdd, u32, {emit(Op::OpIMul, u32, {linear, push_word(kNumGroups + c)}), group(c)});
    return linear;
  };
  // Address of this work-group's flag (global memory, so that it takes none of the local
  // memory the kernel may want all of).
  auto flag = [&] {
    uint32_t bytes = emit(Op::OpShiftLeftLogical, u64, {emit(Op::OpUConvert, u64, {linear_group()}), c_u64(2)});
    return add_offset(AddressFormat::Global64, slot(3), bytes);
  };
  auto result = [&](uint32_t type, uint32_t v) {
    bind(i.result_id, type, v);
    return !failed_;
  };

  switch (ResumeOp(i.operands[1])) {
    case ResumeOp::Round: {
      if (!first_round_) {
        first_round_ = take_id();
        out_.globals.emplace_back(Op::OpSpecConstantFalse, t_bool(), first_round_, std::vector<uint32_t>{});
        decorate(first_round_, spv::Decoration::SpecId, {kSpecFirstRound});
      }
      return result(u32, emit(Op::OpSelect, u32, {first_round_, c_u32(0), push_word(kResumeRound)}));
    }
    case ResumeOp::Epoch: return result(u32, push_word(kResumeEpoch));
    case ResumeOp::ItemRecord: {
      bool ok = false;
      uint64_t size = constant_value(i.operands[2], &ok);
      if (!ok) return fail("resume record of a size that is not a constant");
      // The global linear id without the global offset, in 64 bits.
      uint32_t linear = 0;
      for (int c = 2; c >= 0; --c) {
        uint32_t base = emit(Op::OpIMul, u32, {group(c), push_word(kEnqueuedLocalSize + c)});
        uint32_t local = opencl_local_id(uint32_t(c));
        uint32_t id = emit(Op::OpUConvert, u64, {emit(Op::OpIAdd, u32, {base, local})});
        if (!linear) {
          linear = id;
        } else {
          uint32_t size_c = emit(Op::OpUConvert, u64, {push_word(4 + c)});  // global size
          linear = emit(Op::OpIAdd, u64, {emit(Op::OpIMul, u64, {linear, size_c}), id});
        }
      }
      uint32_t offset = emit(Op::OpIMul, u64, {linear, c_u64(size)});
      return result(u64, add_offset(AddressFormat::Global64, slot(0), offset));
    }
    case ResumeOp::GroupRecord: {
      uint32_t linear = linear_group();
      uint32_t words = emit(Op::OpIAdd, u32, {local_words_, c_u32(1)});
      uint32_t size = emit(Op::OpIAdd, u64, {emit(Op::OpShiftLeftLogical, u64, {emit(Op::OpUConvert, u64, {words}), c_u64(2)}), c_u64(16)});
      uint32_t offset = emit(Op::OpIMul, u64, {emit(Op::OpUConvert, u64, {linear}), size});
      return result(u64, add_offset(AddressFormat::Global64, slot(1), offset));
    }
    case ResumeOp::Yield: {
      if (!stopped_var_) {
        stopped_var_ = take_id();
        out_.globals.emplace_back(Op::OpVariable, t_ptr(spv::StorageClass::Private, t_bool()), stopped_var_,
                                  std::vector<uint32_t>{uint32_t(spv::StorageClass::Private), c_bool(false)});
        interface_.push_back(stopped_var_);
      }
      emit_void(Op::OpStore, {stopped_var_, emit(Op::OpINotEqual, t_bool(), {value(i.operands[2]), c_u32(0)})});
      // Whether the driver cut a loop before this stop: where the work-group stops
      // together, a loop with no place to stop in it may have run past the limit on the
      // way to the barrier the work-group stopped at.
      emit_void(Op::OpStore, {cut_before_stop_var(), emit(Op::OpFunctionCall, t_bool(), {probe_helper()})});
      // The next round runs this region's groups again.
      uint32_t index = emit(Op::OpUConvert, u64, {push_word(kResumeSlotWord)});
      uint32_t at = add_offset(AddressFormat::Global64, slot(2),
                               emit(Op::OpShiftLeftLogical, u64, {index, c_u64(4)}));
      uint32_t counts = vulkan_builtin(spv::BuiltIn::NumWorkgroups, uvec3);
      for (uint32_t c = 0; c < 3; ++c)
        store_out(AddressFormat::Global64, c ? add_offset(AddressFormat::Global64, at, c_u64(4 * c)) : at,
                  u32, emit(Op::OpCompositeExtract, u32, {counts, c}), 4);
      return !failed_;
    }
    case ResumeOp::SaveLocal:
    case ResumeOp::RestoreLocal: {
      bool save = ResumeOp(i.operands[1]) == ResumeOp::SaveLocal;
      bool cooperative = true;
      if (save) {
        bool ok = false;
        cooperative = constant_value(i.operands[3], &ok) != 0;
        if (!ok) return fail("resume copy without a constant mode");
      }
      uint32_t first = cooperative ? local_linear_id() : c_u32(0);
      uint32_t step = cooperative ? workgroup_invocations() : c_u32(1);
      emit(Op::OpFunctionCall, t_void(), {resume_local_copy_helper(save), value(i.operands[2]), first, step});
      return !failed_;
    }
    case ResumeOp::BudgetStep:
    case ResumeOp::GroupBudgetStep: {
      // (GroupBudgetStep's is a register too: FlagRead brings the sub-group's counts together.)
      uint32_t step = 1;
      if (i.operands.size() > 2) {
        bool ok = false;
        step = uint32_t(constant_value(i.operands[2], &ok));
        if (!ok) return fail("budget step that is not a constant");
      }
      uint32_t count = emit(Op::OpIAdd, u32, {emit(Op::OpLoad, u32, {budget_var()}), c_u32(step)});
      emit_void(Op::OpStore, {budget_var(), count});
      return result(u32, count);
    }
    case ResumeOp::BudgetReset:
      emit_void(Op::OpStore, {budget_var(), c_u32(0)});
      return !failed_;
    case ResumeOp::GroupBudgetReset:
      emit_void(Op::OpStore, {budget_var(), c_u32(0)});
      return !failed_;
    case ResumeOp::FlagSet:
      store_out(AddressFormat::Global64, flag(), u32, c_u32(1), 4);
      return !failed_;
    case ResumeOp::FlagReset:
      store_out(AddressFormat::Global64, flag(), u32, c_u32(0), 4);
      return !failed_;
    case ResumeOp::FlagRead: {
      // Read right after a barrier, so every work-item of the sub-group reads it. Said
      // through a vote, it is uniform in the driver's eyes too: llvmpipe loses the partial
      // last batch of a work-group (size 12: 8 + 4) that leaves a loop with a barrier on a
      // condition it takes for divergent (a load), as Mesa's rusticl does too.
      need_capability(spv::Capability::GroupNonUniformVote);
      need_capability(spv::Capability::GroupNonUniformArithmetic);
      // The work-items of a sub-group each count the loop passes they took; where they
      // went round loops of different lengths, the longest count is the batch's.
      uint32_t most = emit(Op::OpGroupNonUniformUMax, u32,
                           {c_u32(3), uint32_t(spv::GroupOperation::Reduce), emit(Op::OpLoad, u32, {budget_var()})});
      emit_void(Op::OpStore, {budget_var(), most});
      uint32_t raised_word = load_out(AddressFormat::Global64, flag(), u32, 4);
      uint32_t raised = emit(Op::OpGroupNonUniformAny, t_bool(),
                             {c_u32(3), emit(Op::OpINotEqual, t_bool(), {raised_word, c_u32(0)})});
      return result(u32, emit(Op::OpSelect, u32, {raised, c_u32(1), c_u32(0)}));
    }
  }
  return fail("unknown resume instruction: " + describe(i));
}

}  // namespace vkcl::k2s
