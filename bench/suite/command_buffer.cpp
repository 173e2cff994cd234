// What recording saves: a sequence of 16 small dependent kernels and a copy, enqueued one by
// one and finished, against the same commands recorded once into a cl_khr_command_buffer
// and enqueued as one. Wall clock per sequence (launch cost dominates: 256 work-items per
// kernel), results checked against the CPU.

#include <CL/cl_ext.h>

#include <cmath>
#include <cstring>

#include "suite.h"

namespace vkcl_bench {
namespace {

const char* const kSource = R"(
__kernel void advance(__global const float* in, __global float* out, float a) {
  size_t i = get_global_id(0);
  out[i] = in[i] * a + 1.0f;
}
)";

constexpr int kKernels = 16;
constexpr size_t kItems = 256;

float Step(int k) { return 1.0f - 0.01f * float(k); }

class SequenceTrial : public Trial {
 public:
  explicit SequenceTrial(Platform& platform) : platform_(platform) {}

  cl_int EnqueueOneByOne() {
    for (int k = 0; k < kKernels; ++k) {
      cl_int error = clEnqueueNDRangeKernel(platform_.queue.get(), kernels[k].get(), 1, nullptr, &kItems, nullptr,
                                            0, nullptr, nullptr);
      if (error != CL_SUCCESS) return error;
    }
    return clEnqueueCopyBuffer(platform_.queue.get(), buffers[kKernels].get(), result.get(), 0, 0,
                               kItems * sizeof(float), 0, nullptr, nullptr);
  }

  cl_int Run(Outcome& outcome) override {
    double start = NowSeconds();
    cl_int error = EnqueueOneByOne();
    if (error == CL_SUCCESS) error = clFinish(platform_.queue.get());
    if (error != CL_SUCCESS) return error;
    outcome.samples[0].push_back((NowSeconds() - start) * 1e6);
    start = NowSeconds();
    error = enqueue(0, nullptr, recorded, 0, nullptr, nullptr);
    if (error == CL_SUCCESS) error = clFinish(platform_.queue.get());
    if (error != CL_SUCCESS) return error;
    outcome.samples[1].push_back((NowSeconds() - start) * 1e6);
    outcome.wall[0] = outcome.wall[1] = true;
    return CL_SUCCESS;
  }

  void Check(Outcome& outcome) override {
    std::vector<float> got(kItems);
    if (ReadBuffer(platform_, result, kItems * sizeof(float), got.data()) != CL_SUCCESS) {
      outcome.marks[0] = outcome.marks[1] = "WRONG";
      return;
    }
    for (size_t i = 0; i < kItems; ++i) {
      double want = double(i);
      for (int k = 0; k < kKernels; ++k) want = want * Step(k) + 1.0;
      if (std::fabs(got[i] - want) > 1e-4 * std::fabs(want) + 1e-4) {
        outcome.marks[0] = outcome.marks[1] = "WRONG";
        outcome.note = "item " + std::to_string(i) + ": " + std::to_string(got[i]) + " != " + std::to_string(want);
        return;
      }
    }
  }

  ~SequenceTrial() override {
    if (recorded && release) release(recorded);
  }

