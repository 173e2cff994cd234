// OpenCL C conversions, convert_<type>[_sat][_rte|_rtz|_rtp|_rtn] (OpenCL C 6.4.3). Kernel
// SPIR-V writes them as the conversion instructions with SaturatedConversion and
// FPRoundingMode decorations; Vulkan allows neither decoration on 32-bit results, so the
// saturation and the rounding are made explicit here out of plain instructions.
//
// What Vulkan guarantees and what this relies on: OpConvertFToS/FToU truncate (SPIR-V "round
// toward 0.0"); OpConvertSToF/UToF and a narrowing OpFConvert return one of the two
// representable neighbours of the exact value (the implementation rounds to nearest even,
// which is what the undecorated and _rte forms need). The directed modes take that
// neighbour, compare it with the exact input, and step one unit in the last place where it
// lies on the wrong side, so they are exact whichever neighbour the device picked.
#include "passes/lower_to_shader.h"

#include <algorithm>

namespace vkcl::k2s {

using spv::Op;

namespace {

enum class Round { Default, RTE, RTZ, RTP, RTN };

struct FloatFormat {
  uint32_t mantissa;  // stored fraction bits
  uint32_t bias;      // also the largest exponent of a finite value
};

FloatFormat float_format(uint32_t width) {
  if (width == 16) return {10, 15};
  if (width == 64) return {52, 1023};
  return {23, 127};
}

// Emits conversions of values with |count| (1 to 4) components.
class Converter {
 public:
  Converter(Lowering& l, uint32_t count) : l_(l), n_(count) {}

  uint32_t int_type(uint32_t w) { return l_.t_vec(l_.t_uint(w), n_); }
  uint32_t float_type(uint32_t w) { return l_.t_vec(l_.t_float(w), n_); }
  uint32_t bool_type() { return l_.t_vec(l_.t_bool(), n_); }
  uint32_t op(Op o, uint32_t type, std::vector<uint32_t> args) {
    return l_.emit(o, type, std::move(args));
  }
  uint32_t splat(uint32_t type, uint32_t scalar) {
    if (n_ == 1) return scalar;
    return op(Op::OpCompositeConstruct, type, std::vector<uint32_t>(n_, scalar));
  }
  uint32_t int_const(uint32_t w, uint64_t v) { return splat(int_type(w), l_.c_uint(w, v)); }
  uint32_t bool_const(bool v) { return splat(bool_type(), l_.c_bool(v)); }
  uint32_t float_zero(uint32_t w) { return splat(float_type(w), l_.c_null(l_.t_float(w))); }
  // +-2^e as a float of |w| bits; +-infinity where 2^e is beyond the format's range, which
  // makes "x >= 2^e" read "x is +infinity" there, still the right test.
  uint32_t pow2(uint32_t w, uint32_t e, bool negative) {
    FloatFormat f = float_format(w);
    uint64_t exponent = e <= f.bias ? e + f.bias : (1ull << (w - 1 - f.mantissa)) - 1;
    uint64_t bits = (uint64_t(negative) << (w - 1)) | (exponent << f.mantissa);
    std::vector<uint32_t> words = {uint32_t(bits)};
    if (w == 64) words.push_back(uint32_t(bits >> 32));
    return splat(float_type(w), l_.constant(l_.t_float(w), words));
  }
  // The largest float of |w| bits below 2^e (2^e exact in the format).
  uint32_t below_pow2(uint32_t w, uint32_t e) {
    FloatFormat f = float_format(w);
    uint64_t bits = ((uint64_t(e) + f.bias) << f.mantissa) - 1;
    std::vector<uint32_t> words = {uint32_t(bits)};
    if (w == 64) words.push_back(uint32_t(bits >> 32));
    return splat(float_type(w), l_.constant(l_.t_float(w), words));
  }
  uint32_t select(uint32_t type, uint32_t cond, uint32_t a, uint32_t b) {
    return op(Op::OpSelect, type, {cond, a, b});
  }
  uint32_t any(uint32_t a, uint32_t b) { return op(Op::OpLogicalOr, bool_type(), {a, b}); }
  uint32_t both(uint32_t a, uint32_t b) { return op(Op::OpLogicalAnd, bool_type(), {a, b}); }
  uint32_t negate(uint32_t a) { return op(Op::OpLogicalNot, bool_type(), {a}); }

