// vload_half/vstore_half families: every one of the 65536 half patterns loaded, and floats
// stored with each rounding mode, against a reference that works on values (a sorted table of
// all halves), not on bit patterns like the implementation.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class HalfMemory : public KernelTest {};

double half_value(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}

// The half |x| rounds to in |mode| ("rte", "rtz", "rtp", "rtn").
uint16_t reference_half(double x, const std::string& mode) {
  static std::vector<std::pair<double, uint16_t>> finite = [] {
    std::vector<std::pair<double, uint16_t>> t;
    for (uint32_t h = 0; h < 0x7c00; ++h) t.emplace_back(half_value(uint16_t(h)), uint16_t(h));
    return t;
  }();
  bool neg = std::signbit(x);
  double a = std::fabs(x);
  uint16_t sign = neg ? 0x8000 : 0;
  if (std::isnan(x)) return 0x7e00;  // any NaN; compared as "is NaN"
  bool toward_zero = mode == "rtz" || (mode == "rtp" && neg) || (mode == "rtn" && !neg);
  if (a > 65504.0) {
    if (std::isinf(a) || !toward_zero) {
      // rte: values at or above 65520 (halfway to 2^16) round to infinity.
      if (mode != "rte" || a >= 65520.0) return sign | (toward_zero && !std::isinf(a) ? 0x7bff : 0x7c00);
      return sign | 0x7bff;
    }
    return sign | 0x7bff;
  }
  auto it = std::lower_bound(finite.begin(), finite.end(), std::make_pair(a, uint16_t(0)));
  if (it->first == a) return sign | it->second;
  const auto& hi = *it;
  const auto& lo = *(it - 1);
  uint16_t pick;
  if (mode == "rte") {
    double dl = a - lo.first, dh = hi.first - a;
    pick = dl < dh ? lo.second : dh < dl ? hi.second : ((lo.second & 1) ? hi.second : lo.second);
  } else {
    pick = toward_zero ? lo.second : hi.second;
  }
  return sign | pick;
}

TEST_P(HalfMemory, LoadsEveryHalfExactly) {
  std::vector<uint16_t> all(65536);
  for (uint32_t h = 0; h < 65536; ++h) all[h] = uint16_t(h);
  Program p = build(R"(
    __kernel void k(__global const half* h, __global float* scalar, __global float* vec) {
      size_t i = get_global_id(0);
      scalar[i] = vload_half(i, h);
      vstore4(vload_half4(i, h), i, vec);  // every fourth work-item's group of four
    })");
  Kernel k = kernel(p, "k");
  Mem dh = buffer(65536 * 2, all.data()), ds = poisoned(65536 * 4), dv = poisoned(65536 * 16);
  set_mem_arg(k, 0, dh); set_mem_arg(k, 1, ds); set_mem_arg(k, 2, dv);
  size_t n = 65536 / 4;
  run(k, 1, &n, nullptr);
  auto s = read<float>(ds, n), v = read<float>(dv, 65536);
  for (uint32_t h = 0; h < 65536; ++h) {
    double want = half_value(uint16_t(h));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(v[h])) << std::hex << h;
      continue;
    }
    ASSERT_EQ(double(v[h]), want) << std::hex << h;
    ASSERT_EQ(std::signbit(v[h]), bool(h & 0x8000)) << std::hex << h;
    if (h < n) {
      ASSERT_EQ(double(s[h]), want) << std::hex << h;
    }
  }
}

