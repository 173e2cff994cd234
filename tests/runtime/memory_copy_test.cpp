// Memory copies (OpCopyMemory / OpCopyMemorySized): struct assignment of structs larger than
// the unrolled limit between every pair of address spaces, byte-aligned structs, and
// __builtin_memcpy of a length known only at run time, against the CPU.
#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class MemoryCopy : public KernelTest {};

// 6008 bytes, 4-byte aligned; 4099 bytes, 1-byte aligned.
const char* kTypes = R"(
  typedef struct { int a[1500]; float f; char tail[3]; } Big;
  typedef struct { char c[4099]; } Bytes;
)";

struct Big {
  int a[1500];
  float f;
  char tail[3];
};
static_assert(sizeof(Big) == 6008, "layout as OpenCL C's");

std::vector<Big> random_bigs(std::mt19937& rng, size_t n) {
  std::vector<Big> v(n);
  for (Big& b : v) {
    for (int& x : b.a) x = int(rng());
    b.f = float(rng() % 1000) / 8.0f;
    for (char& c : b.tail) c = char(rng());
  }
  return v;
}

bool same(const Big& x, const Big& y) { return std::memcmp(&x, &y, offsetof(Big, tail) + 3) == 0; }

TEST_P(MemoryCopy, LargeStructsBetweenAddressSpaces) {
  const size_t n = 4;
  Program p = build(std::string(kTypes) + R"(
    __constant Big table = {{1, 2, 3, [1499] = 77}, 2.5f, {4, 5, 6}};
    __attribute__((noinline)) void through_generic(Big* d, const Big* s) { *d = *s; }
    __kernel void global_to_global(__global Big* out, __global const Big* in) {
      size_t i = get_global_id(0);
      out[i] = in[i];
    }
    __kernel void via_private(__global Big* out, __global const Big* in) {
      size_t i = get_global_id(0);
      Big b = in[i];            // global -> private
      b.a[i * 7] += 1;          // a dynamic index keeps b in memory
      out[i] = b;               // private -> global
    }
    __kernel void via_local(__global Big* out, __global const Big* in) {
      __local Big tmp;
      size_t g = get_group_id(0);
      if (get_local_id(0) == 0) tmp = in[g];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) == 1) out[g] = tmp;
    }
    __kernel void from_constant(__global Big* out) { out[get_global_id(0)] = table; }
    __kernel void via_generic(__global Big* out, __global const Big* in) {
      __local Big tmp;
      size_t i = get_global_id(0);
      Big b;
      through_generic(&b, &in[i]);               // global -> private
      if (i == 0) through_generic(&tmp, &b);     // private -> local
      barrier(CLK_LOCAL_MEM_FENCE);
      if (i == 0) through_generic(&out[i], &tmp);  // local -> global
      else through_generic(&out[i], &b);           // private -> global
    })", "-cl-std=CL3.0");
  const std::vector<Big> in = random_bigs(rng_, n);
  Mem din = buffer(n * sizeof(Big), in.data());
  auto launch = [&](const char* name, size_t global, size_t local) {
    Kernel k = kernel(p, name);
    Mem out = poisoned(n * sizeof(Big));
    set_mem_arg(k, 0, out);
    if (std::string(name) != "from_constant") set_mem_arg(k, 1, din);
    run(k, 1, &global, &local);
    return read<Big>(out, n);
  };
  auto got = launch("global_to_global", n, 1);
  for (size_t i = 0; i < n; ++i) EXPECT_TRUE(same(got[i], in[i])) << i;
  got = launch("via_private", n, 1);
  for (size_t i = 0; i < n; ++i) {
    Big want = in[i];
    want.a[i * 7] += 1;
    EXPECT_TRUE(same(got[i], want)) << i;
  }
  got = launch("via_local", n * 2, 2);
  for (size_t i = 0; i < n; ++i) EXPECT_TRUE(same(got[i], in[i])) << i;
  got = launch("from_constant", n, 1);
  Big table{};
  table.a[0] = 1, table.a[1] = 2, table.a[2] = 3, table.a[1499] = 77;
  table.f = 2.5f;
  table.tail[0] = 4, table.tail[1] = 5, table.tail[2] = 6;
  for (size_t i = 0; i < n; ++i) EXPECT_TRUE(same(got[i], table)) << i;
  got = launch("via_generic", n, n);
  for (size_t i = 0; i < n; ++i) EXPECT_TRUE(same(got[i], in[i])) << i;
}

