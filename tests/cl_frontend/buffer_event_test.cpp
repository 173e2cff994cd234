// Buffers, enqueued transfers and events: random data against host expectations, and the
// specification's error codes.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <thread>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class Buffers : public KernelTest {
 protected:
  std::vector<uint8_t> random_bytes(size_t n) {
    std::vector<uint8_t> v(n);
    std::uniform_int_distribution<int> d(0, 255);
    for (auto& b : v) b = uint8_t(d(rng_));
    return v;
  }
};

TEST_P(Buffers, WriteReadCopyFill) {
  const size_t n = 1 << 16;
  auto data = random_bytes(n);
  Mem a = buffer(n), b = poisoned(n);
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queue_, a, CL_FALSE, 0, n, data.data(), 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clEnqueueCopyBuffer(queue_, a, b, 256, 1024, n / 2, 0, nullptr, nullptr));
  std::vector<uint8_t> out(n);
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, b, CL_TRUE, 0, n, out.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < n; ++i) {
    uint8_t expect = (i >= 1024 && i < 1024 + n / 2) ? data[i - 1024 + 256] : 0xAB;
    ASSERT_EQ(out[i], expect) << i;
  }
  uint32_t pattern4 = 0x12345678;
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(queue_, b, &pattern4, 4, 64, 4096, 0, nullptr, nullptr));
  uint8_t pattern3[16];
  for (int i = 0; i < 16; ++i) pattern3[i] = uint8_t(i * 7 + 1);
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(queue_, b, pattern3, 16, 8192, 1024, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, b, CL_TRUE, 0, n, out.data(), 0, nullptr, nullptr));
  for (size_t i = 64; i < 64 + 4096; ++i) ASSERT_EQ(out[i], reinterpret_cast<uint8_t*>(&pattern4)[i % 4]) << i;
  for (size_t i = 8192; i < 8192 + 1024; ++i) ASSERT_EQ(out[i], pattern3[i % 16]) << i;
  EXPECT_EQ(out[63], 0xAB);
}

TEST_P(Buffers, MapUnmapAndHostPointers) {
  const size_t n = 4096;
  auto data = random_bytes(n);
  cl_int err;
  // USE_HOST_PTR: a map shows the application's own memory.
  alignas(4096) static uint8_t host[4096];
  std::memcpy(host, data.data(), n);
  Mem use(clCreateBuffer(context_, CL_MEM_USE_HOST_PTR, n, host, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  void* p = clEnqueueMapBuffer(queue_, use, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, nullptr, nullptr, &err);
  ASSERT_EQ(CL_SUCCESS, err);
  EXPECT_EQ(p, static_cast<void*>(host));
  static_cast<uint8_t*>(p)[5] = 0x42;
  ASSERT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(queue_, use, p, 0, nullptr, nullptr));
  std::vector<uint8_t> out(n);
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, use, CL_TRUE, 0, n, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out[5], 0x42);
  EXPECT_EQ(out[6], data[6]);
  // ALLOC_HOST_PTR and a map in the middle of the buffer.
  Mem alloc(clCreateBuffer(context_, CL_MEM_ALLOC_HOST_PTR, n, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  auto* m = static_cast<uint8_t*>(clEnqueueMapBuffer(queue_, alloc, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION,
                                                     100, 200, 0, nullptr, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  std::memcpy(m, data.data(), 200);
  cl_uint count = 0;
  ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(alloc, CL_MEM_MAP_COUNT, sizeof(count), &count, nullptr));
  EXPECT_EQ(count, 1u);
  ASSERT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(queue_, alloc, m, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, alloc, CL_TRUE, 100, 200, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(0, std::memcmp(out.data(), data.data(), 200));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueUnmapMemObject(queue_, alloc, out.data(), 0, nullptr, nullptr));
}

TEST_P(Buffers, SubBuffersShareStorage) {
  const size_t n = 4096;
  auto data = random_bytes(n);
  Mem parent = buffer(n, data.data());
  cl_int err;
  cl_buffer_region region{1024, 512};
  Mem sub(clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  std::vector<uint8_t> out(512);
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, sub, CL_TRUE, 0, 512, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(0, std::memcmp(out.data(), data.data() + 1024, 512));
  size_t offset = 0;
  ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(sub, CL_MEM_OFFSET, sizeof(offset), &offset, nullptr));
  EXPECT_EQ(offset, 1024u);
  cl_buffer_region misaligned{3, 16}, outside{4000, 512}, empty{0, 0};
  EXPECT_EQ(nullptr, clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &misaligned, &err));
  EXPECT_EQ(CL_MISALIGNED_SUB_BUFFER_OFFSET, err);
  EXPECT_EQ(nullptr, clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &outside, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  EXPECT_EQ(nullptr, clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &empty, &err));
  EXPECT_EQ(CL_INVALID_BUFFER_SIZE, err);
  EXPECT_EQ(nullptr, clCreateSubBuffer(sub, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, err);
}

TEST_P(Buffers, RectangularTransfers) {
  const size_t w = 64, h = 32;
  auto data = random_bytes(w * h);
  Mem b = buffer(w * h, data.data());
  std::vector<uint8_t> out(16 * 8, 0);
  size_t buffer_origin[3] = {8, 4, 0}, host_origin[3] = {0, 0, 0}, region[3] = {16, 8, 1};
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBufferRect(queue_, b, CL_TRUE, buffer_origin, host_origin, region,
                                                w, 0, 16, 0, out.data(), 0, nullptr, nullptr));
  for (size_t y = 0; y < 8; ++y)
    for (size_t x = 0; x < 16; ++x) ASSERT_EQ(out[y * 16 + x], data[(y + 4) * w + x + 8]);
}

// Origins, pitches and regions whose offsets overflow size_t are out of bounds (an origin of
// SIZE_MAX once wrapped to the byte before the buffer and was read).
TEST_P(Buffers, RectangularTransfersThatOverflow) {
  Mem b = buffer(4096);
  uint8_t out[64];
  const size_t m = SIZE_MAX;
  size_t zero[3] = {0, 0, 0}, one_row[3] = {2, 1, 1};
  size_t past[3] = {m, 0, 0};
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueReadBufferRect(queue_, b, CL_TRUE, past, zero, one_row, 0, 0, 0, 0, out, 0,
                                                      nullptr, nullptr));
  size_t rows_past[3] = {0, m / 16, 0};
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueReadBufferRect(queue_, b, CL_TRUE, rows_past, zero, one_row, 16, 0, 0, 0, out,
                                                      0, nullptr, nullptr));
  size_t tall[3] = {16, m, 1};
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueReadBufferRect(queue_, b, CL_TRUE, zero, zero, tall, 16, 0, 16, 0, out, 0,
                                                      nullptr, nullptr));
  size_t slices[3] = {16, 2, 2};
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueWriteBufferRect(queue_, b, CL_TRUE, zero, zero, slices, m / 2, 0, 16, 32, out,
                                                       0, nullptr, nullptr));
  size_t host_past[3] = {0, m / 8, 0};
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueReadBufferRect(queue_, b, CL_TRUE, zero, host_past, one_row, 0, 0, 16, 0, out,
                                                      0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueCopyBufferRect(queue_, b, b, past, zero, one_row, 0, 0, 0, 0, 0, nullptr,
                                                      nullptr));
}

