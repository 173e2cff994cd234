// cl_khr_command_buffer_mutable_dispatch (0.9.0): a kernel command of a command buffer
// changed between executions (arguments, sizes, offset), checked against the same work done on
// the CPU; each update rule's error, an update that fails changing nothing, and the queries.
#include <CL/cl_ext.h>

#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class MutableDispatch : public KernelTest {
 protected:
  void SetUp() override {
    KernelTest::SetUp();
    if (HasFatalFailure()) return;
    auto get = [&](const char* name) { return clGetExtensionFunctionAddressForPlatform(platform_, name); };
    create_ = reinterpret_cast<clCreateCommandBufferKHR_fn>(get("clCreateCommandBufferKHR"));
    finalize_ = reinterpret_cast<clFinalizeCommandBufferKHR_fn>(get("clFinalizeCommandBufferKHR"));
    release_ = reinterpret_cast<clReleaseCommandBufferKHR_fn>(get("clReleaseCommandBufferKHR"));
    enqueue_ = reinterpret_cast<clEnqueueCommandBufferKHR_fn>(get("clEnqueueCommandBufferKHR"));
    kernel_ = reinterpret_cast<clCommandNDRangeKernelKHR_fn>(get("clCommandNDRangeKernelKHR"));
    update_ = reinterpret_cast<clUpdateMutableCommandsKHR_fn>(get("clUpdateMutableCommandsKHR"));
    info_ = reinterpret_cast<clGetMutableCommandInfoKHR_fn>(get("clGetMutableCommandInfoKHR"));
    ASSERT_TRUE(create_ && finalize_ && release_ && enqueue_ && kernel_ && update_ && info_);
    program_ = build(R"(
      __kernel void k(__global int* out, int scale) {
        size_t i = get_global_id(0);
        out[i] = (int)i * scale + (int)get_global_size(0);
      })");
    k_ = kernel(program_, "k");
  }
  void TearDown() override {
    if (queue_.get()) clFinish(queue_);
    for (cl_command_buffer_khr b : made_) release_(b);
    KernelTest::TearDown();
  }
  cl_command_buffer_khr make(cl_command_buffer_flags_khr flags) {
    const cl_command_buffer_properties_khr props[] = {CL_COMMAND_BUFFER_FLAGS_KHR, flags, 0};
    cl_int err = CL_SUCCESS;
    cl_command_queue q = queue_.get();
    cl_command_buffer_khr b = create_(1, &q, props, &err);
    EXPECT_EQ(CL_SUCCESS, err);
    if (b) made_.push_back(b);
    return b;
  }
  // What k writes over |n| ints at |offset| to |size|, the rest untouched (|before|).
  static std::vector<cl_int> expected(std::vector<cl_int> before, size_t offset, size_t size, cl_int scale) {
    for (size_t i = offset; i < offset + size; ++i) before[i] = cl_int(i) * scale + cl_int(size);
    return before;
  }
  cl_mutable_dispatch_config_khr config(cl_mutable_command_khr command) {
    cl_mutable_dispatch_config_khr c{};
    c.type = CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR;
    c.command = command;
    c.work_dim = 1;
    return c;
  }
  cl_int apply(cl_command_buffer_khr b, const std::vector<cl_mutable_dispatch_config_khr>& configs) {
    cl_mutable_base_config_khr base{};
    base.type = CL_STRUCTURE_TYPE_MUTABLE_BASE_CONFIG_KHR;
    base.num_mutable_dispatch = cl_uint(configs.size());
    base.mutable_dispatch_list = configs.data();
    return update_(b, &base);
  }
  void execute(cl_command_buffer_khr b) {
    cl_command_queue q = queue_.get();
    ASSERT_EQ(CL_SUCCESS, enqueue_(1, &q, b, 0, nullptr, nullptr));
    ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
  }

  clCreateCommandBufferKHR_fn create_ = nullptr;
  clFinalizeCommandBufferKHR_fn finalize_ = nullptr;
  clReleaseCommandBufferKHR_fn release_ = nullptr;
  clEnqueueCommandBufferKHR_fn enqueue_ = nullptr;
  clCommandNDRangeKernelKHR_fn kernel_ = nullptr;
  clUpdateMutableCommandsKHR_fn update_ = nullptr;
  clGetMutableCommandInfoKHR_fn info_ = nullptr;
  Program program_;
  Kernel k_;
  std::vector<cl_command_buffer_khr> made_;
};

