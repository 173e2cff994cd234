// cl_khr_priority_hints and cl_khr_throttle_hints: queues of every level run their work
// (checked against the CPU), report the properties they were made with, and refuse values
// that are not levels.
#include <CL/cl_ext.h>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class QueueHints : public KernelTest {};

TEST_P(QueueHints, EveryLevelRunsItsWork) {
  Program p = build("__kernel void sq(__global int* a) { int i = get_global_id(0); a[i] = i * i + 3; }");
  Kernel k = kernel(p, "sq");
  constexpr size_t n = 512;
  const cl_queue_properties names[] = {CL_QUEUE_PRIORITY_KHR, CL_QUEUE_THROTTLE_KHR};
  const cl_queue_properties levels[] = {CL_QUEUE_PRIORITY_HIGH_KHR, CL_QUEUE_PRIORITY_MED_KHR,
                                        CL_QUEUE_PRIORITY_LOW_KHR};
  for (cl_queue_properties name : names)
    for (cl_queue_properties level : levels) {
      const cl_queue_properties props[] = {name, level, 0};
      cl_int err;
      Queue q(clCreateCommandQueueWithProperties(context_, device_, props, &err));
      ASSERT_EQ(CL_SUCCESS, err) << name << " " << level;
      Mem a = poisoned(n * 4);
      set_mem_arg(k, 0, a);
      ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
      std::vector<cl_int> got(n);
      ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(q, a, CL_TRUE, 0, n * 4, got.data(), 0, nullptr, nullptr));
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(cl_int(i * i + 3), got[i]) << i;
      cl_queue_properties back[3] = {};
      size_t size = 0;
      EXPECT_EQ(CL_SUCCESS, clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sizeof back, back, &size));
      EXPECT_EQ(sizeof props, size);
      EXPECT_EQ(name, back[0]);
      EXPECT_EQ(level, back[1]);
    }
  // Both hints at once, with other properties.
  const cl_queue_properties both[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, CL_QUEUE_PRIORITY_KHR,
                                      CL_QUEUE_PRIORITY_LOW_KHR, CL_QUEUE_THROTTLE_KHR, CL_QUEUE_THROTTLE_HIGH_KHR, 0};
  cl_int err;
  Queue q(clCreateCommandQueueWithProperties(context_, device_, both, &err));
  EXPECT_EQ(CL_SUCCESS, err);
}

TEST_P(QueueHints, ValuesThatAreNotLevelsAreRefused) {
  for (cl_queue_properties name : {cl_queue_properties(CL_QUEUE_PRIORITY_KHR), cl_queue_properties(CL_QUEUE_THROTTLE_KHR)})
    for (cl_queue_properties value : {cl_queue_properties(0), cl_queue_properties(3), cl_queue_properties(8)}) {
      const cl_queue_properties props[] = {name, value, 0};
      cl_int err = CL_SUCCESS;
      EXPECT_EQ(nullptr, clCreateCommandQueueWithProperties(context_, device_, props, &err));
      EXPECT_EQ(CL_INVALID_VALUE, err) << name << " " << value;
    }
  size_t size = 0;
  clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, 0, nullptr, &size);
  std::string extensions(size, '\0');
  clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr);
  EXPECT_NE(std::string::npos, extensions.find("cl_khr_priority_hints"));
  EXPECT_NE(std::string::npos, extensions.find("cl_khr_throttle_hints"));
}

INSTANTIATE_TEST_SUITE_P(Options, QueueHints, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