// Image transfers whose host pitches overflow size_t, and images over buffers whose sizes do.
TEST_P(Buffers, ImagePitchesThatOverflow) {
  cl_bool images = CL_FALSE;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr));
  if (!images) GTEST_SKIP() << "no images";
  const size_t m = SIZE_MAX;
  cl_image_format format{CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = desc.image_height = 16;
  cl_int err = CL_SUCCESS;
  Mem image(clCreateImage(context_, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  std::vector<uint8_t> host(16 * 16 * 4);
  size_t origin[3] = {0, 0, 0}, region[3] = {16, 16, 1};
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueWriteImage(queue_, image, CL_TRUE, origin, region, m / 8, 0, host.data(), 0,
                                                  nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueReadImage(queue_, image, CL_TRUE, origin, region, m / 8 + 1, 0, host.data(), 0,
                                                 nullptr, nullptr));
  Mem b = buffer(4096);
  desc.buffer = b.get();
  desc.image_row_pitch = m - 63;
  EXPECT_EQ(nullptr, clCreateImage(context_, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err));
  EXPECT_NE(CL_SUCCESS, err);
  desc.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
  desc.image_row_pitch = 0;
  desc.image_height = 0;
  desc.image_width = m / 2;
  EXPECT_EQ(nullptr, clCreateImage(context_, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err));
  EXPECT_NE(CL_SUCCESS, err);
}

// A source length no string can have: an error, not an exception out of vkcl.
TEST_P(Buffers, SourceLengthPastTheAddressSpace) {
  const char* text = "__kernel void k(void) {}";
  size_t length = SIZE_MAX;
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateProgramWithSource(context_, 1, &text, &length, &err));
  EXPECT_EQ(CL_OUT_OF_HOST_MEMORY, err);
}

TEST_P(Buffers, BufferErrors) {
  cl_int err;
  EXPECT_EQ(nullptr, clCreateBuffer(context_, CL_MEM_READ_WRITE, 0, nullptr, &err));
  EXPECT_EQ(CL_INVALID_BUFFER_SIZE, err);
  EXPECT_EQ(nullptr, clCreateBuffer(context_, CL_MEM_READ_WRITE, size_t(1) << 62, nullptr, &err));
  EXPECT_EQ(CL_INVALID_BUFFER_SIZE, err);
  EXPECT_EQ(nullptr, clCreateBuffer(context_, CL_MEM_USE_HOST_PTR, 64, nullptr, &err));
  EXPECT_EQ(CL_INVALID_HOST_PTR, err);
  int x[16];
  EXPECT_EQ(nullptr, clCreateBuffer(context_, CL_MEM_READ_WRITE, 64, x, &err));
  EXPECT_EQ(CL_INVALID_HOST_PTR, err);
  EXPECT_EQ(nullptr, clCreateBuffer(context_, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, nullptr, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  EXPECT_EQ(nullptr, clCreateBuffer(nullptr, CL_MEM_READ_WRITE, 64, nullptr, &err));
  EXPECT_EQ(CL_INVALID_CONTEXT, err);

  Mem b = buffer(256);
  uint8_t out[512];
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueReadBuffer(queue_, b, CL_TRUE, 200, 100, out, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueReadBuffer(queue_, b, CL_TRUE, 0, 16, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, clEnqueueReadBuffer(queue_, nullptr, CL_TRUE, 0, 16, out, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_EVENT_WAIT_LIST, clEnqueueReadBuffer(queue_, b, CL_TRUE, 0, 16, out, 1, nullptr, nullptr));
  EXPECT_EQ(CL_MEM_COPY_OVERLAP, clEnqueueCopyBuffer(queue_, b, b, 0, 8, 64, 0, nullptr, nullptr));
  uint32_t pattern = 0;
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueFillBuffer(queue_, b, &pattern, 3, 0, 12, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueFillBuffer(queue_, b, &pattern, 4, 2, 12, 0, nullptr, nullptr));
  Mem hidden(clCreateBuffer(context_, CL_MEM_HOST_NO_ACCESS, 64, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  EXPECT_EQ(CL_INVALID_OPERATION, clEnqueueReadBuffer(queue_, hidden, CL_TRUE, 0, 16, out, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_OPERATION, clEnqueueWriteBuffer(queue_, hidden, CL_TRUE, 0, 16, out, 0, nullptr, nullptr));
}

TEST_P(Buffers, ProfilingTimestampsAreOrdered) {
  Mem b = buffer(1 << 20);
  uint32_t pattern = 7;
  cl_event e;
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(queue_, b, &pattern, 4, 0, 1 << 20, 0, nullptr, &e));
  ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &e));
  cl_ulong t[4];
  cl_profiling_info params[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                 CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
  for (int i = 0; i < 4; ++i)
    ASSERT_EQ(CL_SUCCESS, clGetEventProfilingInfo(e, params[i], sizeof(cl_ulong), &t[i], nullptr));
  EXPECT_GT(t[0], 0u);
  EXPECT_LE(t[0], t[1]);
  EXPECT_LE(t[1], t[2]);
  EXPECT_LE(t[2], t[3]);
  cl_int status = 0;
  ASSERT_EQ(CL_SUCCESS, clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr));
  EXPECT_EQ(status, CL_COMPLETE);
  cl_command_type type = 0;
  ASSERT_EQ(CL_SUCCESS, clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, nullptr));
  EXPECT_EQ(type, cl_command_type(CL_COMMAND_FILL_BUFFER));
  clReleaseEvent(e);
}

// A plain buffer mapped for reading and writing shows its contents, and what the host writes
// there reaches the buffer after the unmap: through the storage itself where the host caches
// it, through a copy where it does not (the uncached. variant).
TEST_P(Buffers, MapForReadAndWriteRoundTrips) {
  const size_t n = 4096;
  std::vector<uint8_t> data(n), out(n);
  for (size_t i = 0; i < n; ++i) data[i] = uint8_t(i * 7 + 3);
  cl_int err;
  Mem b(clCreateBuffer(context_, CL_MEM_READ_WRITE, n, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queue_, b, CL_TRUE, 0, n, data.data(), 0, nullptr, nullptr));
  auto* p = static_cast<uint8_t*>(clEnqueueMapBuffer(queue_, b, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 512,
                                                     1024, 0, nullptr, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  EXPECT_EQ(0, std::memcmp(p, data.data() + 512, 1024));
  for (size_t i = 0; i < 1024; ++i) p[i] ^= 0xff;
  ASSERT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(queue_, b, p, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, b, CL_TRUE, 0, n, out.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], i >= 512 && i < 1536 ? uint8_t(data[i] ^ 0xff) : data[i]) << i;
}

// Device timestamps are put on the host's clock as the commands ran, whenever they are read:
// a short command timed after a long one lies between its own enqueue and its wait's return
// (vkcl's profiling clock is CLOCK_MONOTONIC). Calibrating from the first timestamp read put
// every later time late by the first command's run time.
TEST_P(Buffers, ProfilingTimesAreWhenTheCommandRan) {
  auto now = [] {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return cl_ulong(ts.tv_sec) * 1000000000ull + cl_ulong(ts.tv_nsec);
  };
  cl_profiling_info params[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                 CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
  const size_t big = size_t(256) << 20;
  Mem b = buffer(big);
  uint32_t pattern = 7;
  cl_event first, second;
  cl_ulong t[4];
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(queue_, b, &pattern, 4, 0, big, 0, nullptr, &first));
  ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &first));
  ASSERT_EQ(CL_SUCCESS, clGetEventProfilingInfo(first, params[2], sizeof(cl_ulong), &t[2], nullptr));
  ASSERT_EQ(CL_SUCCESS, clGetEventProfilingInfo(first, params[3], sizeof(cl_ulong), &t[3], nullptr));
  cl_ulong first_ms = (t[3] - t[2]) / 1000000;
  cl_ulong before = now();
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(queue_, b, &pattern, 4, 0, 4096, 0, nullptr, &second));
  ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &second));
  cl_ulong after = now();
  for (int i = 0; i < 4; ++i)
    ASSERT_EQ(CL_SUCCESS, clGetEventProfilingInfo(second, params[i], sizeof(cl_ulong), &t[i], nullptr));
  // A millisecond of slack for the calibration's own error.
  for (int i = 0; i < 4; ++i) {
    EXPECT_GE(t[i] + 1000000, before) << "time " << i << "; the first command took " << first_ms << " ms";
    EXPECT_LE(t[i], after + 1000000) << "time " << i << "; the first command took " << first_ms << " ms";
  }
  clReleaseEvent(first);
  clReleaseEvent(second);
}

