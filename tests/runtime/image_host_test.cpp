// The host side of images (clCreateImage*, clGetSupportedImageFormats, clGetImageInfo and the
// image commands) through the ICD loader. Every result is compared with a CPU
// reference written here from the spec's rules: host pitches, regions, copies, the fill
// colour conversions.
// clCreateImage2D/3D are deprecated (OpenCL 1.1) but still entry points to test.
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

struct Shape {
  cl_mem_object_type type;
  size_t width, height, depth, array_size;
  // Extent in API coordinates: rows are a 1D array's layers, slices a 2D array's.
  size_t rows() const {
    if (type == CL_MEM_OBJECT_IMAGE1D_ARRAY) return array_size;
    return type == CL_MEM_OBJECT_IMAGE1D ? 1 : height;
  }
  size_t slices() const {
    if (type == CL_MEM_OBJECT_IMAGE2D_ARRAY) return array_size;
    return type == CL_MEM_OBJECT_IMAGE3D ? depth : 1;
  }
  cl_image_desc desc(size_t row_pitch = 0, size_t slice_pitch = 0) const {
    cl_image_desc d{};
    d.image_type = type;
    d.image_width = width;
    d.image_height = height;
    d.image_depth = depth;
    d.image_array_size = array_size;
    d.image_row_pitch = row_pitch;
    d.image_slice_pitch = slice_pitch;
    return d;
  }
};

const Shape kShapes[] = {{CL_MEM_OBJECT_IMAGE1D, 37, 0, 0, 0},
                         {CL_MEM_OBJECT_IMAGE1D_ARRAY, 29, 0, 0, 5},
                         {CL_MEM_OBJECT_IMAGE2D, 31, 17, 0, 0},
                         {CL_MEM_OBJECT_IMAGE2D_ARRAY, 23, 11, 0, 4},
                         {CL_MEM_OBJECT_IMAGE3D, 13, 9, 6, 0}};

// Byte offset of texel (x, y, z) of host memory laid out as the API says: rows row_pitch
// apart and slices slice_pitch apart, except that a 1D array's rows (its layers) are
// slice_pitch apart.
size_t host_offset(const Shape& s, size_t elem, size_t x, size_t y, size_t z, size_t row_pitch,
                   size_t slice_pitch) {
  if (s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY) return x * elem + y * slice_pitch;
  return x * elem + y * row_pitch + z * slice_pitch;
}

class ImageHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    platform_ = find_vkcl_platform();
    ASSERT_NE(platform_, nullptr);
    ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(platform_, CL_DEVICE_TYPE_DEFAULT, 1, &device_, nullptr));
    cl_int err = CL_SUCCESS;
    context_ = Context(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err));
    ASSERT_EQ(CL_SUCCESS, err);
    queue_ = Queue(clCreateCommandQueueWithProperties(context_, device_, nullptr, &err));
    ASSERT_EQ(CL_SUCCESS, err);
  }
  void TearDown() override {
    if (queue_.get()) clFinish(queue_);
    if (platform_) {
      EXPECT_EQ(validation_messages(platform_), 0u) << "Vulkan validation messages";
    }
  }

  Mem image(const Shape& s, cl_image_format format, cl_mem_flags flags = CL_MEM_READ_WRITE,
            void* host = nullptr, size_t row_pitch = 0, size_t slice_pitch = 0) {
    cl_image_desc d = s.desc(row_pitch, slice_pitch);
    cl_int err = CL_SUCCESS;
    Mem m(clCreateImage(context_, flags, &format, &d, host, &err));
    EXPECT_EQ(CL_SUCCESS, err) << "clCreateImage type " << std::hex << s.type;
    return m;
  }
  cl_int create_error(cl_mem_flags flags, const cl_image_format* format, const cl_image_desc* desc,
                      void* host = nullptr) {
    cl_int err = CL_SUCCESS;
    Mem m(clCreateImage(context_, flags, format, desc, host, &err));
    return err;
  }
  std::vector<uint8_t> random_bytes(size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = uint8_t(rng_());
    return v;
  }
  std::vector<cl_image_format> formats(cl_mem_flags flags, cl_mem_object_type type) {
    cl_uint n = 0;
    EXPECT_EQ(CL_SUCCESS, clGetSupportedImageFormats(context_, flags, type, 0, nullptr, &n));
    std::vector<cl_image_format> v(n);
    if (n) {
      EXPECT_EQ(CL_SUCCESS, clGetSupportedImageFormats(context_, flags, type, n, v.data(), nullptr));
    }
    return v;
  }

  std::mt19937 rng_{2024};
  cl_platform_id platform_ = nullptr;
  cl_device_id device_ = nullptr;
  Context context_;
  Queue queue_;
};

bool has_format(const std::vector<cl_image_format>& list, cl_channel_order o, cl_channel_type t) {
  for (const auto& f : list)
    if (f.image_channel_order == o && f.image_channel_data_type == t) return true;
  return false;
}

// lavapipe backs the minimum formats; VKCL_WITHOUT_FEATURES=images takes images away.
TEST_F(ImageHostTest, ImagesReportedUnlessHidden) {
  {
    cl_bool support = CL_FALSE;
    ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_IMAGE_SUPPORT, sizeof(support), &support, nullptr));
    EXPECT_EQ(CL_TRUE, support);
  }
  WithoutImages hidden;
  cl_bool support = CL_TRUE;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_IMAGE_SUPPORT, sizeof(support), &support, nullptr));
  EXPECT_EQ(CL_FALSE, support);
  size_t width = 1;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof(width), &width, nullptr));
  EXPECT_EQ(0u, width);
  cl_uint n = 99;
  EXPECT_EQ(CL_SUCCESS, clGetSupportedImageFormats(context_, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 0, nullptr, &n));
  EXPECT_EQ(0u, n);
  // CL_INVALID_OPERATION if there are no devices in context that support images.
  cl_image_format f{CL_RGBA, CL_UNORM_INT8};
  cl_image_desc d = kShapes[2].desc();
  EXPECT_EQ(CL_INVALID_OPERATION, create_error(CL_MEM_READ_WRITE, &f, &d));
  cl_int err = CL_SUCCESS;
  Mem m(clCreateImage2D(context_, CL_MEM_READ_WRITE, &f, 4, 4, 0, nullptr, &err));
  EXPECT_EQ(CL_INVALID_OPERATION, err);
}

