// Two independent kernels, each too small to fill the device (half its compute units of
// work-groups, a long arithmetic loop per work-item), enqueued one after the other and
// finished: on an in-order queue the second waits for the first; on an out-of-order queue a
// device with room runs them at once. Wall clock per pair, results checked.

#include <cmath>

#include "suite.h"

namespace vkcl_bench {
namespace {

const char* const kSource = R"(
__kernel void spin(__global float* out, uint iterations, float seed) {
  float x = seed + get_global_id(0) * 1e-3f, y = 1.0f;
  for (uint i = 0; i < iterations; ++i) { y = fma(y, 0.999f, x); x = fma(x, 0.5f, 0.25f); }
  out[get_global_id(0)] = y;
}
)";

constexpr size_t kGroup = 64;

// What spin computes for work-item |i|, in double (the check allows float rounding).
double Spin(size_t i, cl_uint iterations, float seed) {
  double x = seed + i * 1e-3, y = 1.0;
  for (cl_uint k = 0; k < iterations; ++k) {
    y = y * 0.999 + x;
    x = x * 0.5 + 0.25;
  }
  return y;
}

class PairTrial : public Trial {
 public:
  explicit PairTrial(Platform& platform) : platform_(platform) {}

  cl_int Run(Outcome& outcome) override {
    for (int q = 0; q < 2; ++q) {
      const double start = NowSeconds();
      for (int k = 0; k < 2; ++k) {
        cl_int error = clEnqueueNDRangeKernel(queues[q].get(), kernels[k].get(), 1, nullptr, &global, &kGroup, 0,
                                              nullptr, nullptr);
        if (error != CL_SUCCESS) return error;
      }
      cl_int error = clFinish(queues[q].get());
      if (error != CL_SUCCESS) return error;
      outcome.samples[q].push_back((NowSeconds() - start) * 1e3);
      outcome.wall[q] = true;
    }
    return CL_SUCCESS;
  }

  void Check(Outcome& outcome) override {
    for (int k = 0; k < 2; ++k) {
      std::vector<float> got(global);
      if (ReadBuffer(platform_, outputs[k], global * sizeof(float), got.data()) != CL_SUCCESS) {
        outcome.marks[0] = outcome.marks[1] = "WRONG";
        return;
      }
      for (size_t i = 0; i < global; i += 97) {
        double want = Spin(i, iterations, seeds[k]);
        if (std::fabs(got[i] - want) > 1e-3 * std::fabs(want)) {
          outcome.marks[0] = outcome.marks[1] = "WRONG";
          outcome.note = "kernel " + std::to_string(k) + " item " + std::to_string(i) + ": " +
                         std::to_string(got[i]) + " != " + std::to_string(want);
          return;
        }
      }
    }
  }

  Platform& platform_;
  Program program;
  Kernel kernels[2];
  Buffer outputs[2];
  Queue queues[2];  // in order, out of order
  size_t global = kGroup;
  cl_uint iterations = 0;
  float seeds[2] = {0.5f, 0.75f};
};

std::unique_ptr<Trial> PreparePair(Platform& platform, Outcome& outcome, bool quick) {
  auto trial = std::make_unique<PairTrial>(platform);
  cl_command_queue_properties properties = 0;
  cl_int error = clGetDeviceInfo(platform.device, CL_DEVICE_QUEUE_PROPERTIES, sizeof properties, &properties, nullptr);
  if (error != CL_SUCCESS) return Failed(outcome, error, "CL_DEVICE_QUEUE_PROPERTIES");
  if (!(properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) return NotAvailable(outcome, "no out-of-order queues");
  std::string log;
  error = BuildProgram(platform, kSource, "", trial->program, log);
  if (error != CL_SUCCESS) {
    outcome.failure = ErrorCell(error);
    outcome.note = log;
    return nullptr;
  }
  trial->global = kGroup * std::max<size_t>(1, platform.compute_units / 2);
  trial->iterations = quick ? 1u << 14 : 1u << 16;
  for (int k = 0; k < 2; ++k) {
    error = CreateBuffer(platform, CL_MEM_WRITE_ONLY, trial->global * sizeof(float), nullptr, trial->outputs[k]);
    if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateBuffer");
    trial->kernels[k] = Kernel(clCreateKernel(trial->program.get(), "spin", &error));
    if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateKernel");
    cl_mem out = trial->outputs[k].get();
    error = SetArgs(trial->kernels[k].get(), {{sizeof out, &out},
                                              {sizeof trial->iterations, &trial->iterations},
                                              {sizeof(float), &trial->seeds[k]}});
    if (error != CL_SUCCESS) return Failed(outcome, error, "clSetKernelArg");
  }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  for (int q = 0; q < 2; ++q) {
    trial->queues[q] = Queue(clCreateCommandQueue(platform.context.get(), platform.device,
                                                  q ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, &error));
    if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateCommandQueue");
  }
#pragma GCC diagnostic pop
  return trial;
}

}  // namespace

void AddQueueMeasures(std::vector<Measure>& measures, const Options& options) {
  Measure pair;
  pair.rows = {{"two independent kernels, in-order queue (ms)", false},
               {"two independent kernels, out-of-order queue (ms)", false}};
  const bool quick = options.quick;
  pair.prepare = [quick](Platform& platform, Outcome& outcome) { return PreparePair(platform, outcome, quick); };
  measures.push_back(std::move(pair));
}

}  // namespace vkcl_bench
