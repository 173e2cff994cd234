// OpenCL C conversions (OpenCL C 6.4.3): convert_<type>[_sat][_rte|_rtz|_rtp|_rtn] for every
// pair of scalar types and some vector widths, and as_<type> reinterpretation between vectors
// of equal size. Results are compared bit for bit with a CPU reference built from exact
// integer arithmetic (__int128), exact rounding functions on double, and long double
// conversions under fesetround. One program holds every kernel so the test builds once.
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

struct ScalarType {
  const char* name;
  int bits;
  bool is_signed;
  bool is_float;
};

const ScalarType kTypes[] = {
    {"char", 8, true, false},   {"uchar", 8, false, false}, {"short", 16, true, false},
    {"ushort", 16, false, false}, {"int", 32, true, false},  {"uint", 32, false, false},
    {"long", 64, true, false},  {"ulong", 64, false, false}, {"float", 32, true, true},
};
constexpr int kTypeCount = 9;
const char* const kRoundings[] = {"", "_rte", "_rtz", "_rtp", "_rtn"};

struct Variant {
  bool sat;
  int rounding;  // index into kRoundings
  std::string suffix() const { return std::string(sat ? "_sat" : "") + kRoundings[rounding]; }
};

// "The _sat modifier may not be used for conversions to floating-point formats."
std::vector<Variant> variants_for(const ScalarType& dst) {
  std::vector<Variant> v;
  for (int sat = 0; sat < (dst.is_float ? 1 : 2); ++sat)
    for (int r = 0; r < 5; ++r) v.push_back({sat == 1, r});
  return v;
}

using i128 = __int128;

i128 int_value(const ScalarType& t, uint64_t raw) {
  if (t.bits < 64) raw &= (1ull << t.bits) - 1;
  if (t.is_signed && t.bits < 64 && (raw >> (t.bits - 1)) & 1) raw |= ~0ull << t.bits;
  return t.is_signed ? i128(int64_t(raw)) : i128(raw);
}
i128 min_of(const ScalarType& t) { return t.is_signed ? -(i128(1) << (t.bits - 1)) : 0; }
i128 max_of(const ScalarType& t) {
  return t.is_signed ? (i128(1) << (t.bits - 1)) - 1 : (i128(1) << t.bits) - 1;
}
uint64_t bits_of(const ScalarType& t, i128 v) {
  uint64_t raw = uint64_t(v);
  return t.bits < 64 ? raw & ((1ull << t.bits) - 1) : raw;
}
float float_of(uint64_t raw) {
  float f;
  uint32_t b = uint32_t(raw);
  std::memcpy(&f, &b, 4);
  return f;
}
uint64_t raw_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Integer to float under a rounding mode: long double holds every 64-bit integer exactly,
// and its conversion to float follows the current rounding mode.
float int_to_float(i128 v, int rounding) {
  static const int modes[] = {FE_TONEAREST, FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD,
                              FE_DOWNWARD};
  volatile long double exact = v < 0 ? -(long double)(uint64_t)(-v) : (long double)(uint64_t)v;
  std::fesetround(modes[rounding]);
  volatile float f = float(exact);
  std::fesetround(FE_TONEAREST);
  return f;
}

// The expected result bits, or nothing where the specification leaves the result open
// (out-of-range float to integer without _sat: "the behavior is implementation-defined").
std::optional<uint64_t> reference(const ScalarType& src, uint64_t raw, const ScalarType& dst,
                                  Variant v) {
  if (src.is_float && dst.is_float) return raw;  // float to float is the identity
  if (dst.is_float) return raw_of(int_to_float(int_value(src, raw), v.rounding));
  if (!src.is_float) {
    i128 x = int_value(src, raw);
    if (v.sat) x = std::min(std::max(x, min_of(dst)), max_of(dst));
    return bits_of(dst, x);  // without _sat: modulo 2^n (C99 6.3.1.3)
  }
  double x = float_of(raw);
  if (std::isnan(x)) return v.sat ? std::optional<uint64_t>(0) : std::nullopt;
  // Default rounding toward zero; std::nearbyint rounds to nearest even (the default mode).
  double r = v.rounding == 1 ? std::nearbyint(x) : v.rounding == 3 ? std::ceil(x)
           : v.rounding == 4 ? std::floor(x) : std::trunc(x);
  double lo = double(min_of(dst)), hi_bound = std::ldexp(1.0, dst.is_signed ? dst.bits - 1 : dst.bits);
  if (r < lo) return v.sat ? std::optional<uint64_t>(bits_of(dst, min_of(dst))) : std::nullopt;
  if (r >= hi_bound) return v.sat ? std::optional<uint64_t>(bits_of(dst, max_of(dst))) : std::nullopt;
  return bits_of(dst, r < 0 ? -i128(uint64_t(-r)) : i128(uint64_t(r)));
}

