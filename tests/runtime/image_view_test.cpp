// 2D images made from other 2D images (clCreateImage with an image as mem_object): "a new
// image object that shares the image data store with mem_object but views the pixels in the
// image with a different image channel order". Checked against the bytes the test stored,
// through the sRGB transfer function of the SPIR-V environment spec's §7.4.5 where one side
// is sRGB, and the error codes of each rule.
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

constexpr size_t kWidth = 37, kHeight = 11;

class ImageViews : public KernelTest {
 protected:
  bool supported(cl_channel_order order, cl_channel_type type, cl_mem_flags flags) {
    cl_uint n = 0;
    if (clGetSupportedImageFormats(context_, flags, CL_MEM_OBJECT_IMAGE2D, 0, nullptr, &n) != CL_SUCCESS) return false;
    std::vector<cl_image_format> formats(n);
    clGetSupportedImageFormats(context_, flags, CL_MEM_OBJECT_IMAGE2D, n, formats.data(), nullptr);
    for (const auto& f : formats) {
      if (f.image_channel_order == order && f.image_channel_data_type == type) return true;
    }
    return false;
  }
  Mem image(cl_channel_order order, cl_channel_type type, cl_mem_flags flags, void* data) {
    cl_image_format f{order, type};
    cl_image_desc d{};
    d.image_type = CL_MEM_OBJECT_IMAGE2D;
    d.image_width = kWidth;
    d.image_height = kHeight;
    cl_int err = CL_SUCCESS;
    Mem m(clCreateImage(context_, flags | (data ? CL_MEM_COPY_HOST_PTR : 0), &f, &d, data, &err));
    EXPECT_EQ(CL_SUCCESS, err);
    return m;
  }
  // A 2D image of |order| and |type| over |from|'s texels; |err| gets clCreateImage's code.
  Mem view(cl_mem from, cl_channel_order order, cl_channel_type type, cl_mem_flags flags, cl_int* err,
           size_t width = kWidth, size_t row_pitch = 0) {
    cl_image_format f{order, type};
    cl_image_desc d{};
    d.image_type = CL_MEM_OBJECT_IMAGE2D;
    d.image_width = width;
    d.image_height = kHeight;
    d.image_row_pitch = row_pitch;
    d.mem_object = from;
    return Mem(clCreateImage(context_, flags, &f, &d, nullptr, err));
  }
  // read_imagef of every texel of |img|, as RGBA floats.
  std::vector<float> read_all(cl_mem img) {
    Program program = build(R"(
      __kernel void k(read_only image2d_t img, __global float4* out) {
        int2 p = (int2)(get_global_id(0), get_global_id(1));
        out[p.y * get_global_size(0) + p.x] = read_imagef(img, p);
      })", "-cl-std=CL3.0");
    Kernel k = kernel(program, "k");
    Mem out = poisoned(kWidth * kHeight * 16);
    EXPECT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(cl_mem), &img));
    set_mem_arg(k, 1, out);
    size_t global[2] = {kWidth, kHeight};
    run(k, 2, global, nullptr);
    return read<float>(out, kWidth * kHeight * 4);
  }
  std::vector<uint8_t> read_bytes(cl_mem img, size_t element) {
    std::vector<uint8_t> bytes(kWidth * kHeight * element);
    size_t origin[3] = {0, 0, 0}, region[3] = {kWidth, kHeight, 1};
    EXPECT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, img, CL_TRUE, origin, region, 0, 0, bytes.data(), 0, nullptr, nullptr));
    return bytes;
  }
  std::vector<uint8_t> random_bytes(size_t n) {
    std::vector<uint8_t> bytes(n);
    for (auto& b : bytes) b = uint8_t(rng_());
    return bytes;
  }
};

// §7.4.1: a normalized integer read as float "shall be within 1.5 ulp" of exact.
bool unorm_read_matches(float got, double exact) {
  return std::fabs(got - exact) <= 1.5 * (std::nextafter(float(exact), 2.0f) - float(exact));
}

// IEC 61966-2-1's encoding (the spec's c_sRGB without its missing "- 0.055").
double srgb_encode(double y) { return y < 0.0031308 ? 12.92 * y : 1.055 * std::pow(y, 1 / 2.4) - 0.055; }