// A command whose event the application asked for is timed by the device, also among
// commands without events (which vkcl does not time): its START is when it ran, not when the
// host first looked at the event, 300 ms later.
TEST_P(Buffers, TimedCommandsAmongUntimedOnes) {
  auto now = [] {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return cl_ulong(ts.tv_sec) * 1000000000ull + cl_ulong(ts.tv_nsec);
  };
  Mem b = buffer(1 << 16);
  uint32_t pattern = 7;
  cl_event timed = nullptr;
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(queue_, b, &pattern, 4, 0, 4096, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(queue_, b, &pattern, 4, 4096, 4096, 0, nullptr, &timed));
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(queue_, b, &pattern, 4, 8192, 4096, 0, nullptr, nullptr));
  const cl_ulong flushed = now();
  ASSERT_EQ(CL_SUCCESS, clFlush(queue_));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &timed));
  cl_ulong start = 0, end = 0;
  ASSERT_EQ(CL_SUCCESS, clGetEventProfilingInfo(timed, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr));
  ASSERT_EQ(CL_SUCCESS, clGetEventProfilingInfo(timed, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr));
  EXPECT_LT(start, flushed + 200000000) << "START is when the host looked, not when the fill ran";
  EXPECT_LE(start, end);
  clReleaseEvent(timed);
}

