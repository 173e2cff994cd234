// vkcl_mathtest: runs OpenCL math built-ins on the device the ICD loader gives (vkcl, or
// any other implementation through OCL_ICD_VENDORS) over edge and random inputs, and reports
// the largest error in ulps against MPFR next to the full-profile bound.
//   vkcl_mathtest [--full] [--samples N] [--functions a,b] [--widths 1,4,16] [--seed S]
//                 [--known a,b] [--type half|float|double]
// Exit status 0 only when every bounded function is within its bound; --known names
// functions whose failures are documented (they still print, as KNOWN).
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "reference.h"

namespace vkcl::mathtest {
namespace {

struct Options {
  size_t samples = 4096;
  std::set<std::string> only;
  std::set<std::string> known;  // failures already reported upstream/in the notes: shown, not counted
  std::vector<int> widths = {1};
  uint32_t seed = 1;
  bool fp64 = false;  // --type double: the double versions (cl_khr_fp64), Float64 bounds
  bool fp16 = false;  // --type half: the half versions (cl_khr_fp16), Float16 bounds
};

template <typename T> std::vector<T> edge_values();

template <> std::vector<float> edge_values<float>() {
  std::vector<float> v = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 0.5f, -0.5f,
                          2.0f, -2.0f, 3.0f, 10.0f, 0x1p-149f, -0x1p-149f, 0x1.fffffcp-127f,
                          0x1p-126f, -0x1p-126f, 0x1.fffffep127f, -0x1.fffffep127f,
                          1.5707964f, 3.1415927f, -3.1415927f, 6.2831855f, 1e30f, -1e30f,
                          1e10f, 0x1p24f, 0x1p23f + 1, 0.999999f, 1.000001f, 88.72f, -87.3f,
                          -103.9f, 127.99f, -149.5f, 2.5f, -2.5f, 0x1.921fb6p+0f, 1e-20f, 100.0f};
  return v;
}

template <> std::vector<double> edge_values<double>() {
  return {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, 10.0,
          0x1p-1074, -0x1p-1074, 0x1.ffffffffffffep-1023, 0x1p-1022, -0x1p-1022,
          0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023, 0x1.921fb54442d18p+0,
          0x1.921fb54442d18p+1, -0x1.921fb54442d18p+1, 1e300, -1e300, 1e10, 0x1p53, 0x1p52 + 1,
          0x1.fffffffffffffp-1, 0x1.0000000000001p+0, 709.7, -708.3, -745.1, 1023.99, -1074.5,
          2.5, -2.5, 1e-300, 100.0, 1e22, 0x1p-540};
}

float to_half(float v) { return float(_Float16(v)); }

// Half edge values, held as floats (every half is one).
std::vector<float> half_edge_values() {
  std::vector<float> v = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 3.0f,
          10.0f, 0x1p-24f, -0x1p-24f, 0x1.ff8p-15f, 0x1p-14f, -0x1p-14f, 65504.0f, -65504.0f,
          0x1.92p+0f, 0x1.92p+1f, -0x1.92p+1f, 1000.0f, -1000.0f, 2048.0f, 2049.0f, 0x1.ffcp-1f,
          0x1.004p+0f, 11.0f, -9.7f, -17.3f, 15.99f, -24.5f, 2.5f, -2.5f, 1e-4f, 100.0f};
  for (float& f : v) f = to_half(f);  // 2049, -9.7, ... to their nearest halves
  return v;
}

struct Device {
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_device_id device = nullptr;
  std::string name;
  bool denormals = false;       // float
  bool fp64 = false;            // cl_khr_fp64
  bool fp16 = false;            // cl_khr_fp16
};

