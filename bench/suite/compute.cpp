// Compute throughput in the manner of clpeak: each work-item runs 8 independent chains of
// x = mad(x, a, b) (or fma, or a*b+c on integers), unrolled 8 times per loop iteration, with a
// and b kernel arguments so nothing can be folded. A multiply-add counts as 2 operations per
// component. Each work-item writes the sum of its chains, checked against a CPU evaluation on a
// few work-items. With 0 < a < 1 the chains converge slowly towards b / (1 - a), so rounding
// errors do not grow and the value still depends on the number of steps taken.

#include <cmath>
#include <cstdint>

#include "suite.h"

namespace vkcl_bench {
namespace {

constexpr int kChains = 8;
constexpr int kUnroll = 8;
constexpr int kCheckedItems = 16;

enum class Kind { kFloatMad, kFloatFma, kDouble, kHalf, kInt };

struct Variant {
  Kind kind;
  int width;
  std::string row;
  size_t local = 0;  // work-items per work-group; 0: the implementation chooses
};

std::string Scalar(Kind kind) {
  switch (kind) {
    case Kind::kDouble: return "double";
    case Kind::kHalf: return "half";
    case Kind::kInt: return "uint";
    default: return "float";
  }
}

std::string Source(Kind kind, int width) {
  const std::string scalar = Scalar(kind);
  const std::string type = width == 1 ? scalar : scalar + std::to_string(width);
  // The result type of each work-item: float for half, so the host needs no half conversion.
  const std::string out = kind == Kind::kHalf ? "float" : scalar;
  const std::string arg = kind == Kind::kHalf ? "float" : scalar;
  std::string step;
  for (int c = 0; c < kChains; ++c) {
    std::string x = "x";  // built in two steps: GCC 12 warns wrongly (-Wrestrict) on "x" + s
    x += std::to_string(c);
    switch (kind) {
      case Kind::kFloatFma: step += x + " = fma(" + x + ", a, b); "; break;
      case Kind::kInt: step += x + " = " + x + " * a + b; "; break;
      default: step += x + " = mad(" + x + ", a, b); "; break;
    }
  }
  std::string source;
  if (kind == Kind::kDouble) source += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  if (kind == Kind::kHalf) source += "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n";
  source += "#define STEP " + step + "\n";
  source += "__kernel void compute(__global " + out + "* out, " + arg + " a_in, " + arg +
            " b_in, int iterations) {\n"
            "  const size_t gid = get_global_id(0);\n"
            "  const " + type + " a = (" + type + ")((" + scalar + ")a_in);\n"
            "  const " + type + " b = (" + type + ")((" + scalar + ")b_in);\n";
  for (int c = 0; c < kChains; ++c) {
    const std::string start = kind == Kind::kInt
                                  ? "(uint)(gid * 8 + " + std::to_string(c) + ")"
                                  : "(" + scalar + ")((gid % 64) * 0.25f + " + std::to_string(c) + ")";
    source += "  " + type + " x" + std::to_string(c) + " = (" + type + ")(" + start + ");\n";
  }
  source += "  for (int i = 0; i < iterations; ++i) {\n   ";
  for (int u = 0; u < kUnroll; ++u) source += " STEP";
  source += "\n  }\n  const " + type + " sum = x0";
  for (int c = 1; c < kChains; ++c) source += " + x" + std::to_string(c);
  source += ";\n  out[gid] = ";
  if (width == 1) {
    source += "sum";
  } else {
    for (int c = 0; c < width; ++c)
      source += std::string(c ? " + " : "") + "(" + out + ")sum.s" + "0123456789abcdef"[c];
  }
  return source + ";\n}\n";
}

// The host's evaluation of work-item |gid|'s result (every component of a vector is the same).
double Expected(Kind kind, int width, size_t gid, int steps, double a, double b) {
  if (kind == Kind::kInt) {
    uint32_t sum = 0;
    for (int c = 0; c < kChains; ++c) {
      uint32_t x = static_cast<uint32_t>(gid * 8 + c);
      for (int s = 0; s < steps; ++s) x = x * static_cast<uint32_t>(a) + static_cast<uint32_t>(b);
      sum += x;
    }
    return static_cast<double>(static_cast<uint32_t>(sum * static_cast<uint32_t>(width)));
  }
  double sum = 0;
  for (int c = 0; c < kChains; ++c) {
    double x = (gid % 64) * 0.25 + c;
    for (int s = 0; s < steps; ++s) x = x * a + b;
    sum += x;
  }
  return sum * width;
}

std::unique_ptr<Trial> Prepare(Platform& platform, Outcome& outcome, const Variant& variant,
                               const Options& options) {
  const Kind kind = variant.kind;
  if (kind == Kind::kDouble && !platform.fp64)
    return NotAvailable(outcome, "no cl_khr_fp64 (CL_DEVICE_DOUBLE_FP_CONFIG is 0)");
  if (kind == Kind::kHalf && !platform.fp16) return NotAvailable(outcome, "no cl_khr_fp16");

  const bool gpu = (platform.device_type & CL_DEVICE_TYPE_GPU) != 0;
  size_t items = 1 << 14;
  int operations_per_item = 4096;  // multiply-adds per component chain set, see iterations
  if (!options.quick) {
    items = gpu ? std::max<size_t>(platform.compute_units * size_t{2048}, 1 << 20) : 1 << 16;
    operations_per_item = gpu ? 32768 : 8192;
  }
  const int iterations =
      std::max(1, operations_per_item / (kChains * kUnroll * variant.width));
  const int steps = iterations * kUnroll;

  auto trial = std::make_unique<KernelTrial>(platform);
  if (!trial->Prepare(Source(kind, variant.width), "compute", "", outcome)) return nullptr;
  const size_t element = kind == Kind::kDouble ? sizeof(double) : sizeof(float);
  trial->buffers.resize(1);
  cl_int error = CreateBuffer(platform, CL_MEM_WRITE_ONLY, items * element, nullptr,
                              trial->buffers[0]);
  if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateBuffer");
  cl_mem out = trial->buffers[0].get();

  double a = 0.999, b = 0.5;
  if (kind == Kind::kHalf) a = 0.875, b = 0.25;
  if (kind == Kind::kInt) a = 1664525, b = 1013904223;
  const float a_float = static_cast<float>(a), b_float = static_cast<float>(b);
  const cl_uint a_uint = static_cast<cl_uint>(a), b_uint = static_cast<cl_uint>(b);
  if (kind == Kind::kDouble)
    error = SetArgs(trial->kernel.get(), {{sizeof(out), &out}, {sizeof(a), &a},
                                          {sizeof(b), &b}, {sizeof(iterations), &iterations}});
  else if (kind == Kind::kInt)
    error = SetArgs(trial->kernel.get(), {{sizeof(out), &out}, {sizeof(a_uint), &a_uint},
                                          {sizeof(b_uint), &b_uint},
                                          {sizeof(iterations), &iterations}});
  else
    error = SetArgs(trial->kernel.get(), {{sizeof(out), &out}, {sizeof(a_float), &a_float},
                                          {sizeof(b_float), &b_float},
                                          {sizeof(iterations), &iterations}});
  if (error != CL_SUCCESS) return Failed(outcome, error, "clSetKernelArg");
  if (kind != Kind::kDouble && kind != Kind::kInt) a = a_float, b = b_float;

  trial->global[0] = items;
  trial->local[0] = variant.local;
  trial->work = 2.0 * kChains * steps * variant.width * static_cast<double>(items) * 1e-9;
  const double tolerance = kind == Kind::kHalf ? 2e-2 : kind == Kind::kInt ? 0 : 1e-3;
  KernelTrial* raw = trial.get();
  trial->check = [raw, &platform, kind, width = variant.width, items, element, steps, a, b,
                  tolerance]() -> std::string {
    std::vector<unsigned char> bytes(items * element);
    const cl_int error = ReadBuffer(platform, raw->buffers[0], bytes.size(), bytes.data());
    if (error != CL_SUCCESS) return "read back failed: " + ErrorCell(error);
    for (int s = 0; s < kCheckedItems; ++s) {
      const size_t gid = (s * items) / kCheckedItems + s % 7;
      double got = 0;
      if (kind == Kind::kDouble)
        got = reinterpret_cast<const double*>(bytes.data())[gid];
      else if (kind == Kind::kInt)
        got = reinterpret_cast<const uint32_t*>(bytes.data())[gid];
      else
        got = reinterpret_cast<const float*>(bytes.data())[gid];
      const double expected = Expected(kind, width, gid, steps, a, b);
      if (std::fabs(got - expected) <= tolerance * std::fabs(expected)) continue;
      return "work-item " + std::to_string(gid) + ": got " + std::to_string(got) +
             ", expected " + std::to_string(expected);
    }
    return "";
  };
  return trial;
}

}  // namespace

void AddComputeMeasures(std::vector<Measure>& measures, const Options& options) {
  std::vector<Variant> variants;
  for (int width : {1, 2, 4, 8, 16}) {
    const std::string type = width == 1 ? "float" : "float" + std::to_string(width);
    variants.push_back({Kind::kFloatMad, width, "compute SP mad " + type + " (GFLOP/s)"});
  }
  variants.push_back({Kind::kFloatFma, 1, "compute SP fma float (GFLOP/s)"});
  variants.push_back({Kind::kDouble, 1, "compute DP mad double (GFLOP/s)"});
  variants.push_back({Kind::kHalf, 1, "compute HP mad half (GFLOP/s)"});
  variants.push_back({Kind::kInt, 1, "compute int a*b+c uint (GIOP/s)"});
  // What hashcat asks of every CPU device: work-groups of one work-item.
  variants.push_back({Kind::kInt, 1, "compute int a*b+c uint, groups of 1 (GIOP/s)", 1});
  for (const Variant& variant : variants) {
    Measure measure;
    measure.rows = {{variant.row, true}};
    measure.prepare = [variant, &options](Platform& platform, Outcome& outcome) {
      return Prepare(platform, outcome, variant, options);
    };
    measures.push_back(std::move(measure));
  }
}

}  // namespace vkcl_bench