// An sRGBA view of an RGBA image reads the stored bytes through the sRGB transfer function,
// and shares them: a kernel's write to the RGBA image and a host write to the view are seen
// through the other.
TEST_P(ImageViews, SrgbViewSharesTheTexelsOfALinearImage) {
  if (!supported(CL_sRGBA, CL_UNORM_INT8, CL_MEM_READ_ONLY)) GTEST_SKIP() << "CL_sRGBA not listed";
  std::vector<uint8_t> bytes = random_bytes(kWidth * kHeight * 4);
  Mem linear = image(CL_RGBA, CL_UNORM_INT8, CL_MEM_READ_WRITE, bytes.data());
  cl_int err = CL_SUCCESS;
  Mem srgb = view(linear, CL_sRGBA, CL_UNORM_INT8, CL_MEM_READ_ONLY, &err);
  ASSERT_EQ(CL_SUCCESS, err);
  cl_mem associated = nullptr, buffer = linear;
  ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(srgb, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof(associated), &associated, nullptr));
  EXPECT_EQ(linear.get(), associated);
  ASSERT_EQ(CL_SUCCESS, clGetImageInfo(srgb, CL_IMAGE_BUFFER, sizeof(buffer), &buffer, nullptr));
  EXPECT_EQ(nullptr, buffer);

  auto check = [&](const std::vector<uint8_t>& want) {
    std::vector<float> got = read_all(srgb);
    for (size_t t = 0; t < kWidth * kHeight; ++t) {
      for (size_t ch = 0; ch < 3; ++ch)
        ASSERT_NEAR(255.0 * srgb_encode(got[t * 4 + ch]), want[t * 4 + ch], 0.5) << "texel " << t << " channel " << ch;
      ASSERT_TRUE(unorm_read_matches(got[t * 4 + 3], want[t * 4 + 3] / 255.0)) << "texel " << t << " alpha";
    }
    EXPECT_EQ(want, read_bytes(srgb, 4));
  };
  check(bytes);

  // A kernel writes the linear image: the view sees the new bytes.
  Program program = build(R"(
    __kernel void w(write_only image2d_t img) {
      int2 p = (int2)(get_global_id(0), get_global_id(1));
      write_imagef(img, p, (float4)((p.x + 0.25f) / 64.0f, (p.y + 0.25f) / 16.0f, 0.25f, 1.0f));
    })", "-cl-std=CL3.0");
  Kernel w = kernel(program, "w");
  cl_mem linear_h = linear.get();
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(w, 0, sizeof(cl_mem), &linear_h));
  size_t global[2] = {kWidth, kHeight};
  run(w, 2, global, nullptr);
  std::vector<uint8_t> written(kWidth * kHeight * 4);
  for (size_t y = 0; y < kHeight; ++y)
    for (size_t x = 0; x < kWidth; ++x) {
      uint8_t* t = &written[(y * kWidth + x) * 4];
      // §7.4.1: f * 255 rounded to nearest (the values are exact and never halfway).
      t[0] = uint8_t(std::lround((x + 0.25) / 64.0 * 255));
      t[1] = uint8_t(std::lround((y + 0.25) / 16.0 * 255));
      t[2] = uint8_t(std::lround(0.25 * 255));
      t[3] = 255;
    }
  check(written);

  // The host writes through the view: the linear image holds the bytes.
  std::vector<uint8_t> again = random_bytes(bytes.size());
  size_t origin[3] = {0, 0, 0}, region[3] = {kWidth, kHeight, 1};
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteImage(queue_, srgb, CL_TRUE, origin, region, 0, 0, again.data(), 0, nullptr, nullptr));
  EXPECT_EQ(again, read_bytes(linear, 4));
  std::vector<float> got = read_all(linear);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_TRUE(unorm_read_matches(got[i], again[i] / 255.0)) << "value " << i;
}

// The other way: an RGBA view of an sRGBA image reads the stored bytes as plain unorm8, and
// the view outlives the application's reference to the image it was made from.
TEST_P(ImageViews, LinearViewOfAnSrgbImage) {
  for (cl_channel_order order : {CL_sRGBA, CL_sBGRA}) {
    if (!supported(order, CL_UNORM_INT8, CL_MEM_READ_ONLY)) continue;
    SCOPED_TRACE(order == CL_sRGBA ? "sRGBA" : "sBGRA");
    std::vector<uint8_t> bytes = random_bytes(kWidth * kHeight * 4);
    cl_int err = CL_SUCCESS;
    Mem linear;
    {
      Mem srgb = image(order, CL_UNORM_INT8, CL_MEM_READ_ONLY, bytes.data());
      linear = view(srgb, order == CL_sRGBA ? CL_RGBA : CL_BGRA, CL_UNORM_INT8, 0, &err);
      ASSERT_EQ(CL_SUCCESS, err);
      cl_mem_flags flags = 0;
      ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(linear, CL_MEM_FLAGS, sizeof(flags), &flags, nullptr));
      EXPECT_EQ(cl_mem_flags(CL_MEM_READ_ONLY), flags & (CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY | CL_MEM_READ_WRITE))
          << "the access flags are inherited";
    }
    std::vector<float> got = read_all(linear);
    for (size_t t = 0; t < kWidth * kHeight; ++t) {
      const uint8_t* b = &bytes[t * 4];
      const uint8_t rgba[4] = {order == CL_sBGRA ? b[2] : b[0], b[1], order == CL_sBGRA ? b[0] : b[2], b[3]};
      for (size_t ch = 0; ch < 4; ++ch)
        ASSERT_TRUE(unorm_read_matches(got[t * 4 + ch], rgba[ch] / 255.0)) << "texel " << t << " channel " << ch;
    }
  }
}

