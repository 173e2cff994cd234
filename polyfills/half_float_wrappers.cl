// Float wrappers for polyfills/half.cl, compiled before every other polyfill (polyfills.cl):
// they must bind to the built-in float overloads. Once a half overload of a name is defined,
// clang resolves float calls of that name to it (sin((float)x) inside sin(half) became
// infinite recursion), and once fp64.cl or tgamma64.cl defined a double overload, to that
// (half sqrt, rsqrt and tgamma then needed doubles).

#define VKCL_UNARY(X)                                                                    \
  X(acos) X(acosh) X(acospi) X(asin) X(asinh) X(asinpi) X(atan) X(atanh) X(atanpi) X(cbrt) \
  X(cos) X(cosh) X(cospi) X(erfc) X(erf) X(exp) X(exp2) X(exp10) X(expm1) X(lgamma)       \
  X(log) X(log2) X(log10) X(log1p) X(logb) X(sin) X(sinh) X(sinpi) X(tan) X(tanh)         \
  X(tanpi) X(tgamma) X(degrees) X(radians) X(sqrt) X(rsqrt)
#define VKCL_BINARY(X) X(atan2) X(atan2pi) X(fmod) X(hypot) X(pow) X(powr) X(remainder)
#define VKCL_WRAP_1(name) static float vkcl_f_##name(float x) { return name(x); }
#define VKCL_WRAP_2(name) static float vkcl_f_##name(float x, float y) { return name(x, y); }
VKCL_UNARY(VKCL_WRAP_1)
VKCL_BINARY(VKCL_WRAP_2)
static int vkcl_f_ilogb(float x) { return ilogb(x); }
static float vkcl_f_ldexp(float x, int n) { return ldexp(x, n); }
static float vkcl_f_pown(float x, int n) { return pown(x, n); }
static float vkcl_f_rootn(float x, int n) { return rootn(x, n); }
static float vkcl_f_smoothstep(float a, float b, float x) { return smoothstep(a, b, x); }
static float vkcl_f_frexp(float x, __private int* e) { return frexp(x, e); }
static float vkcl_f_lgamma_r(float x, __private int* s) { return lgamma_r(x, s); }
static float vkcl_f_remquo(float x, float y, __private int* q) { return remquo(x, y, q); }
static float vkcl_f_modf(float x, __private float* i) { return modf(x, i); }
static float vkcl_f_sincos(float x, __private float* c) { return sincos(x, c); }
static float vkcl_f_fract(float x, __private float* i) { return fract(x, i); }
#define VKCL_FLOAT_GEOMETRIC(n)                                                    \
  static float vkcl_length##n(float##n v) { return length(v); }                    \
  static float vkcl_distance##n(float##n a, float##n b) { return distance(a, b); } \
  static float##n vkcl_normalize##n(float##n v) { return normalize(v); }
VKCL_FLOAT_GEOMETRIC(2) VKCL_FLOAT_GEOMETRIC(3) VKCL_FLOAT_GEOMETRIC(4)
static float3 vkcl_cross3(float3 a, float3 b) { return cross(a, b); }
static float4 vkcl_cross4(float4 a, float4 b) { return cross(a, b); }
