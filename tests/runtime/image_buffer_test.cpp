// 1D buffer images (CL_MEM_OBJECT_IMAGE1D_BUFFER): an image whose texels are a buffer's
// bytes. Kernels read image1d_buffer_t (read_imagef/i/ui at an integer coordinate) and write
// it; what is written through the image is seen through the buffer and the other way round;
// the image commands work on it; and the API's checks of such images give the spec's errors.
// References are the bytes themselves (random) and the §7.4 conversion of normalized texels.
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class BufferImageKernels : public KernelTest {
 protected:
  bool supported(cl_mem_flags flags, cl_image_format f) {
    cl_uint n = 0;
    EXPECT_EQ(CL_SUCCESS, clGetSupportedImageFormats(context_, flags, CL_MEM_OBJECT_IMAGE1D_BUFFER, 0, nullptr, &n));
    std::vector<cl_image_format> list(n);
    if (n) {
      EXPECT_EQ(CL_SUCCESS,
                clGetSupportedImageFormats(context_, flags, CL_MEM_OBJECT_IMAGE1D_BUFFER, n, list.data(), nullptr));
    }
    for (const auto& l : list)
      if (l.image_channel_order == f.image_channel_order && l.image_channel_data_type == f.image_channel_data_type)
        return true;
    return false;
  }
  // An image of |width| texels of |format| over |buffer|, or the error in |*err|.
  Mem image_over(const Mem& buffer, cl_image_format format, size_t width, cl_mem_flags flags = 0,
                 cl_int* err = nullptr) {
    cl_image_desc d{};
    d.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
    d.image_width = width;
    d.mem_object = buffer.get();
    cl_int e = CL_SUCCESS;
    Mem m(clCreateImage(context_, flags, &format, &d, nullptr, &e));
    if (err) *err = e;
    else EXPECT_EQ(CL_SUCCESS, e);
    return m;
  }
  bool images() {
    cl_bool b = CL_FALSE;
    clGetDeviceInfo(device_, CL_DEVICE_IMAGE_SUPPORT, sizeof b, &b, nullptr);
    return b == CL_TRUE;
  }
};

const char* kSource = R"(
  __kernel void read_f(read_only image1d_buffer_t img, __global float4* out) {
    int i = get_global_id(0);
    out[i] = read_imagef(img, i);
  }
  __kernel void read_u(read_only image1d_buffer_t img, __global uint4* out, __global int* width) {
    int i = get_global_id(0);
    out[i] = read_imageui(img, i);
    if (i == 0) width[0] = get_image_width(img);
  }
  __kernel void write_u(write_only image1d_buffer_t img, __global const uint4* in) {
    int i = get_global_id(0);
    write_imageui(img, i, in[i]);
  }
  // Through a helper, as programs pass images down.
  float4 at(read_only image1d_buffer_t img, int i) { return read_imagef(img, i); }
  __kernel void copy_f(read_only image1d_buffer_t src, write_only image1d_buffer_t dst) {
    int i = get_global_id(0);
    write_imagef(dst, i, at(src, i) * 0.5f);
  })";

