// Shared virtual memory: coarse- and fine-grained buffers from clSVMAlloc used by kernels as
// arguments, through pointers stored in SVM (a linked list the host builds), through buffers
// made from SVM pointers; the SVM commands; a kernel whose loops the driver cuts, writing SVM;
// and the error codes. Every result is checked against a CPU computation.
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

const char* kSource = R"(
typedef struct Node { __global struct Node* next; int value; } Node;
__kernel void scale(__global int* data, int factor) { data[get_global_id(0)] *= factor; }
__kernel void walk(__global Node* head, __global int* out) {
  int sum = 0, n = 0;
  for (__global Node* p = head; p; p = p->next) { sum += p->value; ++n; }
  out[0] = sum; out[1] = n;
}
)";

// Alone in its program: a module whose kernels write global memory only through their
// arguments may run first in its plain (faster) form and again if the driver cut it.
const char* kCountSource = R"(
__kernel void count(__global uint* out, uint n) {
  for (uint i = 0; i < n; ++i) out[get_global_id(0) * 7 + i % 7] += 1;
}
)";

class Svm : public KernelTest {
 protected:
  void SetUp() override {
    KernelTest::SetUp();
    ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_SVM_CAPABILITIES, sizeof caps_, &caps_, nullptr));
    if (!(caps_ & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)) GTEST_SKIP() << "no SVM on this device";
  }
  void* alloc(size_t size, cl_svm_mem_flags flags = CL_MEM_READ_WRITE) {
    void* p = clSVMAlloc(context_, flags, size, 0);
    EXPECT_NE(p, nullptr);
    if (p) allocations_.push_back(p);
    return p;
  }
  void TearDown() override {
    if (queue_) clFinish(queue_);
    for (void* p : allocations_) clSVMFree(context_, p);
    KernelTest::TearDown();
  }
  cl_device_svm_capabilities caps_ = 0;
  std::vector<void*> allocations_;
};

TEST_P(Svm, CoarseGrainedBufferThroughMapAndKernel) {
  Program p = build(kSource, "-cl-std=CL3.0");
  Kernel k = kernel(p, "scale");
  const size_t n = 1000;
  auto* data = static_cast<int*>(alloc(n * sizeof(int)));
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(data) % 128);  // the default alignment
  ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMap(queue_, CL_TRUE, CL_MAP_WRITE, data, n * sizeof(int), 0, nullptr, nullptr));
  for (size_t i = 0; i < n; ++i) data[i] = int(i) - 300;
  ASSERT_EQ(CL_SUCCESS, clEnqueueSVMUnmap(queue_, data, 0, nullptr, nullptr));
  // The pointer may point inside the allocation: the first 100 elements stay.
  ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, data + 100));
  set_arg(k, 1, 3);
  size_t global = n - 100;
  run(k, 1, &global, nullptr);
  ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMap(queue_, CL_TRUE, CL_MAP_READ, data, n * sizeof(int), 0, nullptr, nullptr));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ((int(i) - 300) * (i >= 100 ? 3 : 1), data[i]) << "at " << i;
  ASSERT_EQ(CL_SUCCESS, clEnqueueSVMUnmap(queue_, data, 0, nullptr, nullptr));
}

TEST_P(Svm, PointersStoredInSvmWorkInKernels) {
  if (!(caps_ & CL_DEVICE_SVM_FINE_GRAIN_BUFFER)) GTEST_SKIP() << "no fine-grained SVM buffers";
  struct Node { Node* next; int value; };
  Program p = build(kSource, "-cl-std=CL3.0");
  Kernel k = kernel(p, "walk");
  // Nodes in two allocations, linked back and forth; the second reached only through pointers.
  const int count = 50;
  auto* first = static_cast<Node*>(alloc(count * sizeof(Node), CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER));
  auto* second = static_cast<Node*>(alloc(count * sizeof(Node), CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER));
  auto* out = static_cast<int*>(alloc(2 * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER));
  ASSERT_TRUE(first && second && out);
  int want = 0;
  Node* prev = nullptr;
  for (int i = 0; i < 2 * count; ++i) {
    Node* node = (i % 2 ? second : first) + i / 2;
    node->value = i * 7 - 40;
    node->next = nullptr;
    want += node->value;
    if (prev) prev->next = node;
    prev = node;
  }
  ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, first));
  ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 1, out));
  void* reached[] = {second};
  ASSERT_EQ(CL_SUCCESS, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof reached, reached));
  size_t one = 1;
  run(k, 1, &one, nullptr);
  EXPECT_EQ(want, out[0]);
  EXPECT_EQ(2 * count, out[1]);
}

