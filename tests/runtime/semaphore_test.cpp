// cl_khr_semaphore: one queue signals, another waits; checked against the CPU, with the
// signalling queue held back by a user event so that only the semaphore can order the two.
// Failed and missing signals, and a negative test per error code.
#include <CL/cl_ext.h>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class Semaphores : public KernelTest {
 protected:
  void SetUp() override {
    KernelTest::SetUp();
    if (HasFatalFailure()) return;
    auto get = [&](const char* name) { return clGetExtensionFunctionAddressForPlatform(platform_, name); };
    create_ = reinterpret_cast<clCreateSemaphoreWithPropertiesKHR_fn>(get("clCreateSemaphoreWithPropertiesKHR"));
    wait_ = reinterpret_cast<clEnqueueWaitSemaphoresKHR_fn>(get("clEnqueueWaitSemaphoresKHR"));
    signal_ = reinterpret_cast<clEnqueueSignalSemaphoresKHR_fn>(get("clEnqueueSignalSemaphoresKHR"));
    info_ = reinterpret_cast<clGetSemaphoreInfoKHR_fn>(get("clGetSemaphoreInfoKHR"));
    retain_ = reinterpret_cast<clRetainSemaphoreKHR_fn>(get("clRetainSemaphoreKHR"));
    release_ = reinterpret_cast<clReleaseSemaphoreKHR_fn>(get("clReleaseSemaphoreKHR"));
    ASSERT_TRUE(create_ && wait_ && signal_ && info_ && retain_ && release_);
  }
  cl_semaphore_khr binary() {
    const cl_semaphore_properties_khr props[] = {CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR, 0};
    cl_int err;
    cl_semaphore_khr s = create_(context_, props, &err);
    EXPECT_EQ(CL_SUCCESS, err);
    return s;
  }
  cl_semaphore_payload_khr payload(cl_semaphore_khr s) {
    cl_semaphore_payload_khr p = 99;
    EXPECT_EQ(CL_SUCCESS, info_(s, CL_SEMAPHORE_PAYLOAD_KHR, sizeof p, &p, nullptr));
    return p;
  }

  // produce writes x[i] = 7i + 1, consume y[i] = 2 x[i]: consume run before produce reads the
  // poison in x.
  static constexpr size_t kItems = 4096;
  struct ProducerConsumer {
    Program program;
    Kernel produce, consume;
    Mem x, y;
  };
  ProducerConsumer producer_consumer() {
    ProducerConsumer pc;
    pc.program = build(R"(
      __kernel void produce(__global int* x) { int i = get_global_id(0); x[i] = i * 7 + 1; }
      __kernel void consume(__global const int* x, __global int* y) { int i = get_global_id(0); y[i] = x[i] * 2; })");
    pc.produce = kernel(pc.program, "produce");
    pc.consume = kernel(pc.program, "consume");
    pc.x = poisoned(kItems * 4);
    pc.y = poisoned(kItems * 4);
    set_mem_arg(pc.produce, 0, pc.x);
    set_mem_arg(pc.consume, 0, pc.x);
    set_mem_arg(pc.consume, 1, pc.y);
    return pc;
  }
  void expect_consumed(cl_command_queue q, const ProducerConsumer& pc) {
    std::vector<cl_int> got(kItems);
    ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(q, pc.y, CL_TRUE, 0, kItems * 4, got.data(), 0, nullptr, nullptr));
    for (size_t i = 0; i < kItems; ++i) ASSERT_EQ(cl_int(i * 7 + 1) * 2, got[i]) << i;
  }

  clCreateSemaphoreWithPropertiesKHR_fn create_ = nullptr;
  clEnqueueWaitSemaphoresKHR_fn wait_ = nullptr;
  clEnqueueSignalSemaphoresKHR_fn signal_ = nullptr;
  clGetSemaphoreInfoKHR_fn info_ = nullptr;
  clRetainSemaphoreKHR_fn retain_ = nullptr;
  clReleaseSemaphoreKHR_fn release_ = nullptr;
};

