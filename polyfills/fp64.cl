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

// The fma below is straight-line code: values, never pointers (a pointer parameter is a
// generic pointer here, and every access through one becomes three), and selects, never
// branches (drivers inline it at every call, and a CPU driver's JIT is slowest on branches).

// The 128-bit integer v (x the low half, y the high) shifted right by |n|; what is shifted out
// is ORed into the lowest bit, so rounding still sees that something was there.
static ulong2 shift_right_sticky(ulong2 v, int n) {
  n = clamp(n, 0, 128);
  ulong lo = v.x, hi = v.y;
  int k = n & 63;  // the shift within a word (OpenCL shifts count modulo 64)
  ulong up = k != 0 ? hi << (64 - k) : 0;  // hi's bits that move into the word below
  ulong lost_in_lo = k != 0 ? lo << (64 - k) : 0;
  bool words = n >= 64;  // the high word moves into the low one
  ulong new_lo = words ? hi >> k : (lo >> k) | up;
  ulong new_hi = words ? 0 : hi >> k;
  ulong lost = words ? lo | up : lost_in_lo;
  new_lo = n >= 128 ? 0 : new_lo;
  lost = n >= 128 ? lo | hi : lost;
  return (ulong2)(new_lo | (lost != 0), new_hi);
}

// x = m 2^e with m a 53-bit integer (bit 52 set), for finite nonzero x: (m, e).
static long2 decompose(double x) {
  ulong b = as_ulong(x) & 0x7fffffffffffffffUL;
  long m = (long)(b & 0x000fffffffffffffUL);
  long biased = (long)(b >> 52);
  // A denormal is normalised (s > 0); a normal number gets its implicit bit. Arithmetic on
  // the condition, not a choice: an optimiser keeps clz behind a branch otherwise.
  long denormal = biased == 0;
  long s = ((long)clz(m) - 11) * denormal;
  return (long2)((m << s) | ((1 - denormal) << 52), biased - 1075 + denormal - s);
}

// a b + c rounded once, in integers: the 106-bit product and c meet in 128 bits, the smaller
// shifted right with a sticky bit, and the sum is rounded to nearest even.
double __attribute__((overloadable)) fma(double a, double b, double c) {
  long2 da = decompose(a), db = decompose(b), dc = decompose(c);
  ulong ma = (ulong)da.x, mb = (ulong)db.x, mc = (ulong)dc.x;
  bool product_negative = (a < 0) != (b < 0);
  // The product's top bit (104 or 105) moves to 124 or 125, c's (52) to 124; the sum of the
  // two stays below 2^127.
  ulong pl = ma * mb, ph = mul_hi(ma, mb);
  ulong2 p = (ulong2)(pl << 20, (ph << 20) | (pl >> 44));
  ulong2 q = (ulong2)(0, mc << 8);
  int ep = (int)(da.y + db.y) - 20, eq = (int)dc.y - 72;
  int e = max(ep, eq);  // the unit of both, once aligned
  p = shift_right_sticky(p, e - ep);
  q = shift_right_sticky(q, e - eq);
  // Bits are lost only from an operand far smaller than the other, which is then the one
  // subtracted: its sticky bit keeps the difference on the right side of every rounding
  // boundary.
  bool add = product_negative == (c < 0);
  bool product_larger = (p.y > q.y) | ((p.y == q.y) & (p.x >= q.x));
  ulong big_lo = product_larger ? p.x : q.x, big_hi = product_larger ? p.y : q.y;
  ulong small_lo = product_larger ? q.x : p.x, small_hi = product_larger ? q.y : p.y;
  ulong sum_lo = p.x + q.x;
  ulong2 r = add ? (ulong2)(sum_lo, p.y + q.y + (sum_lo < p.x))
                 : (ulong2)(big_lo - small_lo, big_hi - small_hi - (big_lo < small_lo));
  bool negative = add | product_larger ? product_negative : c < 0;
  int top_hi = 127 - (int)clz(r.y), top_lo = 63 - (int)clz(r.x);
  int t = r.y != 0 ? top_hi : top_lo;  // the top bit
  int exponent = e + t;  // |a b + c| in [2^exponent, 2^(exponent + 1))
  // The result's last bit is worth 2^(exponent - 52), or 2^-1074 for a denormal.
  int shift = exponent >= -1022 ? t - 52 : -1074 - e;
  // Two bits below the last one stay: the rounding bit and, ORed, everything under it (the
  // sum has at most 54 bits where shift is 1: r.y is 0).
  ulong shifted = shift_right_sticky(r, shift - 2).x;  // computed before the choice, which
  ulong low = shift >= 2 ? shifted : r.x << 1;         // then stays a select

  ulong below = low & 3;
  ulong rounded = (low >> 2) + ((below > 2) | ((below == 2) & ((low >> 2) & 1)));
  ulong m = shift <= 0 ? r.x << (-shift & 63) : rounded;  // at most 53 bits: exact
  // A mantissa that rounds up to 2^53 (or a denormal to 2^52) carries into the exponent.
  ulong bits = exponent >= -1022 ? ((ulong)(exponent + 1022) << 52) + m : m;
  bits = exponent > 1023 ? 0x7ff0000000000000UL : bits;
  bits = (r.x | r.y) == 0 ? 0 : bits | (negative ? 0x8000000000000000UL : 0);
  // Zero, infinite or NaN factors make the product exact, and one addition is IEEE's fma;
  // an infinite or NaN c is the result; a b + 0 is the product rounded once.
  double z = as_double(bits);
  double product = a * b;
  bool special = (a == 0) | (b == 0) | !isfinite(a) | !isfinite(b);
  z = c == 0 ? product : z;
  z = !isfinite(c) ? c : z;
  return special ? product + c : z;
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
