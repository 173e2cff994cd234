// Times one kernel of an OpenCL C file on every platform the ICD loader shows, side by side:
// for looking into a single row of clpeak or the bench suite on a lent GPU (different shapes
// of the same kernel, one run per platform). The kernel takes two buffers (A, B), filled with
// 1.0f; the time is the median of the runs' COMMAND_END - COMMAND_START.
// Usage: vkcl_kernel_time file.cl kernel global local bytes_a bytes_b [runs]
//        (local 0: the platform chooses)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cl_helpers.h"

namespace {

using vkcl_bench::Owned;

std::string platform_name(cl_platform_id p) {
  char name[256] = {};
  clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name - 1, name, nullptr);
  return name;
}

// Median seconds of |runs| launches, or a negative OpenCL error.
double time_kernel(cl_platform_id platform, const std::string& source, const char* name, size_t global,
                   size_t local, size_t bytes_a, size_t bytes_b, int runs) {
  cl_device_id device;
  cl_int e = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr);
  if (e != CL_SUCCESS) return e;
  Owned<cl_context, clReleaseContext> context(clCreateContext(nullptr, 1, &device, nullptr, nullptr, &e));
  if (e != CL_SUCCESS) return e;
  const cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  Owned<cl_command_queue, clReleaseCommandQueue> queue(
      clCreateCommandQueueWithProperties(context.get(), device, properties, &e));
  if (e != CL_SUCCESS) return e;
  const char* text = source.c_str();
  Owned<cl_program, clReleaseProgram> program(clCreateProgramWithSource(context.get(), 1, &text, nullptr, &e));
  if (e != CL_SUCCESS) return e;
  if ((e = clBuildProgram(program.get(), 1, &device, "", nullptr, nullptr)) != CL_SUCCESS) return e;
  Owned<cl_kernel, clReleaseKernel> kernel(clCreateKernel(program.get(), name, &e));
  if (e != CL_SUCCESS) return e;
  Owned<cl_mem, clReleaseMemObject> a(clCreateBuffer(context.get(), CL_MEM_READ_WRITE, bytes_a, nullptr, &e));
  if (e != CL_SUCCESS) return e;
  Owned<cl_mem, clReleaseMemObject> b(clCreateBuffer(context.get(), CL_MEM_READ_WRITE, bytes_b, nullptr, &e));
  if (e != CL_SUCCESS) return e;
  const float one = 1.0f;
  cl_mem buffers[2] = {a.get(), b.get()};
  for (cl_uint k = 0; k < 2; ++k) {
    clEnqueueFillBuffer(queue.get(), buffers[k], &one, sizeof one, 0, k ? bytes_b : bytes_a, 0, nullptr, nullptr);
    clSetKernelArg(kernel.get(), k, sizeof(cl_mem), &buffers[k]);
  }
  std::vector<double> seconds;
  for (int r = -2; r < runs; ++r) {  // two warm-up runs
    cl_event event;
    e = clEnqueueNDRangeKernel(queue.get(), kernel.get(), 1, nullptr, &global, local ? &local : nullptr, 0,
                               nullptr, &event);
    if (e != CL_SUCCESS) return e;
    clWaitForEvents(1, &event);
    cl_ulong start = 0, end = 0;
    clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
    clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
    clReleaseEvent(event);
    if (r >= 0) seconds.push_back(double(end - start) * 1e-9);
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr, "usage: %s file.cl kernel global local bytes_a bytes_b [runs]\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  const size_t global = std::strtoull(argv[3], nullptr, 0), local = std::strtoull(argv[4], nullptr, 0);
  const size_t bytes_a = std::strtoull(argv[5], nullptr, 0), bytes_b = std::strtoull(argv[6], nullptr, 0);
  const int runs = std::max(1, argc > 7 ? std::atoi(argv[7]) : 9);
  cl_uint count = 0;
  clGetPlatformIDs(0, nullptr, &count);
  std::vector<cl_platform_id> platforms(count);
  clGetPlatformIDs(count, platforms.data(), nullptr);
  for (cl_platform_id p : platforms) {
    const double s = time_kernel(p, text.str(), argv[2], global, local, bytes_a, bytes_b, runs);
    if (s < 0)
      std::printf("%-14s %-28s error %d\n", platform_name(p).c_str(), argv[2], int(s));
    else if (s == 0)
      std::printf("%-14s %-28s no usable profiling times\n", platform_name(p).c_str(), argv[2]);
    else
      std::printf("%-14s %-28s %10.1f us %9.1f GB/s (A and B once)\n", platform_name(p).c_str(), argv[2], s * 1e6,
                  double(bytes_a + bytes_b) / s * 1e-9);
  }
  return 0;
}