// Arguments (a buffer and a scalar), the global size and the offset, each updated between
// executions: every execution writes what the command was set to then.
TEST_P(MutableDispatch, UpdatesTakeEffectInTheNextExecution) {
  constexpr size_t n = 256;
  std::vector<cl_int> init(n, -1);
  Mem a = buffer(n * 4, init.data()), b = buffer(n * 4, init.data());
  set_mem_arg(k_, 0, a);
  set_arg(k_, 1, cl_int(3));
  cl_command_buffer_khr cb = make(CL_COMMAND_BUFFER_MUTABLE_KHR);
  size_t global = 200, local = 8;
  cl_mutable_command_khr handle = nullptr;
  ASSERT_EQ(CL_SUCCESS, kernel_(cb, nullptr, nullptr, k_, 1, nullptr, &global, &local, 0, nullptr, nullptr, &handle));
  ASSERT_NE(nullptr, handle);
  ASSERT_EQ(CL_SUCCESS, finalize_(cb));
  // Arguments set on the kernel after recording change nothing.
  set_arg(k_, 1, cl_int(1000));
  execute(cb);
  EXPECT_EQ(expected(init, 0, 200, 3), read<cl_int>(a, n));

  // New output buffer and scale.
  cl_mem b_h = b.get();
  cl_int seven = 7;
  const cl_mutable_dispatch_arg_khr args[] = {{0, sizeof(cl_mem), &b_h}, {1, sizeof(cl_int), &seven}};
  auto c = config(handle);
  c.num_args = 2;
  c.arg_list = args;
  ASSERT_EQ(CL_SUCCESS, apply(cb, {c}));
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queue_, a, CL_TRUE, 0, n * 4, init.data(), 0, nullptr, nullptr));
  execute(cb);
  EXPECT_EQ(init, read<cl_int>(a, n)) << "the old output buffer is not written any more";
  EXPECT_EQ(expected(init, 0, 200, 7), read<cl_int>(b, n));

  // A smaller global size and an offset (no more work-groups, still uniform).
  size_t smaller = 96, offset = 40;
  c = config(handle);
  c.global_work_size = &smaller;
  c.global_work_offset = &offset;
  ASSERT_EQ(CL_SUCCESS, apply(cb, {c}));
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queue_, b, CL_TRUE, 0, n * 4, init.data(), 0, nullptr, nullptr));
  execute(cb);
  EXPECT_EQ(expected(init, 40, 96, 7), read<cl_int>(b, n));

  // The queries follow the updates.
  size_t sizes[1] = {}, got_size = 0;
  ASSERT_EQ(CL_SUCCESS, info_(handle, CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR, sizeof sizes, sizes, &got_size));
  EXPECT_EQ(sizeof(size_t), got_size);
  EXPECT_EQ(96u, sizes[0]);
  ASSERT_EQ(CL_SUCCESS, info_(handle, CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR, sizeof sizes, sizes, nullptr));
  EXPECT_EQ(40u, sizes[0]);
  ASSERT_EQ(CL_SUCCESS, info_(handle, CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR, sizeof sizes, sizes, nullptr));
  EXPECT_EQ(8u, sizes[0]);
  cl_kernel kernel = nullptr;
  ASSERT_EQ(CL_SUCCESS, info_(handle, CL_MUTABLE_DISPATCH_KERNEL_KHR, sizeof kernel, &kernel, nullptr));
  EXPECT_EQ(k_.get(), kernel);
  cl_command_buffer_khr owner = nullptr;
  ASSERT_EQ(CL_SUCCESS, info_(handle, CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR, sizeof owner, &owner, nullptr));
  EXPECT_EQ(cb, owner);
  cl_command_queue queue = nullptr;
  ASSERT_EQ(CL_SUCCESS, info_(handle, CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR, sizeof queue, &queue, nullptr));
  EXPECT_EQ(queue_.get(), queue);
  cl_uint dims = 0;
  ASSERT_EQ(CL_SUCCESS, info_(handle, CL_MUTABLE_DISPATCH_DIMENSIONS_KHR, sizeof dims, &dims, nullptr));
  EXPECT_EQ(1u, dims);
  ASSERT_EQ(CL_SUCCESS, info_(handle, CL_MUTABLE_DISPATCH_PROPERTIES_ARRAY_KHR, 0, nullptr, &got_size));
  EXPECT_EQ(0u, got_size) << "recorded with NULL properties";
  EXPECT_EQ(CL_INVALID_VALUE, info_(handle, 0x7777, sizeof dims, &dims, nullptr));
  cl_mutable_dispatch_fields_khr caps = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR, sizeof caps, &caps, nullptr));
  EXPECT_EQ(cl_mutable_dispatch_fields_khr(CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR | CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR |
                                           CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR | CL_MUTABLE_DISPATCH_ARGUMENTS_KHR |
                                           CL_MUTABLE_DISPATCH_EXEC_INFO_KHR),
            caps);
}

