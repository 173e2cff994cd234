// A client that releases its OpenCL objects while the process exits: from an atexit handler
// and from a static C++ destructor, both registered before its first OpenCL call, so both
// run after the static destructors of anything vkcl loaded later (its own included). It runs
// a kernel first and leaves one launch in flight. ctest runs it as its own process: a crash
// or an abort at exit fails it.
#include <CL/cl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

cl_context g_context;
cl_command_queue g_queue, g_second_queue;
cl_mem g_buffer;
cl_program g_program;
cl_kernel g_kernel;
cl_event g_event;

// Constructed before main, so destroyed after every atexit handler and static destructor
// registered later.
struct ReleasedByStaticDestructor {
  ~ReleasedByStaticDestructor() {
    if (g_event) clReleaseEvent(g_event);
    if (g_kernel) clReleaseKernel(g_kernel);
    if (g_program) clReleaseProgram(g_program);
    if (g_buffer) clReleaseMemObject(g_buffer);
    if (g_second_queue) clReleaseCommandQueue(g_second_queue);
    if (g_context) clReleaseContext(g_context);
  }
} g_released_last;

void release_queue_at_exit() {
  if (g_queue) clReleaseCommandQueue(g_queue);
}

int fail(const char* what, cl_int err) {
  std::fprintf(stderr, "release_at_exit: %s failed (%d)\n", what, err);
  return 1;
}

}  // namespace

int main() {
  std::atexit(release_queue_at_exit);
  cl_uint count = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &count);
  if (err != CL_SUCCESS || count == 0) return fail("clGetPlatformIDs", err);
  std::vector<cl_platform_id> platforms(count);
  clGetPlatformIDs(count, platforms.data(), nullptr);
  cl_platform_id platform = nullptr;
  for (cl_platform_id p : platforms) {
    char name[64] = {};
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
    if (std::strcmp(name, "vkcl") == 0) platform = p;
  }
  if (!platform) return fail("finding the vkcl platform", CL_INVALID_PLATFORM);
  cl_device_id device;
  err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &device, nullptr);
  if (err != CL_SUCCESS) return fail("clGetDeviceIDs", err);
  g_context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) return fail("clCreateContext", err);
  g_queue = clCreateCommandQueueWithProperties(g_context, device, nullptr, &err);
  if (err != CL_SUCCESS) return fail("clCreateCommandQueueWithProperties", err);
  g_second_queue = clCreateCommandQueueWithProperties(g_context, device, nullptr, &err);
  if (err != CL_SUCCESS) return fail("clCreateCommandQueueWithProperties", err);
  const size_t n = 1024;
  g_buffer = clCreateBuffer(g_context, CL_MEM_READ_WRITE, n * sizeof(int), nullptr, &err);
  if (err != CL_SUCCESS) return fail("clCreateBuffer", err);
  const char* source =
      "__kernel void square(__global int* o) { int i = get_global_id(0); o[i] = i * i; }";
  g_program = clCreateProgramWithSource(g_context, 1, &source, nullptr, &err);
  if (err != CL_SUCCESS) return fail("clCreateProgramWithSource", err);
  err = clBuildProgram(g_program, 1, &device, "", nullptr, nullptr);
  if (err != CL_SUCCESS) return fail("clBuildProgram", err);
  g_kernel = clCreateKernel(g_program, "square", &err);
  if (err != CL_SUCCESS) return fail("clCreateKernel", err);
  err = clSetKernelArg(g_kernel, 0, sizeof(cl_mem), &g_buffer);
  if (err != CL_SUCCESS) return fail("clSetKernelArg", err);
  err = clEnqueueNDRangeKernel(g_queue, g_kernel, 1, nullptr, &n, nullptr, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) return fail("clEnqueueNDRangeKernel", err);
  std::vector<int> out(n, -1);
  err = clEnqueueReadBuffer(g_queue, g_buffer, CL_TRUE, 0, n * sizeof(int), out.data(), 0, nullptr,
                            nullptr);
  if (err != CL_SUCCESS) return fail("clEnqueueReadBuffer", err);
  for (size_t i = 0; i < n; ++i)
    if (out[i] != int(i * i)) return fail("checking the kernel's output", int(i));
  // Left in flight: the releases at exit wait for it.
  err = clEnqueueNDRangeKernel(g_second_queue, g_kernel, 1, nullptr, &n, nullptr, 0, nullptr,
                               &g_event);
  if (err != CL_SUCCESS) return fail("clEnqueueNDRangeKernel", err);
  clFlush(g_second_queue);
  std::puts("release_at_exit: objects left to the atexit handler and a static destructor");
  return 0;
}