// CL_R and CL_DEPTH see one another's texels (cl_khr_depth_images).
TEST_P(ImageViews, DepthViewOfASingleChannelImage) {
  if (!supported(CL_DEPTH, CL_FLOAT, CL_MEM_READ_ONLY) || !supported(CL_R, CL_FLOAT, CL_MEM_WRITE_ONLY))
    GTEST_SKIP() << "CL_DEPTH or CL_R of CL_FLOAT not listed";
  Mem red = image(CL_R, CL_FLOAT, CL_MEM_READ_WRITE, nullptr);
  cl_int err = CL_SUCCESS;
  Mem depth = view(red, CL_DEPTH, CL_FLOAT, CL_MEM_READ_ONLY, &err);
  ASSERT_EQ(CL_SUCCESS, err);
  Program program = build(R"(
    __kernel void w(write_only image2d_t img) {
      int2 p = (int2)(get_global_id(0), get_global_id(1));
      write_imagef(img, p, (float4)(p.x * 0.5f - p.y, 7.0f, 7.0f, 7.0f));
    }
    __kernel void r(read_only image2d_depth_t img, __global float* out) {
      int2 p = (int2)(get_global_id(0), get_global_id(1));
      out[p.y * get_global_size(0) + p.x] = read_imagef(img, p);
    })", "-cl-std=CL3.0");
  Kernel w = kernel(program, "w"), r = kernel(program, "r");
  cl_mem red_h = red.get(), depth_h = depth.get();
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(w, 0, sizeof(cl_mem), &red_h));
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(r, 0, sizeof(cl_mem), &depth_h));
  Mem out = poisoned(kWidth * kHeight * 4);
  set_mem_arg(r, 1, out);
  size_t global[2] = {kWidth, kHeight};
  run(w, 2, global, nullptr);
  run(r, 2, global, nullptr);
  std::vector<float> got = read<float>(out, kWidth * kHeight);
  for (size_t y = 0; y < kHeight; ++y)
    for (size_t x = 0; x < kWidth; ++x) ASSERT_EQ(got[y * kWidth + x], x * 0.5f - float(y)) << x << "," << y;
}

// Each rule of the image descriptor and format for an image made from an image.
TEST_P(ImageViews, RulesGiveTheSpecsErrors) {
  Mem rgba = image(CL_RGBA, CL_UNORM_INT8, CL_MEM_READ_ONLY, nullptr);
  cl_int err = CL_SUCCESS;
  // "The image channel data type specified in image_format must match".
  Mem m = view(rgba, CL_sRGBA, CL_UNORM_INT16, 0, &err);
  EXPECT_EQ(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, err);
  // An order that is not one of the pairs.
  m = view(rgba, CL_BGRA, CL_UNORM_INT8, 0, &err);
  EXPECT_EQ(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, err);
  // "All the values specified in image_desc except for mem_object must match".
  m = view(rgba, CL_RGBA, CL_UNORM_INT8, 0, &err, kWidth - 1);
  EXPECT_EQ(CL_INVALID_IMAGE_DESCRIPTOR, err);
  m = view(rgba, CL_RGBA, CL_UNORM_INT8, 0, &err, kWidth, kWidth * 4 + 4);
  EXPECT_EQ(CL_INVALID_IMAGE_DESCRIPTOR, err);
  // The pitch clGetImageInfo reports is the one that matches.
  size_t pitch = 0;
  ASSERT_EQ(CL_SUCCESS, clGetImageInfo(rgba, CL_IMAGE_ROW_PITCH, sizeof(pitch), &pitch, nullptr));
  m = view(rgba, CL_RGBA, CL_UNORM_INT8, 0, &err, kWidth, pitch);
  EXPECT_EQ(CL_SUCCESS, err);
  // mem_object was created with CL_MEM_READ_ONLY and flags specifies CL_MEM_WRITE_ONLY.
  m = view(rgba, CL_RGBA, CL_UNORM_INT8, CL_MEM_WRITE_ONLY, &err);
  EXPECT_EQ(CL_INVALID_VALUE, err);
  // mem_object of another image type.
  cl_image_format f{CL_RGBA, CL_UNORM_INT8};
  cl_image_desc d{};
  d.image_type = CL_MEM_OBJECT_IMAGE2D_ARRAY;
  d.image_width = kWidth;
  d.image_height = kHeight;
  d.image_array_size = 2;
  Mem array(clCreateImage(context_, CL_MEM_READ_ONLY, &f, &d, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  m = view(array, CL_RGBA, CL_UNORM_INT8, 0, &err);
  EXPECT_EQ(CL_INVALID_IMAGE_DESCRIPTOR, err);
  // A 2D array made from a 2D image: "mem_object can be an image object if image_type is
  // CL_MEM_OBJECT_IMAGE2D".
  d.mem_object = rgba;
  m = Mem(clCreateImage(context_, 0, &f, &d, nullptr, &err));
  EXPECT_EQ(CL_INVALID_IMAGE_DESCRIPTOR, err);
}

INSTANTIATE_TEST_SUITE_P(Options, ImageViews, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
