// cl_khr_extended_bit_ops and cl_khr_integer_dot_product at every width, and the LLVM
// idioms SPIRV-LLVM-Translator 15 cannot translate (saturating adds, overflow checks), each
// against the CPU.
#include <climits>
#include <cstdint>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

template <typename T>
T insert_ref(T base, T insert, unsigned offset, unsigned count) {
  using U = std::make_unsigned_t<T>;
  U mask = count == 0 ? 0 : U(~U(0)) >> (8 * sizeof(T) - count);
  return T((U(base) & U(~U(mask << offset))) | U((U(insert) & mask) << offset));
}
template <typename T>
T extract_unsigned_ref(T base, unsigned offset, unsigned count) {
  using U = std::make_unsigned_t<T>;
  U mask = count == 0 ? 0 : U(~U(0)) >> (8 * sizeof(T) - count);
  return T(U(U(base) >> offset) & mask);
}
template <typename T>
T extract_signed_ref(T base, unsigned offset, unsigned count) {
  using S = std::make_signed_t<T>;
  if (count == 0) return 0;
  int64_t field = int64_t(uint64_t(extract_unsigned_ref(base, offset, count)) << (64 - count)) >> (64 - count);
  return T(S(field));
}
template <typename T>
T reverse_ref(T v) {
  using U = std::make_unsigned_t<T>;
  U r = 0;
  for (unsigned b = 0; b < 8 * sizeof(T); ++b)
    if ((U(v) >> b) & 1) r = U(r | (U(1) << (8 * sizeof(T) - 1 - b)));
  return T(r);
}

class IntegerExtensions : public KernelTest {
 protected:
  // Every bit-field function on |type|n with random fields inside the value, vs the CPU.
  template <typename T>
  void check_bit_ops(const char* type, int width) {
    const size_t items = 64, n = items * width, bits = 8 * sizeof(T);
    std::vector<T> a(n), b(n);
    std::vector<uint32_t> offsets(items), counts(items);
    std::uniform_int_distribution<uint64_t> dist;
    for (size_t i = 0; i < n; ++i) a[i] = T(dist(rng_)), b[i] = T(dist(rng_));
    for (size_t i = 0; i < items; ++i) {
      offsets[i] = uint32_t(dist(rng_) % bits);
      counts[i] = uint32_t(dist(rng_) % (bits - offsets[i] + 1));
    }
    std::string w = width == 1 ? "" : std::to_string(width);
    std::string vt = std::string(type) + w, ut = "u" + std::string(type[0] == 'u' ? type + 1 : type) + w;
    std::string load = width == 1 ? "a[i]" : "vload" + w + "(i, a)";
    std::string loadb = width == 1 ? "b[i]" : "vload" + w + "(i, b)";
    auto store = [&](const std::string& v, const char* out) {
      return width == 1 ? std::string(out) + "[i] = " + v + ";" : "vstore" + w + "(" + v + ", i, " + out + ");";
    };
    std::string src = "__kernel void k(__global const " + std::string(type) + "* a, __global const " + type +
                      "* b, __global const uint* off, __global const uint* cnt, __global " + type +
                      "* r0, __global " + type + "* r1, __global " + type + "* r2, __global " + type + "* r3) {\n"
                      "  size_t i = get_global_id(0);\n  " + vt + " x = " + load + ", y = " + loadb + ";\n  " +
                      store("bitfield_insert(x, y, off[i], cnt[i])", "r0") + "\n  " +
                      store("as_" + vt + "(bitfield_extract_unsigned(x, off[i], cnt[i]))", "r1") + "\n  " +
                      store("as_" + vt + "(bitfield_extract_signed(x, off[i], cnt[i]))", "r2") + "\n  " +
                      store("bit_reverse(x)", "r3") + "\n}\n";
    SCOPED_TRACE(src);
    Program p = build(src);
    Kernel k = kernel(p, "k");
    Mem da = buffer(n * sizeof(T), a.data()), db = buffer(n * sizeof(T), b.data());
    Mem doff = buffer(items * 4, offsets.data()), dcnt = buffer(items * 4, counts.data());
    Mem r[4] = {poisoned(n * sizeof(T)), poisoned(n * sizeof(T)), poisoned(n * sizeof(T)),
                poisoned(n * sizeof(T))};
    set_mem_arg(k, 0, da); set_mem_arg(k, 1, db); set_mem_arg(k, 2, doff); set_mem_arg(k, 3, dcnt);
    for (int j = 0; j < 4; ++j) set_mem_arg(k, 4 + j, r[j]);
    size_t g = items;
    run(k, 1, &g, nullptr);
    auto r0 = read<T>(r[0], n), r1 = read<T>(r[1], n), r2 = read<T>(r[2], n), r3 = read<T>(r[3], n);
    for (size_t e = 0; e < n; ++e) {
      unsigned o = offsets[e / width], c = counts[e / width];
      ASSERT_EQ(r0[e], insert_ref(a[e], b[e], o, c)) << "insert at " << e << " offset " << o << " count " << c;
      ASSERT_EQ(r1[e], extract_unsigned_ref(a[e], o, c)) << "extract_unsigned at " << e << " offset " << o << " count " << c;
      ASSERT_EQ(r2[e], extract_signed_ref(a[e], o, c)) << "extract_signed at " << e << " offset " << o << " count " << c;
      ASSERT_EQ(r3[e], reverse_ref(a[e])) << "bit_reverse at " << e;
    }
  }
};

