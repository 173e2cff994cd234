// The cl_khr_subgroup_* extensions: llvm-spirv writes them as SPIR-V's OpGroupNonUniform*
// instructions at Subgroup scope, which mean the same in the Shader model. Each needs the
// Vulkan subgroup feature of its class (TargetCaps::subgroup_features); the frontend reports an
// extension only when its feature is there, so a kernel reaching here without it is a bug
// or hand-written SPIR-V, and gets a build failure.
#include <spirv/unified1/GLSL.std.450.h>

#include "passes/lower_to_shader.h"

namespace vkcl::k2s {

using spv::Op;

namespace {

struct NonUniformClass {
  uint32_t feature;  // SubgroupFeature bit
  spv::Capability capability;
};

bool classify(Op op, NonUniformClass* c) {
  switch (op) {
    case Op::OpGroupNonUniformElect:
      *c = {kSubgroupBasic, spv::Capability::GroupNonUniform};
      return true;
    case Op::OpGroupNonUniformAll: case Op::OpGroupNonUniformAny:
    case Op::OpGroupNonUniformAllEqual:
      *c = {kSubgroupVote, spv::Capability::GroupNonUniformVote};
      return true;
    case Op::OpGroupNonUniformBroadcast: case Op::OpGroupNonUniformBroadcastFirst:
    case Op::OpGroupNonUniformBallot: case Op::OpGroupNonUniformInverseBallot:
    case Op::OpGroupNonUniformBallotBitExtract: case Op::OpGroupNonUniformBallotBitCount:
    case Op::OpGroupNonUniformBallotFindLSB: case Op::OpGroupNonUniformBallotFindMSB:
      *c = {kSubgroupBallot, spv::Capability::GroupNonUniformBallot};
      return true;
    case Op::OpGroupNonUniformShuffle: case Op::OpGroupNonUniformShuffleXor:
      *c = {kSubgroupShuffle, spv::Capability::GroupNonUniformShuffle};
      return true;
    case Op::OpGroupNonUniformShuffleUp: case Op::OpGroupNonUniformShuffleDown:
      *c = {kSubgroupShuffleRelative, spv::Capability::GroupNonUniformShuffleRelative};
      return true;
    case Op::OpGroupNonUniformIAdd: case Op::OpGroupNonUniformFAdd:
    case Op::OpGroupNonUniformIMul: case Op::OpGroupNonUniformFMul:
    case Op::OpGroupNonUniformSMin: case Op::OpGroupNonUniformUMin:
    case Op::OpGroupNonUniformFMin: case Op::OpGroupNonUniformSMax:
    case Op::OpGroupNonUniformUMax: case Op::OpGroupNonUniformFMax:
    case Op::OpGroupNonUniformBitwiseAnd: case Op::OpGroupNonUniformBitwiseOr:
    case Op::OpGroupNonUniformBitwiseXor: case Op::OpGroupNonUniformLogicalAnd:
    case Op::OpGroupNonUniformLogicalOr: case Op::OpGroupNonUniformLogicalXor:
      *c = {kSubgroupArithmetic, spv::Capability::GroupNonUniformArithmetic};
      return true;
    default:
      return false;
  }
}

bool has_group_operation(Op op) {
  NonUniformClass c;
  return op == Op::OpGroupNonUniformBallotBitCount ||
         (classify(op, &c) && c.feature == kSubgroupArithmetic);
}

}  // namespace

bool Lowering::lower_non_uniform(const ir::Instruction& i) {
  NonUniformClass c;
  if (!classify(i.opcode, &c)) return fail("sub-group operation not supported: " + describe(i));
  bool ok = false;
  if (spv::Scope(constant_value(i.operands[0], &ok)) != spv::Scope::Subgroup || !ok)
    return fail("non-uniform group operation outside sub-group scope: " + describe(i));
  std::vector<uint32_t> ops = {c_u32(uint32_t(spv::Scope::Subgroup))};
  size_t k = 1;
  uint32_t feature = c.feature;
  if (has_group_operation(i.opcode)) {
    auto operation = spv::GroupOperation(i.operands[1]);
    if (operation == spv::GroupOperation::ClusteredReduce) feature = kSubgroupClustered;
    ops.push_back(i.operands[1]);
    ++k;
  }
  if (feature == kSubgroupClustered && !(ctx_.caps.subgroup_features & kSubgroupClustered))
    return lower_clustered_by_shuffles(i);
  if ((ctx_.caps.subgroup_features & feature) != feature)
    return fail("the Vulkan device lacks the subgroup feature for " + describe(i));
  need_capability(spv::Capability::GroupNonUniform);
  need_capability(c.capability);
  if (feature == kSubgroupClustered) need_capability(spv::Capability::GroupNonUniformClustered);
  size_t first_value = k;
  for (; k < i.operands.size(); ++k) ops.push_back(value(i.operands[k]));
  uint32_t rt = lower_type(i.type_id);
  if (failed_) return false;
  Op op = i.opcode;
  if (op == Op::OpGroupNonUniformBroadcast && (ctx_.caps.subgroup_features & kSubgroupShuffle)) {
    // LLVM merges broadcasts from both sides of a branch into one whose id is a select
    // (CTS subgroup_functions_ballot), no longer dynamically uniform as Vulkan's Broadcast
    // requires; a shuffle takes any id.
    op = Op::OpGroupNonUniformShuffle;
    need_capability(spv::Capability::GroupNonUniformShuffle);
  }
  // (Elect and the like have no value operand: nothing to split per component.)
  const uint32_t in_value = first_value < i.operands.size() ? i.operands[first_value] : 0;
  bind(i.result_id, rt, subgroup_op(op, rt, ops, first_value, in_value));
  return !failed_;
}

// A clustered reduction where Vulkan has no clustered operations (lavapipe): each work-item
// reads the n values of its cluster by shuffles and combines those of active work-items (a
// ballot says which). An inactive work-item's shuffled value is undefined but never used.
bool Lowering::lower_clustered_by_shuffles(const ir::Instruction& i) {
  const uint32_t needed = kSubgroupBallot | kSubgroupShuffle;
  if ((ctx_.caps.subgroup_features & needed) != needed)
    return fail("the Vulkan device lacks the subgroup operations for " + describe(i));
  bool ok = false;
  uint32_t n = uint32_t(constant_value(i.operands[3], &ok));
  if (!ok || n == 0 || (n & (n - 1)) || n > 128)
    return fail("cluster size is not a constant power of two: " + describe(i));
  uint32_t rt = lower_type(i.type_id);
  if (failed_) return false;
  need_capability(spv::Capability::GroupNonUniform);
  need_capability(spv::Capability::GroupNonUniformBallot);
  need_capability(spv::Capability::GroupNonUniformShuffle);
  uint32_t u32 = t_uint(32), scope = c_u32(uint32_t(spv::Scope::Subgroup));
  uint32_t x = value(i.operands[2]);
  uint32_t active = emit(Op::OpGroupNonUniformBallot, t_vec(u32, 4), {scope, c_bool(true)});
  uint32_t lane = vulkan_builtin(spv::BuiltIn::SubgroupLocalInvocationId, u32);
  uint32_t base = emit(Op::OpBitwiseAnd, u32, {lane, c_u32(~(n - 1))});
  auto combine = [&](uint32_t a, uint32_t b) -> uint32_t {
    auto glsl = [&](GLSLstd450 op) {
      return emit(Op::OpExtInst, rt, {glsl_import(), uint32_t(op), a, b});
    };
    switch (i.opcode) {
      case Op::OpGroupNonUniformIAdd: return emit(Op::OpIAdd, rt, {a, b});
      case Op::OpGroupNonUniformFAdd: return emit(Op::OpFAdd, rt, {a, b});
      case Op::OpGroupNonUniformIMul: return emit(Op::OpIMul, rt, {a, b});
      case Op::OpGroupNonUniformFMul: return emit(Op::OpFMul, rt, {a, b});
      case Op::OpGroupNonUniformSMin: return glsl(GLSLstd450SMin);
      case Op::OpGroupNonUniformUMin: return glsl(GLSLstd450UMin);
      case Op::OpGroupNonUniformFMin: return glsl(GLSLstd450NMin);
      case Op::OpGroupNonUniformSMax: return glsl(GLSLstd450SMax);
      case Op::OpGroupNonUniformUMax: return glsl(GLSLstd450UMax);
      case Op::OpGroupNonUniformFMax: return glsl(GLSLstd450NMax);
      case Op::OpGroupNonUniformBitwiseAnd: return emit(Op::OpBitwiseAnd, rt, {a, b});
      case Op::OpGroupNonUniformBitwiseOr: return emit(Op::OpBitwiseOr, rt, {a, b});
      case Op::OpGroupNonUniformBitwiseXor: return emit(Op::OpBitwiseXor, rt, {a, b});
      case Op::OpGroupNonUniformLogicalAnd: return emit(Op::OpLogicalAnd, rt, {a, b});
      case Op::OpGroupNonUniformLogicalOr: return emit(Op::OpLogicalOr, rt, {a, b});
      default: return emit(Op::OpLogicalNotEqual, rt, {a, b});  // LogicalXor
    }
  };
  uint32_t acc = 0, seen = 0;
  for (uint32_t j = 0; j < n; ++j) {
    uint32_t src = j ? emit(Op::OpIAdd, u32, {base, c_u32(j)}) : base;
    uint32_t v = emit(Op::OpGroupNonUniformShuffle, rt, {scope, x, src});
    uint32_t live = emit(Op::OpGroupNonUniformBallotBitExtract, t_bool(), {scope, active, src});
    if (!acc) {
      acc = v;
      seen = live;
      continue;
    }
    uint32_t joined = emit(Op::OpSelect, rt, {seen, combine(acc, v), v});
    acc = emit(Op::OpSelect, rt, {live, joined, acc});
    seen = emit(Op::OpLogicalOr, t_bool(), {seen, live});
  }
  bind(i.result_id, rt, acc);
  return !failed_;
}

// SPV_KHR_subgroup_rotate (cl_khr_subgroup_rotate) as a shuffle, which Vulkan has where it
// lacks VK_KHR_shader_subgroup_rotate (lavapipe): the value of the work-item
// (id + delta) mod the sub-group size, or within a cluster of n (a constant power of two)
// base + ((id - base + delta) mod n). Delta is unsigned in SPIR-V, so a negative OpenCL delta
// wraps, which the power-of-two modulus turns into the rotation the other way.
bool Lowering::lower_rotate(const ir::Instruction& i) {
  if (!(ctx_.caps.subgroup_features & kSubgroupShuffle))
    return fail("the Vulkan device lacks subgroup shuffles for " + describe(i));
  bool ok = false;
  if (spv::Scope(constant_value(i.operands[0], &ok)) != spv::Scope::Subgroup || !ok)
    return fail("rotate outside sub-group scope: " + describe(i));
  uint32_t rt = lower_type(i.type_id);
  if (failed_) return false;
  need_capability(spv::Capability::GroupNonUniform);
  need_capability(spv::Capability::GroupNonUniformShuffle);
  uint32_t u32 = t_uint(32);
  uint32_t lane = vulkan_builtin(spv::BuiltIn::SubgroupLocalInvocationId, u32);
  uint32_t delta = value(i.operands[2]);
  if (const ir::Instruction* d = def(i.operands[2]))
    if (const ir::Instruction* t = def(d->type_id); t && t->operands[0] != 32)
      delta = emit(Op::OpUConvert, u32, {delta});
  uint32_t size = vulkan_builtin(spv::BuiltIn::SubgroupSize, u32);
  uint32_t base = c_u32(0);
  if (i.operands.size() > 3) {
    uint32_t n = uint32_t(constant_value(i.operands[3], &ok));
    if (!ok || n == 0 || (n & (n - 1)))
      return fail("cluster size is not a constant power of two: " + describe(i));
    size = c_u32(n);
    base = emit(Op::OpBitwiseAnd, u32, {lane, c_u32(~(n - 1))});
  }
  uint32_t offset = emit(Op::OpIAdd, u32, {emit(Op::OpISub, u32, {lane, base}), delta});
  uint32_t src = emit(Op::OpIAdd, u32, {base, emit(Op::OpUMod, u32, {offset, size})});
  uint32_t scope = c_u32(uint32_t(spv::Scope::Subgroup));
  bind(i.result_id, rt, subgroup_op(Op::OpGroupNonUniformShuffle, rt, {scope, value(i.operands[1]), src}, 1,
                                    i.operands[1]));
  return !failed_;
}

}  // namespace vkcl::k2s
