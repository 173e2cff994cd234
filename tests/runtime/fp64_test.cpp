// cl_khr_fp64: what the device reports, and the double operations OpenCL requires correctly
// rounded (fma, sqrt, division) on the inputs hardest for an emulation: products the addend
// cancels, results in the denormal range and next to overflow, every binade of sqrt. The
// reference is the host's C library (IEEE fma, sqrt and division), compared bit for bit.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class Fp64 : public KernelTest {
 protected:
  bool has_fp64() {
    cl_device_fp_config config = 0;
    clGetDeviceInfo(device_, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof config, &config, nullptr);
    return config != 0;
  }
};

double from_bits(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

bool same(double got, double want) {
  return std::memcmp(&got, &want, 8) == 0 || (std::isnan(got) && std::isnan(want));
}

TEST_P(Fp64, ReportsTheDoubleConfigurationOfClKhrFp64) {
  if (!has_fp64()) GTEST_SKIP() << "the device does not report cl_khr_fp64";
  cl_device_fp_config config = 0;
  clGetDeviceInfo(device_, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof config, &config, nullptr);
  const cl_device_fp_config required = CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO |
                                        CL_FP_ROUND_TO_INF | CL_FP_INF_NAN | CL_FP_DENORM;
  EXPECT_EQ(required, config & required);
  char extensions[4096] = {};
  clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions, nullptr);
  EXPECT_NE(nullptr, std::strstr(extensions, "cl_khr_fp64"));
  cl_uint width = 0;
  clGetDeviceInfo(device_, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, sizeof width, &width, nullptr);
  EXPECT_GE(width, 1u);
}