TEST_F(ImageHostTest, DeviceReportsLimitsAndTheMinimumFormats) {
  cl_bool support = CL_FALSE;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_IMAGE_SUPPORT, sizeof(support), &support, nullptr));
  EXPECT_EQ(CL_TRUE, support);
  // The full profile's minimums for OpenCL 3.0 devices with images.
  const std::pair<cl_device_info, size_t> minimums[] = {
      {CL_DEVICE_IMAGE2D_MAX_WIDTH, 16384}, {CL_DEVICE_IMAGE2D_MAX_HEIGHT, 16384},
      {CL_DEVICE_IMAGE3D_MAX_WIDTH, 2048},  {CL_DEVICE_IMAGE3D_MAX_HEIGHT, 2048},
      {CL_DEVICE_IMAGE3D_MAX_DEPTH, 2048},  {CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, 65536},
      {CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, 2048}};
  for (auto [param, least] : minimums) {
    size_t v = 0;
    ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, param, sizeof(v), &v, nullptr));
    EXPECT_GE(v, least) << std::hex << param;
  }
  const std::pair<cl_device_info, cl_uint> arg_minimums[] = {
      {CL_DEVICE_MAX_READ_IMAGE_ARGS, 128}, {CL_DEVICE_MAX_WRITE_IMAGE_ARGS, 64}, {CL_DEVICE_MAX_SAMPLERS, 16}};
  for (auto [param, least] : arg_minimums) {
    cl_uint v = 0;
    ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, param, sizeof(v), &v, nullptr));
    EXPECT_GE(v, least) << std::hex << param;
  }
  // OpenCL 3.0's minimum list for reading or writing in a kernel, for every image type but 1D
  // buffers.
  const cl_channel_type rgba[] = {CL_UNORM_INT8,   CL_UNORM_INT16,    CL_SIGNED_INT8,
                                  CL_SIGNED_INT16, CL_SIGNED_INT32,   CL_UNSIGNED_INT8,
                                  CL_UNSIGNED_INT16, CL_UNSIGNED_INT32, CL_HALF_FLOAT, CL_FLOAT};
  for (cl_mem_flags flags : {CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY})
    for (const Shape& s : kShapes) {
      auto list = formats(flags, s.type);
      for (cl_channel_type t : rgba) EXPECT_TRUE(has_format(list, CL_RGBA, t)) << std::hex << t << " " << s.type;
      EXPECT_TRUE(has_format(list, CL_BGRA, CL_UNORM_INT8)) << std::hex << s.type;
      // Formats the spec does not allow are never reported.
      EXPECT_FALSE(has_format(list, CL_RGB, CL_UNORM_INT8));
    }
  // Written formats need a storage image the format allows; CL_A needs a swizzle, which only
  // reads can have.
  EXPECT_FALSE(has_format(formats(CL_MEM_WRITE_ONLY, CL_MEM_OBJECT_IMAGE2D), CL_A, CL_UNORM_INT8));
  // The list's count, and num_entries bounds what is written.
  cl_uint n = 0;
  ASSERT_EQ(CL_SUCCESS, clGetSupportedImageFormats(context_, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 0, nullptr, &n));
  ASSERT_GE(n, 11u);
  std::vector<cl_image_format> two(3, cl_image_format{0xdead, 0xbeef});
  ASSERT_EQ(CL_SUCCESS, clGetSupportedImageFormats(context_, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 2, two.data(), nullptr));
  EXPECT_EQ(0xdeadu, two[2].image_channel_order);
  // CL_INVALID_VALUE if flags or image_type are not valid, or if num_entries is 0 and
  // image_formats is not NULL.
  EXPECT_EQ(CL_INVALID_VALUE, clGetSupportedImageFormats(context_, CL_MEM_READ_ONLY, CL_MEM_OBJECT_BUFFER, 0, nullptr, &n));
  EXPECT_EQ(CL_INVALID_VALUE, clGetSupportedImageFormats(context_, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, CL_MEM_OBJECT_IMAGE2D, 0, nullptr, &n));
  EXPECT_EQ(CL_INVALID_VALUE, clGetSupportedImageFormats(context_, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 0, two.data(), &n));
  EXPECT_EQ(CL_INVALID_CONTEXT, clGetSupportedImageFormats(nullptr, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 0, nullptr, &n));
  // What this device has (for the record).
  for (cl_mem_flags flags : {CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_KERNEL_READ_AND_WRITE})
    std::printf("flags %#llx: %zu 2D formats\n", (unsigned long long)flags, formats(flags, CL_MEM_OBJECT_IMAGE2D).size());
}

// Writes a whole image from host memory with padded pitches, then reads sub-regions back
// with other pitches, for every image type and three element sizes.
TEST_F(ImageHostTest, WriteAndReadRegionsWithPitches) {
  const cl_image_format kFormats[] = {{CL_R, CL_UNORM_INT8}, {CL_RGBA, CL_UNSIGNED_INT8}, {CL_RGBA, CL_FLOAT}};
  const size_t kSizes[] = {1, 4, 16};
  for (int fi = 0; fi < 3; ++fi)
    for (const Shape& s : kShapes) {
      SCOPED_TRACE(testing::Message() << "format " << fi << " type " << std::hex << s.type);
      const size_t elem = kSizes[fi];
      const size_t W = s.width, H = s.rows(), D = s.slices();
      Mem img = image(s, kFormats[fi]);
      ASSERT_NE(img.get(), nullptr);
      // The reference: tightly packed, API order.
      std::vector<uint8_t> ref = random_bytes(W * H * D * elem);
      const size_t row_pitch = W * elem + 5, slice_pitch = row_pitch * H + 3;
      const bool has_slice = s.type != CL_MEM_OBJECT_IMAGE1D && s.type != CL_MEM_OBJECT_IMAGE2D;
      const size_t wp = row_pitch, ws = has_slice ? slice_pitch : 0;
      std::vector<uint8_t> host((D + 1) * slice_pitch + row_pitch * (H + 1), 0);
      for (size_t z = 0; z < D; ++z)
        for (size_t y = 0; y < H; ++y)
          std::memcpy(&host[host_offset(s, elem, 0, y, z, wp, s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? row_pitch : ws)],
                      &ref[((z * H + y) * W) * elem], W * elem);
      const size_t origin0[3] = {0, 0, 0}, whole[3] = {W, H, D};
      ASSERT_EQ(CL_SUCCESS, clEnqueueWriteImage(queue_, img, CL_TRUE, origin0, whole, wp,
                                                s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? row_pitch : ws,
                                                host.data(), 0, nullptr, nullptr));
      // A sub-region read into poisoned memory with pitches of its own.
      const size_t o[3] = {3, H > 1 ? size_t(1) : size_t(0), D > 1 ? size_t(2) : size_t(0)};
      const size_t r[3] = {W - 5, H > 1 ? H - 2 : 1, D > 1 ? D - 3 : 1};
      const size_t rp = r[0] * elem + 7, sp = has_slice ? rp * (s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : r[1]) + 9 : 0;
      std::vector<uint8_t> out(sp * (r[2] + 1) + rp * (r[1] + 1) + 64, 0xAB);
      ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, img, CL_TRUE, o, r, rp, sp, out.data(), 0, nullptr, nullptr));
      std::vector<uint8_t> want(out.size(), 0xAB);
      for (size_t z = 0; z < r[2]; ++z)
        for (size_t y = 0; y < r[1]; ++y)
          std::memcpy(&want[host_offset(s, elem, 0, y, z, rp, sp)],
                      &ref[(((o[2] + z) * H + o[1] + y) * W + o[0]) * elem], r[0] * elem);
      ASSERT_EQ(want, out);
      // Tightly packed (pitches 0) with a non-blocking read.
      std::vector<uint8_t> tight(W * H * D * elem, 0xAB);
      ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, img, CL_FALSE, origin0, whole, 0, 0, tight.data(), 0, nullptr, nullptr));
      ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
      ASSERT_EQ(ref, tight);
    }
}

