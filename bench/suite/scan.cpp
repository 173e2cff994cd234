// Reduction and scan of uints through __local memory, with exact checks (both wrap modulo 2^32
// on the device and on the host).
//  - reduce: each work-item sums a strided part of the input, a tree in __local memory sums the
//    work-group, pass 2 (one work-group) sums the partial results. GB/s of input read.
//  - scan: exclusive scan in three kernels: each work-group scans a block (4 elements per
//    work-item) and writes the block's total, one work-group scans the totals, every element
//    then adds its block's offset. Million elements per second.

#include <cstdint>
#include <random>

#include "suite.h"

namespace vkcl_bench {
namespace {

constexpr int kElementsPerItem = 4;  // scan
constexpr size_t kReduceGroups = 1024;

const char* const kSource = R"CL(
#define LOCAL_REQ __attribute__((reqd_work_group_size(WG, 1, 1)))

__kernel LOCAL_REQ void reduce(__global const uint* in, __global uint* partial, uint n) {
  __local uint scratch[WG];
  const uint lid = get_local_id(0);
  uint sum = 0;
  for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) sum += in[i];
  scratch[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = WG / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = scratch[0];
}

// (exclusive prefix of |value| over the work-group, the work-group's total)
uint2 group_scan(__local uint* scratch, uint lid, uint value) {
  scratch[lid] = value;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint offset = 1; offset < WG; offset <<= 1) {
    const uint add = lid >= offset ? scratch[lid - offset] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    scratch[lid] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const uint2 result = (uint2)(scratch[lid] - value, scratch[WG - 1]);
  barrier(CLK_LOCAL_MEM_FENCE);
  return result;
}

__kernel LOCAL_REQ void scan_blocks(__global const uint* in, __global uint* out,
                                    __global uint* totals) {
  __local uint scratch[WG];
  const uint lid = get_local_id(0);
  const size_t base = get_group_id(0) * (WG * E) + lid * E;
  uint v[E];
  uint total = 0;
  for (int e = 0; e < E; ++e) {
    v[e] = in[base + e];
    total += v[e];
  }
  const uint2 scanned = group_scan(scratch, lid, total);
  uint prefix = scanned.x;
  for (int e = 0; e < E; ++e) {
    out[base + e] = prefix;
    prefix += v[e];
  }
  if (lid == 0) totals[get_group_id(0)] = scanned.y;
}

__kernel LOCAL_REQ void scan_totals(__global uint* totals, uint count) {
  __local uint scratch[WG];
  const uint lid = get_local_id(0);
  uint carry = 0;
  for (uint chunk = 0; chunk < count; chunk += WG * E) {
    const uint base = chunk + lid * E;
    uint v[E];
    uint total = 0;
    for (int e = 0; e < E; ++e) {
      v[e] = base + e < count ? totals[base + e] : 0;
      total += v[e];
    }
    const uint2 scanned = group_scan(scratch, lid, total);
    uint prefix = carry + scanned.x;
    for (int e = 0; e < E; ++e) {
      if (base + e < count) totals[base + e] = prefix;
      prefix += v[e];
    }
    carry += scanned.y;
  }
}

__kernel void add_offsets(__global uint* out, __global const uint* offsets) {
  const size_t i = get_global_id(0);
  out[i] += offsets[i / (WG * E)];
}
)CL";

std::vector<uint32_t> RandomWords(size_t n) {
  std::vector<uint32_t> values(n);
  std::mt19937 random(1234);
  for (uint32_t& value : values) value = random();
  return values;
}

size_t GroupSize(const Platform& platform) {
  size_t size = 1;
  while (size * 2 <= std::min<size_t>(256, platform.max_work_group_size)) size *= 2;
  return size;
}

class MultiKernelTrial : public Trial {
 public:
  explicit MultiKernelTrial(Platform& platform) : platform_(platform) {}

  struct Launch {
    cl_kernel kernel;
    size_t global;
    size_t local;  // 0: the implementation chooses
  };

