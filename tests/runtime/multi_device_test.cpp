// One context over two Vulkan devices (ctest's "two_devices" set: lavapipe listed twice):
// buffers are used on both, their contents following the commands from device to device,
// each result checked against the CPU; images too. With one device they skip.
#include <algorithm>
#include <cstring>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

// x[i] = x[i] * factor + add, for every i.
const char* kSource = R"(
  __kernel void step(__global int* x, int factor, int add) {
    size_t i = get_global_id(0);
    x[i] = x[i] * factor + add;
  })";

class TwoDevicesOneContext : public ::testing::Test {
 protected:
  void SetUp() override {
    cl_platform_id platform = find_vkcl_platform();
    cl_uint n = 0;
    if (!platform || clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n < 2)
      GTEST_SKIP() << n << " vkcl device(s)";
    devices.resize(2);
    ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 2, devices.data(), nullptr));
    cl_int err = CL_SUCCESS;
    context = Context(clCreateContext(nullptr, 2, devices.data(), nullptr, nullptr, &err));
    ASSERT_EQ(CL_SUCCESS, err);
    for (int d = 0; d < 2; ++d) {
      queues[d] = Queue(clCreateCommandQueueWithProperties(context, devices[d], nullptr, &err));
      ASSERT_EQ(CL_SUCCESS, err);
    }
    program = Program(clCreateProgramWithSource(context, 1, &kSource, nullptr, &err));
    ASSERT_EQ(CL_SUCCESS, clBuildProgram(program, 0, nullptr, "", nullptr, nullptr));
    for (int d = 0; d < 2; ++d) {
      kernels[d] = Kernel(clCreateKernel(program, "step", &err));
      ASSERT_EQ(CL_SUCCESS, err);
    }
  }
  void TearDown() override {
    if (!devices.empty()) {
      EXPECT_EQ(0u, validation_messages(find_vkcl_platform())) << "Vulkan validation messages";
    }
  }
  // Enqueues step(m, factor, add) over |n| items on device |d|.
  cl_int step(int d, cl_mem m, size_t n, cl_int factor, cl_int add, cl_uint waits = 0, const cl_event* wait = nullptr,
              cl_event* done = nullptr) {
    clSetKernelArg(kernels[d], 0, sizeof m, &m);
    clSetKernelArg(kernels[d], 1, sizeof factor, &factor);
    clSetKernelArg(kernels[d], 2, sizeof add, &add);
    return clEnqueueNDRangeKernel(queues[d], kernels[d], 1, nullptr, &n, nullptr, waits, wait, done);
  }
  std::vector<cl_int> read(int d, cl_mem m, size_t n) {
    std::vector<cl_int> got(n);
    EXPECT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queues[d], m, CL_TRUE, 0, n * 4, got.data(), 0, nullptr, nullptr));
    return got;
  }
  std::vector<cl_device_id> devices;
  Context context;
  Queue queues[2];
  Program program;
  Kernel kernels[2];
};

std::vector<cl_int> iota(size_t n) {
  std::vector<cl_int> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = cl_int(i % 5000) - 2500;
  return v;
}