TEST_F(ImageHostTest, CreateWithHostMemory) {
  const Shape s = kShapes[3];  // 2D array
  const size_t elem = 4, W = s.width, H = s.rows(), D = s.slices();
  const size_t row_pitch = W * elem + 12, slice_pitch = row_pitch * (H + 1);
  std::vector<uint8_t> host = random_bytes(slice_pitch * D);
  cl_image_format f{CL_RGBA, CL_UNORM_INT8};
  std::vector<uint8_t> ref(W * H * D * elem);
  for (size_t z = 0; z < D; ++z)
    for (size_t y = 0; y < H; ++y)
      std::memcpy(&ref[((z * H + y) * W) * elem], &host[z * slice_pitch + y * row_pitch], W * elem);
  const size_t origin0[3] = {0, 0, 0}, whole[3] = {W, H, D};
  {
    Mem img = image(s, f, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, host.data(), row_pitch, slice_pitch);
    std::vector<uint8_t> out(ref.size());
    ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, img, CL_TRUE, origin0, whole, 0, 0, out.data(), 0, nullptr, nullptr));
    EXPECT_EQ(ref, out);
    size_t pitch = 0;
    ASSERT_EQ(CL_SUCCESS, clGetImageInfo(img, CL_IMAGE_ROW_PITCH, sizeof(pitch), &pitch, nullptr));
    EXPECT_EQ(row_pitch, pitch);
    void* p = &pitch;
    ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(img, CL_MEM_HOST_PTR, sizeof(p), &p, nullptr));
    EXPECT_EQ(nullptr, p);  // only CL_MEM_USE_HOST_PTR keeps it
  }
  // CL_MEM_USE_HOST_PTR: the image starts with the memory's texels, and a map returns a
  // pointer into that memory, with its pitches, holding the image's latest texels.
  Mem img = image(s, f, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, host.data(), row_pitch, slice_pitch);
  std::vector<uint8_t> out(ref.size());
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, img, CL_TRUE, origin0, whole, 0, 0, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(ref, out);
  const size_t o[3] = {2, 3, 1}, r[3] = {5, 4, 2};
  std::vector<uint8_t> fresh = random_bytes(r[0] * r[1] * r[2] * elem);
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteImage(queue_, img, CL_TRUE, o, r, 0, 0, fresh.data(), 0, nullptr, nullptr));
  size_t rp = 0, sp = 0;
  cl_int err = CL_SUCCESS;
  auto* mapped = static_cast<uint8_t*>(clEnqueueMapImage(queue_, img, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, o, r,
                                                         &rp, &sp, 0, nullptr, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  EXPECT_EQ(host.data() + o[2] * slice_pitch + o[1] * row_pitch + o[0] * elem, mapped);
  EXPECT_EQ(row_pitch, rp);
  EXPECT_EQ(slice_pitch, sp);
  for (size_t z = 0; z < r[2]; ++z)
    for (size_t y = 0; y < r[1]; ++y)
      ASSERT_EQ(0, std::memcmp(mapped + z * sp + y * rp, &fresh[((z * r[1] + y) * r[0]) * elem], r[0] * elem));
  mapped[0] ^= 0xff;  // written through the mapping, seen after the unmap
  ASSERT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(queue_, img, mapped, 0, nullptr, nullptr));
  uint8_t texel[4];
  const size_t one[3] = {1, 1, 1};
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, img, CL_TRUE, o, one, 0, 0, texel, 0, nullptr, nullptr));
  EXPECT_EQ(uint8_t(fresh[0] ^ 0xff), texel[0]);
  EXPECT_EQ(0, std::memcmp(texel + 1, &fresh[1], 3));
}

TEST_F(ImageHostTest, MapImageReturnsPitchesAndWritesBack) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(testing::Message() << "type " << std::hex << s.type);
    const size_t elem = 8, W = s.width, H = s.rows(), D = s.slices();
    Mem img = image(s, {CL_RGBA, CL_HALF_FLOAT});
    std::vector<uint8_t> ref = random_bytes(W * H * D * elem);
    const size_t origin0[3] = {0, 0, 0}, whole[3] = {W, H, D};
    ASSERT_EQ(CL_SUCCESS, clEnqueueWriteImage(queue_, img, CL_TRUE, origin0, whole, 0, 0, ref.data(), 0, nullptr, nullptr));
    const size_t o[3] = {1, H > 1 ? size_t(1) : size_t(0), D > 1 ? size_t(1) : size_t(0)}, r[3] = {W - 2, H > 1 ? H - 1 : 1, D > 1 ? D - 1 : 1};
    size_t rp = 0, sp = 12345;
    cl_int err = CL_SUCCESS;
    auto* p = static_cast<uint8_t*>(clEnqueueMapImage(queue_, img, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, o, r, &rp, &sp, 0,
                                                      nullptr, nullptr, &err));
    ASSERT_EQ(CL_SUCCESS, err);
    ASSERT_GE(rp, r[0] * elem);
    if (s.type == CL_MEM_OBJECT_IMAGE1D || s.type == CL_MEM_OBJECT_IMAGE2D) {
      EXPECT_EQ(0u, sp);
    }
    for (size_t z = 0; z < r[2]; ++z)
      for (size_t y = 0; y < r[1]; ++y) {
        uint8_t* row = p + host_offset(s, elem, 0, y, z, rp, sp);
        ASSERT_EQ(0, std::memcmp(row, &ref[(((o[2] + z) * H + o[1] + y) * W + o[0]) * elem], r[0] * elem));
        for (size_t b = 0; b < r[0] * elem; ++b) row[b] = uint8_t(~row[b]);
        for (size_t b = 0; b < r[0] * elem; ++b) ref[(((o[2] + z) * H + o[1] + y) * W + o[0]) * elem + b] ^= 0xff;
      }
    cl_uint count = 0;
    ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(img, CL_MEM_MAP_COUNT, sizeof(count), &count, nullptr));
    EXPECT_EQ(1u, count);
    ASSERT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(queue_, img, p, 0, nullptr, nullptr));
    std::vector<uint8_t> out(ref.size());
    ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, img, CL_TRUE, origin0, whole, 0, 0, out.data(), 0, nullptr, nullptr));
    EXPECT_EQ(ref, out);
  }
}

