// Loops on a driver that allows a batch of work-items 65535 loop iterations in all (Mesa's
// llvmpipe): a kernel whose loops ran past that has wrong results, so its command fails with
// CL_OUT_OF_RESOURCES and vkcl says so on stderr; kernels within the limit complete as usual.
#include <string>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

// Two loops of |n| iterations whose work depends on the data, so neither can be folded.
const char* kTwoLoops = R"(
  __kernel void two_loops(__global const uint* a, __global uint* out, uint n) {
    uint c = 0;
    for (uint i = 0; i < n; i++) c += a[i & 7] & 1 ? 2 : 1;
    for (uint i = 0; i < n; i++) c += a[(i + 3) & 7] & 1 ? 3 : 1;
    out[get_global_id(0)] = c;
  })";

uint32_t two_loops_reference(const std::vector<uint32_t>& a, uint32_t n) {
  uint32_t c = 0;
  for (uint32_t i = 0; i < n; i++) c += a[i & 7] & 1 ? 2 : 1;
  for (uint32_t i = 0; i < n; i++) c += a[(i + 3) & 7] & 1 ? 3 : 1;
  return c;
}

class LoopLimit : public KernelTest {
 protected:
  bool driver_limits_loops() {
    char name[256] = {};
    clGetDeviceInfo(device_, CL_DEVICE_NAME, sizeof name - 1, name, nullptr);
    return std::string(name).find("llvmpipe") != std::string::npos;
  }
  cl_int status_of(cl_event e) {
    cl_int s = CL_QUEUED;
    EXPECT_EQ(CL_SUCCESS, clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr));
    return s;
  }
  // Runs two_loops over |items| work-items in groups of |local| with |n| iterations per loop;
  // returns its event (waited for with clWaitForEvents, whose result goes to |*waited|).
  Event run_two_loops(uint32_t n, size_t items, size_t local, std::vector<uint32_t>* a,
                      std::vector<uint32_t>* out, cl_int* waited) {
    Program p = build(kTwoLoops);
    Kernel k = kernel(p, "two_loops");
    a->resize(8);
    for (auto& x : *a) x = uint32_t(rng_());
    Mem da = buffer(a->size() * 4, a->data());
    Mem dout = poisoned(items * 4);
    set_mem_arg(k, 0, da);
    set_mem_arg(k, 1, dout);
    set_arg(k, 2, n);
    cl_event e = nullptr;
    EXPECT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &items, &local, 0, nullptr, &e));
    Event event(e);
    *waited = clWaitForEvents(1, &e);
    *out = read<uint32_t>(dout, items);
    return event;
  }
};

TEST_P(LoopLimit, LoopsCutShortFailTheCommand) {
  if (!driver_limits_loops()) GTEST_SKIP() << "the driver does not limit loop iterations";
  std::vector<uint32_t> a, out;
  cl_int waited = CL_SUCCESS;
  testing::internal::CaptureStderr();
  Event e = run_two_loops(40000, 8, 8, &a, &out, &waited);
  std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(waited, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  EXPECT_EQ(status_of(e), CL_OUT_OF_RESOURCES);
  EXPECT_NE(said.find("vkcl: kernel two_loops:"), std::string::npos) << said;
  EXPECT_NE(said.find("65535"), std::string::npos) << said;
}

// The status is there for an application that only calls clFinish and asks afterwards, and
// a command waiting on the failed one fails in turn.
TEST_P(LoopLimit, LoopsCutShortSeenAfterFinish) {
  if (!driver_limits_loops()) GTEST_SKIP() << "the driver does not limit loop iterations";
  Program p = build(kTwoLoops);
  Kernel k = kernel(p, "two_loops");
  std::vector<uint32_t> a(8, 1);
  Mem da = buffer(a.size() * 4, a.data());
  Mem dout = poisoned(4);
  set_mem_arg(k, 0, da);
  set_mem_arg(k, 1, dout);
  set_arg(k, 2, uint32_t(40000));
  size_t one = 1;
  cl_event e = nullptr;
  testing::internal::CaptureStderr();
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &one, &one, 0, nullptr, &e));
  Event kernel_event(e);
  EXPECT_EQ(CL_SUCCESS, clFinish(queue_));
  EXPECT_EQ(status_of(e), CL_OUT_OF_RESOURCES);
  cl_event m = nullptr;
  ASSERT_EQ(CL_SUCCESS, clEnqueueMarkerWithWaitList(queue_, 1, &e, &m));
  Event marker(m);
  EXPECT_EQ(clWaitForEvents(1, &m), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  EXPECT_EQ(status_of(m), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  std::string said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("vkcl: kernel two_loops:"), std::string::npos) << said;
}

// 30000 iterations per batch in all: exact results, no alarm. The work-group spans several
// batches, each with its own allowance.
TEST_P(LoopLimit, NoAlarmBelowTheLimit) {
  std::vector<uint32_t> a, out;
  cl_int waited = CL_OUT_OF_RESOURCES;
  testing::internal::CaptureStderr();
  Event e = run_two_loops(15000, 64, 64, &a, &out, &waited);
  std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(waited, CL_SUCCESS);
  EXPECT_EQ(status_of(e), CL_COMPLETE);
  EXPECT_EQ(said.find("vkcl: kernel"), std::string::npos) << said;
  uint32_t want = two_loops_reference(a, 15000);
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], want) << "work-item " << i;
}

// Kernels without loops, or with a short loop of constant trip count, complete as usual.
TEST_P(LoopLimit, NoAlarmWithoutLongLoops) {
  Program p = build(R"(
    __kernel void no_loop(__global const uint* a, __global uint* out) {
      size_t i = get_global_id(0);
      out[i] = a[i & 7] * 3u + (uint)i;
    }
    __kernel void short_loop(__global const uint* a, __global uint* out) {
      size_t i = get_global_id(0);
      uint s = 0;
      for (int j = 0; j < 5; j++) s += a[(i + j) & 7] ^ (uint)j;
      out[i] = s;
    })");
  const size_t items = 1024, local = 64;
  std::vector<uint32_t> a(8);
  for (auto& x : a) x = uint32_t(rng_());
  Mem da = buffer(a.size() * 4, a.data());
  testing::internal::CaptureStderr();
  for (const char* name : {"no_loop", "short_loop"}) {
    Kernel k = kernel(p, name);
    Mem dout = poisoned(items * 4);
    set_mem_arg(k, 0, da);
    set_mem_arg(k, 1, dout);
    cl_event e = nullptr;
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &items, &local, 0, nullptr, &e));
    Event event(e);
    EXPECT_EQ(CL_SUCCESS, clWaitForEvents(1, &e)) << name;
    EXPECT_EQ(status_of(e), CL_COMPLETE) << name;
    std::vector<uint32_t> out = read<uint32_t>(dout, items);
    for (size_t i = 0; i < items; ++i) {
      uint32_t want = 0;
      if (std::string(name) == "no_loop") {
        want = a[i & 7] * 3u + uint32_t(i);
      } else {
        for (uint32_t j = 0; j < 5; j++) want += a[(i + j) & 7] ^ j;
      }
      ASSERT_EQ(out[i], want) << name << " work-item " << i;
    }
  }
  std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(said.find("vkcl: kernel"), std::string::npos) << said;
}

INSTANTIATE_TEST_SUITE_P(Options, LoopLimit,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
