#include "reference.h"

#include <cmath>
#include <limits>

namespace vkcl::mathtest {

namespace {

constexpr mpfr_rnd_t R = MPFR_RNDN;
using Unary = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
using Binary = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);

struct Arg {
  mpfr_t v;
  explicit Arg(double d) { mpfr_init2(v, 128); mpfr_set_d(v, d, R); }
  ~Arg() { mpfr_clear(v); }
};

Reference unary(Unary f) {
  return [f](mpfr_t out, mpfr_t, const double* in, long) { Arg x(in[0]); f(out, x.v, R); };
}
Reference binary(Binary f) {
  return [f](mpfr_t out, mpfr_t, const double* in, long) {
    Arg x(in[0]), y(in[1]);
    f(out, x.v, y.v, R);
  };
}
// rsqrt(±0) = ±inf (MPFR's rec_sqrt gives +inf for -0).
int ref_rsqrt(mpfr_ptr o, mpfr_srcptr x, mpfr_rnd_t r) {
  if (mpfr_zero_p(x)) return mpfr_set_inf(o, mpfr_signbit(x) ? -1 : 1), 0;
  return mpfr_rec_sqrt(o, x, r);
}
int mpfr_ceil_wrap(mpfr_ptr o, mpfr_srcptr x, mpfr_rnd_t) { return mpfr_ceil(o, x); }
int mpfr_floor_wrap(mpfr_ptr o, mpfr_srcptr x, mpfr_rnd_t) { return mpfr_floor(o, x); }
int mpfr_trunc_wrap(mpfr_ptr o, mpfr_srcptr x, mpfr_rnd_t) { return mpfr_trunc(o, x); }
int mpfr_round_wrap(mpfr_ptr o, mpfr_srcptr x, mpfr_rnd_t) { return mpfr_round(o, x); }
int mpfr_rint_wrap(mpfr_ptr o, mpfr_srcptr x, mpfr_rnd_t) { return mpfr_rint(o, x, MPFR_RNDN); }
int mpfr_abs_wrap(mpfr_ptr o, mpfr_srcptr x, mpfr_rnd_t r) { return mpfr_abs(o, x, r); }
int mpfr_lngamma_wrap(mpfr_ptr o, mpfr_srcptr x, mpfr_rnd_t r) {
  int sign;
  return mpfr_lgamma(o, &sign, x, r);
}
int ref_exp10(mpfr_ptr o, mpfr_srcptr x, mpfr_rnd_t r) { return mpfr_exp10(o, x, r); }
int ref_logb(mpfr_ptr o, mpfr_srcptr x, mpfr_rnd_t r) {
  if (mpfr_nan_p(x)) return mpfr_set_nan(o), 0;
  if (mpfr_inf_p(x)) return mpfr_set_inf(o, 1), 0;
  if (mpfr_zero_p(x)) return mpfr_set_inf(o, -1), 0;
  return mpfr_set_si(o, mpfr_get_exp(x) - 1, r);
}
int ref_degrees(mpfr_ptr o, mpfr_srcptr x, mpfr_rnd_t r) {
  mpfr_t pi;
  mpfr_init2(pi, 256);
  mpfr_const_pi(pi, r);
  mpfr_mul_ui(o, x, 180, r);
  mpfr_div(o, o, pi, r);
  mpfr_clear(pi);
  return 0;
}
int ref_radians(mpfr_ptr o, mpfr_srcptr x, mpfr_rnd_t r) {
  mpfr_t pi;
  mpfr_init2(pi, 256);
  mpfr_const_pi(pi, r);
  mpfr_mul(o, x, pi, r);
  mpfr_div_ui(o, o, 180, r);
  mpfr_clear(pi);
  return 0;
}
int ref_recip(mpfr_ptr o, mpfr_srcptr x, mpfr_rnd_t r) { return mpfr_ui_div(o, 1, x, r); }
// powr: pow for x >= 0 only (NaN for negative x), with powr's own special cases.
int ref_powr(mpfr_ptr o, mpfr_srcptr x, mpfr_srcptr y, mpfr_rnd_t r) {
  if (mpfr_sgn(x) < 0 || mpfr_nan_p(x) || mpfr_nan_p(y)) return mpfr_set_nan(o), 0;
  if (mpfr_zero_p(x) && mpfr_zero_p(y)) return mpfr_set_nan(o), 0;
  if (mpfr_inf_p(x) && mpfr_zero_p(y)) return mpfr_set_nan(o), 0;
  if (mpfr_cmp_ui(x, 1) == 0 && mpfr_inf_p(y)) return mpfr_set_nan(o), 0;
  // powr(±0, y) is +0 for y > 0 and +inf for y < 0 (x is never negative for powr).
  if (mpfr_zero_p(x)) return mpfr_sgn(y) > 0 ? (mpfr_set_zero(o, 1), 0) : (mpfr_set_inf(o, 1), 0);
  return mpfr_pow(o, x, y, r);
}
int ref_maxmag(mpfr_ptr o, mpfr_srcptr x, mpfr_srcptr y, mpfr_rnd_t r) {
  int c = mpfr_cmpabs(x, y);
  if (mpfr_nan_p(x) || mpfr_nan_p(y)) return mpfr_max(o, x, y, r);
  return c > 0 ? mpfr_set(o, x, r) : c < 0 ? mpfr_set(o, y, r) : mpfr_max(o, x, y, r);
}
int ref_minmag(mpfr_ptr o, mpfr_srcptr x, mpfr_srcptr y, mpfr_rnd_t r) {
  int c = mpfr_cmpabs(x, y);
  if (mpfr_nan_p(x) || mpfr_nan_p(y)) return mpfr_min(o, x, y, r);
  return c < 0 ? mpfr_set(o, x, r) : c > 0 ? mpfr_set(o, y, r) : mpfr_min(o, x, y, r);
}
int ref_fdim(mpfr_ptr o, mpfr_srcptr x, mpfr_srcptr y, mpfr_rnd_t r) { return mpfr_dim(o, x, y, r); }

}  // namespace

