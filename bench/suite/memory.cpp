// Global memory bandwidth: read (a sum per work-item into a small output), copy and triad, for
// float, float2, float4, float8 and float16. The inputs are small integers, so every result
// is exact in float whatever the order of the additions, and the whole output is checked.

#include <algorithm>
#include <cmath>
#include <cstring>

#include "suite.h"

namespace vkcl_bench {
namespace {

enum class Pattern { kRead, kCopy, kTriad };

constexpr cl_uint kReadPerItem = 16;  // vectors summed by one work-item in the read kernel
constexpr float kTriadScalar = 3.0f;

std::string TypeName(int width) { return width == 1 ? "float" : "float" + std::to_string(width); }

// "acc.s0 + acc.s1 + ..." for a vector, "acc" for a scalar.
std::string ComponentSum(int width) {
  if (width == 1) return "acc";
  std::string sum;
  for (int c = 0; c < width; ++c) sum += std::string(c ? " + " : "") + "acc.s" + "0123456789abcdef"[c];
  return sum;
}

std::string Source(Pattern pattern, int width) {
  const std::string type = TypeName(width);
  switch (pattern) {
    case Pattern::kRead:
      return "__kernel void bandwidth(__global const " + type +
             "* in, __global float* out, uint per_item) {\n"
             "  const size_t gid = get_global_id(0), stride = get_global_size(0);\n"
             "  " + type + " acc = 0;\n"
             "  for (uint k = 0; k < per_item; ++k) acc += in[gid + k * stride];\n"
             "  out[gid] = " + ComponentSum(width) + ";\n}\n";
    case Pattern::kCopy:
      return "__kernel void bandwidth(__global const " + type + "* in, __global " + type +
             "* out) {\n  const size_t i = get_global_id(0);\n  out[i] = in[i];\n}\n";
    case Pattern::kTriad:
      return "__kernel void bandwidth(__global " + type + "* a, __global const " + type +
             "* b, __global const " + type + "* c, float s) {\n"
             "  const size_t i = get_global_id(0);\n  a[i] = b[i] + s * c[i];\n}\n";
  }
  return "";
}

std::vector<float> Residues(size_t n, size_t modulus) {
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = static_cast<float>(i % modulus);
  return values;
}

std::string FirstMismatch(const std::vector<float>& got, const std::vector<float>& expected) {
  for (size_t i = 0; i < expected.size(); ++i) {
    if (got[i] == expected[i]) continue;
    return "element " + std::to_string(i) + ": got " + std::to_string(got[i]) + ", expected " +
           std::to_string(expected[i]);
  }
  return "";
}

std::unique_ptr<Trial> Prepare(Platform& platform, Outcome& outcome, Pattern pattern, int width,
                               size_t requested_bytes) {
  // Leave room for the other arrays of the measure and for other platforms' allocations.
  const size_t cap = std::min<cl_ulong>(platform.max_allocation, platform.global_memory / 8);
  size_t bytes = requested_bytes;
  while (bytes > cap && bytes > 4096) bytes /= 2;
  const size_t floats = bytes / sizeof(float);
  const size_t vectors = floats / width;

  auto trial = std::make_unique<KernelTrial>(platform);
  if (!trial->Prepare(Source(pattern, width), "bandwidth", "", outcome)) return nullptr;

  const std::vector<float> b = Residues(floats, 61);
  const std::vector<float> poison(floats, std::nanf(""));
  cl_int error = CL_SUCCESS;
  trial->buffers.resize(3);
  auto create = [&](size_t index, cl_mem_flags flags, size_t size, const void* data) {
    if (error == CL_SUCCESS) error = CreateBuffer(platform, flags, size, data, trial->buffers[index]);
  };
  std::vector<float> expected;
  switch (pattern) {
    case Pattern::kRead: {
      const size_t items = vectors / kReadPerItem;
      create(0, CL_MEM_READ_ONLY, bytes, b.data());
      create(1, CL_MEM_WRITE_ONLY, items * sizeof(float), poison.data());
      if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateBuffer");
      cl_mem in = trial->buffers[0].get(), out = trial->buffers[1].get();
      error = SetArgs(trial->kernel.get(), {{sizeof(in), &in}, {sizeof(out), &out},
                                            {sizeof(kReadPerItem), &kReadPerItem}});
      trial->global[0] = items;
      trial->work = (bytes + items * sizeof(float)) * 1e-9;
      expected.assign(items, 0.0f);
      for (size_t item = 0; item < items; ++item)
        for (cl_uint k = 0; k < kReadPerItem; ++k)
          for (int c = 0; c < width; ++c) expected[item] += b[(item + k * items) * width + c];
      break;
    }
    case Pattern::kCopy: {
      create(0, CL_MEM_READ_ONLY, bytes, b.data());
      create(1, CL_MEM_WRITE_ONLY, bytes, poison.data());
      if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateBuffer");
      cl_mem in = trial->buffers[0].get(), out = trial->buffers[1].get();
      error = SetArgs(trial->kernel.get(), {{sizeof(in), &in}, {sizeof(out), &out}});
      trial->global[0] = vectors;
      trial->work = 2.0 * bytes * 1e-9;
      expected = b;
      break;
    }
    case Pattern::kTriad: {
      const std::vector<float> c = Residues(floats, 29);
      create(0, CL_MEM_WRITE_ONLY, bytes, poison.data());
      create(1, CL_MEM_READ_ONLY, bytes, b.data());
      create(2, CL_MEM_READ_ONLY, bytes, c.data());
      if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateBuffer");
      cl_mem out = trial->buffers[0].get(), in_b = trial->buffers[1].get(),
             in_c = trial->buffers[2].get();
      error = SetArgs(trial->kernel.get(), {{sizeof(out), &out}, {sizeof(in_b), &in_b},
                                            {sizeof(in_c), &in_c},
                                            {sizeof(kTriadScalar), &kTriadScalar}});
      trial->global[0] = vectors;
      trial->work = 3.0 * bytes * 1e-9;
      expected.resize(floats);
      for (size_t i = 0; i < floats; ++i) expected[i] = b[i] + kTriadScalar * c[i];
      break;
    }
  }
  if (error != CL_SUCCESS) return Failed(outcome, error, "clSetKernelArg");
  const size_t output_index = pattern == Pattern::kTriad ? 0 : 1;
  KernelTrial* raw = trial.get();
  trial->check = [raw, &platform, output_index, expected = std::move(expected)]() {
    std::vector<float> got(expected.size());
    const cl_int error = ReadBuffer(platform, raw->buffers[output_index],
                                    got.size() * sizeof(float), got.data());
    if (error != CL_SUCCESS) return "read back failed: " + ErrorCell(error);
    return FirstMismatch(got, expected);
  };
  return trial;
}

}  // namespace

void AddMemoryMeasures(std::vector<Measure>& measures, const Options& options) {
  const size_t bytes = (options.quick ? 8 : 64) << 20;
  const std::string size = std::to_string(bytes >> 20) + " MiB";
  const struct {
    Pattern pattern;
    const char* name;
  } patterns[] = {{Pattern::kRead, "read"}, {Pattern::kCopy, "copy"}, {Pattern::kTriad, "triad"}};
  for (const auto& pattern : patterns) {
    for (int width : {1, 2, 4, 8, 16}) {
      Measure measure;
      measure.rows = {{std::string("bandwidth ") + pattern.name + " " + TypeName(width) + " " +
                           size + " (GB/s)",
                       true}};
      measure.prepare = [pattern = pattern.pattern, width, bytes](Platform& platform,
                                                                  Outcome& outcome) {
        return Prepare(platform, outcome, pattern, width, bytes);
      };
      measures.push_back(std::move(measure));
    }
  }
}

}  // namespace vkcl_bench
