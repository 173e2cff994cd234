#include "core/precision_probe.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "core/probe_kernel.h"

namespace vkcl::cl {

namespace {

// (a, b, c, a*b+c rounded once) for products whose low bits an unfused add would lose.
const float kFmaCases[][4] = {
    {1.0f + 0x1p-23f, 1.0f - 0x1p-23f, -1.0f, -0x1p-46f},
    {1.0f + 0x1p-12f, 1.0f + 0x1p-12f, -(1.0f + 0x1p-11f), 0x1p-24f},
    {-3.0f - 0x1p-21f, 5.0f + 0x1p-20f, 15.0f, -0x1.600002p-18f},
};
constexpr int kFmaCount = 3;

// (x, y, x / y) with divisors above 2^126 and quotients that are exact.
const float kDivideCases[][3] = {
    {INFINITY, 0x1.fffffep127f, INFINITY},
    {0x1.fffffep127f, 0x1.fffffep127f, 1.0f},
    {0x1.8p127f, 0x1p127f, 1.5f},
    {-0x1p127f, 0x1p127f, -1.0f},
    {0x1p127f, 0x1.8p126f * 1.0f, 0x1.555556p0f},
};
constexpr int kDivideCount = 5;

// Marsaglia's xorshift: fixed probe inputs that look random.
struct Xorshift32 {
  uint32_t state;
  uint32_t operator()() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
};

// Sqrt inputs: every binade from 2^-126 to 2^127 with mantissas from a fixed generator, plus
// the neighbours of perfect squares and of the midpoints between representable roots, where
// an approximation is most likely to round the wrong way. An approximate square root (a
// reciprocal-root estimate with refinement) misses on a large fraction of random inputs, so
// thousands of them separate the two kinds reliably.
std::vector<float> sqrt_inputs() {
  std::vector<float> v;
  Xorshift32 next{0x9e3779b9u};
  for (uint32_t e = 1; e < 255; ++e)
    for (int k = 0; k < 24; ++k) {
      uint32_t bits = (e << 23) | (next() & 0x7fffffu);
      float f;
      std::memcpy(&f, &bits, 4);
      v.push_back(f);
    }
  for (uint32_t r = 1; r < 1024; ++r) {  // r^2 and its neighbours, r^2 scaled by 2^-40
    float sq = float(r) * float(r);
    for (float base : {sq, sq * 0x1p-40f}) {
      v.push_back(base);
      v.push_back(std::nextafter(base, 0.0f));
      v.push_back(std::nextafter(base, INFINITY));
    }
  }
  // Special values and denormals, which the result must get right or flush (the device does
  // not report CL_FP_DENORM).
  for (float f : {0.0f, -0.0f, INFINITY, -INFINITY, -1.0f, -0x1p-130f, NAN, 0x1p-149f,
                  0x1.8p-140f, 0x1.fffffcp-127f, 0x1p-127f})
    v.push_back(f);
  v.resize((v.size() + 63) / 64 * 64, 1.0f);
  return v;
}

// Doubles: random operands over the whole exponent range (denormals and special values
// included), and fma operands whose product the addend nearly cancels. Each work-item
// computes fma(a, b, c), a / b, sqrt(a) (bare Sqrt), a * b, (float)a and a + c.
constexpr int kDoubleSlots = 9;  // a, b, c, then the six results
std::vector<double> double_inputs(uint32_t items) {
  std::vector<double> v(size_t(items) * kDoubleSlots, 0.0);
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  auto any_double = [&] {
    uint64_t bits = next();
    uint64_t e = (bits >> 52) & 0x7ff;
    if ((bits & 7) == 0) bits &= ~(0x7ffull << 52);  // a denormal every eighth draw
    else if ((bits & 7) == 1) bits = (bits & ~(0x7ffull << 52)) | ((e % 64 + 991) << 52);  // near 1
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  };
  const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 0x1p-1074, -0x1p-1074,
                             0x1p-1022, 0x1.fffffffffffffp-1023, 0x1.fffffffffffffp1023, 1.0, -1.0};
  for (uint32_t i = 0; i < items; ++i) {
    double* d = &v[size_t(i) * kDoubleSlots];
    d[0] = i < 12 * 12 ? specials[i % 12] : any_double();
    d[1] = i < 12 * 12 ? specials[i / 12] : any_double();
    d[2] = any_double();
    if (i % 4 == 0) d[2] = -(d[0] * d[1]) * (1 + 0x1p-50);  // cancellation: fma's low bits
  }
  return v;
}

bool same_double(double got, double want) {
  return std::memcmp(&got, &want, 8) == 0 || (std::isnan(got) && std::isnan(want));
}

// A float denormal result given as a zero of its sign: allowed, since the device does not
// report CL_FP_DENORM for float (NVIDIA flushes them in conversions from double).
bool flushed_float(double got, double want) {
  return std::fpclassify(float(want)) == FP_SUBNORMAL && got == 0.0 &&
         std::signbit(got) == std::signbit(want);
}

template <typename T>
std::vector<uint8_t> bytes_of(const T* p, size_t count) {
  std::vector<uint8_t> b(count * sizeof(T));
  std::memcpy(b.data(), p, b.size());
  return b;
}

// Sets |result|'s double fields: which of the device's double instructions are IEEE's on
// every probe input (see double_inputs).
void probe_doubles(const std::shared_ptr<vk::Device>& device, const k2s::TargetCaps& caps,
                   compiler::DeviceFeatures features, PrecisionProbe* result) {
  features.fp64 = true;
  const uint32_t items = 4096;
  std::vector<double> in = double_inputs(items);
  std::vector<std::vector<uint8_t>> data = {bytes_of(in.data(), in.size())};
  if (!run_probe(device, caps, features,
                 "__kernel void probe(__global double* d) {"
                 "  __global double* p = d + 9 * get_global_id(0);"
                 "  p[3] = fma(p[0], p[1], p[2]);"
                 "  p[4] = p[0] / p[1];"
                 "  p[5] = native_sqrt(p[0]);"  // GLSL.std.450 Sqrt and nothing else
                 "  p[6] = p[0] * p[1];"
                 "  p[7] = (float)p[0];"
                 "  p[8] = p[0] + p[2];"
                 "}",
                 items, &data))
    return;
  std::vector<double> out(in.size());
  std::memcpy(out.data(), data[0].data(), data[0].size());
  // Wrong results per operation: fma, divide, sqrt, multiply, to float, add.
  const char* names[] = {"fma", "divide", "sqrt", "multiply", "convert", "add"};
  int wrong[6] = {};
  for (uint32_t i = 0; i < items; ++i) {
    const double* d = &in[size_t(i) * kDoubleSlots];
    const double* r = &out[size_t(i) * kDoubleSlots];
    const double want[6] = {std::fma(d[0], d[1], d[2]), d[0] / d[1], std::sqrt(d[0]),
                            d[0] * d[1], double(float(d[0])), d[0] + d[2]};
    for (int k = 0; k < 6; ++k)
      if (!same_double(r[3 + k], want[k]) && !(k == 4 && flushed_float(r[3 + k], want[k])) && wrong[k]++ == 0 && std::getenv("VKCL_PROBE_LOG"))
        std::fprintf(stderr, "vkcl probe: double %s(%a, %a, %a) = %a, not %a\n", names[k], d[0],
                     d[1], d[2], r[3 + k], want[k]);
  }
  if (std::getenv("VKCL_PROBE_LOG"))
    for (int k = 0; k < 6; ++k)
      std::fprintf(stderr, "vkcl probe: double %s wrong on %d of %u inputs\n", names[k], wrong[k], items);
  bool rest = wrong[1] + wrong[3] + wrong[4] + wrong[5] == 0;
  result->exact_float64 = rest;
  result->exact_fma64 = rest && wrong[0] == 0;
  result->exact_sqrt64 = rest && wrong[2] == 0;
}

// Sets |result|'s small integer fields: whether wrapped 8- and 16-bit results (negation,
// addition, subtraction, multiplication) come out right once sign- or zero-extended. All
// pairs of a few values around the wrap points, against the host's. Negation is tried on a
// value truncated from an int and on one loaded as a char/short (slot 10, read only through
// narrow pointers so the compiler cannot reuse an int load): NVIDIA's driver (580) gets
// (char)-a right in the first form and returns 128 for a = -128 in the second.
void probe_small_integers(const std::shared_ptr<vk::Device>& device, const k2s::TargetCaps& caps,
                          const compiler::DeviceFeatures& features, PrecisionProbe* result) {
  const int values[] = {-32768, -32767, -129, -128, -127, -65, -64, -1, 0, 1, 63, 64, 127, 128, 255, 32767};
  const uint32_t n = sizeof values / sizeof values[0], items = n * n, slots = 13;
  std::vector<int32_t> in(size_t(items) * slots, 0);
  for (uint32_t i = 0; i < items; ++i) {
    in[size_t(i) * slots] = values[i / n];
    in[size_t(i) * slots + 1] = values[i % n];
    in[size_t(i) * slots + 10] = values[i / n];  // little-endian: its low char and short
  }
  std::vector<std::vector<uint8_t>> data = {bytes_of(in.data(), in.size())};
  if (!run_probe(device, caps, features,
                 "__kernel void probe(__global int* d) {"
                 "  __global int* p = d + 13 * get_global_id(0);"
                 "  char a = (char)p[0], b = (char)p[1];"
                 "  short c = (short)p[0], e = (short)p[1];"
                 "  p[2] = (char)-a;"
                 "  p[3] = (char)(a + b);"
                 "  p[4] = (uchar)(a - b);"
                 "  p[5] = (char)(a * b);"
                 "  p[6] = (short)-c;"
                 "  p[7] = (short)(c + e);"
                 "  p[8] = (ushort)(c - e);"
                 "  p[9] = (short)(c * e);"
                 "  char f = *(__global char*)(p + 10);"
                 "  short g = *(__global short*)(p + 10);"
                 "  p[11] = (char)-f;"
                 "  p[12] = (short)-g;"
                 "}",
                 items, &data))
    return;
  std::vector<int32_t> out(in.size());
  std::memcpy(out.data(), data[0].data(), data[0].size());
  int wrong8 = 0, wrong16 = 0;
  for (uint32_t i = 0; i < items; ++i) {
    const int32_t* r = &out[size_t(i) * slots];
    int8_t a = int8_t(values[i / n]), b = int8_t(values[i % n]);
    int16_t c = int16_t(values[i / n]), e = int16_t(values[i % n]);
    // Results at slots 2-9, 11, 12; the first of each pair below is 8-bit.
    const int slot[10] = {2, 3, 4, 5, 11, 6, 7, 8, 9, 12};
    const int32_t want[10] = {int8_t(-a),  int8_t(a + b),  uint8_t(a - b),  int8_t(a * b),  int8_t(-a),
                              int16_t(-c), int16_t(c + e), uint16_t(c - e), int16_t(c * e), int16_t(-c)};
    for (int k = 0; k < 10; ++k)
      if (r[slot[k]] != want[k] && (k < 5 ? wrong8++ : wrong16++) == 0 && std::getenv("VKCL_PROBE_LOG"))
        std::fprintf(stderr, "vkcl probe: %d-bit result %d of (%d, %d) is %d, not %d\n", k < 5 ? 8 : 16,
                     slot[k], values[i / n], values[i % n], r[slot[k]], want[k]);
  }
  result->exact_int8 = wrong8 == 0;
  result->exact_int16 = wrong16 == 0;
  if (std::getenv("VKCL_PROBE_LOG"))
    std::fprintf(stderr, "vkcl probe: 8-bit arithmetic wrong on %d, 16-bit on %d of %u inputs\n",
                 wrong8, wrong16, items * 5);
}

// The half nearest |x| (ties to even), as bits.
uint16_t to_half(double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return 0x7e00;
  double a = std::fabs(x);
  if (a >= 65520.0) return sign | 0x7c00;
  if (a < 0x1p-14) return sign | uint16_t(std::nearbyint(a * 0x1p24));  // 1024 is 2^-14
  int e;
  double q = std::nearbyint(std::ldexp(std::frexp(a, &e), 11));  // [1024, 2048]
  if (q == 2048) { q = 1024; ++e; }
  if (e + 14 >= 31) return sign | 0x7c00;
  return sign | uint16_t(((e + 14) << 10) | (uint32_t(q) - 1024));
}

double from_half(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}

// Sets |result|'s half fields: each work-item computes a + b, a - b, a * b, a / b (within
// 1 ulp, OpenCL's bound) and
// (half)f from halves a, b and a float f, and (float)a; and apart, (float)(half)f without
// memory in between, which NVIDIA's driver (580) folds into f. Denormal halves may be flushed (the
// device does not report CL_FP_DENORM for half): a result that is a denormal may be a zero
// of its sign, and denormal inputs may be read as zeros.
void probe_halves(const std::shared_ptr<vk::Device>& device, const k2s::TargetCaps& caps,
                  compiler::DeviceFeatures features, PrecisionProbe* result) {
  features.fp16 = true;
  const uint32_t items = 4096;
  std::vector<uint16_t> h(size_t(items) * 8);
  std::vector<float> f(size_t(items) * 3);
  Xorshift32 next{0x2545f491u};
  const uint16_t specials[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x03ff,
                               0x0400, 0x7bff, 0x3c00, 0xbc00, 0x3555};
  for (uint32_t i = 0; i < items; ++i) {
    uint16_t* p = &h[size_t(i) * 8];
    p[0] = i < 144 ? specials[i % 12] : uint16_t(next());
    p[1] = i < 144 ? specials[i / 12] : uint16_t(next());
    uint32_t bits = next();
    if (i % 2) bits = (bits & 0x807fffffu) | ((100u + bits % 40u) << 23);  // around half's range
    std::memcpy(&f[size_t(i) * 3], &bits, 4);
  }
  std::vector<std::vector<uint8_t>> data = {bytes_of(h.data(), h.size()), bytes_of(f.data(), f.size())};
  if (!run_probe(device, caps, features,
                 "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
                 "__kernel void probe(__global half* d, __global float* f) {"
                 "  size_t i = get_global_id(0);"
                 "  __global half* p = d + 8 * i;"
                 "  half a = p[0], b = p[1];"
                 "  p[2] = a + b; p[3] = a - b; p[4] = a * b; p[5] = a / b;"
                 "  p[6] = (half)f[3 * i];"
                 "  f[3 * i + 1] = (float)a;"
                 "  f[3 * i + 2] = (float)(half)f[3 * i];"
                 "}",
                 items, &data))
    return;
  std::vector<uint16_t> out(h.size());
  std::memcpy(out.data(), data[0].data(), data[0].size());
  std::vector<float> fout(f.size());
  std::memcpy(fout.data(), data[1].data(), data[1].size());
  auto flush = [](double v) { return std::fabs(v) < 0x1p-14 ? std::copysign(0.0, v) : v; };
  // Whether |got| is the rounding of one of the readings of the inputs (within |ulps| of
  // the exact value, when that is not 0).
  auto right = [&](uint16_t got, double (*op)(double, double), double a, double b, double ulps = 0) {
    for (int k = 0; k < 4; ++k) {
      double x = k & 1 ? flush(a) : a, y = k & 2 ? flush(b) : b;
      double exact = op(x, y);
      uint16_t want = to_half(exact);
      if (got == want || (std::isnan(from_half(got)) && std::isnan(from_half(want)))) return true;
      double g = from_half(got);
      if (ulps > 0 && std::isfinite(exact) && std::isfinite(g) &&
          std::fabs(g - exact) <= ulps * std::ldexp(1.0, std::max(std::ilogb(exact), -14) - 10))
        return true;
      bool denormal = (want & 0x7c00) == 0 && (want & 0x3ff) != 0;
      if (denormal && (got & 0x7fff) == 0 && (got & 0x8000) == (want & 0x8000)) return true;
    }
    return false;
  };
  const char* names[] = {"add", "subtract", "multiply", "divide", "from float", "to float",
                         "round trip"};
  double (*ops[])(double, double) = {[](double a, double b) { return a + b; },
                                     [](double a, double b) { return a - b; },
                                     [](double a, double b) { return a * b; },
                                     [](double a, double b) { return a / b; }};
  int wrong[7] = {};
  for (uint32_t i = 0; i < items; ++i) {
    const uint16_t* r = &out[size_t(i) * 8];
    double a = from_half(r[0]), b = from_half(r[1]);
    for (int k = 0; k < 4; ++k)  // division: OpenCL's half bound is 1 ulp
      if (!right(r[2 + k], ops[k], a, b, k == 3 ? 1.0 : 0.0)) ++wrong[k];
    float fi = f[size_t(i) * 3];
    if (!right(r[6], [](double x, double) { return x; }, fi, 0.0)) ++wrong[4];
    uint16_t round_trip = to_half(fi);
    float trip = fout[size_t(i) * 3 + 2], want = float(from_half(round_trip));
    bool flushed = (round_trip & 0x7c00) == 0 && trip == 0.0f && std::signbit(trip) == std::signbit(want);
    if (!(trip == want || (std::isnan(trip) && std::isnan(want)) || flushed)) ++wrong[6];
    float back = fout[size_t(i) * 3 + 1];
    bool same = back == float(a) || (std::isnan(back) && std::isnan(a)) ||
                (std::fabs(a) < 0x1p-14 && back == 0.0f);
    if (!same) ++wrong[5];
  }
  if (std::getenv("VKCL_PROBE_LOG"))
    for (int k = 0; k < 7; ++k)
      std::fprintf(stderr, "vkcl probe: half %s wrong on %d of %u inputs\n", names[k], wrong[k], items);
  result->half_round_trip_folded = wrong[6] != 0;
  result->exact_float16 = wrong[0] + wrong[1] + wrong[2] + wrong[3] + wrong[4] + wrong[5] == 0;
}

}  // namespace