TEST_P(MemoryCopy, ByteAlignedStructs) {
  const size_t n = 3, size = 4099;
  Program p = build(std::string(kTypes) + R"(
    __kernel void k(__global Bytes* out, __global const Bytes* in) {
      size_t i = get_global_id(0);
      Bytes b = in[i];
      b.c[i * 1000 + 1] ^= 0x55;
      __local Bytes l;
      if (get_local_id(0) == 0) l = b;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) == 0) out[i] = l;
    })");
  std::vector<uint8_t> in(n * size);
  for (auto& c : in) c = uint8_t(rng_());
  Mem din = buffer(in.size(), in.data()), dout = poisoned(in.size());
  Kernel k = kernel(p, "k");
  set_mem_arg(k, 0, dout);
  set_mem_arg(k, 1, din);
  size_t one = 1;
  for (size_t i = 0; i < n; ++i) {
    // One work-group per struct, so the single __local struct is not shared.
    size_t offset = i;
    run(k, 1, &one, &one, &offset);
  }
  auto got = read<uint8_t>(dout, in.size());
  std::vector<uint8_t> want = in;
  for (size_t i = 0; i < n; ++i) want[i * size + i * 1000 + 1] ^= 0x55;
  EXPECT_EQ(got, want);
}

TEST_P(MemoryCopy, RunTimeLength) {
  Program p = build(R"(
    __kernel void global_copy(__global uchar* out, __global const uchar* in, uint from, uint n) {
      __builtin_memcpy(out + from, in + from, n);
    }
    __kernel void word_copy(__global uint* out, __global const uint* in, uint n) {
      __builtin_memcpy(out, in, n * 4);
    }
    __kernel void private_copy(__global uchar* out, __global const uchar* in, uint from, uint n) {
      uchar buf[600];
      for (int i = 0; i < 600; ++i) buf[i] = (uchar)i;
      __builtin_memcpy(buf + from, in + from, n);      // global -> private
      __builtin_memcpy(out, buf, 600);                 // private -> global, constant size
    }
    __kernel void local_copy(__global uchar* out, __global const uchar* in, uint from, uint n) {
      __local uchar buf[700];
      for (int i = 0; i < 700; ++i) buf[i] = (uchar)(i * 3);
      __builtin_memcpy(buf + from, in + from, n);      // global -> local
      __builtin_memcpy(out, buf, n + from + 5);        // local -> global
    })", "-cl-std=CL3.0");
  const size_t size = 9000;
  std::vector<uint8_t> in(size);
  for (auto& c : in) c = uint8_t(rng_());
  Mem din = buffer(size, in.data());
  size_t one = 1;
  // Lengths of 0, 1, 3, a word, and long ones, from even and odd offsets.
  for (auto [from, n] : std::vector<std::pair<cl_uint, cl_uint>>{
           {0, 0}, {0, 1}, {5, 3}, {4, 4}, {0, 4096}, {3, 5001}, {1, 8999}}) {
    Kernel k = kernel(p, "global_copy");
    Mem out = poisoned(size);
    set_mem_arg(k, 0, out);
    set_mem_arg(k, 1, din);
    set_arg(k, 2, from);
    set_arg(k, 3, n);
    run(k, 1, &one, &one);
    std::vector<uint8_t> want(size, 0xAB);
    std::copy(in.begin() + from, in.begin() + from + n, want.begin() + from);
    EXPECT_EQ(read<uint8_t>(out, size), want) << from << " " << n;
  }
  for (cl_uint n : {0u, 1u, 7u, 2250u}) {
    Kernel k = kernel(p, "word_copy");
    Mem out = poisoned(size);
    set_mem_arg(k, 0, out);
    set_mem_arg(k, 1, din);
    set_arg(k, 2, n);
    run(k, 1, &one, &one);
    std::vector<uint8_t> want(size, 0xAB);
    std::copy(in.begin(), in.begin() + n * 4, want.begin());
    EXPECT_EQ(read<uint8_t>(out, size), want) << n;
  }
  for (auto [from, n] : std::vector<std::pair<cl_uint, cl_uint>>{{0, 0}, {1, 2}, {4, 400}, {7, 593}}) {
    Kernel k = kernel(p, "private_copy");
    Mem out = poisoned(600);
    set_mem_arg(k, 0, out);
    set_mem_arg(k, 1, din);
    set_arg(k, 2, from);
    set_arg(k, 3, n);
    run(k, 1, &one, &one);
    std::vector<uint8_t> want(600);
    for (int i = 0; i < 600; ++i) want[i] = uint8_t(i);
    std::copy(in.begin() + from, in.begin() + from + n, want.begin() + from);
    EXPECT_EQ(read<uint8_t>(out, 600), want) << from << " " << n;
  }
  for (auto [from, n] : std::vector<std::pair<cl_uint, cl_uint>>{{0, 0}, {3, 1}, {8, 512}, {2, 690}}) {
    Kernel k = kernel(p, "local_copy");
    Mem out = poisoned(700);
    set_mem_arg(k, 0, out);
    set_mem_arg(k, 1, din);
    set_arg(k, 2, from);
    set_arg(k, 3, n);
    run(k, 1, &one, &one);
    std::vector<uint8_t> want(700, 0xAB);
    for (cl_uint i = 0; i < n + from + 5; ++i) want[i] = uint8_t(i * 3);
    std::copy(in.begin() + from, in.begin() + from + n, want.begin() + from);
    EXPECT_EQ(read<uint8_t>(out, 700), want) << from << " " << n;
  }
}