// The buffer's bytes are the image's texels: a kernel reads what the host wrote into the
// buffer, in both numeric views, and its queries give the image's width.
TEST_P(BufferImageKernels, KernelsReadTheBuffersBytes) {
  if (!images()) GTEST_SKIP() << "no image support";
  const cl_image_format rgba8{CL_RGBA, CL_UNORM_INT8}, rgba8u{CL_RGBA, CL_UNSIGNED_INT8};
  ASSERT_TRUE(supported(CL_MEM_READ_ONLY, rgba8));
  ASSERT_TRUE(supported(CL_MEM_READ_ONLY, rgba8u));
  Program p = build(kSource);
  const size_t n = 1000;
  std::vector<uint8_t> bytes(n * 4 + 64);
  for (auto& b : bytes) b = uint8_t(rng_());
  Mem buf = buffer(bytes.size(), bytes.data());
  {
    Mem img = image_over(buf, rgba8, n, CL_MEM_READ_ONLY);
    Kernel k = kernel(p, "read_f");
    Mem out = poisoned(n * 16);
    cl_mem h = img.get();
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof h, &h));
    set_mem_arg(k, 1, out);
    run(k, 1, &n, nullptr);
    auto got = read<float>(out, n * 4);
    // §7.4.1: "normalized integer channel data types are converted to floating-point values
    // in the range [0.0, 1.0] ... x / 255"; within 1.5 ulp.
    for (size_t i = 0; i < n * 4; ++i) {
      float want = float(bytes[i]) / 255.0f;
      ASSERT_NEAR(got[i], want, want * 1.8e-7f) << "component " << i;
    }
  }
  {
    Mem img = image_over(buf, rgba8u, n, CL_MEM_READ_ONLY);
    Kernel k = kernel(p, "read_u");
    Mem out = poisoned(n * 16);
    Mem width = poisoned(4);
    cl_mem h = img.get();
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof h, &h));
    set_mem_arg(k, 1, out);
    set_mem_arg(k, 2, width);
    run(k, 1, &n, nullptr);
    auto got = read<uint32_t>(out, n * 4);
    for (size_t i = 0; i < n * 4; ++i) ASSERT_EQ(got[i], bytes[i]) << "component " << i;
    EXPECT_EQ(int32_t(n), read<int32_t>(width, 1)[0]);
  }
}

// Writes through the image land in the buffer, a kernel reading one image and writing
// another works through a helper function, and the buffer outlives the application's
// reference to it while the image holds it.
TEST_P(BufferImageKernels, WritesLandInTheBuffer) {
  if (!images()) GTEST_SKIP() << "no image support";
  const cl_image_format rgba8u{CL_RGBA, CL_UNSIGNED_INT8}, rgbaf{CL_RGBA, CL_FLOAT};
  ASSERT_TRUE(supported(CL_MEM_WRITE_ONLY, rgba8u));
  ASSERT_TRUE(supported(CL_MEM_WRITE_ONLY, rgbaf));
  Program p = build(kSource);
  const size_t n = 777;
  std::vector<uint32_t> in(n * 4);
  for (auto& v : in) v = uint32_t(rng_()) & 0x1ff;  // some above 255: writes saturate
  Mem src = buffer(in.size() * 4, in.data());
  Mem buf = poisoned(n * 4);
  Mem img = image_over(buf, rgba8u, n, CL_MEM_WRITE_ONLY);
  Kernel k = kernel(p, "write_u");
  cl_mem h = img.get();
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof h, &h));
  set_mem_arg(k, 1, src);
  run(k, 1, &n, nullptr);
  auto got = read<uint8_t>(buf, n * 4);
  // §7.4.4: "convert_uchar_sat(x)".
  for (size_t i = 0; i < n * 4; ++i) ASSERT_EQ(got[i], std::min<uint32_t>(in[i], 255)) << "component " << i;

  std::vector<float> values(n * 4);
  for (auto& v : values) v = float(int(rng_() % 2001) - 1000) / 8.0f;
  Mem from = buffer(values.size() * 4, values.data());
  Mem to = poisoned(values.size() * 4);
  Mem from_img = image_over(from, rgbaf, n, CL_MEM_READ_ONLY);
  Mem to_img = image_over(to, rgbaf, n, CL_MEM_WRITE_ONLY);
  from = Mem();  // the image keeps its buffer
  Kernel c = kernel(p, "copy_f");
  cl_mem a = from_img.get(), b = to_img.get();
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(c, 0, sizeof a, &a));
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(c, 1, sizeof b, &b));
  run(c, 1, &n, nullptr);
  auto halves = read<float>(to, n * 4);
  for (size_t i = 0; i < n * 4; ++i) ASSERT_EQ(halves[i], values[i] * 0.5f) << "component " << i;
}

