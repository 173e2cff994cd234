// Built-ins on 8- and 16-component vectors (split per component in link-builtins), vector
// select's most-significant-bit rule, and shuffle/shuffle2 at every width, against the CPU.
#include <cmath>
#include <cstdint>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class VectorBuiltins : public KernelTest {};

TEST_P(VectorBuiltins, CommonAndIntegerFunctionsOnWideVectors) {
  const size_t n = 64 * 16;
  std::uniform_real_distribution<float> dist(-4, 4);
  std::uniform_int_distribution<int> idist(-1000, 1000);
  std::vector<float> x(n);
  std::vector<int> y(n);
  for (auto& v : x) v = dist(rng_);
  for (auto& v : y) v = idist(rng_);
  Program p = build(R"(
    __kernel void k(__global const float* x, __global const int* y, __global float* f,
                    __global int* r) {
      size_t i = get_global_id(0);
      float16 v = vload16(i, x);
      float8 h0 = vload8(2 * i, x), h1 = vload8(2 * i + 1, x);
      int16 w = vload16(i, y);
      vstore16(clamp(v, -1.0f, 2.0f) + sign(v) + copysign(1.5f, v) + select(v, -v, w), i, f);
      vstore8(mix(h0, h0 * 2.0f, 0.25f) + step(0.5f, h0) + fmax(h0, 0.0f), 2 * i, f + 16 * 64);
      vstore8(mix(h1, h1 * 2.0f, 0.25f) + step(0.5f, h1) + fmax(h1, 0.0f), 2 * i + 1, f + 16 * 64);
      vstore16(clamp(w, -10, 10) + as_int16(abs_diff(w, 3)) + rotate(w, 5) + popcount(w) + hadd(w, 7) +
               mad_sat(w, w, w) + (int16)clz(w), i, r);
    })");
  Kernel k = kernel(p, "k");
  Mem dx = buffer(n * 4, x.data()), dy = buffer(n * 4, y.data());
  Mem df = poisoned(n * 4 * 2), dr = poisoned(n * 4);
  set_mem_arg(k, 0, dx); set_mem_arg(k, 1, dy); set_mem_arg(k, 2, df); set_mem_arg(k, 3, dr);
  size_t g = n / 16;
  run(k, 1, &g, nullptr);
  auto f = read<float>(df, n * 2);
  auto r = read<int>(dr, n);
  for (size_t i = 0; i < n; ++i) {
    float v = x[i];
    float sgn = v > 0 ? 1.0f : v < 0 ? -1.0f : v;
    float sel = y[i] < 0 ? -v : v;  // select takes b where c's top bit is set
    float want = std::fmin(std::fmax(v, -1.0f), 2.0f) + sgn + std::copysign(1.5f, v) + sel;
    ASSERT_FLOAT_EQ(f[i], want) << "at " << i;
  }
  for (size_t j = 0; j < n; ++j) {
    float h = x[j];
    volatile float m = h * 2.0f - h;
    float mix = h + m * 0.25f;
    float want = mix + (h < 0.5f ? 0.0f : 1.0f) + std::fmax(h, 0.0f);
    ASSERT_NEAR(f[64 * 16 + j], want, 1e-5f) << "at " << j;
  }
  for (size_t i = 0; i < n; ++i) {
    int64_t w = y[i];
    uint32_t u = uint32_t(y[i]);
    int64_t mad = w * w + w;
    mad = std::min<int64_t>(std::max<int64_t>(mad, INT32_MIN), INT32_MAX);
    int64_t want = std::min<int64_t>(std::max<int64_t>(w, -10), 10) + std::llabs(w - 3) +
                   int32_t((u << 5) | (u >> 27)) + __builtin_popcount(u) + ((w + 7) >> 1) + mad +
                   (u ? __builtin_clz(u) : 32);
    ASSERT_EQ(r[i], int32_t(want)) << "at " << i << " w=" << w;
  }
}

// Wide vectors through pointers of their own type (aligned to their size, moved as 4-component
// chunks) and through vloadn/vstoren at element alignment, for 32- and 64-bit components,
// gathered and scattered at shuffled indices so no access is to the neighbour's slot.
TEST_P(VectorBuiltins, WideVectorsLoadAndStoreThroughTheirOwnPointers) {
  const size_t groups = 64;
  std::vector<float> f(groups * 16);
  std::vector<int64_t> l(groups * 8);
  for (size_t i = 0; i < f.size(); ++i) f[i] = float(i) * 0.5f - 7.0f;
  for (size_t i = 0; i < l.size(); ++i) l[i] = int64_t(i) * 0x100000001ll - 5;
  std::vector<int> perm(groups);
  for (size_t i = 0; i < groups; ++i) perm[i] = int((i * 37 + 11) % groups);
  Program p = build(R"(
    __kernel void k(__global const float16* f, __global const long8* l, __global const int* perm,
                    __global float16* fo, __global long8* lo, __global float* fu) {
      size_t i = get_global_id(0);
      int j = perm[i];
      float16 v = f[j];
      long8 w = l[j];
      fo[i] = v * 2.0f + (float16)(1.0f);
      lo[i] = w + (long8)(3);
      vstore16(v.sf0123456789abcde, i, fu + 1);
    })");
  Kernel k = kernel(p, "k");
  Mem df = buffer(f.size() * 4, f.data()), dl = buffer(l.size() * 8, l.data());
  Mem dp = buffer(groups * 4, perm.data());
  Mem dfo = poisoned(f.size() * 4), dlo = poisoned(l.size() * 8), dfu = poisoned(f.size() * 4 + 4);
  set_mem_arg(k, 0, df); set_mem_arg(k, 1, dl); set_mem_arg(k, 2, dp);
  set_mem_arg(k, 3, dfo); set_mem_arg(k, 4, dlo); set_mem_arg(k, 5, dfu);
  run(k, 1, &groups, nullptr);
  auto fo = read<float>(dfo, f.size());
  auto lo = read<int64_t>(dlo, l.size());
  auto fu = read<float>(dfu, f.size() + 1);
  for (size_t i = 0; i < groups; ++i) {
    size_t j = size_t(perm[i]);
    for (size_t c = 0; c < 16; ++c) {
      ASSERT_EQ(fo[16 * i + c], f[16 * j + c] * 2.0f + 1.0f) << i << "." << c;
      // .sf0123456789abcde: component 15 first, then 0 to 14
      ASSERT_EQ(fu[1 + 16 * i + c], f[16 * j + (c + 15) % 16]) << i << "." << c;
    }
    for (size_t c = 0; c < 8; ++c) ASSERT_EQ(lo[8 * i + c], l[8 * j + c] + 3) << i << "." << c;
  }
}

