// char and short where the device may lack them: these tests run in ctest twice, once on the
// device as it is and once with VKCL_WITHOUT_FEATURES=int8,int16,storage8,storage16 (see
// tests/CMakeLists.txt), where widen-small-integers carries them in 32-bit integers and
// 32-bit memory words. Each result is checked against the same expression computed on the CPU.
#include <algorithm>
#include <bitset>
#include <cstdint>
#include <string>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class NarrowIntegers : public KernelTest {
 protected:
  bool has_extension(const char* name) {
    size_t size = 0;
    clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, 0, nullptr, &size);
    std::string extensions(size, '\0');
    clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr);
    return extensions.find(name) != std::string::npos;
  }
};

// Every half bit pattern, signalling NaNs with their payloads included, survives a copy, a
// select and a sub-group broadcast unchanged (halves carried in floats must not quiet them).
TEST_P(NarrowIntegers, HalfBitPatternsSurviveMoves) {
  if (!has_extension("cl_khr_fp16")) GTEST_SKIP() << "no cl_khr_fp16";
  Program p = build(R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    __kernel void k(__global const half* in, __global half* copy, __global ushort* bits) {
      size_t i = get_global_id(0);
      half h = in[i];
      copy[i] = i % 2 ? h : in[i ^ 1];
      bits[i] = as_ushort(h);
    })");
  Kernel k = kernel(p, "k");
  const size_t n = 65536;
  std::vector<uint16_t> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = uint16_t(i);
  Mem min = buffer(2 * n, in.data()), copy = poisoned(2 * n), bits = poisoned(2 * n);
  set_mem_arg(k, 0, min);
  set_mem_arg(k, 1, copy);
  set_mem_arg(k, 2, bits);
  run(k, 1, &n, nullptr);
  auto c = read<uint16_t>(copy, n), b = read<uint16_t>(bits, n);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(c[i], in[i % 2 ? i : i ^ 1]) << std::hex << i;
    ASSERT_EQ(b[i], in[i]) << std::hex << i;
  }
}

// Exclusive sub-group scans of max and min give the first work-item the type's own extreme
// (CHAR_MIN, SHRT_MAX, ...), not a 32-bit one cut down.
TEST_P(NarrowIntegers, SubGroupExclusiveScanIdentities) {
  if (!has_extension("cl_khr_subgroup_extended_types") ||
      !has_extension("cl_khr_subgroup_non_uniform_arithmetic"))
    GTEST_SKIP() << "no sub-group scans of char and short";
  Program p = build(R"(
    __kernel void k(__global const char* c, __global const short* s, __global int* o) {
      size_t i = get_global_id(0);
      __global int* r = o + 4 * i;
      r[0] = sub_group_scan_exclusive_max(c[i]);
      r[1] = sub_group_scan_exclusive_min(c[i]);
      r[2] = sub_group_scan_exclusive_max(s[i]);
      r[3] = sub_group_non_uniform_scan_exclusive_min(s[i]);
    })", "-cl-std=CL3.0");
  Kernel k = kernel(p, "k");
  const size_t n = 64, local = 32;
  std::vector<int8_t> c(n);
  std::vector<int16_t> s(n);
  std::uniform_int_distribution<int> dist(-30000, 30000);
  for (size_t i = 0; i < n; ++i) c[i] = int8_t(dist(rng_)), s[i] = int16_t(dist(rng_));
  Mem mc = buffer(n, c.data()), ms = buffer(2 * n, s.data()), mo = poisoned(16 * n);
  set_mem_arg(k, 0, mc);
  set_mem_arg(k, 1, ms);
  set_mem_arg(k, 2, mo);
  run(k, 1, &n, &local);
  auto o = read<int32_t>(mo, 4 * n);
  size_t sub = 0;
  clGetKernelSubGroupInfo(k, device_, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local, &local,
                          sizeof sub, &sub, nullptr);
  ASSERT_GT(sub, 0u);
  for (size_t i = 0; i < n; ++i) {
    size_t first = i / sub * sub;
    int cmax = INT8_MIN, cmin = INT8_MAX, smax = INT16_MIN, smin = INT16_MAX;
    for (size_t j = first; j < i; ++j) {
      cmax = std::max<int>(cmax, c[j]), cmin = std::min<int>(cmin, c[j]);
      smax = std::max<int>(smax, s[j]), smin = std::min<int>(smin, s[j]);
    }
    ASSERT_EQ(o[4 * i], cmax) << i;
    ASSERT_EQ(o[4 * i + 1], cmin) << i;
    ASSERT_EQ(o[4 * i + 2], smax) << i;
    ASSERT_EQ(o[4 * i + 3], smin) << i;
  }
}