// Host reads and writes of tens of MiB at unaligned offsets: where the host cannot read the
// buffer's memory fast (a discrete GPU; the uncached. run) they go through staging buffers a
// chunk at a time, and the chunks' seams must not show. The kernel fills and copies; the
// expected bytes are computed here.
TEST_P(MemoryCopy, LargeHostTransfersAtOffsets) {
  Program p = build(R"(
    __kernel void fill(__global uint* out) {
      uint i = get_global_id(0);
      out[i] = i * 2654435761u ^ 0x5bd1e995u;
    }
    __kernel void copy(__global uint* out, __global const uint* in) {
      out[get_global_id(0)] = in[get_global_id(0)];
    })");
  const size_t words = (size_t(21) << 20) / 4 + 5, bytes = words * 4;
  std::vector<uint32_t> pattern(words);
  for (size_t i = 0; i < words; ++i) pattern[i] = uint32_t(i) * 2654435761u ^ 0x5bd1e995u;
  Mem a = poisoned(bytes), b = poisoned(bytes);
  Kernel fill = kernel(p, "fill");
  set_mem_arg(fill, 0, a);
  run(fill, 1, &words, nullptr);
  // Reads: the whole buffer, and an odd span from an odd offset across the chunk seams.
  EXPECT_TRUE(read<uint32_t>(a, words) == pattern);
  const size_t at = 8 * 1048576 - 3, n = 9 * 1048576 + 7;
  std::vector<uint8_t> part(n);
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, a.get(), CL_TRUE, at, n, part.data(), 0, nullptr, nullptr));
  EXPECT_EQ(0, std::memcmp(part.data(), reinterpret_cast<const uint8_t*>(pattern.data()) + at, n));
  // Writes: random bytes over an odd span, non-blocking, then copied by a kernel and read.
  std::vector<uint8_t> data(n);
  for (auto& c : data) c = uint8_t(rng_());
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queue_, a.get(), CL_FALSE, at, n, data.data(), 0, nullptr, nullptr));
  Kernel copy = kernel(p, "copy");
  set_mem_arg(copy, 0, b);
  set_mem_arg(copy, 1, a);
  run(copy, 1, &words, nullptr);
  std::vector<uint8_t> want(reinterpret_cast<const uint8_t*>(pattern.data()),
                            reinterpret_cast<const uint8_t*>(pattern.data()) + bytes);
  std::copy(data.begin(), data.end(), want.begin() + at);
  EXPECT_TRUE(read<uint8_t>(b, bytes) == want);
}

// clEnqueueFillBuffer with patterns Vulkan's fill cannot write (wider than 4 bytes, or at
// places not a multiple of 4), over ranges longer than one 64 KiB pattern block, against the
// bytes the CPU writes; the bytes around the range stay as they were.
TEST_P(MemoryCopy, FillsOfEveryPatternSizeAtOffsets) {
  const size_t total = 300 * 1024;
  for (size_t pattern_size : {1, 2, 8, 16, 128}) {
    std::vector<uint8_t> pattern(pattern_size);
    for (size_t i = 0; i < pattern_size; ++i) pattern[i] = uint8_t(17 * i + pattern_size);
    const size_t offset = pattern_size * 3, size = (total / 2 / pattern_size) * pattern_size + pattern_size * 5;
    std::vector<uint8_t> want(total, 0xAB);
    for (size_t i = 0; i < size; ++i) want[offset + i] = pattern[i % pattern_size];
    Mem b = poisoned(total);
    ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(queue_, b, pattern.data(), pattern_size, offset, size, 0, nullptr,
                                              nullptr));
    std::vector<uint8_t> got = read<uint8_t>(b, total);
    for (size_t i = 0; i < total; ++i) ASSERT_EQ(want[i], got[i]) << "pattern " << pattern_size << " byte " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, MemoryCopy,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