TEST_P(Buffers, UserEventGatesLaterCommands) {
  cl_int err;
  cl_event gate = clCreateUserEvent(context_, &err);
  ASSERT_EQ(CL_SUCCESS, err);
  std::vector<uint32_t> data(256, 5), out(256, 0);
  Mem b = buffer(1024);
  cl_event write;
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queue_, b, CL_FALSE, 0, 1024, data.data(), 1, &gate, &write));
  cl_int status = 0;
  ASSERT_EQ(CL_SUCCESS, clGetEventInfo(write, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr));
  EXPECT_GT(status, CL_COMPLETE) << "the write must wait for the user event";
  static int called = 0;
  called = 0;
  ASSERT_EQ(CL_SUCCESS, clSetEventCallback(write, CL_COMPLETE, [](cl_event, cl_int, void*) { called++; }, nullptr));
  ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(gate, CL_COMPLETE));
  EXPECT_EQ(CL_INVALID_OPERATION, clSetUserEventStatus(gate, CL_COMPLETE));
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, b, CL_TRUE, 0, 1024, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, data);
  ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &write));
  for (int i = 0; i < 1000 && !called; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(called, 1);
  EXPECT_EQ(CL_PROFILING_INFO_NOT_AVAILABLE,
            clGetEventProfilingInfo(gate, CL_PROFILING_COMMAND_START, sizeof(cl_ulong), &status, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clSetUserEventStatus(gate, 5));
  EXPECT_EQ(CL_INVALID_VALUE, clWaitForEvents(0, &write));
  EXPECT_EQ(CL_INVALID_EVENT, clGetEventInfo(nullptr, CL_EVENT_COMMAND_TYPE, 4, &status, nullptr));
  clReleaseEvent(write);
  clReleaseEvent(gate);
}

TEST_P(Buffers, ObjectsLiveWhileCommandsUseThem) {
  // Release the buffer, kernel and queue right after enqueueing: the command keeps them alive.
  Program p = build("__kernel void k(__global int* o) { o[get_global_id(0)] = (int)get_global_id(0) * 3; }");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "k", &err);
  ASSERT_EQ(CL_SUCCESS, err);
  cl_mem out = clCreateBuffer(context_, CL_MEM_READ_WRITE, 4096 * 4, nullptr, &err);
  ASSERT_EQ(CL_SUCCESS, err);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(cl_mem), &out));
  size_t n = 4096;
  cl_event done;
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &n, nullptr, 0, nullptr, &done));
  std::vector<int> host(n);
  cl_event read;
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, out, CL_FALSE, 0, n * 4, host.data(), 0, nullptr, &read));
  clReleaseKernel(k);
  clReleaseMemObject(out);
  ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &read));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(host[i], int(i) * 3);
  clReleaseEvent(done);
  clReleaseEvent(read);
}