// Neighbouring work-items, in different work-groups, write neighbouring bytes and shorts of
// one word at the same time (and 3-byte vectors that straddle words): none may undo another.
TEST_P(NarrowIntegers, NeighbouringStoresFromManyWorkItemsAllLand) {
  Program p = build(R"(
    __kernel void k(__global uchar* b, __global ushort* s, __global char* c3) {
      uint i = get_global_id(0);
      b[i] = (uchar)(i * 7 + 1);
      s[i] = (ushort)(i * 13 + 5);
      vstore3((char3)((char)i, (char)(i >> 8), (char)~i), i, c3);
    })");
  Kernel k = kernel(p, "k");
  const size_t n = 4096, local = 32;
  Mem b = poisoned(n), s = poisoned(2 * n), c3 = poisoned(3 * n);
  set_mem_arg(k, 0, b);
  set_mem_arg(k, 1, s);
  set_mem_arg(k, 2, c3);
  run(k, 1, &n, &local);
  auto bytes = read<uint8_t>(b, n);
  auto shorts = read<uint16_t>(s, n);
  auto triples = read<int8_t>(c3, 3 * n);
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(bytes[i], uint8_t(i * 7 + 1)) << i;
    ASSERT_EQ(shorts[i], uint16_t(i * 13 + 5)) << i;
    ASSERT_EQ(triples[3 * i], int8_t(i)) << i;
    ASSERT_EQ(triples[3 * i + 1], int8_t(i >> 8)) << i;
    ASSERT_EQ(triples[3 * i + 2], int8_t(~i)) << i;
  }
}