namespace {

// The ulp error for a result of |precision| bits, smallest denormal 2^|min_exp|, and values from
// 2^|max_exp| on rounding to infinity.
template <typename T>
double ulp_error_of(T got, const mpfr_t ref, int precision, long min_exp, long max_exp) {
  const double inf = std::numeric_limits<double>::infinity();
  if (mpfr_nan_p(ref)) return std::isnan(got) ? 0 : inf;
  if (std::isnan(got)) return inf;
  if (mpfr_inf_p(ref)) return std::isinf(got) && (got < 0) == (mpfr_sgn(ref) < 0) ? 0 : inf;
  if (mpfr_zero_p(ref)) {
    if (got == 0) return std::signbit(got) == bool(mpfr_signbit(ref)) ? 0 : inf;
  }
  // Exact values beyond the largest finite value round to infinity: the correct result.
  // They are those from 2^max_exp (1 - 2^-(precision + 1)), half an ulp past the largest.
  mpfr_t limit;
  mpfr_init2(limit, 64);
  mpfr_set_ui_2exp(limit, 1, max_exp, MPFR_RNDN);
  mpfr_mul_d(limit, limit, 1 - std::ldexp(1.0, -(precision + 1)), MPFR_RNDN);
  bool overflows = mpfr_cmpabs(ref, limit) >= 0;
  mpfr_clear(limit);
  if (overflows && std::isinf(got) && (got < 0) == (mpfr_sgn(ref) < 0)) return 0;
  // A finite reference: an infinite result counts as 2^max_exp, one step past the largest.
  mpfr_t diff, ulp;
  mpfr_init2(diff, 192);
  mpfr_init2(ulp, 32);
  if (std::isinf(got)) {
    mpfr_set_ui_2exp(diff, 1, max_exp, MPFR_RNDN);
    if (got < 0) mpfr_neg(diff, diff, MPFR_RNDN);
  } else {
    mpfr_set_d(diff, double(got), MPFR_RNDN);
  }
  mpfr_sub(diff, diff, ref, MPFR_RNDN);
  long e = mpfr_zero_p(ref) ? min_exp - 60 : mpfr_get_exp(ref);  // |ref| in [2^(e-1), 2^e)
  mpfr_set_ui_2exp(ulp, 1, std::max<long>(e - precision, min_exp), MPFR_RNDN);
  mpfr_div(diff, diff, ulp, MPFR_RNDN);
  double err = std::fabs(mpfr_get_d(diff, MPFR_RNDN));
  mpfr_clear(diff);
  mpfr_clear(ulp);
  return err;
}

int reference_bits = 32;  // the result format: 16, 32 or 64

}  // namespace