// The image commands on a 1D buffer image are the buffer's bytes: read, write, fill, copy to
// and from a 1D image and a buffer, map.
TEST_P(BufferImageKernels, ImageCommandsSeeTheBuffer) {
  if (!images()) GTEST_SKIP() << "no image support";
  const cl_image_format f{CL_RGBA, CL_UNSIGNED_INT16};
  const size_t n = 300, texel = 8;
  std::vector<uint8_t> bytes(n * texel);
  for (auto& b : bytes) b = uint8_t(rng_());
  Mem buf = buffer(bytes.size(), bytes.data());
  Mem img = image_over(buf, f, n);
  // Read a range through the image.
  size_t origin[3] = {17, 0, 0}, region[3] = {200, 1, 1};
  std::vector<uint8_t> part(region[0] * texel);
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, img, CL_TRUE, origin, region, 0, 0, part.data(), 0, nullptr, nullptr));
  EXPECT_EQ(0, std::memcmp(part.data(), bytes.data() + origin[0] * texel, part.size()));
  // Write a range through the image; the buffer has it.
  for (auto& b : part) b = uint8_t(rng_());
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteImage(queue_, img, CL_TRUE, origin, region, 0, 0, part.data(), 0, nullptr, nullptr));
  std::memcpy(bytes.data() + origin[0] * texel, part.data(), part.size());
  EXPECT_EQ(bytes, read<uint8_t>(buf, bytes.size()));
  // Fill: the colour as RGBA uint16 texels.
  const cl_uint4 color = {{1, 2, 65535, 7}};
  size_t fill_origin[3] = {250, 0, 0}, fill_region[3] = {40, 1, 1};
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillImage(queue_, img, &color, fill_origin, fill_region, 0, nullptr, nullptr));
  for (size_t t = 250; t < 290; ++t)
    for (size_t c = 0; c < 4; ++c) {
      uint16_t v = uint16_t(color.s[c]);
      std::memcpy(&bytes[t * texel + c * 2], &v, 2);
    }
  EXPECT_EQ(bytes, read<uint8_t>(buf, bytes.size()));
  // To a 1D image and back into another buffer image, then to a plain buffer.
  cl_image_desc d{};
  d.image_type = CL_MEM_OBJECT_IMAGE1D;
  d.image_width = n;
  cl_int err = CL_SUCCESS;
  Mem one_d(clCreateImage(context_, CL_MEM_READ_WRITE, &f, &d, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  size_t zero[3] = {0, 0, 0}, all[3] = {n, 1, 1};
  ASSERT_EQ(CL_SUCCESS, clEnqueueCopyImage(queue_, img, one_d, zero, zero, all, 0, nullptr, nullptr));
  Mem other = poisoned(bytes.size());
  Mem other_img = image_over(other, f, n);
  ASSERT_EQ(CL_SUCCESS, clEnqueueCopyImage(queue_, one_d, other_img, zero, zero, all, 0, nullptr, nullptr));
  EXPECT_EQ(bytes, read<uint8_t>(other, bytes.size()));
  Mem plain = poisoned(bytes.size() + 8);
  ASSERT_EQ(CL_SUCCESS, clEnqueueCopyImageToBuffer(queue_, other_img, plain, zero, all, 8, 0, nullptr, nullptr));
  auto copied = read<uint8_t>(plain, bytes.size() + 8);
  EXPECT_EQ(0, std::memcmp(copied.data() + 8, bytes.data(), bytes.size()));
  // Buffer to image, image to image.
  ASSERT_EQ(CL_SUCCESS, clEnqueueCopyBufferToImage(queue_, buf, other_img, 0, zero, all, 0, nullptr, nullptr));
  size_t src_origin[3] = {10, 0, 0}, dst_origin[3] = {100, 0, 0}, few[3] = {50, 1, 1};
  ASSERT_EQ(CL_SUCCESS, clEnqueueCopyImage(queue_, img, other_img, src_origin, dst_origin, few, 0, nullptr, nullptr));
  std::vector<uint8_t> want = bytes;
  std::memcpy(&want[100 * texel], &bytes[10 * texel], 50 * texel);
  EXPECT_EQ(want, read<uint8_t>(other, bytes.size()));
  // Map: the row pitch is the texels', writes come back at unmap.
  size_t row = 0;
  auto* mapped = static_cast<uint8_t*>(clEnqueueMapImage(queue_, img, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, origin,
                                                         region, &row, nullptr, 0, nullptr, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  EXPECT_EQ(region[0] * texel, row);
  EXPECT_EQ(0, std::memcmp(mapped, bytes.data() + origin[0] * texel, region[0] * texel));
  mapped[0] ^= 0xff;
  bytes[origin[0] * texel] ^= 0xff;
  ASSERT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(queue_, img, mapped, 0, nullptr, nullptr));
  EXPECT_EQ(bytes, read<uint8_t>(buf, bytes.size()));
}

// clCreateImage's checks of an image over a buffer, and the queries that name the buffer.
TEST_P(BufferImageKernels, CreationChecksAndQueries) {
  if (!images()) GTEST_SKIP() << "no image support";
  const cl_image_format f{CL_RGBA, CL_FLOAT};
  Mem buf = poisoned(16 * 100);
  cl_int err = CL_SUCCESS;
  // The buffer "must be >= image_width * size of element in bytes".
  Mem too_wide = image_over(buf, f, 101, 0, &err);
  EXPECT_EQ(CL_INVALID_IMAGE_DESCRIPTOR, err);
  // Host pointer flags are not for images over buffers.
  for (cl_mem_flags flags : {CL_MEM_ALLOC_HOST_PTR, CL_MEM_USE_HOST_PTR, CL_MEM_COPY_HOST_PTR}) {
    Mem m = image_over(buf, f, 10, flags, &err);
    EXPECT_TRUE(err == CL_INVALID_VALUE || err == CL_INVALID_HOST_PTR) << flags << ": " << err;
  }
  // Access the buffer does not allow.
  cl_int e = CL_SUCCESS;
  Mem read_only(clCreateBuffer(context_, CL_MEM_READ_ONLY, 1600, nullptr, &e));
  ASSERT_EQ(CL_SUCCESS, e);
  Mem bad = image_over(read_only, f, 10, CL_MEM_WRITE_ONLY, &err);
  EXPECT_EQ(CL_INVALID_VALUE, err);
  // Inherited access, and the queries.
  Mem inherited = image_over(read_only, f, 100);
  cl_mem_flags flags = 0;
  ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(inherited, CL_MEM_FLAGS, sizeof flags, &flags, nullptr));
  EXPECT_TRUE(flags & CL_MEM_READ_ONLY);
  cl_mem named = nullptr;
  ASSERT_EQ(CL_SUCCESS, clGetImageInfo(inherited, CL_IMAGE_BUFFER, sizeof named, &named, nullptr));
  EXPECT_EQ(read_only.get(), named);
  ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(inherited, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof named, &named, nullptr));
  EXPECT_EQ(read_only.get(), named);
  cl_mem_object_type type = 0;
  ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(inherited, CL_MEM_TYPE, sizeof type, &type, nullptr));
  EXPECT_EQ(cl_mem_object_type(CL_MEM_OBJECT_IMAGE1D_BUFFER), type);
  size_t width = 0;
  ASSERT_EQ(CL_SUCCESS, clGetImageInfo(inherited, CL_IMAGE_WIDTH, sizeof width, &width, nullptr));
  EXPECT_EQ(size_t(100), width);
  // A row pitch, where given, is one the buffer's single row could have.
  for (size_t pitch : {size_t(16 * 100), size_t(16 * 100 + 16), size_t(16 * 100 + 4), size_t(16 * 99)}) {
    cl_image_desc d{};
    d.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
    d.image_width = 100;
    d.image_row_pitch = pitch;
    d.mem_object = read_only.get();
    Mem m(clCreateImage(context_, 0, &f, &d, nullptr, &err));
    bool fits = pitch >= 1600 && pitch % 16 == 0;
    EXPECT_EQ(fits ? CL_SUCCESS : CL_INVALID_IMAGE_DESCRIPTOR, err) << pitch;
  }
  // An image over an image, or none at all, is not a 1D buffer image.
  Mem none = image_over(Mem(), f, 10, 0, &err);
  EXPECT_EQ(CL_INVALID_IMAGE_DESCRIPTOR, err);
  Mem over_image = image_over(inherited, f, 10, 0, &err);
  EXPECT_EQ(CL_INVALID_IMAGE_DESCRIPTOR, err);
  // A 1D buffer image is not an image1d_t argument.
  Program p = build(R"(__kernel void k(read_only image1d_t img, __global float4* out) { out[0] = read_imagef(img, 0); })");
  Kernel k = kernel(p, "k");
  cl_mem h = inherited.get();
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, clSetKernelArg(k, 0, sizeof h, &h));
}

