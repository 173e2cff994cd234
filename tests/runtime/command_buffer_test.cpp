// cl_khr_command_buffer: commands recorded once and run as one command per enqueue, checked
// against the same work computed on the CPU; a negative test per error code.
#include <CL/cl_ext.h>

#include <algorithm>
#include <numeric>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

struct CommandBufferApi {
  clCreateCommandBufferKHR_fn create = nullptr;
  clFinalizeCommandBufferKHR_fn finalize = nullptr;
  clRetainCommandBufferKHR_fn retain = nullptr;
  clReleaseCommandBufferKHR_fn release = nullptr;
  clEnqueueCommandBufferKHR_fn enqueue = nullptr;
  clCommandBarrierWithWaitListKHR_fn barrier = nullptr;
  clCommandCopyBufferKHR_fn copy = nullptr;
  clCommandCopyBufferRectKHR_fn copy_rect = nullptr;
  clCommandFillBufferKHR_fn fill = nullptr;
  clCommandFillImageKHR_fn fill_image = nullptr;
  clCommandCopyImageKHR_fn copy_image = nullptr;
  clCommandCopyImageToBufferKHR_fn image_to_buffer = nullptr;
  clCommandCopyBufferToImageKHR_fn buffer_to_image = nullptr;
  clCommandNDRangeKernelKHR_fn kernel = nullptr;
  clGetCommandBufferInfoKHR_fn info = nullptr;
};

class CommandBuffer : public KernelTest {
 protected:
  void SetUp() override {
    KernelTest::SetUp();
    if (HasFatalFailure()) return;
    auto get = [&](const char* name) { return clGetExtensionFunctionAddressForPlatform(platform_, name); };
#define VKCL_GET(field, name) api_.field = reinterpret_cast<name##_fn>(get(#name)); ASSERT_NE(nullptr, api_.field) << #name;
    VKCL_GET(create, clCreateCommandBufferKHR)
    VKCL_GET(finalize, clFinalizeCommandBufferKHR)
    VKCL_GET(retain, clRetainCommandBufferKHR)
    VKCL_GET(release, clReleaseCommandBufferKHR)
    VKCL_GET(enqueue, clEnqueueCommandBufferKHR)
    VKCL_GET(barrier, clCommandBarrierWithWaitListKHR)
    VKCL_GET(copy, clCommandCopyBufferKHR)
    VKCL_GET(copy_rect, clCommandCopyBufferRectKHR)
    VKCL_GET(fill, clCommandFillBufferKHR)
    VKCL_GET(fill_image, clCommandFillImageKHR)
    VKCL_GET(copy_image, clCommandCopyImageKHR)
    VKCL_GET(image_to_buffer, clCommandCopyImageToBufferKHR)
    VKCL_GET(buffer_to_image, clCommandCopyBufferToImageKHR)
    VKCL_GET(kernel, clCommandNDRangeKernelKHR)
    VKCL_GET(info, clGetCommandBufferInfoKHR)
#undef VKCL_GET
  }

