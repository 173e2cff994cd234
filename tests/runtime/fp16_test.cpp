// cl_khr_fp16: half arithmetic and conversions correctly rounded and division within 1 ulp
// (every half against random operands, the host computing exactly and rounding once), the math
// built-ins within the half column of the ULP table (OpenCL SPIR-V environment 6.6.1) over
// all 65536 halves, against the host's double C library. Denormal halves may flush: the
// device does not report CL_FP_DENORM for half.
#include <CL/cl_ext.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class Fp16 : public KernelTest {
 protected:
  bool has_fp16() {
    cl_device_fp_config config = 0;
    clGetDeviceInfo(device_, CL_DEVICE_HALF_FP_CONFIG, sizeof config, &config, nullptr);
    return config != 0;
  }
};

long double half_value(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  long double v = e == 0 ? std::ldexp((long double)m, -24)
                  : e == 31 ? (m ? NAN : INFINITY)
                            : std::ldexp((long double)(1024 + m), e - 25);
  return (h & 0x8000) ? -v : v;
}

bool is_denormal(uint16_t h) { return (h & 0x7c00) == 0 && (h & 0x3ff) != 0; }
uint16_t flushed(uint16_t h) { return is_denormal(h) ? h & 0x8000 : h; }

// |x| rounded to half in |mode|: 0 nearest even, 1 toward zero, 2 up, 3 down.
uint16_t to_half(long double x, int mode = 0) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return 0x7e00;
  long double a = std::fabs(x);
  bool away = mode == 2 ? !sign : mode == 3 ? sign : false;  // directed: away from zero?
  auto round = [&](long double q) {                          // q >= 0, in units of the ulp
    long double t = std::trunc(q);
    if (mode == 0) {
      long double r = q - t;
      if (r > 0.5L || (r == 0.5L && std::fmod(t, 2.0L) != 0)) t += 1;
    } else if (away && t != q) {
      t += 1;
    }
    return t;
  };
  if (std::isinf(a)) return sign | 0x7c00;
  if (a < 0x1p-14L) return sign | uint16_t(round(a * 0x1p24L));  // 1024 is 2^-14, normal
  int e;
  long double q = round(std::ldexp(std::frexp(a, &e), 11));
  if (q == 2048) { q = 1024; ++e; }
  if (e + 14 >= 31)  // overflow: infinity unless rounding toward zero
    return sign | ((mode == 0 || away) ? 0x7c00 : 0x7bff);
  return sign | uint16_t(((e + 14) << 10) | (uint32_t(q) - 1024));
}

bool same_half(uint16_t got, uint16_t want) {
  bool nan_got = (got & 0x7c00) == 0x7c00 && (got & 0x3ff), nan_want = (want & 0x7c00) == 0x7c00 && (want & 0x3ff);
  return got == want || (nan_got && nan_want);
}

// |got| is the correctly rounded op(a, b, c) for some reading of denormal inputs as zeros,
// or a flushed denormal result.
bool rounds_right(uint16_t got, uint16_t a, uint16_t b, uint16_t c,
                  const std::function<long double(long double, long double, long double)>& op) {
  for (int k = 0; k < 8; ++k) {
    uint16_t x = k & 1 ? flushed(a) : a, y = k & 2 ? flushed(b) : b, z = k & 4 ? flushed(c) : c;
    uint16_t want = to_half(op(half_value(x), half_value(y), half_value(z)));
    if (same_half(got, want)) return true;
    if (is_denormal(want) && (got & 0x7fff) == 0 && (got & 0x8000) == (want & 0x8000)) return true;
  }
  return false;
}

double half_ulps(uint16_t got, long double ref);

