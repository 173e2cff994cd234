// Program-scope __global variables (OpenCL C 3.0 __opencl_c_program_scope_global_variables):
// shared by the kernels of one program, persistent between launches, initialised once, and
// separate between programs; static variables in functions likewise.
#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class GlobalVariables : public KernelTest {};

const char* kSource = R"(
  global int counter = 100;
  global float table[4] = {1.5f, 2.5f, 3.5f, 4.5f};
  global struct { int a; long b; } pair = {7, 1L << 40};

  int next_ticket(void) {
    static global int tickets = 0;  // a function-scope static lives in the program too
    return atomic_inc(&tickets);
  }

  kernel void bump(int by) {
    if (get_global_id(0) == 0) {
      counter += by;
      table[by & 3] *= 2.0f;
      pair.b += by;
    }
    next_ticket();
  }

  kernel void report(global int* out_i, global float* out_f, global long* out_l) {
    out_i[0] = counter;
    out_i[1] = pair.a;
    out_i[2] = next_ticket();
    for (int k = 0; k < 4; ++k) out_f[k] = table[k];
    out_l[0] = pair.b;
  }
)";

TEST_P(GlobalVariables, GlobalsPersistAcrossKernelsAndLaunches) {
  Program p = build(kSource, "-cl-std=CL3.0");
  size_t total = 0;
  ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
                                              sizeof total, &total, nullptr));
  // counter 4 + table 16 + pair 16 + tickets 4, before any padding between them.
  EXPECT_GE(total, size_t(40));
  EXPECT_LE(total, size_t(64));
  Kernel bump = kernel(p, "bump"), report = kernel(p, "report");
  size_t n = 8;
  for (int by : {1, 2, 5}) {
    set_arg(bump, 0, by);
    run(bump, 1, &n, nullptr);
  }
  Mem oi = poisoned(12), of = poisoned(16), ol = poisoned(8);
  set_mem_arg(report, 0, oi); set_mem_arg(report, 1, of); set_mem_arg(report, 2, ol);
  size_t one = 1;
  run(report, 1, &one, nullptr);
  auto i = read<int>(oi, 3);
  auto f = read<float>(of, 4);
  auto l = read<int64_t>(ol, 1);
  EXPECT_EQ(i[0], 108);
  EXPECT_EQ(i[1], 7);
  EXPECT_EQ(i[2], 24);  // three launches of eight work-items took tickets 0..23
  EXPECT_EQ(f[0], 1.5f);
  EXPECT_EQ(f[1], 2.5f * 2 * 2);  // by = 1 and by = 5
  EXPECT_EQ(f[2], 3.5f * 2);
  EXPECT_EQ(f[3], 4.5f);
  EXPECT_EQ(l[0], (int64_t(1) << 40) + 8);

  // A second program starts from the initialisers again.
  Program q = build(kSource, "-cl-std=CL3.0");
  Kernel report2 = kernel(q, "report");
  set_mem_arg(report2, 0, oi); set_mem_arg(report2, 1, of); set_mem_arg(report2, 2, ol);
  run(report2, 1, &one, nullptr);
  EXPECT_EQ(read<int>(oi, 1)[0], 100);
}

// Program-scope pointers initialised with addresses of other program-scope variables (an
// element, a struct member, through a cast, in a table), read and written through, and the
// writes seen by a later launch of another kernel.
TEST_P(GlobalVariables, PointerInitializersPointIntoTheProgram) {
  const char* source = R"(
    typedef struct { int x; float y[3]; } S;
    global int a[4] = {10, 20, 30, 40};
    global S s = {7, {1.5f, 2.5f, 3.5f}};
    constant int c[3] = {100, 200, 300};
    global int* p = &a[2];
    global float* fp = &s.y[1];
    constant int* cp = c + 1;
    global int* table[2] = {&a[0], &a[3]};
    global uchar* bytes = (global uchar*)&a[1];
    kernel void use(global int* out, int v) {
      out[0] = *p; out[1] = (int)(*fp * 10); out[2] = *cp; out[3] = *table[0] + *table[1];
      out[4] = bytes[0];
      *p = v; *table[1] += 1; *fp = 9.5f; p = &a[0];
    }
    kernel void later(global int* out) {
      out[0] = a[0]; out[1] = a[2]; out[2] = a[3]; out[3] = (int)(s.y[1] * 10); out[4] = *p;
    })";
  Program prog = build(source, "-cl-std=CL3.0");
  Kernel use = kernel(prog, "use"), later = kernel(prog, "later");
  Mem out1 = poisoned(5 * 4), out2 = poisoned(5 * 4);
  set_mem_arg(use, 0, out1);
  set_arg(use, 1, 77);
  set_mem_arg(later, 0, out2);
  size_t one = 1;
  run(use, 1, &one, nullptr);
  run(later, 1, &one, nullptr);
  EXPECT_EQ(read<int>(out1, 5), (std::vector<int>{30, 25, 200, 50, 20}));
  EXPECT_EQ(read<int>(out2, 5), (std::vector<int>{10, 77, 41, 95, 10}));
}

TEST_P(GlobalVariables, DeviceReportsTheFeatureAndTheLimit) {
  size_t max = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, sizeof max, &max, nullptr));
  EXPECT_GE(max, size_t(64 * 1024));  // full profile minimum
  // Bigger than the limit: a build failure that says why.
  std::string big = "global char huge[" + std::to_string(max + 1) + "]; kernel void k(global char* o) { o[0] = huge[get_global_id(0)]; }";
  const char* text = big.c_str();
  cl_int err;
  Program p(clCreateProgramWithSource(context_, 1, &text, nullptr, &err));
  EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(p, 1, &device_, "-cl-std=CL3.0", nullptr, nullptr));
}

INSTANTIATE_TEST_SUITE_P(Options, GlobalVariables, ::testing::Values(std::string(""),
                                                                  std::string("-cl-opt-disable")));

}  // namespace
}  // namespace vkcl::test
