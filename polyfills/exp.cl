// exp of float without a division. libclc's exp divides once per call (a rational
// approximation); Vulkan's division is slow on GPUs and, where the device fails vkcl's
// full-range probe, scaled first (Lowering::divide).
//
// x = k ln2 + r with k = rint(x / ln2) and |r| <= ln2 / 2: ln2 = LN2_HI + LN2_LO with
// LN2_HI's low 12 bits clear, so k * LN2_HI is exact for |k| < 2^12 and x - k * LN2_HI is
// exact by Sterbenz's lemma. e^r = 1 + (r + r^2 P(r)), P the Taylor polynomial of
// (e^r - 1 - r) / r^2 to degree 5 (truncation below 0.01 ulp for |r| <= 0.35). 2^k is applied
// in two steps, so results in the denormal range are rounded once. Measured against MPFR by
// tests/math.

float __attribute__((overloadable)) exp(float x) {
  // e^x overflows above 0x1.62e43p+6 and is below half the smallest denormal under -0x1.9fe36ap+6.
  float c = clamp(x, -104.0f, 89.0f);
  float k = rint(c * 0x1.715476p+0f);
  float r = (c - k * 0x1.62e3p-1f) - k * 0x1.2fefa2p-17f;
  // mad: one fused instruction where the device's Fma is (vkcl's lowering), else a multiply
  // and an add; the polynomial's error budget holds either way.
  float p = 0x1.a01a02p-13f;            // 1/7!
  p = mad(p, r, 0x1.6c16c2p-10f);       // 1/6!
  p = mad(p, r, 0x1.111112p-7f);        // 1/5!
  p = mad(p, r, 0x1.555556p-5f);        // 1/4!
  p = mad(p, r, 0x1.555556p-3f);        // 1/3!
  p = mad(p, r, 0.5f);
  float e = 1.0f + mad(r * r, p, r);
  int n = (int)k;
  int n1 = n >> 1;                      // n = n1 + n2, both in [-75, 64]
  float s1 = as_float((uint)(n1 + 127) << 23), s2 = as_float((uint)(n - n1 + 127) << 23);
  float y = e * s1 * s2;
  return isnan(x) ? x : y;
}