TEST_P(Fp16, ArithmeticAndConversionsAreCorrectlyRounded) {
  if (!has_fp16()) GTEST_SKIP() << "the device does not report cl_khr_fp16";
  const size_t n = 65536;
  std::vector<uint16_t> a(n), b(n), c(n);
  std::vector<float> f(n);
  std::uniform_int_distribution<uint32_t> bits;
  for (size_t i = 0; i < n; ++i) {
    a[i] = uint16_t(i);  // every half (but the midpoint cases below)
    b[i] = uint16_t(bits(rng_));
    c[i] = i % 4 == 0 ? to_half(-half_value(a[i]) * half_value(b[i])) : uint16_t(bits(rng_));
    if (i % 16 == 1) {
      // a * b on a half midpoint (3 * odd A * 4 is 4 mod 8, the ulp there is 8) and c far
      // below the float ulp: the float sum rounds onto the midpoint, and only a single
      // rounding of the exact sum goes the right way (double rounding goes to even).
      a[i] = to_half(1025 + 2 * (bits(rng_) % 170));
      b[i] = to_half(12);
      c[i] = to_half((bits(rng_) & 1 ? 1 : -1) * (bits(rng_) & 1 ? 0x1p-12 : 0x1.8p-12));
    }
    uint32_t fb = bits(rng_);
    if (i % 2) fb = (fb & 0x807fffffu) | ((100u + fb % 45u) << 23);  // around half's range
    std::memcpy(&f[i], &fb, 4);
  }
  Program p = build(R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    __kernel void k(__global const half* a, __global const half* b, __global const half* c,
                    __global const float* f, __global half* r, __global int* q) {
      size_t i = get_global_id(0);
      __global half* o = r + 9 * i;
      half x = a[i], y = b[i];
      o[0] = x + y; o[1] = x - y; o[2] = x * y; o[3] = x / y; o[4] = fma(x, y, c[i]);
      o[5] = convert_half(f[i]); o[6] = convert_half_rtz(f[i]); o[7] = convert_half_rtp(f[i]);
      o[8] = convert_half_rtn(f[i]);
      q[2 * i] = convert_int_sat_rtz(x);
      q[2 * i + 1] = x < y;
    })");
  Kernel k = kernel(p, "k");
  Mem ma = buffer(n * 2, a.data()), mb = buffer(n * 2, b.data()), mc = buffer(n * 2, c.data());
  Mem mf = buffer(n * 4, f.data()), mr = poisoned(n * 18), mq = poisoned(n * 8);
  set_mem_arg(k, 0, ma);
  set_mem_arg(k, 1, mb);
  set_mem_arg(k, 2, mc);
  set_mem_arg(k, 3, mf);
  set_mem_arg(k, 4, mr);
  set_mem_arg(k, 5, mq);
  run(k, 1, &n, nullptr);
  std::vector<uint16_t> r = read<uint16_t>(mr, n * 9);
  std::vector<int> q = read<int>(mq, n * 2);
  using Op = std::function<long double(long double, long double, long double)>;
  const Op ops[] = {[](long double x, long double y, long double) { return x + y; },
                    [](long double x, long double y, long double) { return x - y; },
                    [](long double x, long double y, long double) { return x * y; },
                    [](long double x, long double y, long double) { return x / y; },
                    // exact in long double: halves are multiples of 2^-24 below 2^16
                    [](long double x, long double y, long double z) { return x * y + z; }};
  const char* names[] = {"+", "-", "*", "/", "fma"};
  int bad = 0;
  for (size_t i = 0; i < n && bad < 10; ++i) {
    for (int k = 0; k < 5; ++k) {
      // Division: within 1 ulp (the Float16 column of the ULP table), the others exact.
      if (k == 3 && half_ulps(r[9 * i + k], half_value(a[i]) / half_value(b[i])) <= 1) continue;
      if (!rounds_right(r[9 * i + k], a[i], b[i], c[i], ops[k])) {
        ADD_FAILURE() << names[k] << "(" << std::hexfloat << double(half_value(a[i])) << ", "
                      << double(half_value(b[i])) << ", " << double(half_value(c[i])) << ") = "
                      << double(half_value(r[9 * i + k]));
        ++bad;
      }
    }
    for (int mode = 0; mode < 4; ++mode) {
      uint16_t want = to_half(f[i], mode), got = r[9 * i + 5 + mode];
      bool flush = is_denormal(want) && (got & 0x7fff) == 0 && (got & 0x8000) == (want & 0x8000);
      if (!same_half(got, want) && !flush) {
        ADD_FAILURE() << "convert_half mode " << mode << " of " << std::hexfloat << f[i] << " = "
                      << double(half_value(got)) << ", want " << double(half_value(want));
        ++bad;
      }
    }
    long double x = half_value(a[i]);
    int want = std::isnan(x) ? 0 : x >= 65536 ? INT32_MAX : x <= -65536 ? INT32_MIN : int(std::trunc(x));
    if (q[2 * i] != want) { ADD_FAILURE() << "convert_int_sat_rtz(" << double(x) << ") = " << q[2 * i]; ++bad; }
    bool less = x < half_value(b[i]);
    bool less_flushed = half_value(flushed(a[i])) < half_value(flushed(b[i]));
    if (q[2 * i + 1] != int(less) && q[2 * i + 1] != int(less_flushed)) {
      ADD_FAILURE() << double(x) << " < " << double(half_value(b[i])) << " gave " << q[2 * i + 1];
      ++bad;
    }
  }
}