// popcount on 8- and 16-component vectors of 8-, 16- and 64-bit integers: Vulkan counts
// 32-bit integers only, so each component is widened or split (CTS integer_ops popcount).
TEST_P(VectorBuiltins, PopcountOfNarrowAndWideIntegersOnWideVectors) {
  const size_t n = 16 * 32;
  std::vector<uint64_t> x(n);
  std::uniform_int_distribution<uint64_t> dist;
  for (auto& v : x) v = dist(rng_);
  Program p = build(R"(
    __kernel void k(__global const ulong* x, __global char* c, __global short* s,
                    __global long* l) {
      size_t i = get_global_id(0);
      ulong16 v = vload16(i, x);
      vstore16(popcount(convert_char16(v)), i, c);
      vstore8(popcount(convert_short8(v.lo)), 2 * i, s);
      vstore8(popcount(convert_short8(v.hi)), 2 * i + 1, s);
      vstore8(popcount(as_long8(v.lo)), 2 * i, l);
      vstore8(convert_long8(popcount(v.hi)), 2 * i + 1, l);
    })");
  Kernel k = kernel(p, "k");
  Mem dx = buffer(n * 8, x.data()), dc = poisoned(n), ds = poisoned(n * 2), dl = poisoned(n * 8);
  set_mem_arg(k, 0, dx); set_mem_arg(k, 1, dc); set_mem_arg(k, 2, ds); set_mem_arg(k, 3, dl);
  size_t g = n / 16;
  run(k, 1, &g, nullptr);
  auto c = read<int8_t>(dc, n);
  auto s = read<int16_t>(ds, n);
  auto l = read<int64_t>(dl, n);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(c[i], __builtin_popcount(uint8_t(x[i]))) << "char at " << i;
    ASSERT_EQ(s[i], __builtin_popcount(uint16_t(x[i]))) << "short at " << i;
    ASSERT_EQ(l[i], __builtin_popcountll(x[i])) << "long at " << i;
  }
}

TEST_P(VectorBuiltins, ShuffleAndShuffle2AtEveryWidth) {
  std::vector<int> a(16), b(16);
  for (int i = 0; i < 16; ++i) a[i] = 100 + i, b[i] = 200 + i;
  std::uniform_int_distribution<uint32_t> mdist(0, 1000);
  std::vector<uint32_t> masks(16 * 64);
  for (auto& m : masks) m = mdist(rng_);
  for (int width : {2, 4, 8, 16}) {
    std::string w = std::to_string(width);
    std::string src = "__kernel void k(__global const int* a, __global const int* b, "
                      "__global const uint* m, __global int* r1, __global int* r2) {"
                      " size_t i = get_global_id(0);"
                      " int" + w + " x = vload" + w + "(0, a), y = vload" + w + "(0, b);"
                      " uint" + w + " mask = vload" + w + "(i, m);"
                      " vstore" + w + "(shuffle(x, mask), i, r1);"
                      " vstore" + w + "(shuffle2(x, y, mask), i, r2); }";
    Program p = build(src);
    Kernel k = kernel(p, "k");
    Mem da = buffer(64, a.data()), db = buffer(64, b.data()), dm = buffer(masks.size() * 4, masks.data());
    Mem r1 = poisoned(masks.size() * 4), r2 = poisoned(masks.size() * 4);
    set_mem_arg(k, 0, da); set_mem_arg(k, 1, db); set_mem_arg(k, 2, dm);
    set_mem_arg(k, 3, r1); set_mem_arg(k, 4, r2);
    size_t g = 16;
    run(k, 1, &g, nullptr);
    auto o1 = read<int>(r1, g * width), o2 = read<int>(r2, g * width);
    for (size_t i = 0; i < g * width; ++i) {
      uint32_t m = masks[i];
      ASSERT_EQ(o1[i], a[m % width]) << "shuffle width " << width << " at " << i;
      uint32_t m2 = m % (2 * width);
      ASSERT_EQ(o2[i], m2 < uint32_t(width) ? a[m2] : b[m2 - width]) << "shuffle2 width " << width;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Options, VectorBuiltins, ::testing::Values(std::string(""),
                                                                    std::string("-cl-opt-disable")));

}  // namespace
}  // namespace vkcl::test