TEST_P(Buffers, KernelArgumentsDoNotKeepBuffersAlive) {
  // As on native drivers: releasing a buffer that is set as an argument destroys it (its
  // destructor callback runs); a launch that would use it then fails, and a new value fixes it.
  Program p = build("__kernel void k(__global int* o) { o[get_global_id(0)] = 7; }");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "k", &err);
  ASSERT_EQ(CL_SUCCESS, err);
  cl_mem gone = clCreateBuffer(context_, CL_MEM_READ_WRITE, 64, nullptr, &err);
  ASSERT_EQ(CL_SUCCESS, err);
  int destroyed = 0;
  auto note = [](cl_mem, void* d) { ++*static_cast<int*>(d); };
  ASSERT_EQ(CL_SUCCESS, clSetMemObjectDestructorCallback(gone, note, &destroyed));
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(cl_mem), &gone));
  ASSERT_EQ(CL_SUCCESS, clReleaseMemObject(gone));
  EXPECT_EQ(1, destroyed);
  size_t n = 16;
  EXPECT_EQ(CL_INVALID_KERNEL_ARGS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  cl_mem out = clCreateBuffer(context_, CL_MEM_READ_WRITE, n * 4, nullptr, &err);
  ASSERT_EQ(CL_SUCCESS, err);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(cl_mem), &out));
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  std::vector<int> host(n);
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, out, CL_TRUE, 0, n * 4, host.data(), 0, nullptr, nullptr));
  for (int v : host) EXPECT_EQ(7, v);
  clReleaseMemObject(out);
  clReleaseKernel(k);
}

