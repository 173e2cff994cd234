// Built-in functions at the edges of their domain: 64-bit integer functions whose exact
// result needs 128 bits (mad_sat, mul_hi, mad_hi, add_sat, sub_sat) against __int128, and the
// rounding family (fract, modf, trunc, round, ceil, floor, rint) on signed zeros, infinities,
// NaN and values in (-1, 0), for float, double and half, scalars and vectors of every path
// (library calls per component, and through a loop from 8 components on).
#include <CL/cl.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class BuiltinEdges : public KernelTest {
 protected:
  bool has_extension(const char* name) {
    char extensions[8192] = {};
    clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions, nullptr);
    return std::strstr(extensions, name) != nullptr;
  }
};

using i128 = __int128;

int64_t saturate_signed(i128 v) {
  if (v > i128(INT64_MAX)) return INT64_MAX;
  if (v < i128(INT64_MIN)) return INT64_MIN;
  return int64_t(v);
}
uint64_t saturate_unsigned(i128 v) {
  if (v > i128(UINT64_MAX)) return UINT64_MAX;
  if (v < 0) return 0;
  return uint64_t(v);
}

// Extreme values of both signs, and products and sums that overflow by little and by much.
std::vector<uint64_t> interesting_64(std::mt19937& rng, size_t n) {
  std::vector<uint64_t> v = {0,
                             1,
                             uint64_t(-1),
                             uint64_t(INT64_MAX),
                             uint64_t(INT64_MIN),
                             uint64_t(INT64_MAX) - 1,
                             uint64_t(INT64_MIN) + 1,
                             UINT64_MAX - 1,
                             uint64_t(1) << 32,
                             (uint64_t(1) << 32) + 1,
                             uint64_t(3037000499),  // ~sqrt(2^63)
                             uint64_t(3037000500),
                             uint64_t(4294967295),
                             uint64_t(-4294967296),
                             uint64_t(1) << 62,
                             uint64_t(-(int64_t(1) << 62)),
                             2,
                             uint64_t(-2)};
  std::uniform_int_distribution<uint64_t> any;
  std::uniform_int_distribution<int> shift(0, 63);
  while (v.size() < n) {
    uint64_t x = any(rng) >> shift(rng);
    v.push_back(any(rng) % 2 ? x : uint64_t(-int64_t(x)));
  }
  return v;
}

