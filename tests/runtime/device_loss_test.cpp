// A lost Vulkan device (VK_ERROR_DEVICE_LOST; here injected with VKCL_INJECT_DEVICE_LOST=N,
// which makes a queue's Nth submission find the device lost after the work before it has
// finished): the commands that had not completed end with a negative status, waits and
// clFinish return instead of hanging, every object can still be released, and a context made
// after that runs kernels again.
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class DeviceLoss : public KernelTest {};

cl_int status_of(cl_event e) {
  cl_int s = CL_QUEUED;
  EXPECT_EQ(CL_SUCCESS, clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr));
  return s;
}

TEST_P(DeviceLoss, PendingCommandsFailWaitsReturnAndANewContextWorks) {
  const char* source = "__kernel void add(__global int* a, int k) { a[get_global_id(0)] += k; }";
  Program program = build(source);
  const size_t n = 256;
  std::vector<cl_int> zeros(n, 0);
  cl_int err;
  setenv("VKCL_INJECT_DEVICE_LOST", "2", 1);
  Queue queue(clCreateCommandQueueWithProperties(context_, device_, nullptr, &err));
  unsetenv("VKCL_INJECT_DEVICE_LOST");
  ASSERT_EQ(CL_SUCCESS, err);
  Mem a = buffer(n * 4, zeros.data(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR);
  Kernel k = kernel(program, "add");
  set_mem_arg(k, 0, a);
  set_arg(k, 1, cl_int(5));

  // The first submission runs.
  cl_event first = nullptr, second = nullptr, third = nullptr;
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue, k, 1, nullptr, &n, nullptr, 0, nullptr, &first));
  ASSERT_EQ(CL_SUCCESS, clFinish(queue));
  EXPECT_EQ(status_of(first), CL_COMPLETE);

  // The second finds the device lost, and so does everything after it.
  testing::internal::CaptureStderr();
  set_arg(k, 1, cl_int(7));
  cl_int e2 = clEnqueueNDRangeKernel(queue, k, 1, nullptr, &n, nullptr, 0, nullptr, &second);
  cl_int finished = clFinish(queue);
  cl_int e3 = clEnqueueNDRangeKernel(queue, k, 1, nullptr, &n, nullptr, 0, nullptr, &third);
  std::vector<cl_int> got(n, -1);
  cl_int read_back = clEnqueueReadBuffer(queue, a, CL_TRUE, 0, n * 4, got.data(), 0, nullptr, nullptr);
  cl_int waited = second ? clWaitForEvents(1, &second) : CL_SUCCESS;
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(e2 == CL_SUCCESS || e2 == CL_OUT_OF_RESOURCES) << e2;
  EXPECT_EQ(finished, CL_OUT_OF_RESOURCES);
  EXPECT_TRUE(e3 == CL_SUCCESS || e3 == CL_OUT_OF_RESOURCES) << e3;
  EXPECT_LT(read_back, 0);
  if (second) {
    EXPECT_EQ(waited, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    EXPECT_EQ(status_of(second), CL_OUT_OF_RESOURCES);
  }
  if (third) {
    EXPECT_LT(status_of(third), 0);
  }
  EXPECT_NE(log.find("was lost (VK_ERROR_DEVICE_LOST)"), std::string::npos) << log;
  EXPECT_EQ(status_of(first), CL_COMPLETE);

  // Everything is released, the test's own context too; a new context gets a new device.
  for (cl_event e : {first, second, third}) {
    if (e) {
      EXPECT_EQ(CL_SUCCESS, clReleaseEvent(e));
    }
  }
  k = Kernel();
  a = Mem();
  queue = Queue();
  program = Program();
  queue_ = Queue();
  context_ = Context();
  context_ = Context(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  queue_ = Queue(clCreateCommandQueueWithProperties(context_, device_, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Program again = build(source);
  Mem b = buffer(n * 4, zeros.data(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR);
  Kernel k2 = kernel(again, "add");
  set_mem_arg(k2, 0, b);
  set_arg(k2, 1, cl_int(3));
  run(k2, 1, &n, nullptr);
  for (cl_int v : read<cl_int>(b, n)) EXPECT_EQ(v, 3);
}

INSTANTIATE_TEST_SUITE_P(Options, DeviceLoss, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
