// SPV_KHR_bit_instructions (cl_khr_extended_bit_ops) at every integer width, and
// SPV_KHR_integer_dot_product (cl_khr_integer_dot_product) as plain arithmetic.
//
// Vulkan has OpBitFieldInsert/SExtract/UExtract/BitReverse for 32-bit integers only: 8- and
// 16-bit values are widened to 32 bits and narrowed back, 64-bit ones use shifts and masks.
// The dot products become widening multiplies and adds, which every device has; the
// saturating forms add in 64 bits and clamp.
#include "passes/lower_to_shader.h"

namespace vkcl::k2s {

using spv::Op;

namespace {
bool is_bit_op(Op op) {
  return op == Op::OpBitFieldInsert || op == Op::OpBitFieldSExtract ||
         op == Op::OpBitFieldUExtract || op == Op::OpBitReverse;
}
}  // namespace

// |ops| are output values: base [insert] [offset count]; offset and count are scalars.
uint32_t Lowering::bit_field(Op op, uint32_t type, const std::vector<uint32_t>& ops) {
  Shape s = shape_of(type);
  if (s.width == 32) return emit(op, type, ops);
  auto vec = [&](uint32_t scalar) { return s.count == 1 ? scalar : t_vec(scalar, s.count); };
  if (s.width < 32) {
    uint32_t wide = vec(t_uint(32));
    std::vector<uint32_t> w = ops;
    w[0] = emit(op == Op::OpBitFieldSExtract ? Op::OpSConvert : Op::OpUConvert, wide, {ops[0]});
    if (op == Op::OpBitFieldInsert) w[1] = emit(Op::OpUConvert, wide, {ops[1]});
    uint32_t r = emit(op, wide, w);
    if (op == Op::OpBitReverse)  // the reversed bits are now at the top of the word
      r = emit(Op::OpShiftRightLogical, wide, {r, splat32(32 - s.width, s.count)});
    return emit(Op::OpUConvert, type, {r});
  }
  uint32_t u32 = vec(t_uint(32));
  auto splat64 = [&](uint32_t scalar64) {
    if (s.count == 1) return scalar64;
    return emit(Op::OpCompositeConstruct, type, std::vector<uint32_t>(s.count, scalar64));
  };
  auto c64 = [&](uint64_t v) { return splat64(c_u64(v)); };
  if (op == Op::OpBitReverse) {
    uint32_t lo = emit(Op::OpBitReverse, u32, {emit(Op::OpUConvert, u32, {ops[0]})});
    uint32_t hi_half = emit(Op::OpShiftRightLogical, type, {ops[0], c64(32)});
    uint32_t hi = emit(Op::OpBitReverse, u32, {emit(Op::OpUConvert, u32, {hi_half})});
    uint32_t top = emit(Op::OpShiftLeftLogical, type, {emit(Op::OpUConvert, type, {lo}), c64(32)});
    return emit(Op::OpBitwiseOr, type, {top, emit(Op::OpUConvert, type, {hi})});
  }
  size_t at = op == Op::OpBitFieldInsert ? 2 : 1;
  uint32_t offset = splat64(emit(Op::OpUConvert, t_uint(64), {ops[at]}));
  uint32_t count = splat64(emit(Op::OpUConvert, t_uint(64), {ops[at + 1]}));
  uint32_t bools = vec(t_bool());
  uint32_t none = emit(Op::OpIEqual, bools, {count, c64(0)});
  // count ones, without a shift by 64 (its result is undefined)
  uint32_t ones = emit(Op::OpSelect, type,
                       {none, c64(0), emit(Op::OpShiftRightLogical, type,
                                           {c64(~0ull), emit(Op::OpISub, type, {c64(64), count})})});
  switch (op) {
    case Op::OpBitFieldInsert: {
      uint32_t field = emit(Op::OpShiftLeftLogical, type, {ones, offset});
      uint32_t kept = emit(Op::OpBitwiseAnd, type, {ops[0], emit(Op::OpNot, type, {field})});
      uint32_t placed = emit(Op::OpShiftLeftLogical, type,
                             {emit(Op::OpBitwiseAnd, type, {ops[1], ones}), offset});
      return emit(Op::OpBitwiseOr, type, {kept, placed});
    }
    case Op::OpBitFieldUExtract:
      return emit(Op::OpBitwiseAnd, type, {emit(Op::OpShiftRightLogical, type, {ops[0], offset}), ones});
    default: {  // signed: move the field to the top, then shift it down arithmetically
      uint32_t up = emit(Op::OpISub, type, {c64(64), emit(Op::OpIAdd, type, {offset, count})});
      uint32_t top = emit(Op::OpShiftLeftLogical, type, {ops[0], up});
      uint32_t down = emit(Op::OpShiftRightArithmetic, type,
                           {top, emit(Op::OpISub, type, {c64(64), count})});
      return emit(Op::OpSelect, type, {none, c64(0), down});
    }
  }
}

uint32_t Lowering::splat32(uint32_t v, uint32_t count) {
  if (count == 1) return c_u32(v);
  uint32_t id = take_id();
  out_.globals.emplace_back(Op::OpConstantComposite, t_vec(t_uint(32), count), id,
                            std::vector<uint32_t>(count, c_u32(v)));
  return id;
}

bool Lowering::lower_integer_ext(const ir::Instruction& i) {
  uint32_t rt = lower_type(i.type_id);
  if (is_bit_op(i.opcode)) {
    std::vector<uint32_t> ops;
    for (uint32_t o : i.operands) ops.push_back(value(o));
    bind(i.result_id, rt, bit_field(i.opcode, rt, ops));
    return !failed_;
  }
  // Dot products: a, b, [accumulator], [packed vector format literal].
  bool saturating = i.opcode == Op::OpSDotAccSat || i.opcode == Op::OpUDotAccSat ||
                    i.opcode == Op::OpSUDotAccSat;
  bool a_signed = i.opcode == Op::OpSDot || i.opcode == Op::OpSDotAccSat ||
                  i.opcode == Op::OpSUDot || i.opcode == Op::OpSUDotAccSat;
  bool b_signed = i.opcode == Op::OpSDot || i.opcode == Op::OpSDotAccSat;
  Shape rs = shape_of(rt);
  if (!rs.ok || rs.count != 1 || rs.width > 32)
    return fail("integer dot product with this result type: " + describe(i));
  uint32_t u64 = t_uint(64);
  const ir::Instruction* a_def = def(i.operands[0]);
  Shape in = shape_of(lower_type(a_def ? a_def->type_id : 0));
  if (!in.ok) return fail("integer dot product of this operand type: " + describe(i));
  bool packed = in.count == 1;  // four 8-bit values in a 32-bit integer
  uint32_t lanes = packed ? 4 : in.count;
  auto lane = [&](uint32_t v, uint32_t k, bool is_signed) {
    uint32_t x = 0;
    if (packed) {
      x = emit(is_signed ? Op::OpBitFieldSExtract : Op::OpBitFieldUExtract, t_uint(32),
               {v, c_u32(8 * k), c_u32(8)});
      return emit(is_signed ? Op::OpSConvert : Op::OpUConvert, u64, {x});
    }
    x = emit(Op::OpCompositeExtract, t_uint(in.width), {v, k});
    return emit(is_signed ? Op::OpSConvert : Op::OpUConvert, u64, {x});
  };
  uint32_t a = value(i.operands[0]), b = value(i.operands[1]);
  uint32_t sum = c_u64(0);
  for (uint32_t k = 0; k < lanes; ++k)
    sum = emit(Op::OpIAdd, u64, {sum, emit(Op::OpIMul, u64, {lane(a, k, a_signed), lane(b, k, b_signed)})});
  if (!saturating) {
    bind(i.result_id, rt, emit(Op::OpUConvert, rt, {sum}));
    return !failed_;
  }
  // The accumulator has the result's signedness: unsigned for OpUDotAccSat only.
  bool is_signed = i.opcode != Op::OpUDotAccSat;
  uint32_t acc = emit(is_signed ? Op::OpSConvert : Op::OpUConvert, u64, {value(i.operands[2])});
  uint32_t total = emit(Op::OpIAdd, u64, {sum, acc});
  uint32_t bt = t_bool();
  uint32_t w = rs.width;
  uint32_t clamped = 0;
  if (is_signed) {
    uint32_t lo = c_u64(uint64_t(-(int64_t(1) << (w - 1)))), hi = c_u64((uint64_t(1) << (w - 1)) - 1);
    uint32_t below = emit(Op::OpSLessThan, bt, {total, lo});
    uint32_t above = emit(Op::OpSGreaterThan, bt, {total, hi});
    clamped = emit(Op::OpSelect, u64, {below, lo, emit(Op::OpSelect, u64, {above, hi, total})});
  } else {
    uint32_t hi = c_u64((uint64_t(1) << w) - 1);
    clamped = emit(Op::OpSelect, u64, {emit(Op::OpUGreaterThan, bt, {total, hi}), hi, total});
  }
  bind(i.result_id, rt, emit(Op::OpUConvert, rt, {clamped}));
  return !failed_;
}

}  // namespace vkcl::k2s
