// printf: output formatted on the host when the command completes, compared with the host C
// library formatting the same values; the buffer limit (CL_DEVICE_PRINTF_BUFFER_SIZE) drops
// whole records and reports -1 to the kernel for them.
#include <CL/cl_ext.h>

#include <cstdio>
#include <sstream>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class Printf : public KernelTest {};

TEST_P(Printf, ConversionsAndVectorsMatchTheHostLibrary) {
  std::vector<float> xs = {0.5f, -1.25f, 3.14159274f, 1e10f};
  Program p = build(R"(
    __constant char greeting[] = "hello";
    __kernel void k(__global const float* x) {
      int i = get_global_id(0);
      printf("%d|%5.2f|%e|%s|%s|%c|%#x|%ld|%u|%%|%-4d|%v4hlf|%v2d\n", i, x[i], x[i], "lit",
             greeting, 'a' + i, 255 * i, (long)i * -3000000000L, (uint)(-1 - i), i,
             (float4)(x[i], 1.0f, 2.0f, 0.25f), (int2)(i, -i));
    })");
  Kernel k = kernel(p, "k");
  Mem dx = buffer(xs.size() * 4, xs.data());
  set_mem_arg(k, 0, dx);
  size_t n = xs.size(), one = 1;
  testing::internal::CaptureStdout();
  run(k, 1, &n, &one);  // local size 1: work-items print in order of their groups
  ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
  std::string got = testing::internal::GetCapturedStdout();
  std::string want;
  for (int i = 0; i < int(n); ++i) {
    char line[512];
    std::snprintf(line, sizeof line, "%d|%5.2f|%e|%s|%s|%c|%#x|%lld|%u|%%|%-4d|%f,%f,%f,%f|%d,%d\n",
                  i, double(xs[i]), double(xs[i]), "lit", "hello", 'a' + i, 255 * i,
                  (long long)i * -3000000000LL, unsigned(-1 - i), i, double(xs[i]), 1.0, 2.0,
                  0.25, i, -i);
    want += line;
  }
  // Work-groups may run in any order: compare the sets of lines.
  auto lines = [](const std::string& s) {
    std::vector<std::string> v;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) v.push_back(l);
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(lines(got), lines(want));
}

TEST_P(Printf, HalfScalarsAndVectors) {
  cl_device_fp_config fp16 = 0;
  clGetDeviceInfo(device_, CL_DEVICE_HALF_FP_CONFIG, sizeof fp16, &fp16, nullptr);
  if (!fp16) GTEST_SKIP() << "the device does not report cl_khr_fp16";
  Program p = build(R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    __kernel void k(__global const half* x) {
      half h = x[0];
      printf("%f|%v2hf|%.1v4hg|%a\n", h, (half2)(h, -h), (half4)(1.0h, h, 65504.0h, -0.0h), h);
    })");
  Kernel k = kernel(p, "k");
  const uint16_t value = 0x3e00;  // 1.5
  Mem dx = buffer(2, &value);
  set_mem_arg(k, 0, dx);
  size_t one = 1;
  testing::internal::CaptureStdout();
  run(k, 1, &one, &one);
  ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
  char want[256];
  std::snprintf(want, sizeof want, "%f|%f,%f|%.1g,%.1g,%.1g,%.1g|%a\n", 1.5, 1.5, -1.5, 1.0, 1.5,
                65504.0, -0.0, 1.5);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), std::string(want));
}

TEST_P(Printf, FullBufferDropsWholeRecordsAndStaysInside) {
  size_t buffer_size = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_PRINTF_BUFFER_SIZE, sizeof buffer_size,
                                        &buffer_size, nullptr));
  ASSERT_GE(buffer_size, size_t(1024 * 1024));  // full profile minimum
  // Each record: call index + four ints = 20 bytes; far more records than fit.
  size_t n = buffer_size / 20 * 3;
  Program p = build(R"(
    __kernel void k(__global int* status) {
      int i = get_global_id(0);
      status[i] = printf("%d %d %d %d\n", i, i, i, i);
    })");
  Kernel k = kernel(p, "k");
  Mem status = poisoned(n * 4);
  set_mem_arg(k, 0, status);
  testing::internal::CaptureStdout();
  run(k, 1, &n, nullptr);
  ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
  std::string got = testing::internal::GetCapturedStdout();
  auto st = read<int>(status, n);
  size_t ok = 0;
  for (int s : st) {
    ASSERT_TRUE(s == 0 || s == -1) << s;
    ok += s == 0;
  }
  EXPECT_EQ(ok, buffer_size / 20) << "exactly the records that fit are written";
  size_t printed = size_t(std::count(got.begin(), got.end(), '\n'));
  EXPECT_EQ(printed, ok);
  // Every printed line is a whole record of one work-item.
  std::istringstream in(got);
  for (std::string l; std::getline(in, l);) {
    int a, b, c, d;
    ASSERT_EQ(4, std::sscanf(l.c_str(), "%d %d %d %d", &a, &b, &c, &d)) << l;
    ASSERT_TRUE(a == b && b == c && c == d) << l;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, Printf, ::testing::Values(std::string(""),
                                                            std::string("-cl-opt-disable")));

}  // namespace
}  // namespace vkcl::test
