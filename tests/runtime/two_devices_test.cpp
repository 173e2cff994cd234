// Two Vulkan devices in one process (a GPU beside lavapipe): each has its own context and
// queue, and both run kernels at once, each checked against the CPU. ctest runs these with
// lavapipe's ICD file listed twice (set "two_devices"), which gives two physical devices;
// with one device they skip. One context over both: multi_device_test.cpp.
#include <string>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

std::vector<cl_device_id> vkcl_devices() {
  cl_platform_id platform = find_vkcl_platform();
  cl_uint n = 0;
  if (!platform || clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS) return {};
  std::vector<cl_device_id> devices(n);
  clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, n, devices.data(), nullptr);
  return devices;
}

struct OnDevice {
  Context context;
  Queue queue;
  Program program;
  Kernel kernel;
  Mem data;
};

TEST(TwoDevices, EachRunsItsOwnKernelsAtOnce) {
  std::vector<cl_device_id> devices = vkcl_devices();
  if (devices.size() < 2) GTEST_SKIP() << devices.size() << " vkcl device(s)";
  constexpr size_t n = 1 << 16;
  const char* source = R"(
    __kernel void k(__global uint* x, uint factor) {
      size_t i = get_global_id(0);
      uint v = x[i];
      for (uint r = 0; r < 100; ++r) v = v * factor + r;
      x[i] = v;
    })";
  std::vector<OnDevice> on(2);
  std::vector<cl_int> init(n);
  for (size_t i = 0; i < n; ++i) init[i] = cl_int(i % 1000) - 500;
  for (int d = 0; d < 2; ++d) {
    cl_int err = CL_SUCCESS;
    on[d].context = Context(clCreateContext(nullptr, 1, &devices[d], nullptr, nullptr, &err));
    ASSERT_EQ(CL_SUCCESS, err);
    on[d].queue = Queue(clCreateCommandQueueWithProperties(on[d].context, devices[d], nullptr, &err));
    ASSERT_EQ(CL_SUCCESS, err);
    on[d].program = Program(clCreateProgramWithSource(on[d].context, 1, &source, nullptr, &err));
    ASSERT_EQ(CL_SUCCESS, clBuildProgram(on[d].program, 1, &devices[d], "", nullptr, nullptr));
    on[d].kernel = Kernel(clCreateKernel(on[d].program, "k", &err));
    ASSERT_EQ(CL_SUCCESS, err);
    on[d].data = Mem(clCreateBuffer(on[d].context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, init.data(), &err));
    ASSERT_EQ(CL_SUCCESS, err);
    cl_mem m = on[d].data.get();
    cl_int factor = 3 + d;
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(on[d].kernel, 0, sizeof m, &m));
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(on[d].kernel, 1, sizeof factor, &factor));
  }
  // Both enqueued and flushed before either is waited for.
  for (int round = 0; round < 3; ++round)
    for (int d = 0; d < 2; ++d)
      ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(on[d].queue, on[d].kernel, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  for (int d = 0; d < 2; ++d) ASSERT_EQ(CL_SUCCESS, clFlush(on[d].queue));
  for (int d = 0; d < 2; ++d) {
    std::vector<cl_int> got(n);
    ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(on[d].queue, on[d].data, CL_TRUE, 0, n * 4, got.data(), 0, nullptr, nullptr));
    for (size_t i = 0; i < n; i += 7) {
      uint32_t v = uint32_t(init[i]);
      for (int round = 0; round < 3; ++round)
        for (int r = 0; r < 100; ++r) v = v * uint32_t(3 + d) + uint32_t(r);
      ASSERT_EQ(cl_int(v), got[i]) << "device " << d << " element " << i;
    }
  }
  EXPECT_EQ(0u, validation_messages(find_vkcl_platform())) << "Vulkan validation messages";
}

}  // namespace
}  // namespace vkcl::test