bool is_denormal(float f) { return std::fpclassify(f) == FP_SUBNORMAL; }

bool matches(const ScalarType& src, uint64_t raw, const ScalarType& dst, Variant v,
             uint64_t got, std::string* expected) {
  std::optional<uint64_t> want = reference(src, raw, dst, v);
  if (!want) return true;
  if (dst.is_float && std::isnan(float_of(*want)) && std::isnan(float_of(got))) return true;
  if (got == *want) return true;
  // A device without denormals may flush a denormal input to zero of the same sign.
  if (src.is_float && is_denormal(float_of(raw))) {
    std::optional<uint64_t> flushed = reference(src, raw & 0x80000000u, dst, v);
    if (flushed && got == *flushed) return true;
  }
  std::ostringstream s;
  s << std::hex << "0x" << *want;
  *expected = s.str();
  return false;
}

// Inputs: limits of every type, neighbours of powers of two and of every type's range ends,
// halfway cases, special floats, then random values of all magnitudes.
std::vector<uint64_t> inputs(const ScalarType& t, size_t n, std::mt19937& rng) {
  std::vector<uint64_t> v;
  if (t.is_float) {
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> f = {0.0f, -0.0f, inf, -inf, std::nanf(""), -std::nanf(""),
                            std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(),
                            -std::numeric_limits<float>::denorm_min(), 0.5f, -0.5f, 1.5f, -1.5f,
                            2.5f, -2.5f, 0.49999997f, -0.49999997f, 1.0000001f, 8388607.5f,
                            -8388607.5f, 16777217.0f, 4194304.5f};
    for (int e : {0, 1, 7, 8, 15, 16, 23, 24, 31, 32, 52, 53, 62, 63, 64, 65}) {
      for (float sign : {1.0f, -1.0f}) {
        float p = sign * std::ldexp(1.0f, e);
        for (float b : {p, p - sign, p + sign})
          f.insert(f.end(), {b, std::nextafter(b, inf), std::nextafter(b, -inf), b + 0.5f,
                             b - 0.5f});
      }
    }
    for (float k = -6.5f; k <= 6.5f; k += 1.0f) f.push_back(k);
    for (float x : f) v.push_back(raw_of(x));
    std::uniform_int_distribution<int> exponent(-3, 66);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    while (v.size() < n) {
      if (v.size() % 4 == 0)
        v.push_back(uint32_t(rng()));  // any bits: NaNs, huge and tiny values
      else
        v.push_back(raw_of(std::ldexp(unit(rng), exponent(rng))));
    }
    v.resize(n);
    return v;
  }
  for (int e = 0; e <= 64; ++e) {
    uint64_t p = e == 64 ? 0 : 1ull << e;
    for (uint64_t d : {0ull, 1ull, ~0ull}) {
      v.push_back(p + d);
      v.push_back(-(p + d));
    }
  }
  for (int b : {8, 16, 32, 64}) {  // every type's range ends
    uint64_t half = 1ull << (b - 1);
    for (uint64_t x : {half - 1, half, 0 - half, 0 - half - 1, 2 * half - 1})
      v.push_back(x);
  }
  v.push_back(16777217);  // 2^24 + 1: not a float
  v.push_back((1ull << 53) + 1);
  std::uniform_int_distribution<int> shift(0, 63);
  while (v.size() < n) {
    uint64_t r = (uint64_t(rng()) << 32) | rng();
    v.push_back(v.size() % 2 ? r : uint64_t(int64_t(r) >> shift(rng)));
  }
  v.resize(n);
  return v;
}

// Packs raw values into a buffer of |t|'s size per element (little-endian).
std::vector<uint8_t> pack(const ScalarType& t, const std::vector<uint64_t>& raw) {
  size_t size = t.bits / 8;
  std::vector<uint8_t> bytes(raw.size() * size);
  for (size_t i = 0; i < raw.size(); ++i) std::memcpy(&bytes[i * size], &raw[i], size);
  return bytes;
}
uint64_t unpack(const ScalarType& t, const std::vector<uint8_t>& bytes, size_t i) {
  uint64_t r = 0;
  std::memcpy(&r, &bytes[i * (t.bits / 8)], t.bits / 8);
  return r;
}

class Conversions : public KernelTest {
 protected:
  static constexpr size_t kCount = 960;  // divisible by 2, 3, 4, 8 and 16
  void SetUp() override {
    KernelTest::SetUp();
    for (int s = 0; s < kTypeCount; ++s) values_[s] = inputs(kTypes[s], kCount, rng_);
  }
  Mem input(int s) {
    std::vector<uint8_t> bytes = pack(kTypes[s], values_[s]);
    return buffer(bytes.size(), bytes.data());
  }
  std::vector<uint64_t> values_[kTypeCount];
};

