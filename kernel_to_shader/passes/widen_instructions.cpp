// widen-small-integers, instruction by instruction. Every value of a widened type is a u32
// (or vector of them) holding the value zero-extended; each rule below keeps that true.
#include <spirv/unified1/GLSL.std.450.h>

#include "passes/widen_small_integers_impl.h"

namespace vkcl::k2s {

using spv::Op;

namespace {

// Operations whose result can carry out of the narrow width: computed in 32 bits, masked.
// Division and remainder by zero too: their value is undefined, and drivers give all ones
// (lavapipe), which would spill into the neighbouring lanes of a word.
bool carries_out(Op op) {
  switch (op) {
    case Op::OpIAdd: case Op::OpISub: case Op::OpIMul: case Op::OpShiftLeftLogical:
    case Op::OpNot: case Op::OpSNegate: case Op::OpUDiv: case Op::OpUMod:
      return true;
    default: return false;
  }
}

// Operations exact on zero-extended operands (or indifferent to what the bits mean).
bool exact_on_zero_extended(Op op) {
  if (moves_values(op)) return true;
  switch (op) {
    case Op::OpBitwiseAnd: case Op::OpBitwiseOr: case Op::OpBitwiseXor:
    case Op::OpShiftRightLogical: case Op::OpIEqual: case Op::OpINotEqual:
    case Op::OpULessThan: case Op::OpULessThanEqual: case Op::OpUGreaterThan:
    case Op::OpUGreaterThanEqual: case Op::OpConvertUToF: case Op::OpBitCount:
    case Op::OpGroupNonUniformBitwiseAnd: case Op::OpGroupNonUniformBitwiseOr:
    case Op::OpGroupNonUniformBitwiseXor: case Op::OpGroupNonUniformUMin:
    case Op::OpGroupNonUniformUMax:
      return true;
    default: return false;
  }
}

bool signed_compare(Op op) {
  return op == Op::OpSLessThan || op == Op::OpSLessThanEqual || op == Op::OpSGreaterThan ||
         op == Op::OpSGreaterThanEqual;
}

bool group_arithmetic(Op op) {
  switch (op) {
    case Op::OpGroupNonUniformIAdd: case Op::OpGroupNonUniformIMul: case Op::OpGroupNonUniformSMin:
    case Op::OpGroupNonUniformSMax: case Op::OpGroupNonUniformUMin: case Op::OpGroupNonUniformUMax:
    case Op::OpGroupNonUniformBitwiseAnd: case Op::OpGroupNonUniformBitwiseOr:
    case Op::OpGroupNonUniformBitwiseXor:
      return true;
    default: return false;
  }
}

}  // namespace

bool moves_values(Op op) {
  switch (op) {
    case Op::OpSelect: case Op::OpPhi: case Op::OpCopyObject: case Op::OpCompositeConstruct:
    case Op::OpCompositeExtract: case Op::OpCompositeInsert: case Op::OpVectorShuffle:
    case Op::OpVectorExtractDynamic: case Op::OpVectorInsertDynamic: case Op::OpLoad:
    case Op::OpStore: case Op::OpVariable: case Op::OpFunctionCall: case Op::OpReturnValue:
    case Op::OpAccessChain: case Op::OpInBoundsAccessChain: case Op::OpPtrAccessChain:
    case Op::OpGroupNonUniformBroadcast: case Op::OpGroupNonUniformBroadcastFirst:
    case Op::OpGroupNonUniformShuffle: case Op::OpGroupNonUniformShuffleXor:
    case Op::OpGroupNonUniformShuffleUp: case Op::OpGroupNonUniformShuffleDown:
    case Op::OpGroupNonUniformRotateKHR: case Op::OpGroupNonUniformAllEqual:
    case Op::OpGroupNonUniformQuadBroadcast: case Op::OpGroupNonUniformQuadSwap:
      return true;
    default: return false;
  }
}

bool Widening::is_literal(const ir::Instruction& i, size_t k) const {
  // The GroupOperation of sub-group reductions and scans (and of ballot bit counts).
  bool grouped = (i.opcode >= Op::OpGroupNonUniformIAdd && i.opcode <= Op::OpGroupNonUniformLogicalXor) ||
                 i.opcode == Op::OpGroupNonUniformBallotBitCount;
  if (grouped) return k == 1;
  return ir::is_literal_operand(i, k);
}

bool Widening::rewrite(const ir::Instruction& i) {
  const Op op = i.opcode;
  if (op == Op::OpConvertUToPtr && narrow_global_pointer(i.type_id)) {
    narrow_pointers_[i.result_id] = {i.operands[0], info(i.type_id).element};
    return true;
  }
  if (op == Op::OpLoad && narrow_pointers_.count(i.operands[0])) return load(i);
  if (op == Op::OpStore && narrow_pointers_.count(i.operands[0])) return store(i);
  bool small_operand = false, half_operand = false;
  for (size_t k = 0; k < i.operands.size(); ++k) {
    if (is_literal(i, k)) continue;
    if (narrow_pointers_.count(i.operands[k]))
      return fail("a pointer to 8- or 16-bit global data used by opcode " + std::to_string(uint32_t(op)));
    small_operand = small_operand || value_info(i.operands[k]).small;
    half_operand = half_operand || value_info(i.operands[k]).half;
  }
  const TypeInfo& result = info(i.type_id);
  uint32_t type = mapped(i.type_id);
  if (op == Op::OpBitcast) return bitcast(i);
  if (!result.contains_small && !small_operand && !half_operand) {
    out_->push_back(i);
    return true;
  }
  if (op == Op::OpUndef) {  // an undefined narrow value still has zero high bits
    emit_as(i, Op::OpCopyObject, type, {intern(Op::OpConstantNull, type, {})});
    return true;
  }
  if (result.half || half_operand) return half_instruction(i);
  if (carries_out(op) && result.small) {
    ir::Instruction wide = i;
    wide.result_id = m_.take_id();
    wide.type_id = type;
    out_->push_back(wide);
    emit_as(i, Op::OpBitwiseAnd, type, {wide.result_id, constant(lane_mask(result.width), result.count)});
    return true;
  }
  if (exact_on_zero_extended(op) || carries_out(op) ||
      (op == Op::OpShiftRightArithmetic && !result.small)) {
    out_->push_back(i);
    return true;
  }
  switch (op) {
    case Op::OpSDiv: case Op::OpSRem: case Op::OpSMod: case Op::OpShiftRightArithmetic: {
      uint32_t a = sign_extend_if_small(i.operands[0]);
      uint32_t b = op == Op::OpShiftRightArithmetic ? i.operands[1] : sign_extend_if_small(i.operands[1]);
      uint32_t wide = emit(op, type, {a, b});
      emit_as(i, Op::OpBitwiseAnd, type, {wide, constant(lane_mask(result.width), result.count)});
      return true;
    }
    case Op::OpUConvert: case Op::OpSConvert: case Op::OpConvertFToU: case Op::OpConvertFToS:
    case Op::OpConvertSToF:
      return convert(i);
    case Op::OpUMulExtended: case Op::OpSMulExtended: case Op::OpIAddCarry: case Op::OpISubBorrow:
      return extended_multiply(i);
    case Op::OpBitReverse: {
      uint32_t r = emit(op, type, {i.operands[0]});
      emit_as(i, Op::OpShiftRightLogical, type, {r, constant(32 - result.width, result.count)});
      return true;
    }
    case Op::OpExtInst: return glsl(i);
    case Op::OpSwitch: {
      ir::Instruction s = i;
      uint32_t keep = lane_mask(value_info(i.operands[0]).width);
      for (size_t k = 2; k < s.operands.size(); k += 2) s.operands[k] &= keep;
      out_->push_back(s);
      return true;
    }
    default: break;
  }
  if (signed_compare(op)) {
    emit_as(i, op, type, {sign_extend_if_small(i.operands[0]), sign_extend_if_small(i.operands[1])});
    return true;
  }
  if (group_arithmetic(op)) return group(i);
  return fail("opcode " + std::to_string(uint32_t(op)) + " on a narrow integer");
}

bool Widening::convert(const ir::Instruction& i) {
  const TypeInfo& to = info(i.type_id);
  const TypeInfo& from = value_info(i.operands[0]);
  uint32_t type = mapped(i.type_id), v = i.operands[0], n = to.count;
  switch (i.opcode) {
    case Op::OpConvertSToF: case Op::OpConvertUToF: {
      // From a narrow integer: sign-extend, then convert. To half: through float (an integer
      // too large for a float to hold exactly is far beyond half's range).
      if (i.opcode == Op::OpConvertSToF) v = sign_extend_if_small(v);
      if (!to.half) {
        emit_as(i, i.opcode, type, {v});
        return true;
      }
      uint32_t f = emit(i.opcode, float_type(32, n), {v});
      emit_as(i, Op::OpCopyObject, type, {round_to_half(f, 32, n)});
      return true;
    }
    case Op::OpConvertFToU: case Op::OpConvertFToS: {
      if (!to.small) {  // from a half: the float it is carried in converts the same
        emit_as(i, i.opcode, type, {v});
        return true;
      }
      // Every narrow value fits a signed 32-bit integer; out-of-range inputs wrap as in C.
      uint32_t wide = emit(Op::OpConvertFToS, u32s(n), {v});
      emit_as(i, Op::OpBitwiseAnd, type, {wide, constant(lane_mask(to.width), n)});
      return true;
    }
    default: break;
  }
  bool sign = i.opcode == Op::OpSConvert;
  if (from.small && sign) v = sign_extend(v, from.width, n);
  if (from.width == 64) v = emit(Op::OpUConvert, u32s(n), {v});  // to a narrow integer
  // From the narrow width the device has (char where only short is widened, or the reverse):
  // to 32 bits first, extended as the conversion says, so the mask below sees a u32.
  if (!from.small && from.width < 32) v = emit(sign ? Op::OpSConvert : Op::OpUConvert, u32s(n), {v});
  if (to.small) {
    if (!from.small || from.width > to.width || sign)
      emit_as(i, Op::OpBitwiseAnd, type, {v, constant(lane_mask(to.width), n)});
    else
      emit_as(i, Op::OpCopyObject, type, {v});
    return true;
  }
  // From a narrow integer to 32 or 64 bits (or to 16 bits that are not widened).
  if (to.width == 32) emit_as(i, Op::OpCopyObject, type, {v});
  else emit_as(i, sign ? Op::OpSConvert : Op::OpUConvert, type, {v});
  return true;
}

bool Widening::extended_multiply(const ir::Instruction& i) {
  const TypeInfo& t = value_info(i.operands[0]);
  if (!t.small) return fail("opcode " + std::to_string(uint32_t(i.opcode)) + " mixing widths");
  uint32_t n = t.count, lanes = u32s(n), a = i.operands[0], b = i.operands[1];
  uint32_t lo = 0, hi = 0;
  switch (i.opcode) {
    case Op::OpSMulExtended: {
      uint32_t p = emit(Op::OpIMul, lanes, {sign_extend(a, t.width, n), sign_extend(b, t.width, n)});
      lo = mask(p, t.width, n);
      hi = mask(emit(Op::OpShiftRightArithmetic, lanes, {p, constant(t.width, n)}), t.width, n);
      break;
    }
    case Op::OpUMulExtended: {
      uint32_t p = emit(Op::OpIMul, lanes, {a, b});
      lo = mask(p, t.width, n);
      hi = emit(Op::OpShiftRightLogical, lanes, {p, constant(t.width, n)});
      break;
    }
    case Op::OpIAddCarry: {
      uint32_t s = emit(Op::OpIAdd, lanes, {a, b});
      lo = mask(s, t.width, n);
      hi = emit(Op::OpShiftRightLogical, lanes, {s, constant(t.width, n)});
      break;
    }
    default: {  // OpISubBorrow: the difference of zero-extended values is negative exactly then
      uint32_t d = emit(Op::OpISub, lanes, {a, b});
      lo = mask(d, t.width, n);
      hi = emit(Op::OpShiftRightLogical, lanes, {d, constant(31, n)});
      break;
    }
  }
  emit_as(i, Op::OpCompositeConstruct, mapped(i.type_id), {lo, hi});
  return true;
}

bool Widening::glsl(const ir::Instruction& i) {
  if (i.operands[0] != glsl_) return fail("an extended instruction on a narrow integer");
  const TypeInfo& result = info(i.type_id);
  uint32_t type = mapped(i.type_id);
  std::vector<uint32_t> operands = i.operands;
  bool signed_operands = false;
  switch (GLSLstd450(i.operands[1])) {
    case GLSLstd450SAbs: case GLSLstd450SSign: case GLSLstd450SMin: case GLSLstd450SMax:
    case GLSLstd450SClamp: case GLSLstd450FindSMsb:
      signed_operands = true;
      break;
    case GLSLstd450UMin: case GLSLstd450UMax: case GLSLstd450UClamp: case GLSLstd450FindILsb:
    case GLSLstd450FindUMsb:
      break;
    default:
      return fail("GLSL.std.450 instruction " + std::to_string(i.operands[1]) + " on a narrow integer");
  }
  if (signed_operands)
    for (size_t k = 2; k < operands.size(); ++k) operands[k] = sign_extend_if_small(operands[k]);
  if (!result.small) {
    emit_as(i, Op::OpExtInst, type, operands);
    return true;
  }
  uint32_t wide = emit(Op::OpExtInst, type, operands);
  emit_as(i, Op::OpBitwiseAnd, type, {wide, constant(lane_mask(result.width), result.count)});
  return true;
}

bool Widening::group(const ir::Instruction& i) {
  const TypeInfo& result = info(i.type_id);
  uint32_t type = mapped(i.type_id), n = result.count;
  std::vector<uint32_t> operands = i.operands;
  bool smin = i.opcode == Op::OpGroupNonUniformSMin, smax = i.opcode == Op::OpGroupNonUniformSMax;
  if (smin || smax) operands[2] = sign_extend_if_small(operands[2]);
  uint32_t wide = emit(i.opcode, type, operands);
  if (smin || smax) {
    // An exclusive scan gives the first work-item the identity, the 32-bit extreme: the
    // narrow type's own extreme instead (no narrow value lies beyond it).
    uint32_t bound = constant(smax ? ~0u << (result.width - 1) : lane_mask(result.width - 1), n);
    uint32_t beyond = emit(smax ? Op::OpSLessThan : Op::OpSGreaterThan, bool_type(n), {wide, bound});
    wide = emit(Op::OpSelect, type, {beyond, bound, wide});
  }
  emit_as(i, Op::OpBitwiseAnd, type, {wide, constant(lane_mask(result.width), n)});
  return true;
}

// ---------------------------------------------------------------- bitcasts

uint32_t Widening::half2() {
  uint32_t half = type(Op::OpTypeFloat, {16});
  return type(Op::OpTypeVector, {half, 2});
}

uint32_t Widening::half_bits(uint32_t h) {
  if (widen_half_) return float_bits_to_half_bits(h);
  uint32_t half = type(Op::OpTypeFloat, {16});
  uint32_t zero = intern(Op::OpConstantNull, half, {});
  uint32_t pair = emit(Op::OpCompositeConstruct, half2(), {h, zero});
  return emit(Op::OpBitcast, u32(), {pair});
}

uint32_t Widening::half_from_bits(uint32_t b) {
  if (widen_half_) return half_bits_to_float(b);
  uint32_t pair = emit(Op::OpBitcast, half2(), {b});
  return emit(Op::OpCompositeExtract, type(Op::OpTypeFloat, {16}), {pair, 0});
}

bool Widening::to_pieces(uint32_t v, uint32_t t_id, std::vector<Piece>* pieces) {
  const TypeInfo& t = info(t_id);
  if (t.opcode == Op::OpTypeVector || t.opcode == Op::OpTypeArray) {
    for (uint32_t c = 0; c < t.count; ++c) {
      uint32_t part = emit(Op::OpCompositeExtract, mapped(t.element), {v, c});
      if (!to_pieces(part, t.element, pieces)) return false;
    }
    return true;
  }
  if (t.small || (t.width == 32 && !t.is_float)) {
    pieces->push_back({v, t.width});
  } else if (t.width == 32) {
    pieces->push_back({emit(Op::OpBitcast, u32(), {v}), 32});
  } else if (t.width == 64) {
    uint32_t pair = emit(Op::OpBitcast, u32s(2), {v});
    pieces->push_back({emit(Op::OpCompositeExtract, u32(), {pair, 0}), 32});
    pieces->push_back({emit(Op::OpCompositeExtract, u32(), {pair, 1}), 32});
  } else if (t.width == 16 && t.is_float) {
    pieces->push_back({half_bits(v), 16});
  } else if (t.width == 16 || t.width == 8) {  // a narrow integer this pass leaves alone
    pieces->push_back({emit(Op::OpUConvert, u32(), {v}), t.width});
  } else {
    return fail("a bitcast of an unexpected type");
  }
  return true;
}

// Takes the bits of a |type| value from |chunks| (32 bits each) at bit |*position|.
uint32_t Widening::from_bits(const std::vector<uint32_t>& chunks, uint32_t t_id, uint32_t* position) {
  const TypeInfo& t = info(t_id);
  if (t.opcode == Op::OpTypeVector || t.opcode == Op::OpTypeArray) {
    std::vector<uint32_t> parts;
    for (uint32_t c = 0; c < t.count; ++c) parts.push_back(from_bits(chunks, t.element, position));
    return emit(Op::OpCompositeConstruct, mapped(t_id), parts);
  }
  uint32_t chunk = chunks[*position / 32], shift = *position % 32;
  if (t.width == 64) {
    uint32_t pair = emit(Op::OpCompositeConstruct, u32s(2), {chunk, chunks[*position / 32 + 1]});
    *position += 64;
    return emit(Op::OpBitcast, mapped(t_id), {pair});
  }
  *position += t.width;
  uint32_t bits = shift ? emit(Op::OpShiftRightLogical, u32(), {chunk, constant(shift, 1)}) : chunk;
  if (shift + t.width < 32) bits = mask(bits, t.width, 1);
  if (t.small || (t.width == 32 && !t.is_float)) return bits;
  if (t.width == 32) return emit(Op::OpBitcast, mapped(t_id), {bits});
  if (t.is_float) return half_from_bits(bits);
  return emit(Op::OpUConvert, mapped(t_id), {bits});
}

bool Widening::bitcast(const ir::Instruction& i) {
  uint32_t from = old_type_[i.operands[0]];
  if (!info(i.type_id).contains_small && !info(from).contains_small) {
    out_->push_back(i);
    return true;
  }
  std::vector<Piece> pieces;
  if (!to_pieces(i.operands[0], from, &pieces)) return false;
  std::vector<uint32_t> chunks;
  uint32_t filled = 32;
  for (const Piece& p : pieces) {
    if (filled == 32) {
      chunks.push_back(p.id);
      filled = p.bits;
      continue;
    }
    uint32_t placed = emit(Op::OpShiftLeftLogical, u32(), {p.id, constant(filled, 1)});
    chunks.back() = emit(Op::OpBitwiseOr, u32(), {chunks.back(), placed});
    filled += p.bits;
    if (filled > 32) return fail("a bitcast whose pieces straddle words");
  }
  uint32_t position = 0;
  uint32_t v = from_bits(chunks, i.type_id, &position);
  emit_as(i, Op::OpCopyObject, mapped(i.type_id), {v});
  return true;
}

}  // namespace vkcl::k2s