// Each rule of clUpdateMutableCommandsKHR gives its error, and an update list with one bad
// element changes none of the commands.
TEST_P(MutableDispatch, RulesGiveTheSpecsErrorsAndFailedUpdatesChangeNothing) {
  constexpr size_t n = 64;
  std::vector<cl_int> init(n, -1);
  Mem a = buffer(n * 4, init.data());
  set_mem_arg(k_, 0, a);
  set_arg(k_, 1, cl_int(2));
  cl_command_buffer_khr cb = make(CL_COMMAND_BUFFER_MUTABLE_KHR);
  size_t global = 32, local = 8;
  cl_mutable_command_khr all = nullptr, args_only = nullptr;
  ASSERT_EQ(CL_SUCCESS, kernel_(cb, nullptr, nullptr, k_, 1, nullptr, &global, &local, 0, nullptr, nullptr, &all));
  const cl_ndrange_kernel_command_properties_khr only_args[] = {CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
                                                                CL_MUTABLE_DISPATCH_ARGUMENTS_KHR, 0};
  ASSERT_EQ(CL_SUCCESS, kernel_(cb, nullptr, only_args, k_, 1, nullptr, &global, &local, 0, nullptr, nullptr, &args_only));
  const cl_ndrange_kernel_command_properties_khr unknown[] = {CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, 1u << 20, 0};
  cl_mutable_command_khr h = nullptr;
  EXPECT_EQ(CL_INVALID_OPERATION, kernel_(cb, nullptr, unknown, k_, 1, nullptr, &global, &local, 0, nullptr, nullptr, &h));
  // Not finalized yet.
  auto c = config(all);
  cl_int five = 5;
  const cl_mutable_dispatch_arg_khr scale{1, sizeof(cl_int), &five};
  c.num_args = 1;
  c.arg_list = &scale;
  EXPECT_EQ(CL_INVALID_OPERATION, apply(cb, {c}));
  ASSERT_EQ(CL_SUCCESS, finalize_(cb));

  // Fields the command was not recorded as updatable.
  size_t smaller = 16;
  auto sized = config(args_only);
  sized.global_work_size = &smaller;
  EXPECT_EQ(CL_INVALID_OPERATION, apply(cb, {sized}));
  // More work-groups, a change of uniformity, another work_dim.
  size_t bigger = 64, ragged = 20;
  auto grow = config(all);
  grow.global_work_size = &bigger;
  EXPECT_EQ(CL_INVALID_OPERATION, apply(cb, {grow}));
  grow.global_work_size = &ragged;
  EXPECT_EQ(CL_INVALID_OPERATION, apply(cb, {grow}));
  auto two_d = config(all);
  two_d.work_dim = 2;
  EXPECT_EQ(CL_INVALID_OPERATION, apply(cb, {two_d}));
  // List and structure errors.
  auto listless = config(all);
  listless.num_args = 1;
  EXPECT_EQ(CL_INVALID_VALUE, apply(cb, {listless}));
  auto typed = config(all);
  typed.type = CL_STRUCTURE_TYPE_MUTABLE_BASE_CONFIG_KHR;
  EXPECT_EQ(CL_INVALID_VALUE, apply(cb, {typed}));
  auto stranger = config(reinterpret_cast<cl_mutable_command_khr>(&five));
  EXPECT_EQ(CL_INVALID_MUTABLE_COMMAND_KHR, apply(cb, {stranger}));
  EXPECT_EQ(CL_INVALID_VALUE, update_(cb, nullptr));
  EXPECT_EQ(CL_INVALID_COMMAND_BUFFER_KHR, update_(nullptr, nullptr));
  // An argument clSetKernelArg would refuse, after a good update of the other command: the
  // error is clSetKernelArg's and neither command changes.
  const cl_mutable_dispatch_arg_khr bad{9, sizeof(cl_int), &five};
  auto good = config(args_only);
  good.num_args = 1;
  good.arg_list = &scale;
  auto wrong = config(all);
  wrong.num_args = 1;
  wrong.arg_list = &bad;
  EXPECT_EQ(CL_INVALID_ARG_INDEX, apply(cb, {good, wrong}));
  execute(cb);
  EXPECT_EQ(expected(init, 0, 32, 2), read<cl_int>(a, n)) << "both commands still scale by 2";

  // A buffer made without CL_COMMAND_BUFFER_MUTABLE_KHR hands out handles for queries only.
  cl_command_buffer_khr fixed = make(0);
  cl_mutable_command_khr fixed_handle = nullptr;
  ASSERT_EQ(CL_SUCCESS, kernel_(fixed, nullptr, nullptr, k_, 1, nullptr, &global, &local, 0, nullptr, nullptr, &fixed_handle));
  ASSERT_EQ(CL_SUCCESS, finalize_(fixed));
  auto f = config(fixed_handle);
  f.num_args = 1;
  f.arg_list = &scale;
  EXPECT_EQ(CL_INVALID_OPERATION, apply(fixed, {f}));
  EXPECT_EQ(CL_INVALID_MUTABLE_COMMAND_KHR, apply(cb, {f})) << "a command of another buffer";
}