TEST_F(TwoDevicesOneContext, ContextAndProgramCoverBoth) {
  cl_uint count = 0;
  ASSERT_EQ(CL_SUCCESS, clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof count, &count, nullptr));
  EXPECT_EQ(2u, count);
  ASSERT_EQ(CL_SUCCESS, clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof count, &count, nullptr));
  EXPECT_EQ(2u, count);
  for (cl_device_id d : devices) {
    cl_build_status status = CL_BUILD_NONE;
    ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(program, d, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, nullptr));
    EXPECT_EQ(CL_BUILD_SUCCESS, status);
  }
  // A context of every device of a type has them all; a device listed twice is one.
  cl_int err = CL_SUCCESS;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, cl_context_properties(find_vkcl_platform()), 0};
  Context all(clCreateContextFromType(props, CL_DEVICE_TYPE_ALL, nullptr, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  ASSERT_EQ(CL_SUCCESS, clGetContextInfo(all, CL_CONTEXT_NUM_DEVICES, sizeof count, &count, nullptr));
  cl_uint platform_devices = 0;
  clGetDeviceIDs(find_vkcl_platform(), CL_DEVICE_TYPE_ALL, 0, nullptr, &platform_devices);
  EXPECT_EQ(platform_devices, count);
  cl_device_id twice[] = {devices[1], devices[1]};
  Context one(clCreateContext(nullptr, 2, twice, nullptr, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  ASSERT_EQ(CL_SUCCESS, clGetContextInfo(one, CL_CONTEXT_NUM_DEVICES, sizeof count, &count, nullptr));
  EXPECT_EQ(1u, count);
}

TEST_F(TwoDevicesOneContext, KernelResultsFollowTheBufferFromDeviceToDevice) {
  constexpr size_t n = 1 << 15;
  std::vector<cl_int> want = iota(n);
  cl_int err = CL_SUCCESS;
  Mem m(clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, want.data(), &err));
  ASSERT_EQ(CL_SUCCESS, err);
  // Device 0, then device 1 waiting for its event, then device 0 again, ten times over.
  cl_event last = nullptr;
  for (int round = 0; round < 10; ++round) {
    const int d = round % 2;
    cl_event done = nullptr;
    ASSERT_EQ(CL_SUCCESS, step(d, m, n, 3 + d, round, last ? 1 : 0, last ? &last : nullptr, &done));
    if (last) clReleaseEvent(last);
    last = done;
    for (auto& v : want) v = v * (3 + d) + round;
  }
  ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &last));
  clReleaseEvent(last);
  for (int d = 0; d < 2; ++d) {
    std::vector<cl_int> got = read(d, m, n);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(want[i], got[i]) << "read on device " << d << ", element " << i;
    }
  }
}