  // Integer width change without saturation (C99 6.3.1.3: modulo, or truncation).
  uint32_t resize(uint32_t x, uint32_t from, uint32_t to, bool is_signed) {
    if (from == to) return x;
    return op(is_signed && to > from ? Op::OpSConvert : Op::OpUConvert, int_type(to), {x});
  }

  // OpenCL C 6.4.3.3: "When in saturated mode, values that are outside the representable
  // range shall clamp to the nearest representable value in the destination format."
  uint32_t int_to_int(uint32_t x, uint32_t from, bool from_signed, uint32_t to, bool to_signed,
                      bool sat) {
    if (!sat) return resize(x, from, to, from_signed);
    // Clamping happens at the source width, before any extension: a widening conversion only
    // needs negatives cut to 0 (signed to unsigned), which fits the source width. (Comparing
    // a sign-extended value and selecting it also trips lavapipe 22.3, which returns the
    // unclamped value.)
    uint32_t t = int_type(from);
    uint32_t v = x;
    uint64_t mask = from == 64 ? ~0ull : (1ull << from) - 1;
    uint64_t hi = to_signed ? (1ull << (to - 1)) - 1 : (to == 64 ? ~0ull : (1ull << to) - 1);
    auto clamp_above = [&] {
      uint32_t h = int_const(from, hi);
      // Unsigned comparison: the source is unsigned or has been made non-negative.
      v = select(t, op(Op::OpUGreaterThan, bool_type(), {v, h}), h, v);
    };
    if (from_signed && to_signed) {
      if (to < from) {
        uint32_t lo = int_const(from, (~0ull << (to - 1)) & mask);
        uint32_t h = int_const(from, hi);
        v = select(t, op(Op::OpSLessThan, bool_type(), {v, lo}), lo, v);
        v = select(t, op(Op::OpSGreaterThan, bool_type(), {v, h}), h, v);
      }
    } else if (from_signed) {  // to unsigned
      // v & ~(v >> (from - 1)): negatives become 0 without a compare-and-select, which
      // lavapipe 22.3 folds wrongly when v is itself a sign extension.
      uint32_t sign = op(Op::OpShiftRightArithmetic, t, {v, int_const(from, from - 1)});
      v = op(Op::OpBitwiseAnd, t, {v, op(Op::OpNot, t, {sign})});
      if (to < from) clamp_above();
    } else if (to_signed) {  // from unsigned
      if (to <= from) clamp_above();
    } else if (to < from) {
      clamp_above();
    }
    // Only signed to signed extends the sign; every other clamped value is non-negative.
    return resize(v, from, to, from_signed && to_signed);
  }

