// Memory exhaustion: with a budget (VKCL_MEMORY_BUDGET, read at each allocation) buffers and
// images past it fail with CL_MEM_OBJECT_ALLOCATION_FAILURE, the device reports the budget as
// its global memory, and after releasing objects (whose memory vkcl may keep for reuse) new
// ones of another size, copies and kernels work again, with the right results.
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class MemoryBudget : public KernelTest {
 protected:
  void SetUp() override {
    setenv("VKCL_MEMORY_BUDGET", "96M", 1);
    KernelTest::SetUp();
  }
  void TearDown() override {
    KernelTest::TearDown();
    unsetenv("VKCL_MEMORY_BUDGET");
  }
};

TEST_P(MemoryBudget, AllocationsPastTheBudgetFailAndEverythingStaysUsable) {
  const size_t budget = size_t(96) << 20, chunk = size_t(8) << 20;
  cl_ulong global = 0, max_alloc = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, nullptr));
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, nullptr));
  EXPECT_EQ(budget, global);
  EXPECT_LE(max_alloc, global);

  std::vector<Mem> held;
  cl_int err = CL_SUCCESS;
  for (int i = 0; i < 32 && err == CL_SUCCESS; ++i) {
    Mem m(clCreateBuffer(context_, CL_MEM_READ_WRITE, chunk, nullptr, &err));
    if (err == CL_SUCCESS) held.push_back(std::move(m));
  }
  ASSERT_EQ(CL_MEM_OBJECT_ALLOCATION_FAILURE, err);
  ASSERT_GE(held.size(), 4u);
  EXPECT_LE(held.size() * chunk, budget);
  // Images draw from the same budget.
  cl_image_format format{CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = desc.image_height = 2048;  // 16 MiB
  Mem image(clCreateImage(context_, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err));
  EXPECT_EQ(CL_MEM_OBJECT_ALLOCATION_FAILURE, err);

  // Everything still works: a fill and a read of a buffer made before.
  const cl_uint pattern = 0x5A5A1234;
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(queue_, held[0], &pattern, 4, 0, 4096, 0, nullptr, nullptr));
  auto filled = read<cl_uint>(held[0], 1024);
  for (cl_uint v : filled) ASSERT_EQ(pattern, v);
  // Released memory comes back, for buffers of another size too.
  held.resize(held.size() / 2);
  Mem big(clCreateBuffer(context_, CL_MEM_READ_WRITE, 2 * chunk, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Program p = build("__kernel void k(__global uint* a) { a[get_global_id(0)] = get_global_id(0) * 3u; }");
  Kernel k = kernel(p, "k");
  set_mem_arg(k, 0, big);
  size_t n = 4096;
  run(k, 1, &n, nullptr);
  auto got = read<cl_uint>(big, n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(cl_uint(i * 3), got[i]);
}

// A buffer of CL_DEVICE_MAX_MEM_ALLOC_SIZE leaves room for a small buffer beside it and vkcl
// room for what a launch needs (argument blocks): a kernel writing both and reads of them
// work (the CTS's allocations test once had every launch fail after such a buffer).
TEST_P(MemoryBudget, ALaunchStillRunsBesideTheLargestBuffer) {
  cl_ulong max_alloc = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, nullptr));
  cl_int err;
  Mem largest(clCreateBuffer(context_, CL_MEM_READ_WRITE, max_alloc, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  size_t n = 65536;
  Mem beside(clCreateBuffer(context_, CL_MEM_READ_WRITE, n * 4, nullptr, &err));  // a result buffer
  ASSERT_EQ(CL_SUCCESS, err);
  Program p = build("__kernel void k(__global uint* a, __global uint* b) { size_t i = get_global_id(0); a[i] = i + 5u; b[i] = i * 2u; }");
  Kernel k = kernel(p, "k");
  set_mem_arg(k, 0, largest);
  set_mem_arg(k, 1, beside);
  run(k, 1, &n, nullptr);
  auto got = read<cl_uint>(largest, n), twice = read<cl_uint>(beside, n);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(cl_uint(i + 5), got[i]) << i;
    ASSERT_EQ(cl_uint(i * 2), twice[i]) << i;
  }
}

// vkcl's own allocations inside a command failing (VKCL_FAIL_ALLOCATIONS=1: every one) make
// the command fail with an error; the profiling queue goes on with the commands after it
// (a failed command's unwritten end timestamp once went back to the free slots and crashed
// the next launch).
TEST_P(MemoryBudget, CommandsWhoseMemoryFailsFailAndTheQueueGoesOn) {
  unsetenv("VKCL_MEMORY_BUDGET");
  // Arguments too large for push constants: the launch needs an argument block from the queue.
  Program p = build("typedef struct { uint v[64]; } Big;\n"
                    "__kernel void k(__global uint* a, Big b) { a[get_global_id(0)] = b.v[get_global_id(0) % 64] + get_global_id(0); }");
  Kernel k = kernel(p, "k");
  cl_int err = CL_SUCCESS;
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  Queue fresh(clCreateCommandQueueWithProperties(context_, device_, props, &err));  // no memory of its own yet
  ASSERT_EQ(CL_SUCCESS, err);
  Mem a = buffer(4096 * 4);
  set_mem_arg(k, 0, a);
  size_t n = 4096;
  struct Big { cl_uint v[64]; };
  auto big = [](cl_uint v) {
    Big b;
    for (cl_uint& x : b.v) x = v;
    return b;
  };
  // Once on the test's queue: what the kernel itself keeps is made; the fresh queue's first
  // launch then allocates its argument memory while it is recorded.
  set_arg(k, 1, big(3));
  run(k, 1, &n, nullptr);
  setenv("VKCL_FAIL_ALLOCATIONS", "1", 1);
  cl_event failed = nullptr;
  set_arg(k, 1, big(5));
  cl_int enqueued = clEnqueueNDRangeKernel(fresh, k, 1, nullptr, &n, nullptr, 0, nullptr, &failed);
  cl_int status = CL_COMPLETE;
  if (enqueued == CL_SUCCESS) {
    clWaitForEvents(1, &failed);
    ASSERT_EQ(CL_SUCCESS, clGetEventInfo(failed, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
    clReleaseEvent(failed);
  }
  unsetenv("VKCL_FAIL_ALLOCATIONS");
  EXPECT_EQ(CL_OUT_OF_RESOURCES, enqueued == CL_SUCCESS ? status : enqueued)
      << "the command whose memory failed did not fail";
  for (cl_uint v : {7u, 9u}) {
    set_arg(k, 1, big(v));
    cl_event done = nullptr;
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(fresh, k, 1, nullptr, &n, nullptr, 0, nullptr, &done));
    Event event(done);
    ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &done));
    cl_ulong start = 0, end = 0;
    ASSERT_EQ(CL_SUCCESS, clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr));
    ASSERT_EQ(CL_SUCCESS, clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr));
    EXPECT_LE(start, end);
    std::vector<cl_uint> got(n);
    ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(fresh, a, CL_TRUE, 0, n * 4, got.data(), 0, nullptr, nullptr));
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(v + cl_uint(i), got[i]);
  }
}

