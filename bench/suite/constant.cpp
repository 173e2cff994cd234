// __constant memory: a 7x7 convolution whose weights come from a __constant argument (every
// work-item reads the same weight at once, as image filters do), and a table lookup whose
// index is each work-item's own (as hash and cipher kernels do), from a __constant argument
// and from a program-scope __constant table. Small integers throughout, so every result is
// exact and the whole output is checked. Million results per second.

#include <cstdint>
#include <string>
#include <vector>

#include "suite.h"

namespace vkcl_bench {
namespace {

constexpr int kRadius = 3, kTaps = 2 * kRadius + 1;
constexpr int kTable = 256;
constexpr int kLookups = 16;  // per work-item

const char* const kSource = R"CL(
__kernel void convolve(__global const float* in, __global float* out, __constant float* weights,
                       int width, int height) {
  const int x = get_global_id(0), y = get_global_id(1);
  float acc = 0;
  for (int dy = -R; dy <= R; ++dy)
    for (int dx = -R; dx <= R; ++dx) {
      const int sx = clamp(x + dx, 0, width - 1), sy = clamp(y + dy, 0, height - 1);
      acc += weights[(dy + R) * (2 * R + 1) + dx + R] * in[sy * width + sx];
    }
  out[y * width + x] = acc;
}

// (the two lookups differ only in where the table is)
#define LOOKUP(table)                                                     \
  const size_t i = get_global_id(0);                                      \
  uint v = in[i], acc = 0;                                                \
  for (int k = 0; k < L; ++k) {                                           \
    v = table[(v + k) & (T - 1)];                                         \
    acc += v;                                                             \
  }                                                                       \
  out[i] = acc;

__kernel void lookup(__global const uint* in, __global uint* out, __constant uint* table) {
  LOOKUP(table)
}

__constant uint program_table[T] = {TABLE};

__kernel void lookup_program(__global const uint* in, __global uint* out) { LOOKUP(program_table) }
)CL";

std::vector<uint32_t> Table() {
  std::vector<uint32_t> t(kTable);
  for (int i = 0; i < kTable; ++i) t[i] = uint32_t((i * 73 + 41) % kTable);
  return t;
}

std::string BuildOptions() {
  std::string table;
  for (uint32_t v : Table()) table += (table.empty() ? "" : ",") + std::to_string(v);
  return "-DR=" + std::to_string(kRadius) + " -DT=" + std::to_string(kTable) + " -DL=" +
         std::to_string(kLookups) + " -DTABLE=" + table;
}

std::string Mismatch(const std::vector<float>& got, const std::vector<float>& want) {
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i])
      return "element " + std::to_string(i) + ": got " + std::to_string(got[i]) + ", expected " +
             std::to_string(want[i]);
  return "";
}

// The trial's buffers: its input, its output (as large) and its __constant data.
cl_int CreateBuffers(Platform& platform, KernelTrial& trial, const void* in, size_t bytes, const void* data,
                     size_t data_bytes) {
  trial.buffers.resize(3);
  cl_int error = CreateBuffer(platform, CL_MEM_READ_ONLY, bytes, in, trial.buffers[0]);
  if (error == CL_SUCCESS) error = CreateBuffer(platform, CL_MEM_WRITE_ONLY, bytes, nullptr, trial.buffers[1]);
  if (error == CL_SUCCESS) error = CreateBuffer(platform, CL_MEM_READ_ONLY, data_bytes, data, trial.buffers[2]);
  return error;
}