TEST_P(HalfMemory, StoresRoundInEveryMode) {
  std::vector<float> xs = {0.0f, -0.0f, 1.0f, -1.0f, 65504.0f, 65519.0f, 65520.0f, 65536.0f,
                           1e10f, -1e10f, INFINITY, -INFINITY, NAN, 5.96046448e-8f,
                           2.98023224e-8f, 2.98023225e-8f, 8.9e-8f, 6.1e-5f, 6.097555e-5f,
                           1e-30f, -1e-30f, 1e-45f, 0.333333343f, 2049.0f, 2051.0f, -2051.0f};
  std::uniform_real_distribution<float> wide(-70000, 70000), small(-1e-4f, 1e-4f);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 2000; ++i) xs.push_back(wide(rng_));
  for (int i = 0; i < 2000; ++i) xs.push_back(small(rng_));
  for (int i = 0; i < 2000; ++i) {
    uint32_t b = bits(rng_);
    float f;
    std::memcpy(&f, &b, 4);
    xs.push_back(f);
  }
  while (xs.size() % 4) xs.push_back(0.5f);
  const std::string modes[] = {"rte", "rtz", "rtp", "rtn"};
  for (const std::string& mode : modes) {
    std::string src = R"(
      __kernel void k(__global const float* x, __global half* s, __global half* a) {
        size_t i = get_global_id(0);
        vstore_half_)" + mode + R"((x[i], i, s);
        if (i % 4 == 0) vstorea_half4_)" + mode + R"((vload4(i / 4, x), i / 4, a);
      })";
    Program p = build(src);
    Kernel k = kernel(p, "k");
    size_t n = xs.size();
    Mem dx = buffer(n * 4, xs.data()), ds = poisoned(n * 2), da = poisoned(n * 2);
    set_mem_arg(k, 0, dx); set_mem_arg(k, 1, ds); set_mem_arg(k, 2, da);
    run(k, 1, &n, nullptr);
    auto s = read<uint16_t>(ds, n), a = read<uint16_t>(da, n);
    for (size_t i = 0; i < n; ++i) {
      uint16_t want = reference_half(xs[i], mode);
      for (uint16_t got : {s[i], a[i]}) {
        if (std::isnan(xs[i])) {
          ASSERT_TRUE((got & 0x7c00) == 0x7c00 && (got & 0x3ff)) << mode << " NaN gave " << got;
        } else {
          ASSERT_EQ(got, want) << mode << "(" << xs[i] << ") at " << i << std::hex << " got "
                               << got << " want " << want;
        }
      }
    }
  }
}

// Doubles (cl_khr_fp64) round to half directly, not through float: values a float would
// round onto a half tie are among the inputs.
TEST_P(HalfMemory, StoresDoublesRoundInEveryMode) {
  cl_device_fp_config fp64 = 0;
  clGetDeviceInfo(device_, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, nullptr);
  if (!fp64) GTEST_SKIP() << "no cl_khr_fp64";
  std::vector<double> xs = {0.0, -0.0, 1.0, 65504.0, 65519.99999999, 65520.0, 1e300, -1e300,
                            INFINITY, NAN, 0x1p-25, 0x1.0000000001p-25, 0x1p-1074, 1e-300,
                            1.0 + 0x1p-11 + 0x1p-40, 1.0 + 0x1p-11 - 0x1p-40, -(2049.0 + 1e-9)};
  std::uniform_real_distribution<double> wide(-70000, 70000), small(-1e-4, 1e-4);
  std::uniform_int_distribution<uint64_t> bits;
  for (int i = 0; i < 2000; ++i) xs.push_back(wide(rng_));
  for (int i = 0; i < 2000; ++i) xs.push_back(small(rng_));
  for (int i = 0; i < 2000; ++i) {
    // A half's rounding point with a tiny offset: through float it would round twice.
    double h = half_value(uint16_t(bits(rng_) & 0x7bff));
    xs.push_back(std::nextafter(h + std::ldexp(1.0, std::ilogb(h == 0 ? 1.0 : h) - 11), 0.0));
    uint64_t b = bits(rng_);
    double d;
    std::memcpy(&d, &b, 8);
    xs.push_back(d);
  }
  for (const std::string mode : {"rte", "rtz", "rtp", "rtn"}) {
    Program p = build("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                      "__kernel void k(__global const double* x, __global half* s) {"
                      "  size_t i = get_global_id(0); vstore_half_" + mode + "(x[i], i, s); }");
    Kernel k = kernel(p, "k");
    size_t n = xs.size();
    Mem dx = buffer(n * 8, xs.data()), ds = poisoned(n * 2);
    set_mem_arg(k, 0, dx);
    set_mem_arg(k, 1, ds);
    run(k, 1, &n, nullptr);
    auto s = read<uint16_t>(ds, n);
    for (size_t i = 0; i < n; ++i) {
      if (std::isnan(xs[i])) {
        ASSERT_TRUE((s[i] & 0x7c00) == 0x7c00 && (s[i] & 0x3ff)) << mode << " NaN gave " << s[i];
        continue;
      }
      uint16_t want = reference_half(xs[i], mode);
      ASSERT_EQ(s[i], want) << mode << "(" << std::hexfloat << xs[i] << ") at " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Options, HalfMemory, ::testing::Values(std::string(""),
                                                                std::string("-cl-opt-disable")));

}  // namespace
}  // namespace vkcl::test