// An SVM pointer argument updated through arg_svm_list, with the exec info that lists it.
TEST_P(MutableDispatch, SvmArgumentsAndExecInfo) {
  cl_device_svm_capabilities svm = 0;
  clGetDeviceInfo(device_, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, nullptr);
  if (!(svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)) GTEST_SKIP() << "no SVM";
  constexpr size_t n = 64;
  Program p = build("__kernel void k(__global const int* in, __global int* out) { out[get_global_id(0)] = in[get_global_id(0)] + 1; }");
  Kernel k = kernel(p, "k");
  std::vector<int*> in(2);
  for (int s = 0; s < 2; ++s) {
    in[s] = static_cast<int*>(clSVMAlloc(context_, CL_MEM_READ_WRITE, n * 4, 0));
    ASSERT_NE(nullptr, in[s]);
    ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMap(queue_, CL_TRUE, CL_MAP_WRITE, in[s], n * 4, 0, nullptr, nullptr));
    for (size_t i = 0; i < n; ++i) in[s][i] = int(i) * (s ? 100 : 1);
    ASSERT_EQ(CL_SUCCESS, clEnqueueSVMUnmap(queue_, in[s], 0, nullptr, nullptr));
  }
  Mem out = poisoned(n * 4);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, in[0]));
  set_mem_arg(k, 1, out);
  cl_command_buffer_khr cb = make(CL_COMMAND_BUFFER_MUTABLE_KHR);
  cl_mutable_command_khr handle = nullptr;
  ASSERT_EQ(CL_SUCCESS, kernel_(cb, nullptr, nullptr, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr, &handle));
  ASSERT_EQ(CL_SUCCESS, finalize_(cb));
  execute(cb);
  std::vector<cl_int> got = read<cl_int>(out, n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(cl_int(i) + 1, got[i]) << i;
  const cl_mutable_dispatch_arg_khr svm_arg{0, 0, in[1]};
  void* listed = in[1];
  const cl_mutable_dispatch_exec_info_khr info{CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof listed, &listed};
  auto c = config(handle);
  c.num_svm_args = 1;
  c.arg_svm_list = &svm_arg;
  c.num_exec_infos = 1;
  c.exec_info_list = &info;
  ASSERT_EQ(CL_SUCCESS, apply(cb, {c}));
  execute(cb);
  got = read<cl_int>(out, n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(cl_int(i) * 100 + 1, got[i]) << i;
  for (int* ptr : in) clSVMFree(context_, ptr);
}

INSTANTIATE_TEST_SUITE_P(Options, MutableDispatch, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
