// fma, sqrt and rsqrt of double for devices whose Vulkan Fma and Sqrt are not IEEE's on
// doubles (Mesa 22's lavapipe splits a 64-bit Fma into a multiply and an add and misrounds
// 64-bit Sqrt). They need only correctly rounded double +, -, * and /, which vkcl's precision
// probe checks before it reports cl_khr_fp64, and no contraction: the library is imported
// with NoContraction on every multiply and add, so the exact-product splits below hold.

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

// 2^k for k in [-1074, 1023].
static double pow2(int k) {
  return k >= -1022 ? as_double((ulong)(k + 1023) << 52) : as_double(1UL << (k + 1074));
}

// |x| = m 2^e with m in [1, 2), for finite nonzero x.
static double mantissa(double x, int* e) {
  ulong b = as_ulong(x) & 0x7fffffffffffffffUL;
  int shift = 0;
  if (b < 0x0010000000000000UL) {  // a denormal: scaled into the normal range first
    b = as_ulong(as_double(b) * 0x1p54);
    shift = 54;
  }
  *e = (int)(b >> 52) - 1023 - shift;
  return as_double((b & 0x000fffffffffffffUL) | 0x3ff0000000000000UL);
}

// a * b = *hi + *lo exactly (Dekker), for operands whose halves neither overflow nor underflow.
static void two_product(double a, double b, double* hi, double* lo) {
  double ca = 0x1.0000002p27 * a, cb = 0x1.0000002p27 * b;  // 2^27 + 1: Veltkamp's split
  double ah = ca - (ca - a), bh = cb - (cb - b);
  double al = a - ah, bl = b - bh;
  *hi = a * b;
  *lo = ((ah * bh - *hi) + ah * bl + al * bh) + al * bl;
}

// a + b = *s + *e exactly (Knuth).
static void two_sum(double a, double b, double* s, double* e) {
  *s = a + b;
  double bv = *s - a;
  *e = (a - (*s - bv)) + (b - bv);
}

// a + b rounded to odd: when inexact, the neighbour whose last mantissa bit is 1. Rounding
// once more from it, to 53 bits or fewer, gives the correctly rounded result (Boldo and
// Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to
// odd", IEEE TC 2008).
static double add_odd(double a, double b) {
  double s, e;
  two_sum(a, b, &s, &e);
  ulong bits = as_ulong(s);
  if (e != 0 && (bits & 1) == 0) bits = (e > 0) == (s > 0) ? bits + 1 : bits - 1;
  return as_double(bits);
}

double __attribute__((overloadable)) fma(double a, double b, double c) {
  double p = a * b;
  // Zero, infinite or NaN factors: the product is exact and one addition is IEEE's fma.
  if (a == 0 || b == 0 || !isfinite(a) || !isfinite(b)) return p + c;
  if (!isfinite(c)) return c;  // the exact product is finite
  if (c == 0) return p;        // a b + 0 rounded once, with the sign of a b
  int ea, eb, ec;
  double ma = mantissa(a, &ea), mb = mantissa(b, &eb), mc = mantissa(c, &ec);
  int ep = ea + eb;  // |a b| in [2^ep, 2^(ep + 2))
  // |a b| below a quarter of c's ulp: c is the rounded sum. Past 2^1026 the sum overflows
  // whatever c is; below 2^-1076 it cannot move c off the denormal grid.
  if (ec - ep > 58 || ep < -1078) return c;
  if (ep > 1025) return p;
  // The sum scaled by 2^-t, where every step is exact and no value underflows; 2^t is
  // representable, so scaling back rounds at most once.
  int t = clamp(ep, -1074, 1023);
  double A = (a < 0) != (b < 0) ? -ma : ma;
  double B = mb * pow2(ep - t);  // ep - t in [-4, 2]
  // A c far below the product only decides the direction of an inexact result: a value of
  // its sign below the product's granularity (2^(ep - t - 104)) stands for it.
  double C = copysign(ec < ep - 106 ? pow2(ep - t - 106) : mc * pow2(ec - t), c);
  double uh, ul, th, tl;
  two_product(A, B, &uh, &ul);
  two_sum(C, uh, &th, &tl);
  double v = add_odd(tl, ul);
  double scale = pow2(t);
  double z = th + v;
  double m = fabs(z * scale);
  if (m < 0x1p-1023) {
    // A denormal result of at most 51 bits rounds again when scaled; rounded to odd at 53
    // bits first, that is still exact.
    z = add_odd(th, v);
  } else if (m < 0x1p-1022) {
    // 52 bits: one too many for rounding to odd. z's last bit is below the result's grid:
    // where z is a midpoint of the grid and inexact, the remainder says which way to go;
    // an exact midpoint is left to the scaling's round-half-even.
    double e;
    two_sum(th, v, &z, &e);
    ulong bits = as_ulong(z);
    if ((bits & 1) && e != 0) z = as_double((e > 0) == (z > 0) ? bits + 1 : bits - 1);
  }
  return z * scale;
}

double __attribute__((overloadable)) sqrt(double x) {
  if (x == 0 || x == INFINITY) return x;
  if (!(x > 0)) return NAN;
  int e;
  double m = mantissa(x, &e);
  if (e & 1) {  // m in [1, 4), e even
    m *= 2;
    e -= 1;
  }
  double r = native_sqrt((float)m);    // a few float ulps (a float sqrt would become a double one)
  r = 0.5 * (r + m / r);               // Newton: about 2^-46
  double hi, lo;
  two_product(r, r, &hi, &lo);
  r += 0.5 * (((m - hi) - lo) / r);   // Newton on the exact residual: within about 0.5 ulp
  // r is now the correctly rounded root or a neighbour. With u = ulp(r) = 2^-52 and
  // m - r^2 = j u^2, r + u/2 lies below the root exactly when j > r / u, and r - u/2 lies
  // above it exactly when j <= -r / u (no root is a midpoint).
  two_product(r, r, &hi, &lo);
  double d = (m - hi) - lo;  // exact: below 2^53 multiples of u^2
  double ru = r * 0x1p-52;
  if (d > ru) r += 0x1p-52;
  else if (d <= -ru) r -= 0x1p-52;
  return r * pow2(e / 2);
}

double __attribute__((overloadable)) rsqrt(double x) {
  // Two correct roundings: within 1 ulp (OpenCL allows 2).
  return 1.0 / sqrt(x);
}
