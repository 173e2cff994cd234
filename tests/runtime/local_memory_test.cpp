// __local memory is each kernel's own: a program's kernels may each use most of the device's
// local memory, CL_KERNEL_LOCAL_MEM_SIZE reports a kernel's own arrays (those reachable from
// it, through calls too), and each launch gets only those (CLBlast and clFFT build programs
// of many kernels whose __local arrays together exceed CL_DEVICE_LOCAL_MEM_SIZE).
#include <cstdint>
#include <cstdlib>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class LocalMemory : public KernelTest {
 protected:
  cl_ulong device_local_size() {
    cl_ulong size = 0;
    EXPECT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_LOCAL_MEM_SIZE, sizeof size, &size,
                                          nullptr));
    return size;
  }
  cl_ulong kernel_local_size(const Kernel& k) {
    cl_ulong size = 0;
    EXPECT_EQ(CL_SUCCESS, clGetKernelWorkGroupInfo(k, device_, CL_KERNEL_LOCAL_MEM_SIZE,
                                                   sizeof size, &size, nullptr));
    return size;
  }
};

// Three kernels with a __local array of 60% of local memory each (together 180%), and a
// fourth that calls one of them as a function (OpenCL C allows it): its arrays are the
// callee's. Each kernel fills its array, reads it back reversed after a barrier, and reports
// CL_KERNEL_LOCAL_MEM_SIZE of at least its array and below the sum of all of them.
TEST_P(LocalMemory, EachKernelHasItsOwnLocalArrays) {
  const cl_ulong local_bytes = device_local_size();
  ASSERT_GE(local_bytes, 16u * 1024);
  const int n = int(local_bytes * 6 / 10 / 16 * 4);  // ints in 60% of local memory
  Program p = build(R"(
    void fill_and_reverse(__local int* t, __global int* out, int salt) {
      int l = get_local_id(0), size = get_local_size(0);
      for (int i = l; i < N; i += size) t[i] = i * 3 + salt;
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int i = l; i < N; i += size) out[get_group_id(0) * N + i] = t[N - 1 - i];
    }
    __kernel void first(__global int* out) {
      __local int a[N];
      fill_and_reverse(a, out, 1);
    }
    __kernel void second(__global int* out) {
      __local int b[N];
      fill_and_reverse(b, out, 2);
    }
    __kernel void third(__global int* out) {
      __local int2 c[N / 2];
      int l = get_local_id(0), size = get_local_size(0);
      for (int i = l; i < N / 2; i += size) c[i] = (int2)(i, -i) + 3;
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int i = l; i < N / 2; i += size) {
        int2 v = c[N / 2 - 1 - i];
        out[get_group_id(0) * N + 2 * i] = v.x;
        out[get_group_id(0) * N + 2 * i + 1] = v.y;
      }
    }
    __kernel void calls_second(__global int* out) { second(out); }
  )", "-DN=" + std::to_string(n));
  const size_t local = 64, groups = 3, global = local * groups;
  auto expect = [&](const char* name, size_t i) -> int {
    size_t in_group = i % size_t(n);
    if (std::string(name) == "third") {
      size_t pair = size_t(n) / 2 - 1 - in_group / 2;
      return in_group % 2 == 0 ? int(pair) + 3 : -int(pair) + 3;
    }
    int salt = std::string(name) == "first" ? 1 : 2;
    return (n - 1 - int(in_group)) * 3 + salt;
  };
  for (const char* name : {"first", "second", "third", "calls_second"}) {
    SCOPED_TRACE(name);
    Kernel k = kernel(p, name);
    cl_ulong own = kernel_local_size(k);
    EXPECT_GE(own, cl_ulong(n) * 4);
    EXPECT_LT(own, cl_ulong(n) * 4 * 2);
    EXPECT_LE(own, local_bytes);
    Mem out = poisoned(global / local * size_t(n) * 4);
    set_mem_arg(k, 0, out);
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &global, &local, 0,
                                                 nullptr, nullptr));
    std::vector<int> got = read<int>(out, groups * size_t(n));
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], expect(name, i)) << "at " << i;
  }
}