bool open_device(Device* d) {
  cl_platform_id platform;
  cl_uint n = 0;
  if (clGetPlatformIDs(1, &platform, &n) != CL_SUCCESS || n == 0) return false;
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &d->device, nullptr) != CL_SUCCESS) return false;
  char name[256] = {};
  clGetDeviceInfo(d->device, CL_DEVICE_NAME, sizeof name, name, nullptr);
  d->name = name;
  cl_device_fp_config fp = 0;
  clGetDeviceInfo(d->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, nullptr);
  d->denormals = fp & CL_FP_DENORM;
  cl_device_fp_config dfp = 0;
  clGetDeviceInfo(d->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof dfp, &dfp, nullptr);
  d->fp64 = dfp != 0;
  cl_device_fp_config hfp = 0;
  clGetDeviceInfo(d->device, CL_DEVICE_HALF_FP_CONFIG, sizeof hfp, &hfp, nullptr);
  d->fp16 = hfp != 0;
  cl_int err;
  d->context = clCreateContext(nullptr, 1, &d->device, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) return false;
  d->queue = clCreateCommandQueueWithProperties(d->context, d->device, nullptr, &err);
  return err == CL_SUCCESS;
}

// OpenCL C for one function at one vector width, on float or double (|type|).
std::string kernel_source(const MathFunction& f, int w, const std::string& type) {
  std::string T = w == 1 ? type : type + std::to_string(w);
  std::string one = type == "double" ? "1.0" : type == "half" ? "1.0h" : "1.0f";
  std::string IT = w == 1 ? "int" : "int" + std::to_string(w);
  auto load = [&](const char* p) {
    if (w == 1) return std::string(p) + "[i]";
    return "vload" + std::to_string(w) + "(i, " + p + ")";
  };
  auto store = [&](const std::string& v, const char* p) {
    if (w == 1) return std::string(p) + "[i] = " + v + ";";
    return "vstore" + std::to_string(w) + "(" + v + ", i, " + p + ");";
  };
  std::string x = load("x"), y = load("y"), z = load("z"), n = load("n");
  std::string body;
  switch (f.shape) {
    case Shape::F1:
      body = store(f.name == "recip" ? one + " / " + x
                   : "(" + T + ")" + f.name + "(" + x + ")", "r");
      break;
    case Shape::F2:
      body = store(f.name == "divide" ? x + " / " + y : f.name + "(" + x + ", " + y + ")", "r");
      break;
    case Shape::F3: body = store(f.name + "(" + x + ", " + y + ", " + z + ")", "r"); break;
    case Shape::FI: body = store(f.name + "(" + x + ", " + n + ")", "r"); break;
    case Shape::I_F: body = store(f.name + "(" + x + ")", "q"); break;
    case Shape::F_PF:
      body = T + " p; " + T + " v = " + f.name + "(" + x + ", &p); " + store("v", "r") + store("p", "r2");
      break;
    case Shape::F_PI:
      body = IT + " p; " + T + " v = " + f.name + "(" + x + ", &p); " + store("v", "r") + store("p", "q");
      break;
    case Shape::F2_PI:
      body = IT + " p; " + T + " v = " + f.name + "(" + x + ", " + y + ", &p); " + store("v", "r") + store("p", "q");
      break;
  }
  std::string S = "__global const " + type + "*";
  return std::string(type == "double" ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                     : type == "half" ? "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n" : "") +
         "__kernel void k(" + S + " x, " + S + " y, " + S + " z, __global const int* n, __global " +
         type + "* r, __global " + type + "* r2, __global int* q) { size_t i = get_global_id(0); " +
         body + " }";
}

struct Result {
  double max_error = 0;
  std::string worst;
  size_t tested = 0;
  std::string failure;  // build or run failure
};

// |half|: T is float holding half values (the device's format is half).
template <typename T>
T smallest_normal(bool half) { return half ? T(0x1p-14) : std::numeric_limits<T>::min(); }
template <typename T>
bool is_denormal(T v, bool half) { return v != 0 && std::fabs(v) < smallest_normal<T>(half); }
template <typename T>
T flushed(T v, bool half) { return is_denormal(v, half) ? std::copysign(T(0), v) : v; }

