// Vulkan objects that cannot be made (VKCL_FAIL_OBJECTS=N: every Nth object vkcl creates for
// itself fails as if the driver ran out of host memory): queues, builds, launches and copies
// return an OpenCL error or end with a failed event, never crash, and once the failures stop
// the same context works. Every N from 1 to 6 over the same sequence.
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class ObjectFailures : public KernelTest {};

TEST_P(ObjectFailures, EveryStepFailsCleanlyAndTheContextRecovers) {
  const std::string source =
      "__kernel void k(__global uint* a, __local uint* t, uint v) {"
      "  t[get_local_id(0)] = v; barrier(CLK_LOCAL_MEM_FENCE);"
      "  a[get_global_id(0)] = t[get_local_id(0)] + get_global_id(0); }";
  const size_t n = 256, local = 64;
  for (int every = 1; every <= 6; ++every) {
    SCOPED_TRACE(every);
    Mem a = buffer(n * 4);
    setenv("VKCL_FAIL_OBJECTS", std::to_string(every).c_str(), 1);
    cl_int err = CL_SUCCESS;
    Queue q(clCreateCommandQueueWithProperties(context_, device_, nullptr, &err));
    // Every object failing: not even the queue's command pool and semaphore can be made.
    if (every == 1) {
      EXPECT_EQ(q.get(), nullptr);
      EXPECT_EQ(err, CL_OUT_OF_HOST_MEMORY);
    }
    // Each build differs (a define), so each makes its pipelines anew.
    std::string options = GetParam() + " -DSALT=" + std::to_string(every);
    const char* text = source.c_str();
    Program p(clCreateProgramWithSource(context_, 1, &text, nullptr, &err));
    cl_int built = p ? clBuildProgram(p, 1, &device_, options.c_str(), nullptr, nullptr) : err;
    cl_int launched = CL_INVALID_OPERATION, finished = CL_INVALID_OPERATION;
    if (q && built == CL_SUCCESS) {
      Kernel k(clCreateKernel(p, "k", &err));
      if (k) {
        cl_mem h = a.get();
        clSetKernelArg(k, 0, sizeof h, &h);
        clSetKernelArg(k, 1, local * 4, nullptr);
        cl_uint v = 7;
        clSetKernelArg(k, 2, sizeof v, &v);
        launched = clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, &local, 0, nullptr, nullptr);
        std::vector<cl_uint> out(n);
        clEnqueueReadBuffer(q, a, CL_FALSE, 0, n * 4, out.data(), 0, nullptr, nullptr);
        finished = clFinish(q);
      }
    }
    unsetenv("VKCL_FAIL_OBJECTS");
    // Whatever failed said so with an OpenCL error (nothing here checks which step failed:
    // that depends on how many objects each step makes).
    for (cl_int r : {built, launched, finished}) EXPECT_LE(r, CL_SUCCESS);
    // The context goes on: the test's own queue runs the kernel built anew.
    Program again = build(source, "-DSALT=" + std::to_string(100 + every));
    Kernel k = kernel(again, "k");
    set_mem_arg(k, 0, a);
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, local * 4, nullptr));
    set_arg(k, 2, cl_uint(every));
    run(k, 1, &n, &local);
    std::vector<cl_uint> got = read<cl_uint>(a, n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], cl_uint(every + i)) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, ObjectFailures, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