// Copies between images of every type pair the spec allows (the same format), through the
// CPU's view of both.
TEST_F(ImageHostTest, CopyImageBetweenTypes) {
  const cl_image_format f{CL_RGBA, CL_UNSIGNED_INT16};
  const size_t elem = 8;
  for (const Shape& a : kShapes)
    for (const Shape& b : kShapes) {
      SCOPED_TRACE(testing::Message() << std::hex << a.type << " -> " << b.type);
      Mem src = image(a, f), dst = image(b, f);
      std::vector<uint8_t> sref = random_bytes(a.width * a.rows() * a.slices() * elem);
      std::vector<uint8_t> dref = random_bytes(b.width * b.rows() * b.slices() * elem);
      const size_t zero[3] = {0, 0, 0};
      const size_t swhole[3] = {a.width, a.rows(), a.slices()}, dwhole[3] = {b.width, b.rows(), b.slices()};
      ASSERT_EQ(CL_SUCCESS, clEnqueueWriteImage(queue_, src, CL_FALSE, zero, swhole, 0, 0, sref.data(), 0, nullptr, nullptr));
      ASSERT_EQ(CL_SUCCESS, clEnqueueWriteImage(queue_, dst, CL_FALSE, zero, dwhole, 0, 0, dref.data(), 0, nullptr, nullptr));
      // The largest region both hold, less a border, at different origins.
      size_t region[3] = {std::min(a.width, b.width) - 3, std::min(a.rows(), b.rows()), std::min(a.slices(), b.slices())};
      if (region[1] > 2) region[1] -= 1;
      if (region[2] > 2) region[2] -= 1;
      const size_t so[3] = {2, a.rows() - region[1], a.slices() - region[2]};
      const size_t dor[3] = {1, 0, b.slices() > region[2] ? size_t(1) : size_t(0)};
      ASSERT_EQ(CL_SUCCESS, clEnqueueCopyImage(queue_, src, dst, so, dor, region, 0, nullptr, nullptr));
      for (size_t z = 0; z < region[2]; ++z)
        for (size_t y = 0; y < region[1]; ++y)
          std::memcpy(&dref[(((dor[2] + z) * b.rows() + dor[1] + y) * b.width + dor[0]) * elem],
                      &sref[(((so[2] + z) * a.rows() + so[1] + y) * a.width + so[0]) * elem], region[0] * elem);
      std::vector<uint8_t> out(dref.size());
      ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, dst, CL_TRUE, zero, dwhole, 0, 0, out.data(), 0, nullptr, nullptr));
      ASSERT_EQ(dref, out);
    }
}

TEST_F(ImageHostTest, CopyBetweenImagesAndBuffers) {
  const cl_image_format f{CL_RGBA, CL_UNORM_INT8};
  const size_t elem = 4;
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(testing::Message() << "type " << std::hex << s.type);
    const size_t W = s.width, H = s.rows(), D = s.slices();
    Mem img = image(s, f);
    std::vector<uint8_t> ref = random_bytes(W * H * D * elem);
    const size_t zero[3] = {0, 0, 0}, whole[3] = {W, H, D};
    ASSERT_EQ(CL_SUCCESS, clEnqueueWriteImage(queue_, img, CL_TRUE, zero, whole, 0, 0, ref.data(), 0, nullptr, nullptr));
    const size_t o[3] = {1, H > 1 ? size_t(1) : size_t(0), D > 1 ? size_t(1) : size_t(0)}, r[3] = {W - 3, H > 1 ? H - 1 : 1, D > 1 ? D - 1 : 1};
    const size_t bytes = r[0] * r[1] * r[2] * elem;
    // Offsets that are and are not multiples of the element size.
    for (size_t offset : {size_t(0), size_t(8), size_t(3)}) {
      std::vector<uint8_t> poison(bytes + 16, 0xAB);
      cl_int err = CL_SUCCESS;
      Mem buf(clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, poison.size(), poison.data(), &err));
      ASSERT_EQ(CL_SUCCESS, err);
      ASSERT_EQ(CL_SUCCESS, clEnqueueCopyImageToBuffer(queue_, img, buf, o, r, offset, 0, nullptr, nullptr));
      std::vector<uint8_t> got(poison.size());
      ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, buf, CL_TRUE, 0, got.size(), got.data(), 0, nullptr, nullptr));
      std::vector<uint8_t> want = poison;
      for (size_t z = 0; z < r[2]; ++z)
        for (size_t y = 0; y < r[1]; ++y)
          std::memcpy(&want[offset + ((z * r[1] + y) * r[0]) * elem], &ref[(((o[2] + z) * H + o[1] + y) * W + o[0]) * elem],
                      r[0] * elem);
      ASSERT_EQ(want, got) << "image to buffer at " << offset;
      // And back, from fresh buffer bytes, into the image at another origin.
      std::vector<uint8_t> fresh = random_bytes(poison.size());
      ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queue_, buf, CL_TRUE, 0, fresh.size(), fresh.data(), 0, nullptr, nullptr));
      const size_t o2[3] = {2, 0, 0};
      ASSERT_EQ(CL_SUCCESS, clEnqueueCopyBufferToImage(queue_, buf, img, offset, o2, r, 0, nullptr, nullptr));
      for (size_t z = 0; z < r[2]; ++z)
        for (size_t y = 0; y < r[1]; ++y)
          std::memcpy(&ref[(((o2[2] + z) * H + o2[1] + y) * W + o2[0]) * elem], &fresh[offset + ((z * r[1] + y) * r[0]) * elem],
                      r[0] * elem);
      std::vector<uint8_t> out(ref.size());
      ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, img, CL_TRUE, zero, whole, 0, 0, out.data(), 0, nullptr, nullptr));
      ASSERT_EQ(ref, out) << "buffer to image at " << offset;
    }
  }
}

// CPU references of the SPIR-V environment spec's §7.4 conversions, written from its formulas.
uint8_t unorm8(float x) { return uint8_t(std::nearbyint(std::fmax(0.0f, std::fmin(255.0f, 255.0f * x)))); }
uint16_t unorm16(float x) { return uint16_t(std::nearbyint(std::fmax(0.0f, std::fmin(65535.0f, 65535.0f * x)))); }
int8_t snorm8(float x) { return int8_t(std::nearbyint(std::fmax(-128.0f, std::fmin(127.0f, 127.0f * x)))); }
int16_t snorm16(float x) { return int16_t(std::nearbyint(std::fmax(-32768.0f, std::fmin(32767.0f, 32767.0f * x)))); }
uint16_t half_bits(float x) {
  _Float16 h = static_cast<_Float16>(x);  // the compiler's conversion rounds to nearest even
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}
float srgb(float y) { return y < 0.0031308f ? 12.92f * y : 1.055f * std::pow(y, 1.0f / 2.4f) - 0.055f; }

