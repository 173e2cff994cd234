// OpenCL.std extended instructions, tier 1 and 2 of DESIGN.md: an exact core or GLSL.std.450
// instruction, or (native_*) Vulkan's relaxed ones. Everything else is reported by name until
// polyfills/ provides it (issue 4).
#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/OpenCL.std.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "passes/lower_to_shader.h"

namespace vkcl::k2s {

using spv::Op;
namespace cl = OpenCLLIB;

uint32_t Lowering::glsl_import() {
  if (!glsl_) {
    glsl_ = take_id();
    ir::Instruction imp(Op::OpExtInstImport, 0, glsl_);
    ir::append_string(&imp.operands, "GLSL.std.450");
    out_.ext_inst_imports.push_back(imp);
  }
  return glsl_;
}

void Lowering::decorate(uint32_t target, spv::Decoration d, std::vector<uint32_t> extra) {
  std::vector<uint32_t> ops = {target, uint32_t(d)};
  ops.insert(ops.end(), extra.begin(), extra.end());
  annotations_.emplace_back(Op::OpDecorate, 0, 0, ops);
}

namespace {
const char* opencl_std_name(uint32_t n) {
  switch (n) {
#define NAME(x) case cl::x: return #x;
    NAME(Acos) NAME(Acosh) NAME(Acospi) NAME(Asin) NAME(Asinh) NAME(Asinpi) NAME(Atan)
    NAME(Atan2) NAME(Atanh) NAME(Atanpi) NAME(Atan2pi) NAME(Cbrt) NAME(Cos) NAME(Cosh)
    NAME(Cospi) NAME(Erfc) NAME(Erf) NAME(Exp) NAME(Exp2) NAME(Exp10) NAME(Expm1)
    NAME(Fma) NAME(Fmod) NAME(Fract) NAME(Frexp) NAME(Hypot) NAME(Ilogb) NAME(Ldexp)
    NAME(Lgamma) NAME(Lgamma_r) NAME(Log) NAME(Log2) NAME(Log10) NAME(Log1p) NAME(Logb)
    NAME(Maxmag) NAME(Minmag) NAME(Modf) NAME(Nan) NAME(Nextafter) NAME(Pow) NAME(Pown)
    NAME(Powr) NAME(Remainder) NAME(Remquo) NAME(Rootn) NAME(Rsqrt) NAME(Sin)
    NAME(Sincos) NAME(Sinh) NAME(Sinpi) NAME(Sqrt) NAME(Tan) NAME(Tanh) NAME(Tanpi)
    NAME(Tgamma) NAME(Half_cos) NAME(Half_divide) NAME(Half_exp) NAME(Half_exp2)
    NAME(Half_exp10) NAME(Half_log) NAME(Half_log2) NAME(Half_log10) NAME(Half_powr)
    NAME(Half_recip) NAME(Half_rsqrt) NAME(Half_sin) NAME(Half_sqrt) NAME(Half_tan)
    NAME(Degrees) NAME(Radians) NAME(Smoothstep) NAME(Cross) NAME(Distance) NAME(Length)
    NAME(Normalize) NAME(Fast_distance) NAME(Fast_length) NAME(Fast_normalize) NAME(SMad_hi)
    NAME(UMad_sat) NAME(SMad_sat) NAME(U_Upsample) NAME(S_Upsample) NAME(UMad_hi)
    NAME(Vload_half) NAME(Vload_halfn) NAME(Vstore_half) NAME(Vstore_half_r)
    NAME(Vstore_halfn) NAME(Vstore_halfn_r) NAME(Vloada_halfn) NAME(Vstorea_halfn)
    NAME(Vstorea_halfn_r) NAME(Shuffle) NAME(Shuffle2) NAME(Printf)
#undef NAME
    default: return "?";
  }
}
}  // namespace

bool Lowering::lower_opencl_std(const ir::Instruction& i) {
  uint32_t n = i.operands[1];
  uint32_t rt = lower_type(i.type_id);
  Shape s = shape_of(rt);
  auto arg = [&](size_t k) { return value(i.operands[2 + k]); };
  auto glsl = [&](GLSLstd450 op, std::vector<uint32_t> args) {
    std::vector<uint32_t> ops = {glsl_import(), uint32_t(op)};
    ops.insert(ops.end(), args.begin(), args.end());
    return emit(Op::OpExtInst, rt, ops);
  };
  auto splat = [&](uint32_t scalar_constant) {
    if (s.count == 1) return scalar_constant;
    uint32_t id = take_id();
    out_.globals.emplace_back(Op::OpConstantComposite, rt, id,
                              std::vector<uint32_t>(s.count, scalar_constant));
    return id;
  };
  // Integer constants are typed as the unsigned vector even when the result is a float
  // (copysign, nextafter and nan work on the bits).
  auto int_const = [&](uint64_t v) {
    if (s.count == 1) return c_uint(s.width, v);
    uint32_t id = take_id();
    out_.globals.emplace_back(Op::OpConstantComposite, t_vec(t_uint(s.width), s.count), id,
                              std::vector<uint32_t>(s.count, c_uint(s.width, v)));
    return id;
  };
  auto bool_type = [&]() { return t_vec(t_bool(), s.count); };
  // A float constant of the result's width (16, 32 or 64 bits), splat to its shape; half
  // constants must be exact halves (0, 1, 0.5, infinities, NaN are what is used).
  auto fk = [&](double v) {
    if (s.width == 16) {
      uint32_t h = std::signbit(v) ? 0x8000 : 0;
      double a = std::fabs(v);
      if (std::isnan(v)) h = 0x7e00;
      else if (std::isinf(v) || a >= 65536) h |= 0x7c00;
      else if (a >= 0x1p-14) {
        int e;
        double m = std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1)
        h |= uint32_t(e + 14) << 10 | (uint32_t(std::ldexp(m, 11)) & 0x3ff);
      } else {
        h |= uint32_t(std::ldexp(a, 24));
      }
      return splat(constant(t_float(16), {h}));
    }
    if (s.width == 64) {
      uint64_t b;
      std::memcpy(&b, &v, 8);
      return splat(constant(t_float(64), {uint32_t(b), uint32_t(b >> 32)}));
    }
    float f = float(v);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return splat(constant(t_float(32), {b}));
  };
  uint32_t r = 0;
  bool half_memory = n == cl::Vload_halfn || n == cl::Vloada_halfn || n == cl::Vstore_halfn ||
                     n == cl::Vstore_halfn_r || n == cl::Vstorea_halfn || n == cl::Vstorea_halfn_r;
  if (s.wide && n != cl::Vloadn && n != cl::Vstoren && n != cl::Prefetch && !half_memory) {
    // Component by component, for the built-ins that map to one instruction per component.
    const std::pair<uint32_t, GLSLstd450> simple[] = {
        {cl::Fabs, GLSLstd450FAbs}, {cl::Floor, GLSLstd450Floor}, {cl::Ceil, GLSLstd450Ceil},
        {cl::Trunc, GLSLstd450Trunc}, {cl::Rint, GLSLstd450RoundEven},
        {cl::Fmin, GLSLstd450NMin}, {cl::Fmax, GLSLstd450NMax}, {cl::FMin_common, GLSLstd450NMin},
        {cl::FMax_common, GLSLstd450NMax}, {cl::SAbs, GLSLstd450SAbs}, {cl::SMin, GLSLstd450SMin},
        {cl::UMin, GLSLstd450UMin}, {cl::SMax, GLSLstd450SMax}, {cl::UMax, GLSLstd450UMax},
        {cl::Native_sin, GLSLstd450Sin}, {cl::Native_cos, GLSLstd450Cos},
        {cl::Native_exp2, GLSLstd450Exp2}, {cl::Native_log2, GLSLstd450Log2},
        {cl::Native_sqrt, GLSLstd450Sqrt}, {cl::Native_rsqrt, GLSLstd450InverseSqrt}};
    uint32_t elem = s.is_float ? t_float(s.width) : t_uint(s.width);
    std::vector<uint32_t> parts;
    for (uint32_t k = 0; k < s.count; ++k) {
      std::vector<uint32_t> args;
      for (size_t a = 2; a < i.operands.size(); ++a) args.push_back(component(i.operands[a], k));
      if (n == cl::Mad) {
        parts.push_back(mad(args[0], args[1], args[2], elem, s.width));
        continue;
      }
      const auto* found = std::find_if(std::begin(simple), std::end(simple),
                                       [&](const auto& e) { return e.first == n; });
      if (found == std::end(simple))
        return fail("OpenCL built-in " + describe(i) +
                    " on 8- or 16-component vectors is not supported yet");
      std::vector<uint32_t> ops = {glsl_import(), uint32_t(found->second)};
      ops.insert(ops.end(), args.begin(), args.end());
      parts.push_back(emit(Op::OpExtInst, elem, ops));
    }
    bind(i.result_id, rt, emit(Op::OpCompositeConstruct, rt, parts));
    return !failed_;
  }
  switch (n) {
    // Exact in Vulkan.
    case cl::Fabs: r = glsl(GLSLstd450FAbs, {arg(0)}); break;
    case cl::Floor: r = glsl(GLSLstd450Floor, {arg(0)}); break;
    case cl::Ceil: r = glsl(GLSLstd450Ceil, {arg(0)}); break;
    case cl::Trunc: r = glsl(GLSLstd450Trunc, {arg(0)}); break;
    case cl::Rint: r = glsl(GLSLstd450RoundEven, {arg(0)}); break;
    case cl::Round: {
      // Halfway cases away from zero (GLSL's Round leaves their direction open):
      // t = trunc(x); |x - t| is exact, and t moves one step away from zero when it is >= 0.5.
      uint32_t t = glsl(GLSLstd450Trunc, {arg(0)});
      uint32_t diff = glsl(GLSLstd450FAbs, {emit(Op::OpFSub, rt, {arg(0), t})});
      uint32_t half = splat(constant(t_float(s.width), s.width == 64 ? std::vector<uint32_t>{0, 0x3fe00000}
                                                        : s.width == 16 ? std::vector<uint32_t>{0x3800}
                                                                        : std::vector<uint32_t>{0x3f000000}));
      uint32_t up = emit(Op::OpFOrdGreaterThanEqual, bool_type(), {diff, half});
      uint32_t step = glsl(GLSLstd450FSign, {arg(0)});
      r = emit(Op::OpSelect, rt, {up, emit(Op::OpFAdd, rt, {t, step}), t});
      break;
    }
    case cl::Fma:
      // Reached when the device's Fma is known to be fused (caps.exact_fma, exact_fma64), or
      // for float when doubles are available; otherwise link-builtins called a library fma.
      if (ctx_.caps.exact_fma || s.width == 64) {
        r = glsl(GLSLstd450Fma, {arg(0), arg(1), arg(2)});
      } else if (s.width == 32 && ctx_.caps.float64) {
        r = fma_through_double(arg(0), arg(1), arg(2), rt, s.count);
      } else {
        return fail("internal error: fma reached lower-to-shader without an exact path");
      }
      break;
    case cl::Sqrt:
    case cl::Rsqrt: {
      // Vulkan's Sqrt is only as good as 1/inversesqrt and InverseSqrt is 2 ulp with no
      // denormal inputs; OpenCL wants 3 ulp (sqrt) and 2 ulp (rsqrt) everywhere. Tiny inputs
      // are scaled into the normal range, and one Newton step (its residual exact when fma
      // is) brings the result within about 1 ulp.
      if (s.width != 32 && s.width != 64) return fail("sqrt/rsqrt of half is not supported");
      bool sqrt = n == cl::Sqrt;
      if (s.width == 64 && ctx_.caps.exact_sqrt64) {
        // Correctly rounded (the probe); rsqrt = 1 / sqrt is then within 1 ulp, and gets the
        // special values right (1 / ±0 = ±inf, 1 / inf = 0, NaN for negatives). Otherwise
        // link-builtins called polyfills/fp64.cl.
        r = glsl(GLSLstd450Sqrt, {arg(0)});
        if (!sqrt) r = emit(Op::OpFDiv, rt, {fk(1.0), r});
        break;
      }
      if (sqrt && s.width == 32 && ctx_.caps.close_sqrt) {
        // The device's Sqrt is within 1 ulp (the frontend's probe; lavapipe's is IEEE's,
        // NVIDIA's 1 ulp), special values included; it may flush denormal inputs, which
        // OpenCL allows without CL_FP_DENORM.
        r = glsl(GLSLstd450Sqrt, {arg(0)});
        break;
      }
      uint32_t x = arg(0);
      uint32_t tiny = emit(Op::OpFOrdLessThan, bool_type(), {x, fk(0x1p-100)});
      uint32_t xs = emit(Op::OpSelect, rt, {tiny, emit(Op::OpFMul, rt, {x, fk(0x1p64)}), x});
      uint32_t y = 0;
      if (sqrt) {
        y = glsl(GLSLstd450Sqrt, {xs});
        if (ctx_.caps.exact_fma) {
          uint32_t e = glsl(GLSLstd450Fma, {emit(Op::OpFNegate, rt, {y}), y, xs});
          y = glsl(GLSLstd450Fma, {e, emit(Op::OpFDiv, rt, {fk(0.5), y}), y});
        } else {
          y = emit(Op::OpFMul, rt, {fk(0.5), emit(Op::OpFAdd, rt, {y, emit(Op::OpFDiv, rt, {xs, y})})});
        }
        y = emit(Op::OpSelect, rt, {tiny, emit(Op::OpFMul, rt, {y, fk(0x1p-32)}), y});
      } else {
        uint32_t y0 = glsl(GLSLstd450InverseSqrt, {xs});
        uint32_t t = emit(Op::OpFMul, rt, {xs, y0});
        uint32_t half_y = emit(Op::OpFMul, rt, {fk(0.5), y0});
        if (ctx_.caps.exact_fma) {
          uint32_t e = glsl(GLSLstd450Fma, {emit(Op::OpFNegate, rt, {t}), y0, fk(1.0)});
          y = glsl(GLSLstd450Fma, {half_y, e, y0});
        } else {
          uint32_t e = emit(Op::OpFSub, rt, {fk(1.0), emit(Op::OpFMul, rt, {t, y0})});
          y = emit(Op::OpFAdd, rt, {y0, emit(Op::OpFMul, rt, {half_y, e})});
        }
        y = emit(Op::OpSelect, rt, {tiny, emit(Op::OpFMul, rt, {y, fk(0x1p32)}), y});
      }
      // sqrt(±0) = ±0, sqrt(+inf) = +inf; rsqrt(±0) = ±inf, rsqrt(+inf) = +0; negative
      // inputs and NaN give NaN.
      uint32_t zero = emit(Op::OpFOrdEqual, bool_type(), {x, fk(0.0)});
      uint32_t inf = emit(Op::OpFOrdEqual, bool_type(), {x, fk(INFINITY)});
      uint32_t bad = emit(Op::OpLogicalOr, bool_type(),
                          {emit(Op::OpFOrdLessThan, bool_type(), {x, fk(0.0)}), emit(Op::OpIsNan, bool_type(), {x})});
      if (sqrt) {
        // The zero of x's sign, from its bits: a device that flushes denormals finds a
        // denormal x equal to zero too, and must then return zero, not x.
        uint32_t ut = s.count == 1 ? t_uint(s.width) : t_vec(t_uint(s.width), s.count);
        uint32_t sign = emit(Op::OpBitwiseAnd, ut, {emit(Op::OpBitcast, ut, {x}),
                                                    int_const(s.width == 64 ? 0x8000000000000000ull : 0x80000000u)});
        y = emit(Op::OpSelect, rt, {zero, emit(Op::OpBitcast, rt, {sign}), y});
        y = emit(Op::OpSelect, rt, {inf, x, y});
      } else {
        uint32_t signed_inf = emit(Op::OpFDiv, rt, {fk(1.0), x});  // 1/±0 = ±inf exactly
        y = emit(Op::OpSelect, rt, {zero, signed_inf, y});
        y = emit(Op::OpSelect, rt, {inf, fk(0.0), y});
      }
      r = emit(Op::OpSelect, rt, {bad, fk(NAN), y});
      break;
    }
    case cl::Half_divide: r = divide(arg(0), arg(1), rt); break;
    case cl::Half_recip: r = emit(Op::OpFDiv, rt, {fk(1.0), arg(0)}); break;
    case cl::Maxmag:
    case cl::Minmag: {
      // The argument of larger (smaller) magnitude; fmax (fmin) when the magnitudes tie.
      bool max = n == cl::Maxmag;
      uint32_t ax = glsl(GLSLstd450FAbs, {arg(0)});
      uint32_t ay = glsl(GLSLstd450FAbs, {arg(1)});
      uint32_t x_wins = emit(Op::OpFOrdGreaterThan, bool_type(), max ? std::vector<uint32_t>{ax, ay} : std::vector<uint32_t>{ay, ax});
      uint32_t y_wins = emit(Op::OpFOrdGreaterThan, bool_type(), max ? std::vector<uint32_t>{ay, ax} : std::vector<uint32_t>{ax, ay});
      uint32_t tie = glsl(max ? GLSLstd450NMax : GLSLstd450NMin, {arg(0), arg(1)});
      // Two zeros (or denormals a flushing device compares equal to zero, which NMin would
      // return unflushed): the zero whose sign fmin (fmax) picks, from the sign bits.
      uint32_t ut = s.count == 1 ? t_uint(s.width) : t_vec(t_uint(s.width), s.count);
      uint32_t zeros = emit(Op::OpLogicalAnd, bool_type(),
                            {emit(Op::OpFOrdEqual, bool_type(), {arg(0), c_null(rt)}),
                             emit(Op::OpFOrdEqual, bool_type(), {arg(1), c_null(rt)})});
      uint32_t signs = emit(max ? Op::OpBitwiseAnd : Op::OpBitwiseOr, ut,
                            {emit(Op::OpBitcast, ut, {arg(0)}), emit(Op::OpBitcast, ut, {arg(1)})});
      uint64_t sign_bit = 1ull << (s.width - 1);
      uint32_t zero = emit(Op::OpBitcast, rt, {emit(Op::OpBitwiseAnd, ut, {signs, int_const(sign_bit)})});
      tie = emit(Op::OpSelect, rt, {zeros, zero, tie});
      r = emit(Op::OpSelect, rt, {x_wins, arg(0), emit(Op::OpSelect, rt, {y_wins, arg(1), tie})});
      break;
    }
    case cl::Nan: {
      // A quiet NaN; the low bits of nancode go into the significand.
      uint32_t it = t_vec(t_uint(s.width), s.count);
      uint64_t quiet = s.width == 64 ? 0x7ff8000000000000ull : s.width == 16 ? 0x7e00 : 0x7fc00000;
      uint64_t payload = s.width == 64 ? 0x7ffffffffffffull : s.width == 16 ? 0x1ff : 0x3fffff;
      uint32_t code = arg(0);
      Shape cs = shape_of(lower_type(def(i.operands[2])->type_id));
      if (cs.width != s.width) code = emit(Op::OpUConvert, it, {code});
      uint32_t bits = emit(Op::OpBitwiseOr, it, {emit(Op::OpBitwiseAnd, it, {code, int_const(payload)}), int_const(quiet)});
      r = emit(Op::OpBitcast, rt, {bits});
      break;
    }
    case cl::Nextafter: {
      // One step of the bit pattern toward y: +1 when moving away from zero, -1 toward it;
      // from ±0 the smallest denormal with y's sign.
      uint32_t it = t_vec(t_uint(s.width), s.count);
      uint64_t sign = 1ull << (s.width - 1);
      uint32_t x = arg(0), y = arg(1);
      uint32_t ix = emit(Op::OpBitcast, it, {x});
      uint32_t iy = emit(Op::OpBitcast, it, {y});
      uint32_t up = emit(Op::OpFOrdLessThan, bool_type(), {x, y});
      uint32_t positive = emit(Op::OpFOrdGreaterThan, bool_type(), {x, fk(0.0)});
      uint32_t away = emit(Op::OpLogicalEqual, bool_type(), {up, positive});
      uint32_t stepped = emit(Op::OpSelect, it, {away, emit(Op::OpIAdd, it, {ix, int_const(1)}),
                                                 emit(Op::OpISub, it, {ix, int_const(1)})});
      uint32_t from_zero = emit(Op::OpBitwiseOr, it, {emit(Op::OpBitwiseAnd, it, {iy, int_const(sign)}), int_const(1)});
      uint32_t x_zero = emit(Op::OpFOrdEqual, bool_type(), {x, fk(0.0)});
      uint32_t bits = emit(Op::OpSelect, it, {x_zero, from_zero, stepped});
      uint32_t res = emit(Op::OpBitcast, rt, {bits});
      uint32_t equal = emit(Op::OpFOrdEqual, bool_type(), {x, y});
      res = emit(Op::OpSelect, rt, {equal, y, res});
      uint32_t nan = emit(Op::OpLogicalOr, bool_type(), {emit(Op::OpIsNan, bool_type(), {x}), emit(Op::OpIsNan, bool_type(), {y})});
      r = emit(Op::OpSelect, rt, {nan, emit(Op::OpFAdd, rt, {x, y}), res});
      break;
    }
    case cl::SMad_hi:
    case cl::UMad_hi: {
      uint32_t st = type(Op::OpTypeStruct, {rt, rt});
      uint32_t wide = emit(n == cl::SMad_hi ? Op::OpSMulExtended : Op::OpUMulExtended, st, {arg(0), arg(1)});
      r = emit(Op::OpIAdd, rt, {emit(Op::OpCompositeExtract, rt, {wide, 1}), arg(2)});
      break;
    }
    case cl::S_Upsample:
    case cl::U_Upsample: {
      // (hi << w) | lo, where w is the width of the halves; lo is always unsigned.
      uint32_t half = s.width / 2;
      uint32_t hi = emit(n == cl::S_Upsample ? Op::OpSConvert : Op::OpUConvert, rt, {arg(0)});
      uint32_t lo = emit(Op::OpUConvert, rt, {arg(1)});
      r = emit(Op::OpBitwiseOr, rt, {emit(Op::OpShiftLeftLogical, rt, {hi, int_const(half)}), lo});
      break;
    }
    case cl::Fdim: {
      // x - y when x > y, +0 when x <= y, NaN when either is NaN.
      uint32_t d = emit(Op::OpFSub, rt, {arg(0), arg(1)});
      uint32_t le = emit(Op::OpFOrdLessThanEqual, bool_type(), {arg(0), arg(1)});
      r = emit(Op::OpSelect, rt, {le, c_null(rt), d});
      break;
    }
    case cl::Fmin: case cl::FMin_common: r = glsl(GLSLstd450NMin, {arg(0), arg(1)}); break;
    case cl::Fmax: case cl::FMax_common: r = glsl(GLSLstd450NMax, {arg(0), arg(1)}); break;
    case cl::FClamp:
      r = glsl(GLSLstd450NMin, {glsl(GLSLstd450NMax, {arg(0), arg(1)}), arg(2)});
      break;
    case cl::Copysign: {
      uint32_t it = t_vec(t_uint(s.width), s.count);
      uint64_t sign = 1ull << (s.width - 1);
      uint32_t a = emit(Op::OpBitcast, it, {arg(0)});
      uint32_t b = emit(Op::OpBitcast, it, {arg(1)});
      uint32_t mag = emit(Op::OpBitwiseAnd, it, {a, int_const(sign - 1)});
      uint32_t sgn = emit(Op::OpBitwiseAnd, it, {b, int_const(sign)});
      r = emit(Op::OpBitcast, rt, {emit(Op::OpBitwiseOr, it, {mag, sgn})});
      break;
    }
    case cl::Sign: {
      // sign(NaN) is 0 in OpenCL.
      uint32_t v = glsl(GLSLstd450FSign, {arg(0)});
      uint32_t nan = emit(Op::OpIsNan, bool_type(), {arg(0)});
      r = emit(Op::OpSelect, rt, {nan, c_null(rt), v});
      break;
    }
    case cl::Mad: r = mad(arg(0), arg(1), arg(2), rt, s.width); break;
    case cl::Mix: r = glsl(GLSLstd450FMix, {arg(0), arg(1), arg(2)}); break;
    case cl::Step: r = glsl(GLSLstd450Step, {arg(0), arg(1)}); break;
    // native_*: precision is implementation-defined, so Vulkan's instructions serve.
    case cl::Native_sin: r = glsl(GLSLstd450Sin, {arg(0)}); break;
    case cl::Native_cos: r = glsl(GLSLstd450Cos, {arg(0)}); break;
    case cl::Native_tan: r = glsl(GLSLstd450Tan, {arg(0)}); break;
    case cl::Native_exp: r = glsl(GLSLstd450Exp, {arg(0)}); break;
    case cl::Native_exp2: r = glsl(GLSLstd450Exp2, {arg(0)}); break;
    case cl::Native_log: r = glsl(GLSLstd450Log, {arg(0)}); break;
    case cl::Native_log2: r = glsl(GLSLstd450Log2, {arg(0)}); break;
    case cl::Native_sqrt: r = glsl(GLSLstd450Sqrt, {arg(0)}); break;
    case cl::Native_rsqrt: r = glsl(GLSLstd450InverseSqrt, {arg(0)}); break;
    case cl::Native_powr: r = glsl(GLSLstd450Pow, {arg(0), arg(1)}); break;
    case cl::Native_divide: r = emit(Op::OpFDiv, rt, {arg(0), arg(1)}); break;
    case cl::Native_recip:
      r = emit(Op::OpFDiv, rt, {splat(constant(t_float(s.width),
                                                s.width == 64 ? std::vector<uint32_t>{0, 0x3ff00000}
                                                : s.width == 16 ? std::vector<uint32_t>{0x3c00}
                                                                : std::vector<uint32_t>{0x3f800000})),
                                arg(0)});
      break;
    case cl::Native_exp10: {
      uint32_t k = splat(constant(t_float(32), {0x40549a78}));  // log2(10)
      if (s.width != 32) return fail("native_exp10 is only supported for float");
      r = glsl(GLSLstd450Exp2, {emit(Op::OpFMul, rt, {arg(0), k})});
      break;
    }
    case cl::Native_log10: {
      if (s.width != 32) return fail("native_log10 is only supported for float");
      uint32_t k = splat(constant(t_float(32), {0x3e9a209b}));  // log10(2)
      r = emit(Op::OpFMul, rt, {glsl(GLSLstd450Log2, {arg(0)}), k});
      break;
    }
    // Integer functions, exact by construction.
    case cl::SAbs: r = glsl(GLSLstd450SAbs, {arg(0)}); break;
    case cl::UAbs: r = arg(0); break;
    case cl::SMin: r = glsl(GLSLstd450SMin, {arg(0), arg(1)}); break;
    case cl::UMin: r = glsl(GLSLstd450UMin, {arg(0), arg(1)}); break;
    case cl::SMax: r = glsl(GLSLstd450SMax, {arg(0), arg(1)}); break;
    case cl::UMax: r = glsl(GLSLstd450UMax, {arg(0), arg(1)}); break;
    case cl::SClamp:
      r = glsl(GLSLstd450SMin, {glsl(GLSLstd450SMax, {arg(0), arg(1)}), arg(2)});
      break;
    case cl::UClamp:
      r = glsl(GLSLstd450UMin, {glsl(GLSLstd450UMax, {arg(0), arg(1)}), arg(2)});
      break;
    case cl::SAbs_diff:
    case cl::UAbs_diff: {
      bool sgn = n == cl::SAbs_diff;
      uint32_t gt = emit(sgn ? Op::OpSGreaterThan : Op::OpUGreaterThan, bool_type(), {arg(0), arg(1)});
      uint32_t d1 = emit(Op::OpISub, rt, {arg(0), arg(1)});
      uint32_t d2 = emit(Op::OpISub, rt, {arg(1), arg(0)});
      r = emit(Op::OpSelect, rt, {gt, d1, d2});
      break;
    }
    case cl::Popcount:
    case cl::Clz:
    case cl::Ctz: {
      // Vulkan's bit instructions take 32-bit operands only: narrower integers are widened,
      // 64-bit ones split into halves.
      uint32_t u32t = t_vec(t_uint(32), s.count);
      uint32_t b32 = t_vec(t_bool(), s.count);
      auto k = [&](uint32_t v) {
        if (s.count == 1) return c_u32(v);
        uint32_t id = take_id();
        out_.globals.emplace_back(Op::OpConstantComposite, u32t, id,
                                  std::vector<uint32_t>(s.count, c_u32(v)));
        return id;
      };
      auto ext = [&](GLSLstd450 op, uint32_t v) {
        return emit(Op::OpExtInst, u32t, {glsl_import(), uint32_t(op), v});
      };
      auto clz32 = [&](uint32_t v) {  // FindUMsb(0) is -1, so clz32(0) == 32
        return emit(Op::OpISub, u32t, {k(31), ext(GLSLstd450FindUMsb, v)});
      };
      auto ctz32 = [&](uint32_t v) {
        uint32_t zero = emit(Op::OpIEqual, b32, {v, k(0)});
        return emit(Op::OpSelect, u32t, {zero, k(32), ext(GLSLstd450FindILsb, v)});
      };
      auto op32 = [&](uint32_t v) {
        return n == cl::Popcount ? emit(Op::OpBitCount, u32t, {v}) : n == cl::Clz ? clz32(v) : ctz32(v);
      };
      uint32_t x = arg(0), r32 = 0;
      if (s.width == 64) {
        uint32_t lo = emit(Op::OpUConvert, u32t, {x});
        uint32_t hi = emit(Op::OpUConvert, u32t, {emit(Op::OpShiftRightLogical, rt, {x, int_const(32)})});
        if (n == cl::Popcount) {
          r32 = emit(Op::OpIAdd, u32t, {op32(lo), op32(hi)});
        } else {
          uint32_t first = n == cl::Clz ? hi : lo, second = n == cl::Clz ? lo : hi;
          uint32_t zero = emit(Op::OpIEqual, b32, {first, k(0)});
          r32 = emit(Op::OpSelect, u32t, {zero, emit(Op::OpIAdd, u32t, {k(32), op32(second)}), op32(first)});
        }
      } else {
        uint32_t wide = s.width == 32 ? x : emit(Op::OpUConvert, u32t, {x});
        if (n == cl::Ctz && s.width < 32) wide = emit(Op::OpBitwiseOr, u32t, {wide, k(1u << s.width)});
        r32 = op32(wide);
        if (n == cl::Clz && s.width < 32) r32 = emit(Op::OpISub, u32t, {r32, k(32 - s.width)});
      }
      r = s.width == 32 ? r32 : emit(Op::OpUConvert, rt, {r32});
      break;
    }
    case cl::Rotate: {
      uint32_t amount = emit(Op::OpBitwiseAnd, rt, {arg(1), int_const(s.width - 1)});
      uint32_t left = emit(Op::OpShiftLeftLogical, rt, {arg(0), amount});
      uint32_t back = emit(Op::OpISub, rt, {int_const(s.width), amount});
      back = emit(Op::OpBitwiseAnd, rt, {back, int_const(s.width - 1)});
      uint32_t right = emit(Op::OpShiftRightLogical, rt, {arg(0), back});
      uint32_t zero = emit(Op::OpIEqual, bool_type(), {amount, int_const(0)});
      r = emit(Op::OpSelect, rt, {zero, arg(0), emit(Op::OpBitwiseOr, rt, {left, right})});
      break;
    }
    case cl::SMul_hi:
    case cl::UMul_hi: {
      uint32_t st = type(Op::OpTypeStruct, {rt, rt});
      uint32_t wide = emit(n == cl::SMul_hi ? Op::OpSMulExtended : Op::OpUMulExtended, st,
                           {arg(0), arg(1)});
      r = emit(Op::OpCompositeExtract, rt, {wide, 1});
      break;
    }
    case cl::SMul24: case cl::UMul24: r = emit(Op::OpIMul, rt, {arg(0), arg(1)}); break;
    case cl::SMad24: case cl::UMad24:
      r = emit(Op::OpIAdd, rt, {emit(Op::OpIMul, rt, {arg(0), arg(1)}), arg(2)});
      break;
    case cl::UHadd: case cl::URhadd: case cl::SHadd: case cl::SRhadd: {
      // (a >> 1) + (b >> 1) + carry, with carry = (a & b & 1) or ((a | b) & 1) for rhadd.
      bool sgn = n == cl::SHadd || n == cl::SRhadd;
      bool round = n == cl::URhadd || n == cl::SRhadd;
      Op shr = sgn ? Op::OpShiftRightArithmetic : Op::OpShiftRightLogical;
      uint32_t a = emit(shr, rt, {arg(0), int_const(1)});
      uint32_t b = emit(shr, rt, {arg(1), int_const(1)});
      uint32_t c = emit(round ? Op::OpBitwiseOr : Op::OpBitwiseAnd, rt, {arg(0), arg(1)});
      c = emit(Op::OpBitwiseAnd, rt, {c, int_const(1)});
      r = emit(Op::OpIAdd, rt, {emit(Op::OpIAdd, rt, {a, b}), c});
      break;
    }
    case cl::UAdd_sat: {
      uint32_t sum = emit(Op::OpIAdd, rt, {arg(0), arg(1)});
      uint32_t overflow = emit(Op::OpULessThan, bool_type(), {sum, arg(0)});
      r = emit(Op::OpSelect, rt, {overflow, int_const(~0ull), sum});
      break;
    }
    case cl::USub_sat: {
      uint32_t under = emit(Op::OpULessThan, bool_type(), {arg(0), arg(1)});
      r = emit(Op::OpSelect, rt, {under, int_const(0), emit(Op::OpISub, rt, {arg(0), arg(1)})});
      break;
    }
    case cl::SAdd_sat:
    case cl::SSub_sat: {
      // Overflow when the operands' signs make it possible and the result's sign disagrees.
      bool add = n == cl::SAdd_sat;
      uint32_t res = emit(add ? Op::OpIAdd : Op::OpISub, rt, {arg(0), arg(1)});
      uint32_t x1 = emit(Op::OpBitwiseXor, rt, {arg(0), res});
      uint32_t x2 = emit(Op::OpBitwiseXor, rt, {add ? arg(1) : arg(0), res});
      if (!add) x2 = emit(Op::OpBitwiseXor, rt, {arg(0), arg(1)});
      uint32_t both = emit(Op::OpBitwiseAnd, rt, {x1, add ? x2 : x2});
      uint32_t overflow = emit(Op::OpSLessThan, bool_type(), {both, int_const(0)});
      uint64_t max = (1ull << (s.width - 1)) - 1;
      uint32_t negative = emit(Op::OpSLessThan, bool_type(), {arg(0), int_const(0)});
      uint32_t limit = emit(Op::OpSelect, rt, {negative, int_const(max + 1), int_const(max)});
      r = emit(Op::OpSelect, rt, {overflow, limit, res});
      break;
    }
    case cl::Bitselect: {
      if (s.is_float) {
        uint32_t it = t_vec(t_uint(s.width), s.count);
        uint32_t a = emit(Op::OpBitcast, it, {arg(0)});
        uint32_t b = emit(Op::OpBitcast, it, {arg(1)});
        uint32_t c = emit(Op::OpBitcast, it, {arg(2)});
        uint32_t keep = emit(Op::OpBitwiseAnd, it, {a, emit(Op::OpNot, it, {c})});
        uint32_t take = emit(Op::OpBitwiseAnd, it, {b, c});
        r = emit(Op::OpBitcast, rt, {emit(Op::OpBitwiseOr, it, {keep, take})});
      } else {
        uint32_t keep = emit(Op::OpBitwiseAnd, rt, {arg(0), emit(Op::OpNot, rt, {arg(2)})});
        uint32_t take = emit(Op::OpBitwiseAnd, rt, {arg(1), arg(2)});
        r = emit(Op::OpBitwiseOr, rt, {keep, take});
      }
      break;
    }
    case cl::Select: {
      // Scalars select on c != 0, vectors on the most significant bit of each component.
      uint32_t c = arg(2);
      const ir::Instruction* cdef = def(i.operands[4]);
      Shape cs = shape_of(lower_type(cdef->type_id));
      uint32_t ct = t_vec(t_uint(cs.width), cs.count);
      uint32_t cond = s.count == 1
          ? emit(Op::OpINotEqual, bool_type(), {c, c_uint(cs.width, 0)})
          : emit(Op::OpSLessThan, bool_type(), {c, cs.count == 1 ? c_uint(cs.width, 0) : c_null(ct)});
      r = emit(Op::OpSelect, rt, {cond, arg(1), arg(0)});
      break;
    }
    case cl::Printf:
      return lower_printf(i);
    case cl::Prefetch:
      return true;  // a hint: doing nothing is a correct implementation
    case cl::Vloadn: {
      // vloadn(offset, p): n elements at p + offset * n, element-aligned.
      const ir::Instruction* p = def(i.operands[3]);
      AddressFormat f = format_of(pointer_storage(p->type_id));
      uint32_t elem = t_vec(s.is_float ? t_float(s.width) : t_uint(s.width), 1);
      uint32_t bytes = s.width / 8;
      const ir::Instruction* odef = def(i.operands[2]);
      uint32_t ow = def(odef->type_id)->operands[0];
      uint32_t off = to_width(arg(0), ow, address_width(f), false);
      off = emit(Op::OpIMul, t_uint(address_width(f)), {off, c_offset(f, uint64_t(s.count) * bytes)});
      uint32_t base = checked(f, add_offset(f, arg(1), off), c_u32(s.count * bytes), "vload", i.operands[3]);
      std::vector<uint32_t> parts;
      constant_argument_ = constant_argument_of(i.operands[3]);
      for (uint32_t c = 0; c < s.count; ++c) {
        uint32_t a = c ? add_offset(f, base, c_offset(f, c * bytes)) : base;
        parts.push_back(load_out(f, a, elem, bytes));
      }
      constant_argument_ = UINT32_MAX;
      r = emit(Op::OpCompositeConstruct, rt, parts);
      break;
    }
    case cl::Vload_half: case cl::Vload_halfn: case cl::Vloada_halfn: case cl::Vstore_half:
    case cl::Vstore_half_r: case cl::Vstore_halfn: case cl::Vstore_halfn_r:
    case cl::Vstorea_halfn: case cl::Vstorea_halfn_r:
      return lower_half_memory(i);
    case cl::Vstoren: {
      const ir::Instruction* d = def(i.operands[2]);
      Shape ds = shape_of(lower_type(d->type_id));
      const ir::Instruction* p = def(i.operands[4]);
      AddressFormat f = format_of(pointer_storage(p->type_id));
      uint32_t elem = ds.is_float ? t_float(ds.width) : t_uint(ds.width);
      uint32_t bytes = ds.width / 8;
      const ir::Instruction* odef = def(i.operands[3]);
      uint32_t ow = def(odef->type_id)->operands[0];
      uint32_t off = to_width(arg(1), ow, address_width(f), false);
      off = emit(Op::OpIMul, t_uint(address_width(f)), {off, c_offset(f, uint64_t(ds.count) * bytes)});
      uint32_t base = checked(f, add_offset(f, arg(2), off), c_u32(ds.count * bytes), "vstore", i.operands[4]);
      for (uint32_t c = 0; c < ds.count; ++c) {
        uint32_t part = emit(Op::OpCompositeExtract, elem, {arg(0), c});
        uint32_t a = c ? add_offset(f, base, c_offset(f, c * bytes)) : base;
        store_out(f, a, elem, part, bytes);
      }
      return !failed_;
    }
    default:
      return fail(std::string("OpenCL built-in ") + opencl_std_name(n) + " (OpenCL.std " +
                  std::to_string(n) + ") is not supported yet: " + describe(i));
  }
  bind(i.result_id, rt, r);
  return !failed_;
}