TEST_P(Semaphores, AWaitingQueueRunsAfterTheSignallingOne) {
  const size_t n = kItems;
  ProducerConsumer pc = producer_consumer();
  cl_int err;
  Queue a(clCreateCommandQueueWithProperties(context_, device_, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Queue b(clCreateCommandQueueWithProperties(context_, device_, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  cl_semaphore_khr s = binary();
  Event gate(clCreateUserEvent(context_, &err));
  cl_event g = gate.get();
  // The waiting side first, and flushed: it would run at once without the semaphore.
  cl_event waited = nullptr;
  ASSERT_EQ(CL_SUCCESS, wait_(b, 1, &s, nullptr, 0, nullptr, &waited));
  Event w(waited);
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(b, pc.consume, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFlush(b));
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(a, pc.produce, 1, nullptr, &n, nullptr, 1, &g, nullptr));
  ASSERT_EQ(CL_SUCCESS, signal_(a, 1, &s, nullptr, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(g, CL_COMPLETE));
  ASSERT_EQ(CL_SUCCESS, clFinish(b));
  expect_consumed(b, pc);
  cl_command_type type = 0;
  clGetEventInfo(waited, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr);
  EXPECT_EQ(cl_command_type(CL_COMMAND_SEMAPHORE_WAIT_KHR), type);
  EXPECT_EQ(CL_SUCCESS, clFinish(a));
  EXPECT_EQ(0u, payload(s));  // the one signal was taken by the one wait
  EXPECT_EQ(CL_SUCCESS, release_(s));
}

// On an out-of-order queue a wait orders nothing by itself ("applications may enqueue a
// command-queue barrier after the semaphore wait command"): with that barrier, the kernel
// after it still runs after the other queue's signal.
TEST_P(Semaphores, AnOutOfOrderQueueWaitsThroughABarrier) {
  const size_t n = kItems;
  ProducerConsumer pc = producer_consumer();
  cl_int err;
  const cl_queue_properties ooo[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  Queue b(clCreateCommandQueueWithProperties(context_, device_, ooo, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  cl_semaphore_khr s = binary();
  Event gate(clCreateUserEvent(context_, &err));
  cl_event g = gate.get();
  ASSERT_EQ(CL_SUCCESS, wait_(b, 1, &s, nullptr, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clEnqueueBarrierWithWaitList(b, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(b, pc.consume, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFlush(b));
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, pc.produce, 1, nullptr, &n, nullptr, 1, &g, nullptr));
  ASSERT_EQ(CL_SUCCESS, signal_(queue_, 1, &s, nullptr, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(g, CL_COMPLETE));
  ASSERT_EQ(CL_SUCCESS, clFinish(b));
  expect_consumed(b, pc);
  EXPECT_EQ(CL_SUCCESS, clFinish(queue_));
  EXPECT_EQ(CL_SUCCESS, release_(s));
}

// Two queues hand a buffer back and forth through two semaphores, every step enqueued before
// anything runs: each kernel adds to what the other wrote, so one step out of order shows.
TEST_P(Semaphores, PingPongBetweenTwoQueues) {
  constexpr size_t n = 1024;
  constexpr int rounds = 20;
  Program p = build(R"(
    __kernel void step(__global int* x, int factor, int add) {
      int i = get_global_id(0); x[i] = x[i] * factor + add; })");
  Kernel ka = kernel(p, "step"), kb = kernel(p, "step");
  std::vector<cl_int> init(n);
  for (size_t i = 0; i < n; ++i) init[i] = cl_int(i % 13);
  Mem x = buffer(n * 4, init.data());
  set_mem_arg(ka, 0, x);
  set_mem_arg(kb, 0, x);
  set_arg(ka, 1, cl_int(3));
  set_arg(ka, 2, cl_int(1));
  set_arg(kb, 1, cl_int(-1));
  set_arg(kb, 2, cl_int(5));
  cl_int err;
  Queue a(clCreateCommandQueueWithProperties(context_, device_, nullptr, &err));
  Queue b(clCreateCommandQueueWithProperties(context_, device_, nullptr, &err));
  cl_semaphore_khr to_b = binary(), to_a = binary();
  Event gate(clCreateUserEvent(context_, &err));
  cl_event g = gate.get();
  ASSERT_EQ(CL_SUCCESS, clEnqueueMarkerWithWaitList(a, 1, &g, nullptr));
  for (int r = 0; r < rounds; ++r) {
    if (r > 0) {
      ASSERT_EQ(CL_SUCCESS, wait_(a, 1, &to_a, nullptr, 0, nullptr, nullptr));
    }
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(a, ka, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    ASSERT_EQ(CL_SUCCESS, signal_(a, 1, &to_b, nullptr, 0, nullptr, nullptr));
    ASSERT_EQ(CL_SUCCESS, wait_(b, 1, &to_b, nullptr, 0, nullptr, nullptr));
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(b, kb, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    ASSERT_EQ(CL_SUCCESS, signal_(b, 1, &to_a, nullptr, 0, nullptr, nullptr));
  }
  ASSERT_EQ(CL_SUCCESS, clFlush(b));
  ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(g, CL_COMPLETE));
  ASSERT_EQ(CL_SUCCESS, clFinish(b));
  ASSERT_EQ(CL_SUCCESS, clFinish(a));
  std::vector<cl_int> got = read<cl_int>(x, n);
  for (size_t i = 0; i < n; ++i) {
    cl_int want = init[i];
    for (int r = 0; r < rounds; ++r) want = (want * 3 + 1) * -1 + 5;
    ASSERT_EQ(want, got[i]) << i;
  }
  EXPECT_EQ(1u, payload(to_a));  // the last signal, never waited for
  EXPECT_EQ(CL_SUCCESS, release_(to_a));
  EXPECT_EQ(CL_SUCCESS, release_(to_b));
}

// A signal that fails (its wait list has a negative status) fails the wait that took it; a
// semaphore released with a wait still waiting for a signal
// fails that wait. Nothing hangs.
TEST_P(Semaphores, FailedOrMissingSignalsEndTheWaits) {
  cl_int err;
  Queue b(clCreateCommandQueueWithProperties(context_, device_, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  cl_semaphore_khr s = binary();
  cl_event waited = nullptr;
  ASSERT_EQ(CL_SUCCESS, wait_(b, 1, &s, nullptr, 0, nullptr, &waited));
  Event w(waited);
  Event gate(clCreateUserEvent(context_, &err));
  cl_event g = gate.get();
  ASSERT_EQ(CL_SUCCESS, signal_(queue_, 1, &s, nullptr, 1, &g, nullptr));
  ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(g, -77));
  EXPECT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, clWaitForEvents(1, &waited));
  cl_int status = 0;
  ASSERT_EQ(CL_SUCCESS, clGetEventInfo(waited, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
  EXPECT_LT(status, 0);
  (void)clFinish(queue_);

  cl_semaphore_khr lonely = binary();
  ASSERT_EQ(CL_SUCCESS, wait_(b, 1, &lonely, nullptr, 0, nullptr, &waited));
  Event w2(waited);
  ASSERT_EQ(CL_SUCCESS, release_(lonely));
  EXPECT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, clWaitForEvents(1, &waited));
  (void)clFinish(b);
  EXPECT_EQ(CL_SUCCESS, release_(s));
}

TEST_P(Semaphores, EachWaitTakesOneSignal) {
  cl_semaphore_khr s = binary();
  EXPECT_EQ(0u, payload(s));
  cl_event e = nullptr;
  ASSERT_EQ(CL_SUCCESS, signal_(queue_, 1, &s, nullptr, 0, nullptr, &e));
  Event signalled(e);
  ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &e));
  EXPECT_EQ(1u, payload(s));
  ASSERT_EQ(CL_SUCCESS, wait_(queue_, 1, &s, nullptr, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
  EXPECT_EQ(0u, payload(s));
  for (int i = 0; i < 3; ++i) ASSERT_EQ(CL_SUCCESS, signal_(queue_, 1, &s, nullptr, 0, nullptr, nullptr));
  for (int i = 0; i < 3; ++i) ASSERT_EQ(CL_SUCCESS, wait_(queue_, 1, &s, nullptr, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
  // Queries.
  cl_context c = nullptr;
  cl_uint refs = 0;
  cl_semaphore_type_khr type = 0;
  cl_semaphore_properties_khr props[3] = {};
  size_t size = 0;
  EXPECT_EQ(CL_SUCCESS, info_(s, CL_SEMAPHORE_CONTEXT_KHR, sizeof c, &c, nullptr));
  EXPECT_EQ(context_.get(), c);
  EXPECT_EQ(CL_SUCCESS, retain_(s));
  EXPECT_EQ(CL_SUCCESS, info_(s, CL_SEMAPHORE_REFERENCE_COUNT_KHR, sizeof refs, &refs, nullptr));
  EXPECT_EQ(2u, refs);
  EXPECT_EQ(CL_SUCCESS, release_(s));
  EXPECT_EQ(CL_SUCCESS, info_(s, CL_SEMAPHORE_TYPE_KHR, sizeof type, &type, nullptr));
  EXPECT_EQ(cl_semaphore_type_khr(CL_SEMAPHORE_TYPE_BINARY_KHR), type);
  EXPECT_EQ(CL_SUCCESS, info_(s, CL_SEMAPHORE_PROPERTIES_KHR, sizeof props, props, &size));
  EXPECT_EQ(sizeof props, size);
  EXPECT_EQ(cl_semaphore_properties_khr(CL_SEMAPHORE_TYPE_KHR), props[0]);
  EXPECT_EQ(CL_INVALID_VALUE, info_(s, 0x7777, sizeof refs, &refs, nullptr));
  EXPECT_EQ(CL_SUCCESS, release_(s));
}

TEST_P(Semaphores, ErrorCodes) {
  cl_int err = CL_SUCCESS;
  const cl_semaphore_properties_khr untyped[] = {0};
  EXPECT_EQ(nullptr, create_(context_, untyped, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  EXPECT_EQ(nullptr, create_(context_, nullptr, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  const cl_semaphore_properties_khr bad_type[] = {CL_SEMAPHORE_TYPE_KHR, 7, 0};
  EXPECT_EQ(nullptr, create_(context_, bad_type, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  const cl_semaphore_properties_khr unknown[] = {CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR, 0x7777, 1, 0};
  EXPECT_EQ(nullptr, create_(context_, unknown, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  const cl_semaphore_properties_khr other_device[] = {CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR,
                                                      CL_DEVICE_HANDLE_LIST_KHR,
                                                      cl_semaphore_properties_khr(reinterpret_cast<uintptr_t>(&err)),
                                                      CL_DEVICE_HANDLE_LIST_END_KHR, 0};
  EXPECT_EQ(nullptr, create_(context_, other_device, &err));
  EXPECT_EQ(CL_INVALID_DEVICE, err);
  const cl_semaphore_properties_khr typed[] = {CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR, 0};
  EXPECT_EQ(nullptr, create_(nullptr, typed, &err));
  EXPECT_EQ(CL_INVALID_CONTEXT, err);
  cl_semaphore_khr s = binary();
  auto* bad = reinterpret_cast<cl_semaphore_khr>(&err);
  EXPECT_EQ(CL_INVALID_VALUE, wait_(queue_, 0, &s, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, signal_(queue_, 1, nullptr, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_SEMAPHORE_KHR, wait_(queue_, 1, &bad, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_SEMAPHORE_KHR, signal_(queue_, 1, &bad, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, wait_(nullptr, 1, &s, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_EVENT_WAIT_LIST, signal_(queue_, 1, &s, nullptr, 1, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_SEMAPHORE_KHR, info_(bad, CL_SEMAPHORE_TYPE_KHR, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_SEMAPHORE_KHR, retain_(nullptr));
  EXPECT_EQ(CL_INVALID_SEMAPHORE_KHR, release_(bad));
  EXPECT_EQ(CL_SUCCESS, release_(s));
  // The device and the platform name the binary type.
  cl_semaphore_type_khr types[2] = {};
  size_t size = 0;
  EXPECT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_SEMAPHORE_TYPES_KHR, sizeof types, types, &size));
  EXPECT_EQ(sizeof(cl_semaphore_type_khr), size);
  EXPECT_EQ(cl_semaphore_type_khr(CL_SEMAPHORE_TYPE_BINARY_KHR), types[0]);
  EXPECT_EQ(CL_SUCCESS, clGetPlatformInfo(platform_, CL_PLATFORM_SEMAPHORE_TYPES_KHR, sizeof types, types, &size));
  EXPECT_EQ(sizeof(cl_semaphore_type_khr), size);
}

INSTANTIATE_TEST_SUITE_P(Options, Semaphores, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