  Platform& platform_;
  Program program;
  Kernel kernels[kKernels];
  Buffer buffers[kKernels + 1];
  Buffer result;
  cl_command_buffer_khr recorded = nullptr;
  clEnqueueCommandBufferKHR_fn enqueue = nullptr;
  clReleaseCommandBufferKHR_fn release = nullptr;
};

template <typename F>
F Function(const Platform& platform, const char* name) {
  cl_platform_id id = nullptr;
  clGetDeviceInfo(platform.device, CL_DEVICE_PLATFORM, sizeof id, &id, nullptr);
  return reinterpret_cast<F>(clGetExtensionFunctionAddressForPlatform(id, name));
}

std::unique_ptr<Trial> PrepareSequence(Platform& platform, Outcome& outcome) {
  size_t size = 0;
  clGetDeviceInfo(platform.device, CL_DEVICE_EXTENSIONS, 0, nullptr, &size);
  std::string extensions(size, '\0');
  clGetDeviceInfo(platform.device, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr);
  if (extensions.find("cl_khr_command_buffer") == std::string::npos)
    return NotAvailable(outcome, "no cl_khr_command_buffer");
  // The entry points of the extension's 0.9.0 signatures (Debian 12's headers): a device
  // reporting another version may take other parameters.
  std::vector<cl_name_version> versions;
  if (clGetDeviceInfo(platform.device, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, nullptr, &size) == CL_SUCCESS) {
    versions.resize(size / sizeof(cl_name_version));
    clGetDeviceInfo(platform.device, CL_DEVICE_EXTENSIONS_WITH_VERSION, size, versions.data(), nullptr);
  }
  for (const cl_name_version& v : versions)
    if (std::strcmp(v.name, "cl_khr_command_buffer") == 0 && v.version != CL_MAKE_VERSION(0, 9, 0))
      return NotAvailable(outcome, "cl_khr_command_buffer of another version than 0.9.0");
  auto trial = std::make_unique<SequenceTrial>(platform);
  auto create = Function<clCreateCommandBufferKHR_fn>(platform, "clCreateCommandBufferKHR");
  auto record = Function<clCommandNDRangeKernelKHR_fn>(platform, "clCommandNDRangeKernelKHR");
  auto copy = Function<clCommandCopyBufferKHR_fn>(platform, "clCommandCopyBufferKHR");
  auto finalize = Function<clFinalizeCommandBufferKHR_fn>(platform, "clFinalizeCommandBufferKHR");
  trial->enqueue = Function<clEnqueueCommandBufferKHR_fn>(platform, "clEnqueueCommandBufferKHR");
  trial->release = Function<clReleaseCommandBufferKHR_fn>(platform, "clReleaseCommandBufferKHR");
  if (!create || !record || !copy || !finalize || !trial->enqueue || !trial->release)
    return NotAvailable(outcome, "cl_khr_command_buffer entry points missing");
  std::string log;
  cl_int error = BuildProgram(platform, kSource, "", trial->program, log);
  if (error != CL_SUCCESS) {
    outcome.failure = ErrorCell(error);
    outcome.note = log;
    return nullptr;
  }
  std::vector<float> first(kItems);
  for (size_t i = 0; i < kItems; ++i) first[i] = float(i);
  for (int b = 0; b <= kKernels; ++b) {
    error = CreateBuffer(platform, CL_MEM_READ_WRITE, kItems * sizeof(float), b ? nullptr : first.data(),
                         trial->buffers[b]);
    if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateBuffer");
  }
  error = CreateBuffer(platform, CL_MEM_READ_WRITE, kItems * sizeof(float), nullptr, trial->result);
  if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateBuffer");
  cl_command_queue queue = platform.queue.get();
  trial->recorded = create(1, &queue, nullptr, &error);
  if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateCommandBufferKHR");
  for (int k = 0; k < kKernels; ++k) {
    trial->kernels[k] = Kernel(clCreateKernel(trial->program.get(), "advance", &error));
    if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateKernel");
    cl_mem in = trial->buffers[k].get(), out = trial->buffers[k + 1].get();
    float a = Step(k);
    error = SetArgs(trial->kernels[k].get(), {{sizeof in, &in}, {sizeof out, &out}, {sizeof a, &a}});
    if (error != CL_SUCCESS) return Failed(outcome, error, "clSetKernelArg");
    error = record(trial->recorded, nullptr, nullptr, trial->kernels[k].get(), 1, nullptr, &kItems, nullptr, 0,
                   nullptr, nullptr, nullptr);
    if (error != CL_SUCCESS) return Failed(outcome, error, "clCommandNDRangeKernelKHR");
  }
  error = copy(trial->recorded, nullptr, trial->buffers[kKernels].get(), trial->result.get(), 0, 0,
               kItems * sizeof(float), 0, nullptr, nullptr, nullptr);
  if (error != CL_SUCCESS) return Failed(outcome, error, "clCommandCopyBufferKHR");
  error = finalize(trial->recorded);
  if (error != CL_SUCCESS) return Failed(outcome, error, "clFinalizeCommandBufferKHR");
  return trial;
}

}  // namespace

void AddCommandBufferMeasures(std::vector<Measure>& measures, const Options&) {
  Measure sequence;
  sequence.rows = {{"16 small kernels + copy, enqueued one by one (us)", false},
                   {"16 small kernels + copy, one command buffer (us)", false}};
  sequence.prepare = [](Platform& platform, Outcome& outcome) { return PrepareSequence(platform, outcome); };
  measures.push_back(std::move(sequence));
}

}  // namespace vkcl_bench
