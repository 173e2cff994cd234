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

// The 128-bit integer *hi:*lo shifted right by |n| >= 0; what is shifted out is ORed into the
// lowest bit, so rounding still sees that something was there.
static void shift_right_sticky(ulong* hi, ulong* lo, int n) {
  if (n <= 0) return;
  if (n >= 128) {
    *lo = (*hi | *lo) != 0;
    *hi = 0;
  } else if (n >= 64) {
    ulong lost = *lo | (n > 64 ? *hi << (128 - n) : 0);
    *lo = (n > 64 ? *hi >> (n - 64) : *hi) | (lost != 0);
    *hi = 0;
  } else {
    ulong lost = *lo << (64 - n);
    *lo = (*lo >> n) | (*hi << (64 - n)) | (lost != 0);
    *hi >>= n;
  }
}

// x = m 2^e with m a 53-bit integer (bit 52 set), for finite nonzero x.
static ulong decompose(double x, int* e) {
  ulong b = as_ulong(x) & 0x7fffffffffffffffUL;
  ulong m = b & 0x000fffffffffffffUL;
  int biased = (int)(b >> 52);
  if (biased == 0) {  // a denormal, normalised
    int s = (int)clz(m) - 11;
    *e = -1074 - s;
    return m << s;
  }
  *e = biased - 1075;
  return m | 0x0010000000000000UL;
}

// a b + c rounded once, in integers: the 106-bit product and c meet in 128 bits, the smaller
// shifted right with a sticky bit, and the sum is rounded to nearest even. Integer code keeps
// the function small: drivers inline it at every call, and libclc's double sin and cos call
// it 25 times each (a Dekker-split version made PyOpenCL's Bessel kernels take minutes to JIT).
double __attribute__((overloadable)) fma(double a, double b, double c) {
  // Zero, infinite or NaN factors: the product is exact and one addition is IEEE's fma.
  if (a == 0 || b == 0 || !isfinite(a) || !isfinite(b)) return a * b + c;
  if (!isfinite(c)) return c;  // the exact product is finite
  if (c == 0) return a * b;    // a b + 0 rounded once, with the sign of a b
  int ea, eb, ec;
  ulong ma = decompose(a, &ea), mb = decompose(b, &eb), mc = decompose(c, &ec);
  bool product_negative = (a < 0) != (b < 0);
  // The product's top bit (104 or 105) moves to 124 or 125, c's (52) to 124; the sum of the
  // two stays below 2^127.
  ulong pl = ma * mb, ph = mul_hi(ma, mb);
  ph = (ph << 20) | (pl >> 44);
  pl <<= 20;
  ulong ch = mc << 8, cl = 0;
  int ep = ea + eb - 20, ecc = ec - 72;
  int e = max(ep, ecc);  // the unit of both, once aligned
  shift_right_sticky(&ph, &pl, e - ep);
  shift_right_sticky(&ch, &cl, e - ecc);
  ulong rh, rl;
  bool negative;
  if (product_negative == (c < 0)) {
    rl = pl + cl;
    rh = ph + ch + (rl < pl);
    negative = product_negative;
  } else {
    // Bits are lost only from an operand far smaller than the other, which is then the one
    // subtracted: its sticky bit keeps the difference on the right side of every rounding
    // boundary.
    bool product_larger = ph > ch || (ph == ch && pl >= cl);
    if (product_larger) {
      rl = pl - cl;
      rh = ph - ch - (pl < cl);
    } else {
      rl = cl - pl;
      rh = ch - ph - (cl < pl);
    }
    negative = product_larger ? product_negative : c < 0;
    if ((rh | rl) == 0) return 0.0;  // an exact zero sum is +0 when rounding to nearest
  }
  int t = rh != 0 ? 127 - (int)clz(rh) : 63 - (int)clz(rl);  // the top bit
  int exponent = e + t;  // |a b + c| in [2^exponent, 2^(exponent + 1))
  if (exponent > 1023) return negative ? -INFINITY : INFINITY;
  // The result's last bit is worth 2^(exponent - 52), or 2^-1074 for a denormal.
  int shift = exponent >= -1022 ? t - 52 : -1074 - e;
  ulong m;
  if (shift <= 0) {
    m = rl << -shift;  // at most 53 bits: exact
  } else {
    // Two bits below the last one stay: the rounding bit and, ORed, everything under it.
    if (shift >= 2) {
      shift_right_sticky(&rh, &rl, shift - 2);
    } else {
      rl = rl << 1;  // rh is 0: the sum has at most 54 bits here
    }
    ulong below = rl & 3;
    m = rl >> 2;
    if (below > 2 || (below == 2 && (m & 1))) m += 1;  // to nearest, ties to even
  }
  // A mantissa that rounds up to 2^53 (or a denormal to 2^52) carries into the exponent.
  ulong bits = exponent >= -1022 ? ((ulong)(exponent + 1022) << 52) + m : m;
  return as_double(bits | (negative ? 0x8000000000000000UL : 0));
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