TEST_F(TwoDevicesOneContext, DisjointSubBuffersWrittenOnBothAtOnce) {
  constexpr size_t half = 1 << 14;  // elements; 64 KiB, aligned for any device
  std::vector<cl_int> init = iota(2 * half);
  cl_int err = CL_SUCCESS;
  Mem parent(clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 2 * half * 4, init.data(), &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Mem parts[2];
  for (int d = 0; d < 2; ++d) {
    cl_buffer_region region{d * half * 4, half * 4};
    parts[d] = Mem(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
    ASSERT_EQ(CL_SUCCESS, err);
  }
  // Both halves written, each on its device, both flushed before either is waited for.
  for (int d = 0; d < 2; ++d) ASSERT_EQ(CL_SUCCESS, step(d, parts[d], half, 5 + d, 7 * d));
  for (int d = 0; d < 2; ++d) ASSERT_EQ(CL_SUCCESS, clFlush(queues[d]));
  for (int d = 0; d < 2; ++d) ASSERT_EQ(CL_SUCCESS, clFinish(queues[d]));
  for (int reader = 0; reader < 2; ++reader) {
    std::vector<cl_int> got = read(reader, parent, 2 * half);
    for (size_t i = 0; i < 2 * half; ++i) {
      const int d = int(i / half);
      ASSERT_EQ(init[i] * (5 + d) + 7 * d, got[i]) << "read on device " << reader << ", element " << i;
    }
  }
}

TEST_F(TwoDevicesOneContext, CopiesFillsMapsAndMigrations) {
  constexpr size_t n = 4096;
  cl_int err = CL_SUCCESS;
  Mem a(clCreateBuffer(context, CL_MEM_READ_WRITE, n * 4, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Mem b(clCreateBuffer(context, CL_MEM_READ_WRITE, n * 4, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  // Filled on device 1, copied into b on device 0, read on device 1.
  cl_int pattern = 41;
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(queues[1], a, &pattern, 4, 0, n * 4, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queues[1]));
  ASSERT_EQ(CL_SUCCESS, clEnqueueCopyBuffer(queues[0], a, b, 0, 0, n * 4, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queues[0]));
  for (cl_int v : read(1, b, n)) ASSERT_EQ(41, v);
  // Written through a map on device 1, stepped on device 0 after a migration there.
  auto* p = static_cast<cl_int*>(clEnqueueMapBuffer(queues[1], b, CL_TRUE, CL_MAP_WRITE, 0, n * 4, 0, nullptr,
                                                    nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  std::vector<cl_int> want = iota(n);
  std::memcpy(p, want.data(), n * 4);
  ASSERT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(queues[1], b, p, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queues[1]));
  cl_mem both[] = {a.get(), b.get()};
  ASSERT_EQ(CL_SUCCESS, clEnqueueMigrateMemObjects(queues[0], 2, both, 0, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, step(0, b, n, 2, 1));
  ASSERT_EQ(CL_SUCCESS, clFinish(queues[0]));
  for (auto& v : want) v = v * 2 + 1;
  // Read through a map on device 1.
  p = static_cast<cl_int*>(clEnqueueMapBuffer(queues[1], b, CL_TRUE, CL_MAP_READ, 0, n * 4, 0, nullptr, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(want[i], p[i]) << "element " << i;
  }
  ASSERT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(queues[1], b, p, 0, nullptr, nullptr));
  // Contents left undefined: the migration moves nothing, and the next write defines them.
  ASSERT_EQ(CL_SUCCESS, clEnqueueMigrateMemObjects(queues[1], 1, both, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0,
                                                   nullptr, nullptr));
  std::vector<cl_int> fresh = iota(n);
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queues[1], a, CL_TRUE, 0, n * 4, fresh.data(), 0, nullptr, nullptr));
  std::vector<cl_int> got = read(0, a, n);
  EXPECT_EQ(fresh, got);
}

TEST_F(TwoDevicesOneContext, HostMemoryOfTheApplication) {
  constexpr size_t n = 4096;
  // USE_HOST_PTR: both devices use the application's memory (imported on each, or copies).
  alignas(4096) static cl_int host[n];
  std::vector<cl_int> want = iota(n);
  std::memcpy(host, want.data(), sizeof host);
  cl_int err = CL_SUCCESS;
  Mem m(clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, sizeof host, host, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  ASSERT_EQ(CL_SUCCESS, step(1, m, n, 3, 0));
  ASSERT_EQ(CL_SUCCESS, clFinish(queues[1]));
  ASSERT_EQ(CL_SUCCESS, step(0, m, n, 1, 2));
  ASSERT_EQ(CL_SUCCESS, clFinish(queues[0]));
  for (auto& v : want) v = v * 3 + 2;
  auto* p = static_cast<cl_int*>(clEnqueueMapBuffer(queues[1], m, CL_TRUE, CL_MAP_READ, 0, sizeof host, 0, nullptr,
                                                    nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  EXPECT_EQ(static_cast<void*>(host), static_cast<void*>(p));
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(want[i], p[i]) << "element " << i;
  }
  ASSERT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(queues[1], m, p, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queues[1]));
}

// A buffer has a copy only where a command used it: one nearly as large as device 1's
// memory budget, used on device 0 only, leaves room on device 1 for another as large; once
// used on device 1 too, it has its copy there.
TEST_F(TwoDevicesOneContext, CopiesAreMadeWhereUsed) {
  cl_ulong global = 0, most = 0;
  clGetDeviceInfo(devices[1], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, nullptr);
  clGetDeviceInfo(devices[1], CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof most, &most, nullptr);
  if (global > (cl_ulong(1) << 30)) GTEST_SKIP() << "needs a small VKCL_MEMORY_BUDGET (ctest's two_devices set)";
  const size_t size = size_t(std::min<cl_ulong>(most, global * 6 / 10)) / 4 * 4;
  cl_int err = CL_SUCCESS;
  Mem big(clCreateBuffer(context, CL_MEM_READ_WRITE, size, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  const cl_int pattern = 0x5a5a;
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(queues[0], big, &pattern, 4, 0, size, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queues[0]));
  {
    Context alone(clCreateContext(nullptr, 1, &devices[1], nullptr, nullptr, &err));
    ASSERT_EQ(CL_SUCCESS, err);
    Mem other(clCreateBuffer(alone, CL_MEM_READ_WRITE, size, nullptr, &err));
    EXPECT_EQ(CL_SUCCESS, err) << "device 1 holds a copy of a buffer it never used";
  }
  std::vector<cl_int> tail(1024);
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queues[1], big, CL_TRUE, size - 4096, 4096, tail.data(), 0, nullptr, nullptr));
  for (cl_int v : tail) ASSERT_EQ(pattern, v);
}

// The same for images; and an image made from another (sRGB over RGBA) read on device 1
// after the other was filled on device 0.
TEST_F(TwoDevicesOneContext, ImagesAreMadeWhereUsed) {
  cl_bool images = CL_FALSE;
  clGetDeviceInfo(devices[1], CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
  cl_ulong global = 0;
  clGetDeviceInfo(devices[1], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, nullptr);
  if (!images) GTEST_SKIP() << "no images";
  if (global > (cl_ulong(1) << 30)) GTEST_SKIP() << "needs a small VKCL_MEMORY_BUDGET (ctest's two_devices set)";
  // RGBA8 texels: a square image of about 60% of the budget.
  size_t side = 1024;
  while ((side + 1024) * (side + 1024) * 4 < global * 6 / 10) side += 1024;
  cl_image_format rgba{CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = desc.image_height = side;
  cl_int err = CL_SUCCESS;
  Mem big(clCreateImage(context, CL_MEM_READ_WRITE, &rgba, &desc, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  // (Commands on a corner only: a whole-image command needs as much again of scratch memory.)
  const size_t corner[3] = {side - 4, side - 4, 0}, four[3] = {4, 4, 1};
  const cl_float4 color{{1.0f, 0.5f, 0.0f, 1.0f}};
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillImage(queues[0], big, &color, corner, four, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queues[0]));
  {
    Context alone(clCreateContext(nullptr, 1, &devices[1], nullptr, nullptr, &err));
    ASSERT_EQ(CL_SUCCESS, err);
    Mem other(clCreateImage(alone, CL_MEM_READ_WRITE, &rgba, &desc, nullptr, &err));
    EXPECT_EQ(CL_SUCCESS, err) << "device 1 holds a copy of an image it never used";
  }
  // Read on device 1: the image moves there (a block of rows at a time, so that it fits).
  std::vector<cl_uchar> corner_texels(4 * 4 * 4);
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queues[1], big, CL_TRUE, corner, four, 0, 0, corner_texels.data(), 0,
                                           nullptr, nullptr));
  for (size_t i = 0; i < corner_texels.size(); i += 4) {
    ASSERT_EQ(255, corner_texels[i]) << i;
    ASSERT_EQ(128, corner_texels[i + 1]) << i;
  }
  big = Mem();
  // Through an sRGB image made from a small one, on device 1: the bytes device 0 filled in.
  desc.image_width = desc.image_height = 64;
  Mem small(clCreateImage(context, CL_MEM_READ_WRITE, &rgba, &desc, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  const size_t origin[3] = {0, 0, 0}, region[3] = {64, 64, 1};
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillImage(queues[0], small, &color, origin, region, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queues[0]));
  cl_image_format srgb{CL_sRGBA, CL_UNORM_INT8};
  cl_image_desc view_desc = desc;
  view_desc.mem_object = small;
  Mem view(clCreateImage(context, CL_MEM_READ_ONLY, &srgb, &view_desc, nullptr, &err));
  if (err == CL_IMAGE_FORMAT_NOT_SUPPORTED) GTEST_SKIP() << "no sRGB images";
  ASSERT_EQ(CL_SUCCESS, err);
  const size_t at[3] = {60, 60, 0};
  std::vector<cl_uchar> got(4 * 4 * 4);
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queues[1], view, CL_TRUE, at, four, 0, 0, got.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < got.size(); i += 4) {
    ASSERT_EQ(255, got[i]) << i;
    ASSERT_EQ(128, got[i + 1]) << i;
    ASSERT_EQ(0, got[i + 2]) << i;
  }
}

// cl_ext_buffer_device_address across devices: one address per device; a kernel given
// device 1's address sees what a kernel on device 0 wrote through device 0's.
TEST_F(TwoDevicesOneContext, DeviceAddressesPerDevice) {
  using SetDevicePointer = cl_int(CL_API_CALL*)(cl_kernel, cl_uint, cl_ulong);
  auto set_pointer = reinterpret_cast<SetDevicePointer>(
      clGetExtensionFunctionAddressForPlatform(find_vkcl_platform(), "clSetKernelArgDevicePointerEXT"));
  ASSERT_NE(nullptr, set_pointer);
  constexpr size_t n = 2048;
  const cl_mem_properties props[] = {0x5000 /* CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT */, CL_TRUE, 0};
  cl_int err = CL_SUCCESS;
  Mem m(clCreateBufferWithProperties(context, props, CL_MEM_READ_WRITE, n * 4, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  cl_ulong addresses[2] = {};
  size_t size = 0;
  ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(m, 0x5001 /* CL_MEM_DEVICE_ADDRESS_EXT */, sizeof addresses, addresses, &size));
  ASSERT_EQ(sizeof addresses, size);
  std::vector<cl_int> want = iota(n);
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queues[0], m, CL_TRUE, 0, n * 4, want.data(), 0, nullptr, nullptr));
  for (int d : {0, 1}) {
    ASSERT_EQ(CL_SUCCESS, set_pointer(kernels[d], 0, addresses[d]));
    cl_int factor = 2 + d, add = 5;
    clSetKernelArg(kernels[d], 1, sizeof factor, &factor);
    clSetKernelArg(kernels[d], 2, sizeof add, &add);
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queues[d], kernels[d], 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    ASSERT_EQ(CL_SUCCESS, clFinish(queues[d]));
    for (auto& v : want) v = v * factor + add;
  }
  EXPECT_EQ(want, read(0, m, n));
}

TEST_F(TwoDevicesOneContext, SvmHasOneAddressOnBoth) {
  cl_device_svm_capabilities caps[2] = {};
  for (int d = 0; d < 2; ++d) clGetDeviceInfo(devices[d], CL_DEVICE_SVM_CAPABILITIES, sizeof caps[d], &caps[d], nullptr);
  if (!(caps[0] & caps[1] & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)) GTEST_SKIP() << "no SVM";
  constexpr size_t n = 4096;
  auto* p = static_cast<cl_int*>(clSVMAlloc(context, CL_MEM_READ_WRITE, n * 4, 0));
  ASSERT_NE(nullptr, p) << "an SVM allocation both devices see at the host's address";
  ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMap(queues[0], CL_TRUE, CL_MAP_WRITE, p, n * 4, 0, nullptr, nullptr));
  std::vector<cl_int> want = iota(n);
  std::memcpy(p, want.data(), n * 4);
  ASSERT_EQ(CL_SUCCESS, clEnqueueSVMUnmap(queues[0], p, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queues[0]));
  // The same pointer stepped on device 1, then on device 0, and as a buffer over it on 1.
  for (int d : {1, 0}) {
    ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(kernels[d], 0, p));
    cl_int factor = 2 + d, add = d;
    clSetKernelArg(kernels[d], 1, sizeof factor, &factor);
    clSetKernelArg(kernels[d], 2, sizeof add, &add);
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queues[d], kernels[d], 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    ASSERT_EQ(CL_SUCCESS, clFinish(queues[d]));
    for (auto& v : want) v = v * factor + add;
  }
  cl_int err = CL_SUCCESS;
  Mem over(clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n * 4, p, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  ASSERT_EQ(CL_SUCCESS, step(1, over, n, 1, 7));
  ASSERT_EQ(CL_SUCCESS, clFinish(queues[1]));
  for (auto& v : want) v += 7;
  ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMap(queues[1], CL_TRUE, CL_MAP_READ, p, n * 4, 0, nullptr, nullptr));
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(want[i], p[i]) << "element " << i;
  }
  ASSERT_EQ(CL_SUCCESS, clEnqueueSVMUnmap(queues[1], p, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queues[1]));
  over = Mem();
  clSVMFree(context, p);
}

// out = in + add per channel, texel by texel, from an image to an image.
const char* kImageSource = R"(
  __kernel void add(__read_only image2d_t in, __write_only image2d_t out, uint add) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    write_imageui(out, p, read_imageui(in, p) + add);
  }
  __kernel void from_buffer_image(__read_only image1d_buffer_t in, __global uint4* out) {
    int i = get_global_id(0);
    out[i] = read_imageui(in, i) * 2u;
  })";