TEST_P(IntegerExtensions, BitFieldFunctionsAtEveryWidth) {
  for (int width : {1, 4, 16}) {
    check_bit_ops<int8_t>("char", width);
    check_bit_ops<uint16_t>("ushort", width);
    check_bit_ops<int32_t>("int", width);
    check_bit_ops<uint64_t>("ulong", width == 16 ? 8 : width);
    check_bit_ops<int64_t>("long", width);
  }
}

int lane(uint32_t x, int k, bool is_signed) {
  return is_signed ? int(int8_t(x >> (8 * k))) : int((x >> (8 * k)) & 0xff);
}
int64_t dot_ref(uint32_t a, uint32_t b, bool sa, bool sb) {
  int64_t s = 0;
  for (int k = 0; k < 4; ++k) s += int64_t(lane(a, k, sa)) * lane(b, k, sb);
  return s;
}

TEST_P(IntegerExtensions, DotProductsOfVectorsAndPackedValues) {
  const size_t n = 1024;
  std::vector<uint32_t> a(n), b(n);
  std::vector<int32_t> acc(n);
  std::uniform_int_distribution<uint32_t> dist;
  for (size_t i = 0; i < n; ++i) {
    a[i] = dist(rng_), b[i] = dist(rng_);
    // accumulators near the limits, so saturation happens both ways
    acc[i] = int32_t(i % 3 == 0 ? INT32_MAX - int32_t(dist(rng_) % 100000)
                     : i % 3 == 1 ? INT32_MIN + int32_t(dist(rng_) % 100000) : int32_t(dist(rng_)));
  }
  Program p = build(R"(
    __kernel void k(__global const uint* a, __global const uint* b, __global const int* acc,
                    __global int* r) {
      size_t i = get_global_id(0);
      uint x = a[i], y = b[i];
      int c = acc[i];
      uchar4 ux = as_uchar4(x), uy = as_uchar4(y);
      char4 sx = as_char4(x), sy = as_char4(y);
      __global int* o = r + 16 * i;
      o[0] = (int)dot(ux, uy);  o[1] = dot(sx, sy);  o[2] = dot(ux, sy);  o[3] = dot(sx, uy);
      o[4] = (int)dot_acc_sat(ux, uy, (uint)c);  o[5] = dot_acc_sat(sx, sy, c);
      o[6] = dot_acc_sat(ux, sy, c);  o[7] = dot_acc_sat(sx, uy, c);
      o[8] = (int)dot_4x8packed_uu_uint(x, y);  o[9] = dot_4x8packed_ss_int(x, y);
      o[10] = dot_4x8packed_us_int(x, y);  o[11] = dot_4x8packed_su_int(x, y);
      o[12] = (int)dot_acc_sat_4x8packed_uu_uint(x, y, (uint)c);
      o[13] = dot_acc_sat_4x8packed_ss_int(x, y, c);
      o[14] = dot_acc_sat_4x8packed_us_int(x, y, c);
      o[15] = dot_acc_sat_4x8packed_su_int(x, y, c);
    })");
  Kernel k = kernel(p, "k");
  Mem da = buffer(n * 4, a.data()), db = buffer(n * 4, b.data()), dc = buffer(n * 4, acc.data());
  Mem dr = poisoned(n * 16 * 4);
  set_mem_arg(k, 0, da); set_mem_arg(k, 1, db); set_mem_arg(k, 2, dc); set_mem_arg(k, 3, dr);
  size_t g = n;
  run(k, 1, &g, nullptr);
  auto r = read<int32_t>(dr, n * 16);
  auto sat_signed = [](int64_t v) { return int32_t(std::min<int64_t>(std::max<int64_t>(v, INT32_MIN), INT32_MAX)); };
  for (size_t i = 0; i < n; ++i) {
    const bool signs[4][2] = {{false, false}, {true, true}, {false, true}, {true, false}};
    for (int packed = 0; packed < 2; ++packed)
      for (int v = 0; v < 4; ++v) {
        int64_t d = dot_ref(a[i], b[i], signs[v][0], signs[v][1]);
        int base = 8 * packed;
        ASSERT_EQ(r[16 * i + base + v], int32_t(d)) << "dot " << v << " packed " << packed << " at " << i;
        int32_t want = v == 0 ? int32_t(uint32_t(std::min<uint64_t>(uint64_t(d) + uint32_t(acc[i]), UINT32_MAX)))
                              : sat_signed(d + acc[i]);
        ASSERT_EQ(r[16 * i + base + 4 + v], want) << "dot_acc_sat " << v << " packed " << packed << " at " << i;
      }
  }
}