template <typename T>
std::vector<uint8_t> bytes_of(std::initializer_list<T> values) {
  std::vector<uint8_t> v;
  for (T x : values) {
    uint8_t b[sizeof(T)];
    std::memcpy(b, &x, sizeof(T));
    v.insert(v.end(), b, b + sizeof(T));
  }
  return v;
}

TEST_F(ImageHostTest, FillConvertsTheColour) {
  // Values between representable ones, halfway cases, out of range values for saturation.
  const float fc[4] = {0.2f, -0.5f, 1.7f, 0.50196081f};
  const cl_int ic[4] = {-300, 77, 40000, -5};
  const cl_uint uc[4] = {300, 7, 70000, 0xffffffffu};
  struct Case {
    cl_image_format format;
    const void* colour;
    std::vector<uint8_t> texel;
  };
  const Case cases[] = {
      {{CL_RGBA, CL_UNORM_INT8}, fc, bytes_of<uint8_t>({unorm8(fc[0]), unorm8(fc[1]), unorm8(fc[2]), unorm8(fc[3])})},
      {{CL_BGRA, CL_UNORM_INT8}, fc, bytes_of<uint8_t>({unorm8(fc[2]), unorm8(fc[1]), unorm8(fc[0]), unorm8(fc[3])})},
      {{CL_RGBA, CL_SNORM_INT8}, fc, bytes_of<int8_t>({snorm8(fc[0]), snorm8(fc[1]), snorm8(fc[2]), snorm8(fc[3])})},
      {{CL_RGBA, CL_UNORM_INT16}, fc, bytes_of<uint16_t>({unorm16(fc[0]), unorm16(fc[1]), unorm16(fc[2]), unorm16(fc[3])})},
      {{CL_RGBA, CL_SNORM_INT16}, fc, bytes_of<int16_t>({snorm16(fc[0]), snorm16(fc[1]), snorm16(fc[2]), snorm16(fc[3])})},
      {{CL_RGBA, CL_HALF_FLOAT}, fc, bytes_of<uint16_t>({half_bits(fc[0]), half_bits(fc[1]), half_bits(fc[2]), half_bits(fc[3])})},
      {{CL_RGBA, CL_FLOAT}, fc, bytes_of<float>({fc[0], fc[1], fc[2], fc[3]})},
      {{CL_RG, CL_FLOAT}, fc, bytes_of<float>({fc[0], fc[1]})},
      {{CL_R, CL_UNORM_INT8}, fc, bytes_of<uint8_t>({unorm8(fc[0])})},
      {{CL_RGBA, CL_SIGNED_INT8}, ic, bytes_of<int8_t>({-128, 77, 127, -5})},
      {{CL_RGBA, CL_SIGNED_INT16}, ic, bytes_of<int16_t>({-300, 77, 32767, -5})},
      {{CL_RGBA, CL_SIGNED_INT32}, ic, bytes_of<int32_t>({-300, 77, 40000, -5})},
      {{CL_RGBA, CL_UNSIGNED_INT8}, uc, bytes_of<uint8_t>({255, 7, 255, 255})},
      {{CL_RGBA, CL_UNSIGNED_INT16}, uc, bytes_of<uint16_t>({300, 7, 65535, 65535})},
      {{CL_RGBA, CL_UNSIGNED_INT32}, uc, bytes_of<uint32_t>({300, 7, 70000, 0xffffffffu})},
      {{CL_sRGBA, CL_UNORM_INT8}, fc, bytes_of<uint8_t>({unorm8(srgb(fc[0])), 0, 255, unorm8(fc[3])})},
  };
  // Halves: round to nearest even where the float lies between two halves.
  EXPECT_EQ(0x3266u, half_bits(0.2f));
  const Shape s = kShapes[2];
  const auto supported = formats(CL_MEM_READ_WRITE, s.type);
  const auto readable = formats(CL_MEM_READ_ONLY, s.type);
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << std::hex << c.format.image_channel_order << " " << c.format.image_channel_data_type);
    const bool rw = has_format(supported, c.format.image_channel_order, c.format.image_channel_data_type);
    if (!rw && !has_format(readable, c.format.image_channel_order, c.format.image_channel_data_type)) {
      std::printf("not supported here, skipped: %#x %#x\n", c.format.image_channel_order, c.format.image_channel_data_type);
      continue;
    }
    const size_t elem = c.texel.size(), W = s.width, H = s.height;
    std::vector<uint8_t> ref(W * H * elem, 0xAB);
    Mem img = image(s, c.format, rw ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY);
    const size_t zero[3] = {0, 0, 0}, whole[3] = {W, H, 1};
    ASSERT_EQ(CL_SUCCESS, clEnqueueWriteImage(queue_, img, CL_TRUE, zero, whole, 0, 0, ref.data(), 0, nullptr, nullptr));
    const size_t o[3] = {4, 3, 0}, r[3] = {9, 7, 1};
    ASSERT_EQ(CL_SUCCESS, clEnqueueFillImage(queue_, img, c.colour, o, r, 0, nullptr, nullptr));
    for (size_t y = 0; y < r[1]; ++y)
      for (size_t x = 0; x < r[0]; ++x) std::memcpy(&ref[((o[1] + y) * W + o[0] + x) * elem], c.texel.data(), elem);
    std::vector<uint8_t> out(ref.size());
    ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, img, CL_TRUE, zero, whole, 0, 0, out.data(), 0, nullptr, nullptr));
    ASSERT_EQ(ref, out);
  }
}

// Fills larger than the fill's pattern block (a megabyte of rows): every row and slice of
// the region is written, nothing outside it, in every image type with rows or slices.
TEST_F(ImageHostTest, LargeFillsCoverEveryRowAndSlice) {
  const cl_image_format f{CL_RGBA, CL_UNSIGNED_INT32};
  const cl_uint colour[4] = {11, 22, 33, 44};
  const Shape shapes[] = {{CL_MEM_OBJECT_IMAGE1D_ARRAY, 16384, 0, 0, 37},
                          {CL_MEM_OBJECT_IMAGE2D, 1024, 300, 0, 0},
                          {CL_MEM_OBJECT_IMAGE2D_ARRAY, 512, 200, 0, 3},
                          {CL_MEM_OBJECT_IMAGE3D, 512, 200, 3, 0}};
  for (const Shape& s : shapes) {
    SCOPED_TRACE(testing::Message() << "type " << std::hex << s.type);
    const size_t elem = 16, W = s.width, H = s.rows(), D = s.slices();
    std::vector<uint8_t> ref = random_bytes(W * H * D * elem);
    Mem img = image(s, f, CL_MEM_READ_WRITE, nullptr);
    const size_t zero[3] = {0, 0, 0}, whole[3] = {W, H, D};
    ASSERT_EQ(CL_SUCCESS, clEnqueueWriteImage(queue_, img, CL_TRUE, zero, whole, 0, 0, ref.data(), 0, nullptr, nullptr));
    const size_t o[3] = {3, size_t(H > 1 ? 5 : 0), size_t(D > 1 ? 1 : 0)};
    const size_t r[3] = {W - 7, H > 1 ? H - 9 : 1, D > 1 ? D - 1 : 1};
    ASSERT_EQ(CL_SUCCESS, clEnqueueFillImage(queue_, img, colour, o, r, 0, nullptr, nullptr));
    for (size_t z = 0; z < r[2]; ++z)
      for (size_t y = 0; y < r[1]; ++y)
        for (size_t x = 0; x < r[0]; ++x)
          std::memcpy(&ref[(((o[2] + z) * H + o[1] + y) * W + o[0] + x) * elem], colour, elem);
    std::vector<uint8_t> out(ref.size());
    ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, img, CL_TRUE, zero, whole, 0, 0, out.data(), 0, nullptr, nullptr));
    ASSERT_TRUE(ref == out) << "the filled image differs from the CPU's";
  }
}