// Many work-items store the same bytes to one program-scope array and read it back at once
// (as CTS generic_address_space builtin_functions does): a byte being written again with the
// value it already holds must never read as anything else.
TEST_P(NarrowIntegers, StoringTheSameValueAgainIsInvisible) {
  Program p = build(R"(
    __global char data[64] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    __kernel void k(__global uint* ok) {
      size_t i = get_global_id(0);
      vstore4((char4)(1), 2, data);
      data[5] = 1;
      bool same = true;
      for (int round = 0; round < 16; ++round)  // a long window for another's store to show
        for (int j = 0; j < 16; ++j) same = same && data[j] == (j == 5 || (j >= 8 && j < 12) ? 1 : j);
      ok[i] = same;
    }
    __kernel void reset() { for (int j = 0; j < 16; ++j) data[j] = (char)j; })", "-cl-std=CL3.0");
  Kernel k = kernel(p, "k"), reset = kernel(p, "reset");
  const size_t n = 4096, one = 1;
  Mem ok = poisoned(4 * n);
  set_mem_arg(k, 0, ok);
  for (int round = 0; round < 4; ++round) {
    run(reset, 1, &one, nullptr);
    run(k, 1, &n, nullptr);
    auto r = read<uint32_t>(ok, n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(r[i], 1u) << "round " << round << ", work-item " << i;
  }
}

// A packed struct puts short and int at odd offsets: loads and stores of 1-byte alignment.
TEST_P(NarrowIntegers, PackedStructFieldsAtOddOffsets) {
  struct __attribute__((packed)) P {
    int8_t c;
    int16_t s;
    int32_t i;
    uint8_t u;
  };
  static_assert(sizeof(P) == 8);
  Program p = build(R"(
    typedef struct __attribute__((packed)) { char c; short s; int i; uchar u; } P;
    __kernel void k(__global P* p) {
      size_t i = get_global_id(0);
      P v = p[i];
      v.s = (short)(v.s * 3 + v.c);
      v.i += v.u;
      v.c = (char)-v.c;
      v.u = (uchar)(v.u + 200);
      p[i] = v;
    })");
  Kernel k = kernel(p, "k");
  const size_t n = 257;
  std::vector<P> in(n);
  std::uniform_int_distribution<int> dist(-40000, 40000);
  for (auto& v : in) v = {int8_t(dist(rng_)), int16_t(dist(rng_)), dist(rng_) * 977, uint8_t(dist(rng_))};
  Mem m = buffer(n * sizeof(P), in.data());
  set_mem_arg(k, 0, m);
  run(k, 1, &n, nullptr);
  auto out = read<P>(m, n);
  for (size_t i = 0; i < n; ++i) {
    P want = in[i];
    want.s = int16_t(want.s * 3 + want.c);
    want.i += want.u;
    want.c = int8_t(-want.c);
    want.u = uint8_t(want.u + 200);
    EXPECT_EQ(out[i].c, want.c) << i;
    EXPECT_EQ(out[i].s, want.s) << i;
    EXPECT_EQ(out[i].i, want.i) << i;
    EXPECT_EQ(out[i].u, want.u) << i;
  }
}

// Division and remainder by zero give an undefined value, but only in their own lane: the
// other components of the vector, stored in the same 32-bit word, keep theirs (CTS
// integer_ops quick_short_math once read all ones there).
TEST_P(NarrowIntegers, DivisionByZeroInOneLaneLeavesTheOthersAlone) {
  Program p = build(R"(
    __kernel void k(__global short2* a, __global short2* b, __global short2* q, __global short2* r,
                    __global uchar4* c, __global uchar4* d, __global uchar4* e) {
      size_t i = get_global_id(0);
      q[i] = a[i] / b[i];
      r[i] = a[i] % b[i];
      e[i] = c[i] % d[i];
    })");
  Kernel k = kernel(p, "k");
  const size_t n = 256;
  std::vector<int16_t> a(2 * n), b(2 * n);
  std::vector<uint8_t> c(4 * n), d(4 * n);
  std::uniform_int_distribution<int> dist(-32768, 32767);
  for (size_t i = 0; i < 2 * n; ++i) a[i] = int16_t(dist(rng_)), b[i] = i % 3 == 0 ? 0 : int16_t(dist(rng_) | 1);
  for (size_t i = 0; i < 4 * n; ++i) c[i] = uint8_t(dist(rng_)), d[i] = i % 5 == 0 ? 0 : uint8_t(dist(rng_) | 1);
  Mem ma = buffer(4 * n, a.data()), mb = buffer(4 * n, b.data()), mq = poisoned(4 * n), mr = poisoned(4 * n);
  Mem mc = buffer(4 * n, c.data()), md = buffer(4 * n, d.data()), me = poisoned(4 * n);
  const Mem* args[] = {&ma, &mb, &mq, &mr, &mc, &md, &me};
  for (cl_uint k2 = 0; k2 < 7; ++k2) set_mem_arg(k, k2, *args[k2]);
  run(k, 1, &n, nullptr);
  auto q = read<int16_t>(mq, 2 * n), r = read<int16_t>(mr, 2 * n);
  auto e = read<uint8_t>(me, 4 * n);
  for (size_t i = 0; i < 2 * n; ++i) {
    if (!b[i]) continue;
    ASSERT_EQ(q[i], int16_t(a[i] / b[i])) << i;
    ASSERT_EQ(r[i], int16_t(a[i] % b[i])) << i;
  }
  for (size_t i = 0; i < 4 * n; ++i) {
    if (!d[i]) continue;
    ASSERT_EQ(e[i], uint8_t(c[i] % d[i])) << i;
  }
}

constexpr int kResults = 30;

// What the kernel below computes, in C++ (int promotion and truncation are C's too).
std::vector<int32_t> expected(int8_t a, int8_t b, int16_t c, int16_t d) {
  auto sat = [](int v, int lo, int hi) { return std::clamp(v, lo, hi); };
  auto clz8 = [](uint8_t v) { int n = 0; for (int bit = 7; bit >= 0 && !((v >> bit) & 1); --bit) ++n; return n; };
  uint16_t uc = uint16_t(c);
  int r = d & 15;
  std::vector<int32_t> o(kResults);
  o[0] = int8_t(a * b);
  o[1] = b ? int8_t(a / b) : 0;
  o[2] = b ? int8_t(a % b) : 0;
  o[3] = int8_t(a >> (b & 7));
  o[4] = uint8_t(uint8_t(a) >> (b & 7));
  o[5] = a < b;
  o[6] = uint8_t(a) < uint8_t(b);
  o[7] = uint8_t(a < 0 ? -a : a);
  o[8] = int16_t((int32_t(c) * d) >> 16);
  o[9] = sat(a + b, -128, 127);
  o[10] = sat(c - d, -32768, 32767);
  o[11] = clz8(uint8_t(a));
  o[12] = int16_t(uint16_t((uc << r) | (uc >> ((16 - r) & 15))));
  o[13] = (a + b) >> 1;
  o[14] = c;
  o[15] = uint8_t(a);
  o[16] = int32_t(int64_t(c) >> 32);
  o[17] = int32_t(uint32_t(uint8_t(a)) | uint32_t(uint8_t(b)) << 8 | uint32_t(uint8_t(c)) << 16 |
                  uint32_t(uint8_t(d)) << 24);
  o[18] = int16_t(uint16_t(uint8_t(a) | uint8_t(b) << 8));
  o[19] = int(float(a));
  o[20] = sat(c * 3, -128, 127);
  o[21] = c < 0 ? 0 : c > 255 ? 255 : c;
  o[22] = int8_t(-a);
  o[23] = int16_t(~c);
  o[24] = std::max(a, b);
  o[25] = std::min(uint8_t(a), uint8_t(b));
  o[26] = sat(a * b + a, -128, 127);
  o[27] = int(std::bitset<16>(uc).count());
  o[28] = a == -3 ? 1 : a == 100 ? 2 : a == -128 ? 3 : 0;
  o[29] = int16_t(uint16_t(d) >> (a & 15)) + int32_t(uint16_t(d)) / 7;
  return o;
}

// Arithmetic, comparisons, built-ins, conversions and reinterpretations of char and short
// on random values (and the extremes), against the CPU.
TEST_P(NarrowIntegers, ArithmeticConversionsAndReinterpretation) {
  Program p = build(R"(
    __kernel void k(__global const char* ab, __global const short* cd, __global int* o) {
      size_t i = get_global_id(0);
      char a = ab[2 * i], b = ab[2 * i + 1];
      short c = cd[2 * i], d = cd[2 * i + 1];
      __global int* r = o + 30 * i;
      r[0] = (char)(a * b);
      r[1] = b ? (char)(a / b) : 0;
      r[2] = b ? (char)(a % b) : 0;
      r[3] = (char)(a >> (b & 7));
      r[4] = (uchar)((uchar)a >> (b & 7));
      r[5] = a < b;
      r[6] = (uchar)a < (uchar)b;
      r[7] = abs(a);
      r[8] = mul_hi(c, d);
      r[9] = add_sat(a, b);
      r[10] = sub_sat(c, d);
      r[11] = clz(a);
      r[12] = rotate(c, d);
      r[13] = hadd(a, b);
      r[14] = c;
      r[15] = (uchar)a;
      r[16] = (int)(((long)c) >> 32);
      r[17] = as_int((char4)(a, b, (char)c, (char)d));
      r[18] = as_short((char2)(a, b));
      r[19] = (int)(float)a;
      r[20] = convert_char_sat(c * 3);
      r[21] = convert_uchar_sat((float)c);
      r[22] = (char)-a;
      r[23] = (short)~c;
      r[24] = max(a, b);
      r[25] = min((uchar)a, (uchar)b);
      r[26] = mad_sat(a, b, a);
      r[27] = popcount(c);
      int s = 0;
      switch (a) { case -3: s = 1; break; case 100: s = 2; break; case -128: s = 3; break; }
      r[28] = s;
      r[29] = (short)((ushort)d >> (a & 15)) + (ushort)d / (ushort)7;
    })");
  Kernel k = kernel(p, "k");
  const size_t n = 1024;
  std::vector<int8_t> ab(2 * n);
  std::vector<int16_t> cd(2 * n);
  std::uniform_int_distribution<int> dist(0, 65535);
  for (auto& v : ab) v = int8_t(dist(rng_));
  for (auto& v : cd) v = int16_t(dist(rng_));
  const int8_t edge8[] = {-128, 127, 0, -1, 1, -3, 100};
  const int16_t edge16[] = {-32768, 32767, 0, -1, 255, 256, -256};
  for (size_t e = 0; e < 7; ++e)
    for (size_t f = 0; f < 7; ++f) {
      ab[2 * (7 * e + f)] = edge8[e], ab[2 * (7 * e + f) + 1] = edge8[f];
      cd[2 * (7 * e + f)] = edge16[e], cd[2 * (7 * e + f) + 1] = edge16[f];
    }
  Mem mab = buffer(ab.size(), ab.data()), mcd = buffer(2 * cd.size(), cd.data());
  Mem out = poisoned(4 * kResults * n);
  set_mem_arg(k, 0, mab);
  set_mem_arg(k, 1, mcd);
  set_mem_arg(k, 2, out);
  run(k, 1, &n, nullptr);
  auto got = read<int32_t>(out, kResults * n);
  int failures = 0;
  for (size_t i = 0; i < n && failures < 20; ++i) {
    auto want = expected(ab[2 * i], ab[2 * i + 1], cd[2 * i], cd[2 * i + 1]);
    for (int r = 0; r < kResults; ++r)
      if (got[kResults * i + r] != want[r] && failures++ < 20)
        ADD_FAILURE() << "result " << r << " for a=" << int(ab[2 * i]) << " b=" << int(ab[2 * i + 1])
                      << " c=" << cd[2 * i] << " d=" << cd[2 * i + 1] << ": got " << got[kResults * i + r]
                      << ", want " << want[r];
  }
}

// char <-> short, scalars and vectors, both signednesses: on a device with only one of the
// two widths (ctest's no_8bit and no_16bit runs) one side is carried in 32 bits and the other
// is not, which once gave shaders that did not validate.
TEST_P(NarrowIntegers, ConversionsBetweenCharAndShort) {
  Program p = build(R"(
    __kernel void k(__global const uchar* b, __global const ushort* s, __global short* o,
                    __global uchar* o8) {
      size_t i = get_global_id(0);
      uchar u = b[i];
      ushort w = s[i];
      __global short* r = o + 8 * i;
      r[0] = (ushort)u;
      r[1] = (short)(char)u;
      r[2] = (ushort)(char)u;
      r[3] = (short)u;
      short4 v = convert_short4(vload4(i, (__global const char*)b));
      r[4] = v.x + v.y * 3 + v.z * 5 + v.w * 7;
      r[5] = convert_ushort((uchar)(w >> 4));
      r[6] = (char)((short)w >> 3);
      r[7] = convert_char_sat((short)w);
      __global uchar* q = o8 + 4 * i;
      q[0] = (uchar)w;
      q[1] = (char)(short)w;
      uchar2 c = convert_uchar2(vload2(i, s));
      q[2] = c.x;
      q[3] = c.y;
    })");
  Kernel k = kernel(p, "k");
  const size_t n = 256;
  std::vector<uint8_t> b(4 * n);   // b[i] for item i is every byte value; all of it for vload4
  std::vector<uint16_t> s(2 * n);  // s[i] for item i; all of it for vload2
  std::uniform_int_distribution<int> dist(0, 65535);
  for (size_t i = 0; i < b.size(); ++i) b[i] = i < n ? uint8_t(i) : uint8_t(dist(rng_));
  for (auto& v : s) v = uint16_t(dist(rng_));
  s[0] = 0x8000, s[1] = 0x7fff, s[2] = 0xffff, s[3] = 0x0080, s[4] = 0xff7f;
  Mem mb = buffer(b.size(), b.data()), ms = buffer(2 * s.size(), s.data());
  Mem out = poisoned(16 * n), out8 = poisoned(4 * n);
  set_mem_arg(k, 0, mb);
  set_mem_arg(k, 1, ms);
  set_mem_arg(k, 2, out);
  set_mem_arg(k, 3, out8);
  run(k, 1, &n, nullptr);
  auto got = read<int16_t>(out, 8 * n);
  auto got8 = read<uint8_t>(out8, 4 * n);
  for (size_t i = 0; i < n; ++i) {
    uint8_t u = b[i];
    uint16_t w = s[i];
    int8_t v[4];
    for (int j = 0; j < 4; ++j) v[j] = int8_t(b[4 * i + j]);
    int16_t want[8] = {int16_t(u), int16_t(int8_t(u)), int16_t(uint16_t(int8_t(u))), int16_t(u),
                       int16_t(v[0] + v[1] * 3 + v[2] * 5 + v[3] * 7), int16_t(uint8_t(w >> 4)),
                       int16_t(int8_t(int16_t(w) >> 3)),
                       int16_t(std::clamp<int>(int16_t(w), -128, 127))};
    for (int r = 0; r < 8; ++r) ASSERT_EQ(got[8 * i + r], want[r]) << "result " << r << ", item " << i;
    uint8_t want8[4] = {uint8_t(w), uint8_t(int8_t(int16_t(w))), uint8_t(s[2 * i]), uint8_t(s[2 * i + 1])};
    for (int r = 0; r < 4; ++r) ASSERT_EQ(got8[4 * i + r], want8[r]) << "byte " << r << ", item " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, NarrowIntegers, ::testing::Values("", "-cl-opt-disable"), options_name);

}  // namespace
}  // namespace vkcl::test