// Patterns LLVM's optimiser turns into intrinsics the translator cannot take (uadd.sat,
// ssub.sat, a sum of byte products); vkcl rewrites them before translation.
TEST_P(IntegerExtensions, OptimiserIdiomsTheTranslatorCannotTake) {
  const size_t n = 1024;
  std::vector<uint32_t> a(2 * n);
  std::vector<int32_t> s(2 * n);
  std::uniform_int_distribution<uint32_t> dist;
  for (auto& v : a) v = dist(rng_);
  for (auto& v : s) v = int32_t(dist(rng_));
  Program p = build(R"(
    __kernel void k(__global const uint* a, __global const int* s, __global uint* o, __global int* q) {
      size_t i = get_global_id(0);
      uint x = a[2 * i], y = a[2 * i + 1];
      uint sum = x + y;
      o[i] = sum < x ? 0xffffffffu : sum;
      long d = (long)s[2 * i] - s[2 * i + 1];
      q[i] = d > INT_MAX ? INT_MAX : d < INT_MIN ? INT_MIN : (int)d;
      int acc = 0;
      for (int k = 0; k < 4; ++k) acc += (int)(char)(x >> (8 * k)) * (int)(char)(y >> (8 * k));
      q[i + get_global_size(0)] = acc;
      uint ud; int sd, sm; long lm;
      int flags = __builtin_add_overflow(x, y, &ud) + 2 * __builtin_sub_overflow(x, y, &ud) +
                  4 * __builtin_sub_overflow(s[2 * i], s[2 * i + 1], &sd) +
                  8 * __builtin_mul_overflow(s[2 * i], s[2 * i + 1] >> (x & 31), &sm) +
                  16 * __builtin_mul_overflow((long)s[2 * i] << 20, (long)s[2 * i + 1], &lm);
      q[i + 2 * get_global_size(0)] = flags;
    })");
  Kernel k = kernel(p, "k");
  Mem da = buffer(2 * n * 4, a.data()), ds = buffer(2 * n * 4, s.data());
  Mem dout = poisoned(n * 4), dq = poisoned(3 * n * 4);
  set_mem_arg(k, 0, da); set_mem_arg(k, 1, ds); set_mem_arg(k, 2, dout); set_mem_arg(k, 3, dq);
  size_t g = n;
  run(k, 1, &g, nullptr);
  auto o = read<uint32_t>(dout, n);
  auto q = read<int32_t>(dq, 3 * n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t sum = uint64_t(a[2 * i]) + a[2 * i + 1];
    ASSERT_EQ(o[i], sum > UINT32_MAX ? UINT32_MAX : uint32_t(sum)) << "at " << i;
    int64_t d = int64_t(s[2 * i]) - s[2 * i + 1];
    ASSERT_EQ(q[i], int32_t(std::min<int64_t>(std::max<int64_t>(d, INT32_MIN), INT32_MAX))) << "at " << i;
    ASSERT_EQ(q[n + i], int32_t(dot_ref(a[2 * i], a[2 * i + 1], true, true))) << "at " << i;
    uint32_t x = a[2 * i], y = a[2 * i + 1], ud;
    int32_t sd, sm;
    int64_t lm;
    int flags = __builtin_add_overflow(x, y, &ud) + 2 * __builtin_sub_overflow(x, y, &ud) +
                4 * __builtin_sub_overflow(s[2 * i], s[2 * i + 1], &sd) +
                8 * __builtin_mul_overflow(s[2 * i], s[2 * i + 1] >> (x & 31), &sm) +
                16 * __builtin_mul_overflow(int64_t(s[2 * i]) * (int64_t(1) << 20), int64_t(s[2 * i + 1]), &lm);
    ASSERT_EQ(q[2 * n + i], flags) << "overflow flags at " << i;
  }
}