bool Lowering::lower_kernel_only_op(const ir::Instruction& i) {
  uint32_t rt = lower_type(i.type_id);
  auto v = [&](size_t k) { return value(i.operands[k]); };
  uint32_t r = 0;
  switch (i.opcode) {
    case Op::OpIsFinite: {
      uint32_t nan = emit(Op::OpIsNan, rt, {v(0)});
      uint32_t inf = emit(Op::OpIsInf, rt, {v(0)});
      r = emit(Op::OpLogicalNot, rt, {emit(Op::OpLogicalOr, rt, {nan, inf})});
      break;
    }
    case Op::OpIsNormal: {
      const ir::Instruction* x = def(i.operands[0]);
      Shape s = shape_of(lower_type(x->type_id));
      uint32_t mant = s.width == 64 ? 52 : s.width == 16 ? 10 : 23;
      uint64_t exp_mask = s.width == 64 ? 0x7ff : s.width == 16 ? 0x1f : 0xff;
      uint32_t it = t_vec(t_uint(s.width), s.count);
      auto k = [&](uint64_t c) {
        uint32_t sc = c_uint(s.width, c);
        if (s.count == 1) return sc;
        uint32_t id = take_id();
        out_.globals.emplace_back(Op::OpConstantComposite, it, id, std::vector<uint32_t>(s.count, sc));
        return id;
      };
      uint32_t bits = emit(Op::OpBitcast, it, {v(0)});
      uint32_t e = emit(Op::OpBitwiseAnd, it, {emit(Op::OpShiftRightLogical, it, {bits, k(mant)}), k(exp_mask)});
      uint32_t nz = emit(Op::OpINotEqual, rt, {e, k(0)});
      uint32_t nm = emit(Op::OpINotEqual, rt, {e, k(exp_mask)});
      r = emit(Op::OpLogicalAnd, rt, {nz, nm});
      break;
    }
    case Op::OpSignBitSet: {
      const ir::Instruction* x = def(i.operands[0]);
      Shape s = shape_of(lower_type(x->type_id));
      uint32_t it = t_vec(t_uint(s.width), s.count);
      uint32_t bits = emit(Op::OpBitcast, it, {v(0)});
      r = emit(Op::OpSLessThan, rt, {bits, s.count == 1 ? c_uint(s.width, 0) : c_null(it)});
      break;
    }
    case Op::OpOrdered:
    case Op::OpUnordered: {
      uint32_t a = emit(Op::OpIsNan, rt, {v(0)});
      uint32_t b = emit(Op::OpIsNan, rt, {v(1)});
      uint32_t any = emit(Op::OpLogicalOr, rt, {a, b});
      r = i.opcode == Op::OpUnordered ? any : emit(Op::OpLogicalNot, rt, {any});
      break;
    }
    case Op::OpLessOrGreater:
      r = emit(Op::OpFOrdNotEqual, rt, {v(0), v(1)});
      break;
    default:
      return fail("not supported yet: " + describe(i));
  }
  bind(i.result_id, rt, r);
  return !failed_;
}