TEST_P(Svm, CommandsAndBuffersOverSvm) {
  Program p = build(kSource, "-cl-std=CL3.0");
  Kernel k = kernel(p, "scale");
  const size_t n = 256;
  auto* a = static_cast<int*>(alloc(n * sizeof(int)));
  auto* b = static_cast<int*>(alloc(n * sizeof(int)));
  ASSERT_TRUE(a && b);
  const uint8_t pattern[8] = {1, 0, 0, 0, 2, 0, 0, 0};
  ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemFill(queue_, a, pattern, 8, n * sizeof(int), 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemcpy(queue_, CL_FALSE, b, a, n * sizeof(int), 0, nullptr, nullptr));
  // A buffer over the second half of |b|, written by a kernel, seen through the SVM pointer.
  cl_int err = CL_SUCCESS;
  Mem half(clCreateBuffer(context_, CL_MEM_USE_HOST_PTR, n / 2 * sizeof(int), b + n / 2, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  cl_bool uses = CL_FALSE;
  ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(half, CL_MEM_USES_SVM_POINTER, sizeof uses, &uses, nullptr));
  EXPECT_EQ(CL_TRUE, uses);
  set_mem_arg(k, 0, half);
  set_arg(k, 1, 5);
  size_t global = n / 2;
  run(k, 1, &global, nullptr);
  std::vector<int> host(n, -1);
  ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemcpy(queue_, CL_TRUE, host.data(), b, n * sizeof(int), 0, nullptr, nullptr));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(int(1 + i % 2) * (i >= n / 2 ? 5 : 1), host[i]) << "at " << i;
  // clEnqueueSVMFree hands the pointers to the callback.
  struct Seen { std::vector<void*> pointers; cl_command_queue queue = nullptr; } seen;
  void* to_free[] = {a};
  auto callback = [](cl_command_queue q, cl_uint count, void* ptrs[], void* data) {
    auto* s = static_cast<Seen*>(data);
    s->queue = q;
    s->pointers.assign(ptrs, ptrs + count);
  };
  ASSERT_EQ(CL_SUCCESS, clEnqueueSVMFree(queue_, 1, to_free, callback, &seen, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
  EXPECT_EQ(queue_.get(), seen.queue);
  ASSERT_EQ(1u, seen.pointers.size());
  EXPECT_EQ(static_cast<void*>(a), seen.pointers[0]);
}

// A kernel whose loops lavapipe cuts short, writing SVM through its argument: the count is
// the program's (the launch resumes; a first attempt that ran again would count twice).
TEST_P(Svm, LongLoopsWritingSvm) {
  Program p = build(kCountSource, "-cl-std=CL3.0");
  Kernel k = kernel(p, "count");
  const size_t n = 64, slots = n * 7;
  const cl_uint iterations = 70000;
  auto* out = static_cast<cl_uint*>(alloc(slots * sizeof(cl_uint)));
  ASSERT_NE(out, nullptr);
  cl_uint zero = 0;
  ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemFill(queue_, out, &zero, 4, slots * 4, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, out));
  set_arg(k, 1, iterations);
  run(k, 1, &n, nullptr);
  std::vector<cl_uint> host(slots);
  ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemcpy(queue_, CL_TRUE, host.data(), out, slots * 4, 0, nullptr, nullptr));
  for (size_t i = 0; i < slots; ++i) ASSERT_EQ(iterations / 7 + (i % 7 < iterations % 7 ? 1 : 0), host[i]) << "at " << i;
}

