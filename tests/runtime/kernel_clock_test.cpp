// cl_khr_kernel_clock: the capabilities the device reports match its extension and features,
// and every clock a kernel reads runs forward: a read after others in program order is never
// smaller, and the hilo form reads the same counter as the 64-bit one.
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

INSTANTIATE_TEST_SUITE_P(Options, KernelClock, ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