// A float fma from doubles: the product of two floats is exact in double, the sum is rounded
// to odd (TwoSum tells whether and which way the double addition rounded) and the final
// conversion to float then rounds once, correctly (round-to-odd with 29 spare bits makes the
// double rounding harmless).
uint32_t Lowering::fma_through_double(uint32_t a, uint32_t b, uint32_t c, uint32_t rt,
                                      uint32_t count) {
  need_capability(spv::Capability::Float64);
  uint32_t dt = t_vec(t_float(64), count), ut = t_vec(t_uint(64), count);
  uint32_t bt = t_vec(t_bool(), count);
  auto k = [&](uint32_t type, uint32_t scalar) {
    if (count == 1) return scalar;
    uint32_t id = take_id();
    out_.globals.emplace_back(Op::OpConstantComposite, type, id, std::vector<uint32_t>(count, scalar));
    return id;
  };
  auto exact = [&](uint32_t id) {
    decorate(id, spv::Decoration::NoContraction);
    return id;
  };
  uint32_t p = exact(emit(Op::OpFMul, dt, {emit(Op::OpFConvert, dt, {a}), emit(Op::OpFConvert, dt, {b})}));
  uint32_t cd = emit(Op::OpFConvert, dt, {c});
  uint32_t sum = exact(emit(Op::OpFAdd, dt, {p, cd}));
  // TwoSum: err = (p - (sum - bb)) + (cd - bb) with bb = sum - p, exactly sum's rounding error.
  uint32_t bb = exact(emit(Op::OpFSub, dt, {sum, p}));
  uint32_t err = exact(emit(Op::OpFAdd, dt, {exact(emit(Op::OpFSub, dt, {p, exact(emit(Op::OpFSub, dt, {sum, bb}))})),
                                               exact(emit(Op::OpFSub, dt, {cd, bb}))}));
  uint32_t zero = k(dt, constant(t_float(64), {0, 0}));
  uint32_t one = k(ut, c_u64(1));
  uint32_t bits = emit(Op::OpBitcast, ut, {sum});
  uint32_t even = emit(Op::OpIEqual, bt, {emit(Op::OpBitwiseAnd, ut, {bits, one}), k(ut, c_u64(0))});
  uint32_t inexact = emit(Op::OpFOrdNotEqual, bt, {err, zero});
  // Rounded toward zero when the error has the sum's sign: the odd neighbour is one step
  // away from zero; otherwise one step toward it.
  uint32_t same_sign = emit(Op::OpLogicalEqual, bt, {emit(Op::OpFOrdLessThan, bt, {err, zero}),
                                                     emit(Op::OpFOrdLessThan, bt, {sum, zero})});
  uint32_t odd = emit(Op::OpSelect, ut, {same_sign, emit(Op::OpIAdd, ut, {bits, one}), emit(Op::OpISub, ut, {bits, one})});
  uint32_t fix = emit(Op::OpLogicalAnd, bt, {inexact, even});
  // Infinite or NaN sums keep their value (err is NaN there, so no fix applies).
  uint32_t rounded = emit(Op::OpBitcast, dt, {emit(Op::OpSelect, ut, {fix, odd, bits})});
  return emit(Op::OpFConvert, rt, {rounded});
}

}  // namespace vkcl::k2s
