// Helpers shared by the measures: building, buffers, arguments and timing.

#include <algorithm>
#include <cctype>
#include <chrono>

#include "suite.h"

namespace vkcl_bench {

std::string ErrorCell(cl_int error) { return "err " + std::to_string(error); }

std::nullptr_t NotAvailable(Outcome& outcome, const std::string& why) {
  outcome.failure = "n/a";
  outcome.note = why;
  return nullptr;
}

std::nullptr_t Failed(Outcome& outcome, cl_int error, const std::string& what) {
  outcome.failure = ErrorCell(error);
  outcome.note = what + " returned " + std::to_string(error);
  return nullptr;
}

namespace {

// The build log flattened to one line of at most |max_chars|.
std::string OneLine(const std::string& text, size_t max_chars) {
  std::string flat;
  for (char c : text) {
    if (c == '\0' || flat.size() >= max_chars) break;
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!flat.empty() && flat.back() != ' ') flat += ' ';
    } else {
      flat += c;
    }
  }
  return flat;
}

}  // namespace

cl_int BuildProgram(const Platform& platform, const std::string& source,
                    const std::string& build_options, Program& program, std::string& log) {
  const char* text = source.c_str();
  cl_int error = CL_SUCCESS;
  program = Program(clCreateProgramWithSource(platform.context.get(), 1, &text, nullptr, &error));
  if (error != CL_SUCCESS) {
    log = "clCreateProgramWithSource " + std::to_string(error);
    return error;
  }
  error = clBuildProgram(program.get(), 1, &platform.device, build_options.c_str(), nullptr,
                         nullptr);
  if (error != CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(program.get(), platform.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string text_log(size, '\0');
    if (size)
      clGetProgramBuildInfo(program.get(), platform.device, CL_PROGRAM_BUILD_LOG, size,
                            text_log.data(), nullptr);
    log = "clBuildProgram " + std::to_string(error) + ": " + OneLine(text_log, 200);
  }
  return error;
}

cl_int CreateBuffer(const Platform& platform, cl_mem_flags flags, size_t bytes, const void* data,
                    Buffer& buffer) {
  cl_int error = CL_SUCCESS;
  if (data) flags |= CL_MEM_COPY_HOST_PTR;
  buffer = Buffer(clCreateBuffer(platform.context.get(), flags, bytes, const_cast<void*>(data),
                                 &error));
  return error;
}

cl_int SetArgs(cl_kernel kernel, std::initializer_list<std::pair<size_t, const void*>> args) {
  cl_uint index = 0;
  for (const auto& [size, value] : args) {
    const cl_int error = clSetKernelArg(kernel, index++, size, value);
    if (error != CL_SUCCESS) return error;
  }
  return CL_SUCCESS;
}

Timing TimeCommands(const Platform& platform,
                    const std::function<cl_int(std::vector<cl_event>&)>& enqueue) {
  Timing timing;
  std::vector<cl_event> events;
  const double start = NowSeconds();
  timing.error = enqueue(events);
  if (timing.error == CL_SUCCESS) timing.error = clFinish(platform.queue.get());
  const double wall = NowSeconds() - start;
  double profiled = 0;
  bool profile_ok = platform.profiling_usable && !events.empty();
  for (cl_event event : events) {
    cl_ulong started = 0, ended = 0;
    if (profile_ok && timing.error == CL_SUCCESS &&
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(started), &started,
                                nullptr) == CL_SUCCESS &&
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(ended), &ended,
                                nullptr) == CL_SUCCESS &&
        ended > started)
      profiled += static_cast<double>(ended - started) * 1e-9;
    else
      profile_ok = false;
    clReleaseEvent(event);
  }
  timing.wall = !profile_ok;
  timing.seconds = profile_ok ? profiled : wall;
  return timing;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool ContainsIgnoringCase(const std::string& text, const std::string& part) {
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  return lower(text).find(lower(part)) != std::string::npos;
}

}  // namespace vkcl_bench

namespace vkcl_bench {

cl_int ReadBuffer(const Platform& platform, const Buffer& buffer, size_t bytes, void* data) {
  return clEnqueueReadBuffer(platform.queue.get(), buffer.get(), CL_TRUE, 0, bytes, data, 0,
                             nullptr, nullptr);
}

bool KernelTrial::Prepare(const std::string& source, const std::string& kernel_name,
                          const std::string& build_options, Outcome& outcome) {
  std::string log;
  cl_int error = BuildProgram(platform_, source, build_options, program, log);
  if (error != CL_SUCCESS) {
    outcome.failure = ErrorCell(error);
    outcome.note = log;
    return false;
  }
  kernel = Kernel(clCreateKernel(program.get(), kernel_name.c_str(), &error));
  if (error != CL_SUCCESS) {
    Failed(outcome, error, "clCreateKernel");
    return false;
  }
  return true;
}

cl_int KernelTrial::Run(Outcome& outcome) {
  const Timing timing = TimeCommands(platform_, [&](std::vector<cl_event>& events) {
    cl_event event = nullptr;
    const cl_int error =
        clEnqueueNDRangeKernel(platform_.queue.get(), kernel.get(), dimensions, nullptr, global,
                               local[0] ? local : nullptr, 0, nullptr, &event);
    if (error == CL_SUCCESS) events.push_back(event);
    return error;
  });
  if (timing.error != CL_SUCCESS) return timing.error;
  outcome.samples[0].push_back(work / timing.seconds);
  if (timing.wall) outcome.wall[0] = true;
  return CL_SUCCESS;
}

void KernelTrial::Check(Outcome& outcome) {
  if (!check) return;
  const std::string problem = check();
  if (problem.empty()) return;
  for (std::string& mark : outcome.marks) mark = "WRONG";
  outcome.note = problem;
}

}  // namespace vkcl_bench
