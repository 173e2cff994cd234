// Math built-ins through link-builtins (libclc bodies) and vkcl's own tier: the plumbing, not
// the accuracy tables (tests/math measures those against MPFR). Pointer results of every
// address space, vector widths split per component, and the integer helpers, each checked
// against the C library on the host.
#include <cmath>
#include <cstdint>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class MathBuiltins : public KernelTest {
 protected:
  // Runs |body| (which reads x[i], writes r[i] and q[i]) over |xs|; returns {r, q}.
  std::pair<std::vector<float>, std::vector<int>> run_body(const std::string& body,
                                                           const std::vector<float>& xs,
                                                           const std::string& options = "") {
    std::string src = "__kernel void k(__global const float* x, __global float* r, "
                      "__global int* q) { size_t i = get_global_id(0); " + body + " }";
    Program p = build(src, options);
    Kernel k = kernel(p, "k");
    size_t n = xs.size();
    Mem dx = buffer(n * 4, xs.data()), dr = poisoned(n * 4), dq = poisoned(n * 4);
    set_mem_arg(k, 0, dx); set_mem_arg(k, 1, dr); set_mem_arg(k, 2, dq);
    run(k, 1, &n, nullptr);
    return {read<float>(dr, n), read<int>(dq, n)};
  }
  std::vector<float> inputs(size_t n, float lo, float hi) {
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(rng_);
    return v;
  }
};

// Within |ulps| units in the last place of the double-precision reference.
::testing::AssertionResult near_ulps(float got, double want, double ulps) {
  if (double(got) == want) return ::testing::AssertionSuccess();  // infinities included
  if (std::isnan(want)) return std::isnan(got) ? ::testing::AssertionSuccess()
                                               : ::testing::AssertionFailure() << got << " not NaN";
  int e;
  std::frexp(want, &e);
  double ulp = std::ldexp(1.0, std::max(e - 24, -149));
  double err = std::fabs(double(got) - want) / ulp;
  if (err <= ulps) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << got << " vs " << want << ": " << err << " ulp";
}

TEST_P(MathBuiltins, ScalarFunctionsWithinTheirBounds) {
  auto xs = inputs(512, -20, 20);
  struct Case { const char* call; double (*ref)(double); double ulps; };
  const Case cases[] = {{"sin", std::sin, 4}, {"cos", std::cos, 4}, {"exp", std::exp, 3},
                        {"tanh", std::tanh, 5}, {"atan", std::atan, 5}, {"cbrt", std::cbrt, 2},
                        {"erf", std::erf, 16}, {"sinh", std::sinh, 4}};
  for (const Case& c : cases) {
    auto [r, q] = run_body(std::string("r[i] = ") + c.call + "(x[i]); q[i] = 0;", xs);
    for (size_t i = 0; i < xs.size(); ++i)
      ASSERT_TRUE(near_ulps(r[i], c.ref(xs[i]), c.ulps)) << c.call << "(" << xs[i] << ")";
  }
}

TEST_P(MathBuiltins, SqrtAndRsqrtIncludingEdges) {
  std::vector<float> xs = inputs(256, 0, 1e6f);
  for (float e : {0.0f, -0.0f, INFINITY, -1.0f, NAN, 1e-40f, 1.17549435e-38f, 3.4e38f, 1.0f})
    xs.push_back(e);
  auto [r, q] = run_body("r[i] = sqrt(x[i]); q[i] = as_int(rsqrt(x[i]));", xs);
  for (size_t i = 0; i < xs.size(); ++i) {
    double x = xs[i];
    float rs;
    std::memcpy(&rs, &q[i], 4);
    // A denormal input may be flushed (the device does not report CL_FP_DENORM): sqrt is then
    // a zero of its sign.
    bool flushed = x > 0 && x < 1e-38 && r[i] == 0 && !std::signbit(r[i]);
    ASSERT_TRUE(flushed || near_ulps(r[i], std::sqrt(x), 3)) << "sqrt(" << x << ")";
    if (x == 0) {
      ASSERT_EQ(std::signbit(r[i]), std::signbit(xs[i])) << "sqrt keeps the sign of zero";
      ASSERT_TRUE(std::isinf(rs) && std::signbit(rs) == std::signbit(xs[i]));
    } else if (x < 1e-38 && x > 0) {
      // Denormal inputs may be flushed (the device does not report CL_FP_DENORM).
      ASSERT_TRUE(std::isinf(rs) || near_ulps(rs, 1 / std::sqrt(x), 2)) << "rsqrt(" << x << ")";
    } else {
      ASSERT_TRUE(near_ulps(rs, 1 / std::sqrt(x), 2)) << "rsqrt(" << x << ")";
    }
  }
}