// A float rounded to half and widened back is the half, not the float: a compiler may not fold
// (float)(half)x into x. NVIDIA's Vulkan driver (580) was seen giving fract(-1e-30h) an iptr
// of -1, as if the half -0 were still -1e-30; this shows which step goes wrong.
TEST_P(Fp16, FloatToHalfAndBackRoundsOnce) {
  if (!has_fp16()) GTEST_SKIP() << "the device does not report cl_khr_fp16";
  std::vector<float> f = {-1e-30f, 1e-30f, 1.2345678f, -3.14159265f, 70000.0f, -0x1p-25f,
                          0x1.0018p0f, 1e-7f, 65519.0f, -2.5e-8f};
  std::uniform_real_distribution<float> dist(-100, 100);
  while (f.size() < 256) f.push_back(dist(rng_));
  const size_t n = f.size();
  Program p = build(R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    __kernel void k(__global const float* f, __global float* r) {
      size_t i = get_global_id(0);
      half h = convert_half(f[i]);
      r[3 * i] = convert_float(h);
      r[3 * i + 1] = floor(convert_float(h));
      r[3 * i + 2] = convert_float(floor(h));
    })");
  Kernel k = kernel(p, "k");
  Mem mf = buffer(n * 4, f.data()), mr = poisoned(n * 12);
  set_mem_arg(k, 0, mf);
  set_mem_arg(k, 1, mr);
  run(k, 1, &n, nullptr);
  std::vector<float> r = read<float>(mr, n * 3);
  const char* what[] = {"(float)(half)x", "floor((float)(half)x)", "(float)floor((half)x)"};
  int bad = 0;
  for (size_t i = 0; i < n && bad < 10; ++i) {
    uint16_t h = to_half(f[i]);
    auto want = [&](uint16_t v, int k) {
      float w = float(half_value(v));
      return k ? std::floor(w) : w;
    };
    auto matches = [&](uint16_t v) {
      for (int k = 0; k < 3; ++k) {
        float w = want(v, k);
        if (std::memcmp(&w, &r[3 * i + k], 4) != 0) return false;
      }
      return true;
    };
    // A denormal half may flush to zero of its sign (no CL_FP_DENORM for half).
    if (matches(h) || matches(flushed(h))) continue;
    for (int k = 0; k < 3; ++k) {
      float w = want(h, k);
      if (std::memcmp(&w, &r[3 * i + k], 4) != 0) {
        ADD_FAILURE() << what[k] << " for x = " << std::hexfloat << f[i] << ": " << r[3 * i + k]
                      << ", want " << w;
        ++bad;
      }
    }
  }
}