  // A command buffer on the test's queue, released with the test.
  cl_command_buffer_khr make(const cl_command_buffer_properties_khr* properties = nullptr) {
    cl_int err = CL_SUCCESS;
    cl_command_queue q = queue_.get();
    cl_command_buffer_khr b = api_.create(1, &q, properties, &err);
    EXPECT_EQ(CL_SUCCESS, err);
    if (b) made_.push_back(b);
    return b;
  }
  void TearDown() override {
    if (queue_.get()) clFinish(queue_);
    for (cl_command_buffer_khr b : made_) api_.release(b);
    KernelTest::TearDown();
  }
  bool has_images() {
    cl_bool images = CL_FALSE;
    clGetDeviceInfo(device_, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
    return images;
  }
  Mem image2d(cl_image_format format, size_t width, size_t height, cl_mem_flags flags) {
    cl_image_desc desc{};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = width;
    desc.image_height = height;
    cl_int err;
    Mem m(clCreateImage(context_, flags, &format, &desc, nullptr, &err));
    EXPECT_EQ(CL_SUCCESS, err);
    return m;
  }
  cl_command_buffer_state_khr state(cl_command_buffer_khr b) {
    cl_command_buffer_state_khr s = 0xffff;
    EXPECT_EQ(CL_SUCCESS, api_.info(b, CL_COMMAND_BUFFER_STATE_KHR, sizeof s, &s, nullptr));
    return s;
  }

  CommandBufferApi api_;
  std::vector<cl_command_buffer_khr> made_;
};

TEST_P(CommandBuffer, RecordedOnceRunsEachTimeWithTheArgumentsItWasRecordedWith) {
  constexpr size_t n = 1000;
  Program p = build(R"(
    __kernel void axpb(__global const float* a, __global const float* b, __global float* c, float k) {
      size_t i = get_global_id(0);
      c[i] = a[i] * k + b[i];
    })");
  Kernel k = kernel(p, "axpb");
  Mem a = buffer(n * 4), b = buffer(n * 4), c = buffer(n * 4), d = buffer(n * 4 + 64);
  set_mem_arg(k, 0, a);
  set_mem_arg(k, 1, b);
  set_mem_arg(k, 2, c);
  set_arg(k, 3, 3.0f);
  cl_command_buffer_khr cb = make();
  ASSERT_NE(nullptr, cb);
  EXPECT_EQ(CL_COMMAND_BUFFER_STATE_RECORDING_KHR, state(cb));
  // b = 0.5, 0.25 repeated (an 8-byte pattern); c = a * 3 + b; d[16..] = c; d[0..16) = 7.
  const float pattern[2] = {0.5f, 0.25f};
  cl_sync_point_khr filled = 99, launched = 99, copied = 99;
  ASSERT_EQ(CL_SUCCESS, api_.fill(cb, nullptr, b, pattern, sizeof pattern, 0, n * 4, 0, nullptr, &filled, nullptr));
  ASSERT_EQ(CL_SUCCESS, api_.kernel(cb, nullptr, nullptr, k, 1, nullptr, &n, nullptr, 1, &filled, &launched, nullptr));
  ASSERT_EQ(CL_SUCCESS, api_.copy(cb, nullptr, c, d, 0, 64, n * 4, 1, &launched, &copied, nullptr));
  const cl_uint seven = 0x40e00000;  // 7.0f
  ASSERT_EQ(CL_SUCCESS, api_.fill(cb, nullptr, d, &seven, 4, 0, 64, 0, nullptr, nullptr, nullptr));
  EXPECT_EQ(0u, filled);
  EXPECT_EQ(1u, launched);
  EXPECT_EQ(2u, copied);
  ASSERT_EQ(CL_SUCCESS, api_.finalize(cb));
  EXPECT_EQ(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, state(cb));
  // Arguments set after recording do not change the recorded command.
  set_arg(k, 3, -100.0f);
  for (int round = 0; round < 3; ++round) {
    std::vector<float> in(n);
    for (size_t i = 0; i < n; ++i) in[i] = float(i) * 0.5f + float(round);
    ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queue_, a, CL_FALSE, 0, n * 4, in.data(), 0, nullptr, nullptr));
    cl_event e = nullptr;
    ASSERT_EQ(CL_SUCCESS, api_.enqueue(0, nullptr, cb, 0, nullptr, &e));
    Event done(e);
    ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &e));
    cl_command_type type = 0;
    clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr);
    EXPECT_EQ(cl_command_type(CL_COMMAND_COMMAND_BUFFER_KHR), type);
    std::vector<float> got = read<float>(d, n + 16);
    for (size_t i = 0; i < 16; ++i) ASSERT_EQ(7.0f, got[i]) << i;
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(in[i] * 3.0f + pattern[i % 2], got[16 + i]) << round << " " << i;
  }
  EXPECT_EQ(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, state(cb));
}

