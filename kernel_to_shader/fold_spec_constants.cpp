// OpSpecConstantOp folding. The opcodes are those SPIR-V 1.6 (2.12, OpSpecConstantOp) allows
// with the Kernel capability, which is what the OpenCL SPIR-V environment accepts; values are
// computed per component on 64-bit holders and wrapped to the component width.
#include "fold_spec_constants.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

namespace vkcl::k2s {

using spv::Op;

namespace {

enum class Kind { Int, Float, Bool };

struct ScalarType {
  Kind kind = Kind::Int;
  uint32_t width = 32;
};

// A scalar or vector type of the module.
struct ValueType {
  ScalarType scalar;
  uint32_t count = 1;
  uint32_t component_type = 0;  // the scalar type id (the type itself for scalars)
};

struct Value {
  uint32_t type = 0;
  std::vector<uint64_t> bits;  // per component, zero-extended; bools are 0 or 1
};

uint64_t mask(uint64_t v, uint32_t width) { return width >= 64 ? v : v & ((1ull << width) - 1); }
int64_t sext(uint64_t v, uint32_t width) {
  if (width >= 64) return int64_t(v);
  uint64_t sign = 1ull << (width - 1);
  return int64_t((mask(v, width) ^ sign) - sign);
}
double to_double(uint64_t bits, uint32_t width) {
  if (width == 64) {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  uint32_t b = uint32_t(bits);
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
uint64_t from_double(double d, uint32_t width) {
  if (width == 64) {
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    return bits;
  }
  float f = float(d);
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
// Float-to-integer conversion: out-of-range values are undefined in SPIR-V; they saturate
// here (and NaN gives 0) so the fold itself is well defined.
uint64_t float_to_int(double d, uint32_t width, bool is_signed) {
  if (std::isnan(d)) return 0;
  d = std::trunc(d);
  if (is_signed) {
    double lo = -std::ldexp(1.0, int(width) - 1), hi = std::ldexp(1.0, int(width) - 1);
    if (d <= lo) return mask(uint64_t(int64_t(lo)), width);
    if (d >= hi) return mask(~0ull >> (65 - width), width);
    return mask(uint64_t(int64_t(d)), width);
  }
  double hi = std::ldexp(1.0, int(width));
  if (d <= 0) return 0;
  if (d >= hi) return mask(~0ull, width);
  return uint64_t(d);
}

class Folder {
 public:
  explicit Folder(ir::Module& m) : m_(m) {}

  void run() {
    std::vector<ir::Instruction> out;
    out.reserve(m_.globals.size());
    for (ir::Instruction& g : m_.globals) {
      note_type(g);
      if (g.opcode == Op::OpSpecConstantOp) {
        std::optional<Value> v = evaluate(g);
        if (v) {
          materialize(g, *v, &out);
          values_[g.result_id] = *v;
          continue;
        }
      } else {
        note_constant(g);
      }
      out.push_back(std::move(g));
    }
    m_.globals = std::move(out);
  }

 private:
  void note_type(const ir::Instruction& g) {
    switch (g.opcode) {
      // The module is not validated yet: types with other widths are left alone.
      case Op::OpTypeInt: {
        uint32_t w = g.operands.empty() ? 0 : g.operands[0];
        if (w == 8 || w == 16 || w == 32 || w == 64) scalars_[g.result_id] = {Kind::Int, w};
        break;
      }
      case Op::OpTypeFloat: {
        uint32_t w = g.operands.empty() ? 0 : g.operands[0];
        if (w == 16 || w == 32 || w == 64) scalars_[g.result_id] = {Kind::Float, w};
        break;
      }
      case Op::OpTypeBool: scalars_[g.result_id] = {Kind::Bool, 1}; break;
      case Op::OpTypeVector:
        if (g.operands.size() == 2) vectors_[g.result_id] = {g.operands[0], g.operands[1]};
        break;
      default: break;
    }
  }

  std::optional<ValueType> type_of(uint32_t type) const {
    auto s = scalars_.find(type);
    if (s != scalars_.end()) return ValueType{s->second, 1, type};
    auto v = vectors_.find(type);
    if (v == vectors_.end()) return std::nullopt;
    s = scalars_.find(v->second.first);
    if (s == scalars_.end()) return std::nullopt;
    return ValueType{s->second, v->second.second, v->second.first};
  }

  // Constants (specialized or not) whose value is known.
  void note_constant(const ir::Instruction& g) {
    std::optional<ValueType> t = type_of(g.type_id);
    if (!t) return;
    Value v{g.type_id, {}};
    switch (g.opcode) {
      case Op::OpConstant:
      case Op::OpSpecConstant: {
        if (t->count != 1 || g.operands.empty()) return;
        uint64_t bits = g.operands[0];
        if (g.operands.size() > 1) bits |= uint64_t(g.operands[1]) << 32;
        v.bits = {mask(bits, t->scalar.width)};
        break;
      }
      case Op::OpConstantTrue: case Op::OpSpecConstantTrue: v.bits = {1}; break;
      case Op::OpConstantFalse: case Op::OpSpecConstantFalse: v.bits = {0}; break;
      case Op::OpConstantNull: v.bits.assign(t->count, 0); break;
      case Op::OpConstantComposite:
      case Op::OpSpecConstantComposite:
        for (uint32_t part : g.operands) {
          auto p = values_.find(part);
          if (p == values_.end() || p->second.bits.size() != 1) return;
          v.bits.push_back(p->second.bits[0]);
        }
        if (v.bits.size() != t->count) return;
        break;
      default: return;
    }
    values_[g.result_id] = std::move(v);
  }

  const Value* operand(uint32_t id) const {
    auto it = values_.find(id);
    return it == values_.end() ? nullptr : &it->second;
  }

  std::optional<Value> evaluate(const ir::Instruction& g) const {
    std::optional<ValueType> rt = type_of(g.type_id);
    if (!rt || g.operands.empty()) return std::nullopt;
    if (rt->scalar.kind == Kind::Float && rt->scalar.width != 32 && rt->scalar.width != 64)
      return std::nullopt;
    Op op = Op(g.operands[0]);
    const std::vector<uint32_t>& w = g.operands;
    Value r{g.type_id, {}};
    uint32_t rw = rt->scalar.width;

    // Operations with literal operands.
    if (op == Op::OpCompositeExtract || op == Op::OpCompositeInsert || op == Op::OpVectorShuffle) {
      if (op == Op::OpCompositeExtract) {
        const Value* c = w.size() == 3 ? operand(w[1]) : nullptr;
        if (!c || w[2] >= c->bits.size()) return std::nullopt;
        r.bits = {c->bits[w[2]]};
      } else if (op == Op::OpCompositeInsert) {
        const Value* o = w.size() == 4 ? operand(w[1]) : nullptr;
        const Value* c = w.size() == 4 ? operand(w[2]) : nullptr;
        if (!o || !c || o->bits.size() != 1 || w[3] >= c->bits.size()) return std::nullopt;
        r.bits = c->bits;
        r.bits[w[3]] = o->bits[0];
      } else {
        const Value* a = w.size() >= 3 ? operand(w[1]) : nullptr;
        const Value* b = w.size() >= 3 ? operand(w[2]) : nullptr;
        if (!a || !b) return std::nullopt;
        for (size_t k = 3; k < w.size(); ++k) {
          size_t i = w[k];
          // "A Component literal may also be FFFFFFFF, which means the corresponding result
          // component has no source and is undefined": 0 here.
          if (w[k] == 0xffffffffu) r.bits.push_back(0);
          else if (i < a->bits.size()) r.bits.push_back(a->bits[i]);
          else if (i - a->bits.size() < b->bits.size()) r.bits.push_back(b->bits[i - a->bits.size()]);
          else return std::nullopt;
        }
      }
      if (r.bits.size() != rt->count) return std::nullopt;
      return r;
    }

    std::vector<const Value*> args;
    std::vector<ValueType> arg_types;
    for (size_t k = 1; k < w.size(); ++k) {
      const Value* a = operand(w[k]);
      if (!a) return std::nullopt;
      std::optional<ValueType> t = type_of(a->type);
      if (!t || a->bits.size() != t->count) return std::nullopt;
      if (t->scalar.kind == Kind::Float && t->scalar.width != 32 && t->scalar.width != 64)
        return std::nullopt;
      args.push_back(a);
      arg_types.push_back(*t);
    }
    if (args.empty()) return std::nullopt;

    if (op == Op::OpBitcast) return bitcast(*args[0], arg_types[0], *rt, g.type_id);
    if (op == Op::OpSelect) {
      if (args.size() != 3) return std::nullopt;
      for (uint32_t i = 0; i < rt->count; ++i) {
        size_t ci = args[0]->bits.size() == 1 ? 0 : i;
        if (ci >= args[0]->bits.size() || i >= args[1]->bits.size() || i >= args[2]->bits.size())
          return std::nullopt;
        uint64_t c = args[0]->bits[ci];
        r.bits.push_back(c ? args[1]->bits[i] : args[2]->bits[i]);
      }
      return r;
    }
    for (const Value* a : args)
      if (a->bits.size() != rt->count) return std::nullopt;
    uint32_t aw = arg_types[0].scalar.width;
    for (uint32_t i = 0; i < rt->count; ++i) {
      uint64_t x = args[0]->bits[i];
      uint64_t y = args.size() > 1 ? args[1]->bits[i] : 0;
      std::optional<uint64_t> c = args.size() == 1 ? unary(op, x, aw, rw)
                                                   : binary(op, x, y, aw, rw);
      if (!c) return std::nullopt;
      r.bits.push_back(*c);
    }
    return r;
  }

  static std::optional<uint64_t> unary(Op op, uint64_t x, uint32_t aw, uint32_t rw) {
    switch (op) {
      case Op::OpSConvert: return mask(uint64_t(sext(x, aw)), rw);
      case Op::OpUConvert: return mask(x, rw);
      case Op::OpSNegate: return mask(0 - x, rw);
      case Op::OpNot: return mask(~x, rw);
      case Op::OpLogicalNot: return uint64_t(!x);
      case Op::OpFConvert: return from_double(to_double(x, aw), rw);
      case Op::OpFNegate: return from_double(-to_double(x, aw), rw);
      case Op::OpConvertFToS: return float_to_int(to_double(x, aw), rw, true);
      case Op::OpConvertFToU: return float_to_int(to_double(x, aw), rw, false);
      // Straight from the integer, so a 64-bit value rounds once (not through double).
      case Op::OpConvertSToF:
        return rw == 32 ? from_float(float(sext(x, aw))) : from_double(double(sext(x, aw)), 64);
      case Op::OpConvertUToF:
        return rw == 32 ? from_float(float(x)) : from_double(double(x), 64);
      default: return std::nullopt;
    }
  }

  static uint64_t from_float(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  }

  static std::optional<uint64_t> binary(Op op, uint64_t x, uint64_t y, uint32_t w, uint32_t rw) {
    int64_t sx = sext(x, w), sy = sext(y, w);
    bool float_op = false;
    switch (op) {
      case Op::OpFAdd: case Op::OpFSub: case Op::OpFMul: case Op::OpFDiv: case Op::OpFRem:
      case Op::OpFMod: float_op = true; break;
      default: break;
    }
    if (float_op) {
      // Each operation in the component's own precision, as the device would compute it.
      if (w == 32) {
        float a = float(to_double(x, 32)), b = float(to_double(y, 32)), c = 0;
        switch (op) {
          case Op::OpFAdd: c = a + b; break;
          case Op::OpFSub: c = a - b; break;
          case Op::OpFMul: c = a * b; break;
          case Op::OpFDiv: c = a / b; break;
          case Op::OpFRem: c = std::fmod(a, b); break;
          default:  // FMod: the sign of the divisor
            c = std::fmod(a, b);
            if (c != 0 && std::signbit(c) != std::signbit(b)) c += b;
            break;
        }
        return from_float(c);
      }
      double a = to_double(x, 64), b = to_double(y, 64), c = 0;
      switch (op) {
        case Op::OpFAdd: c = a + b; break;
        case Op::OpFSub: c = a - b; break;
        case Op::OpFMul: c = a * b; break;
        case Op::OpFDiv: c = a / b; break;
        case Op::OpFRem: c = std::fmod(a, b); break;
        default:
          c = std::fmod(a, b);
          if (c != 0 && std::signbit(c) != std::signbit(b)) c += b;
          break;
      }
      return from_double(c, 64);
    }
    // Division by zero and shifts by the width or more are undefined in SPIR-V; they give 0
    // and shift by the amount modulo the width (OpenCL C's rule) here.
    uint64_t shift = y % w;
    bool overflow = sy == -1 && sx == std::numeric_limits<int64_t>::min();
    switch (op) {
      case Op::OpIAdd: return mask(x + y, rw);
      case Op::OpISub: return mask(x - y, rw);
      case Op::OpIMul: return mask(x * y, rw);
      case Op::OpUDiv: return y ? mask(x / y, rw) : 0;
      case Op::OpSDiv: return y && !overflow ? mask(uint64_t(sx / sy), rw) : 0;
      case Op::OpUMod: return y ? mask(x % y, rw) : 0;
      case Op::OpSRem: return y && !overflow ? mask(uint64_t(sx % sy), rw) : 0;
      case Op::OpSMod: {  // the sign of the divisor
        if (!y || overflow) return 0;
        int64_t m = sx % sy;
        if (m != 0 && (m < 0) != (sy < 0)) m += sy;
        return mask(uint64_t(m), rw);
      }
      case Op::OpShiftLeftLogical: return mask(x << shift, rw);
      case Op::OpShiftRightLogical: return mask(mask(x, w) >> shift, rw);
      case Op::OpShiftRightArithmetic: return mask(uint64_t(sx >> shift), rw);
      case Op::OpBitwiseOr: return mask(x | y, rw);
      case Op::OpBitwiseXor: return mask(x ^ y, rw);
      case Op::OpBitwiseAnd: return mask(x & y, rw);
      case Op::OpLogicalOr: return uint64_t(x || y);
      case Op::OpLogicalAnd: return uint64_t(x && y);
      case Op::OpLogicalEqual: return uint64_t(!x == !y);
      case Op::OpLogicalNotEqual: return uint64_t(!x != !y);
      case Op::OpIEqual: return uint64_t(x == y);
      case Op::OpINotEqual: return uint64_t(x != y);
      case Op::OpULessThan: return uint64_t(x < y);
      case Op::OpSLessThan: return uint64_t(sx < sy);
      case Op::OpUGreaterThan: return uint64_t(x > y);
      case Op::OpSGreaterThan: return uint64_t(sx > sy);
      case Op::OpULessThanEqual: return uint64_t(x <= y);
      case Op::OpSLessThanEqual: return uint64_t(sx <= sy);
      case Op::OpUGreaterThanEqual: return uint64_t(x >= y);
      case Op::OpSGreaterThanEqual: return uint64_t(sx >= sy);
      default: return std::nullopt;
    }
  }

  // Reinterprets the bits, possibly regrouping components (e.g. ulong to uint2).
  static std::optional<Value> bitcast(const Value& a, const ValueType& at, const ValueType& rt,
                                      uint32_t result_type) {
    if (at.scalar.kind == Kind::Bool || rt.scalar.kind == Kind::Bool) return std::nullopt;
    if (at.scalar.width * at.count != rt.scalar.width * rt.count) return std::nullopt;
    if (at.scalar.width % 8 || rt.scalar.width % 8) return std::nullopt;
    std::vector<uint8_t> bytes;
    for (uint64_t b : a.bits)
      for (uint32_t k = 0; k < at.scalar.width / 8; ++k) bytes.push_back(uint8_t(b >> (8 * k)));
    Value r{result_type, {}};
    size_t at_byte = 0;
    for (uint32_t i = 0; i < rt.count; ++i) {
      uint64_t b = 0;
      for (uint32_t k = 0; k < rt.scalar.width / 8; ++k) b |= uint64_t(bytes[at_byte++]) << (8 * k);
      r.bits.push_back(b);
    }
    return r;
  }

  // Replaces |g| by plain constants (components first, for vectors) appended to |out|.
  void materialize(ir::Instruction& g, const Value& v, std::vector<ir::Instruction>* out) {
    ValueType t = *type_of(g.type_id);
    auto scalar = [&](uint32_t type, uint32_t id, uint64_t bits) {
      if (t.scalar.kind == Kind::Bool)
        return ir::Instruction(bits ? Op::OpConstantTrue : Op::OpConstantFalse, type, id);
      std::vector<uint32_t> words = {uint32_t(bits)};
      if (t.scalar.width == 64) words.push_back(uint32_t(bits >> 32));
      return ir::Instruction(Op::OpConstant, type, id, words);
    };
    if (t.count == 1) {
      out->push_back(scalar(g.type_id, g.result_id, v.bits[0]));
      return;
    }
    std::vector<uint32_t> parts;
    for (uint64_t bits : v.bits) {
      parts.push_back(m_.take_id());
      out->push_back(scalar(t.component_type, parts.back(), bits));
    }
    out->emplace_back(Op::OpConstantComposite, g.type_id, g.result_id, parts);
  }

  ir::Module& m_;
  std::map<uint32_t, ScalarType> scalars_;
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> vectors_;  // id -> (component, count)
  std::map<uint32_t, Value> values_;
};

}  // namespace

void fold_spec_constant_ops(ir::Module& m) { Folder(m).run(); }

}  // namespace vkcl::k2s