double ulp_error(float got, const mpfr_t ref) { return ulp_error_of(got, ref, 24, -149, 128); }
double ulp_error(double got, const mpfr_t ref) { return ulp_error_of(got, ref, 53, -1074, 1024); }
double ulp_error_half(float got, const mpfr_t ref) { return ulp_error_of(got, ref, 11, -24, 16); }

void use_format(int bits) { reference_bits = bits; }

const std::vector<MathFunction>& functions() {
  using S = Shape;
  static const std::vector<MathFunction> table = [] {
    // Bounds: "ULP Values for Math Instructions - Full Profile", OpenCL SPIR-V Environment
    // Specification 6.6.1, Float32 column.
    std::vector<MathFunction> t = {
        {"acos", S::F1, 4, unary(mpfr_acos), -1, 1},
        {"acosh", S::F1, 4, unary(mpfr_acosh), 1, 1e4f},
        {"acospi", S::F1, 5, unary(mpfr_acospi), -1, 1},
        {"asin", S::F1, 4, unary(mpfr_asin), -1, 1},
        {"asinh", S::F1, 4, unary(mpfr_asinh), -1e4f, 1e4f},
        {"asinpi", S::F1, 5, unary(mpfr_asinpi), -1, 1},
        {"atan", S::F1, 5, unary(mpfr_atan), -1e4f, 1e4f},
        {"atanh", S::F1, 5, unary(mpfr_atanh), -1, 1},
        {"atanpi", S::F1, 5, unary(mpfr_atanpi), -1e4f, 1e4f},
        {"atan2", S::F2, 6, binary(mpfr_atan2), -1e4f, 1e4f},
        {"atan2pi", S::F2, 6, binary(mpfr_atan2pi), -1e4f, 1e4f},
        {"cbrt", S::F1, 2, unary(mpfr_cbrt), -1e6f, 1e6f},
        {"ceil", S::F1, 0, unary(mpfr_ceil_wrap), -1e6f, 1e6f},
        {"copysign", S::F2, 0, [](mpfr_t o, mpfr_t, const double* in, long) {
           // The C library, since MPFR does not keep the sign bit of a NaN input.
           mpfr_set_d(o, std::copysign(in[0], in[1]), R);
         }, -1e6f, 1e6f},
        {"cos", S::F1, 4, unary(mpfr_cos), -100, 100},
        {"cosh", S::F1, 4, unary(mpfr_cosh), -88, 88},
        {"cospi", S::F1, 4, unary(mpfr_cospi), -100, 100},
        {"degrees", S::F1, 2, unary(ref_degrees), -1e4f, 1e4f},
        {"erfc", S::F1, 16, unary(mpfr_erfc), -10, 10},
        {"erf", S::F1, 16, unary(mpfr_erf), -10, 10},
        {"exp", S::F1, 3, unary(mpfr_exp), -88, 88},
        {"exp2", S::F1, 3, unary(mpfr_exp2), -126, 127},
        {"exp10", S::F1, 3, unary(ref_exp10), -38, 38},
        {"expm1", S::F1, 3, unary(mpfr_expm1), -88, 88},
        {"fabs", S::F1, 0, unary(mpfr_abs_wrap), -1e6f, 1e6f},
        {"fdim", S::F2, 0, binary(ref_fdim), -1e6f, 1e6f},
        {"floor", S::F1, 0, unary(mpfr_floor_wrap), -1e6f, 1e6f},
        {"fma", S::F3, 0, nullptr, -1e3f, 1e3f},
        {"fmax", S::F2, 0, binary(mpfr_max), -1e6f, 1e6f},
        {"fmin", S::F2, 0, binary(mpfr_min), -1e6f, 1e6f},
        {"fmod", S::F2, 0, binary(mpfr_fmod), -1e6f, 1e6f},
        {"hypot", S::F2, 4, binary(mpfr_hypot), -1e6f, 1e6f},
        {"log", S::F1, 3, unary(mpfr_log), 0, 1e6f},
        {"log2", S::F1, 3, unary(mpfr_log2), 0, 1e6f},
        {"log10", S::F1, 3, unary(mpfr_log10), 0, 1e6f},
        {"log1p", S::F1, 2, unary(mpfr_log1p), -1, 1e6f},
        {"logb", S::F1, 0, unary(ref_logb), -1e6f, 1e6f},
        {"maxmag", S::F2, 0, binary(ref_maxmag), -1e6f, 1e6f},
        {"minmag", S::F2, 0, binary(ref_minmag), -1e6f, 1e6f},
        {"pow", S::F2, 16, binary(mpfr_pow), -100, 100},
        {"powr", S::F2, 16, binary(ref_powr), 0, 100},
        {"radians", S::F1, 2, unary(ref_radians), -1e4f, 1e4f},
        {"remainder", S::F2, 0, binary(mpfr_remainder), -1e6f, 1e6f},
        {"rint", S::F1, 0, unary(mpfr_rint_wrap), -1e6f, 1e6f},
        {"round", S::F1, 0, unary(mpfr_round_wrap), -1e6f, 1e6f},
        {"rsqrt", S::F1, 2, unary(ref_rsqrt), 0, 1e6f},
        {"sin", S::F1, 4, unary(mpfr_sin), -100, 100},
        {"sinh", S::F1, 4, unary(mpfr_sinh), -88, 88},
        {"sinpi", S::F1, 4, unary(mpfr_sinpi), -100, 100},
        {"sqrt", S::F1, 3, unary(mpfr_sqrt), 0, 1e6f},
        {"tan", S::F1, 5, unary(mpfr_tan), -100, 100},
        {"tanh", S::F1, 5, unary(mpfr_tanh), -20, 20},
        {"tanpi", S::F1, 6, unary(mpfr_tanpi), -100, 100},
        {"tgamma", S::F1, 16, unary(mpfr_gamma), -30, 35},
        {"trunc", S::F1, 0, unary(mpfr_trunc_wrap), -1e6f, 1e6f},
        {"lgamma", S::F1, -1, unary(mpfr_lngamma_wrap), -30, 1e4f},
        {"divide", S::F2, 2.5, binary(mpfr_div), -1e6f, 1e6f},
        {"recip", S::F1, 2.5, unary(ref_recip), -1e6f, 1e6f},
        {"half_cos", S::F1, 8192, unary(mpfr_cos), -65536, 65536},
        {"half_sin", S::F1, 8192, unary(mpfr_sin), -65536, 65536},
        {"half_tan", S::F1, 8192, unary(mpfr_tan), -65536, 65536},
        {"half_exp", S::F1, 8192, unary(mpfr_exp), -87, 88},
        {"half_exp2", S::F1, 8192, unary(mpfr_exp2), -126, 127},
        {"half_exp10", S::F1, 8192, unary(ref_exp10), -37, 38},
        {"half_log", S::F1, 8192, unary(mpfr_log), 0, 1e6f},
        {"half_log2", S::F1, 8192, unary(mpfr_log2), 0, 1e6f},
        {"half_log10", S::F1, 8192, unary(mpfr_log10), 0, 1e6f},
        {"half_rsqrt", S::F1, 8192, unary(ref_rsqrt), 0, 1e6f},
        {"half_sqrt", S::F1, 8192, unary(mpfr_sqrt), 0, 1e6f},
        {"half_recip", S::F1, 8192, unary(ref_recip), -1e6f, 1e6f},
        {"half_divide", S::F2, 8192, binary(mpfr_div), -1e6f, 1e6f},
        {"half_powr", S::F2, 8192, binary(ref_powr), 0, 100},
        {"native_sin", S::F1, -1, unary(mpfr_sin), -100, 100},
        {"native_exp", S::F1, -1, unary(mpfr_exp), -88, 88},
        {"native_log", S::F1, -1, unary(mpfr_log), 0, 1e6f},
        {"native_sqrt", S::F1, -1, unary(mpfr_sqrt), 0, 1e6f},
    };
    // C99 F.9.9.2: fmax/fmin of zeros of either sign may return either.
    for (auto& f : t)
      if (f.name == "fmax" || f.name == "fmin" || f.name == "maxmag" || f.name == "minmag")
        f.zero_sign_free = true;
    // fma: exact a * b + c rounded once (the reference is the exact value).
    for (auto& f : t)
      if (f.name == "fma")
        f.ref = [](mpfr_t out, mpfr_t, const double* in, long) {
          Arg a(in[0]), b(in[1]), c(in[2]);
          mpfr_fma(out, a.v, b.v, c.v, R);
        };
    auto two = [&](std::string name, Shape shape, double bound, Reference ref, float lo, float hi) {
      MathFunction f{name, shape, bound, ref, lo, hi};
      f.second_exact = true;
      t.push_back(f);
    };
    two("ldexp", S::FI, 0, [](mpfr_t o, mpfr_t, const double* in, long n) {
      Arg x(in[0]);
      mpfr_mul_2si(o, x.v, n, R);
    }, -1e6f, 1e6f);
    two("pown", S::FI, 16, [](mpfr_t o, mpfr_t, const double* in, long n) {
      Arg x(in[0]);
      mpfr_pow_si(o, x.v, n, R);
    }, -10, 10);
    two("rootn", S::FI, 16, [](mpfr_t o, mpfr_t, const double* in, long n) {
      Arg x(in[0]);
      if (n == 0) { mpfr_set_nan(o); return; }
      mpfr_rootn_si(o, x.v, n, R);
    }, -1e6f, 1e6f);
    two("ilogb", S::I_F, 0, [](mpfr_t o, mpfr_t, const double* in, long) {
      // FP_ILOGB0 / FP_ILOGBNAN are INT_MIN / INT_MAX in OpenCL C; infinity gives INT_MAX.
      double x = in[0];
      long v = x == 0 ? -2147483647L - 1 : std::isnan(x) || std::isinf(x) ? 2147483647L : std::ilogb(x);
      mpfr_set_si(o, v, R);
    }, -1e6f, 1e6f);
    two("fract", S::F_PF, 0, [](mpfr_t o, mpfr_t o2, const double* in, long) {
      // fract(x) = fmin(x - floor(x), largest value below 1); iptr = floor(x).
      Arg x(in[0]);
      mpfr_floor(o2, x.v);
      if (mpfr_inf_p(x.v)) { mpfr_set_zero(o, mpfr_sgn(x.v)); return; }
      // "fract(-0, iptr) returns -0 and -0 in iptr" (x - floor(x) would be +0).
      if (mpfr_zero_p(x.v)) { mpfr_set(o, x.v, R); return; }
      mpfr_sub(o, x.v, o2, R);
      mpfr_t cap;
      mpfr_init2(cap, 64);
      mpfr_set_d(cap, reference_bits == 64 ? 0x1.fffffffffffffp-1
                      : reference_bits == 16 ? 0x1.ffcp-1 : 0x1.fffffep-1, R);
      if (mpfr_cmp(o, cap) > 0) mpfr_set(o, cap, R);
      mpfr_clear(cap);
    }, -1e4f, 1e4f);
    two("modf", S::F_PF, 0, [](mpfr_t o, mpfr_t o2, const double* in, long) {
      Arg x(in[0]);
      mpfr_modf(o2, o, x.v, R);
      if (mpfr_inf_p(x.v)) mpfr_set_zero(o, mpfr_sgn(x.v));
    }, -1e6f, 1e6f);
    t.push_back({"sincos", S::F_PF, 4, [](mpfr_t o, mpfr_t o2, const double* in, long) {
      Arg x(in[0]);
      mpfr_sin_cos(o, o2, x.v, R);
    }, -100, 100});
    two("frexp", S::F_PI, 0, [](mpfr_t o, mpfr_t o2, const double* in, long) {
      int e = 0;
      double m = std::frexp(in[0], &e);
      mpfr_set_d(o, m, R);
      mpfr_set_si(o2, std::isfinite(in[0]) ? e : 0, R);
    }, -1e6f, 1e6f);
    two("remquo", S::F2_PI, 0, [](mpfr_t o, mpfr_t o2, const double* in, long) {
      Arg x(in[0]), y(in[1]);
      long q = 0;
      mpfr_remquo(o, &q, x.v, y.v, R);
      // "the lower seven bits of the integral quotient x/y, with the sign of x/y"
      long low = std::labs(q) & 0x7f;
      mpfr_set_si(o2, q < 0 ? -low : low, R);
    }, -1e4f, 1e4f);
    return t;
  }();
  return table;
}

}  // namespace vkcl::mathtest
