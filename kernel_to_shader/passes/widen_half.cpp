// widen-small-integers, half on a device without Float16: halves are carried in floats that
// hold half values. Moves, selections, comparisons, negation and the functions whose result
// is one of their inputs or an integer (fabs, floor, fmin, ...) are exact as they are. Add,
// subtract, multiply, divide and square root are computed in float and rounded to half once:
// float's 24 bits are more than 2 * 11 + 2, so that double rounding gives the correctly
// rounded half (Figueroa's condition). fma's exact sum is rounded to float with round-to-odd
// (TwoSum gives the error), which is safe to round again. Conversions from double go to half
// directly. Other functions (and the Vulkan instructions native_ functions use) are computed
// in float and rounded.
#include <spirv/unified1/GLSL.std.450.h>

#include <cstring>

#include "passes/widen_small_integers_impl.h"

namespace vkcl::k2s {

using spv::Op;

namespace {

bool exact_on_halves(Op op) {
  if (moves_values(op)) return true;
  switch (op) {
    case Op::OpFNegate: case Op::OpFOrdEqual: case Op::OpFUnordEqual: case Op::OpFOrdNotEqual:
    case Op::OpFUnordNotEqual: case Op::OpFOrdLessThan: case Op::OpFUnordLessThan:
    case Op::OpFOrdGreaterThan: case Op::OpFUnordGreaterThan: case Op::OpFOrdLessThanEqual:
    case Op::OpFUnordLessThanEqual: case Op::OpFOrdGreaterThanEqual:
    case Op::OpFUnordGreaterThanEqual: case Op::OpIsNan: case Op::OpIsInf:
    case Op::OpGroupNonUniformFMin: case Op::OpGroupNonUniformFMax:
      return true;
    default: return false;
  }
}

// Operations computed in float and rounded to half.
bool rounded_on_halves(Op op) {
  switch (op) {
    case Op::OpFAdd: case Op::OpFSub: case Op::OpFMul: case Op::OpFDiv: case Op::OpFRem:
    case Op::OpFMod: case Op::OpVectorTimesScalar: case Op::OpDot:
    case Op::OpGroupNonUniformFAdd: case Op::OpGroupNonUniformFMul:
      return true;
    default: return false;
  }
}

uint32_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

}  // namespace

uint32_t Widening::float_type(uint32_t width, uint32_t n) {
  uint32_t f = type(Op::OpTypeFloat, {width});
  return n == 1 ? f : type(Op::OpTypeVector, {f, n});
}

uint32_t Widening::bool_type(uint32_t n) {
  uint32_t b = type(Op::OpTypeBool, {});
  return n == 1 ? b : type(Op::OpTypeVector, {b, n});
}

uint32_t Widening::float_constant(uint32_t width, double value, uint32_t n) {
  std::vector<uint32_t> words;
  if (width == 64) {
    uint64_t b;
    std::memcpy(&b, &value, 8);
    words = {uint32_t(b), uint32_t(b >> 32)};
  } else {
    words = {float_bits(float(value))};
  }
  uint32_t c = intern(Op::OpConstant, float_type(width, 1), words);
  if (n == 1) return c;
  return intern(Op::OpConstantComposite, float_type(width, n), std::vector<uint32_t>(n, c));
}

uint32_t Widening::exact(Op op, uint32_t type, std::vector<uint32_t> operands) {
  uint32_t id = emit(op, type, std::move(operands));
  m_.annotations.emplace_back(Op::OpDecorate, 0, 0,
                              std::vector<uint32_t>{id, uint32_t(spv::Decoration::NoContraction)});
  return id;
}

uint32_t Widening::glsl_import() {
  if (!glsl_) {
    glsl_ = m_.take_id();
    ir::Instruction import(Op::OpExtInstImport, 0, glsl_);
    ir::append_string(&import.operands, "GLSL.std.450");
    m_.ext_inst_imports.push_back(import);
  }
  return glsl_;
}

uint32_t Widening::round_to_half(uint32_t v, uint32_t width, uint32_t n) {
  uint32_t ft = float_type(width, n), bt = bool_type(n);
  uint32_t ut = width == 64 ? (n == 1 ? u64() : type(Op::OpTypeVector, {u64(), n})) : u32s(n);
  auto uint_constant = [&](uint64_t value) {
    uint32_t c = width == 64 ? constant64(value) : constant(uint32_t(value), 1);
    return n == 1 ? c : intern(Op::OpConstantComposite, ut, std::vector<uint32_t>(n, c));
  };
  const uint32_t shift = width == 64 ? 42 : 13;  // fraction bits a half does not have
  const uint64_t exponent = width == 64 ? 0x7ff0000000000000ull : 0x7f800000u;
  const uint64_t sign = width == 64 ? 1ull << 63 : 1u << 31;
  uint32_t bits = emit(Op::OpBitcast, ut, {v});
  uint32_t magnitude = emit(Op::OpBitcast, ft, {emit(Op::OpBitwiseAnd, ut, {bits, uint_constant(~sign)})});
  // Below half's smallest normal the grid is 2^-24: scale, round to an integer, scale back.
  uint32_t tiny = emit(Op::OpFOrdLessThan, bt, {magnitude, float_constant(width, 0x1p-14, n)});
  uint32_t scaled = emit(Op::OpFMul, ft, {v, float_constant(width, 0x1p24, n)});
  uint32_t whole = emit(Op::OpExtInst, ft, {glsl_import(), GLSLstd450RoundEven, scaled});
  uint32_t denormal = emit(Op::OpFMul, ft, {whole, float_constant(width, 0x1p-24, n)});
  // Elsewhere drop the fraction bits half lacks, to nearest even on the bits (a carry runs
  // into the exponent, as it should).
  uint32_t lsb = emit(Op::OpBitwiseAnd, ut, {emit(Op::OpShiftRightLogical, ut, {bits, uint_constant(shift)}), uint_constant(1)});
  uint32_t up = emit(Op::OpIAdd, ut, {emit(Op::OpIAdd, ut, {bits, uint_constant((1ull << (shift - 1)) - 1)}), lsb});
  uint32_t rounded = emit(Op::OpBitcast, ft, {emit(Op::OpBitwiseAnd, ut, {up, uint_constant(~((1ull << shift) - 1))})});
  uint32_t rounded_bits = emit(Op::OpBitcast, ut, {rounded});
  uint32_t rounded_magnitude = emit(Op::OpBitcast, ft, {emit(Op::OpBitwiseAnd, ut, {rounded_bits, uint_constant(~sign)})});
  uint32_t overflow = emit(Op::OpFOrdGreaterThanEqual, bt, {rounded_magnitude, float_constant(width, 65536.0, n)});
  uint32_t infinity = emit(Op::OpBitcast, ft, {emit(Op::OpBitwiseOr, ut, {emit(Op::OpBitwiseAnd, ut, {bits, uint_constant(sign)}), uint_constant(exponent)})});
  uint32_t special = emit(Op::OpIEqual, bt, {emit(Op::OpBitwiseAnd, ut, {bits, uint_constant(exponent)}), uint_constant(exponent)});
  uint32_t r = emit(Op::OpSelect, ft, {overflow, infinity, rounded});
  r = emit(Op::OpSelect, ft, {special, v, r});
  r = emit(Op::OpSelect, ft, {tiny, denormal, r});
  return width == 64 ? emit(Op::OpFConvert, float_type(32, n), {r}) : r;
}

uint32_t Widening::fused_multiply_add(uint32_t a, uint32_t b, uint32_t c, uint32_t n) {
  uint32_t ft = float_type(32, n), ut = u32s(n), bt = bool_type(n);
  uint32_t p = exact(Op::OpFMul, ft, {a, b});  // 22 bits: exact
  uint32_t s = exact(Op::OpFAdd, ft, {p, c});
  uint32_t bp = exact(Op::OpFSub, ft, {s, c});
  uint32_t bc = exact(Op::OpFSub, ft, {s, bp});
  uint32_t err = exact(Op::OpFAdd, ft, {exact(Op::OpFSub, ft, {p, bp}), exact(Op::OpFSub, ft, {c, bc})});
  uint32_t zero = float_constant(32, 0.0, n);
  uint32_t inexact = emit(Op::OpFOrdNotEqual, bt, {err, zero});
  uint32_t smaller = emit(Op::OpLogicalNotEqual, bt, {emit(Op::OpFOrdLessThan, bt, {s, zero}),
                                                      emit(Op::OpFOrdLessThan, bt, {err, zero})});
  uint32_t sb = emit(Op::OpBitcast, ut, {s});
  uint32_t toward_zero = emit(Op::OpSelect, ut, {smaller, emit(Op::OpISub, ut, {sb, constant(1, n)}), sb});
  uint32_t odd = emit(Op::OpBitcast, ft, {emit(Op::OpBitwiseOr, ut, {toward_zero, constant(1, n)})});
  return round_to_half(emit(Op::OpSelect, ft, {inexact, odd, s}), 32, n);
}

uint32_t Widening::float_bits_to_half_bits(uint32_t x) {
  uint32_t u = u32(), b = bool_type(1);
  uint32_t bits = emit(Op::OpBitcast, u, {x});
  uint32_t sign = emit(Op::OpShiftRightLogical, u, {emit(Op::OpBitwiseAnd, u, {bits, constant(0x80000000u, 1)}), constant(16, 1)});
  uint32_t e = emit(Op::OpBitwiseAnd, u, {emit(Op::OpShiftRightLogical, u, {bits, constant(23, 1)}), constant(0xff, 1)});
  uint32_t m = emit(Op::OpBitwiseAnd, u, {bits, constant(0x7fffff, 1)});
  uint32_t m10 = emit(Op::OpShiftRightLogical, u, {m, constant(13, 1)});
  uint32_t normal = emit(Op::OpBitwiseOr, u, {emit(Op::OpShiftLeftLogical, u, {emit(Op::OpISub, u, {e, constant(112, 1)}), constant(10, 1)}), m10});
  uint32_t magnitude = emit(Op::OpBitcast, float_type(32, 1), {emit(Op::OpBitwiseAnd, u, {bits, constant(0x7fffffff, 1)})});
  uint32_t tiny = emit(Op::OpConvertFToU, u, {emit(Op::OpFMul, float_type(32, 1), {magnitude, float_constant(32, 0x1p24, 1)})});
  // A NaN keeps its half payload (signalling ones too); one whose payload lies only in the
  // bits a half lacks cannot come from a half, but stays a NaN.
  uint32_t lost = emit(Op::OpLogicalAnd, b, {emit(Op::OpINotEqual, b, {m, constant(0, 1)}),
                                             emit(Op::OpIEqual, b, {m10, constant(0, 1)})});
  uint32_t quiet = emit(Op::OpSelect, u, {lost, constant(0x200, 1), constant(0, 1)});
  uint32_t special = emit(Op::OpBitwiseOr, u, {emit(Op::OpBitwiseOr, u, {m10, quiet}), constant(0x7c00, 1)});
  uint32_t r = emit(Op::OpSelect, u, {emit(Op::OpIEqual, b, {e, constant(255, 1)}), special, normal});
  r = emit(Op::OpSelect, u, {emit(Op::OpULessThan, b, {e, constant(113, 1)}), tiny, r});
  return emit(Op::OpBitwiseOr, u, {r, sign});
}

uint32_t Widening::half_bits_to_float(uint32_t h) {
  uint32_t u = u32(), b = bool_type(1), f = float_type(32, 1);
  uint32_t sign = emit(Op::OpShiftLeftLogical, u, {emit(Op::OpBitwiseAnd, u, {h, constant(0x8000, 1)}), constant(16, 1)});
  uint32_t e = emit(Op::OpBitwiseAnd, u, {emit(Op::OpShiftRightLogical, u, {h, constant(10, 1)}), constant(0x1f, 1)});
  uint32_t m13 = emit(Op::OpShiftLeftLogical, u, {emit(Op::OpBitwiseAnd, u, {h, constant(0x3ff, 1)}), constant(13, 1)});
  uint32_t normal = emit(Op::OpBitwiseOr, u, {emit(Op::OpShiftLeftLogical, u, {emit(Op::OpIAdd, u, {e, constant(112, 1)}), constant(23, 1)}), m13});
  uint32_t special = emit(Op::OpBitwiseOr, u, {constant(0x7f800000u, 1), m13});
  uint32_t m = emit(Op::OpBitwiseAnd, u, {h, constant(0x3ff, 1)});
  uint32_t tiny = emit(Op::OpBitcast, u, {emit(Op::OpFMul, f, {emit(Op::OpConvertUToF, f, {m}), float_constant(32, 0x1p-24, 1)})});
  uint32_t r = emit(Op::OpSelect, u, {emit(Op::OpIEqual, b, {e, constant(31, 1)}), special, normal});
  r = emit(Op::OpSelect, u, {emit(Op::OpIEqual, b, {e, constant(0, 1)}), tiny, r});
  return emit(Op::OpBitcast, f, {emit(Op::OpBitwiseOr, u, {r, sign})});
}

bool Widening::half_instruction(const ir::Instruction& i) {
  const Op op = i.opcode;
  const TypeInfo& result = info(i.type_id);
  uint32_t type = mapped(i.type_id), n = result.count;
  if (exact_on_halves(op)) {
    out_->push_back(i);
    return true;
  }
  switch (op) {
    case Op::OpConvertFToU: case Op::OpConvertFToS: case Op::OpConvertSToF: case Op::OpConvertUToF:
      return convert(i);
    case Op::OpFConvert: {
      const TypeInfo& from = value_info(i.operands[0]);
      uint32_t v = i.operands[0];
      if (from.half && !result.half)  // exact
        emit_as(i, result.width == 32 ? Op::OpCopyObject : Op::OpFConvert, type, {v});
      else
        emit_as(i, Op::OpCopyObject, type, {round_to_half(v, from.width, n)});
      return true;
    }
    case Op::OpExtInst: return half_glsl(i);
    default: break;
  }
  if (rounded_on_halves(op) && result.half) {
    ir::Instruction wide = i;
    wide.result_id = m_.take_id();
    wide.type_id = type;
    out_->push_back(wide);
    emit_as(i, Op::OpCopyObject, type, {round_to_half(wide.result_id, 32, n)});
    return true;
  }
  return fail("opcode " + std::to_string(uint32_t(op)) + " on a half");
}

bool Widening::half_glsl(const ir::Instruction& i) {
  if (i.operands[0] != glsl_) return fail("an extended instruction on a half");
  const TypeInfo& result = info(i.type_id);
  uint32_t type = mapped(i.type_id);
  switch (GLSLstd450(i.operands[1])) {
    case GLSLstd450FAbs: case GLSLstd450FSign: case GLSLstd450Floor: case GLSLstd450Ceil:
    case GLSLstd450Trunc: case GLSLstd450Round: case GLSLstd450RoundEven: case GLSLstd450FMin:
    case GLSLstd450FMax: case GLSLstd450FClamp: case GLSLstd450NMin: case GLSLstd450NMax:
    case GLSLstd450NClamp: case GLSLstd450Step: case GLSLstd450Frexp: case GLSLstd450FrexpStruct:
      out_->push_back(i);
      return true;
    case GLSLstd450Fma:
      if (!result.half) break;
      emit_as(i, Op::OpCopyObject, type,
              {fused_multiply_add(i.operands[2], i.operands[3], i.operands[4], result.count)});
      return true;
    default:
      if (!result.half) break;
      ir::Instruction wide = i;
      wide.result_id = m_.take_id();
      wide.type_id = type;
      out_->push_back(wide);
      emit_as(i, Op::OpCopyObject, type, {round_to_half(wide.result_id, 32, result.count)});
      return true;
  }
  return fail("GLSL.std.450 instruction " + std::to_string(i.operands[1]) + " on a half");
}

}  // namespace vkcl::k2s
