// Local memory written byte by byte by neighbouring work-items at once, then read as wider
// values (and the other way round), in kernels that see local memory as bytes (no atomic
// there: the byte arena) and in one that keeps words (a local atomic), sharing a helper;
// every result against the CPU.
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

const char* kSource = R"(
// Shared by both kinds of kernel: a byte store and a word load through generic pointers.
uint mix(uchar* bytes, uint i, uchar v) {
  bytes[i] = v;
  return ((uint*)bytes)[i / 4];
}

__kernel void bytes(__global const uchar* in, __global uint* words, __global ushort* shorts,
                    __global float4* vectors, __global uchar* read_back) {
  __local uchar t[256 + 4];
  __local ushort h[256];
  __local float4 f[64];
  size_t i = get_local_id(0), g = get_global_id(0);
  t[i] = in[g];                       // neighbouring bytes, different work-items
  if (i < 4) t[256 + i] = (uchar)(0xF0 + i);
  h[i] = (ushort)(in[g] * 257u + i);
  if (i < 64) f[i] = (float4)((float)g, 0.5f, -(float)i, 1e30f);
  barrier(CLK_LOCAL_MEM_FENCE);
  __local uint* as_words = (__local uint*)t;
  words[g] = as_words[i / 4 + 1] ^ ((uint)t[(i + 1) % 260] << 3);
  shorts[g] = h[(i + 3) % 256] + ((__local ushort*)t)[i / 2];
  if (i < 64) vectors[g / 4 * 4 + i % 4] = f[63 - i];
  barrier(CLK_LOCAL_MEM_FENCE);
  // Whole words written, then single bytes of them read; a store through a generic pointer.
  as_words[i / 4] = 0x01020304u * (uint)(i / 4 + 1);
  barrier(CLK_LOCAL_MEM_FENCE);
  uchar b = t[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint w = mix((uchar*)t, (uint)i, (uchar)(b + 1));
  barrier(CLK_LOCAL_MEM_FENCE);
  read_back[g] = t[i] ^ (uchar)(w >> 24);
}

__kernel void words(__global const uchar* in, __global uint* out) {
  __local uchar t[256];
  __local uint count;
  size_t i = get_local_id(0);
  if (i == 0) count = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&count);
  uint w = mix((uchar*)t, (uint)i, in[get_global_id(0)]);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = ((__local uint*)t)[i / 4] + count;
}
)";

class LocalBytes : public KernelTest {};

TEST_P(LocalBytes, NeighbouringBytesAndWiderReadsMatchTheCpu) {
  constexpr size_t n = 1024, local = 256;
  std::vector<uint8_t> in(n);
  for (size_t k = 0; k < n; ++k) in[k] = uint8_t(k * 37 + 11);
  Program p = build(kSource, "-cl-std=CL3.0");  // generic pointers
  Kernel bytes = kernel(p, "bytes"), words = kernel(p, "words");
  Mem input = buffer(n, in.data());
  Mem w = poisoned(n * 4), s = poisoned(n * 2), v = poisoned(n * 16), r = poisoned(n), o = poisoned(n * 4);
  set_mem_arg(bytes, 0, input);
  set_mem_arg(bytes, 1, w);
  set_mem_arg(bytes, 2, s);
  set_mem_arg(bytes, 3, v);
  set_mem_arg(bytes, 4, r);
  set_mem_arg(words, 0, input);
  set_mem_arg(words, 1, o);
  run(bytes, 1, &n, &local);
  run(words, 1, &n, &local);
  std::vector<uint32_t> got_w = read<uint32_t>(w, n), got_o = read<uint32_t>(o, n);
  std::vector<uint16_t> got_s = read<uint16_t>(s, n);
  std::vector<float> got_v = read<float>(v, n * 4);
  std::vector<uint8_t> got_r = read<uint8_t>(r, n);
  for (size_t g0 = 0; g0 < n; g0 += local) {
    // The group's local memory as the CPU sees it.
    uint8_t t[260];
    uint16_t h[256];
    for (size_t i = 0; i < 256; ++i) {
      t[i] = in[g0 + i];
      h[i] = uint16_t(in[g0 + i] * 257u + i);
    }
    for (size_t i = 0; i < 4; ++i) t[256 + i] = uint8_t(0xF0 + i);
    for (size_t i = 0; i < local; ++i) {
      const size_t g = g0 + i;
      uint32_t word, half;
      std::memcpy(&word, t + (i / 4 + 1) * 4, 4);
      ASSERT_EQ(word ^ (uint32_t(t[(i + 1) % 260]) << 3), got_w[g]) << g;
      uint16_t short_of_t;
      std::memcpy(&short_of_t, t + i / 2 * 2, 2);
      half = uint16_t(h[(i + 3) % 256] + short_of_t);
      ASSERT_EQ(half, got_s[g]) << g;
      if (i < 64) {
        const size_t j = 63 - i, at = (g / 4 * 4 + i % 4) * 4;
        const float want[4] = {float(g0 + j), 0.5f, -float(j), 1e30f};
        for (int c = 0; c < 4; ++c) ASSERT_EQ(want[c], got_v[at + c]) << g << " " << c;
      }
      // Bytes of 0x01020304 * (i/4 + 1), little-endian; each work-item adds 1 to its own, and
      // its word's top byte is read after its own store, before its neighbours' may land.
      const uint32_t filled = 0x01020304u * uint32_t(i / 4 + 1);
      const uint8_t own = uint8_t((filled >> (8 * (i % 4))) & 0xff);
      const uint8_t top_before = uint8_t(filled >> 24), top_after = uint8_t(top_before + 1);
      const uint8_t got = got_r[g];
      // The top byte of the word read by mix may be the neighbour's old or new value (both
      // are allowed: no barrier between the neighbours' stores and this load).
      const uint8_t mine = uint8_t(own + 1);
      EXPECT_TRUE(got == uint8_t(mine ^ top_before) || got == uint8_t(mine ^ top_after) ||
                  (i % 4 == 3 && got == uint8_t(mine ^ mine)))
          << g << ": " << int(got);
    }
  }
  // words: each work-item's byte in place, the count of the group's work-items added.
  for (size_t g = 0; g < n; ++g) {
    const size_t w0 = g / 4 * 4;
    uint32_t want = 0;
    for (int b = 0; b < 4; ++b) want |= uint32_t(in[w0 + b]) << (8 * b);
    ASSERT_EQ(want + uint32_t(local), got_o[g]) << g;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, LocalBytes, ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
