// Integer arithmetic as a shader computes it, for counting loops (loop_bounds.cpp while
// translating, launch_count.cpp at launch): |width|-bit values kept zero-extended in 64 bits.
#pragma once

#include <cstdint>
#include <optional>

#include <spirv/unified1/spirv.hpp11>

namespace vkcl::k2s::loop_arith {

using spv::Op;

inline uint64_t wrap(uint64_t v, uint32_t width) { return width >= 64 ? v : v & ((uint64_t(1) << width) - 1); }

inline int64_t as_signed(uint64_t v, uint32_t width) {
  if (width >= 64) return int64_t(v);
  const uint64_t sign = uint64_t(1) << (width - 1);
  return int64_t((v ^ sign) - sign);
}

inline std::optional<bool> compare(Op op, uint64_t a, uint64_t b, uint32_t width) {
  a = wrap(a, width);
  b = wrap(b, width);
  const int64_t sa = as_signed(a, width), sb = as_signed(b, width);
  switch (op) {
    case Op::OpSLessThan: return sa < sb;
    case Op::OpSLessThanEqual: return sa <= sb;
    case Op::OpSGreaterThan: return sa > sb;
    case Op::OpSGreaterThanEqual: return sa >= sb;
    case Op::OpULessThan: return a < b;
    case Op::OpULessThanEqual: return a <= b;
    case Op::OpUGreaterThan: return a > b;
    case Op::OpUGreaterThanEqual: return a >= b;
    case Op::OpIEqual: return a == b;
    case Op::OpINotEqual: return a != b;
    default: return std::nullopt;
  }
}

// The integer operations a launch value may combine its terms with (besides conversions).
inline bool binary_launch_op(Op op) {
  switch (op) {
    case Op::OpIAdd: case Op::OpISub: case Op::OpIMul: case Op::OpUDiv: case Op::OpSDiv:
    case Op::OpShiftLeftLogical: case Op::OpShiftRightLogical: case Op::OpShiftRightArithmetic:
    case Op::OpBitwiseAnd:
      return true;
    default: return false;
  }
}

// The highest value of a |width|-bit integer, as a signed or an unsigned test sees it.
inline uint64_t type_top(uint32_t width, bool is_signed) {
  const uint64_t all = wrap(~uint64_t(0), width);
  return is_signed ? all >> 1 : all;
}

// OpenCL.std's s_max, u_max, s_min and u_min (the instruction numbers).
inline bool min_max_op(uint32_t instruction) { return instruction >= 156 && instruction <= 159; }

inline uint64_t min_max(uint32_t instruction, uint64_t a, uint64_t b, uint32_t width) {
  a = wrap(a, width);
  b = wrap(b, width);
  const bool is_signed = instruction == 156 || instruction == 158, is_max = instruction <= 157;
  const bool a_less = is_signed ? as_signed(a, width) < as_signed(b, width) : a < b;
  return a_less == is_max ? b : a;
}

// |op| of |a| and |b| as the device computes it in |width| bits; nothing where the result is
// undefined (division by 0, a shift by the width or more) and for a division by -1 (which
// overflows for the smallest value).
inline std::optional<uint64_t> exact(Op op, uint64_t a, uint64_t b, uint32_t width) {
  a = wrap(a, width);
  b = wrap(b, width);
  const bool divides = op == Op::OpUDiv || op == Op::OpSDiv;
  if (divides && (b == 0 || as_signed(b, width) == -1)) return std::nullopt;
  const bool shifts = op == Op::OpShiftLeftLogical || op == Op::OpShiftRightLogical || op == Op::OpShiftRightArithmetic;
  if (shifts && b >= width) return std::nullopt;
  switch (op) {
    case Op::OpIAdd: return wrap(a + b, width);
    case Op::OpISub: return wrap(a - b, width);
    case Op::OpIMul: return wrap(a * b, width);
    case Op::OpUDiv: return a / b;
    case Op::OpSDiv: return wrap(uint64_t(as_signed(a, width) / as_signed(b, width)), width);
    case Op::OpShiftLeftLogical: return wrap(a << b, width);
    case Op::OpShiftRightLogical: return a >> b;
    case Op::OpShiftRightArithmetic: return wrap(uint64_t(as_signed(a, width) >> b), width);
    case Op::OpBitwiseAnd: return a & b;
    default: return std::nullopt;
  }
}

}  // namespace vkcl::k2s::loop_arith
