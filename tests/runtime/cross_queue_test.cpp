// A GPU command that waits for another queue's GPU work waits on the device: its enqueue
// returns while that work still runs, its result is computed from that work's output (checked
// against the CPU), and a failure of that work (found when it completes) fails it too.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class CrossQueue : public KernelTest {
 protected:
  Queue second() {
    cl_int err;
    Queue q(clCreateCommandQueueWithProperties(context_, device_, nullptr, &err));
    EXPECT_EQ(CL_SUCCESS, err);
    return q;
  }
};

// The slow kernel has no loop (a loop's kernel is taken to its end on the host on lavapipe,
// where loops resume): 300 dependent multiply-adds per work-item over 2^20 work-items.
std::string slow_source() {
  std::string body;
  for (int i = 0; i < 300; ++i) body += "  v = v * 0.999f + 1.0f;\n";
  return "__kernel void slow(__global float* x) {\n  float v = (float)(get_global_id(0) % 97);\n" + body +
         "  x[get_global_id(0)] = v;\n}\n"
         "__kernel void next(__global const float* x, __global float* y) {\n"
         "  size_t i = get_global_id(0);\n  y[i] = x[i] * 2.0f + 1.0f;\n}\n";
}

TEST_P(CrossQueue, AWaitForAnotherQueuesKernelIsTheDevicesNotTheCallers) {
  constexpr size_t n = size_t(1) << 20;
  Program p = build(slow_source());
  Kernel slow = kernel(p, "slow"), next = kernel(p, "next");
  Mem x = poisoned(n * 4), y = poisoned(n * 4);
  set_mem_arg(slow, 0, x);
  set_mem_arg(next, 0, x);
  set_mem_arg(next, 1, y);
  // The slow kernel takes hundreds of milliseconds on lavapipe but microseconds on a GPU, where
  // it is enqueued as many times as it takes to keep the device busy for about 0.3 s (the
  // enqueue of the waiting command takes microseconds). Timed once it has run (built) once.
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, slow, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, slow, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
  double once = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  size_t repeats = std::clamp<size_t>(size_t(0.3 / std::max(once, 1e-6)), 1, 20000);
  Queue b = second();
  cl_event first = nullptr, then = nullptr;
  for (size_t r = 1; r < repeats; ++r)
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, slow, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, slow, 1, nullptr, &n, nullptr, 0, nullptr, &first));
  Event f(first);
  ASSERT_EQ(CL_SUCCESS, clFlush(queue_));
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(b, next, 1, nullptr, &n, nullptr, 1, &first, &then));
  Event t(then);
  cl_int status = CL_COMPLETE;
  ASSERT_EQ(CL_SUCCESS, clGetEventInfo(first, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
  EXPECT_GT(status, CL_COMPLETE) << "clEnqueueNDRangeKernel waited on the host for the other queue's kernel";
  ASSERT_EQ(CL_SUCCESS, clFinish(b));
  ASSERT_EQ(CL_SUCCESS, clGetEventInfo(then, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
  EXPECT_EQ(CL_COMPLETE, status);
  std::vector<float> got = read<float>(y, n);
  for (size_t i = 0; i < n; i += 997) {
    float v = float(i % 97);
    for (int r = 0; r < 300; ++r) v = v * 0.999f + 1.0f;
    // Contraction may fuse the multiply-adds: within a few ulp of the CPU's unfused chain.
    ASSERT_NEAR(v * 2.0f + 1.0f, got[i], 1e-3f * (v * 2.0f + 1.0f)) << i;
  }
}

// Checked mode fails a kernel that writes out of bounds once it has run: the command of
// another queue that waited for it on the device fails with it.
TEST_P(CrossQueue, AFailureFoundAfterTheWaitFailsTheWaiter) {
  setenv("VKCL_CHECKED", "1", 1);
  Program p = build(R"(
    __kernel void store_past(__global int* a) { a[get_global_id(0) + 1000] = 7; }
    __kernel void copy(__global const int* a, __global int* b) { b[get_global_id(0)] = a[get_global_id(0)]; })");
  unsetenv("VKCL_CHECKED");
  Kernel bad = kernel(p, "store_past"), copy = kernel(p, "copy");
  Mem a = poisoned(64 * 4), b = poisoned(64 * 4);
  set_mem_arg(bad, 0, a);
  set_mem_arg(copy, 0, a);
  set_mem_arg(copy, 1, b);
  Queue other = second();
  size_t n = 64;
  cl_event first = nullptr, then = nullptr;
  CapturedStderr quiet;  // checked mode names the bad store
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, bad, 1, nullptr, &n, nullptr, 0, nullptr, &first));
  Event f(first);
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(other, copy, 1, nullptr, &n, nullptr, 1, &first, &then));
  Event t(then);
  (void)clFinish(other);
  (void)clFinish(queue_);
  cl_int status = CL_COMPLETE;
  ASSERT_EQ(CL_SUCCESS, clGetEventInfo(first, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
  EXPECT_LT(status, 0) << "checked mode did not fail the out-of-bounds kernel";
  ASSERT_EQ(CL_SUCCESS, clGetEventInfo(then, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
  EXPECT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, status);
}

INSTANTIATE_TEST_SUITE_P(Options, CrossQueue, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