namespace {
// Every field of PrecisionProbe, by name.
const std::pair<const char*, bool PrecisionProbe::*> kProbeFields[] = {
    {"exact_fma", &PrecisionProbe::exact_fma},
    {"close_sqrt", &PrecisionProbe::close_sqrt},
    {"full_range_divide", &PrecisionProbe::full_range_divide},
    {"exact_float64", &PrecisionProbe::exact_float64},
    {"exact_fma64", &PrecisionProbe::exact_fma64},
    {"exact_sqrt64", &PrecisionProbe::exact_sqrt64},
    {"exact_float16", &PrecisionProbe::exact_float16},
    {"half_round_trip_folded", &PrecisionProbe::half_round_trip_folded},
    {"exact_int8", &PrecisionProbe::exact_int8},
    {"exact_int16", &PrecisionProbe::exact_int16},
    {"complete", &PrecisionProbe::complete},
};
static_assert(sizeof(PrecisionProbe) == std::size(kProbeFields), "a PrecisionProbe field is not listed");
}  // namespace

std::string describe_probe(const PrecisionProbe& probe) {
  std::string text;
  for (const auto& [name, field] : kProbeFields) text += std::string(name) + "=" + (probe.*field ? "1" : "0") + "\n";
  return text;
}

bool parse_probe(const std::string& text, PrecisionProbe* probe) {
  PrecisionProbe parsed;
  for (const auto& [name, field] : kProbeFields) {
    std::string line = std::string(name) + "=";
    size_t at = text.find(line);
    if (at == std::string::npos || (at > 0 && text[at - 1] != '\n') || at + line.size() >= text.size()) return false;
    char v = text[at + line.size()];
    if (v != '0' && v != '1') return false;
    parsed.*field = v == '1';
  }
  *probe = parsed;
  return true;
}

