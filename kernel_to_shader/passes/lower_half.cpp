// vload_half / vstore_half and their n, a (aligned) and _r (rounding) forms: halves are kept
// as 16-bit patterns in memory and converted with integer arithmetic, so they need neither
// Float16 arithmetic nor Vulkan's PackHalf2x16, whose rounding is unspecified.
#include <spirv/unified1/OpenCL.std.h>

#include "passes/lower_to_shader.h"

namespace vkcl::k2s {

using spv::Op;
namespace cl = OpenCLLIB;

namespace {
// OpenCL.std rounding-mode operand values (the SPIR-V FPRoundingMode enumerants).
constexpr uint32_t kRTE = 0, kRTZ = 1, kRTP = 2, kRTN = 3;
}  // namespace

// Exact: every half is a float. |h| is a u32 holding the 16-bit pattern.
uint32_t Lowering::half_to_float(uint32_t h) {
  uint32_t u = t_uint(32), b = t_bool(), f = t_float(32);
  uint32_t sign = emit(Op::OpShiftLeftLogical, u, {emit(Op::OpBitwiseAnd, u, {h, c_u32(0x8000)}), c_u32(16)});
  uint32_t e = emit(Op::OpBitwiseAnd, u, {emit(Op::OpShiftRightLogical, u, {h, c_u32(10)}), c_u32(0x1f)});
  uint32_t m = emit(Op::OpBitwiseAnd, u, {h, c_u32(0x3ff)});
  uint32_t m13 = emit(Op::OpShiftLeftLogical, u, {m, c_u32(13)});
  // Normal: rebias the exponent (127 - 15 = 112).
  uint32_t normal = emit(Op::OpBitwiseOr, u, {emit(Op::OpShiftLeftLogical, u, {emit(Op::OpIAdd, u, {e, c_u32(112)}), c_u32(23)}), m13});
  // Infinity or NaN (payload kept).
  uint32_t special = emit(Op::OpBitwiseOr, u, {c_u32(0x7f800000), m13});
  // Zero or denormal: m * 2^-24, exact and normal in float.
  uint32_t tiny = emit(Op::OpBitcast, u, {emit(Op::OpFMul, f, {emit(Op::OpConvertUToF, f, {m}), constant(f, {0x33800000})})});
  uint32_t bits = emit(Op::OpSelect, u, {emit(Op::OpIEqual, b, {e, c_u32(0)}), tiny,
                                         emit(Op::OpSelect, u, {emit(Op::OpIEqual, b, {e, c_u32(31)}), special, normal})});
  return emit(Op::OpBitcast, f, {emit(Op::OpBitwiseOr, u, {bits, sign})});
}

uint32_t Lowering::widen_half(uint32_t h, uint32_t rt, bool from_bits) {
  if (!from_bits && !ctx_.caps.widen_half_from_bits) return emit(Op::OpFConvert, rt, {h});
  Shape s = shape_of(rt);
  uint32_t f32 = t_float(32), u32 = t_uint(32), h16 = t_float(16);
  std::vector<uint32_t> parts;
  for (uint32_t k = 0; k < s.count; ++k) {
    uint32_t hk = s.count == 1 ? h : emit(Op::OpCompositeExtract, h16, {h, k});
    uint32_t bits = emit(Op::OpUConvert, u32, {emit(Op::OpBitcast, t_uint(16), {hk})});
    parts.push_back(half_to_float(bits));
  }
  uint32_t ft = s.count == 1 ? f32 : t_vec(f32, s.count);
  uint32_t r = s.count == 1 ? parts[0] : emit(Op::OpCompositeConstruct, ft, parts);
  return s.width == 32 ? r : emit(Op::OpFConvert, rt, {r});
}

// Correctly rounded in |mode|, from a float or (|width| 64) a double, with integer arithmetic
// on its bits at its own width (a double goes to half directly: through float it would be
// rounded twice); returns a u32 holding the 16-bit pattern.
uint32_t Lowering::float_to_half(uint32_t x, uint32_t mode, uint32_t width) {
  const uint64_t mbits = width == 64 ? 52 : 23, bias = width == 64 ? 1023 : 127;
  uint32_t u = t_uint(width), b = t_bool();
  auto k = [&](uint64_t v) { return c_uint(width, v); };
  auto op = [&](Op o, uint32_t a, uint32_t c) { return emit(o, u, {a, c}); };
  auto sel = [&](uint32_t c, uint32_t a, uint32_t d) { return emit(Op::OpSelect, u, {c, a, d}); };
  auto cmp = [&](Op o, uint32_t a, uint32_t c) { return emit(o, b, {a, c}); };
  const uint64_t sign_bit = uint64_t(1) << (width - 1);
  uint32_t bits = emit(Op::OpBitcast, u, {x});
  uint32_t negative = cmp(Op::OpINotEqual, op(Op::OpBitwiseAnd, bits, k(sign_bit)), k(0));
  uint32_t sign16 = op(Op::OpShiftRightLogical, op(Op::OpBitwiseAnd, bits, k(sign_bit)), k(width - 16));
  uint32_t E = op(Op::OpBitwiseAnd, op(Op::OpShiftRightLogical, bits, k(mbits)), k(2 * bias + 1));
  uint32_t M = op(Op::OpBitwiseAnd, bits, k((uint64_t(1) << mbits) - 1));
  // Normal halves (exponent bias-14 .. bias+15): keep 10 mantissa bits, round off the rest.
  uint32_t normal_base = op(Op::OpBitwiseOr, op(Op::OpShiftLeftLogical, op(Op::OpISub, E, k(bias - 15)), k(10)),
                            op(Op::OpShiftRightLogical, M, k(mbits - 10)));
  uint32_t normal_rem = op(Op::OpBitwiseAnd, M, k((uint64_t(1) << (mbits - 10)) - 1));
  // Denormal halves: the full significand shifted right by bias + mbits - 24 - E, at most
  // mbits + 2 (all bits go).
  uint32_t full = sel(cmp(Op::OpIEqual, E, k(0)), M, op(Op::OpBitwiseOr, M, k(uint64_t(1) << mbits)));
  const uint64_t top = bias + mbits - 24;
  uint32_t shift = sel(cmp(Op::OpUGreaterThan, E, k(top - mbits - 2)), op(Op::OpISub, k(top), E), k(mbits + 2));
  uint32_t den_base = op(Op::OpShiftRightLogical, full, shift);
  uint32_t den_rem = op(Op::OpBitwiseAnd, full, op(Op::OpISub, op(Op::OpShiftLeftLogical, k(1), shift), k(1)));
  uint32_t is_normal = cmp(Op::OpUGreaterThanEqual, E, k(bias - 14));
  uint32_t base = sel(is_normal, normal_base, den_base);
  uint32_t rem = sel(is_normal, normal_rem, den_rem);
  uint32_t half = sel(is_normal, k(uint64_t(1) << (mbits - 11)), op(Op::OpShiftLeftLogical, k(1), op(Op::OpISub, shift, k(1))));
  uint32_t inexact = cmp(Op::OpINotEqual, rem, k(0));
  uint32_t inc = 0;
  switch (mode) {
    case kRTZ: inc = c_bool(false); break;
    case kRTP: inc = emit(Op::OpLogicalAnd, b, {inexact, emit(Op::OpLogicalNot, b, {negative})}); break;
    case kRTN: inc = emit(Op::OpLogicalAnd, b, {inexact, negative}); break;
    default: {
      uint32_t odd = cmp(Op::OpINotEqual, op(Op::OpBitwiseAnd, base, k(1)), k(0));
      uint32_t tie = emit(Op::OpLogicalAnd, b, {cmp(Op::OpIEqual, rem, half), odd});
      inc = emit(Op::OpLogicalOr, b, {cmp(Op::OpUGreaterThan, rem, half), tie});
    }
  }
  // A carry out of the mantissa bumps the exponent; out of the largest half it gives inf.
  uint32_t rounded = op(Op::OpIAdd, base, sel(inc, k(1), k(0)));
  // Too large for a half (|x| >= 2^16): infinity, or the largest half when rounding away
  // from infinity.
  uint32_t to_inf = mode == kRTZ ? c_bool(false)
                    : mode == kRTP ? emit(Op::OpLogicalNot, b, {negative})
                    : mode == kRTN ? negative
                                   : c_bool(true);
  uint32_t overflow = sel(to_inf, k(0x7c00), k(0x7bff));
  uint32_t mag = sel(cmp(Op::OpUGreaterThanEqual, E, k(bias + 16)), overflow, rounded);
  // Infinity stays infinity; NaN stays a (quiet) NaN.
  uint32_t nan = op(Op::OpBitwiseOr, k(0x7e00), op(Op::OpBitwiseAnd, op(Op::OpShiftRightLogical, M, k(mbits - 10)), k(0x3ff)));
  uint32_t special = sel(cmp(Op::OpIEqual, M, k(0)), k(0x7c00), nan);
  mag = sel(cmp(Op::OpIEqual, E, k(2 * bias + 1)), special, mag);
  uint32_t r = op(Op::OpBitwiseOr, mag, sign16);
  return width == 32 ? r : emit(Op::OpUConvert, t_uint(32), {r});
}

bool Lowering::lower_half_memory(const ir::Instruction& i) {
  uint32_t n = i.operands[1];
  bool load = n == cl::Vload_half || n == cl::Vload_halfn || n == cl::Vloada_halfn;
  bool aligned = n == cl::Vloada_halfn || n == cl::Vstorea_halfn || n == cl::Vstorea_halfn_r;
  // Operands: loads (offset, p[, n]); stores (data, offset, p[, mode]).
  uint32_t off_in = i.operands[load ? 2 : 3];
  uint32_t ptr_in = i.operands[load ? 3 : 4];
  uint32_t count = 1, width = 32;
  if (load) {
    count = shape_of(lower_type(i.type_id)).count;
  } else {
    Shape ds = shape_of(lower_type(def(i.operands[2])->type_id));
    if ((ds.width != 32 && ds.width != 64) || !ds.is_float)
      return fail("vstore_half of a value neither float nor double: " + describe(i));
    count = ds.count;
    width = ds.width;
  }
  uint32_t mode = kRTE;
  if (n == cl::Vstore_half_r || n == cl::Vstore_halfn_r || n == cl::Vstorea_halfn_r)
    mode = i.operands[5];
  AddressFormat f = format_of(pointer_storage(def(ptr_in)->type_id));
  uint32_t ow = def(def(off_in)->type_id)->operands[0];
  // vloada_half3/vstorea_half3 step by four halves.
  uint32_t stride = aligned && count == 3 ? 4 : count;
  uint32_t aw = address_width(f);
  uint32_t off = to_width(value(off_in), ow, aw, false);
  off = emit(Op::OpIMul, t_uint(aw), {off, c_offset(f, uint64_t(stride) * 2)});
  uint32_t base = checked(f, add_offset(f, value(ptr_in), off), c_u32(count * 2),
                          load ? "vload_half" : "vstore_half");
  uint32_t u16 = t_uint(16), u32 = t_uint(32);
  uint32_t alignment = aligned ? stride * 2 : 2;
  if (load) {
    std::vector<uint32_t> parts;
    for (uint32_t c = 0; c < count; ++c) {
      uint32_t a = c ? add_offset(f, base, c_offset(f, c * 2)) : base;
      uint32_t h = load_out(f, a, u16, c ? 2 : alignment);
      parts.push_back(half_to_float(emit(Op::OpUConvert, u32, {h})));
    }
    uint32_t rt = lower_type(i.type_id);
    bind(i.result_id, rt, count == 1 ? parts[0] : emit(Op::OpCompositeConstruct, rt, parts));
    return !failed_;
  }
  uint32_t data = value(i.operands[2]);
  for (uint32_t c = 0; c < count; ++c) {
    uint32_t x = count == 1 ? data : emit(Op::OpCompositeExtract, t_float(width), {data, c});
    uint32_t h = emit(Op::OpUConvert, u16, {float_to_half(x, mode, width)});
    uint32_t a = c ? add_offset(f, base, c_offset(f, c * 2)) : base;
    store_out(f, a, u16, h, c ? 2 : alignment);
  }
  return !failed_;
}

}  // namespace vkcl::k2s