// Copies |v| to the device's format: as is, or as halves.
template <typename T>
std::vector<uint8_t> device_bytes(const std::vector<T>& v, bool half) {
  std::vector<uint8_t> out(v.size() * (half ? 2 : sizeof(T)));
  if (!half) {
    std::memcpy(out.data(), v.data(), out.size());
    return out;
  }
  for (size_t i = 0; i < v.size(); ++i) {
    _Float16 h = _Float16(v[i]);
    std::memcpy(&out[2 * i], &h, 2);
  }
  return out;
}

template <typename T>
void from_device_bytes(const std::vector<uint8_t>& b, bool half, std::vector<T>* v) {
  if (!half) {
    std::memcpy(v->data(), b.data(), b.size());
    return;
  }
  for (size_t i = 0; i < v->size(); ++i) {
    _Float16 h;
    std::memcpy(&h, &b[2 * i], 2);
    (*v)[i] = T(h);
  }
}

template <typename T>
Result run_function(Device& d, const MathFunction& f, int w, const Options& o) {
  using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  const bool half = o.fp16;
  const size_t size = half ? 2 : sizeof(T);
  // cl_khr_fp64 requires CL_FP_DENORM; the device does not report it for half.
  const bool denormals = size == 8 || (!half && d.denormals);
  Result res;
  std::mt19937_64 rng(o.seed);
  std::uniform_int_distribution<Bits> bits;
  std::uniform_real_distribution<T> range(f.lo, f.hi);
  std::vector<T> edges = edge_values<T>();
  if (half) {
    std::vector<float> h = half_edge_values();
    edges.assign(h.begin(), h.end());
  }
  size_t count = o.samples + edges.size() * edges.size();
  count = (count + w - 1) / w * w;
  std::vector<T> x(count), y(count), z(count);
  std::vector<int> n(count);
  for (size_t i = 0; i < count; ++i) {
    auto pick = [&](size_t salt) {
      if (i < edges.size() * edges.size()) return edges[(salt ? i / edges.size() : i % edges.size())];
      if (bits(rng) & 1) return half ? to_half(range(rng)) : range(rng);
      Bits b = bits(rng);
      if (half) {
        uint16_t h16 = uint16_t(b);
        _Float16 h;
        std::memcpy(&h, &h16, 2);
        return T(h);
      }
      T v;
      std::memcpy(&v, &b, size);
      return v;
    };
    x[i] = pick(0);
    y[i] = pick(1);
    z[i] = half ? to_half(pick(0) * T(0.75)) : pick(0) * T(0.75);
    // Mostly small exponents and roots; one in 8 anywhere in int, one in 8 near the
    // format's range (ldexp's scale across the whole exponent range and past it).
    uint32_t pick_n = uint32_t(bits(rng));
    n[i] = pick_n % 8 == 0 ? int(uint32_t(bits(rng)))
         : pick_n % 8 == 1 ? int(bits(rng) % 400) - 200 + (pick_n & 8 ? 1 : -1) * (size == 8 ? 1100 : size == 2 ? 200 : 150)
                           : int(bits(rng) % 41) - 20;
  }
  // Half fma inputs whose exact result lies just off a tie between two halves, where the
  // float nearest to it is the tie itself: a float fma rounded again to half gets each one
  // wrong (found by a search over random half triples, about one in 20000).
  static const float kHalfFmaDoubleRounding[][3] = {
      {0x1.2d8p-5f, 0x1.168p-9f, -0x1.3b4p-8f}, {0x1.45p+4f, 0x1.cp+6f, -0x1.394p-14f},
      {0x1.5cp+12f, 0x1.38p+1f, 0x1.1bcp-12f},  {0x1.4p+8f, 0x1.6e8p+6f, 0x1.6cp-14f},
      {0x1.3p+14f, 0x1.76p+1f, 0x1.b28p-13f},   {0x1.898p+0f, 0x1.cap+2f, -0x1.d48p+11f}};
  if (half && f.name == "fma")
    for (size_t k = 0; k < 6 && edges.size() * edges.size() + k < count; ++k) {
      size_t i = edges.size() * edges.size() + k;
      x[i] = kHalfFmaDoubleRounding[k][0], y[i] = kHalfFmaDoubleRounding[k][1], z[i] = kHalfFmaDoubleRounding[k][2];
    }
  if (f.name == "half_cos" || f.name == "half_sin" || f.name == "half_tan")
    for (auto& v : x) if (!(std::fabs(v) <= 65536.0f)) v = range(rng);  // the half_ domain

  cl_int err;
  std::string src = kernel_source(f, w, size == 8 ? "double" : size == 2 ? "half" : "float");
  const char* text = src.c_str();
  cl_program p = clCreateProgramWithSource(d.context, 1, &text, nullptr, &err);
  if (clBuildProgram(p, 1, &d.device, "", nullptr, nullptr) != CL_SUCCESS) {
    char log[2048] = {};
    clGetProgramBuildInfo(p, d.device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, nullptr);
    res.failure = std::string("build failed: ") + std::string(log).substr(0, 160);
    clReleaseProgram(p);
    return res;
  }
  cl_kernel k = clCreateKernel(p, "k", &err);
  auto buf = [&](size_t bytes, const void* init) {
    return clCreateBuffer(d.context, init ? CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE, bytes,
                          const_cast<void*>(init), &err);
  };
  std::vector<uint8_t> dx = device_bytes(x, half), dy = device_bytes(y, half), dz = device_bytes(z, half);
  cl_mem bx = buf(count * size, dx.data()), by = buf(count * size, dy.data());
  cl_mem bz = buf(count * size, dz.data()), bn = buf(count * 4, n.data());
  cl_mem br = buf(count * size, nullptr), br2 = buf(count * size, nullptr);
  cl_mem bq = buf(count * 4, nullptr);
  cl_mem args[] = {bx, by, bz, bn, br, br2, bq};
  for (cl_uint a = 0; a < 7; ++a) clSetKernelArg(k, a, sizeof(cl_mem), &args[a]);
  size_t global = count / w;
  std::vector<T> r(count), r2(count);
  std::vector<uint8_t> rb(count * size), r2b(count * size);
  std::vector<int> q(count);
  err = clEnqueueNDRangeKernel(d.queue, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr);
  if (err == CL_SUCCESS) err = clEnqueueReadBuffer(d.queue, br, CL_TRUE, 0, count * size, rb.data(), 0, nullptr, nullptr);
  if (err == CL_SUCCESS) err = clEnqueueReadBuffer(d.queue, br2, CL_TRUE, 0, count * size, r2b.data(), 0, nullptr, nullptr);
  from_device_bytes(rb, half, &r);
  from_device_bytes(r2b, half, &r2);
  if (err == CL_SUCCESS) err = clEnqueueReadBuffer(d.queue, bq, CL_TRUE, 0, count * 4, q.data(), 0, nullptr, nullptr);
  for (cl_mem m : args) clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseProgram(p);
  if (err != CL_SUCCESS) {
    res.failure = "run failed: " + std::to_string(err);
    return res;
  }

  mpfr_t ref, ref2;
  mpfr_init2(ref, 128);
  mpfr_init2(ref2, 128);
  for (size_t i = 0; i < count; ++i) {
    // Without CL_FP_DENORM a denormal input may be read as zero and a denormal result
    // returned as zero: the smaller error of the two readings counts.
    double best = INFINITY;
    bool any_denormal = is_denormal(x[i], half) || is_denormal(y[i], half) || is_denormal(z[i], half);
    for (int flush = 0; flush < (any_denormal && !denormals ? 2 : 1); ++flush) {
      double in[3] = {flush ? flushed(x[i], half) : x[i], flush ? flushed(y[i], half) : y[i],
                      flush ? flushed(z[i], half) : z[i]};
      f.ref(ref, ref2, in, n[i]);
      double e = 0;
      if (f.shape == Shape::I_F) {
        e = mpfr_cmp_si(ref, q[i]) == 0 ? 0 : INFINITY;
      } else {
        auto ulps = [&](T v, const mpfr_t exact) {
          if constexpr (std::is_same_v<T, float>) {
            if (half) return ulp_error_half(v, exact);
          }
          return ulp_error(v, exact);
        };
        T got = r[i];
        e = ulps(got, ref);
        if (f.zero_sign_free && got == 0 && mpfr_zero_p(ref)) e = 0;
        if (!denormals && got == 0 && mpfr_regular_p(ref) && mpfr_get_exp(ref) <= (half ? -14 : -126))
          e = 0;  // a denormal result flushed to zero
        if (f.shape == Shape::F_PF)
          e = std::max(e, f.second_exact ? (ulps(r2[i], ref2) == 0 ? 0.0 : INFINITY)
                                         : ulps(r2[i], ref2));
        if ((f.shape == Shape::F_PI || f.shape == Shape::F2_PI) &&
            !mpfr_nan_p(ref) && std::isfinite(x[i]) && mpfr_cmp_si(ref2, q[i]) != 0)
          e = INFINITY;
      }
      best = std::min(best, e);
    }
    ++res.tested;
    if (best > res.max_error || (std::isnan(best) && !std::isnan(res.max_error))) {
      res.max_error = best;
      char buf[200];
      std::snprintf(buf, sizeof buf, "x=%a y=%a z=%a n=%d -> %a", double(x[i]), double(y[i]),
                    double(z[i]), n[i], double(r[i]));
      res.worst = buf;
    }
  }
  mpfr_clear(ref);
  mpfr_clear(ref2);
  return res;
}