// A kernel whose loop outlasts lavapipe's loop limiter resumes inside the buffer, and the
// commands after it wait until it is done.
TEST_P(CommandBuffer, ALaunchThatResumesHoldsBackTheCommandsAfterIt) {
  Program p = build(R"(
    __kernel void count(__global uint* out, uint n) {
      uint c = get_global_id(0);
      for (uint i = 0; i < n; i++) c += i & 3;
      out[get_global_id(0)] = c;
    })");
  Kernel k = kernel(p, "count");
  constexpr size_t items = 8;
  const cl_uint n = 200000;
  Mem out = buffer(items * 4), copy = buffer(items * 4);
  set_mem_arg(k, 0, out);
  set_arg(k, 1, n);
  cl_command_buffer_khr cb = make();
  ASSERT_EQ(CL_SUCCESS, api_.kernel(cb, nullptr, nullptr, k, 1, nullptr, &items, nullptr, 0, nullptr, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, api_.copy(cb, nullptr, out, copy, 0, 0, items * 4, 0, nullptr, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, api_.kernel(cb, nullptr, nullptr, k, 1, nullptr, &items, nullptr, 0, nullptr, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, api_.finalize(cb));
  for (int round = 0; round < 2; ++round) {
    ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queue_, out, CL_TRUE, 0, items * 4,
                                               std::vector<cl_uint>(items, 0).data(), 0, nullptr, nullptr));
    ASSERT_EQ(CL_SUCCESS, api_.enqueue(0, nullptr, cb, 0, nullptr, nullptr));
    std::vector<cl_uint> got = read<cl_uint>(copy, items);
    for (size_t i = 0; i < items; ++i) {
      cl_uint want = cl_uint(i);
      for (cl_uint j = 0; j < n; ++j) want += j & 3;
      ASSERT_EQ(want, got[i]) << i;
    }
  }
}

TEST_P(CommandBuffer, PrintfPrintsForEachExecution) {
  Program p = build(R"(
    __kernel void hello(int x) { printf("cb %d\n", x); })");
  Kernel k = kernel(p, "hello");
  set_arg(k, 0, 41);
  cl_command_buffer_khr cb = make();
  size_t one = 1;
  ASSERT_EQ(CL_SUCCESS, api_.kernel(cb, nullptr, nullptr, k, 1, nullptr, &one, nullptr, 0, nullptr, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, api_.finalize(cb));
  testing::internal::CaptureStdout();
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(CL_SUCCESS, api_.enqueue(0, nullptr, cb, 0, nullptr, nullptr));
    EXPECT_EQ(CL_SUCCESS, clFinish(queue_));  // (pending until then)
  }
  EXPECT_EQ("cb 41\ncb 41\n", testing::internal::GetCapturedStdout());
}

TEST_P(CommandBuffer, ImageCommands) {
  if (!has_images()) GTEST_SKIP() << "no images";
  Mem x = image2d({CL_RGBA, CL_UNSIGNED_INT8}, 16, 8, CL_MEM_READ_WRITE);
  Mem y = image2d({CL_RGBA, CL_UNSIGNED_INT8}, 16, 8, CL_MEM_READ_WRITE);
  ASSERT_TRUE(x.get() && y.get());
  std::vector<cl_uchar> source(16 * 8 * 4);
  std::iota(source.begin(), source.end(), 0);
  Mem in = buffer(source.size(), source.data()), out = buffer(source.size());
  cl_command_buffer_khr cb = make();
  const size_t origin[3] = {0, 0, 0}, whole[3] = {16, 8, 1}, corner[3] = {4, 2, 0}, part[3] = {3, 2, 1};
  const cl_uint color[4] = {200, 201, 202, 203};
  ASSERT_EQ(CL_SUCCESS, api_.buffer_to_image(cb, nullptr, in, x, 0, origin, whole, 0, nullptr, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, api_.fill_image(cb, nullptr, x, color, corner, part, 0, nullptr, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, api_.copy_image(cb, nullptr, x, y, origin, origin, whole, 0, nullptr, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, api_.image_to_buffer(cb, nullptr, y, out, origin, whole, 0, 0, nullptr, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, api_.finalize(cb));
  ASSERT_EQ(CL_SUCCESS, api_.enqueue(0, nullptr, cb, 0, nullptr, nullptr));
  std::vector<cl_uchar> got = read<cl_uchar>(out, source.size());
  for (size_t yy = 0; yy < 8; ++yy)
    for (size_t xx = 0; xx < 16; ++xx)
      for (size_t ch = 0; ch < 4; ++ch) {
        size_t at = (yy * 16 + xx) * 4 + ch;
        bool in_fill = xx >= 4 && xx < 7 && yy >= 2 && yy < 4;
        ASSERT_EQ(in_fill ? cl_uchar(color[ch]) : source[at], got[at]) << xx << "," << yy;
      }
}

// A kernel with image arguments, recorded once (its descriptors with it) and replayed: the
// image's contents change between executions and each one reads them anew.
TEST_P(CommandBuffer, ImageKernelsReplayed) {
  if (!has_images()) GTEST_SKIP() << "no images";
  Mem img = image2d({CL_R, CL_FLOAT}, 32, 4, CL_MEM_READ_ONLY);
  ASSERT_TRUE(img.get());
  Program p = build(R"(
    __constant sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
    __kernel void k(read_only image2d_t img, __global float* out) {
      int x = get_global_id(0), y = get_global_id(1);
      out[y * 32 + x] = read_imagef(img, s, (int2)(x + 1, y)).x * 2.0f;
    })");
  Kernel k = kernel(p, "k");
  Mem out = poisoned(32 * 4 * 4);
  cl_mem i = img.get();
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof i, &i));
  set_mem_arg(k, 1, out);
  cl_command_buffer_khr cb = make();
  const size_t global[2] = {32, 4};
  ASSERT_EQ(CL_SUCCESS, api_.kernel(cb, nullptr, nullptr, k, 2, nullptr, global, nullptr, 0, nullptr, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, api_.finalize(cb));
  for (int round = 0; round < 2; ++round) {
    std::vector<float> texels(32 * 4);
    for (size_t t = 0; t < texels.size(); ++t) texels[t] = float(t) + 100.0f * float(round);
    const size_t origin[3] = {0, 0, 0}, region[3] = {32, 4, 1};
    ASSERT_EQ(CL_SUCCESS, clEnqueueWriteImage(queue_, img, CL_TRUE, origin, region, 0, 0, texels.data(), 0,
                                              nullptr, nullptr));
    ASSERT_EQ(CL_SUCCESS, api_.enqueue(0, nullptr, cb, 0, nullptr, nullptr));
    std::vector<float> got = read<float>(out, 32 * 4);
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 32; ++x) ASSERT_EQ(texels[y * 32 + std::min(x + 1, 31)] * 2.0f, got[y * 32 + x]) << x << "," << y;
  }
}

TEST_P(CommandBuffer, StatesAndSimultaneousUse) {
  Program p = build("__kernel void z(__global int* a) { a[get_global_id(0)] = 5; }");
  Kernel k = kernel(p, "z");
  Mem a = buffer(64);
  set_mem_arg(k, 0, a);
  size_t n = 16;
  cl_int err;
  Event gate(clCreateUserEvent(context_, &err));
  cl_event g = gate.get();
  // Without simultaneous use, a pending buffer cannot be enqueued again.
  cl_command_buffer_khr once = make();
  ASSERT_EQ(CL_SUCCESS, api_.kernel(once, nullptr, nullptr, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_OPERATION, api_.enqueue(0, nullptr, once, 0, nullptr, nullptr));  // not finalized
  ASSERT_EQ(CL_SUCCESS, api_.finalize(once));
  EXPECT_EQ(CL_INVALID_OPERATION, api_.finalize(once));
  ASSERT_EQ(CL_SUCCESS, api_.enqueue(0, nullptr, once, 1, &g, nullptr));
  EXPECT_EQ(CL_COMMAND_BUFFER_STATE_PENDING_KHR, state(once));
  EXPECT_EQ(CL_INVALID_OPERATION, api_.enqueue(0, nullptr, once, 0, nullptr, nullptr));
  // With it, it can.
  const cl_command_buffer_properties_khr props[] = {CL_COMMAND_BUFFER_FLAGS_KHR, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, 0};
  cl_command_buffer_khr many = make(props);
  ASSERT_EQ(CL_SUCCESS, api_.kernel(many, nullptr, nullptr, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, api_.finalize(many));
  ASSERT_EQ(CL_SUCCESS, api_.enqueue(0, nullptr, many, 1, &g, nullptr));
  cl_event second = nullptr;
  ASSERT_EQ(CL_SUCCESS, api_.enqueue(0, nullptr, many, 0, nullptr, &second));
  Event second_event(second);
  cl_command_buffer_properties_khr got[3] = {};
  size_t size = 0;
  EXPECT_EQ(CL_SUCCESS, api_.info(many, CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR, sizeof got, got, &size));
  EXPECT_EQ(sizeof props, size);
  EXPECT_EQ(CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, got[1]);
  ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(g, CL_COMPLETE));
  ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &second));
  ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
  EXPECT_EQ(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, state(once));
  EXPECT_EQ(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, state(many));
  std::vector<cl_int> out = read<cl_int>(a, 16);
  for (cl_int v : out) EXPECT_EQ(5, v);
  // Queries.
  cl_uint count = 0, refs = 0;
  cl_command_queue q = nullptr;
  EXPECT_EQ(CL_SUCCESS, api_.info(many, CL_COMMAND_BUFFER_NUM_QUEUES_KHR, sizeof count, &count, nullptr));
  EXPECT_EQ(1u, count);
  EXPECT_EQ(CL_SUCCESS, api_.info(many, CL_COMMAND_BUFFER_QUEUES_KHR, sizeof q, &q, nullptr));
  EXPECT_EQ(queue_.get(), q);
  EXPECT_EQ(CL_SUCCESS, api_.retain(many));
  EXPECT_EQ(CL_SUCCESS, api_.info(many, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR, sizeof refs, &refs, nullptr));
  EXPECT_EQ(2u, refs);
  EXPECT_EQ(CL_SUCCESS, api_.release(many));
  EXPECT_EQ(CL_INVALID_VALUE, api_.info(many, 0x12345, sizeof refs, &refs, nullptr));
}

// An execution waiting on a failed event fails, and so does what waits on it.
TEST_P(CommandBuffer, AFailedEventInTheWaitListFailsTheExecution) {
  Mem a = buffer(64), b = buffer(64);
  cl_command_buffer_khr cb = make();
  ASSERT_EQ(CL_SUCCESS, api_.copy(cb, nullptr, a, b, 0, 0, 64, 0, nullptr, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, api_.finalize(cb));
  cl_int err;
  Event gate(clCreateUserEvent(context_, &err));
  cl_event g = gate.get(), e = nullptr;
  ASSERT_EQ(CL_SUCCESS, api_.enqueue(0, nullptr, cb, 1, &g, &e));
  Event run(e);
  ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(g, -5));
  EXPECT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, clWaitForEvents(1, &e));
  cl_int status = 0;
  clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
  EXPECT_LT(status, 0);
}

TEST_P(CommandBuffer, ErrorCodes) {
  Mem a = buffer(64), b = buffer(64);
  cl_int err = CL_SUCCESS;
  cl_command_queue q = queue_.get();
  // Creation.
  EXPECT_EQ(nullptr, api_.create(0, &q, nullptr, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  EXPECT_EQ(nullptr, api_.create(1, nullptr, nullptr, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  cl_command_queue bad = reinterpret_cast<cl_command_queue>(&err);
  EXPECT_EQ(nullptr, api_.create(1, &bad, nullptr, &err));
  EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, err);
  const cl_command_buffer_properties_khr unknown[] = {0x4321, 1, 0};
  EXPECT_EQ(nullptr, api_.create(1, &q, unknown, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  const cl_command_buffer_properties_khr bad_flags[] = {CL_COMMAND_BUFFER_FLAGS_KHR, 0x80, 0};
  EXPECT_EQ(nullptr, api_.create(1, &q, bad_flags, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  // Invalid handles.
  auto* not_a_buffer = reinterpret_cast<cl_command_buffer_khr>(&err);
  EXPECT_EQ(CL_INVALID_COMMAND_BUFFER_KHR, api_.finalize(not_a_buffer));
  EXPECT_EQ(CL_INVALID_COMMAND_BUFFER_KHR, api_.retain(nullptr));
  EXPECT_EQ(CL_INVALID_COMMAND_BUFFER_KHR, api_.release(not_a_buffer));
  EXPECT_EQ(CL_INVALID_COMMAND_BUFFER_KHR, api_.enqueue(0, nullptr, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_COMMAND_BUFFER_KHR, api_.info(nullptr, CL_COMMAND_BUFFER_STATE_KHR, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_COMMAND_BUFFER_KHR, api_.copy(nullptr, nullptr, a, b, 0, 0, 4, 0, nullptr, nullptr, nullptr));
  // Recording.
  cl_command_buffer_khr cb = make();
  EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, api_.copy(cb, q, a, b, 0, 0, 4, 0, nullptr, nullptr, nullptr));
  cl_mutable_command_khr handle = nullptr;
  EXPECT_EQ(CL_INVALID_VALUE, api_.copy(cb, nullptr, a, b, 0, 0, 4, 0, nullptr, nullptr, &handle));
  cl_sync_point_khr point = 0;
  EXPECT_EQ(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR, api_.copy(cb, nullptr, a, b, 0, 0, 4, 1, nullptr, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR, api_.copy(cb, nullptr, a, b, 0, 0, 4, 0, &point, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR, api_.copy(cb, nullptr, a, b, 0, 0, 4, 1, &point, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, api_.copy(cb, nullptr, a, b, 0, 62, 4, 0, nullptr, nullptr, nullptr));
  EXPECT_EQ(CL_MEM_COPY_OVERLAP, api_.copy(cb, nullptr, a, a, 0, 2, 4, 0, nullptr, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, api_.copy(cb, nullptr, a, nullptr, 0, 0, 4, 0, nullptr, nullptr, nullptr));
  const cl_uint word = 1;
  EXPECT_EQ(CL_INVALID_VALUE, api_.fill(cb, nullptr, a, &word, 3, 0, 6, 0, nullptr, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, api_.fill(cb, nullptr, a, nullptr, 4, 0, 8, 0, nullptr, nullptr, nullptr));
  Program p = build("__kernel void k(__global int* a, int b) { a[0] = b; }");
  Kernel k = kernel(p, "k");
  size_t one = 1;
  EXPECT_EQ(CL_INVALID_KERNEL_ARGS, api_.kernel(cb, nullptr, nullptr, k, 1, nullptr, &one, nullptr, 0, nullptr, nullptr, nullptr));
  set_mem_arg(k, 0, a);
  set_arg(k, 1, 3);
  EXPECT_EQ(CL_INVALID_WORK_DIMENSION, api_.kernel(cb, nullptr, nullptr, k, 4, nullptr, &one, nullptr, 0, nullptr, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_KERNEL, api_.kernel(cb, nullptr, nullptr, nullptr, 1, nullptr, &one, nullptr, 0, nullptr, nullptr, nullptr));
  const cl_ndrange_kernel_command_properties_khr props[] = {0x1234, 0, 0};
  EXPECT_EQ(CL_INVALID_VALUE, api_.kernel(cb, nullptr, props, k, 1, nullptr, &one, nullptr, 0, nullptr, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, api_.kernel(cb, nullptr, nullptr, k, 1, nullptr, &one, nullptr, 0, nullptr, &point, nullptr));
  EXPECT_EQ(0u, point);  // the failed commands took no sync point
  ASSERT_EQ(CL_SUCCESS, api_.barrier(cb, nullptr, 1, &point, &point, nullptr));
  EXPECT_EQ(1u, point);
  ASSERT_EQ(CL_SUCCESS, api_.finalize(cb));
  EXPECT_EQ(CL_INVALID_OPERATION, api_.copy(cb, nullptr, a, b, 0, 0, 4, 0, nullptr, nullptr, nullptr));
  // Enqueueing.
  EXPECT_EQ(CL_INVALID_VALUE, api_.enqueue(1, nullptr, cb, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, api_.enqueue(0, &q, cb, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, api_.enqueue(1, &bad, cb, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_EVENT_WAIT_LIST, api_.enqueue(0, nullptr, cb, 1, nullptr, nullptr));
  Queue other(clCreateCommandQueueWithProperties(context_, device_, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  cl_command_queue o = other.get();
  // The test's queue profiles; |other| does not: not compatible.
  EXPECT_EQ(CL_INCOMPATIBLE_COMMAND_QUEUE_KHR, api_.enqueue(1, &o, cb, 0, nullptr, nullptr));
  const cl_queue_properties same[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  Queue like(clCreateCommandQueueWithProperties(context_, device_, same, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  cl_command_queue l = like.get();
  EXPECT_EQ(CL_SUCCESS, api_.enqueue(1, &l, cb, 0, nullptr, nullptr));
  EXPECT_EQ(CL_SUCCESS, clFinish(like));
  std::vector<cl_int> got = read<cl_int>(a, 1);
  EXPECT_EQ(3, got[0]);
}

TEST_P(CommandBuffer, DeviceReportsTheExtension) {
  size_t size = 0;
  clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, 0, nullptr, &size);
  std::string extensions(size, '\0');
  clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr);
  EXPECT_NE(std::string::npos, extensions.find("cl_khr_command_buffer"));
  cl_device_command_buffer_capabilities_khr caps = 0;
  EXPECT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR, sizeof caps, &caps, nullptr));
  EXPECT_TRUE(caps & CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR);
  cl_command_queue_properties required = 1;
  EXPECT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR,
                                        sizeof required, &required, nullptr));
  EXPECT_EQ(0u, required);
}

INSTANTIATE_TEST_SUITE_P(Options, CommandBuffer, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
