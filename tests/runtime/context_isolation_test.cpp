// A new buffer or image never shows another context's data (issue 18): vkcl keeps the memory
// of released buffers for the next buffer of the same size, but only within the context that
// released it, and zeroes memory it allocates anew (lavapipe's comes from the process heap).
// Each size is written with a pattern in one context, released with it, and looked for in a
// new object of the same size in the next context.
#include <string>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class ContextIsolation : public KernelTest {
 protected:
  // A context of its own on the test's device, with a queue.
  void fresh(Context* context, Queue* queue) {
    cl_int err;
    *context = Context(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err));
    ASSERT_EQ(CL_SUCCESS, err);
    *queue = Queue(clCreateCommandQueueWithProperties(*context, device_, nullptr, &err));
    ASSERT_EQ(CL_SUCCESS, err);
  }
};

TEST_P(ContextIsolation, NewBuffersHoldNoOtherContextsData) {
  constexpr cl_uint kPattern = 0xc3a5f00du;
  for (size_t bytes : {size_t(64), size_t(4096), size_t(4) << 20}) {
    SCOPED_TRACE(bytes);
    std::vector<cl_uint> pattern(bytes / 4, kPattern);
    for (int round = 0; round < 2; ++round) {
      Context context;
      Queue queue;
      ASSERT_NO_FATAL_FAILURE(fresh(&context, &queue));
      cl_int err;
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

// The same for images: a 64x64 RGBA8 image written in one context, released with it, and a
// new one of the same size in the next.
TEST_P(ContextIsolation, NewImagesHoldNoOtherContextsData) {
  constexpr cl_uint kPattern = 0xc3a5f00du;
  const size_t side = 64;
  std::vector<cl_uint> pattern(side * side, kPattern);
  const cl_image_format format{CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = desc.image_height = side;
  const size_t origin[3] = {0, 0, 0}, region[3] = {side, side, 1};
  for (int round = 0; round < 3; ++round) {
    Context context;
    Queue queue;
    ASSERT_NO_FATAL_FAILURE(fresh(&context, &queue));
    cl_int err;
    Mem image(clCreateImage(context, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err));
    if (err == CL_INVALID_OPERATION) GTEST_SKIP() << "no images";
    ASSERT_EQ(CL_SUCCESS, err);
    std::vector<cl_uint> got(side * side, 1);
    ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, got.data(), 0, nullptr, nullptr));
    size_t seen = 0;
    for (cl_uint w : got) seen += w == kPattern;
    EXPECT_EQ(seen, 0u) << "round " << round;
    ASSERT_EQ(CL_SUCCESS, clEnqueueWriteImage(queue, image, CL_TRUE, origin, region, 0, 0, pattern.data(), 0, nullptr, nullptr));
  }
}

INSTANTIATE_TEST_SUITE_P(Options, ContextIsolation, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
