// A new buffer never shows another context's data (issue 18): vkcl keeps the memory of
// released buffers for the next buffer of the same size, but only within the context that
// released it. Three sizes, each written with a pattern in one context, released with it,
// and looked for in a buffer of the same size in the next context.
#include <string>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class ContextIsolation : public KernelTest {};

TEST_P(ContextIsolation, NewBuffersHoldNoOtherContextsData) {
  constexpr cl_uint kPattern = 0xc3a5f00du;
  for (size_t bytes : {size_t(64), size_t(4096), size_t(4) << 20}) {
    SCOPED_TRACE(bytes);
    std::vector<cl_uint> pattern(bytes / 4, kPattern);
    for (int round = 0; round < 2; ++round) {
      cl_int err;
      Context context(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err));
      ASSERT_EQ(CL_SUCCESS, err);
      Queue queue(clCreateCommandQueueWithProperties(context, device_, nullptr, &err));
      ASSERT_EQ(CL_SUCCESS, err);
      Mem m(clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &err));
      ASSERT_EQ(CL_SUCCESS, err);
      std::vector<cl_uint> got(bytes / 4, 0);
      ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue, m, CL_TRUE, 0, bytes, got.data(), 0, nullptr, nullptr));
      size_t seen = 0;
      for (cl_uint w : got) seen += w == kPattern;
      EXPECT_EQ(seen, 0u) << "round " << round;
      ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, bytes, pattern.data(), 0, nullptr, nullptr));
    }
  }
  // Within one context the memory is reused (what the spares are for): a buffer released and
  // made again of the same size still works.
  Mem first = buffer(4096);
  first = Mem();
  Mem again = buffer(4096);
  std::vector<cl_uint> pattern(1024, kPattern);
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queue_, again, CL_TRUE, 0, 4096, pattern.data(), 0, nullptr, nullptr));
  EXPECT_EQ(read<cl_uint>(again, 1024), pattern);
}

INSTANTIATE_TEST_SUITE_P(Options, ContextIsolation, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