// cl_khr_image2d_from_buffer: a 2D image whose rows are a buffer's, image_row_pitch bytes
// apart. Kernels read what the host put in the buffer (also after the image was made), their
// writes land in the rows and leave the bytes between rows alone, and the image commands and
// queries see the buffer.
TEST_P(BufferImageKernels, TwoDimensionalImagesFromBuffers) {
  if (!images()) GTEST_SKIP() << "no image support";
  char extensions[8192] = {};
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions, nullptr));
  ASSERT_NE(std::string(extensions).find("cl_khr_image2d_from_buffer"), std::string::npos);
  cl_uint pitch_alignment = 0, base_alignment = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_IMAGE_PITCH_ALIGNMENT, sizeof pitch_alignment,
                                        &pitch_alignment, nullptr));
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, sizeof base_alignment,
                                        &base_alignment, nullptr));
  EXPECT_GE(pitch_alignment, 1u);
  EXPECT_GE(base_alignment, 1u);
  const cl_image_format f{CL_RGBA, CL_UNSIGNED_INT8};
  const size_t w = 37, h = 23, texel = 4, pitch = (w + 5 * pitch_alignment) * texel;
  auto make = [&](const Mem& buffer, cl_mem_flags flags, size_t row_pitch, cl_int* err) {
    cl_image_desc d{};
    d.image_type = CL_MEM_OBJECT_IMAGE2D;
    d.image_width = w;
    d.image_height = h;
    d.image_row_pitch = row_pitch;
    d.mem_object = buffer.get();
    return Mem(clCreateImage(context_, flags, &f, &d, nullptr, err));
  };
  Program p = build(R"(
    __kernel void load(read_only image2d_t img, __global uint4* out) {
      int x = get_global_id(0), y = get_global_id(1);
      out[y * get_image_width(img) + x] = read_imageui(img, (int2)(x, y));
    }
    __kernel void store(write_only image2d_t img) {
      int x = get_global_id(0), y = get_global_id(1);
      write_imageui(img, (int2)(x, y), (uint4)(x, y, x ^ y, 200));
    })");
  std::vector<uint8_t> bytes(pitch * h);
  for (auto& b : bytes) b = uint8_t(rng_());
  Mem buf = buffer(bytes.size(), bytes.data());
  cl_int err = CL_SUCCESS;
  Mem img = make(buf, CL_MEM_READ_WRITE, pitch, &err);
  ASSERT_EQ(CL_SUCCESS, err);
  size_t row = 0;
  ASSERT_EQ(CL_SUCCESS, clGetImageInfo(img, CL_IMAGE_ROW_PITCH, sizeof row, &row, nullptr));
  EXPECT_EQ(pitch, row);
  cl_mem named = nullptr;
  ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(img, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof named, &named, nullptr));
  EXPECT_EQ(buf.get(), named);
  // The host changes the buffer after the image was made: kernels see it.
  for (size_t i = 0; i < 64; ++i) bytes[i] ^= 0x5a;
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queue_, buf, CL_TRUE, 0, 64, bytes.data(), 0, nullptr, nullptr));
  Kernel load = kernel(p, "load");
  Mem out = poisoned(w * h * 16);
  cl_mem ih = img.get();
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(load, 0, sizeof ih, &ih));
  set_mem_arg(load, 1, out);
  size_t global[2] = {w, h};
  run(load, 2, global, nullptr);
  auto got = read<uint32_t>(out, w * h * 4);
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w; ++x)
      for (size_t c = 0; c < 4; ++c)
        ASSERT_EQ(got[(y * w + x) * 4 + c], bytes[y * pitch + x * texel + c]) << x << "," << y << " " << c;
  // A kernel writes the image: the rows change, the bytes between them do not.
  Kernel store = kernel(p, "store");
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(store, 0, sizeof ih, &ih));
  run(store, 2, global, nullptr);
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w; ++x) {
      const uint8_t t[4] = {uint8_t(x), uint8_t(y), uint8_t(x ^ y), 200};
      std::memcpy(&bytes[y * pitch + x * texel], t, 4);
    }
  EXPECT_EQ(bytes, read<uint8_t>(buf, bytes.size()));
  // Image commands: read a box, write one, fill one; the buffer has them.
  size_t origin[3] = {3, 5, 0}, region[3] = {20, 9, 1};
  std::vector<uint8_t> box(region[0] * region[1] * texel);
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, img, CL_TRUE, origin, region, 0, 0, box.data(), 0, nullptr, nullptr));
  for (size_t y = 0; y < region[1]; ++y)
    ASSERT_EQ(0, std::memcmp(&box[y * region[0] * texel], &bytes[(origin[1] + y) * pitch + origin[0] * texel],
                             region[0] * texel)) << "row " << y;
  for (auto& b : box) b = uint8_t(rng_());
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteImage(queue_, img, CL_TRUE, origin, region, 0, 0, box.data(), 0, nullptr, nullptr));
  for (size_t y = 0; y < region[1]; ++y)
    std::memcpy(&bytes[(origin[1] + y) * pitch + origin[0] * texel], &box[y * region[0] * texel], region[0] * texel);
  EXPECT_EQ(bytes, read<uint8_t>(buf, bytes.size()));
  const cl_uint4 color = {{9, 8, 7, 6}};
  size_t fill_origin[3] = {30, 0, 0}, fill_region[3] = {7, 4, 1};
  ASSERT_EQ(CL_SUCCESS, clEnqueueFillImage(queue_, img, &color, fill_origin, fill_region, 0, nullptr, nullptr));
  for (size_t y = 0; y < 4; ++y)
    for (size_t x = 30; x < 37; ++x)
      for (size_t c = 0; c < 4; ++c) bytes[y * pitch + x * texel + c] = uint8_t(color.s[c]);
  EXPECT_EQ(bytes, read<uint8_t>(buf, bytes.size()));
  // Copied to a plain 2D image and back into another image from a buffer.
  cl_image_desc d{};
  d.image_type = CL_MEM_OBJECT_IMAGE2D;
  d.image_width = w;
  d.image_height = h;
  Mem plain(clCreateImage(context_, CL_MEM_READ_WRITE, &f, &d, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  size_t zero[3] = {0, 0, 0}, all[3] = {w, h, 1};
  ASSERT_EQ(CL_SUCCESS, clEnqueueCopyImage(queue_, img, plain, zero, zero, all, 0, nullptr, nullptr));
  std::vector<uint8_t> other_bytes(pitch * h, 0xcd);
  Mem other = buffer(other_bytes.size(), other_bytes.data());
  Mem other_img = make(other, CL_MEM_READ_WRITE, pitch, &err);
  ASSERT_EQ(CL_SUCCESS, err);
  ASSERT_EQ(CL_SUCCESS, clEnqueueCopyImage(queue_, plain, other_img, zero, zero, all, 0, nullptr, nullptr));
  for (size_t y = 0; y < h; ++y) std::memcpy(&other_bytes[y * pitch], &bytes[y * pitch], w * texel);
  EXPECT_EQ(other_bytes, read<uint8_t>(other, other_bytes.size()));
  // The checks: a buffer too small for the rows, a pitch shorter than a row or not a
  // multiple of the element.
  Mem small = poisoned(pitch * h - 1);
  Mem too_small = make(small, 0, pitch, &err);
  EXPECT_EQ(CL_INVALID_IMAGE_SIZE, err);
  Mem short_pitch = make(buf, 0, (w - 1) * texel, &err);
  EXPECT_EQ(CL_INVALID_IMAGE_DESCRIPTOR, err);
  Mem odd_pitch = make(buf, 0, w * texel + 2, &err);
  EXPECT_EQ(CL_INVALID_IMAGE_DESCRIPTOR, err);
}

INSTANTIATE_TEST_SUITE_P(Options, BufferImageKernels,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")), options_name);

}  // namespace
}  // namespace vkcl::test