// clEnqueueMigrateMemObjects: a command with an event, in the queue's order; without
// CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED the contents survive the migration.
TEST_P(Buffers, MigrateMemObjectsIsAnOrderedCommand) {
  const size_t n = 4096;
  auto data = random_bytes(n);
  Mem a = buffer(n, data.data()), b = poisoned(n);
  cl_mem both[] = {a, b};
  cl_event migrated = nullptr;
  ASSERT_EQ(CL_SUCCESS, clEnqueueMigrateMemObjects(queue_, 2, both, 0, 0, nullptr, &migrated));
  Event hold(migrated);
  ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &migrated));
  cl_command_type type = 0;
  ASSERT_EQ(CL_SUCCESS, clGetEventInfo(migrated, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
  EXPECT_EQ(type, cl_command_type(CL_COMMAND_MIGRATE_MEM_OBJECTS));
  cl_int status = 1;
  ASSERT_EQ(CL_SUCCESS, clGetEventInfo(migrated, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
  EXPECT_EQ(status, CL_COMPLETE);
  ASSERT_EQ(CL_SUCCESS, clEnqueueMigrateMemObjects(queue_, 1, both, CL_MIGRATE_MEM_OBJECT_HOST, 1,
                                                   &migrated, nullptr));
  std::vector<uint8_t> out(n);
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, a, CL_TRUE, 0, n, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, data);

  // Held back by a user event, and the command after it with it.
  cl_int err;
  Event gate(clCreateUserEvent(context_, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  cl_event gated_raw = nullptr;
  cl_event gate_raw = gate.get();
  ASSERT_EQ(CL_SUCCESS, clEnqueueMigrateMemObjects(queue_, 1, &both[1],
                                                   CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
                                                   1, &gate_raw, &gated_raw));
  Event gated(gated_raw);
  ASSERT_EQ(CL_SUCCESS, clGetEventInfo(gated, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
  EXPECT_GT(status, CL_COMPLETE);
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queue_, b, CL_FALSE, 0, n, data.data(), 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(gate, CL_COMPLETE));
  ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &gated_raw));
  // Contents left undefined by the migration are written again: the buffer stays usable.
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, b, CL_TRUE, 0, n, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, data);
}

TEST_P(Buffers, MigrateMemObjectsErrors) {
  Mem a = buffer(64);
  cl_mem list[] = {a};
  // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue.
  EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, clEnqueueMigrateMemObjects(nullptr, 1, list, 0, 0, nullptr, nullptr));
  // CL_INVALID_VALUE if num_mem_objects is zero or if mem_objects is NULL.
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueMigrateMemObjects(queue_, 0, list, 0, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueMigrateMemObjects(queue_, 1, nullptr, 0, 0, nullptr, nullptr));
  // CL_INVALID_VALUE if flags is not 0 or is not any of the values described in the table.
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueMigrateMemObjects(queue_, 1, list, 1 << 2, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueMigrateMemObjects(queue_, 1, list, ~cl_mem_migration_flags(0),
                                                         0, nullptr, nullptr));
  // CL_INVALID_MEM_OBJECT if any of the memory objects in mem_objects is not a valid memory
  // object.
  cl_mem with_null[] = {a, nullptr};
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, clEnqueueMigrateMemObjects(queue_, 2, with_null, 0, 0, nullptr, nullptr));
  cl_mem with_queue[] = {reinterpret_cast<cl_mem>(queue_.get())};
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, clEnqueueMigrateMemObjects(queue_, 1, with_queue, 0, 0, nullptr, nullptr));
  // CL_INVALID_CONTEXT if the context associated with command_queue and memory objects in
  // mem_objects are not the same, or with events in event_wait_list.
  cl_int err;
  Context other(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Mem foreign(clCreateBuffer(other, CL_MEM_READ_WRITE, 64, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  cl_mem mixed[] = {a, foreign};
  EXPECT_EQ(CL_INVALID_CONTEXT, clEnqueueMigrateMemObjects(queue_, 2, mixed, 0, 0, nullptr, nullptr));
  Event foreign_event(clCreateUserEvent(other, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  cl_event foreign_wait = foreign_event.get();
  EXPECT_EQ(CL_INVALID_CONTEXT, clEnqueueMigrateMemObjects(queue_, 1, list, 0, 1, &foreign_wait, nullptr));
  // CL_INVALID_EVENT_WAIT_LIST for a NULL list with a count, a list without one, or an
  // invalid event in it.
  EXPECT_EQ(CL_INVALID_EVENT_WAIT_LIST, clEnqueueMigrateMemObjects(queue_, 1, list, 0, 1, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_EVENT_WAIT_LIST, clEnqueueMigrateMemObjects(queue_, 1, list, 0, 0, &foreign_wait, nullptr));
  cl_event not_an_event = reinterpret_cast<cl_event>(a.get());
  EXPECT_EQ(CL_INVALID_EVENT_WAIT_LIST, clEnqueueMigrateMemObjects(queue_, 1, list, 0, 1, &not_an_event, nullptr));
}

cl_int status_of(cl_event e) {
  cl_int status = 12345;
  EXPECT_EQ(CL_SUCCESS, clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
  return status;
}

// clSetUserEventStatus with a negative status: "all enqueued commands that wait on this user
// event will be terminated", and so every command waiting on those (their status negative,
// their effects not done); blocking calls return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST.
TEST_P(Buffers, FailedUserEventTerminatesItsDependents) {
  const size_t n = 1024;
  auto data = random_bytes(n), fresh = random_bytes(n);
  Mem a = buffer(n, data.data()), b = poisoned(n);
  cl_int err;
  Event gate(clCreateUserEvent(context_, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  cl_event g = gate.get(), write = nullptr, copy = nullptr, marker = nullptr;
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queue_, a, CL_FALSE, 0, n, fresh.data(), 1, &g, &write));
  Event write_event(write);
  ASSERT_EQ(CL_SUCCESS, clEnqueueCopyBuffer(queue_, a, b, 0, 0, n, 1, &write, &copy));
  Event copy_event(copy);
  ASSERT_EQ(CL_SUCCESS, clEnqueueMarkerWithWaitList(queue_, 1, &copy, &marker));
  Event marker_event(marker);
  static cl_int notified;
  notified = 1;
  ASSERT_EQ(CL_SUCCESS, clSetEventCallback(copy, CL_COMPLETE,
                                           [](cl_event, cl_int s, void*) { notified = s; }, nullptr));
  ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(gate, -42));
  EXPECT_EQ(status_of(g), -42);
  EXPECT_LT(status_of(write), 0);
  EXPECT_LT(status_of(copy), 0);
  EXPECT_LT(status_of(marker), 0);
  EXPECT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, clWaitForEvents(1, &marker));
  std::vector<uint8_t> out(n, 0x5A);
  EXPECT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
            clEnqueueReadBuffer(queue_, b, CL_TRUE, 0, n, out.data(), 1, &copy, nullptr));
  EXPECT_EQ(out, std::vector<uint8_t>(n, 0x5A)) << "a terminated read wrote to host memory";
  // The terminated write and copy did nothing; commands without the failed events still run.
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, a, CL_TRUE, 0, n, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, data);
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, b, CL_TRUE, 0, n, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, std::vector<uint8_t>(n, 0xAB));
  ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
  for (int i = 0; i < 1000 && notified > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_LT(notified, 0) << "the callback gets the error that terminated the command";
  // A kernel waiting on a terminated command does not run either.
  Program p = build("__kernel void k(__global uchar* o) { o[get_global_id(0)] = 7; }");
  Kernel k = kernel(p, "k");
  set_mem_arg(k, 0, b);
  size_t global = n;
  cl_event launched = nullptr;
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &global, nullptr, 1, &marker, &launched));
  Event launched_event(launched);
  EXPECT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, clWaitForEvents(1, &launched));
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, b, CL_TRUE, 0, n, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, std::vector<uint8_t>(n, 0xAB));
}