// A kernel whose own __local arrays do not fit still fails its launch (the check stays).
TEST_P(LocalMemory, KernelOverTheLimitIsRefused) {
  const cl_ulong local_bytes = device_local_size();
  const int n = int(local_bytes * 6 / 10 / 4);
  Program p = build(R"(
    __kernel void both(__global int* out) {
      __local int a[N];
      __local int b[N];
      int l = get_local_id(0);
      a[l] = l;
      b[l] = 2 * l;
      barrier(CLK_LOCAL_MEM_FENCE);
      out[get_global_id(0)] = a[N - 1 - l] + b[N - 1 - l];
    }
    __kernel void small(__global int* out) {
      __local int c[16];
      c[get_local_id(0) % 16] = 5;
      barrier(CLK_LOCAL_MEM_FENCE);
      out[get_global_id(0)] = c[0];
    })", "-DN=" + std::to_string(n));
  Kernel big = kernel(p, "both");
  EXPECT_GE(kernel_local_size(big), cl_ulong(n) * 8);
  Kernel small = kernel(p, "small");
  EXPECT_LT(kernel_local_size(small), 1024u);
  const size_t global = 16;
  Mem out = poisoned(global * 4);
  set_mem_arg(big, 0, out);
  EXPECT_EQ(CL_OUT_OF_RESOURCES, clEnqueueNDRangeKernel(queue_, big, 1, nullptr, &global, &global,
                                                        0, nullptr, nullptr));
  set_mem_arg(small, 0, out);
  run(small, 1, &global, &global);
  for (int v : read<int>(out, global)) EXPECT_EQ(v, 5);
}

// LeftoverLocals (CVE-2023-4969): a work-group never reads what an earlier one left in local
// memory. One kernel fills its __local array and a __local argument with a pattern; the next
// kernel, in many work-groups, reads its own without writing them (a store that the |never|
// argument keeps from running stops the compiler from folding the reads away): every word
// is 0. GPUs zero by default; the test asks for it (VKCL_ZERO_LOCAL_MEMORY=1) so that it runs
// on lavapipe too, which hands the pattern back without it.
TEST_P(LocalMemory, EachWorkGroupStartsWithZeroedLocalMemory) {
  setenv("VKCL_ZERO_LOCAL_MEMORY", "1", 1);
  struct Unset { ~Unset() { unsetenv("VKCL_ZERO_LOCAL_MEMORY"); } } unset;
  Program p = build(R"(
    __kernel void leave(__local uint* arg) {
      __local uint a[N];
      int l = get_local_id(0), size = get_local_size(0);
      for (int i = l; i < N; i += size) { a[i] = 0xdead0000u + i; arg[i] = 0xbeef0000u + i; }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    __kernel void peek(__global uint* out, __local uint* arg, int never) {
      __local uint b[N];
      int l = get_local_id(0), size = get_local_size(0), g = get_group_id(0);
      if (never) { b[l] = 1; arg[l] = 1; }
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int i = l; i < N; i += size) {
        out[g * 2 * N + i] = b[i];
        out[g * 2 * N + N + i] = arg[i];
      }
    })", "-DN=1024");
  const size_t n = 1024, local = 64, groups = 16, global = local * groups;
  Kernel leave = kernel(p, "leave");
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(leave, 0, n * 4, nullptr));
  run(leave, 1, &global, &local);
  Kernel peek = kernel(p, "peek");
  Mem out = poisoned(groups * 2 * n * 4);
  set_mem_arg(peek, 0, out);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(peek, 1, n * 4, nullptr));
  int never = 0;
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(peek, 2, sizeof never, &never));
  run(peek, 1, &global, &local);
  std::vector<uint32_t> got = read<uint32_t>(out, groups * 2 * n);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], 0u) << "at " << i;
}

INSTANTIATE_TEST_SUITE_P(Options, LocalMemory,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