  cl_int Run(Outcome& outcome) override {
    const Timing timing = TimeCommands(platform_, [&](std::vector<cl_event>& events) {
      for (const Launch& launch : launches) {
        cl_event event = nullptr;
        const cl_int error = clEnqueueNDRangeKernel(
            platform_.queue.get(), launch.kernel, 1, nullptr, &launch.global,
            launch.local ? &launch.local : nullptr, 0, nullptr, &event);
        if (error != CL_SUCCESS) return error;
        events.push_back(event);
      }
      return CL_SUCCESS;
    });
    if (timing.error != CL_SUCCESS) return timing.error;
    outcome.samples[0].push_back(work / timing.seconds);
    if (timing.wall) outcome.wall[0] = true;
    return CL_SUCCESS;
  }

  void Check(Outcome& outcome) override {
    const std::string problem = check();
    if (problem.empty()) return;
    outcome.marks[0] = "WRONG";
    outcome.note = problem;
  }

  Platform& platform_;
  Program program;
  std::vector<Kernel> kernels;
  std::vector<Buffer> buffers;
  std::vector<Launch> launches;
  double work = 0;
  std::function<std::string()> check;
};

// Builds the source with the work-group size |group| and creates |names|.
bool Build(MultiKernelTrial& trial, size_t group, std::initializer_list<const char*> names,
           Outcome& outcome) {
  std::string log;
  const std::string options =
      "-DWG=" + std::to_string(group) + " -DE=" + std::to_string(kElementsPerItem);
  cl_int error = BuildProgram(trial.platform_, kSource, options, trial.program, log);
  if (error != CL_SUCCESS) {
    outcome.failure = ErrorCell(error);
    outcome.note = log;
    return false;
  }
  for (const char* name : names) {
    trial.kernels.emplace_back(clCreateKernel(trial.program.get(), name, &error));
    if (error != CL_SUCCESS) {
      Failed(outcome, error, std::string("clCreateKernel ") + name);
      return false;
    }
  }
  return true;
}

std::unique_ptr<Trial> PrepareReduce(Platform& platform, Outcome& outcome, size_t n) {
  const size_t group = GroupSize(platform);
  auto trial = std::make_unique<MultiKernelTrial>(platform);
  if (!Build(*trial, group, {"reduce", "reduce"}, outcome)) return nullptr;
  const std::vector<uint32_t> input = RandomWords(n);
  const std::vector<uint32_t> poison(kReduceGroups, 0xdeadbeefu);
  trial->buffers.resize(3);
  cl_int error = CreateBuffer(platform, CL_MEM_READ_ONLY, n * 4, input.data(), trial->buffers[0]);
  if (error == CL_SUCCESS)
    error = CreateBuffer(platform, CL_MEM_READ_WRITE, kReduceGroups * 4, poison.data(),
                         trial->buffers[1]);
  if (error == CL_SUCCESS)
    error = CreateBuffer(platform, CL_MEM_READ_WRITE, 4, poison.data(), trial->buffers[2]);
  if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateBuffer");
  cl_mem in = trial->buffers[0].get(), partial = trial->buffers[1].get(),
         result = trial->buffers[2].get();
  const cl_uint count = static_cast<cl_uint>(n), partials = kReduceGroups;
  error = SetArgs(trial->kernels[0].get(),
                  {{sizeof(in), &in}, {sizeof(partial), &partial}, {sizeof(count), &count}});
  if (error == CL_SUCCESS)
    error = SetArgs(trial->kernels[1].get(), {{sizeof(partial), &partial},
                                              {sizeof(result), &result},
                                              {sizeof(partials), &partials}});
  if (error != CL_SUCCESS) return Failed(outcome, error, "clSetKernelArg");
  trial->launches = {{trial->kernels[0].get(), kReduceGroups * group, group},
                     {trial->kernels[1].get(), group, group}};
  trial->work = n * 4 * 1e-9;
  uint32_t expected = 0;
  for (uint32_t value : input) expected += value;
  MultiKernelTrial* raw = trial.get();
  trial->check = [raw, &platform, expected]() -> std::string {
    uint32_t got = 0;
    const cl_int error = ReadBuffer(platform, raw->buffers[2], 4, &got);
    if (error != CL_SUCCESS) return "read back failed: " + ErrorCell(error);
    if (got == expected) return "";
    return "sum " + std::to_string(got) + ", expected " + std::to_string(expected);
  };
  return trial;
}

std::unique_ptr<Trial> PrepareScan(Platform& platform, Outcome& outcome, size_t n) {
  const size_t group = GroupSize(platform);
  const size_t block = group * kElementsPerItem;
  const size_t blocks = n / block;
  auto trial = std::make_unique<MultiKernelTrial>(platform);
  if (!Build(*trial, group, {"scan_blocks", "scan_totals", "add_offsets"}, outcome))
    return nullptr;
  const std::vector<uint32_t> input = RandomWords(n);
  const std::vector<uint32_t> poison(n, 0xdeadbeefu);
  trial->buffers.resize(3);
  cl_int error = CreateBuffer(platform, CL_MEM_READ_ONLY, n * 4, input.data(), trial->buffers[0]);
  if (error == CL_SUCCESS)
    error = CreateBuffer(platform, CL_MEM_READ_WRITE, n * 4, poison.data(), trial->buffers[1]);
  if (error == CL_SUCCESS)
    error = CreateBuffer(platform, CL_MEM_READ_WRITE, blocks * 4, poison.data(), trial->buffers[2]);
  if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateBuffer");
  cl_mem in = trial->buffers[0].get(), out = trial->buffers[1].get(),
         totals = trial->buffers[2].get();
  const cl_uint count = static_cast<cl_uint>(blocks);
  error = SetArgs(trial->kernels[0].get(),
                  {{sizeof(in), &in}, {sizeof(out), &out}, {sizeof(totals), &totals}});
  if (error == CL_SUCCESS)
    error = SetArgs(trial->kernels[1].get(), {{sizeof(totals), &totals}, {sizeof(count), &count}});
  if (error == CL_SUCCESS)
    error = SetArgs(trial->kernels[2].get(), {{sizeof(out), &out}, {sizeof(totals), &totals}});
  if (error != CL_SUCCESS) return Failed(outcome, error, "clSetKernelArg");
  trial->launches = {{trial->kernels[0].get(), blocks * group, group},
                     {trial->kernels[1].get(), group, group},
                     {trial->kernels[2].get(), n, 0}};
  trial->work = n * 1e-6;
  MultiKernelTrial* raw = trial.get();
  trial->check = [raw, &platform, input, n]() -> std::string {
    std::vector<uint32_t> got(n);
    const cl_int error = ReadBuffer(platform, raw->buffers[1], n * 4, got.data());
    if (error != CL_SUCCESS) return "read back failed: " + ErrorCell(error);
    uint32_t prefix = 0;
    for (size_t i = 0; i < n; ++i) {
      if (got[i] != prefix)
        return "element " + std::to_string(i) + ": got " + std::to_string(got[i]) +
               ", expected " + std::to_string(prefix);
      prefix += input[i];
    }
    return "";
  };
  return trial;
}

}  // namespace

void AddScanMeasures(std::vector<Measure>& measures, const Options& options) {
  const int reduce_log = options.quick ? 22 : 24;
  const size_t reduce_n = size_t{1} << reduce_log;
  Measure reduce;
  reduce.rows = {{"reduce uint sum 2^" + std::to_string(reduce_log) + " (GB/s)", true}};
  reduce.prepare = [reduce_n](Platform& platform, Outcome& outcome) {
    return PrepareReduce(platform, outcome, reduce_n);
  };
  measures.push_back(std::move(reduce));

  const size_t scan_n = size_t{1} << 22;
  Measure scan;
  scan.rows = {{"scan exclusive uint 2^22 (Melem/s)", true}};
  scan.prepare = [scan_n](Platform& platform, Outcome& outcome) {
    return PrepareScan(platform, outcome, scan_n);
  };
  measures.push_back(std::move(scan));
}

}  // namespace vkcl_bench