// fract, sincos, frexp, remquo and friends return a second value through a pointer: each
// address space and vector width goes through a private temporary per component.
TEST_P(MathBuiltins, PointerResultsInEveryAddressSpace) {
  auto xs = inputs(64 * 4, -50, 50);
  auto [r, q] = run_body(R"(
      __local float4 lc[64];
      float4 v = vload4(i / 4, x);
      float4 pc, lt;
      int4 e;
      float4 s = sincos(v, &pc);
      float4 f = fract(v, &lc[get_local_id(0) % 64]);
      lt = lc[get_local_id(0) % 64];
      float4 m = frexp(v, &e);
      int k = (int)i % 4;
      float out[4] = {s[k] + pc[k], f[k] + lt[k], m[k], 0};
      r[i] = out[0] * 1000 + out[1];
      q[i] = e[k];)", xs);
  for (size_t i = 0; i < xs.size(); ++i) {
    double v = xs[(i / 4) * 4 + i % 4];
    double sc = std::sin(v) + std::cos(v);
    double fr = v - std::floor(v) + std::floor(v);
    int e;
    std::frexp(v, &e);
    ASSERT_NEAR(r[i], sc * 1000 + fr, 0.05) << "at " << i << " x=" << v;
    ASSERT_EQ(q[i], e) << "frexp exponent of " << v;
  }
}

TEST_P(MathBuiltins, RemquoAndLgammaSign) {
  auto xs = inputs(256, -30, 30);
  auto [r, q] = run_body(R"(
      int quo, sgn;
      float rem = remquo(x[i], 1.75f, &quo);
      float lg = lgamma_r(x[i], &sgn);
      r[i] = rem;
      q[i] = (quo & 0xff) | (sgn < 0 ? 0x100 : 0);)", xs);
  for (size_t i = 0; i < xs.size(); ++i) {
    double rem = std::remainder(double(xs[i]), 1.75);
    ASSERT_FLOAT_EQ(r[i], float(rem)) << xs[i];
    // "remquo also calculates the lower seven bits of the integral quotient x/y, and gives
    // that value the same sign as x/y." (k is exact: x - rem is a multiple of 1.75.)
    long k = std::lround((double(xs[i]) - rem) / 1.75);
    int low7 = int(std::labs(k) & 0x7f);
    int quo = q[i] & 0xff;
    quo = (quo & 0x80) ? quo - 0x100 : quo;  // back to the signed value the kernel masked
    ASSERT_EQ(std::abs(quo) & 0x7f, low7) << xs[i];
    if (low7) {
      ASSERT_EQ(quo < 0, xs[i] < 0) << xs[i];
    }
    bool negative = std::tgamma(double(xs[i])) < 0;
    ASSERT_EQ((q[i] & 0x100) != 0, negative) << "lgamma_r sign of " << xs[i];
  }
}

TEST_P(MathBuiltins, SixteenWideAndGeometric) {
  auto xs = inputs(16 * 8, 0.1f, 10);
  auto [r, q] = run_body(R"(
      float16 v = vload16(i / 16, x);
      float16 p = pow(v, (float16)1.5f);
      float4 a = vload4(i / 4, x);
      r[i] = p[i % 16];
      q[i] = (int)(length(a) * 1000.0f);)", xs);
  for (size_t i = 0; i < xs.size(); ++i) {
    ASSERT_TRUE(near_ulps(r[i], std::pow(double(xs[i]), 1.5), 16)) << xs[i];
    size_t b = i / 4 * 4;
    double len = std::sqrt(double(xs[b]) * xs[b] + double(xs[b + 1]) * xs[b + 1] +
                           double(xs[b + 2]) * xs[b + 2] + double(xs[b + 3]) * xs[b + 3]);
    ASSERT_NEAR(q[i], int(len * 1000), 1) << "length at " << i;
  }
}