TEST_P(Fp64, FmaSqrtAndDivisionAreCorrectlyRounded) {
  if (!has_fp64()) GTEST_SKIP() << "the device does not report cl_khr_fp64";
  const size_t n = 1 << 14;
  std::vector<double> a(n), b(n), c(n);
  std::uniform_int_distribution<uint64_t> bits;
  std::uniform_int_distribution<int> exponent(-1100, 1100);
  auto random = [&](int lo, int hi) {  // a random mantissa and sign, exponent in [lo, hi]
    uint64_t m = bits(rng_);
    double v = std::ldexp(from_bits((m & 0x800fffffffffffffull) | 0x3ff0000000000000ull),
                          std::uniform_int_distribution<int>(lo, hi)(rng_));
    return v;
  };
  for (size_t i = 0; i < n; ++i) {
    switch (i % 8) {
      case 0:  // cancellation: c is minus the rounded product, fma returns the lost low part
        a[i] = random(-500, 500);
        b[i] = random(-500, 500);
        c[i] = -(a[i] * b[i]);
        break;
      case 1:  // near cancellation, addend off by a few ulps
        a[i] = random(-60, 60);
        b[i] = random(-60, 60);
        c[i] = -std::nextafter(a[i] * b[i], INFINITY * (bits(rng_) & 1 ? 1 : -1));
        break;
      case 2:  // products and sums in the denormal range
        a[i] = random(-560, -500);
        b[i] = random(-560, -500);
        c[i] = random(-1074, -1020);
        break;
      case 3:  // near overflow
        a[i] = random(500, 520);
        b[i] = random(500, 505);
        c[i] = random(1000, 1023);
        break;
      case 4:  // addend far above or below the product
        a[i] = random(-30, 30);
        b[i] = random(-30, 30);
        c[i] = random(-200, 200);
        break;
      case 6: {  // exact sums at or next to midpoints: short mantissas, close exponents
        auto short_mantissa = [&](int bits_kept, int lo, int hi) {
          double v = random(lo, hi);
          int e;
          double m = std::frexp(v, &e);
          return std::ldexp(std::trunc(std::ldexp(m, bits_kept)), e - bits_kept);
        };
        a[i] = short_mantissa(27, -40, 40);
        b[i] = short_mantissa(27, -40, 40);
        int e;
        std::frexp(a[i] * b[i], &e);
        c[i] = short_mantissa(20, e - 3, e + 3);
        break;
      }
      case 7:  // cancellation into the denormal range
        a[i] = random(-540, -480);
        b[i] = random(-540, -480);
        c[i] = -std::nextafter(a[i] * b[i], INFINITY * (bits(rng_) & 1 ? 1 : -1)) *
               (1 + std::ldexp(double(bits(rng_) % 64), -52));
        break;
      default:  // anything, denormals and special values included
        a[i] = from_bits(bits(rng_));
        b[i] = i % 8 == 5 ? from_bits(bits(rng_)) : random(-1100 / 2, 1100 / 2);
        c[i] = exponent(rng_) > 1000 ? INFINITY : from_bits(bits(rng_));
    }
  }
  const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 0x1p-1074, -0x1p-1074,
                             0x1p-1022, 0x1.fffffffffffffp1023, 1.0, -1.0, 0x1.ffffffffffffep-1023};
  for (size_t i = 0; i < 12 * 12 * 12; ++i) {
    a[i] = specials[i % 12];
    b[i] = specials[i / 12 % 12];
    c[i] = specials[i / 144];
  }
  // Double-rounding traps: a b = 2^-53 + 2^-131 exactly, whose rounded product 2^-53 put on 1
  // is a tie that the low part 2^-131 must break upwards (an emulation that rounds the low
  // parts' sum to nearest before the last addition returns 1, not 1 + 2^-52); scaled and
  // signed.
  const double trap_a = 1 + 0x1p-26, trap_b = 0x1p-53 * (1 - 0x1p-26 + 0x1p-52);
  for (size_t i = 0; i < 64; ++i) {
    double scale = std::ldexp(1.0, int(i % 8) * 120 - 480);
    double sign = i & 8 ? -1 : 1;
    size_t at = 2000 + i;
    a[at] = sign * trap_a;
    b[at] = trap_b * scale;
    c[at] = sign * scale * (i & 16 ? 1 + 0x1p-52 : 1.0) * (i & 32 ? 2 : 1);
  }
  Program p = build(R"(
    #pragma OPENCL EXTENSION cl_khr_fp64 : enable
    __kernel void k(__global const double* a, __global const double* b, __global const double* c,
                    __global double* f, __global double* s, __global double* d) {
      size_t i = get_global_id(0);
      f[i] = fma(a[i], b[i], c[i]);
      s[i] = sqrt(a[i]);
      d[i] = a[i] / b[i];
    })");
  Kernel k = kernel(p, "k");
  Mem ma = buffer(n * 8, a.data()), mb = buffer(n * 8, b.data()), mc = buffer(n * 8, c.data());
  Mem mf = poisoned(n * 8), ms = poisoned(n * 8), md = poisoned(n * 8);
  set_mem_arg(k, 0, ma);
  set_mem_arg(k, 1, mb);
  set_mem_arg(k, 2, mc);
  set_mem_arg(k, 3, mf);
  set_mem_arg(k, 4, ms);
  set_mem_arg(k, 5, md);
  run(k, 1, &n, nullptr);
  std::vector<double> f = read<double>(mf, n), s = read<double>(ms, n), d = read<double>(md, n);
  int bad = 0;
  for (size_t i = 0; i < n && bad < 10; ++i) {
    if (!same(f[i], std::fma(a[i], b[i], c[i]))) {
      ADD_FAILURE() << "fma(" << std::hexfloat << a[i] << ", " << b[i] << ", " << c[i] << ") = " << f[i]
                    << ", want " << std::fma(a[i], b[i], c[i]);
      ++bad;
    }
    if (!same(s[i], std::sqrt(a[i]))) {
      ADD_FAILURE() << "sqrt(" << std::hexfloat << a[i] << ") = " << s[i] << ", want " << std::sqrt(a[i]);
      ++bad;
    }
    if (!same(d[i], a[i] / b[i])) {
      ADD_FAILURE() << std::hexfloat << a[i] << " / " << b[i] << " = " << d[i] << ", want " << a[i] / b[i];
      ++bad;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Options, Fp64, ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