// Doubles round to half once, in every mode: values a float would first round onto a half
// midpoint (1 + 2^-11 + 2^-40) are among the inputs.
TEST_P(Fp16, DoublesConvertToHalfInEveryMode) {
  if (!has_fp16()) GTEST_SKIP() << "the device does not report cl_khr_fp16";
  cl_device_fp_config fp64 = 0;
  clGetDeviceInfo(device_, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, nullptr);
  if (!fp64) GTEST_SKIP() << "no cl_khr_fp64";
  const size_t n = 4096;
  std::vector<double> x(n);
  std::uniform_real_distribution<double> wide(-70000, 70000), tiny(-1e-4, 1e-4);
  for (size_t i = 0; i < n; ++i) {
    double tie = std::ldexp(1.0 + 0x1p-11 + (i & 1 ? 0x1p-40 : -0x1p-40), int(i % 30) - 20);
    x[i] = i % 3 == 0 ? (i & 2 ? tie : -tie) : i % 3 == 1 ? wide(rng_) : tiny(rng_);
  }
  x[0] = 1e300;
  x[1] = -INFINITY;
  x[2] = NAN;
  x[3] = 65519.99999999;
  Program p = build(R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    #pragma OPENCL EXTENSION cl_khr_fp64 : enable
    __kernel void k(__global const double* x, __global half* r) {
      size_t i = get_global_id(0);
      r[4 * i] = convert_half(x[i]); r[4 * i + 1] = convert_half_rtz(x[i]);
      r[4 * i + 2] = convert_half_rtp(x[i]); r[4 * i + 3] = convert_half_rtn(x[i]);
    })");
  Kernel k = kernel(p, "k");
  Mem mx = buffer(n * 8, x.data()), mr = poisoned(n * 8);
  set_mem_arg(k, 0, mx);
  set_mem_arg(k, 1, mr);
  run(k, 1, &n, nullptr);
  std::vector<uint16_t> r = read<uint16_t>(mr, n * 4);
  int bad = 0;
  for (size_t i = 0; i < n && bad < 10; ++i)
    for (int mode = 0; mode < 4; ++mode) {
      uint16_t want = to_half(x[i], mode), got = r[4 * i + mode];
      bool flush = is_denormal(want) && (got & 0x7fff) == 0 && (got & 0x8000) == (want & 0x8000);
      if (!same_half(got, want) && !flush) {
        ADD_FAILURE() << "convert_half mode " << mode << " of " << std::hexfloat << x[i] << " = "
                      << double(half_value(got)) << ", want " << double(half_value(want));
        ++bad;
      }
    }
}

TEST_P(Fp16, WorkGroupCollectivesOnHalf) {
  if (!has_fp16()) GTEST_SKIP() << "the device does not report cl_khr_fp16";
  const size_t n = 256, local = 64;
  std::vector<uint16_t> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = to_half(double(int(i * 37 % 11) - 5) * 0.5);  // sums exact
  Program p = build(R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    __kernel void k(__global const half* x, __global half* r) {
      size_t i = get_global_id(0);
      r[4 * i] = work_group_reduce_add(x[i]);
      r[4 * i + 1] = work_group_scan_inclusive_max(x[i]);
      r[4 * i + 2] = work_group_scan_exclusive_add(x[i]);
      r[4 * i + 3] = work_group_broadcast(x[i], 5);
    })", "-cl-std=CL3.0");
  Kernel k = kernel(p, "k");
  Mem mx = buffer(n * 2, x.data()), mr = poisoned(n * 8);
  set_mem_arg(k, 0, mx);
  set_mem_arg(k, 1, mr);
  run(k, 1, &n, &local);
  std::vector<uint16_t> r = read<uint16_t>(mr, n * 4);
  for (size_t g = 0; g < n; g += local) {
    double sum = 0, max = -INFINITY, before = 0;
    for (size_t i = g; i < g + local; ++i) sum += double(half_value(x[i]));
    for (size_t i = g; i < g + local; ++i) {
      double v = double(half_value(x[i]));
      max = std::max(max, v);
      EXPECT_EQ(double(half_value(r[4 * i])), sum) << i;
      EXPECT_EQ(double(half_value(r[4 * i + 1])), max) << i;
      EXPECT_EQ(double(half_value(r[4 * i + 2])), before) << i;
      EXPECT_EQ(r[4 * i + 3], x[g + 5]) << i;
      before += v;
    }
  }
}

