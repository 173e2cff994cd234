// tgamma of double. libclc's is about 190 ulp off above x = 30 (it goes through exp of a
// log-gamma near 700, whose absolute error exp turns into relative error); OpenCL allows 16.
//
// Γ(n + 1 + f) = Γ(1 + f) (1 + f)(2 + f)...(n + f) for f in [0, 1): the product is kept as an
// exact-ish double-double (two_product from fp64.cl), scaled by 2^-500 when it grows, so no
// rounding accumulates over its up to 190 factors. Γ(1 + f) = exp(lgamma(1.5 + u)), u = f - 0.5,
// from the Taylor series of lgamma at 1.5: c0 = lgamma(1.5), c1 = digamma(1.5), and for
// k >= 2, c_k = (-1)^k ((2^k - 1) zeta(k) - 2^k) / k (Hurwitz zeta at 3/2 from Riemann's),
// computed with MPFR at 256 bits. The series converges like 3^-k on |u| <= 1/2; 39 terms leave
// under 2^-60. Its value is at most 0.13 in size, so exp adds about half an ulp. Negative x
// use the reflection Γ(x) = π / (sinpi(x) Γ(1 - x)).

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__constant double kLgammaAt1_5[39] = {
    -0x1.eeb95b094c191p-4, 0x1.2aed059bd608ap-5, 0x1.de9e64df22ef3p-2, -0x1.1ae55b180726cp-3,
    0x1.e0f840dad61dap-5, -0x1.da59d5374a543p-6, 0x1.f9ca39daa929cp-7, -0x1.1a8ba4f0ea597p-7,
    0x1.456f1ad666a3bp-8, -0x1.7edb812f6426ep-9, 0x1.c9735ae9db2c1p-10, -0x1.148a319eec639p-10,
    0x1.517c5a1579f1p-11, -0x1.9eff1d1c8bdc2p-12, 0x1.00c41c13e4c1cp-12, -0x1.3f6dff22ac1c2p-13,
    0x1.8f3619541742cp-14, -0x1.f4ea079c9c87ap-15, 0x1.3b5e73f18d398p-15, -0x1.8e583480fb843p-16,
    0x1.f88eb43555368p-17, -0x1.4059677eed115p-17, 0x1.97b6b03fa7446p-18, -0x1.03fd6bf0808efp-18,
    0x1.4c355353d5241p-19, -0x1.a939cf6ab6697p-20, 0x1.109491756a3fp-20, -0x1.5dfabe1235651p-21,
    0x1.c1f93171f89d3p-22, -0x1.21a3531259833p-22, 0x1.754fa60ab8b7ap-23, -0x1.e1b1158537c59p-24,
    0x1.3717b2266f892p-24, -0x1.92387e0fdf9f7p-25, 0x1.0442ab98bfc68p-25, -0x1.51196689e7eeep-26,
    0x1.b4fafffb9d1p-27, -0x1.1b7260c6f0a98p-27, 0x1.6ffbc9ee7fb98p-28};

// Γ(1 + f) for f in [0, 1).
static double gamma_1_to_2(double f) {
  double u = f - 0.5;
  double p = kLgammaAt1_5[38];
  for (int k = 37; k >= 0; --k) p = p * u + kLgammaAt1_5[k];
  // exp2, not exp: this library's exp(float) hides the header's exp(double) from clang. The
  // product's rounding is far below an ulp of the result, as |p| <= 0.13.
  return exp2(p * M_LOG2E);
}

// Γ(y) for y in [1, 192) as g (ph + pl) 2^e.
static void gamma_parts(double y, double* g, double* ph, double* pl, int* e) {
  double n = floor(y);
  double f = y - n;
  double hi = 1.0, lo = 0.0;
  int scale = 0;
  for (double j = 1.0; j < n; j += 1.0) {
    double t = j + f;  // exact: below y, with f's bits
    double h, l;
    two_product(hi, t, &h, &l);
    hi = h;
    lo = l + lo * t;
    if (hi > 0x1p500) {
      hi *= 0x1p-500;
      lo *= 0x1p-500;
      scale += 500;
    }
  }
  *g = gamma_1_to_2(f);
  *ph = hi;
  *pl = lo;
  *e = scale;
}

double __attribute__((overloadable)) tgamma(double x) {
  if (isnan(x) || x == -INFINITY) return NAN;
  if (fabs(x) < 0x1p-60) return 1.0 / x;  // 1/x - γ + O(x), within 0.6 ulp; ±inf at ±0
  if (x > 172.0) return INFINITY;
  double g, ph, pl;
  int e;
  if (x >= 1.0) {
    gamma_parts(x, &g, &ph, &pl, &e);
    return (g * ph + g * pl) * pow2(e);
  }
  if (x > 0.0) return gamma_1_to_2(x) / x;
  if (x == floor(x)) return NAN;  // the poles
  double s = sinpi(x);
  if (x < -190.0) return copysign(0.0, s);  // |Γ| below half the smallest denormal
  // Γ(1 - x) = -x Γ(-x) below -1: 1 - x would round there, and ψ(1 - x) times that error
  // is tens of ulps near -16.
  double y = x < -1.0 ? -x : 1.0 - x;
  gamma_parts(y, &g, &ph, &pl, &e);
  double d = s * (g * ph + g * pl);
  if (x < -1.0) d *= y;
  return M_PI / d * pow2(-e);
}
