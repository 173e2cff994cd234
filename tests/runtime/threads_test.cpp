// Eight threads for a bounded time, each on its own queue and on two shared ones (in order and
// out of order): buffers created and released, written, run through a kernel, copied, mapped,
// read back, with events of other threads' queues and user events in the wait lists, kernels
// created from a shared program. Every result is checked against what the thread computed.
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

const char* kSource = R"(
__kernel void add(__global uint* a, uint k) { a[get_global_id(0)] = a[get_global_id(0)] * 3u + k; }
)";

class Threads : public KernelTest {};

TEST_P(Threads, EightThreadsSharedAndPrivateQueues) {
  Program program = build(kSource);
  cl_int err = CL_SUCCESS;
  cl_queue_properties ooo[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  Queue shared_ooo(clCreateCommandQueueWithProperties(context_, device_, ooo, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  constexpr int kThreads = 8;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  std::atomic<int> rounds{0};
  std::mutex failures_mutex;
  std::vector<std::string> failures;
  auto fail = [&](const std::string& what) {
    std::lock_guard<std::mutex> lock(failures_mutex);
    failures.push_back(what);
  };
  // The last event of each thread's own queue, for others' wait lists.
  std::vector<std::atomic<cl_event>> last(kThreads);
  for (auto& e : last) e = nullptr;

  auto work = [&](int t) {
    std::mt19937 rng(1234 + t);
    cl_int e = CL_SUCCESS;
    cl_command_queue own = clCreateCommandQueueWithProperties(context_, device_, nullptr, &e);
    if (e != CL_SUCCESS) return fail("queue " + std::to_string(e));
    cl_kernel kernel = clCreateKernel(program, "add", &e);  // one per thread: arguments are its own
    if (e != CL_SUCCESS) return fail("kernel " + std::to_string(e));
    while (std::chrono::steady_clock::now() < until) {
      const size_t n = 64 + rng() % 4000;
      std::vector<cl_uint> data(n), want(n), got(n, 0xABABABAB);
      for (size_t i = 0; i < n; ++i) data[i] = rng();
      const cl_uint k = rng();
      for (size_t i = 0; i < n; ++i) want[i] = data[i] * 3u + k;
      const int choice = int(rng() % 3);
      cl_command_queue q = choice == 0 ? own : choice == 1 ? queue_.get() : shared_ooo.get();
      cl_mem a = clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, data.data(), &e);
      cl_mem b = e == CL_SUCCESS ? clCreateBuffer(context_, CL_MEM_READ_WRITE, n * 4, nullptr, &e) : nullptr;
      if (e != CL_SUCCESS) return fail("buffer " + std::to_string(e));
      // Wait for another thread's latest command and for a user event set here.
      cl_event user = clCreateUserEvent(context_, &e);
      cl_event other = last[(t + 1) % kThreads].exchange(nullptr);
      std::vector<cl_event> waits = {user};
      if (other) waits.push_back(other);
      cl_event ran = nullptr, copied = nullptr, read_done = nullptr;
      e = clSetKernelArg(kernel, 0, sizeof a, &a);
      if (e == CL_SUCCESS) e = clSetKernelArg(kernel, 1, sizeof k, &k);
      if (e == CL_SUCCESS)
        e = clEnqueueNDRangeKernel(q, kernel, 1, nullptr, &n, nullptr, cl_uint(waits.size()), waits.data(), &ran);
      clSetUserEventStatus(user, CL_COMPLETE);
      if (e == CL_SUCCESS) e = clEnqueueCopyBuffer(q, a, b, 0, 0, n * 4, 1, &ran, &copied);
      if (e == CL_SUCCESS) e = clEnqueueReadBuffer(q, b, CL_FALSE, 0, n * 4, got.data(), 1, &copied, &read_done);
      if (e == CL_SUCCESS) e = clWaitForEvents(1, &read_done);
      if (e != CL_SUCCESS) fail("commands " + std::to_string(e));
      else if (got != want) fail("thread " + std::to_string(t) + ": wrong result");
      // A map of the kernel's output, checked too.
      if (e == CL_SUCCESS) {
        auto* mapped = static_cast<cl_uint*>(
            clEnqueueMapBuffer(own, a, CL_TRUE, CL_MAP_READ, 0, n * 4, 0, nullptr, nullptr, &e));
        if (e != CL_SUCCESS || !mapped || std::memcmp(mapped, want.data(), n * 4) != 0) fail("map");
        if (mapped) clEnqueueUnmapMemObject(own, a, mapped, 0, nullptr, nullptr);
      }
      if (other) clReleaseEvent(other);
      cl_event previous = last[t].exchange(copied);
      if (previous) clReleaseEvent(previous);
      for (cl_event ev : {user, ran, read_done})
        if (ev) clReleaseEvent(ev);
      clReleaseMemObject(a);
      clReleaseMemObject(b);
      ++rounds;
    }
    clFinish(own);
    clReleaseKernel(kernel);
    clReleaseCommandQueue(own);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, t);
  for (auto& th : threads) th.join();
  for (auto& e : last)
    if (cl_event ev = e.exchange(nullptr)) clReleaseEvent(ev);
  EXPECT_EQ(CL_SUCCESS, clFinish(queue_));
  EXPECT_EQ(CL_SUCCESS, clFinish(shared_ooo));
  EXPECT_TRUE(failures.empty()) << failures.size() << " failures, the first: " << failures.front();
  EXPECT_GE(rounds.load(), kThreads);
  std::printf("%d rounds in 3 s from %d threads\n", rounds.load(), kThreads);
}

INSTANTIATE_TEST_SUITE_P(Options, Threads, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