std::unique_ptr<Trial> PrepareConvolve(Platform& platform, Outcome& outcome, int side) {
  auto trial = std::make_unique<KernelTrial>(platform);
  if (!trial->Prepare(kSource, "convolve", BuildOptions(), outcome)) return nullptr;
  const size_t pixels = size_t(side) * side;
  std::vector<float> in(pixels), weights(kTaps * kTaps);
  for (size_t i = 0; i < pixels; ++i) in[i] = float((i * 7 + i / side) % 16);
  for (int i = 0; i < kTaps * kTaps; ++i) weights[i] = float(i % 5 - 2);
  cl_int error = CreateBuffers(platform, *trial, in.data(), pixels * 4, weights.data(), weights.size() * 4);
  if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateBuffer");
  cl_mem a = trial->buffers[0].get(), b = trial->buffers[1].get(), w = trial->buffers[2].get();
  error = SetArgs(trial->kernel.get(), {{sizeof a, &a}, {sizeof b, &b}, {sizeof w, &w},
                                        {sizeof side, &side}, {sizeof side, &side}});
  if (error != CL_SUCCESS) return Failed(outcome, error, "clSetKernelArg");
  trial->dimensions = 2;
  trial->global[0] = trial->global[1] = size_t(side);
  trial->work = double(pixels) * 1e-6;
  std::vector<float> want(pixels);
  for (int y = 0; y < side; ++y)
    for (int x = 0; x < side; ++x) {
      float acc = 0;
      for (int dy = -kRadius; dy <= kRadius; ++dy)
        for (int dx = -kRadius; dx <= kRadius; ++dx) {
          const int sx = std::min(std::max(x + dx, 0), side - 1), sy = std::min(std::max(y + dy, 0), side - 1);
          acc += weights[(dy + kRadius) * kTaps + dx + kRadius] * in[size_t(sy) * side + sx];
        }
      want[size_t(y) * side + x] = acc;
    }
  KernelTrial* raw = trial.get();
  trial->check = [raw, &platform, want = std::move(want)]() {
    std::vector<float> got(want.size());
    const cl_int error = ReadBuffer(platform, raw->buffers[1], got.size() * 4, got.data());
    return error != CL_SUCCESS ? "read back failed: " + ErrorCell(error) : Mismatch(got, want);
  };
  return trial;
}

std::unique_ptr<Trial> PrepareLookup(Platform& platform, Outcome& outcome, size_t items, bool program_scope) {
  auto trial = std::make_unique<KernelTrial>(platform);
  if (!trial->Prepare(kSource, program_scope ? "lookup_program" : "lookup", BuildOptions(), outcome)) return nullptr;
  const std::vector<uint32_t> table = Table();
  std::vector<uint32_t> in(items);
  for (size_t i = 0; i < items; ++i) in[i] = uint32_t(i * 2654435761u >> 7);
  cl_int error = CreateBuffers(platform, *trial, in.data(), items * 4, table.data(), table.size() * 4);
  if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateBuffer");
  cl_mem a = trial->buffers[0].get(), b = trial->buffers[1].get(), t = trial->buffers[2].get();
  error = program_scope ? SetArgs(trial->kernel.get(), {{sizeof a, &a}, {sizeof b, &b}})
                        : SetArgs(trial->kernel.get(), {{sizeof a, &a}, {sizeof b, &b}, {sizeof t, &t}});
  if (error != CL_SUCCESS) return Failed(outcome, error, "clSetKernelArg");
  trial->global[0] = items;
  trial->work = double(items) * 1e-6;
  std::vector<float> want(items);  // compared as floats: every sum is below 2^24
  for (size_t i = 0; i < items; ++i) {
    uint32_t v = in[i], acc = 0;
    for (int k = 0; k < kLookups; ++k) {
      v = table[(v + k) & (kTable - 1)];
      acc += v;
    }
    want[i] = float(acc);
  }
  KernelTrial* raw = trial.get();
  trial->check = [raw, &platform, want = std::move(want)]() {
    std::vector<uint32_t> bits(want.size());
    const cl_int error = ReadBuffer(platform, raw->buffers[1], bits.size() * 4, bits.data());
    if (error != CL_SUCCESS) return "read back failed: " + ErrorCell(error);
    return Mismatch(std::vector<float>(bits.begin(), bits.end()), want);
  };
  return trial;
}

}  // namespace

void AddConstantMeasures(std::vector<Measure>& measures, const Options& options) {
  const int side = options.quick ? 512 : 2048;
  const size_t items = options.quick ? (size_t(1) << 20) : (size_t(1) << 24);
  Measure convolve;
  convolve.rows = {{"convolve 7x7 __constant weights " + std::to_string(side) + "^2 (Mpixel/s)", true}};
  convolve.prepare = [side](Platform& platform, Outcome& outcome) { return PrepareConvolve(platform, outcome, side); };
  measures.push_back(std::move(convolve));
  for (bool program_scope : {false, true}) {
    Measure lookup;
    lookup.rows = {{std::string("lookup ") + std::to_string(kLookups) + "x " +
                        (program_scope ? "program-scope __constant" : "__constant argument") + " table (M/s)",
                    true}};
    lookup.prepare = [items, program_scope](Platform& platform, Outcome& outcome) {
      return PrepareLookup(platform, outcome, items, program_scope);
    };
    measures.push_back(std::move(lookup));
  }
}

}  // namespace vkcl_bench