// One kernel per destination type holds every source type and every modifier the language
// allows: 9 destinations x 9 sources x 10 (or 5) variants.
TEST_P(Conversions, EveryScalarPairAndModifier) {
  std::string source;
  for (const ScalarType& d : kTypes) {
    source += std::string("kernel void to_") + d.name + "(";
    for (const ScalarType& s : kTypes) source += std::string("global const ") + s.name + "* in_" + s.name + ", ";
    source += std::string("global ") + d.name + "* out) {\n  size_t i = get_global_id(0), n = get_global_size(0);\n";
    size_t slot = 0;
    for (const ScalarType& s : kTypes)
      for (Variant v : variants_for(d))
        source += "  out[" + std::to_string(slot++) + " * n + i] = convert_" + d.name +
                  v.suffix() + "(in_" + s.name + "[i]);\n";
    source += "}\n";
  }
  Program p = build(source);
  ASSERT_NE(p.get(), nullptr);
  std::vector<Mem> in;
  for (int s = 0; s < kTypeCount; ++s) in.push_back(input(s));
  size_t checked = 0;
  for (int di = 0; di < kTypeCount; ++di) {
    const ScalarType& d = kTypes[di];
    std::vector<Variant> variants = variants_for(d);
    Kernel k = kernel(p, (std::string("to_") + d.name).c_str());
    size_t out_bytes = kCount * kTypeCount * variants.size() * (d.bits / 8);
    Mem out = poisoned(out_bytes);
    for (int s = 0; s < kTypeCount; ++s) set_mem_arg(k, s, in[s]);
    set_mem_arg(k, kTypeCount, out);
    size_t local = 32;
    run(k, 1, &kCount, &local);
    std::vector<uint8_t> got = read<uint8_t>(out, out_bytes);
    size_t slot = 0, failures = 0;
    for (int si = 0; si < kTypeCount; ++si) {
      for (Variant v : variants) {
        for (size_t i = 0; i < kCount; ++i) {
          uint64_t r = unpack(d, got, slot * kCount + i);
          std::string want;
          ++checked;
          if (!matches(kTypes[si], values_[si][i], d, v, r, &want) && ++failures <= 10)
            ADD_FAILURE() << "convert_" << d.name << v.suffix() << "((" << kTypes[si].name
                          << ") [" << i << "] raw 0x" << std::hex << values_[si][i] << ") = 0x" << r
                          << ", expected " << want;
        }
        ++slot;
      }
    }
    ASSERT_EQ(failures, 0u) << "destination " << d.name;
  }
  EXPECT_GT(checked, 300000u);
}

// Vector conversions, including 3-, 8- and 16-component ones, checked per component against
// the scalar reference.
TEST_P(Conversions, VectorWidths) {
  struct Case { int dst, src, width; Variant v; };
  const Case cases[] = {
      {4, 8, 4, {true, 1}},   {1, 4, 8, {true, 0}},   {8, 5, 16, {false, 2}},
      {2, 6, 3, {true, 0}},   {7, 8, 2, {true, 4}},   {0, 8, 16, {true, 3}},
      {8, 6, 8, {false, 4}},  {3, 2, 16, {true, 0}},  {8, 7, 3, {false, 3}},
      {6, 8, 8, {false, 1}},  {5, 0, 2, {true, 0}},   {5, 8, 16, {true, 2}},
      {0, 7, 8, {true, 0}},   {4, 1, 4, {false, 0}},
  };
  std::string source;
  int index = 0;
  for (const Case& c : cases) {
    std::string w = std::to_string(c.width);
    const char* d = kTypes[c.dst].name;
    source += "kernel void case" + std::to_string(index++) + "(global const " +
              kTypes[c.src].name + "* in, global " + d + "* out) {\n  size_t i = get_global_id(0);\n  vstore" +
              w + "(convert_" + d + w + c.v.suffix() + "(vload" + w + "(i, in)), i, out);\n}\n";
  }
  Program p = build(source);
  ASSERT_NE(p.get(), nullptr);
  index = 0;
  for (const Case& c : cases) {
    const ScalarType& d = kTypes[c.dst];
    Kernel k = kernel(p, ("case" + std::to_string(index++)).c_str());
    Mem in = input(c.src), out = poisoned(kCount * d.bits / 8);
    set_mem_arg(k, 0, in);
    set_mem_arg(k, 1, out);
    size_t global = kCount / c.width;
    run(k, 1, &global, nullptr);
    std::vector<uint8_t> got = read<uint8_t>(out, kCount * d.bits / 8);
    for (size_t i = 0; i < kCount; ++i) {
      std::string want;
      uint64_t r = unpack(d, got, i);
      ASSERT_TRUE(matches(kTypes[c.src], values_[c.src][i], d, c.v, r, &want))
          << "convert_" << d.name << c.width << c.v.suffix() << " from " << kTypes[c.src].name
          << " component " << i << ": raw 0x" << std::hex << values_[c.src][i] << " gave 0x"
          << r << ", expected " << want;
    }
  }
}

