// Out-of-order queues (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE): commands are ordered only by
// their wait lists, markers and barriers. Chains of dependent kernels through events and
// through barrier commands, independent kernels gathered by a marker, and host commands that
// wait for kernels, commands held back by a user event, each checked against a CPU
// computation. (Validation's synchronization
// checks, with VK_LAYER_ENABLES, see a missing barrier between dependent commands.)
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <thread>
#include <string>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {


const char* kSource = R"(
uint mix(uint x) {
  for (int k = 0; k < 16; ++k) x = x * 1664525u + 1013904223u;
  return x;
}
__kernel void fill(__global uint* a, uint seed) { size_t i = get_global_id(0); a[i] = mix((uint)i ^ seed); }
__kernel void add(__global const uint* a, __global uint* b) { size_t i = get_global_id(0); b[i] += a[i]; }
__kernel void inc(__global uint* a) { a[get_global_id(0)] += 1; }
)";

uint32_t mix(uint32_t x) {
  for (int k = 0; k < 16; ++k) x = x * 1664525u + 1013904223u;
  return x;
}

class OutOfOrder : public KernelTest {
 protected:
  void SetUp() override {
    KernelTest::SetUp();
    cl_int err = CL_SUCCESS;
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
    queue_ = Queue(clCreateCommandQueueWithProperties(context_, device_, props, &err));
    ASSERT_EQ(CL_SUCCESS, err);
  }
  // Enqueues |k| over |n| work-items after |waits|; returns its event.
  Event launch(const Kernel& k, size_t n, const std::vector<cl_event>& waits = {}) {
    cl_event e = nullptr;
    EXPECT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &n, nullptr, cl_uint(waits.size()),
                                                 waits.empty() ? nullptr : waits.data(), &e));
    return Event(e);
  }
  static constexpr size_t kN = 4096;
};

TEST_P(OutOfOrder, EventChainsAndIndependentKernels) {
  Program p = build(kSource);
  // Eight independent fills, gathered by a marker.
  std::vector<Mem> filled;
  std::vector<Kernel> fills;
  std::vector<Event> events;
  for (uint32_t j = 0; j < 8; ++j) {
    filled.push_back(buffer(kN * 4));
    fills.push_back(kernel(p, "fill"));
    set_mem_arg(fills.back(), 0, filled.back());
    set_arg(fills.back(), 1, j * 977u);
    events.push_back(launch(fills.back(), kN));
  }
  std::vector<cl_event> handles;
  for (const Event& e : events) handles.push_back(e.get());
  cl_event marker = nullptr;
  ASSERT_EQ(CL_SUCCESS, clEnqueueMarkerWithWaitList(queue_, cl_uint(handles.size()), handles.data(), &marker));
  Event marked(marker);
  // sum += filled[j] for each j, every add waiting for the one before it and for the marker.
  std::vector<uint32_t> zero(kN, 0);
  Mem sum = buffer(kN * 4, zero.data());
  std::vector<Kernel> adds;
  Event last;
  for (uint32_t j = 0; j < 8; ++j) {
    adds.push_back(kernel(p, "add"));
    set_mem_arg(adds.back(), 0, filled[j]);
    set_mem_arg(adds.back(), 1, sum);
    std::vector<cl_event> waits = {marker};
    if (last) waits.push_back(last.get());
    last = launch(adds.back(), kN, waits);
  }
  // A non-blocking read that waits for the last add: a host command on the same queue.
  std::vector<uint32_t> got(kN, 0xAB);
  cl_event last_handle = last.get(), read_done = nullptr;
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, sum, CL_FALSE, 0, kN * 4, got.data(), 1, &last_handle, &read_done));
  Event read_event(read_done);
  ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &read_done));
  for (size_t i = 0; i < kN; ++i) {
    uint32_t want = 0;
    for (uint32_t j = 0; j < 8; ++j) want += mix(uint32_t(i) ^ (j * 977u));
    ASSERT_EQ(want, got[i]) << "at " << i;
  }
  cl_int status = 0;
  ASSERT_EQ(CL_SUCCESS, clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
  EXPECT_EQ(CL_COMPLETE, status);
}