TEST_F(ImageHostTest, ImageInfo) {
  const cl_image_format f{CL_RGBA, CL_SIGNED_INT16};
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(testing::Message() << "type " << std::hex << s.type);
    Mem img = image(s, f, CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY);
    cl_image_format got{};
    ASSERT_EQ(CL_SUCCESS, clGetImageInfo(img, CL_IMAGE_FORMAT, sizeof(got), &got, nullptr));
    EXPECT_EQ(f.image_channel_order, got.image_channel_order);
    EXPECT_EQ(f.image_channel_data_type, got.image_channel_data_type);
    auto size_info = [&](cl_image_info p) {
      size_t v = 777, ret = 0;
      EXPECT_EQ(CL_SUCCESS, clGetImageInfo(img, p, sizeof(v), &v, &ret));
      EXPECT_EQ(sizeof(size_t), ret);
      return v;
    };
    const bool array = s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY || s.type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
    const bool has_height = s.type != CL_MEM_OBJECT_IMAGE1D && s.type != CL_MEM_OBJECT_IMAGE1D_ARRAY;
    EXPECT_EQ(8u, size_info(CL_IMAGE_ELEMENT_SIZE));
    EXPECT_EQ(s.width, size_info(CL_IMAGE_WIDTH));
    EXPECT_EQ(has_height ? s.height : 0, size_info(CL_IMAGE_HEIGHT));
    EXPECT_EQ(s.type == CL_MEM_OBJECT_IMAGE3D ? s.depth : 0, size_info(CL_IMAGE_DEPTH));
    EXPECT_EQ(array ? s.array_size : 0, size_info(CL_IMAGE_ARRAY_SIZE));
    const size_t row = size_info(CL_IMAGE_ROW_PITCH);
    EXPECT_GE(row, s.width * 8);
    const size_t slice = size_info(CL_IMAGE_SLICE_PITCH);
    if (s.type == CL_MEM_OBJECT_IMAGE1D || s.type == CL_MEM_OBJECT_IMAGE2D) {
      EXPECT_EQ(0u, slice);
    } else if (s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY) {
      EXPECT_GE(slice, row);
    } else {
      EXPECT_GE(slice, row * s.height);
    }
    cl_mem buffer = img.get();
    ASSERT_EQ(CL_SUCCESS, clGetImageInfo(img, CL_IMAGE_BUFFER, sizeof(buffer), &buffer, nullptr));
    EXPECT_EQ(nullptr, buffer);
    cl_uint zero = 5;
    ASSERT_EQ(CL_SUCCESS, clGetImageInfo(img, CL_IMAGE_NUM_MIP_LEVELS, sizeof(zero), &zero, nullptr));
    EXPECT_EQ(0u, zero);
    ASSERT_EQ(CL_SUCCESS, clGetImageInfo(img, CL_IMAGE_NUM_SAMPLES, sizeof(zero), &zero, nullptr));
    EXPECT_EQ(0u, zero);
    EXPECT_EQ(CL_INVALID_VALUE, clGetImageInfo(img, CL_MEM_SIZE, sizeof(zero), &zero, nullptr));
    EXPECT_EQ(CL_INVALID_VALUE, clGetImageInfo(img, CL_IMAGE_WIDTH, 1, &zero, nullptr));
    // clGetMemObjectInfo on images.
    cl_mem_object_type type = 0;
    ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(img, CL_MEM_TYPE, sizeof(type), &type, nullptr));
    EXPECT_EQ(s.type, type);
    size_t size = 0;
    ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(img, CL_MEM_SIZE, sizeof(size), &size, nullptr));
    EXPECT_GE(size, s.width * s.rows() * s.slices() * 8);
    cl_mem_flags flags = 0;
    ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(img, CL_MEM_FLAGS, sizeof(flags), &flags, nullptr));
    EXPECT_EQ(CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY, flags);
    cl_context context = nullptr;
    ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(img, CL_MEM_CONTEXT, sizeof(context), &context, nullptr));
    EXPECT_EQ(context_.get(), context);
  }
  // CL_INVALID_MEM_OBJECT if image is a not a valid image object.
  cl_int err = CL_SUCCESS;
  Mem buf(clCreateBuffer(context_, CL_MEM_READ_WRITE, 64, nullptr, &err));
  size_t v;
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, clGetImageInfo(buf, CL_IMAGE_WIDTH, sizeof(v), &v, nullptr));
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, clGetImageInfo(nullptr, CL_IMAGE_WIDTH, sizeof(v), &v, nullptr));
}

