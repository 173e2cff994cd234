// Launch latency and enqueue throughput with an empty kernel (global size 1):
//  - enqueue + clFinish wall clock per launch, and from each launch's profiling event the
//    intervals QUEUED -> START, SUBMIT -> START and START -> END (checked to be in order, and
//    QUEUED -> END to be no longer than the wall clock around the launch);
//  - back-to-back enqueues without events then one clFinish, from 1 thread, and from 8
//    threads with an in-order queue each in the same context: microseconds per kernel.

#include <atomic>
#include <thread>

#include "suite.h"

namespace vkcl_bench {
namespace {

constexpr int kLatencyLaunches = 200;  // over all repetitions
constexpr int kThreads = 8;

const char* const kSource = "__kernel void empty(void) {}\n";

bool CreateEmptyKernel(Platform& platform, Program& program, Kernel& kernel, Outcome& outcome) {
  std::string log;
  cl_int error = BuildProgram(platform, kSource, "", program, log);
  if (error != CL_SUCCESS) {
    outcome.failure = ErrorCell(error);
    outcome.note = log;
    return false;
  }
  kernel = Kernel(clCreateKernel(program.get(), "empty", &error));
  if (error != CL_SUCCESS) {
    Failed(outcome, error, "clCreateKernel");
    return false;
  }
  return true;
}

cl_int EnqueueEmpty(cl_command_queue queue, cl_kernel kernel, cl_event* event) {
  const size_t one = 1;
  return clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &one, nullptr, 0, nullptr, event);
}

class LatencyTrial : public Trial {
 public:
  LatencyTrial(Platform& platform, int launches) : platform_(platform), launches_(launches) {}

  cl_int Run(Outcome& outcome) override {
    for (int l = 0; l < launches_; ++l) {
      cl_event raw = nullptr;
      const double start = NowSeconds();
      cl_int error = EnqueueEmpty(platform_.queue.get(), kernel.get(), &raw);
      if (error == CL_SUCCESS) error = clFinish(platform_.queue.get());
      const double wall = NowSeconds() - start;
      Event event(raw);
      if (error != CL_SUCCESS) return error;
      outcome.samples[0].push_back(wall * 1e6);
      if (!platform_.profiling_usable) continue;
      cl_ulong times[4] = {};
      const cl_profiling_info names[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                          CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
      for (int t = 0; t < 4; ++t) {
        error = clGetEventProfilingInfo(event.get(), names[t], sizeof(cl_ulong), &times[t], nullptr);
        if (error != CL_SUCCESS) return error;
      }
      if (!(times[0] <= times[1] && times[1] <= times[2] && times[2] <= times[3]))
        ++out_of_order_;
      // QUEUED is taken in the enqueue call and END before clFinish returns, so QUEUED -> END
      // cannot be longer than the wall clock around both (with some slack for clock reads).
      if ((static_cast<double>(times[3]) - static_cast<double>(times[0])) * 1e-9 >
          wall * 1.05 + 20e-6)
        ++longer_than_wall_;
      auto micros = [](cl_ulong from, cl_ulong to) {
        return (static_cast<double>(to) - static_cast<double>(from)) * 1e-3;
      };
      outcome.samples[1].push_back(micros(times[0], times[2]));
      outcome.samples[2].push_back(micros(times[1], times[2]));
      outcome.samples[3].push_back(micros(times[2], times[3]));
    }
    return CL_SUCCESS;
  }

  void Check(Outcome& outcome) override {
    if (!platform_.profiling_usable) {
      outcome.note = "no usable profiling timer: event intervals n/a";
      return;
    }
    if (longer_than_wall_) {
      for (int row = 1; row < 3; ++row) outcome.marks[row] = "> wall";
      outcome.note = std::to_string(longer_than_wall_) +
                     " events with QUEUED -> END longer than the wall clock around enqueue + "
                     "clFinish (host and device timestamps out of step)";
    }
    if (out_of_order_ == 0) return;
    for (int row = 1; row < 4; ++row) outcome.marks[row] = "not monotonic";
    outcome.note += std::string(outcome.note.empty() ? "" : "; ") +
                    std::to_string(out_of_order_) +
                    " events without QUEUED <= SUBMIT <= START <= END";
  }

  Platform& platform_;
  Program program;
  Kernel kernel;

 private:
  int launches_;
  int out_of_order_ = 0;
  int longer_than_wall_ = 0;
};

class ThroughputTrial : public Trial {
 public:
  ThroughputTrial(Platform& platform, int count) : platform_(platform), count_(count) {}