// The ulp measure on values whose answer is known by hand.
int self_test() {
  struct Case { double exact; float got; double want; };
  const Case cases[] = {
      {1.0, 1.0f, 0},                               // exact
      {1.0, 0x1.000002p+0f, 1},                     // one ulp above 1
      {1.0 + 0x1p-24, 1.0f, 0.5},                   // half an ulp (ulp of 1 is 2^-23)
      {0x1.fffffep-1, 1.0f, 1},                     // below 1 the ulp is 2^-24
      {0x1p-140, 0.0f, 512},                        // denormal range: ulp is 2^-149
      {3.0e38 * 2, INFINITY, 0},                    // overflows to infinity: right
      {-2.0, 2.0f, 0x1p24},                         // sign error: 4 / ulp(2) = 4 / 2^-22
  };
  int bad = 0;
  mpfr_t ref;
  mpfr_init2(ref, 128);
  for (const Case& c : cases) {
    mpfr_set_d(ref, c.exact, MPFR_RNDN);
    double e = ulp_error(c.got, ref);
    if (std::fabs(e - c.want) > 1e-9 * std::max(1.0, c.want)) {
      std::printf("ulp_error(%a vs %a) = %g, want %g\n", double(c.got), c.exact, e, c.want);
      ++bad;
    }
  }
  mpfr_set_nan(ref);
  if (ulp_error(NAN, ref) != 0 || !std::isinf(ulp_error(1.0f, ref))) ++bad;
  mpfr_set_zero(ref, -1);
  if (!std::isinf(ulp_error(0.0f, ref))) ++bad;  // +0 for -0 is wrong
  mpfr_clear(ref);
  std::printf("ulp self-test: %s\n", bad ? "FAILED" : "passed");
  return bad ? 1 : 0;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace
}  // namespace vkcl::mathtest