// as_<type>: "the bits are reinterpreted"; the result must hold exactly the input's bytes,
// including when the component count changes across 8- and 16-component vectors.
TEST_P(Conversions, AsTypeBetweenVectorsOfEqualSize) {
  struct Case { const char* dst; const char* src; size_t bytes; };
  const Case cases[] = {
      {"float4", "int4", 16},    {"char16", "float4", 16},  {"int4", "char16", 16},
      {"short8", "long2", 16},   {"uint16", "ulong8", 64},  {"ulong8", "uint16", 64},
      {"int8", "long4", 32},     {"char8", "long", 8},      {"long", "char8", 8},
      {"ushort16", "float8", 32}, {"float8", "ushort16", 32}, {"uchar8", "float2", 8},
      {"short8", "uchar16", 16}, {"char4", "int", 4},
  };
  std::string source;
  int index = 0;
  for (const Case& c : cases)
    source += "kernel void as" + std::to_string(index++) + "(global const " + c.src +
              "* in, global " + c.dst + "* out) {\n  size_t i = get_global_id(0);\n  out[i] = as_" +
              c.dst + "(in[i]);\n}\n";
  Program p = build(source);
  ASSERT_NE(p.get(), nullptr);
  index = 0;
  const size_t count = 64;
  for (const Case& c : cases) {
    std::vector<uint8_t> bytes(count * c.bytes);
    for (auto& b : bytes) b = uint8_t(rng_());
    Kernel k = kernel(p, ("as" + std::to_string(index++)).c_str());
    Mem in = buffer(bytes.size(), bytes.data()), out = poisoned(bytes.size());
    set_mem_arg(k, 0, in);
    set_mem_arg(k, 1, out);
    run(k, 1, &count, nullptr);
    std::vector<uint8_t> got = read<uint8_t>(out, bytes.size());
    for (size_t i = 0; i < bytes.size(); ++i)
      ASSERT_EQ(int(got[i]), int(bytes[i])) << "as_" << c.dst << "(" << c.src << ") byte " << i;
  }
}

// The CTS's shape: the conversion inside an if, which the structurizer duplicates into the
// return path; the copy must keep the SaturatedConversion and rounding decorations.
TEST_P(Conversions, ModifiersSurviveControlFlow) {
  const size_t n = 64;
  std::vector<cl_uint> src(n * 3);
  std::vector<float> fsrc(n * 3);
  for (size_t i = 0; i < src.size(); ++i) {
    src[i] = uint32_t(i * 0x01234567u);
    fsrc[i] = float(i) * 3.75f - 100.0f + 0.5f;
  }
  Program p = build(R"(
    __kernel void k(__global const uint* src, __global uchar* dest, __global const float* f,
                    __global int* rounded) {
      size_t i = get_global_id(0);
      if (i + 1 < get_global_size(0)) {
        vstore3(convert_uchar3_sat(vload3(i, src)), i, dest);
        vstore3(convert_int3_rtp(vload3(i, f)), i, rounded);
      }
    })");
  Kernel k = kernel(p, "k");
  Mem ms = buffer(src.size() * 4, src.data()), md = poisoned(n * 3), mf = buffer(fsrc.size() * 4, fsrc.data());
  Mem mr = poisoned(n * 3 * 4);
  set_mem_arg(k, 0, ms);
  set_mem_arg(k, 1, md);
  set_mem_arg(k, 2, mf);
  set_mem_arg(k, 3, mr);
  run(k, 1, &n, nullptr);
  std::vector<cl_uchar> d = read<cl_uchar>(md, n * 3);
  std::vector<cl_int> r = read<cl_int>(mr, n * 3);
  for (size_t i = 0; i < (n - 1) * 3; ++i) {
    EXPECT_EQ(std::min<cl_uint>(src[i], 255), d[i]) << "convert_uchar3_sat of " << src[i];
    EXPECT_EQ(cl_int(std::ceil(fsrc[i])), r[i]) << "convert_int3_rtp of " << fsrc[i];
  }
}

INSTANTIATE_TEST_SUITE_P(Options, Conversions,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