  // Float to integer: "_rtz for conversion to integers" by default; with _sat out-of-range
  // values clamp and "NaN should be converted to 0".
  uint32_t float_to_int(uint32_t x, uint32_t fw, uint32_t iw, bool to_signed, bool sat,
                        Round r) {
    uint32_t ft = float_type(fw);
    uint32_t v = x;
    // Rounding to an integral value first is exact; the conversion then only truncates.
    int glsl_op = r == Round::RTE ? 2 /*RoundEven*/ : r == Round::RTP ? 9 /*Ceil*/
                : r == Round::RTN ? 8 /*Floor*/ : 0;
    if (glsl_op) v = op(Op::OpExtInst, ft, {l_.glsl_import(), uint32_t(glsl_op), x});
    // Results narrower than 32 bits convert through 32 bits: in-range values are unchanged
    // and out-of-range ones (implementation-defined without _sat) wrap as C casts do.
    uint32_t cw = std::max(iw, 32u);
    if (!sat && fw >= 32) {
      // Out-of-range values and NaN are implementation-defined without _sat (6.4.3.3); they
      // clamp into the range of the 32- or 64-bit conversion and NaN becomes 0, as GPUs'
      // conversions do. Vulkan leaves them undefined: lavapipe gives INT_MIN, which libclc's
      // double cosh, for one, then uses as a table index (min(INT_MIN, 36)).
      uint32_t top = to_signed ? cw - 1 : cw;
      uint32_t low = to_signed ? pow2(fw, cw - 1, true) : float_zero(fw);
      v = op(Op::OpExtInst, ft, {l_.glsl_import(), 81 /*NClamp*/, v, low, below_pow2(fw, top)});
      v = select(ft, op(Op::OpIsNan, bool_type(), {x}), float_zero(fw), v);
    }
    uint32_t converted = resize(
        op(to_signed ? Op::OpConvertFToS : Op::OpConvertFToU, int_type(cw), {v}), cw, iw,
        false);
    if (!sat) return converted;
    uint32_t it = int_type(iw);
    uint32_t b = bool_type();
    uint32_t magnitude_bits = to_signed ? iw - 1 : iw;
    uint64_t hi = iw == 64 && !to_signed ? ~0ull : (1ull << magnitude_bits) - 1;
    uint32_t lo = to_signed ? int_const(iw, ~0ull << (iw - 1)) : int_const(iw, 0);
    // v >= 2^bits is above the range; v <= the lowest value (an exact power of two, or 0)
    // is at or below it. Both thresholds are exact in every float format or are infinities.
    uint32_t above = op(Op::OpFOrdGreaterThanEqual, b, {v, pow2(fw, magnitude_bits, false)});
    uint32_t below = op(Op::OpFOrdLessThanEqual, b,
                        {v, to_signed ? pow2(fw, iw - 1, true) : float_zero(fw)});
    uint32_t res = select(it, above, int_const(iw, hi), converted);
    res = select(it, below, lo, res);
    return select(it, op(Op::OpIsNan, b, {v}), int_const(iw, 0), res);
  }

  // Moves |c|, a float neighbour of an exact value, one unit in the last place toward the
  // side |r| asks for. |above|/|below|: c lies above/below the exact value; |negative|: the
  // exact value is negative (then c has the same sign, or is -0).
  uint32_t step(uint32_t c, uint32_t fw, uint32_t above, uint32_t below, uint32_t negative,
                Round r) {
    uint32_t it = int_type(fw);
    uint32_t bits = op(Op::OpBitcast, it, {c});
    uint32_t up = int_const(fw, 1);                 // magnitude one unit larger
    uint32_t down = int_const(fw, ~0ull);           // magnitude one unit smaller
    uint32_t adjust = 0, delta = 0;
    switch (r) {
      case Round::RTP: adjust = below; delta = select(it, negative, down, up); break;
      case Round::RTN: adjust = above; delta = select(it, negative, up, down); break;
      case Round::RTZ:
        adjust = select(bool_type(), negative, below, above);
        delta = down;
        break;
      default: return c;
    }
    uint32_t moved = op(Op::OpIAdd, it, {bits, delta});
    return op(Op::OpBitcast, float_type(fw), {select(it, adjust, moved, bits)});
  }