TEST_P(BuiltinEdges, SixtyFourBitIntegersSaturateAndTakeHighHalvesExactly) {
  const size_t n = 18 * 18 * 4;  // every pair of the fixed values, with random addends
  Program p = build(R"(
    #define ALL(T, N)                                                                   \
      __kernel void edges_##T##N(__global const T* a, __global const T* b,              \
                                 __global const T* c, __global T* out, int n) {        \
        size_t i = get_global_id(0);                                                    \
        T##N x = vload##N(i, a), y = vload##N(i, b), z = vload##N(i, c);                \
        vstore##N(mad_sat(x, y, z), i, out);                                            \
        vstore##N(mul_hi(x, y), i, out + n);                                            \
        vstore##N(mad_hi(x, y, z), i, out + 2 * n);                                     \
        vstore##N(add_sat(x, z), i, out + 3 * n);                                       \
        vstore##N(sub_sat(x, z), i, out + 4 * n);                                       \
      }
    #define SCALAR(T)                                                                   \
      __kernel void edges_##T(__global const T* a, __global const T* b,                 \
                              __global const T* c, __global T* out, int n) {           \
        size_t i = get_global_id(0);                                                    \
        T x = a[i], y = b[i], z = c[i];                                                 \
        out[i] = mad_sat(x, y, z);                                                      \
        out[i + n] = mul_hi(x, y);                                                      \
        out[i + 2 * n] = mad_hi(x, y, z);                                               \
        out[i + 3 * n] = add_sat(x, z);                                                 \
        out[i + 4 * n] = sub_sat(x, z);                                                 \
      }
    SCALAR(long) SCALAR(ulong)
    ALL(long, 4) ALL(ulong, 2) ALL(long, 8) ALL(ulong, 16)
  )");
  std::vector<uint64_t> fixed = interesting_64(rng_, 18);
  std::vector<uint64_t> a(n), b(n), c(n);
  std::vector<uint64_t> addends = interesting_64(rng_, n);
  std::uniform_int_distribution<size_t> pick(0, addends.size() - 1);
  for (size_t i = 0; i < n; ++i) {
    a[i] = fixed[(i / 18) % 18];
    b[i] = fixed[i % 18];
    c[i] = i < 18 * 18 ? fixed[(i * 7) % 18] : addends[pick(rng_)];
  }
  Mem da = buffer(n * 8, a.data()), db = buffer(n * 8, b.data()), dc = buffer(n * 8, c.data());
  const int count = int(n);
  for (auto [name, width, is_signed] :
       {std::tuple{"edges_long", 1, true}, std::tuple{"edges_ulong", 1, false},
        std::tuple{"edges_long4", 4, true}, std::tuple{"edges_ulong2", 2, false},
        std::tuple{"edges_long8", 8, true}, std::tuple{"edges_ulong16", 16, false}}) {
    SCOPED_TRACE(name);
    Kernel k = kernel(p, name);
    Mem out = poisoned(5 * n * 8);
    set_mem_arg(k, 0, da); set_mem_arg(k, 1, db); set_mem_arg(k, 2, dc); set_mem_arg(k, 3, out);
    set_arg(k, 4, count);
    size_t global = n / size_t(width);
    run(k, 1, &global, nullptr);
    auto got = read<uint64_t>(out, 5 * n);
    for (size_t i = 0; i < n; ++i) {
      i128 x = is_signed ? i128(int64_t(a[i])) : i128(a[i]);
      i128 y = is_signed ? i128(int64_t(b[i])) : i128(b[i]);
      i128 z = is_signed ? i128(int64_t(c[i])) : i128(c[i]);
      // The 128-bit product's high half, in two's complement (the product may not fit i128
      // only for unsigned, where it is split by hand).
      uint64_t hi;
      i128 product;
      if (is_signed) {
        product = x * y;
        hi = uint64_t(product >> 64);
      } else {
        unsigned __int128 u = (unsigned __int128)a[i] * b[i];
        hi = uint64_t(u >> 64);
        product = 0;  // unused: saturation below is computed from u
      }
      uint64_t mad_sat, add_sat, sub_sat;
      if (is_signed) {
        mad_sat = uint64_t(saturate_signed(product + z));
        add_sat = uint64_t(saturate_signed(x + z));
        sub_sat = uint64_t(saturate_signed(x - z));
      } else {
        unsigned __int128 u = (unsigned __int128)a[i] * b[i] + c[i];
        bool over = hi != 0 || u > UINT64_MAX;
        mad_sat = over ? UINT64_MAX : uint64_t(u);
        add_sat = saturate_unsigned(x + z);
        sub_sat = saturate_unsigned(x - z);
      }
      SCOPED_TRACE("a=" + std::to_string(a[i]) + " b=" + std::to_string(b[i]) +
                   " c=" + std::to_string(c[i]) + " at " + std::to_string(i));
      ASSERT_EQ(got[i], mad_sat) << "mad_sat";
      ASSERT_EQ(got[n + i], hi) << "mul_hi";
      ASSERT_EQ(got[2 * n + i], hi + c[i]) << "mad_hi";
      ASSERT_EQ(got[3 * n + i], add_sat) << "add_sat";
      ASSERT_EQ(got[4 * n + i], sub_sat) << "sub_sat";
    }
  }
}

// The OpenCL C edge-case rules (OpenCL SPIR-V environment 6.7, "fract"): "fract(-0, iptr)
// returns -0 and -0 in iptr", "fract(-inf, iptr) returns -0 and -inf in iptr", "fract(NaN,
// iptr) returns the NaN and NaN in iptr"; modf, trunc, round, ceil, floor and rint keep the
// sign of a zero result as C99 does (ceil(-0.5) = -0, modf(-0.5) = -0.5 and -0 in iptr).
template <typename Round>
void rounding_reference(double x, Round to_type, double largest_below_one, double* r) {
  // fract
  if (std::isnan(x)) {
    r[0] = r[1] = x;
  } else if (std::isinf(x)) {
    r[0] = std::copysign(0.0, x);
    r[1] = x;
  } else {
    double fl = std::floor(x);
    r[0] = x == 0 ? x : std::fmin(to_type(x - fl), largest_below_one);
    r[1] = fl;
  }
  double integral;
  r[2] = std::modf(x, &integral);
  r[3] = integral;
  r[4] = std::trunc(x);
  r[5] = std::round(x);
  r[6] = std::ceil(x);
  r[7] = std::floor(x);
  r[8] = std::nearbyint(x);
}