TEST_P(Svm, ErrorCodes) {
  EXPECT_EQ(nullptr, clSVMAlloc(nullptr, CL_MEM_READ_WRITE, 64, 0));
  EXPECT_EQ(nullptr, clSVMAlloc(context_, CL_MEM_READ_WRITE, 0, 0));
  EXPECT_EQ(nullptr, clSVMAlloc(context_, CL_MEM_READ_WRITE, 64, 3));
  EXPECT_EQ(nullptr, clSVMAlloc(context_, CL_MEM_READ_WRITE, 64, 256));
  EXPECT_EQ(nullptr, clSVMAlloc(context_, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, 0));
  EXPECT_EQ(nullptr, clSVMAlloc(context_, CL_MEM_SVM_ATOMICS, 64, 0));  // atomics need fine grain
  if (!(caps_ & CL_DEVICE_SVM_ATOMICS)) {
    EXPECT_EQ(nullptr, clSVMAlloc(context_, CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS, 64, 0));
  }
  auto* a = static_cast<uint8_t*>(alloc(256));
  ASSERT_NE(a, nullptr);
  void* aligned = clSVMAlloc(context_, CL_MEM_READ_WRITE, 64, 64);
  ASSERT_NE(aligned, nullptr);
  allocations_.push_back(aligned);
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(aligned) % 64);
  Program p = build(kSource, "-cl-std=CL3.0");
  Kernel k = kernel(p, "scale");
  std::vector<int> host(64);
  EXPECT_EQ(CL_INVALID_ARG_VALUE, clSetKernelArgSVMPointer(k, 0, host.data()));  // not SVM
  EXPECT_EQ(CL_INVALID_ARG_VALUE, clSetKernelArgSVMPointer(k, 0, a + 256));      // past the end
  EXPECT_EQ(CL_INVALID_ARG_VALUE, clSetKernelArgSVMPointer(k, 1, a));            // an int argument
  EXPECT_EQ(CL_INVALID_ARG_INDEX, clSetKernelArgSVMPointer(k, 2, a));
  EXPECT_EQ(CL_INVALID_KERNEL, clSetKernelArgSVMPointer(nullptr, 0, a));
  EXPECT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, nullptr));
  void* ptrs[] = {a};
  EXPECT_EQ(CL_INVALID_VALUE, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 3, ptrs));
  EXPECT_EQ(CL_INVALID_VALUE, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof ptrs, nullptr));
  EXPECT_EQ(CL_SUCCESS, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, nullptr));  // unsets them
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateBuffer(context_, CL_MEM_USE_HOST_PTR, 200, a + 100, &err));  // past the end
  EXPECT_EQ(CL_INVALID_BUFFER_SIZE, err);
  EXPECT_EQ(CL_INVALID_VALUE, clSetKernelExecInfo(k, 0x7777, sizeof ptrs, ptrs));
  cl_bool on = CL_TRUE;
  if (!(caps_ & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM)) {
    EXPECT_EQ(CL_INVALID_OPERATION, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof on, &on));
  }
  EXPECT_EQ(CL_MEM_COPY_OVERLAP, clEnqueueSVMMemcpy(queue_, CL_TRUE, a, a + 8, 16, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueSVMMemcpy(queue_, CL_TRUE, nullptr, a, 16, 0, nullptr, nullptr));
  int pattern = 1;
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueSVMMemFill(queue_, a + 2, &pattern, 4, 16, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueSVMMemFill(queue_, a, &pattern, 3, 12, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueSVMMemFill(queue_, a, &pattern, 4, 18, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueSVMMemFill(queue_, a, nullptr, 4, 16, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueSVMMap(queue_, CL_TRUE, CL_MAP_READ, nullptr, 16, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueSVMMap(queue_, CL_TRUE, CL_MAP_READ, a, 0, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueSVMUnmap(queue_, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueSVMFree(queue_, 1, nullptr, nullptr, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueSVMMigrateMem(queue_, 0, nullptr, nullptr, 0, 0, nullptr, nullptr));
  const void* migrate[] = {a};
  size_t too_big[] = {512};
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueSVMMigrateMem(queue_, 1, migrate, too_big, 0, 0, nullptr, nullptr));
  EXPECT_EQ(CL_SUCCESS, clEnqueueSVMMigrateMem(queue_, 1, migrate, nullptr, CL_MIGRATE_MEM_OBJECT_HOST, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, clEnqueueSVMMap(nullptr, CL_TRUE, CL_MAP_READ, a, 16, 0, nullptr, nullptr));
}

INSTANTIATE_TEST_SUITE_P(Options, Svm, ::testing::Values(std::string(""), std::string("-cl-opt-disable")), options_name);

}  // namespace
}  // namespace vkcl::test