TEST_F(ImageHostTest, CreateErrors) {
  cl_image_format f{CL_RGBA, CL_UNORM_INT8};
  cl_image_desc d = kShapes[2].desc();
  std::vector<uint8_t> host(1 << 16);
  // CL_INVALID_CONTEXT, CL_INVALID_VALUE (flags), CL_INVALID_PROPERTY.
  cl_int err = CL_SUCCESS;
  Mem m(clCreateImage(nullptr, CL_MEM_READ_WRITE, &f, &d, nullptr, &err));
  EXPECT_EQ(CL_INVALID_CONTEXT, err);
  EXPECT_EQ(CL_INVALID_VALUE, create_error(CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, &f, &d));
  const cl_mem_properties bad[] = {0x1234, 0, 0};
  Mem p(clCreateImageWithProperties(context_, bad, CL_MEM_READ_WRITE, &f, &d, nullptr, &err));
  EXPECT_EQ(CL_INVALID_PROPERTY, err);
  // CL_INVALID_IMAGE_FORMAT_DESCRIPTOR: NULL, unknown values, pairs the spec forbids.
  EXPECT_EQ(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, create_error(CL_MEM_READ_WRITE, nullptr, &d));
  for (cl_image_format bad_format : {cl_image_format{0x1234, CL_UNORM_INT8}, cl_image_format{CL_RGBA, 0x1234},
                                     cl_image_format{CL_RGB, CL_UNORM_INT8}, cl_image_format{CL_BGRA, CL_FLOAT},
                                     cl_image_format{CL_RGBA, CL_UNORM_SHORT_565},
                                     cl_image_format{CL_INTENSITY, CL_UNSIGNED_INT8},
                                     cl_image_format{CL_sRGBA, CL_UNORM_INT16}})
    EXPECT_EQ(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, create_error(CL_MEM_READ_WRITE, &bad_format, &d))
        << std::hex << bad_format.image_channel_order << " " << bad_format.image_channel_data_type;
  // CL_IMAGE_FORMAT_NOT_SUPPORTED: a valid pair vkcl has no Vulkan format for.
  cl_image_format rx{CL_Rx, CL_UNORM_INT8};
  EXPECT_EQ(CL_IMAGE_FORMAT_NOT_SUPPORTED, create_error(CL_MEM_READ_WRITE, &rx, &d));
  // CL_sRGBx, which the spec and the conformance tests store differently (not listed).
  cl_image_format srgbx{CL_sRGBx, CL_UNORM_INT8};
  EXPECT_EQ(CL_IMAGE_FORMAT_NOT_SUPPORTED, create_error(CL_MEM_READ_ONLY, &srgbx, &d));
  // CL_INVALID_IMAGE_DESCRIPTOR.
  EXPECT_EQ(CL_INVALID_IMAGE_DESCRIPTOR, create_error(CL_MEM_READ_WRITE, &f, nullptr));
  auto with = [&](auto change) {
    cl_image_desc c = d;
    change(c);
    return c;
  };
  cl_image_desc zero_width = with([](cl_image_desc& c) { c.image_width = 0; });
  cl_image_desc zero_height = with([](cl_image_desc& c) { c.image_height = 0; });
  cl_image_desc bad_type = with([](cl_image_desc& c) { c.image_type = CL_MEM_OBJECT_BUFFER; });
  cl_image_desc mips = with([](cl_image_desc& c) { c.num_mip_levels = 2; });
  cl_image_desc samples = with([](cl_image_desc& c) { c.num_samples = 4; });
  cl_image_desc pitch_without_host = with([](cl_image_desc& c) { c.image_row_pitch = 31 * 4; });
  cl_image_desc zero_layers = kShapes[3].desc();
  zero_layers.image_array_size = 0;
  cl_image_desc zero_depth = kShapes[4].desc();
  zero_depth.image_depth = 0;
  for (const cl_image_desc* bad_desc : {&zero_width, &zero_height, &bad_type, &mips, &samples, &pitch_without_host,
                                        &zero_layers, &zero_depth})
    EXPECT_EQ(CL_INVALID_IMAGE_DESCRIPTOR, create_error(CL_MEM_READ_WRITE, &f, bad_desc));
  Mem buf(clCreateBuffer(context_, CL_MEM_READ_WRITE, 4096, nullptr, &err));
  // A buffer is the mem_object of 1D buffer images and 2D images only (image_buffer_test.cpp).
  cl_image_desc with_buffer = kShapes[4].desc();
  with_buffer.mem_object = buf.get();
  EXPECT_EQ(CL_INVALID_IMAGE_DESCRIPTOR, create_error(CL_MEM_READ_WRITE, &f, &with_buffer));
  // Host pitches: below width * element size, not a multiple of it, a slice pitch too small.
  cl_image_desc short_row = with([](cl_image_desc& c) { c.image_row_pitch = 30 * 4; });
  cl_image_desc odd_row = with([](cl_image_desc& c) { c.image_row_pitch = 31 * 4 + 2; });
  cl_image_desc short_slice = kShapes[4].desc(13 * 4, 13 * 4 * 9 - 4);
  cl_image_desc odd_slice = kShapes[4].desc(13 * 4, 13 * 4 * 9 + 4);
  for (const cl_image_desc* bad_desc : {&short_row, &odd_row, &short_slice, &odd_slice})
    EXPECT_EQ(CL_INVALID_IMAGE_DESCRIPTOR, create_error(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &f, bad_desc, host.data()));
  // CL_INVALID_IMAGE_SIZE beyond the device's limits.
  size_t max_width = 0, max_layers = 0;
  clGetDeviceInfo(device_, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof(max_width), &max_width, nullptr);
  clGetDeviceInfo(device_, CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, sizeof(max_layers), &max_layers, nullptr);
  cl_image_desc wide = with([&](cl_image_desc& c) { c.image_width = max_width + 1; });
  cl_image_desc many = kShapes[1].desc();
  many.image_array_size = max_layers + 1;
  EXPECT_EQ(CL_INVALID_IMAGE_SIZE, create_error(CL_MEM_READ_WRITE, &f, &wide));
  EXPECT_EQ(CL_INVALID_IMAGE_SIZE, create_error(CL_MEM_READ_WRITE, &f, &many));
  // CL_INVALID_HOST_PTR.
  EXPECT_EQ(CL_INVALID_HOST_PTR, create_error(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &f, &d));
  EXPECT_EQ(CL_INVALID_HOST_PTR, create_error(CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, &f, &d));
  EXPECT_EQ(CL_INVALID_HOST_PTR, create_error(CL_MEM_READ_WRITE, &f, &d, host.data()));
  // The 1.x entry points say CL_INVALID_IMAGE_SIZE for zero sizes and bad pitches.
  Mem a(clCreateImage2D(context_, CL_MEM_READ_WRITE, &f, 0, 4, 0, nullptr, &err));
  EXPECT_EQ(CL_INVALID_IMAGE_SIZE, err);
  Mem b(clCreateImage2D(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &f, 8, 4, 6, host.data(), &err));
  EXPECT_EQ(CL_INVALID_IMAGE_SIZE, err);
  Mem c(clCreateImage3D(context_, CL_MEM_READ_WRITE, &f, 8, 4, 1, 0, 0, nullptr, &err));
  EXPECT_EQ(CL_INVALID_IMAGE_SIZE, err);
  Mem ok2(clCreateImage2D(context_, CL_MEM_READ_WRITE, &f, 8, 4, 0, nullptr, &err));
  EXPECT_EQ(CL_SUCCESS, err);
  Mem ok3(clCreateImage3D(context_, CL_MEM_READ_WRITE, &f, 8, 4, 3, 0, 0, nullptr, &err));
  EXPECT_EQ(CL_SUCCESS, err);
  // CL_MEM_ALLOC_HOST_PTR is accepted.
  EXPECT_EQ(CL_SUCCESS, create_error(CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, &f, &d));
}