std::string rounding_kernels(const char* type, std::initializer_list<int> widths) {
  std::string s;
  for (int w : widths) {
    std::string t = type + (w == 1 ? std::string() : std::to_string(w));
    std::string name = std::string("rounding_") + t;
    std::string load = w == 1 ? "convert_" + t + "(in[i])"
                              : "convert_" + t + "(vload" + std::to_string(w) + "(i, in))";
    auto store = [&](const std::string& v, int k) {
      std::string f = w == 1 ? "float" : "float" + std::to_string(w);
      std::string value = "convert_" + f + "(" + v + ")";
      return w == 1 ? "out[i + " + std::to_string(k) + " * m] = " + value + ";\n"
                    : "vstore" + std::to_string(w) + "(" + value + ", i, out + " +
                          std::to_string(k) + " * m);\n";
    };
    s += "__kernel void " + name + "(__global const float* in, __global float* out, int m) {\n"
         "  size_t i = get_global_id(0);\n  " + t + " x = " + load + ", ip, mi;\n"
         "  " + t + " f = fract(x, &ip), md = modf(x, &mi);\n" +
         store("f", 0) + store("ip", 1) + store("md", 2) + store("mi", 3) + store("trunc(x)", 4) +
         store("round(x)", 5) + store("ceil(x)", 6) + store("floor(x)", 7) + store("rint(x)", 8) +
         "}\n";
  }
  return s;
}

TEST_P(BuiltinEdges, RoundingFamilyKeepsSignedZerosInfinitiesAndNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> in = {0.0f,   -0.0f, inf,   -inf,   std::nanf(""), -0.5f, -0.25f, -1e-30f,
                           0.5f,   2.5f,  -2.5f, -3.75f, -7.0f,         1.0f,  -1.0f,  -0.999f,
                           -1e-3f, 1e10f, -0.75f, 3.5f,  -6.5f,         0.25f, -0.0625f, 12.5f};
  std::uniform_real_distribution<float> dist(-4, 4);
  while (in.size() < 96) in.push_back(in.size() % 2 ? dist(rng_) : -std::fabs(dist(rng_)) / 4);
  const size_t m = in.size();
  struct Type {
    const char* name;
    std::initializer_list<int> widths;
    const char* extension;
    double largest_below_one;
    double (*to_type)(double);
  };
  const Type types[] = {
      {"float", {1, 4, 8, 16}, nullptr, 0x1.fffffep-1, [](double v) { return double(float(v)); }},
      {"double", {1, 2, 8}, "cl_khr_fp64", 0x1.fffffffffffffp-1, [](double v) { return v; }},
      {"half", {1, 4, 16}, "cl_khr_fp16", 0x1.ffcp-1,
       [](double v) { return double(float(_Float16(float(v)))); }},
  };
  Mem din = buffer(m * 4, in.data());
  for (const Type& type : types) {
    SCOPED_TRACE(type.name);
    if (type.extension && !has_extension(type.extension)) continue;
    std::string source = type.extension ? std::string("#pragma OPENCL EXTENSION ") +
                                              type.extension + " : enable\n"
                                        : "";
    Program p = build(source + rounding_kernels(type.name, type.widths));
    for (int w : type.widths) {
      std::string name = std::string("rounding_") + type.name + (w == 1 ? "" : std::to_string(w));
      SCOPED_TRACE(name);
      Kernel k = kernel(p, name.c_str());
      Mem out = poisoned(9 * m * 4);
      set_mem_arg(k, 0, din); set_mem_arg(k, 1, out);
      set_arg(k, 2, int(m));
      size_t global = m / size_t(w);
      run(k, 1, &global, nullptr);
      auto got = read<float>(out, 9 * m);
      const char* what[] = {"fract", "fract iptr", "modf", "modf iptr", "trunc",
                            "round", "ceil",       "floor", "rint"};
      for (size_t i = 0; i < m; ++i) {
        double x = type.to_type(in[i]);
        double r[9];
        rounding_reference(x, type.to_type, type.largest_below_one, r);
        for (int f = 0; f < 9; ++f) {
          float want = float(r[f]), have = got[f * m + i];
          bool same = std::isnan(want) ? std::isnan(have)
                                       : std::memcmp(&want, &have, 4) == 0;
          ASSERT_TRUE(same) << what[f] << "(" << x << ") = " << have << ", want " << want
                            << " (input " << i << ")";
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Options, BuiltinEdges,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
