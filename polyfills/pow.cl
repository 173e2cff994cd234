// pow of float without tables, in single precision with head/tail pairs. libclc's pow reads
// two tables per call. The method is the one of FreeBSD's e_powf.c: log2|x| to about 36 bits
// as t1 + t2, the product with y split exactly, exp2 of the pair, then OpenCL C 7.5.1's special
// values. A "head" keeps 12 significant bits (mask12), so products of two heads are exact.
// Constants are derived, not copied: see the comments.

static inline float vkcl_mask12(float v) { return as_float(as_uint(v) & 0xfffff000u); }

// 2^k for k in [-126, 127].
static inline float vkcl_pow2i(int k) { return as_float((uint)(k + 127) << 23); }

// log2(ax) = t1 + t2 for finite ax > 0.
static inline float vkcl_log2_pair(float ax, float* t2) {
  uint ix = as_uint(ax);
  int n = 0;
  if (ix < 0x00800000u) {  // denormal
    ix = as_uint(ax * 0x1p24f);
    n = -24;
  }
  n += (int)(ix >> 23) - 127;
  uint j = ix & 0x007fffffu;
  ix = j | 0x3f800000u;  // m in [1, 2)
  // m/b with b = 1 below sqrt(3/2), b = 1.5 below sqrt(3), else m/2 against 1: |s| <= 0.101.
  bool mid = j > 0x1cc471u && j < 0x5db3d7u;
  if (j >= 0x5db3d7u) {
    ix -= 0x00800000u;
    n += 1;
  }
  float m = as_float(ix);
  float b = mid ? 1.5f : 1.0f;
  float dp_h = mid ? 0x1.2b8p-1f : 0.0f;       // log2(1.5) = dp_h + dp_l
  float dp_l = mid ? 0x1.a39fbep-20f : 0.0f;

  // s = (m - b) / (m + b) as s_h + s_l; d_h + d_l = m + b exactly.
  float u = m - b;
  float d_h = vkcl_mask12(m + b);
  float d_l = m - (d_h - b);
  float v = 1.0f / (m + b);
  float s = u * v;
  float s_h = vkcl_mask12(s);
  float s_l = v * ((u - s_h * d_h) - s_h * d_l);

  // 3 atanh(s) / s = 3 + s^2 + s^4 (3/5 + 3/7 s^2 + ...) = t_h + t_l; the polynomial is a
  // minimax fit of the series for |s| <= 0.101 (FreeBSD e_powf.c's L1..L6).
  float s2 = s * s;
  float r = s2 * s2 *
            (0x1.333334p-1f + s2 * (0x1.b6db6ep-2f + s2 * (0x1.555556p-2f +
             s2 * (0x1.17460ap-2f + s2 * (0x1.d864aap-3f + s2 * 0x1.a7e284p-3f)))));
  r += s_l * (s_h + s);
  s2 = s_h * s_h;
  float t_h = vkcl_mask12(3.0f + s2 + r);
  float t_l = r - ((t_h - 3.0f) - s2);
  // p = s (3 + s^2 + ...) = 3 atanh(s); log2(m/b) = p * 2 / (3 ln 2).
  float pu = s_h * t_h;
  float pv = s_l * t_h + t_l * s;
  float p_h = vkcl_mask12(pu + pv);
  float p_l = pv - (p_h - pu);
  // 2 / (3 ln 2) = 0x1.ec6p-1 + 0x1.09dc3ap-13.
  float z_h = 0x1.ec6p-1f * p_h;
  float z_l = 0x1.09dc3ap-13f * p_h + p_l * 0x1.ec709ep-1f + dp_l;
  float fn = (float)n;
  float t1 = vkcl_mask12(((z_h + z_l) + dp_h) + fn);
  *t2 = z_l - (((t1 - fn) - dp_h) - z_h);
  return t1;
}

// 2^(p_h + p_l), |p_h + p_l| <= 200, p_h a product of two heads.
static inline float vkcl_exp2_pair(float p_h, float p_l) {
  float nn = rint(p_h + p_l);
  p_h -= nn;  // exact
  // t * ln2_h is exact: t keeps 9 bits, ln 2 = 0x1.62e4p-1 (15 bits) + 0x1.7f7d1cp-20.
  float t = as_float(as_uint(p_l + p_h) & 0xffff8000u);
  float u = t * 0x1.62e4p-1f;
  float v = (p_l - (t - p_h)) * 0x1.62e43p-1f + t * 0x1.7f7d1cp-20f;
  float z = u + v;
  float w = v - (z - u);
  // e^(z + w) = 1 + z + z c / (2 - c) + w (1 + z), c = z - z^2 P(z^2) (FreeBSD's expf P1..P5).
  float zz = z * z;
  float q = mad(zz, 0x1.637698p-25f, -0x1.bbd41cp-20f);  // mad: see exp.cl
  q = mad(zz, q, 0x1.1566aap-14f);
  q = mad(zz, q, -0x1.6c16c2p-9f);
  q = mad(zz, q, 0x1.555556p-3f);
  float c = z - zz * q;
  float r = (z * c) / (c - 2.0f) - (w + z * w);
  float e = 1.0f - (r - z);
  // Scaled in two exact steps so that results near overflow and in the denormal range are
  // rounded once.
  int k = (int)nn;
  int k1 = k >> 1;
  return e * vkcl_pow2i(k1) * vkcl_pow2i(k - k1);
}

float __attribute__((overloadable)) pow(float x, float y) {
  float ax = fabs(x);
  float ay = fabs(y);
  bool y_int = trunc(y) == y;                       // false for NaN, true for ±inf
  bool y_odd = y_int && ay < 0x1p24f && ((int)y & 1);

  float t2;
  float t1 = vkcl_log2_pair(ax, &t2);
  float y1 = vkcl_mask12(y);
  float p_l = (y - y1) * t1 + y * t2;
  float p_h = y1 * t1;
  float z = p_h + p_l;
  if (fabs(z) > 200.0f) {  // far beyond overflow or underflow either way
    p_h = copysign(200.0f, z);
    p_l = 0.0f;
  }
  float r = vkcl_exp2_pair(p_h, p_l);
  if (x < 0.0f) r = y_odd ? -r : y_int ? r : NAN;

  // OpenCL C 7.5.1 and C99 F.9.4.4.
  if (x == 0.0f || isinf(x)) {
    float mag = (y < 0.0f) == (x == 0.0f) ? INFINITY : 0.0f;
    r = y_odd && signbit(x) ? -mag : mag;
  }
  if (isinf(y)) r = ax == 1.0f ? 1.0f : (ax < 1.0f) == (y < 0.0f) ? INFINITY : 0.0f;
  if (isnan(x) || isnan(y)) r = NAN;
  if (x == 1.0f || y == 0.0f) r = 1.0f;
  return r;
}