TEST_P(MathBuiltins, IntegerAndBitHelpers) {
  std::vector<float> xs;
  for (int i = -64; i < 64; ++i) xs.push_back(float(i * 997));
  auto [r, q] = run_body(R"(
      int v = (int)x[i];
      long w = (long)v << 20;
      q[i] = clz(w) * 1000000 + ctz((short)v) * 10000 + popcount((uchar)v) * 100
             + mad_hi(v, 123456789, 7) % 97;
      r[i] = (float)upsample((short)v, (ushort)v);)", xs, "-cl-std=CL3.0");
  for (size_t i = 0; i < xs.size(); ++i) {
    int v = int(xs[i]);
    int64_t w = int64_t(v) << 20;
    int clz64 = w == 0 ? 64 : __builtin_clzll(uint64_t(w));
    int16_t sv = int16_t(v);
    int ctz16 = sv == 0 ? 16 : __builtin_ctz(uint16_t(sv));
    int pop8 = __builtin_popcount(uint8_t(v));
    int hi = int((int64_t(v) * 123456789) >> 32) + 7;
    ASSERT_EQ(q[i], clz64 * 1000000 + ctz16 * 10000 + pop8 * 100 + hi % 97) << v;
    int32_t up = int32_t(uint32_t(uint16_t(sv)) << 16 | uint16_t(v));
    ASSERT_EQ(r[i], float(up)) << v;
  }
}

TEST_P(MathBuiltins, NextafterMagnitudesAndNan) {
  std::vector<float> xs = {0.0f, -0.0f, 1.0f, -1.0f, 3.5f, -2.25f, 1e-30f, INFINITY, -7.0f};
  auto [r, q] = run_body(R"(
      float y = x[i] * 0.5f - 1.0f;
      // maxmag is only exercised: 0 * maxmag(inf, y) would be NaN, not 0.
      r[i] = nextafter(x[i], y) + (maxmag(x[i], y) == maxmag(x[i], y) ? 0.0f : 1.0f);
      q[i] = as_int(minmag(x[i], y)) ^ (isnan(nan(5u)) ? 0 : 1);)", xs);
  for (size_t i = 0; i < xs.size(); ++i) {
    float x = xs[i], y = x * 0.5f - 1.0f;
    float mn = std::fabs(x) < std::fabs(y) ? x : std::fabs(y) < std::fabs(x) ? y : std::fmin(x, y);
    float nx = std::nextafter(x, y);
    if (nx != 0 && std::fabs(nx) < 1.17549435e-38f) {
      ASSERT_TRUE(r[i] == nx || r[i] == 0.0f) << x;  // a denormal step may be flushed
    } else {
      ASSERT_EQ(r[i], nx) << x;
    }
    int32_t want;
    std::memcpy(&want, &mn, 4);
    ASSERT_EQ(q[i], want) << "minmag(" << x << ", " << y << ")";
  }
}

TEST_P(MathBuiltins, FmaIsCorrectlyRounded) {
  // a * b + c where the unfused result differs: products that need more than 24 bits.
  std::vector<float> xs;
  std::uniform_real_distribution<float> dist(-1000, 1000);
  for (int i = 0; i < 1024; ++i) xs.push_back(dist(rng_));
  xs[0] = 1.0f + 0x1p-23f;
  xs[1] = 1.0f - 0x1p-23f;
  auto [r, q] = run_body(R"(
      float a = x[i], b = x[(i + 1) % get_global_size(0)];
      // Odd items: c cancels the rounded product, so the result is its rounding error.
      float c = (i & 1) ? -(a * b) : -a * 0.999f;
      r[i] = fma(a, b, c);
      q[i] = 0;)", xs);
  for (size_t i = 0; i < xs.size(); ++i) {
    float a = xs[i], b = xs[(i + 1) % xs.size()];
    volatile float product = a * b;
    float c = (i & 1) ? -product : -a * 0.999f;
    ASSERT_EQ(r[i], std::fma(a, b, c)) << a << " * " << b << " + " << c;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, MathBuiltins, ::testing::Values(std::string(""),
                                                                  std::string("-cl-opt-disable")));

}  // namespace
}  // namespace vkcl::test