  // Integer to float: "the default rounding mode will be _rte for floating-point types".
  uint32_t int_to_float(uint32_t x, uint32_t iw, bool from_signed, uint32_t fw, Round r) {
    FloatFormat f = float_format(fw);
    uint32_t c = op(from_signed ? Op::OpConvertSToF : Op::OpConvertUToF, float_type(fw), {x});
    uint32_t magnitude_bits = from_signed ? iw - 1 : iw;
    bool exact = magnitude_bits <= f.mantissa + 1;
    if (exact || r == Round::Default || r == Round::RTE) return c;
    uint32_t b = bool_type();
    // Compare |c| with |x| as 64-bit integers. |c| is decoded from its bits (converting c
    // back with OpConvertFToU is folded to x by the driver's optimiser). c = 2^magnitude_bits
    // (or infinity) is above every x and is flagged by a float compare instead.
    uint32_t w = 64, t = int_type(w);
    uint32_t bits = resize(op(Op::OpBitcast, int_type(fw), {c}), fw, w, false);
    uint64_t exp_mask = (1ull << (fw - 1 - f.mantissa)) - 1;
    uint32_t exponent = op(Op::OpBitwiseAnd, t, {op(Op::OpShiftRightLogical, t, {bits, int_const(w, f.mantissa)}), int_const(w, exp_mask)});
    uint32_t mantissa = op(Op::OpBitwiseOr, t, {op(Op::OpBitwiseAnd, t, {bits, int_const(w, (1ull << f.mantissa) - 1)}), int_const(w, 1ull << f.mantissa)});
    // |c| = mantissa * 2^(exponent - bias - fraction bits); the right shift is capped so
    // that zero (exponent 0) decodes to 0.
    uint32_t base = int_const(w, f.bias + f.mantissa);
    uint32_t left = op(Op::OpUGreaterThanEqual, b, {exponent, base});
    uint32_t up_shift = op(Op::OpISub, t, {exponent, base});
    uint32_t down_shift = op(Op::OpExtInst, t, {l_.glsl_import(), 38 /*UMin*/, op(Op::OpISub, t, {base, exponent}), int_const(w, 63)});
    uint32_t safe_up = select(t, left, up_shift, int_const(w, 0));
    uint32_t magnitude = select(t, left, op(Op::OpShiftLeftLogical, t, {mantissa, safe_up}),
                                op(Op::OpShiftRightLogical, t, {mantissa, down_shift}));
    uint32_t wide_x = resize(x, iw, w, from_signed);
    uint32_t x_negative = from_signed ? op(Op::OpSLessThan, b, {x, int_const(iw, 0)})
                                      : bool_const(false);
    uint32_t x_magnitude = wide_x;
    if (from_signed) {  // (x ^ s) - s with s = x >> 63: |x|, also for the most negative x
      uint32_t sign = op(Op::OpShiftRightArithmetic, t, {wide_x, int_const(w, 63)});
      x_magnitude = op(Op::OpISub, t, {op(Op::OpBitwiseXor, t, {wide_x, sign}), sign});
    }
    uint32_t over = op(Op::OpFOrdGreaterThanEqual, b, {c, pow2(fw, magnitude_bits, false)});
    if (from_signed && iw - 1 > f.bias)  // -2^(iw-1) rounds to -infinity: also too far out
      over = any(over, op(Op::OpFOrdLessThanEqual, b, {c, pow2(fw, iw - 1, true)}));
    uint32_t farther = any(over, op(Op::OpUGreaterThan, b, {magnitude, x_magnitude}));
    uint32_t nearer = both(negate(over), op(Op::OpULessThan, b, {magnitude, x_magnitude}));
    uint32_t above = select(b, x_negative, nearer, farther);
    uint32_t below = select(b, x_negative, farther, nearer);
    return step(c, fw, above, below, x_negative, r);
  }

  // Float to float. Widening is exact; narrowing compares the result widened back (exact)
  // with the input. NaN compares neither above nor below and stays NaN; overflow to
  // infinity steps back to the largest finite value where the mode says so.
  // Half |h| as a float of |w| bits (32 or 64), computed from its bits (lower_half.cpp).
  uint32_t float_to_float(uint32_t x, uint32_t from, uint32_t to, Round r) {
    if (from == to) return x;
    if (from == 64 && to == 16) {
      // From the double's bits in every mode (lower_half.cpp): lavapipe's OpFConvert goes
      // through float and rounds twice (1 + 2^-11 + 2^-40 became 1).
      uint32_t mode = r == Round::RTZ ? 1 : r == Round::RTP ? 2 : r == Round::RTN ? 3 : 0;
      uint32_t h16 = l_.t_float(16);
      std::vector<uint32_t> parts;
      for (uint32_t k = 0; k < n_; ++k) {
        uint32_t xk = n_ == 1 ? x : op(Op::OpCompositeExtract, l_.t_float(64), {x, k});
        uint32_t bits = op(Op::OpUConvert, l_.t_uint(16), {l_.float_to_half(xk, mode, 64)});
        parts.push_back(op(Op::OpBitcast, h16, {bits}));
      }
      return n_ == 1 ? parts[0] : op(Op::OpCompositeConstruct, float_type(16), parts);
    }
    if (from == 16) return l_.widen_half(x, float_type(to));
    uint32_t c = op(Op::OpFConvert, float_type(to), {x});
    if (to > from || r == Round::Default || r == Round::RTE) return c;
    uint32_t b = bool_type();
    // The rounded value widened again, exactly. A half is always widened from its bits here:
    // NVIDIA folds a float -> half -> float round trip into the identity, and every directed
    // rounding then kept the nearest value.
    uint32_t back = to == 16 ? l_.widen_half(c, float_type(from), true) : op(Op::OpFConvert, float_type(from), {c});
    uint32_t above = op(Op::OpFOrdGreaterThan, b, {back, x});
    uint32_t below = op(Op::OpFOrdLessThan, b, {back, x});
    uint32_t negative = op(Op::OpFOrdLessThan, b, {x, float_zero(from)});
    return step(c, to, above, below, negative, r);
  }

