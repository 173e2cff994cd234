// cl_khr_kernel_clock: the capabilities the device reports match its extension and features,
// and every clock a kernel reads runs forward: a read after others in program order is never
// smaller, and the hilo form reads the same counter as the 64-bit one. A GPU's
// CL_DEVICE_MAX_CLOCK_FREQUENCY is the rate of its sub-group clock.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

constexpr cl_device_info kClockCapabilities = 0x1076;  // CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR

class KernelClock : public KernelTest {
 protected:
  cl_bitfield capabilities() {
    cl_bitfield caps = 0;
    EXPECT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, kClockCapabilities, sizeof caps, &caps, nullptr));
    return caps;
  }
  bool has_extension() {
    char extensions[4096] = {};
    clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions, nullptr);
    return std::strstr(extensions, "cl_khr_kernel_clock") != nullptr;
  }
};

TEST_P(KernelClock, CapabilitiesMatchTheExtension) {
  cl_bitfield caps = capabilities();
  EXPECT_EQ(has_extension(), caps != 0);
  if (has_extension()) {
    EXPECT_TRUE(caps & 1) << "a device clock comes with the extension here";
  }
}

TEST_P(KernelClock, EveryScopeRunsForward) {
  if (!has_extension()) GTEST_SKIP() << "the device does not report cl_khr_kernel_clock";
  const cl_bitfield caps = capabilities();
  const char* scopes[] = {"device", "work_group", "sub_group"};
  for (int s = 0; s < 3; ++s) {
    if (!(caps & (cl_bitfield(1) << s))) continue;
    SCOPED_TRACE(scopes[s]);
    std::string src = R"(
      __kernel void k(__global ulong* out, __global uint* sink) {
        size_t i = get_global_id(0);
        ulong t0 = clock_read_SCOPE();
        uint acc = 0;
        for (uint j = 0; j < 2000; ++j) acc = acc * 1664525u + j;
        uint2 h = clock_read_hilo_SCOPE();
        ulong t1 = clock_read_SCOPE();
        sink[i] = acc;
        out[3 * i] = t0;
        out[3 * i + 1] = ((ulong)h.y << 32) | h.x;
        out[3 * i + 2] = t1;
      })";
    for (size_t at; (at = src.find("SCOPE")) != std::string::npos;) src.replace(at, 5, scopes[s]);
    Program p = build(src);
    Kernel k = kernel(p, "k");
    const size_t n = 256;
    Mem out = poisoned(n * 3 * 8), sink = buffer(n * 4);
    set_mem_arg(k, 0, out);
    set_mem_arg(k, 1, sink);
    run(k, 1, &n, nullptr);
    std::vector<cl_ulong> t = read<cl_ulong>(out, n * 3);
    int bad = 0;
    for (size_t i = 0; i < n && bad < 5; ++i)
      if (!(t[3 * i] <= t[3 * i + 1] && t[3 * i + 1] <= t[3 * i + 2])) {
        ADD_FAILURE() << "work-item " << i << ": " << t[3 * i] << ", " << t[3 * i + 1] << ", " << t[3 * i + 2];
        ++bad;
      }
  }
}

// vkcl measures a GPU's clock (Vulkan reports none) as the rate of the sub-group clock against
// the device's timestamps; here the same clock is timed by the host's, around whole launches:
// the difference of a long and a short chain of dependent steps in one work-item, so that
// what both launches pay cancels. A CPU device reports its cores' frequency instead, unless
// VKCL_MEASURE_CLOCK=1 (the measured_clock test set).
TEST_P(KernelClock, GpuClockFrequencyIsTheSubGroupClocksRate) {
  cl_device_type type = 0;
  clGetDeviceInfo(device_, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
  const char* measured = std::getenv("VKCL_MEASURE_CLOCK");
  if (type == CL_DEVICE_TYPE_CPU && !(measured && std::strcmp(measured, "1") == 0))
    GTEST_SKIP() << "a CPU device reports its cores' frequency";
  if (!has_extension() || !(capabilities() & 4)) GTEST_SKIP() << "no sub-group clock";
  cl_uint reported = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof reported, &reported, nullptr));
  Program p = build(R"(
    __kernel void chain(__global ulong* out, uint outer, uint steps) {
      uint x = 7;
      ulong start = clock_read_sub_group();
      for (uint o = 0; o < outer; ++o)
        for (uint i = 0; i < steps; ++i) x = x * 1664525u + 1013904223u;
      ulong end = clock_read_sub_group();
      out[0] = end - start;
      out[1] = x;
    })");
  Kernel k = kernel(p, "chain");
  Mem out = poisoned(16);
  set_mem_arg(k, 0, out);
  set_arg(k, 2, cl_uint(40000));
  // Ticks of the clock and host seconds for one launch of |outer| x 40,000 steps.
  auto launch = [&](cl_uint outer, double* ticks, double* seconds) {
    set_arg(k, 1, outer);
    const size_t one = 1;
    auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &one, nullptr, 0, nullptr, nullptr));
    ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    *ticks = double(read<cl_ulong>(out, 1)[0]);
  };
  double ticks, seconds;
  launch(1, &ticks, &seconds);  // built and warm
  // ~1 ns a step on lavapipe: 30 million more steps in the long launch, ~30 ms.
  std::vector<double> rates;
  for (int r = 0; r < 3; ++r) {
    double short_ticks, short_seconds, long_ticks, long_seconds;
    launch(50, &short_ticks, &short_seconds);
    launch(800, &long_ticks, &long_seconds);
    ASSERT_GT(long_seconds, short_seconds);
    rates.push_back((long_ticks - short_ticks) / (long_seconds - short_seconds) * 1e-6);
  }
  std::sort(rates.begin(), rates.end());
  EXPECT_NEAR(rates[1], reported, 0.1 * rates[1]) << "MHz reported " << reported << ", sub-group clock's rate "
                                                  << rates[1];
}

INSTANTIATE_TEST_SUITE_P(Options, KernelClock, ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