PrecisionProbe probe_precision(const std::shared_ptr<vk::Device>& device, k2s::TargetCaps caps,
                               const compiler::DeviceFeatures& features) {
  reset_failed_probe_runs();
  PrecisionProbe none;
  caps.exact_fma = true;
  caps.close_sqrt = true;
  caps.full_range_divide = true;  // the division as it is
  caps.exact_float64 = true;
  caps.exact_fma64 = true;
  caps.exact_sqrt64 = true;

  std::vector<float> roots = sqrt_inputs();
  const uint32_t items = uint32_t(roots.size());
  std::vector<float> s(2 * items);
  for (uint32_t i = 0; i < items; ++i) s[2 * i] = roots[i];
  float d[kFmaCount + kDivideCount][4] = {};
  std::memcpy(d, kFmaCases, sizeof kFmaCases);
  for (int k = 0; k < kDivideCount; ++k) {
    d[kFmaCount + k][0] = kDivideCases[k][0];
    d[kFmaCount + k][1] = kDivideCases[k][1];
  }
  for (auto& row : d) row[3] = 0;
  std::vector<std::vector<uint8_t>> data = {bytes_of(&d[0][0], sizeof d / 4), bytes_of(s.data(), s.size())};
  if (!run_probe(device, caps, features,
                 "__kernel void probe(__global float* d, __global float* s) {"
                 "  size_t i = get_global_id(0);"
                 "  if (i < 3) d[4 * i + 3] = fma(d[4 * i], d[4 * i + 1], d[4 * i + 2]);"
                 "  if (i >= 3 && i < 8) d[4 * i + 3] = d[4 * i] / d[4 * i + 1];"
                 "  s[2 * i + 1] = native_sqrt(s[2 * i]);"  // GLSL.std.450 Sqrt and nothing else
                 "}",
                 items, &data)) {
    none.complete = failed_probe_runs() == 0;
    return none;
  }

  PrecisionProbe result;
  float out[kFmaCount + kDivideCount][4];
  std::memcpy(out, data[0].data(), sizeof out);
  result.exact_fma = true;
  for (int i = 0; i < kFmaCount; ++i)
    if (std::memcmp(&out[i][3], &kFmaCases[i][3], 4) != 0) result.exact_fma = false;
  result.full_range_divide = true;
  for (int k = 0; k < kDivideCount; ++k) {
    float got = out[kFmaCount + k][3], want = kDivideCases[k][2];
    bool ok = got == want || (std::isfinite(want) && std::fabs(got - want) <= 2.5f * 0x1p-23f * std::fabs(want));
    if (!ok) result.full_range_divide = false;
  }
  std::memcpy(s.data(), data[1].data(), s.size() * 4);
  // The device's Sqrt serves as OpenCL's (3 ulp) where it is within 1 ulp on every input
  // here: special values IEEE's, denormal inputs exact or flushed to a zero of their sign.
  // Thousands of inputs over every binade separate a faithful square root from the 2-4 ulp
  // estimates Vulkan allows with a wide margin.
  double worst_sqrt = 0;
  bool specials_right = true;
  for (uint32_t i = 0; i < items; ++i) {
    float x = roots[i], got = s[2 * i + 1], expected = std::sqrt(x);
    bool flushed = std::fpclassify(x) == FP_SUBNORMAL && got == 0.0f &&
                   std::signbit(got) == std::signbit(x);
    bool same = std::memcmp(&got, &expected, 4) == 0 || (std::isnan(got) && std::isnan(expected));
    if (same || flushed) continue;
    if (!std::isfinite(expected) || expected == 0.0f || !std::isfinite(got))
      specials_right = false;
    else
      worst_sqrt = std::max(worst_sqrt, std::fabs(double(got) - expected) /
                                            (std::nextafter(expected, INFINITY) - expected));
  }
  result.close_sqrt = specials_right && worst_sqrt <= 1.0;
  if (std::getenv("VKCL_PROBE_LOG"))
    std::fprintf(stderr, "vkcl probe: fma %s, sqrt worst %.2f ulp%s, full-range divide %s\n",
                 result.exact_fma ? "fused" : "not fused", worst_sqrt,
                 specials_right ? "" : " (special values wrong)",
                 result.full_range_divide ? "yes" : "no");
  if (caps.float64) probe_doubles(device, caps, features, &result);
  probe_small_integers(device, caps, features, &result);
  // Without Float16 the translator carries halves in floats (widen_half.cpp): probed the same.
  probe_halves(device, caps, features, &result);
  result.complete = failed_probe_runs() == 0;
  return result;
}

}  // namespace vkcl::cl
