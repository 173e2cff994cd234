// cl_khr_suggested_local_work_size: the suggestion is the local size a launch without one
// gets (what get_local_size returns in such a launch), the required size where the kernel
// has one, and every error code of the extension's specification.
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

using SuggestFn = cl_int(CL_API_CALL*)(cl_command_queue, cl_kernel, cl_uint, const size_t*, const size_t*, size_t*);

const char* kSource = R"(
__kernel void sizes(__global uint* out) {
  if (get_global_id(0) == 0 && get_global_id(1) == 0 && get_global_id(2) == 0) {
    out[0] = get_local_size(0); out[1] = get_local_size(1); out[2] = get_local_size(2);
  }
}
__kernel __attribute__((reqd_work_group_size(8, 4, 1))) void fixed(__global uint* out) { out[0] = 1; }
)";

class SuggestedLocalSize : public KernelTest {
 protected:
  SuggestFn suggest() {
    auto f = reinterpret_cast<SuggestFn>(
        clGetExtensionFunctionAddressForPlatform(platform_, "clGetKernelSuggestedLocalWorkSizeKHR"));
    EXPECT_NE(f, nullptr);
    return f;
  }
};

TEST_P(SuggestedLocalSize, IsWhatALaunchWithoutOneGets) {
  size_t size = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, 0, nullptr, &size));
  std::string extensions(size, '\0');
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr));
  EXPECT_NE(extensions.find("cl_khr_suggested_local_work_size"), std::string::npos);
  SuggestFn f = suggest();
  ASSERT_NE(f, nullptr);
  Program p = build(kSource);
  Kernel k = kernel(p, "sizes");
  Mem out = poisoned(16);
  set_mem_arg(k, 0, out);
  size_t max_group = 0;
  ASSERT_EQ(CL_SUCCESS, clGetKernelWorkGroupInfo(k, device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof max_group, &max_group, nullptr));
  const std::vector<std::vector<size_t>> globals = {{1000}, {4096}, {97}, {1000, 6}, {30, 30, 7}, {1, 1, 1024}};
  for (const auto& g : globals) {
    cl_uint dims = cl_uint(g.size());
    size_t suggested[3] = {0, 0, 0};
    ASSERT_EQ(CL_SUCCESS, f(queue_, k, dims, nullptr, g.data(), suggested));
    size_t product = 1;
    for (cl_uint d = 0; d < dims; ++d) {
      ASSERT_GT(suggested[d], 0u);
      EXPECT_EQ(0u, g[d] % suggested[d]) << "dimension " << d;
      product *= suggested[d];
    }
    EXPECT_LE(product, max_group);
    // A launch without a local size runs with the suggestion.
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, dims, nullptr, g.data(), nullptr, 0, nullptr, nullptr));
    auto seen = read<uint32_t>(out, 3);
    for (cl_uint d = 0; d < dims; ++d) EXPECT_EQ(suggested[d], seen[d]) << "dimension " << d << " of " << g[0];
  }
  Kernel fixed = kernel(p, "fixed");
  set_mem_arg(fixed, 0, out);
  size_t global[2] = {64, 64}, suggested[2] = {0, 0};
  ASSERT_EQ(CL_SUCCESS, f(queue_, fixed, 2, nullptr, global, suggested));
  EXPECT_EQ(8u, suggested[0]);
  EXPECT_EQ(4u, suggested[1]);
}

TEST_P(SuggestedLocalSize, ErrorCodes) {
  SuggestFn f = suggest();
  ASSERT_NE(f, nullptr);
  Program p = build(kSource);
  Kernel k = kernel(p, "sizes");
  size_t global[3] = {64, 64, 1}, offset[3] = {0, 0, 0}, local[3];
  // CL_INVALID_KERNEL_ARGS before the argument is set.
  EXPECT_EQ(CL_INVALID_KERNEL_ARGS, f(queue_, k, 1, nullptr, global, local));
  Mem out = poisoned(16);
  set_mem_arg(k, 0, out);
  EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, f(nullptr, k, 1, nullptr, global, local));
  EXPECT_EQ(CL_INVALID_KERNEL, f(queue_, nullptr, 1, nullptr, global, local));
  EXPECT_EQ(CL_INVALID_WORK_DIMENSION, f(queue_, k, 0, nullptr, global, local));
  EXPECT_EQ(CL_INVALID_WORK_DIMENSION, f(queue_, k, 4, nullptr, global, local));
  EXPECT_EQ(CL_INVALID_GLOBAL_WORK_SIZE, f(queue_, k, 1, nullptr, nullptr, local));
  size_t zero[3] = {64, 0, 1};
  EXPECT_EQ(CL_INVALID_GLOBAL_WORK_SIZE, f(queue_, k, 2, nullptr, zero, local));
  size_t huge[1] = {size_t(1) << 40};
  EXPECT_EQ(CL_INVALID_GLOBAL_WORK_SIZE, f(queue_, k, 1, nullptr, huge, local));
  size_t far[1] = {0xFFFFFFF0u};
  EXPECT_EQ(CL_INVALID_GLOBAL_OFFSET, f(queue_, k, 1, far, global, local));
  EXPECT_EQ(CL_INVALID_VALUE, f(queue_, k, 1, offset, global, nullptr));
  EXPECT_EQ(CL_SUCCESS, f(queue_, k, 1, offset, global, local));
  // A queue of another context.
  cl_int err = CL_SUCCESS;
  Context other(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  Queue other_queue(clCreateCommandQueue(other, device_, 0, &err));
#pragma GCC diagnostic pop
  ASSERT_EQ(CL_SUCCESS, err);
  EXPECT_EQ(CL_INVALID_CONTEXT, f(other_queue, k, 1, nullptr, global, local));
}

INSTANTIATE_TEST_SUITE_P(Options, SuggestedLocalSize, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