// The error of |got| against |ref| in half ulps (the ulp of ref's binade; infinities and NaN
// must match).
double half_ulps(uint16_t got, long double ref) {
  long double g = half_value(got);
  if (std::isnan(ref)) return std::isnan(g) ? 0 : INFINITY;
  if (std::isnan(g)) return INFINITY;
  if (std::isinf(ref) || std::fabs(ref) > 65504) {
    // Overflow: infinity, or the largest half when that is within the bound.
    if (std::isinf(g) && std::signbit(g) == std::signbit(ref)) return 0;
    if (std::isinf(ref)) return INFINITY;
  } else if (std::isinf(g)) {
    return std::fabs(ref) >= 65504 ? (65536 - std::fabs(ref)) / 32 : INFINITY;
  }
  int e = std::fabs(ref) < 0x1p-14L ? -14 : std::ilogb(ref);
  return double(std::fabs(g - ref) / std::ldexp(1.0L, e - 10));
}

struct HalfFunction {
  const char* name;
  double bound;
  double (*ref)(double);
};

TEST_P(Fp16, MathFunctionsAreWithinTheHalfBoundsOnEveryHalf) {
  if (!has_fp16()) GTEST_SKIP() << "the device does not report cl_khr_fp16";
  const HalfFunction functions[] = {
      {"sin", 2, [](double x) { return std::sin(x); }},   {"cos", 2, [](double x) { return std::cos(x); }},
      {"tan", 2.5, [](double x) { return std::tan(x); }}, {"exp", 2, [](double x) { return std::exp(x); }},
      {"exp2", 2, [](double x) { return std::exp2(x); }}, {"exp10", 2, [](double x) { return std::pow(10.0, x); }},
      {"log", 2, [](double x) { return std::log(x); }},   {"log2", 2, [](double x) { return std::log2(x); }},
      {"log1p", 2, [](double x) { return std::log1p(x); }}, {"sqrt", 1.5, [](double x) { return std::sqrt(x); }},
      {"rsqrt", 1, [](double x) { return 1 / std::sqrt(x); }}, {"cbrt", 2, [](double x) { return std::cbrt(x); }},
      {"atan", 2, [](double x) { return std::atan(x); }}, {"acos", 2, [](double x) { return std::acos(x); }},
      {"sinh", 2, [](double x) { return std::sinh(x); }}, {"tanh", 2, [](double x) { return std::tanh(x); }},
      {"erf", 4, [](double x) { return std::erf(x); }},   {"tgamma", 4, [](double x) { return std::tgamma(x); }},
      {"expm1", 2, [](double x) { return std::expm1(x); }},
  };
  std::string source = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n";
  for (const HalfFunction& f : functions)
    source += std::string("__kernel void k_") + f.name + "(__global half4* x, __global half4* r) {"
              " size_t i = get_global_id(0); r[i] = " + f.name + "(x[i]); }\n";
  Program p = build(source);
  const size_t n = 65536;
  std::vector<uint16_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = uint16_t(i);
  Mem mx = buffer(n * 2, all.data());
  for (const HalfFunction& f : functions) {
    Kernel k = kernel(p, (std::string("k_") + f.name).c_str());
    Mem mr = poisoned(n * 2);
    set_mem_arg(k, 0, mx);
    set_mem_arg(k, 1, mr);
    size_t groups = n / 4;
    run(k, 1, &groups, nullptr);
    std::vector<uint16_t> r = read<uint16_t>(mr, n);
    double worst = 0;
    uint16_t worst_at = 0;
    for (size_t i = 0; i < n; ++i) {
      double e = half_ulps(r[i], f.ref(double(half_value(uint16_t(i)))));
      if (is_denormal(uint16_t(i)))
        e = std::min(e, half_ulps(r[i], f.ref(double(half_value(flushed(uint16_t(i)))))));
      long double ref = f.ref(double(half_value(uint16_t(i))));
      if (std::fabs(ref) < 0x1p-14L && (r[i] & 0x7fff) == 0) e = 0;  // flushed result
      if (!(e <= worst)) { worst = e; worst_at = uint16_t(i); }
    }
    EXPECT_LE(worst, f.bound) << f.name << "(" << std::hexfloat << double(half_value(worst_at))
                              << ") = " << double(half_value(r[worst_at]));
  }
}