int main(int argc, char** argv) {
  using namespace vkcl::mathtest;
  Options o;
  for (int a = 1; a < argc; ++a) {
    std::string arg = argv[a];
    auto next = [&]() { return a + 1 < argc ? std::string(argv[++a]) : std::string(); };
    if (arg == "--self-test") return self_test();
    if (arg == "--full") o.samples = size_t(1) << 20;
    else if (arg == "--samples") o.samples = std::stoul(next());
    else if (arg == "--functions") for (auto& f : split_list(next())) o.only.insert(f);
    else if (arg == "--widths") {
      o.widths.clear();
      for (auto& w : split_list(next())) o.widths.push_back(std::stoi(w));
    } else if (arg == "--seed") o.seed = uint32_t(std::stoul(next()));
    else if (arg == "--known") for (auto& f : split_list(next())) o.known.insert(f);
    else if (arg == "--type" && (a + 1 < argc) && std::string(argv[a + 1]) == "double") o.fp64 = (++a, true);
    else if (arg == "--type" && (a + 1 < argc) && std::string(argv[a + 1]) == "half") o.fp16 = (++a, true);
    else if (arg == "--type" && (a + 1 < argc) && std::string(argv[a + 1]) == "float") ++a;
    else {
      std::fprintf(stderr, "usage: %s [--full] [--samples N] [--functions a,b] [--widths 1,4] [--seed S] [--known a,b] [--type half|float|double]\n", argv[0]);
      return 2;
    }
  }
  Device d;
  if (!open_device(&d)) {
    std::fprintf(stderr, "no OpenCL device\n");
    return 2;
  }
  use_format(o.fp64 ? 64 : o.fp16 ? 16 : 32);
  if (o.fp64 && !d.fp64) {
    std::printf("device: %s does not report cl_khr_fp64: no double functions to test\n", d.name.c_str());
    return 0;
  }
  if (o.fp16 && !d.fp16) {
    std::printf("device: %s does not report cl_khr_fp16: no half functions to test\n", d.name.c_str());
    return 0;
  }
  std::printf("device: %s, %s (denormals %s), %zu random inputs per function + edge pairs, seed %u\n",
              d.name.c_str(), o.fp64 ? "double" : o.fp16 ? "half" : "float",
              o.fp64 || (!o.fp16 && d.denormals) ? "supported" : "may flush", o.samples, o.seed);
  std::printf("%-12s %5s %12s %8s %9s  %s\n", "function", "width", "max ulp", "bound", "status", "worst input");
  int failures = 0;
  for (MathFunction f : functions()) {
    if (!o.only.empty() && !o.only.count(f.name)) continue;
    if (o.fp64) {
      // Float64 column: the same bounds but for correctly rounded division and sqrt; the
      // half_ and native_ functions have no double versions.
      if (f.name.rfind("half_", 0) == 0 || f.name.rfind("native_", 0) == 0) continue;
      if (f.name == "divide" || f.name == "recip" || f.name == "sqrt") f.bound = 0;
    }
    if (o.fp16) {
      // Float16 column: 2 ulp for most functions; the exact and correctly rounded ones and
      // the implementation-defined ones as for float.
      if (f.name.rfind("half_", 0) == 0 || f.name.rfind("native_", 0) == 0 || f.name == "recip") continue;
      const std::set<std::string> four = {"erf", "erfc", "pow", "pown", "powr", "rootn", "tgamma"};
      if (f.bound > 0.5)
        f.bound = four.count(f.name) ? 4 : f.name == "tan" ? 2.5 : f.name == "sqrt" ? 1.5
                : f.name == "rsqrt" || f.name == "divide" ? 1 : 2;
    }
    for (int w : o.widths) {
      Result r = o.fp64 ? run_function<double>(d, f, w, o) : run_function<float>(d, f, w, o);
      const char* status = !r.failure.empty() ? "FAIL"
                           : f.bound < 0 ? "info"
                           // "0 ulp" and "correctly rounded" both mean within half an ulp.
                           : r.max_error <= std::max(f.bound, 0.5) ? "PASS" : "FAIL";
      if (std::strcmp(status, "FAIL") == 0 && o.known.count(f.name)) status = "KNOWN";
      if (std::strcmp(status, "FAIL") == 0) ++failures;
      char bound[32];
      std::snprintf(bound, sizeof bound, f.bound < 0 ? "-" : "%g", f.bound);
      if (!r.failure.empty())
        std::printf("%-12s %5d %12s %8s %9s  %s\n", f.name.c_str(), w, "-", bound, status, r.failure.c_str());
      else
        std::printf("%-12s %5d %12.3f %8s %9s  %s\n", f.name.c_str(), w, r.max_error, bound, status,
                    r.max_error > 0 ? r.worst.c_str() : "");
      std::fflush(stdout);
    }
  }
  std::printf("%d failing\n", failures);
  return failures ? 1 : 0;
}