// Runs |body| on a thread of its own; false if it has not returned after 20 seconds. A
// thread stuck inside vkcl holds its locks, so the process then ends with the failure.
bool returns(std::function<void()> body) {
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::thread worker([body, done] {
    body();
    done->store(true);
  });
  for (int i = 0; i < 20000 && !done->load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!done->load()) {
    ADD_FAILURE() << "an OpenCL call never returned";
    std::fflush(nullptr);
    std::_Exit(1);
  }
  worker.join();
  return true;
}

// Commands waiting on a command that a user event holds back on another queue: enqueueing
// them returns at once (the application may set the event afterwards, on the same thread),
// and setting the event, to success or failure, from this thread or another one while a
// blocking read waits, runs or terminates them. Nothing waits for ever.
TEST_P(Buffers, CommandsWaitingOnHeldCommandsNeverHang) {
  const size_t n = 256;
  auto data = random_bytes(n);
  Mem a = buffer(n, data.data());
  uint32_t pattern = 0x01020304;
  cl_int err;
  for (cl_int set_to : {CL_COMPLETE, -1}) {
    Queue other(clCreateCommandQueueWithProperties(context_, device_, nullptr, &err));
    ASSERT_EQ(CL_SUCCESS, err);
    Event gate(clCreateUserEvent(context_, &err));
    ASSERT_EQ(CL_SUCCESS, err);
    cl_event g = gate.get(), fill = nullptr, read = nullptr;
    ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(other, a, &pattern, 4, 0, n, 1, &g, &fill));
    Event fill_event(fill);
    std::vector<uint8_t> out(n, 0);
    cl_int enqueued = 1, set = 1, waited = 1;
    ASSERT_TRUE(returns([&] {
      enqueued = clEnqueueReadBuffer(queue_, a, CL_FALSE, 0, n, out.data(), 1, &fill, &read);
      set = clSetUserEventStatus(g, set_to);
      waited = clWaitForEvents(1, &read);
    })) << "the read waiting on a held fill never returned (status " << set_to << ")";
    Event read_event(read);
    EXPECT_EQ(CL_SUCCESS, enqueued);
    EXPECT_EQ(CL_SUCCESS, set);
    EXPECT_EQ(set_to == CL_COMPLETE ? CL_SUCCESS : CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, waited);
    if (set_to == CL_COMPLETE) {
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], reinterpret_cast<uint8_t*>(&pattern)[i % 4]) << i;
    }
    ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queue_, a, CL_TRUE, 0, n, data.data(), 0, nullptr, nullptr));
  }
  // Another thread sets the event while the read is enqueued or waits; a new queue each
  // round, so the queues meet in either order.
  std::mt19937 timing(7);
  for (int round = 0; round < 60; ++round) {
    Queue other(clCreateCommandQueueWithProperties(context_, device_, nullptr, &err));
    ASSERT_EQ(CL_SUCCESS, err);
    cl_event gate = clCreateUserEvent(context_, &err);
    ASSERT_EQ(CL_SUCCESS, err);
    Event gate_event(gate);
    cl_event marker = nullptr;
    ASSERT_EQ(CL_SUCCESS, clEnqueueMarkerWithWaitList(other, 1, &gate, &marker));
    Event marker_event(marker);
    cl_int set_to = round % 2 ? CL_COMPLETE : -1;
    int delay = std::uniform_int_distribution<int>(0, 200)(timing);
    cl_event waits[2] = {round % 4 < 2 ? marker : gate, marker};
    std::vector<uint8_t> out(n, 0);
    cl_int result = 1;
    std::thread setter([&] {
      std::this_thread::sleep_for(std::chrono::microseconds(delay));
      clSetUserEventStatus(gate, set_to);
    });
    bool finished = returns([&] {
      result = clEnqueueReadBuffer(queue_, a, CL_TRUE, 0, n, out.data(), 2, waits, nullptr);
    });
    setter.join();
    ASSERT_TRUE(finished) << "a blocking read never returned in round " << round;
    if (set_to == CL_COMPLETE) {
      ASSERT_EQ(CL_SUCCESS, result) << round;
      ASSERT_EQ(out, data) << round;
    } else {
      ASSERT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, result) << round;
    }
  }
}

