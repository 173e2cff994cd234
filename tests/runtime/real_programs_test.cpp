// Shapes of kernels that real OpenCL clients (CLBlast, PyOpenCL, clFFT) use and that the
// spec-shaped tests did not: each test here is a bug one of them met.
#include <cmath>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class RealPrograms : public KernelTest {};

// C99 inline definitions (CLBlast defines every helper `inline` on NVIDIA): where clang does
// not inline a call (-cl-opt-disable, or a helper too large), the program still builds and
// the call uses the inline definition. A helper declared `extern inline` is an external
// definition (C99 6.7.4), and one also declared without `inline` too.
TEST_P(RealPrograms, C99InlineFunctionsThatAreNotInlined) {
  Program p = build(R"(
    inline float mix3(float a, float b, float c) {
      float s = 0.0f;
      for (int k = 0; k < 3; ++k) s = s * 1.5f + (k == 0 ? a : k == 1 ? b : c);
      return s;
    }
    // Large enough that the optimiser keeps it a call from both kernels.
    #define STEP r = r * 0.75f + sin(r + 1.0f) * 0.125f + cos(r * 0.5f) * 0.25f;
    inline float big(float x) {
      float r = x;
      #pragma nounroll
      for (int k = 0; k < 40; ++k) {
        r = mix3(r, r * 0.5f, x) * 0.25f;
        if (r > 1000.0f) r -= 1000.0f;
        r = r + sin(r) * 0.125f + cos(r * 3.0f) * 0.0625f + exp(-r * r);
        STEP STEP STEP STEP STEP STEP STEP STEP
      }
      return r;
    }
    extern inline int twice(int x) { return 2 * x; }
    int thrice(int x);
    inline int thrice(int x) { return 3 * x; }
    __kernel void k1(__global float* out, __global int* iout) {
      int i = get_global_id(0);
      out[i] = big((float)i);
      iout[i] = twice(i) + thrice(i);
    }
    __kernel void k2(__global float* out) {
      int i = get_global_id(0);
      out[i] = big((float)(i + 1)) + mix3(1.0f, 2.0f, (float)i);
    })");
  ASSERT_NE(nullptr, p.get());
  auto mix3 = [](float a, float b, float c) {
    float s = 0.0f;
    for (int k = 0; k < 3; ++k) s = s * 1.5f + (k == 0 ? a : k == 1 ? b : c);
    return s;
  };
  auto big = [&](float x) {
    float r = x;
    for (int k = 0; k < 40; ++k) {
      r = mix3(r, r * 0.5f, x) * 0.25f;
      if (r > 1000.0f) r -= 1000.0f;
      r = r + std::sin(r) * 0.125f + std::cos(r * 3.0f) * 0.0625f + std::exp(-r * r);
      for (int s = 0; s < 8; ++s) r = r * 0.75f + std::sin(r + 1.0f) * 0.125f + std::cos(r * 0.5f) * 0.25f;
    }
    return r;
  };
  const size_t n = 64;
  Kernel k1 = kernel(p, "k1");
  Kernel k2 = kernel(p, "k2");
  Mem out1 = poisoned(n * 4), iout = poisoned(n * 4), out2 = poisoned(n * 4);
  set_mem_arg(k1, 0, out1);
  set_mem_arg(k1, 1, iout);
  set_mem_arg(k2, 0, out2);
  run(k1, 1, &n, nullptr);
  run(k2, 1, &n, nullptr);
  auto v1 = read<float>(out1, n);
  auto vi = read<int>(iout, n);
  auto v2 = read<float>(out2, n);
  for (size_t i = 0; i < n; ++i) {
    // sin/cos/exp are within a few ulp of the host's; 40 steps of a contracting map keep the
    // difference small.
    EXPECT_NEAR(v1[i], big(float(i)), 1e-3f * (1.0f + std::fabs(big(float(i))))) << i;
    EXPECT_EQ(vi[i], 5 * int(i)) << i;
    float want = big(float(i + 1)) + mix3(1.0f, 2.0f, float(i));
    EXPECT_NEAR(v2[i], want, 1e-3f * (1.0f + std::fabs(want))) << i;
  }
}

// A ladder of short-circuit joins (CLBlast's TRSM inversion: a 16-times unrolled
// `if (part == 2 || col++ < n)`) has 2^16 paths; the structurizer copied joins along each
// and the build never finished. It must build quickly and compute what the CPU does.
TEST_P(RealPrograms, UnrolledShortCircuitLadder) {
  Program p = build(R"(
    __kernel void ladder(const int part, const int n, __global const float* a,
                         __global float* out) {
      int i = get_global_id(0);
      int col = i % 24;
      float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      #pragma unroll
      for (int s = 0; s < 16; ++s) {
        if (part == 2 || col++ < n) {
          #pragma unroll
          for (int j = 0; j < 4; ++j) acc[j] += a[s * 4 + j] * (float)(i + s);
        }
      }
      #pragma unroll
      for (int j = 0; j < 4; ++j) out[i * 5 + j] = part == 2 ? -acc[j] : acc[j];
      out[i * 5 + 4] = (float)col;
    })");
  ASSERT_NE(nullptr, p.get());
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(64);
  for (float& x : a) x = dist(rng_);
  const size_t count = 64;
  Kernel k = kernel(p, "ladder");
  Mem in = buffer(a.size() * 4, a.data(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR);
  for (int part : {1, 2}) {
    for (int n : {0, 7, 20, 40}) {
      Mem out = poisoned(count * 5 * 4);
      set_arg(k, 0, part);
      set_arg(k, 1, n);
      set_mem_arg(k, 2, in);
      set_mem_arg(k, 3, out);
      run(k, 1, &count, nullptr);
      auto v = read<float>(out, count * 5);
      for (size_t i = 0; i < count; ++i) {
        int col = int(i % 24);
        float acc[4] = {0, 0, 0, 0};
        for (int s = 0; s < 16; ++s)
          if (part == 2 || col++ < n)
            for (int j = 0; j < 4; ++j) acc[j] += a[s * 4 + j] * float(int(i) + s);
        for (int j = 0; j < 4; ++j)
          ASSERT_NEAR(v[i * 5 + j], part == 2 ? -acc[j] : acc[j], 1e-4f)
              << "part " << part << " n " << n << " item " << i << " " << j;
        ASSERT_EQ(v[i * 5 + 4], float(col)) << "part " << part << " n " << n << " item " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Options, RealPrograms,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