 private:
  Lowering& l_;
  uint32_t n_;
};

struct ScalarKind {
  uint32_t width = 0;
  bool is_float = false;
  bool ok = false;
};

}  // namespace

bool Lowering::lower_conversion(const ir::Instruction& i) {
  const ir::Instruction* src = def(i.operands[0]);
  auto kind_of = [&](uint32_t in_type) {
    ScalarKind k;
    const ir::Instruction* t = def(in_type);
    if (t && t->opcode == Op::OpTypeVector) t = def(t->operands[0]);
    if (t && (t->opcode == Op::OpTypeInt || t->opcode == Op::OpTypeFloat)) {
      k.width = t->operands[0];
      k.is_float = t->opcode == Op::OpTypeFloat;
      k.ok = true;
    }
    return k;
  };
  if (!src || !src->type_id) return fail("conversion of an unknown value: " + describe(i));
  ScalarKind from = kind_of(src->type_id), to = kind_of(i.type_id);
  bool from_float = i.opcode == Op::OpConvertFToS || i.opcode == Op::OpConvertFToU ||
                    i.opcode == Op::OpFConvert;
  bool to_float = i.opcode == Op::OpConvertSToF || i.opcode == Op::OpConvertUToF ||
                  i.opcode == Op::OpFConvert;
  if (!from.ok || !to.ok || from.is_float != from_float || to.is_float != to_float ||
      wide_count(src->type_id) != wide_count(i.type_id))
    return fail("conversion with unexpected operand types: " + describe(i));

  bool sat = i.opcode == Op::OpSatConvertSToU || i.opcode == Op::OpSatConvertUToS ||
             decoration(i.result_id, spv::Decoration::SaturatedConversion);
  Round round = Round::Default;
  if (const ir::Instruction* d = decoration(i.result_id, spv::Decoration::FPRoundingMode)) {
    switch (spv::FPRoundingMode(d->operands[2])) {
      case spv::FPRoundingMode::RTE: round = Round::RTE; break;
      case spv::FPRoundingMode::RTZ: round = Round::RTZ; break;
      case spv::FPRoundingMode::RTP: round = Round::RTP; break;
      case spv::FPRoundingMode::RTN: round = Round::RTN; break;
      default: return fail("unknown rounding mode on " + describe(i));
    }
  }
  bool from_signed = i.opcode == Op::OpSConvert || i.opcode == Op::OpConvertSToF ||
                     i.opcode == Op::OpSatConvertSToU;
  bool to_signed = i.opcode == Op::OpSConvert || i.opcode == Op::OpConvertFToS ||
                   i.opcode == Op::OpSatConvertUToS;

  auto convert = [&](Converter& c, uint32_t x) -> uint32_t {
    if (from_float && to_float) return c.float_to_float(x, from.width, to.width, round);
    if (from_float) return c.float_to_int(x, from.width, to.width, to_signed, sat, round);
    if (to_float) return c.int_to_float(x, from.width, from_signed, to.width, round);
    return c.int_to_int(x, from.width, from_signed, to.width, to_signed, sat);
  };
  uint32_t rt = lower_type(i.type_id);
  if (failed_) return false;
  if (is_wide(i.type_id)) {  // an array: component by component
    Converter c(*this, 1);
    std::vector<uint32_t> parts;
    for (uint32_t k = 0; k < wide_count(i.type_id); ++k)
      parts.push_back(convert(c, component(i.operands[0], k)));
    bind(i.result_id, rt, emit(Op::OpCompositeConstruct, rt, parts));
  } else {
    Converter c(*this, wide_count(i.type_id));
    bind(i.result_id, rt, convert(c, value(i.operands[0])));
  }
  return !failed_;
}

// as_<type>n for values of equal size whose component counts differ and one side is an 8- or
// 16-component vector (an array after lowering): the bits are regrouped through 32-bit words.
// OpenCL C 6.4.4.1 "the bits are reinterpreted", lower-numbered components in lower bits,
// which is also how SPIR-V OpBitcast maps components.
bool Lowering::lower_wide_bitcast(const ir::Instruction& i) {
  auto element = [&](uint32_t in_type) {
    const ir::Instruction* t = def(in_type);
    return t && t->opcode == Op::OpTypeVector ? t->operands[0] : in_type;
  };
  auto width = [&](uint32_t in_type) {
    const ir::Instruction* t = def(element(in_type));
    return t && (t->opcode == Op::OpTypeInt || t->opcode == Op::OpTypeFloat) ? t->operands[0]
                                                                              : 0u;
  };
  uint32_t src_type = def(i.operands[0])->type_id;
  uint32_t ws = width(src_type), wd = width(i.type_id);
  uint32_t ns = wide_count(src_type), nd = wide_count(i.type_id);
  if (!ws || !wd || ws * ns != wd * nd || (ws * ns) % 32 != 0)
    return fail("bit cast between types of different sizes: " + describe(i));
  uint32_t u32 = t_uint(32);
  uint32_t src_elem = lower_type(element(src_type)), dst_elem = lower_type(element(i.type_id));
  auto as_type = [&](uint32_t type, uint32_t v, uint32_t from_type) {
    return type == from_type ? v : emit(Op::OpBitcast, type, {v});
  };

  std::vector<uint32_t> words;
  for (uint32_t k = 0; k < ns;) {
    if (ws == 64) {
      uint32_t pair = emit(Op::OpBitcast, t_vec(u32, 2), {component(i.operands[0], k++)});
      words.push_back(emit(Op::OpCompositeExtract, u32, {pair, 0}));
      words.push_back(emit(Op::OpCompositeExtract, u32, {pair, 1}));
    } else if (ws == 32) {
      words.push_back(as_type(u32, component(i.operands[0], k++), src_elem));
    } else {
      std::vector<uint32_t> group;
      for (uint32_t g = 0; g < 32 / ws; ++g) group.push_back(component(i.operands[0], k++));
      uint32_t v = emit(Op::OpCompositeConstruct, t_vec(src_elem, 32 / ws), group);
      words.push_back(emit(Op::OpBitcast, u32, {v}));
    }
  }
  std::vector<uint32_t> parts;
  for (size_t w = 0; w < words.size();) {
    if (wd == 64) {
      uint32_t pair = emit(Op::OpCompositeConstruct, t_vec(u32, 2), {words[w], words[w + 1]});
      parts.push_back(emit(Op::OpBitcast, dst_elem, {pair}));
      w += 2;
    } else if (wd == 32) {
      parts.push_back(as_type(dst_elem, words[w++], u32));
    } else {
      uint32_t v = emit(Op::OpBitcast, t_vec(dst_elem, 32 / wd), {words[w++]});
      for (uint32_t g = 0; g < 32 / wd; ++g)
        parts.push_back(emit(Op::OpCompositeExtract, dst_elem, {v, g}));
    }
  }
  uint32_t rt = lower_type(i.type_id);
  bind(i.result_id, rt, nd == 1 ? parts[0] : emit(Op::OpCompositeConstruct, rt, parts));
  return !failed_;
}

}  // namespace vkcl::k2s