// "event_command_status is equal to the command_exec_callback_type used while registering the
// callback", or the error code of a terminated command.
TEST_P(Buffers, CallbacksReceiveTheStatusTheyWereRegisteredFor) {
  struct Seen {
    std::atomic<int> calls{0};
    std::atomic<cl_int> status{99};
  };
  static Seen seen[3];
  auto note = [](cl_event, cl_int s, void* d) {
    auto* slot = static_cast<Seen*>(d);
    slot->status = s;
    slot->calls++;
  };
  const cl_int kinds[3] = {CL_SUBMITTED, CL_RUNNING, CL_COMPLETE};
  auto wait_for_calls = [&] {
    for (int i = 0; i < 2000; ++i) {
      if (seen[0].calls && seen[1].calls && seen[2].calls) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  };
  Mem b = buffer(1 << 16);
  uint32_t pattern = 3;
  std::vector<uint8_t> out(64);
  for (int gpu = 0; gpu < 2; ++gpu) {
    for (auto& s : seen) s.calls = 0, s.status = 99;
    cl_event e = nullptr;
    if (gpu) ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(queue_, b, &pattern, 4, 0, 1 << 16, 0, nullptr, &e));
    else ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, b, CL_FALSE, 0, 64, out.data(), 0, nullptr, &e));
    Event hold(e);
    for (int i = 0; i < 3; ++i) ASSERT_EQ(CL_SUCCESS, clSetEventCallback(e, kinds[i], note, &seen[i]));
    ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &e));
    wait_for_calls();
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(seen[i].calls.load(), 1) << "gpu " << gpu << " kind " << kinds[i];
      EXPECT_EQ(seen[i].status.load(), kinds[i]) << "gpu " << gpu;
    }
  }
  // A user event: CL_SUBMITTED at once (it starts submitted), CL_COMPLETE or an error later.
  cl_int err;
  for (cl_int final_status : {CL_COMPLETE, -7}) {
    for (auto& s : seen) s.calls = 0, s.status = 99;
    Event user(clCreateUserEvent(context_, &err));
    ASSERT_EQ(CL_SUCCESS, err);
    for (int i = 0; i < 3; ++i) ASSERT_EQ(CL_SUCCESS, clSetEventCallback(user, kinds[i], note, &seen[i]));
    for (int i = 0; i < 1000 && !seen[0].calls; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(seen[0].status.load(), CL_SUBMITTED);
    EXPECT_EQ(seen[2].calls.load(), 0);
    ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(user, final_status));
    wait_for_calls();
    EXPECT_EQ(seen[0].calls.load(), 1);
    EXPECT_EQ(seen[1].status.load(), final_status < 0 ? final_status : CL_RUNNING);
    EXPECT_EQ(seen[2].status.load(), final_status);
  }
}

// A CL_COMPLETE callback may read its event's profiling times (tools that time every kernel do,
// e.g. bench/kernel_times_layer.cpp): the event is completed by the thread that waits for it,
// and that thread must not hold the event's locks while it calls the callback.
TEST_P(Buffers, CompletionCallbacksReadProfilingTimes) {
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_int err;
  Queue timed(clCreateCommandQueueWithProperties(context_, device_, props, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Program p = build("__kernel void k(__global int* o) { o[get_global_id(0)] = 5; }");
  Kernel k = kernel(p, "k");
  Mem out = buffer(4096 * 4);
  set_mem_arg(k, 0, out);
  struct Times {
    std::atomic<int> calls{0};
    std::atomic<cl_int> start_err{1}, end_err{1};
    std::atomic<cl_ulong> start{0}, end{0};
  };
  static Times times;
  auto note = [](cl_event e, cl_int, void* d) {
    auto* t = static_cast<Times*>(d);
    cl_ulong start = 0, end = 0;
    t->start_err = clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
    t->end_err = clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
    t->start = start;
    t->end = end;
    t->calls++;
  };
  size_t n = 4096;
  cl_event e = nullptr;
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(timed, k, 1, nullptr, &n, nullptr, 0, nullptr, &e));
  Event hold(e);
  ASSERT_EQ(CL_SUCCESS, clSetEventCallback(e, CL_COMPLETE, note, &times));
  // Waited for on another thread, so that a deadlock fails the test instead of hanging it.
  auto waited = std::make_shared<std::atomic<bool>>(false);
  std::thread waiter([e, waited] {
    clWaitForEvents(1, &e);
    *waited = true;
  });
  for (int i = 0; i < 20000 && !(*waited && times.calls); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!*waited || !times.calls) {
    waiter.detach();  // stuck: leave it, the test has failed
    FAIL() << "clWaitForEvents did not return or the callback did not run";
  }
  waiter.join();
  EXPECT_EQ(times.calls.load(), 1);
  EXPECT_EQ(times.start_err.load(), CL_SUCCESS);
  EXPECT_EQ(times.end_err.load(), CL_SUCCESS);
  EXPECT_GT(times.start.load(), 0u);
  EXPECT_GE(times.end.load(), times.start.load());
  EXPECT_EQ(read<int>(out, n), std::vector<int>(n, 5));
}

INSTANTIATE_TEST_SUITE_P(Api, Buffers, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
