// Local memory as 16-byte quads (the quad arena, wide_arena.cpp): a kernel that moves float4
// and ulong2 values through local memory reads them back as single words, 8-byte halves at
// either end of a quad and 64-bit scalars, writes single words and halves into quads, and
// shares a helper with a kernel that keeps words (a local atomic); every result against the
// CPU.
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

const char* kSource = R"(
float4 pick(__local const float4* t, uint i) { return t[i]; }

__kernel void quads(__global const float4* in, __global float* scalars, __global float2* halves,
                    __global ulong* longs, __global float4* picked, __global float4* after) {
  __local float4 t[64];
  __local ulong2 u[64];
  uint i = get_local_id(0), g = get_global_id(0);
  t[i] = in[g];
  u[i] = (ulong2)((ulong)g * 0x100000001ul, ~(ulong)g);
  barrier(CLK_LOCAL_MEM_FENCE);
  __local const float* s = (__local const float*)t;
  __local const float2* h = (__local const float2*)t;
  __local const ulong* l = (__local const ulong*)u;
  scalars[g] = s[(i * 5 + 3) % 256];
  halves[g] = h[(i * 3 + 1) % 128];
  longs[g] = l[(i * 7 + 1) % 128];
  float4 v = pick(t, 63 - i);
  picked[g] = (float4)(v.x * v.y, v.z, v.w, v.x);
  barrier(CLK_LOCAL_MEM_FENCE);
  ((__local float*)t)[i * 4 + 1] = (float)g;                     // one word of each quad
  ((__local float2*)t)[i * 2 + 1] = (float2)(-1.0f, 0.25f * i);  // the high half of each
  barrier(CLK_LOCAL_MEM_FENCE);
  after[g] = t[(i + 1) % 64];
}

__kernel void words(__global const float4* in, __global float4* picked) {
  __local float4 t[64];
  __local uint n;
  uint i = get_local_id(0);
  if (i == 0) n = 0;
  t[i] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&n);
  barrier(CLK_LOCAL_MEM_FENCE);
  picked[get_global_id(0)] = pick(t, 63 - i) + (float)n;
}
)";

class LocalQuads : public KernelTest {};

TEST_P(LocalQuads, WordsHalvesAndQuadsMatchTheCpu) {
  constexpr size_t n = 256, local = 64;
  std::vector<float> in(n * 4);
  for (size_t k = 0; k < in.size(); ++k) in[k] = float(k) * 0.5f - 100.0f;
  Program p = build(kSource);
  Kernel quads = kernel(p, "quads"), words = kernel(p, "words");
  Mem input = buffer(in.size() * 4, in.data());
  Mem scalars = poisoned(n * 4), halves = poisoned(n * 8), longs = poisoned(n * 8);
  Mem picked = poisoned(n * 16), after = poisoned(n * 16), picked_words = poisoned(n * 16);
  set_mem_arg(quads, 0, input);
  set_mem_arg(quads, 1, scalars);
  set_mem_arg(quads, 2, halves);
  set_mem_arg(quads, 3, longs);
  set_mem_arg(quads, 4, picked);
  set_mem_arg(quads, 5, after);
  set_mem_arg(words, 0, input);
  set_mem_arg(words, 1, picked_words);
  run(quads, 1, &n, &local);
  run(words, 1, &n, &local);
  std::vector<float> got_s = read<float>(scalars, n), got_h = read<float>(halves, n * 2);
  std::vector<uint64_t> got_l = read<uint64_t>(longs, n);
  std::vector<float> got_p = read<float>(picked, n * 4), got_a = read<float>(after, n * 4);
  std::vector<float> got_w = read<float>(picked_words, n * 4);
  for (size_t g0 = 0; g0 < n; g0 += local) {
    const float* t = &in[g0 * 4];  // the group's float4 tile as floats
    uint64_t u[128];
    for (size_t i = 0; i < local; ++i) u[2 * i] = (g0 + i) * 0x100000001ull, u[2 * i + 1] = ~uint64_t(g0 + i);
    for (size_t i = 0; i < local; ++i) {
      const size_t g = g0 + i;
      ASSERT_EQ(t[(i * 5 + 3) % 256], got_s[g]) << g;
      const size_t half = (i * 3 + 1) % 128;
      ASSERT_EQ(t[2 * half], got_h[2 * g]) << g;
      ASSERT_EQ(t[2 * half + 1], got_h[2 * g + 1]) << g;
      ASSERT_EQ(u[(i * 7 + 1) % 128], got_l[g]) << g;
      const float* v = &t[(63 - i) * 4];
      const float want_p[4] = {v[0] * v[1], v[2], v[3], v[0]};
      for (int c = 0; c < 4; ++c) {
        ASSERT_EQ(want_p[c], got_p[g * 4 + c]) << g << " " << c;
        ASSERT_EQ(v[c] + float(local), got_w[g * 4 + c]) << g << " " << c;
      }
      const size_t j = (i + 1) % 64;
      const float want_a[4] = {t[j * 4], float(g0 + j), -1.0f, 0.25f * float(j)};
      for (int c = 0; c < 4; ++c) ASSERT_EQ(want_a[c], got_a[g * 4 + c]) << g << " " << c;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Options, LocalQuads, ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
