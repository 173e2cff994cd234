// Math built-ins of half (cl_khr_fp16) through float. libclc has almost none of them. A half
// is exactly a float, every float function here is within a few float ulps (2^-13 of a half
// ulp each), so rounding the float result to half once meets the half bounds (2 ulp for most,
// OpenCL SPIR-V environment 6.6.1) with room; results exact in float (fmod, remainder, ldexp,
// frexp, modf, logb, ilogb) stay exact. Vectors are split into these scalars by
// link-builtins; pointer arguments arrive as private temporaries.

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

// The float functions the half ones go through: half_float_wrappers.cl.

#define VKCL_HALF_1(name) \
  half __attribute__((overloadable)) name(half x) { return (half)vkcl_f_##name((float)x); }
#define VKCL_HALF_2(name)                                  \
  half __attribute__((overloadable)) name(half x, half y) { \
    return (half)vkcl_f_##name((float)x, (float)y);        \
  }
VKCL_UNARY(VKCL_HALF_1)
VKCL_BINARY(VKCL_HALF_2)

int __attribute__((overloadable)) ilogb(half x) { return vkcl_f_ilogb((float)x); }
half __attribute__((overloadable)) ldexp(half x, int n) { return (half)vkcl_f_ldexp((float)x, n); }
half __attribute__((overloadable)) pown(half x, int n) { return (half)vkcl_f_pown((float)x, n); }
half __attribute__((overloadable)) rootn(half x, int n) { return (half)vkcl_f_rootn((float)x, n); }
half __attribute__((overloadable)) smoothstep(half e0, half e1, half x) {
  return (half)vkcl_f_smoothstep((float)e0, (float)e1, (float)x);
}

half __attribute__((overloadable)) frexp(half x, __private int* e) { return (half)vkcl_f_frexp((float)x, e); }
half __attribute__((overloadable)) lgamma_r(half x, __private int* s) { return (half)vkcl_f_lgamma_r((float)x, s); }
half __attribute__((overloadable)) remquo(half x, half y, __private int* q) {
  return (half)vkcl_f_remquo((float)x, (float)y, q);
}
half __attribute__((overloadable)) modf(half x, __private half* i) {
  float fi;
  half r = (half)vkcl_f_modf((float)x, &fi);
  *i = (half)fi;
  return r;
}
half __attribute__((overloadable)) sincos(half x, __private half* c) {
  float fc;
  half s = (half)vkcl_f_sincos((float)x, &fc);
  *c = (half)fc;
  return s;
}
// fract's result is below 1: for a tiny negative x, float's 1 - 2^-24 would round up to 1.0
// in half, so the half cap 0x1.ffcp-1 applies.
half __attribute__((overloadable)) fract(half x, __private half* i) {
  float fi;
  float r = vkcl_f_fract((float)x, &fi);
  *i = (half)fi;
  return isnan(r) ? (half)r : (half)fmin(r, 0x1.ffcp-1f);
}

// fma, correctly rounded: a * b is exact in float (22 bits), the sum's rounding error e is
// exact by two-sum, and when e is not zero the float sum is moved to the odd neighbour on
// e's side (round to odd), so the one rounding to half that follows, 13 bits narrower, is
// the rounding of the exact a * b + c (Boldo and Melquiond).
half __attribute__((overloadable)) fma(half a, half b, half c) {
  float p = (float)a * (float)b;
  float fc = (float)c;
  float s = p + fc;
  float t = s - p;
  float e = (p - (s - t)) + (fc - t);
  uint u = as_uint(s);
  if (isfinite(s) && e != 0.0f && (u & 1u) == 0u) u += (e > 0.0f) == (s > 0.0f) ? 1u : (uint)-1;
  return (half)as_float(u);
}

// Geometric functions on half vectors.
#define VKCL_HALF_GEOMETRIC(n)                                                            \
  half __attribute__((overloadable)) length(half##n v) { return (half)vkcl_length##n(convert_float##n(v)); } \
  half __attribute__((overloadable)) distance(half##n a, half##n b) {                     \
    return (half)vkcl_distance##n(convert_float##n(a), convert_float##n(b));                      \
  }                                                                                        \
  half##n __attribute__((overloadable)) normalize(half##n v) {                            \
    return convert_half##n(vkcl_normalize##n(convert_float##n(v)));                               \
  }
VKCL_HALF_GEOMETRIC(2) VKCL_HALF_GEOMETRIC(3) VKCL_HALF_GEOMETRIC(4)
half __attribute__((overloadable)) length(half v) { return fabs(v); }
half __attribute__((overloadable)) distance(half a, half b) { return fabs((half)((float)a - (float)b)); }
half __attribute__((overloadable)) normalize(half v) { return v == 0.0h || isnan(v) ? v : copysign(1.0h, v); }
half3 __attribute__((overloadable)) cross(half3 a, half3 b) { return convert_half3(vkcl_cross3(convert_float3(a), convert_float3(b))); }
half4 __attribute__((overloadable)) cross(half4 a, half4 b) { return convert_half4(vkcl_cross4(convert_float4(a), convert_float4(b))); }
