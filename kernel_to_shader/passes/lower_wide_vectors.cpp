// Vectors of 8 and 16 components, which Vulkan does not have: they become arrays of their
// components and every operation on them is done component by component.
#include "passes/lower_to_shader.h"

namespace vkcl::k2s {

using spv::Op;

bool Lowering::is_wide(uint32_t in_type) const {
  const ir::Instruction* t = def(in_type);
  return t && t->opcode == Op::OpTypeVector && t->operands[1] > 4;
}

// The instructions that need component-wise treatment when a wide vector is involved.
bool Lowering::needs_wide_lowering(const ir::Instruction& i) const {
  switch (i.opcode) {
    case Op::OpLoad: case Op::OpStore: case Op::OpAccessChain: case Op::OpInBoundsAccessChain:
    case Op::OpPtrAccessChain: case Op::OpInBoundsPtrAccessChain: case Op::OpVariable:
    case Op::OpPhi: case Op::OpFunctionCall: case Op::OpReturnValue: case Op::OpCopyObject:
    case Op::OpCompositeExtract: case Op::OpCompositeInsert: case Op::OpUndef:
    case Op::OpExtInst: case Op::OpBranchConditional: case Op::OpSwitch: case Op::OpBranch:
    case Op::OpReturn: case Op::OpSelectionMerge: case Op::OpLoopMerge:
    case Op::OpCopyMemory: case Op::OpCopyMemorySized: case Op::OpLifetimeStart:
    case Op::OpLifetimeStop:
    // sub-group broadcasts and reductions split wide vectors themselves (subgroup_op)
    case Op::OpGroupBroadcast: case Op::OpGroupIAdd: case Op::OpGroupFAdd: case Op::OpGroupFMin:
    case Op::OpGroupUMin: case Op::OpGroupSMin: case Op::OpGroupFMax: case Op::OpGroupUMax:
    case Op::OpGroupSMax: case Op::OpGroupIMulKHR: case Op::OpGroupFMulKHR:
    case Op::OpGroupBitwiseAndKHR: case Op::OpGroupBitwiseOrKHR: case Op::OpGroupBitwiseXorKHR:
      return false;
    case Op::OpSelect: {
      // A scalar condition selects whole arrays; a vector condition goes component-wise.
      const ir::Instruction* c = def(i.operands[0]);
      return c && is_wide(c->type_id);
    }
    default:
      break;
  }
  if (i.type_id && is_wide(i.type_id)) return true;
  for (size_t k = 0; k < i.operands.size(); ++k) {
    if (ir::is_literal_operand(i, k)) continue;
    const ir::Instruction* d = def(i.operands[k]);
    if (d && d->type_id && is_wide(d->type_id) && d->opcode != Op::OpTypeVector) return true;
  }
  return false;
}

uint32_t Lowering::wide_count(uint32_t in_type) const {
  const ir::Instruction* t = def(in_type);
  return t && t->opcode == Op::OpTypeVector ? t->operands[1] : 1;
}

// Component |k| of input value |in_id| (a scalar is its own every component).
uint32_t Lowering::component(uint32_t in_id, uint32_t k) {
  const ir::Instruction* d = def(in_id);
  const ir::Instruction* t = d ? def(d->type_id) : nullptr;
  if (!t || t->opcode != Op::OpTypeVector) return value(in_id);
  return emit(Op::OpCompositeExtract, lower_type(t->operands[0]), {value(in_id), k});
}

bool Lowering::lower_wide(const ir::Instruction& i) {
  uint32_t rt = i.type_id ? lower_type(i.type_id) : 0;
  uint32_t n = i.type_id ? wide_count(i.type_id) : 1;
  uint32_t elem = 0;
  if (i.type_id) {
    const ir::Instruction* t = def(i.type_id);
    elem = t->opcode == Op::OpTypeVector ? lower_type(t->operands[0]) : rt;
  }
  auto finish = [&](std::vector<uint32_t> parts) {
    uint32_t r = parts.size() == 1 && n == 1 ? parts[0] : emit(Op::OpCompositeConstruct, rt, parts);
    bind(i.result_id, rt, r);
    return !failed_;
  };
  switch (i.opcode) {
    case Op::OpCompositeConstruct: {
      std::vector<uint32_t> parts;
      for (uint32_t o : i.operands) {
        const ir::Instruction* d = def(o);
        uint32_t count = d ? wide_count(d->type_id) : 1;
        for (uint32_t k = 0; k < count; ++k) parts.push_back(component(o, k));
      }
      return finish(parts);
    }
    case Op::OpVectorShuffle: {
      uint32_t first = wide_count(def(i.operands[0])->type_id);
      std::vector<uint32_t> parts;
      for (size_t k = 2; k < i.operands.size(); ++k) {
        uint32_t c = i.operands[k];
        if (c == 0xffffffffu) { parts.push_back(c_null(elem)); continue; }
        parts.push_back(c < first ? component(i.operands[0], c) : component(i.operands[1], c - first));
      }
      return finish(parts);
    }
    case Op::OpVectorExtractDynamic: {
      uint32_t count = wide_count(def(i.operands[0])->type_id);
      uint32_t index = value(i.operands[1]);
      uint32_t it = lower_type(def(i.operands[1])->type_id);
      uint32_t r = component(i.operands[0], 0);
      for (uint32_t k = 1; k < count; ++k) {
        uint32_t hit = emit(Op::OpIEqual, t_bool(), {index, c_uint(width_of_int_type(it), k)});
        r = emit(Op::OpSelect, rt, {hit, component(i.operands[0], k), r});
      }
      bind(i.result_id, rt, r);
      return !failed_;
    }
    case Op::OpVectorInsertDynamic: {
      uint32_t index = value(i.operands[2]);
      uint32_t it = lower_type(def(i.operands[2])->type_id);
      std::vector<uint32_t> parts;
      for (uint32_t k = 0; k < n; ++k) {
        uint32_t hit = emit(Op::OpIEqual, t_bool(), {index, c_uint(width_of_int_type(it), k)});
        parts.push_back(emit(Op::OpSelect, elem, {hit, value(i.operands[1]), component(i.operands[0], k)}));
      }
      return finish(parts);
    }
    case Op::OpAny:
    case Op::OpAll: {
      uint32_t count = wide_count(def(i.operands[0])->type_id);
      uint32_t r = component(i.operands[0], 0);
      for (uint32_t k = 1; k < count; ++k)
        r = emit(i.opcode == Op::OpAny ? Op::OpLogicalOr : Op::OpLogicalAnd, t_bool(),
                 {r, component(i.operands[0], k)});
      bind(i.result_id, rt, r);
      return !failed_;
    }
    case Op::OpBitcast: {
      if (wide_count(def(i.operands[0])->type_id) != n) return lower_wide_bitcast(i);
      break;
    }
    case Op::OpUConvert: case Op::OpSConvert: case Op::OpFConvert: case Op::OpConvertFToU:
    case Op::OpConvertFToS: case Op::OpConvertSToF: case Op::OpConvertUToF:
    case Op::OpSatConvertSToU: case Op::OpSatConvertUToS:
      return lower_conversion(i);
    case Op::OpExpectKHR:
      bind(i.result_id, rt, value(i.operands[0]));
      return !failed_;
    case Op::OpGroupNonUniformBroadcast: case Op::OpGroupNonUniformBroadcastFirst:
    case Op::OpGroupNonUniformShuffle: case Op::OpGroupNonUniformShuffleXor:
    case Op::OpGroupNonUniformShuffleUp: case Op::OpGroupNonUniformShuffleDown:
      return lower_non_uniform(i);
    case Op::OpVectorTimesScalar: {
      std::vector<uint32_t> parts;
      for (uint32_t k = 0; k < n; ++k)
        parts.push_back(emit(Op::OpFMul, elem, {component(i.operands[0], k), value(i.operands[1])}));
      return finish(parts);
    }
    default:
      break;
  }
  // Everything else applies to each component: arithmetic, bitwise, shifts, comparisons,
  // conversions, selects with a vector condition, relational tests.
  switch (i.opcode) {
    case Op::OpSNegate: case Op::OpFNegate: case Op::OpIAdd: case Op::OpFAdd: case Op::OpISub:
    case Op::OpFSub: case Op::OpIMul: case Op::OpFMul: case Op::OpUDiv: case Op::OpSDiv:
    case Op::OpFDiv: case Op::OpUMod: case Op::OpSRem: case Op::OpSMod: case Op::OpFRem:
    case Op::OpFMod: case Op::OpShiftRightLogical: case Op::OpShiftRightArithmetic:
    case Op::OpShiftLeftLogical: case Op::OpBitwiseOr: case Op::OpBitwiseXor:
    case Op::OpBitwiseAnd: case Op::OpNot: case Op::OpIsNan: case Op::OpIsInf:
    case Op::OpLogicalEqual: case Op::OpLogicalNotEqual: case Op::OpLogicalOr:
    case Op::OpLogicalAnd: case Op::OpLogicalNot: case Op::OpIEqual: case Op::OpINotEqual:
    case Op::OpUGreaterThan: case Op::OpSGreaterThan: case Op::OpUGreaterThanEqual:
    case Op::OpSGreaterThanEqual: case Op::OpULessThan: case Op::OpSLessThan:
    case Op::OpULessThanEqual: case Op::OpSLessThanEqual: case Op::OpFOrdEqual:
    case Op::OpFUnordEqual: case Op::OpFOrdNotEqual: case Op::OpFUnordNotEqual:
    case Op::OpFOrdLessThan: case Op::OpFUnordLessThan: case Op::OpFOrdGreaterThan:
    case Op::OpFUnordGreaterThan: case Op::OpFOrdLessThanEqual: case Op::OpFUnordLessThanEqual:
    case Op::OpFOrdGreaterThanEqual: case Op::OpFUnordGreaterThanEqual: case Op::OpSelect:
    case Op::OpUConvert: case Op::OpSConvert: case Op::OpFConvert: case Op::OpConvertFToU:
    case Op::OpConvertFToS: case Op::OpConvertSToF: case Op::OpConvertUToF: case Op::OpBitcast:
    case Op::OpBitCount: case Op::OpBitReverse: case Op::OpBitFieldInsert:
    case Op::OpBitFieldSExtract: case Op::OpBitFieldUExtract: {
      std::vector<uint32_t> parts;
      for (uint32_t k = 0; k < n; ++k) {
        std::vector<uint32_t> ops;
        for (uint32_t o : i.operands) ops.push_back(component(o, k));
        uint32_t part = i.opcode == Op::OpFDiv ? divide(ops[0], ops[1], elem)
                        : i.opcode == Op::OpSRem || i.opcode == Op::OpSMod
                            ? signed_remainder(i.opcode, ops[0], ops[1], elem)
                        : i.opcode == Op::OpBitCount ? count_bits(ops[0], elem)
                        : i.opcode == Op::OpBitReverse || i.opcode == Op::OpBitFieldInsert ||
                                i.opcode == Op::OpBitFieldSExtract || i.opcode == Op::OpBitFieldUExtract
                            ? bit_field(i.opcode, elem, ops)
                            : emit(i.opcode, elem, ops);
        if ((contraction_off_ || decoration(i.result_id, spv::Decoration::NoContraction)) &&
            (i.opcode == Op::OpFMul || i.opcode == Op::OpFAdd || i.opcode == Op::OpFSub))
          decorate(part, spv::Decoration::NoContraction);
        parts.push_back(part);
      }
      return finish(parts);
    }
    default:
      return fail("instruction on 8- or 16-component vectors not supported yet: " + describe(i));
  }
}

}  // namespace vkcl::k2s