// Rotates and funnel shifts as programs write them (hash functions, and LLVM's own switch
// over 0, 4, 8, ... reduced to 0, 1, 2, ...): the optimiser makes llvm.fshl/fshr of them,
// which vkcl expands before translation. Every amount, 0 and the full width included.
TEST_P(IntegerExtensions, RotatesAndFunnelShifts) {
  const size_t n = 128;
  std::vector<uint32_t> a(2 * n);
  std::uniform_int_distribution<uint32_t> dist;
  for (auto& v : a) v = dist(rng_);
  Program p = build(R"(
    __kernel void k(__global const uint* a, __global uint* o, __global ulong* w) {
      uint i = get_global_id(0), x = a[2 * i], y = a[2 * i + 1], s = i & 31, t = i & 63;
      o[4 * i] = (x << s) | (x >> ((32 - s) & 31));
      o[4 * i + 1] = (x >> s) | (x << ((32 - s) & 31));
      o[4 * i + 2] = s ? (x << s) | (y >> (32 - s)) : x;
      o[4 * i + 3] = s ? (x >> s) | (y << (32 - s)) : x;
      ulong v = ((ulong)x << 32) | y;
      w[i] = (v << t) | (v >> ((64 - t) & 63));
      int skips = s ? 24 - (int)s : 0;  // (pyopencl-ranluxcl.cl's: a rotate by 2, then 0..4)
      uint r = y;
      switch (skips) {
        case 20: r ^= 3;
        case 16: r += 7;
        case 12: r *= 5;
        case 8: r -= x;
        case 4: r ^= 0x55;
      }
      o[4 * get_global_size(0) + i] = r;
    })");
  Kernel k = kernel(p, "k");
  Mem da = buffer(2 * n * 4, a.data()), dout = poisoned(5 * n * 4), dw = poisoned(n * 8);
  set_mem_arg(k, 0, da); set_mem_arg(k, 1, dout); set_mem_arg(k, 2, dw);
  size_t g = n;
  run(k, 1, &g, nullptr);
  auto o = read<uint32_t>(dout, 5 * n);
  auto w = read<uint64_t>(dw, n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t x = a[2 * i], y = a[2 * i + 1], s = i & 31, t = i & 63;
    ASSERT_EQ(o[4 * i], (x << s) | (x >> ((32 - s) & 31))) << "rotate left by " << s;
    ASSERT_EQ(o[4 * i + 1], (x >> s) | (x << ((32 - s) & 31))) << "rotate right by " << s;
    ASSERT_EQ(o[4 * i + 2], s ? (x << s) | (y >> (32 - s)) : x) << "funnel left by " << s;
    ASSERT_EQ(o[4 * i + 3], s ? (x >> s) | (y << (32 - s)) : x) << "funnel right by " << s;
    const uint64_t v = (uint64_t(x) << 32) | y;
    ASSERT_EQ(w[i], (v << t) | (v >> ((64 - t) & 63))) << "64-bit rotate by " << t;
    uint32_t r = y;
    switch (s ? 24 - int(s) : 0) {
      case 20: r ^= 3; [[fallthrough]];
      case 16: r += 7; [[fallthrough]];
      case 12: r *= 5; [[fallthrough]];
      case 8: r -= x; [[fallthrough]];
      case 4: r ^= 0x55;
    }
    ASSERT_EQ(o[4 * n + i], r) << "switch over multiples of 4 at " << s;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, IntegerExtensions,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
