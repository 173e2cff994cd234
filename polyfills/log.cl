// log, log2 and log10 of float without tables or branches. libclc's versions read a 129-entry
// table per call; on a GPU (and on lavapipe) those gathers cost more than the arithmetic.
//
// x = 2^k * m with m in [sqrt(2)/2, sqrt(2)), f = m - 1 exactly. With s = f / (2 + f),
// log(1 + f) = 2 atanh(s) = f - f^2/2 + s (f^2/2 + R(s^2)), R a degree-4 minimax polynomial in
// s^2 for the tail of the atanh series (|s| < 0.1716). The coefficients are the classic ones of
// FreeBSD's e_logf.c. The division's error (Vulkan allows 2.5 ulp) only reaches the tail term,
// at most a few hundredths of an ulp of the result. Measured against MPFR by tests/math.

#define LG1 0x1.555554p-1f
#define LG2 0x1.999c26p-2f
#define LG3 0x1.23d3dcp-2f
#define LG4 0x1.f13c4cp-3f

// Splits x (positive, finite) into its binade k and f = m - 1; denormals are scaled first.
static inline float vkcl_log_reduce(float x, float* k) {
  uint ix = as_uint(x);
  float scale = 0.0f;
  if (ix < 0x00800000u) {
    ix = as_uint(x * 0x1p25f);
    scale = -25.0f;
  }
  ix += 0x3f800000u - 0x3f3504f3u;  // moves the binade boundary from 1 to sqrt(2)
  *k = (float)((int)(ix >> 23) - 0x7f) + scale;
  return as_float((ix & 0x007fffffu) + 0x3f3504f3u) - 1.0f;
}

// s (f^2/2 + R(s^2)).
static inline float vkcl_log_tail(float f, float hfsq) {
  float s = f / (2.0f + f);
  float z = s * s;
  float w = z * z;
  float r = mad(z, mad(w, LG3, LG1), w * mad(w, LG4, LG2));  // mad: see exp.cl
  return s * (hfsq + r);
}

// OpenCL C 7.5.1: log(±0) = -inf, log(x < 0) = NaN, log(+inf) = +inf.
static inline float vkcl_log_special(float x, float r) {
  if (!(x > 0.0f)) r = x == 0.0f ? -INFINITY : NAN;
  return x == INFINITY ? x : r;
}

float __attribute__((overloadable)) log(float x) {
  float k;
  float f = vkcl_log_reduce(x, &k);
  float hfsq = 0.5f * f * f;
  float t = vkcl_log_tail(f, hfsq);
  // ln 2 = LN2_HI + LN2_LO with LN2_HI's low 12 bits clear, so k * LN2_HI is exact.
  float r = k * 0x1.62e3p-1f - ((hfsq - (t + k * 0x1.2fefa2p-17f)) - f);
  return vkcl_log_special(x, r);
}

// hi + lo = f - f^2/2 + tail with hi's low 12 bits cleared, so hi times the 12-bit high part of
// the conversion constant is exact and the rounding error of the sum stays in lo.
static inline float vkcl_log_hi_lo(float x, float* k, float* lo) {
  float f = vkcl_log_reduce(x, k);
  float hfsq = 0.5f * f * f;
  float hi = as_float(as_uint(f - hfsq) & 0xfffff000u);
  *lo = f - hi - hfsq + vkcl_log_tail(f, hfsq);
  return hi;
}

float __attribute__((overloadable)) log2(float x) {
  float k, lo;
  float hi = vkcl_log_hi_lo(x, &k, &lo);
  // 1/ln 2 = 0x1.716p+0 - 0x1.7135a8p-13.
  float r = (lo + hi) * -0x1.7135a8p-13f + lo * 0x1.716p+0f + hi * 0x1.716p+0f + k;
  return vkcl_log_special(x, r);
}

float __attribute__((overloadable)) log10(float x) {
  float k, lo;
  float hi = vkcl_log_hi_lo(x, &k, &lo);
  // 1/ln 10 = 0x1.bccp-2 - 0x1.09d5b2p-15; log10(2) = 0x1.3441p-2 + 0x1.a84fb6p-21.
  float r = k * 0x1.a84fb6p-21f + (lo + hi) * -0x1.09d5b2p-15f + lo * 0x1.bccp-2f +
            hi * 0x1.bccp-2f + k * 0x1.3441p-2f;
  return vkcl_log_special(x, r);
}