TEST_P(Fp16, PointerAndBinaryFunctionsOnHalfVectors) {
  if (!has_fp16()) GTEST_SKIP() << "the device does not report cl_khr_fp16";
  const size_t n = 4096;
  std::vector<uint16_t> x(n), y(n);
  std::uniform_real_distribution<float> value(-300, 300);
  for (size_t i = 0; i < n; ++i) {
    x[i] = to_half(value(rng_));
    y[i] = to_half(value(rng_) / 10);
  }
  Program p = build(R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    __kernel void k(__global const half4* x, __global const half4* y, __global half4* r) {
      size_t i = get_global_id(0);
      half4 c, ip, fl;
      int4 e;
      __global half4* o = r + 8 * i;
      o[0] = sincos(x[i], &c); o[1] = c;
      o[2] = modf(x[i], &ip); o[3] = ip;
      o[4] = fract(x[i], &fl) + (half4)(0.0h);
      o[5] = ldexp(frexp(x[i], &e), e);
      o[6] = fmod(x[i], y[i]);
      o[7] = pow(fabs(y[i]), (half4)(1.5h));
    })");
  Kernel k = kernel(p, "k");
  Mem mx = buffer(n * 2, x.data()), my = buffer(n * 2, y.data()), mr = poisoned(n * 16);
  set_mem_arg(k, 0, mx);
  set_mem_arg(k, 1, my);
  set_mem_arg(k, 2, mr);
  size_t groups = n / 4;
  run(k, 1, &groups, nullptr);
  std::vector<uint16_t> r = read<uint16_t>(mr, n * 8);
  int bad = 0;
  for (size_t i = 0; i < n && bad < 10; ++i) {
    size_t g = i / 4, lane = i % 4;
    auto out = [&](int slot) { return r[(8 * g + slot) * 4 + lane]; };
    double v = double(half_value(x[i])), w = double(half_value(y[i]));
    double ip = 0;
    double frac = std::modf(v, &ip);
    struct Check { const char* what; uint16_t got; double ref; double bound; } checks[] = {
        {"sincos sin", out(0), std::sin(v), 2}, {"sincos cos", out(1), std::cos(v), 2},
        {"modf", out(2), frac, 0}, {"modf integral", out(3), ip, 0},
        {"fract", out(4), v - std::floor(v), 0}, {"frexp/ldexp", out(5), v, 0},
        {"fmod", out(6), std::fmod(v, w), 0}, {"pow", out(7), std::pow(std::fabs(w), 1.5), 4}};
    for (const Check& c : checks) {
      double e = half_ulps(c.got, c.ref);
      if (c.bound == 0 ? !same_half(c.got, to_half(c.ref)) : !(e <= c.bound)) {
        ADD_FAILURE() << c.what << "(" << v << ", " << w << ") = " << double(half_value(c.got))
                      << ", want " << c.ref;
        ++bad;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Options, Fp16, ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