TEST_F(TwoDevicesOneContext, ImagesFollowTheirCommands) {
  cl_bool images = CL_FALSE;
  clGetDeviceInfo(devices[0], CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
  if (!images) GTEST_SKIP() << "no images";
  constexpr size_t w = 64, h = 32, texels = w * h;
  cl_int err = CL_SUCCESS;
  Program p(clCreateProgramWithSource(context, 1, &kImageSource, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(p, 0, nullptr, "", nullptr, nullptr));
  Kernel add[2] = {Kernel(clCreateKernel(p, "add", &err)), Kernel(clCreateKernel(p, "add", &err))};
  ASSERT_EQ(CL_SUCCESS, err);
  cl_image_format format{CL_RGBA, CL_UNSIGNED_INT32};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = w;
  desc.image_height = h;
  std::vector<cl_uint> want(texels * 4);
  for (size_t i = 0; i < want.size(); ++i) want[i] = cl_uint(i * 7 + 3);
  Mem a(clCreateImage(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &format, &desc, want.data(), &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Mem b(clCreateImage(context, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  // a -> b on device 1, b -> a on device 0, a -> b on device 1 again: each step reads what
  // the other device wrote.
  const size_t global[2] = {w, h};
  cl_mem from[3] = {a, b, a}, to[3] = {b, a, b};
  for (int round = 0; round < 3; ++round) {
    const int d = round % 2 == 0 ? 1 : 0;
    cl_uint n = cl_uint(round + 1);
    clSetKernelArg(add[d], 0, sizeof(cl_mem), &from[round]);
    clSetKernelArg(add[d], 1, sizeof(cl_mem), &to[round]);
    clSetKernelArg(add[d], 2, sizeof n, &n);
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queues[d], add[d], 2, nullptr, global, nullptr, 0, nullptr, nullptr));
    ASSERT_EQ(CL_SUCCESS, clFinish(queues[d]));
    for (auto& v : want) v += n;
  }
  // b was last written on device 1: read on device 0, and copied into a buffer there.
  const size_t origin[3] = {0, 0, 0}, region[3] = {w, h, 1};
  std::vector<cl_uint> got(texels * 4);
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queues[0], b, CL_TRUE, origin, region, 0, 0, got.data(), 0, nullptr, nullptr));
  EXPECT_EQ(want, got);
  Mem copy(clCreateBuffer(context, CL_MEM_READ_WRITE, texels * 16, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  ASSERT_EQ(CL_SUCCESS, clEnqueueCopyImageToBuffer(queues[0], b, copy, origin, region, 0, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queues[0]));
  std::vector<cl_uint> copied(texels * 4);
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queues[1], copy, CL_TRUE, 0, texels * 16, copied.data(), 0, nullptr, nullptr));
  EXPECT_EQ(want, copied);
  // Filled on device 0, read on device 1.
  cl_uint4 color{{9, 8, 7, 6}};
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillImage(queues[0], a, &color, origin, region, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queues[0]));
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queues[1], a, CL_TRUE, origin, region, 0, 0, got.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < texels; ++i) {
    ASSERT_EQ(9u, got[i * 4]) << "texel " << i;
    ASSERT_EQ(6u, got[i * 4 + 3]) << "texel " << i;
  }
}