  cl_int Run(Outcome& outcome) override {
    // One thread, the platform's queue.
    double start = NowSeconds();
    for (int i = 0; i < count_; ++i) {
      const cl_int error = EnqueueEmpty(platform_.queue.get(), kernels[0].get(), nullptr);
      if (error != CL_SUCCESS) return error;
    }
    cl_int error = clFinish(platform_.queue.get());
    if (error != CL_SUCCESS) return error;
    outcome.samples[0].push_back((NowSeconds() - start) * 1e6 / count_);

    // kThreads threads, each with its own queue and kernel object.
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<cl_int> errors(kThreads, CL_SUCCESS);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        ++ready;
        while (!go.load()) std::this_thread::yield();
        cl_command_queue queue = queues[t].get();
        for (int i = 0; i < count_ && errors[t] == CL_SUCCESS; ++i)
          errors[t] = EnqueueEmpty(queue, kernels[t + 1].get(), nullptr);
        const cl_int finished = clFinish(queue);
        if (errors[t] == CL_SUCCESS) errors[t] = finished;
      });
    }
    while (ready.load() < kThreads) std::this_thread::yield();
    start = NowSeconds();
    go = true;
    for (std::thread& thread : threads) thread.join();
    const double elapsed = NowSeconds() - start;
    for (cl_int thread_error : errors)
      if (thread_error != CL_SUCCESS) return thread_error;
    outcome.samples[1].push_back(elapsed * 1e6 / (static_cast<double>(count_) * kThreads));
    return CL_SUCCESS;
  }

  Platform& platform_;
  Program program;
  std::vector<Kernel> kernels;  // one for the single thread, then one per thread
  std::vector<Queue> queues;    // one per thread

 private:
  int count_;
};

std::unique_ptr<Trial> PrepareThroughput(Platform& platform, Outcome& outcome, int count) {
  auto trial = std::make_unique<ThroughputTrial>(platform, count);
  Kernel first;
  if (!CreateEmptyKernel(platform, trial->program, first, outcome)) return nullptr;
  trial->kernels.push_back(std::move(first));
  for (int t = 0; t < kThreads; ++t) {
    cl_int error = CL_SUCCESS;
    trial->kernels.emplace_back(clCreateKernel(trial->program.get(), "empty", &error));
    if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateKernel");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    trial->queues.emplace_back(clCreateCommandQueue(platform.context.get(), platform.device,
                                                    CL_QUEUE_PROFILING_ENABLE, &error));
#pragma GCC diagnostic pop
    if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateCommandQueue");
  }
  return trial;
}

}  // namespace

void AddLaunchMeasures(std::vector<Measure>& measures, const Options& options) {
  Measure latency;
  latency.rows = {{"launch empty kernel enqueue+finish, wall (us)", false},
                  {"launch event QUEUED->START (us)", false},
                  {"launch event SUBMIT->START (us)", false},
                  {"launch event START->END (us)", false}};
  const int per_run = (kLatencyLaunches + options.repetitions - 1) / options.repetitions;
  latency.prepare = [per_run](Platform& platform, Outcome& outcome) -> std::unique_ptr<Trial> {
    auto trial = std::make_unique<LatencyTrial>(platform, per_run);
    if (!CreateEmptyKernel(platform, trial->program, trial->kernel, outcome)) return nullptr;
    return trial;
  };
  measures.push_back(std::move(latency));

  const int count = options.quick ? 1000 : 2000;
  Measure throughput;
  throughput.rows = {
      {"enqueue throughput 1 thread, " + std::to_string(count) + " kernels (us/kernel)", false},
      {"enqueue throughput 8 threads x " + std::to_string(count) + " kernels (us/kernel)",
       false}};
  throughput.prepare = [count](Platform& platform, Outcome& outcome) {
    return PrepareThroughput(platform, outcome, count);
  };
  measures.push_back(std::move(throughput));
}

}  // namespace vkcl_bench