TEST_P(OutOfOrder, BarrierCommandsOrderWhatFollows) {
  Program p = build(kSource);
  Kernel inc = kernel(p, "inc");
  std::vector<uint32_t> start(kN);
  std::iota(start.begin(), start.end(), 0u);
  Mem a = buffer(kN * 4, start.data());
  set_mem_arg(inc, 0, a);
  const int rounds = 40;
  for (int r = 0; r < rounds; ++r) {
    launch(inc, kN);
    ASSERT_EQ(CL_SUCCESS, clEnqueueBarrierWithWaitList(queue_, 0, nullptr, nullptr));
  }
  ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
  auto got = read<uint32_t>(a, kN);
  for (size_t i = 0; i < kN; ++i) ASSERT_EQ(uint32_t(i + rounds), got[i]) << "at " << i;
}

TEST_P(OutOfOrder, CopiesAndFillsFollowTheirEvents) {
  Program p = build(kSource);
  Kernel fill = kernel(p, "fill");
  Mem a = buffer(kN * 4), b = buffer(kN * 4);
  set_mem_arg(fill, 0, a);
  set_arg(fill, 1, 5u);
  Event filled = launch(fill, kN);
  cl_event wait = filled.get(), copied = nullptr, patched = nullptr;
  ASSERT_EQ(CL_SUCCESS, clEnqueueCopyBuffer(queue_, a, b, 0, 0, kN * 4, 1, &wait, &copied));
  Event copy_event(copied);
  uint32_t pattern = 7;
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(queue_, b, &pattern, 4, 0, 64, 1, &copied, &patched));
  Event fill_event(patched);
  ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &patched));
  auto got = read<uint32_t>(b, kN);
  for (size_t i = 0; i < kN; ++i) ASSERT_EQ(i < 16 ? 7u : mix(uint32_t(i) ^ 5u), got[i]) << "at " << i;
}

// A command held back by a user event holds back only what depends on it: a later
// independent kernel runs and completes meanwhile; a marker without a wait list, a command
// waiting for the held one and everything after a barrier wait until the event is set.
TEST_P(OutOfOrder, HeldCommandsHoldOnlyTheirDependents) {
  Program p = build(kSource);
  Kernel fill_a = kernel(p, "fill"), fill_b = kernel(p, "fill"), inc = kernel(p, "inc"), after = kernel(p, "inc");
  Mem a = buffer(kN * 4), b = buffer(kN * 4);
  set_mem_arg(fill_a, 0, a);
  set_arg(fill_a, 1, 1u);
  set_mem_arg(fill_b, 0, b);
  set_arg(fill_b, 1, 2u);
  set_mem_arg(inc, 0, a);
  set_mem_arg(after, 0, b);
  cl_int err = CL_SUCCESS;
  Event user(clCreateUserEvent(context_, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Event held = launch(fill_a, kN, {user.get()});
  Event independent = launch(fill_b, kN);
  Event dependent = launch(inc, kN, {held.get()});
  cl_event marker = nullptr;
  ASSERT_EQ(CL_SUCCESS, clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &marker));
  Event marked(marker);
  auto status = [](const Event& e) {
    cl_int s = 0;
    clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr);
    return s;
  };
  // (Polled, so that a held one fails the test rather than hanging it.)
  ASSERT_EQ(CL_SUCCESS, clFlush(queue_));
  for (int i = 0; i < 1000 && status(independent) != CL_COMPLETE; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(CL_COMPLETE, status(independent)) << "an independent kernel waited for a held one";
  auto got_b = read<uint32_t>(b, kN);  // (a blocking read, itself independent)
  for (size_t i = 0; i < kN; ++i) ASSERT_EQ(mix(uint32_t(i) ^ 2u), got_b[i]) << "at " << i;
  ASSERT_EQ(CL_SUCCESS, clEnqueueBarrierWithWaitList(queue_, 0, nullptr, nullptr));
  Event behind_barrier = launch(after, kN);
  ASSERT_EQ(CL_SUCCESS, clFlush(queue_));
  EXPECT_GT(status(held), CL_COMPLETE);
  EXPECT_GT(status(dependent), CL_COMPLETE);
  EXPECT_GT(status(marked), CL_COMPLETE);
  EXPECT_GT(status(behind_barrier), CL_COMPLETE);
  ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(user, CL_COMPLETE));
  ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
  for (const Event* e : {&held, &dependent, &marked, &behind_barrier}) EXPECT_EQ(CL_COMPLETE, status(*e));
  auto got_a = read<uint32_t>(a, kN);
  got_b = read<uint32_t>(b, kN);
  for (size_t i = 0; i < kN; ++i) {
    ASSERT_EQ(mix(uint32_t(i) ^ 1u) + 1, got_a[i]) << "at " << i;
    ASSERT_EQ(mix(uint32_t(i) ^ 2u) + 1, got_b[i]) << "at " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, OutOfOrder, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