TEST_F(TwoDevicesOneContext, BufferImageSeesItsBuffersCopy) {
  cl_bool images = CL_FALSE;
  clGetDeviceInfo(devices[0], CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
  if (!images) GTEST_SKIP() << "no images";
  constexpr size_t n = 1024;
  cl_int err = CL_SUCCESS;
  Program p(clCreateProgramWithSource(context, 1, &kImageSource, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(p, 0, nullptr, "", nullptr, nullptr));
  Kernel k(clCreateKernel(p, "from_buffer_image", &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Mem buffer(clCreateBuffer(context, CL_MEM_READ_WRITE, n * 16, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  cl_image_format format{CL_RGBA, CL_UNSIGNED_INT32};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
  desc.image_width = n;
  desc.mem_object = buffer;
  Mem image(clCreateImage(context, CL_MEM_READ_ONLY, &format, &desc, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Mem out(clCreateBuffer(context, CL_MEM_READ_WRITE, n * 16, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  // The buffer written on device 0 (a kernel there), the image read on device 1.
  cl_uint4 start{{1, 2, 3, 4}};
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(queues[0], buffer, &start, 16, 0, n * 16, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, step(0, buffer, n * 4, 3, 1));
  ASSERT_EQ(CL_SUCCESS, clFinish(queues[0]));
  cl_mem in_arg = image, out_arg = out;
  clSetKernelArg(k, 0, sizeof in_arg, &in_arg);
  clSetKernelArg(k, 1, sizeof out_arg, &out_arg);
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queues[1], k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  std::vector<cl_uint> got(n * 4);
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queues[1], out, CL_TRUE, 0, n * 16, got.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < n * 4; ++i) {
    ASSERT_EQ((cl_uint(i % 4 + 1) * 3 + 1) * 2, got[i]) << "element " << i;
  }
}

}  // namespace
}  // namespace vkcl::test