TEST_F(ImageHostTest, CommandErrors) {
  const cl_image_format f{CL_RGBA, CL_UNORM_INT8};
  Mem img = image(kShapes[2], f);  // 31 x 17
  Mem img1d = image(kShapes[0], f);
  Mem other = image(kShapes[2], {CL_RGBA, CL_UNSIGNED_INT8});
  cl_int err = CL_SUCCESS;
  Mem buf(clCreateBuffer(context_, CL_MEM_READ_WRITE, 4096, nullptr, &err));
  std::vector<uint8_t> host(1 << 16);
  const size_t zero[3] = {0, 0, 0}, r[3] = {4, 4, 1};
  auto read = [&](cl_mem m, const size_t* o, const size_t* rg, size_t rp, size_t sp, void* p) {
    return clEnqueueReadImage(queue_, m, CL_TRUE, o, rg, rp, sp, p, 0, nullptr, nullptr);
  };
  // CL_INVALID_VALUE: out of bounds, a zero region, origin[2] or region[2] of a 2D image,
  // origin[1] of a 1D image, a slice pitch for a 2D image, a short row pitch, NULL pointers.
  const size_t far[3] = {28, 0, 0}, o_z[3] = {0, 0, 1}, r_z[3] = {4, 4, 2}, r_0[3] = {4, 0, 1}, o_y[3] = {0, 1, 0};
  EXPECT_EQ(CL_INVALID_VALUE, read(img, far, r, 0, 0, host.data()));
  EXPECT_EQ(CL_INVALID_VALUE, read(img, o_z, r, 0, 0, host.data()));
  EXPECT_EQ(CL_INVALID_VALUE, read(img, zero, r_z, 0, 0, host.data()));
  EXPECT_EQ(CL_INVALID_VALUE, read(img, zero, r_0, 0, 0, host.data()));
  const size_t r1[3] = {4, 1, 1};
  EXPECT_EQ(CL_INVALID_VALUE, read(img1d, o_y, r1, 0, 0, host.data()));
  EXPECT_EQ(CL_INVALID_VALUE, read(img1d, zero, r, 0, 0, host.data()));
  EXPECT_EQ(CL_INVALID_VALUE, read(img, zero, r, 0, 64, host.data()));
  EXPECT_EQ(CL_INVALID_VALUE, read(img, zero, r, 15, 0, host.data()));
  EXPECT_EQ(CL_INVALID_VALUE, read(img, zero, r, 0, 0, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, read(img, nullptr, r, 0, 0, host.data()));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueWriteImage(queue_, img, CL_TRUE, far, r, 0, 0, host.data(), 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueFillImage(queue_, img, nullptr, zero, r, 0, nullptr, nullptr));
  const float colour[4] = {};
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueFillImage(queue_, img, colour, far, r, 0, nullptr, nullptr));
  // CL_INVALID_MEM_OBJECT: a buffer where an image goes, an image where a buffer goes.
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, read(buf, zero, r, 0, 0, host.data()));
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, clEnqueueReadBuffer(queue_, img, CL_TRUE, 0, 4, host.data(), 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, clEnqueueCopyImageToBuffer(queue_, img, img, zero, r, 0, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, clEnqueueCopyBufferToImage(queue_, buf, buf, 0, zero, r, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, clEnqueueCopyImage(queue_, img, buf, zero, zero, r, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, clEnqueueCopyBuffer(queue_, buf, img, 0, 0, 4, 0, nullptr, nullptr));
  cl_buffer_region sub{0, 64};
  Mem s(clCreateSubBuffer(img, 0, CL_BUFFER_CREATE_TYPE_REGION, &sub, &err));
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, err);
  // CL_INVALID_COMMAND_QUEUE.
  EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, clEnqueueReadImage(nullptr, img, CL_TRUE, zero, r, 0, 0, host.data(), 0, nullptr, nullptr));
  // CL_IMAGE_FORMAT_MISMATCH, CL_MEM_COPY_OVERLAP.
  EXPECT_EQ(CL_IMAGE_FORMAT_MISMATCH, clEnqueueCopyImage(queue_, img, other, zero, zero, r, 0, nullptr, nullptr));
  const size_t near[3] = {2, 2, 0}, apart[3] = {10, 0, 0};
  EXPECT_EQ(CL_MEM_COPY_OVERLAP, clEnqueueCopyImage(queue_, img, img, zero, near, r, 0, nullptr, nullptr));
  EXPECT_EQ(CL_SUCCESS, clEnqueueCopyImage(queue_, img, img, zero, apart, r, 0, nullptr, nullptr));
  // CL_INVALID_VALUE: the buffer side out of range.
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueCopyImageToBuffer(queue_, img, buf, zero, r, 4096 - 63, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueCopyBufferToImage(queue_, buf, img, 4096 - 60, zero, r, 0, nullptr, nullptr));
  // CL_INVALID_OPERATION: host access the image was created without.
  cl_image_desc d = kShapes[2].desc();
  Mem no_host(clCreateImage(context_, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS, &f, &d, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  EXPECT_EQ(CL_INVALID_OPERATION, read(no_host, zero, r, 0, 0, host.data()));
  EXPECT_EQ(CL_INVALID_OPERATION, clEnqueueWriteImage(queue_, no_host, CL_TRUE, zero, r, 0, 0, host.data(), 0, nullptr, nullptr));
  size_t rp = 0, sp = 0;
  void* p = clEnqueueMapImage(queue_, no_host, CL_TRUE, CL_MAP_READ, zero, r, &rp, &sp, 0, nullptr, nullptr, &err);
  EXPECT_EQ(nullptr, p);
  EXPECT_EQ(CL_INVALID_OPERATION, err);
  // clEnqueueMapImage: CL_INVALID_VALUE without image_row_pitch, or without image_slice_pitch
  // for an array, or with unknown map flags; an unmap of a pointer not mapped.
  p = clEnqueueMapImage(queue_, img, CL_TRUE, CL_MAP_READ, zero, r, nullptr, &sp, 0, nullptr, nullptr, &err);
  EXPECT_EQ(CL_INVALID_VALUE, err);
  Mem arr = image(kShapes[3], f);
  p = clEnqueueMapImage(queue_, arr, CL_TRUE, CL_MAP_READ, zero, r, &rp, nullptr, 0, nullptr, nullptr, &err);
  EXPECT_EQ(CL_INVALID_VALUE, err);
  p = clEnqueueMapImage(queue_, img, CL_TRUE, 0x100, zero, r, &rp, &sp, 0, nullptr, nullptr, &err);
  EXPECT_EQ(CL_INVALID_VALUE, err);
  EXPECT_EQ(CL_INVALID_VALUE, clEnqueueUnmapMemObject(queue_, img, host.data(), 0, nullptr, nullptr));
  // An image is not a kernel's buffer argument.
  const char* source = "__kernel void k(__global int* p) { p[0] = 1; }";
  Program program(clCreateProgramWithSource(context_, 1, &source, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(program, 1, &device_, "", nullptr, nullptr));
  Kernel kernel(clCreateKernel(program, "k", &err));
  ASSERT_EQ(CL_SUCCESS, err);
  cl_mem handle = img.get();
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, clSetKernelArg(kernel, 0, sizeof(handle), &handle));
}

}  // namespace
}  // namespace vkcl::test