// Kernel objects the application keeps (or leaks: PyOpenCL 2022's create_kernels_in_program
// retains the kernels it is handed, so they are never released) do not keep what their past
// launches needed: on a driver that cuts loops short each launch of a loop whose trip count
// is read from memory has an area for its work-items' saved state (tens of MiB for a large
// NDRange), and silx's convolution tests on lavapipe once ran out of memory holding one per
// kernel. Here eight kernels launched over 2^18 work-items are kept, and then a buffer of
// two-thirds of the budget is still had; each launch's results are checked.
TEST_P(MemoryBudget, KernelsKeptDoNotHoldTheirLaunchesMemory) {
  Program p = build(R"(
    __kernel void steps(__global const uint* a, __global uint* out) {
      uint x = a[get_global_id(0)], s = 0;
      while (x != 1u) { x = (x & 1u) ? 3u * x + 1u : x / 2u; s++; }
      out[get_global_id(0)] = s;
    })");
  const size_t n = size_t(1) << 18;
  std::vector<cl_uint> a(n);
  for (size_t i = 0; i < n; ++i) a[i] = cl_uint(i % 1000 + 1);
  std::vector<cl_uint> want(n);
  for (size_t i = 0; i < n; ++i) {
    cl_uint x = a[i], s = 0;
    while (x != 1u) x = (x & 1u) ? 3u * x + 1u : x / 2u, ++s;
    want[i] = s;
  }
  std::vector<Kernel> kept;
  for (int round = 0; round < 8; ++round) {
    Mem da = buffer(n * 4, a.data()), dout = poisoned(n * 4);
    kept.push_back(kernel(p, "steps"));
    set_mem_arg(kept.back(), 0, da);
    set_mem_arg(kept.back(), 1, dout);
    run(kept.back(), 1, &n, nullptr);
    auto got = read<cl_uint>(dout, n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(want[i], got[i]) << "launch " << round << " work-item " << i;
  }
  cl_int err = CL_SUCCESS;
  Mem big(clCreateBuffer(context_, CL_MEM_READ_WRITE, size_t(64) << 20, nullptr, &err));
  EXPECT_EQ(CL_SUCCESS, err) << "the kept kernels hold memory";
}

// The same for printf: each launch in flight has a buffer of a MiB, and 48 launches enqueued
// before one clFinish once left 48 MiB with the kernel for as long as it lived.
TEST_P(MemoryBudget, AKernelKeptDoesNotHoldItsPrintfBuffers) {
  Program p = build(R"(
    __kernel void k(__global uint* out, uint never) {
      if (get_global_id(0) == never) printf("%u\n", never);
      out[get_global_id(0)] += 1;
    })");
  Kernel k = kernel(p, "k");
  const size_t n = 256;
  Mem out = buffer(n * 4, std::vector<cl_uint>(n, 0).data());
  set_mem_arg(k, 0, out);
  set_arg(k, 1, cl_uint(0xffffffffu));
  for (int i = 0; i < 48; ++i)
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr)) << i;
  ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
  for (cl_uint v : read<cl_uint>(out, n)) ASSERT_EQ(48u, v);
  cl_int err = CL_SUCCESS;
  Mem big(clCreateBuffer(context_, CL_MEM_READ_WRITE, size_t(64) << 20, nullptr, &err));
  EXPECT_EQ(CL_SUCCESS, err) << "the kernel holds its printf buffers";
}

INSTANTIATE_TEST_SUITE_P(Options, MemoryBudget, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
