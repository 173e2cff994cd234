// read_write images (__opencl_c_read_write_images): each work-item reads its texel, writes
// a new value, fences, and reads it again; the image read back by the host and the kernel's
// second read are compared with the new value computed here. Every image type, integer and
// float formats. On devices that cannot read storage images of format Unknown (lavapipe)
// this is the path where the pipeline names the bound image's format.
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

struct Shape {
  cl_mem_object_type type;
  const char* cl_type;
  size_t width, height, depth;  // height: a 1D array's layers; depth: a 2D array's layers
  const char* coordinate;       // from int x, y, z
  size_t texels() const { return width * height * depth; }
};

const Shape kShapes[] = {{CL_MEM_OBJECT_IMAGE1D, "image1d_t", 37, 1, 1, "x"},
                         {CL_MEM_OBJECT_IMAGE1D_BUFFER, "image1d_buffer_t", 41, 1, 1, "x"},
                         {CL_MEM_OBJECT_IMAGE1D_ARRAY, "image1d_array_t", 9, 3, 1, "(int2)(x, y)"},
                         {CL_MEM_OBJECT_IMAGE2D, "image2d_t", 11, 7, 1, "(int2)(x, y)"},
                         {CL_MEM_OBJECT_IMAGE2D_ARRAY, "image2d_array_t", 5, 4, 3, "(int4)(x, y, z, 0)"},
                         {CL_MEM_OBJECT_IMAGE3D, "image3d_t", 5, 3, 4, "(int4)(x, y, z, 0)"}};

enum class Kind { Float, Unorm, Half, Int, UInt };

struct Format {
  cl_channel_order order;
  cl_channel_type type;
  Kind kind;
  size_t channel_size;
  size_t channels() const { return order == CL_RGBA ? 4 : 1; }
  bool integer() const { return kind == Kind::Int || kind == Kind::UInt; }
};

// OpenCL 3.0's minimum list for read_write images is CL_R and CL_RGBA of these types.
const Format kFormats[] = {{CL_RGBA, CL_UNORM_INT8, Kind::Unorm, 1},     {CL_R, CL_UNORM_INT8, Kind::Unorm, 1},
                           {CL_RGBA, CL_FLOAT, Kind::Float, 4},          {CL_R, CL_FLOAT, Kind::Float, 4},
                           {CL_RGBA, CL_HALF_FLOAT, Kind::Half, 2},      {CL_R, CL_HALF_FLOAT, Kind::Half, 2},
                           {CL_RGBA, CL_SIGNED_INT8, Kind::Int, 1},      {CL_R, CL_SIGNED_INT16, Kind::Int, 2},
                           {CL_RGBA, CL_SIGNED_INT32, Kind::Int, 4},     {CL_RGBA, CL_UNSIGNED_INT8, Kind::UInt, 1},
                           {CL_R, CL_UNSIGNED_INT16, Kind::UInt, 2},     {CL_RGBA, CL_UNSIGNED_INT32, Kind::UInt, 4}};

// Channel c of texel t before the kernel: small integers every type holds exactly (halves
// as their bit patterns, unorm bytes across their whole range).
uint32_t initial_bits(const Format& f, size_t t, size_t c) {
  int v = int((t * 7 + c * 3) % 40);
  switch (f.kind) {
    case Kind::Unorm: return uint32_t((t * 37 + c * 101) % 256);
    case Kind::Float: { float x = float(v - 20); uint32_t b; std::memcpy(&b, &x, 4); return b; }
    case Kind::Half: return v < 20 ? 0xC000u : 0x3C00u;  // -2.0 or 1.0
    case Kind::Int: return uint32_t(v - 20);
    case Kind::UInt: return uint32_t(v);
  }
  return 0;
}

// The kernel's new value of a channel holding |bits|, as the bits the image then holds.
uint32_t written_bits(const Format& f, uint32_t bits) {
  switch (f.kind) {
    case Kind::Unorm: return 255 - bits;  // 1 - v, exact in float before rounding back
    case Kind::Float: { float x; std::memcpy(&x, &bits, 4); x = x * 2 + 1; std::memcpy(&bits, &x, 4); return bits; }
    case Kind::Half: return bits == 0x3C00u ? 0x4200u : 0xC200u;  // v * 2 + 1: 1 -> 3, -2 -> -3
    case Kind::Int: return uint32_t(int32_t(bits) * 2 - 1);
    case Kind::UInt: return bits * 2 + 1;
  }
  return 0;
}

// The texel as the kernel's second read returns it (x, y, z, w): missing channels of CL_R
// read as 0, 0, 1.
std::array<uint32_t, 4> read_bits(const Format& f, const uint32_t* channels) {
  uint32_t one = f.integer() ? 1u : 0x3F800000u;
  std::array<uint32_t, 4> r = {channels[0], 0, 0, one};
  if (f.channels() == 4) r = {channels[0], channels[1], channels[2], channels[3]};
  for (size_t c = 0; c < f.channels(); ++c) {
    float x;
    if (f.kind == Kind::Unorm) x = float(channels[c]) / 255.0f;
    else if (f.kind == Kind::Half) x = channels[c] == 0x4200u ? 3.0f : channels[c] == 0xC200u ? -3.0f : NAN;
    else continue;
    std::memcpy(&r[c], &x, 4);
  }
  return r;
}

std::string kernel_source(const Shape& s, const Format& f) {
  const char* vec = f.integer() ? (f.kind == Kind::Int ? "int4" : "uint4") : "float4";
  const char* suffix = f.kind == Kind::Int ? "i" : f.kind == Kind::UInt ? "ui" : "f";
  std::string update = f.kind == Kind::Unorm ? "(float4)(1.0f) - v"
                       : f.kind == Kind::Half || f.kind == Kind::Float ? "v * 2 + 1"
                       : f.kind == Kind::Int   ? "v * 2 - 1"
                                               : "v * 2 + 1";
  return std::string("__kernel void k(read_write ") + s.cl_type + " img, __global " + vec +
         "* out) {\n"
         "  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
         "  " + vec + " v = read_image" + suffix + "(img, " + s.coordinate + ");\n"
         "  write_image" + suffix + "(img, " + s.coordinate + ", " + update + ");\n"
         "  atomic_work_item_fence(CLK_IMAGE_MEM_FENCE, memory_order_acq_rel, memory_scope_work_item);\n"
         "  size_t i = (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0) + x;\n"
         "  out[i] = read_image" + suffix + "(img, " + s.coordinate + ");\n}\n";
}

class ReadWriteImages : public KernelTest {
 protected:
  cl_uint read_write_args() {
    cl_uint n = 0;
    EXPECT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, sizeof n, &n, nullptr));
    return n;
  }
  std::vector<cl_image_format> formats(cl_mem_flags flags, cl_mem_object_type type) {
    cl_uint n = 0;
    EXPECT_EQ(CL_SUCCESS, clGetSupportedImageFormats(context_, flags, type, 0, nullptr, &n));
    std::vector<cl_image_format> list(n);
    if (n) {
      EXPECT_EQ(CL_SUCCESS, clGetSupportedImageFormats(context_, flags, type, n, list.data(), nullptr));
    }
    return list;
  }
  bool listed(const Format& f, cl_mem_flags flags, cl_mem_object_type type) {
    for (const auto& l : formats(flags, type))
      if (l.image_channel_order == f.order && l.image_channel_data_type == f.type) return true;
    return false;
  }
  // An image of |s| and |f| holding |data|; a 1D buffer image over |backing|, made here.
  // clSetKernelArg's answer for a 2D image of |f| (4-byte texels) given to a read_write
  // argument of kernel_source's kernel for |kernel_format|.
  cl_int set_as_read_write_arg(const Format& f, const Format& kernel_format) {
    const Shape& s = kShapes[3];
    Mem backing;
    Mem img = image(s, f, std::vector<uint8_t>(s.texels() * 4), &backing);
    Program p = build(kernel_source(s, kernel_format), "-cl-std=CL3.0");
    Kernel k = kernel(p, "k");
    cl_mem h = img.get();
    return clSetKernelArg(k, 0, sizeof h, &h);
  }
  Mem image(const Shape& s, const Format& f, const std::vector<uint8_t>& data, Mem* backing) {
    cl_image_desc d{};
    d.image_type = s.type;
    d.image_width = s.width;
    if (s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY) d.image_array_size = s.height;
    if (s.type == CL_MEM_OBJECT_IMAGE2D || s.type == CL_MEM_OBJECT_IMAGE2D_ARRAY || s.type == CL_MEM_OBJECT_IMAGE3D)
      d.image_height = s.height;
    if (s.type == CL_MEM_OBJECT_IMAGE2D_ARRAY) d.image_array_size = s.depth;
    if (s.type == CL_MEM_OBJECT_IMAGE3D) d.image_depth = s.depth;
    cl_mem_flags flags = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
    if (s.type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
      *backing = buffer(data.size(), data.data());
      d.buffer = backing->get();
      flags = CL_MEM_READ_WRITE;
    }
    cl_image_format format{f.order, f.type};
    cl_int err = CL_SUCCESS;
    Mem m(clCreateImage(context_, flags, &format, &d, flags & CL_MEM_COPY_HOST_PTR ? (void*)data.data() : nullptr, &err));
    EXPECT_EQ(CL_SUCCESS, err) << s.cl_type;
    return m;
  }
};

TEST_P(ReadWriteImages, ReportedWithTheMinimumFormats) {
  cl_bool images = CL_FALSE;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr));
  if (!images) GTEST_SKIP() << "no images";
  cl_uint n = read_write_args();
  size_t size = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_OPENCL_C_FEATURES, 0, nullptr, &size));
  std::vector<cl_name_version> features(size / sizeof(cl_name_version));
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_OPENCL_C_FEATURES, size, features.data(), nullptr));
  bool reported = false;
  for (const auto& f : features) reported = reported || std::string(f.name) == "__opencl_c_read_write_images";
  EXPECT_EQ(reported, n > 0);
  if (!n) GTEST_SKIP() << "no read_write images";
  // "The minimum value is 64 if CL_DEVICE_IMAGE_SUPPORT is CL_TRUE" for devices with them.
  EXPECT_GE(n, 64u);
  for (const Format& f : kFormats)
    EXPECT_TRUE(listed(f, CL_MEM_KERNEL_READ_AND_WRITE, CL_MEM_OBJECT_IMAGE2D)) << f.order << " " << f.type;
}

TEST_P(ReadWriteImages, ReadWriteFenceReadEveryTypeAndFormat) {
  if (!read_write_args()) GTEST_SKIP() << "no read_write images";
  int checked = 0;
  for (const Shape& s : kShapes)
    for (const Format& f : kFormats) {
      if (!listed(f, CL_MEM_KERNEL_READ_AND_WRITE, s.type)) continue;
      SCOPED_TRACE(std::string(s.cl_type) + " order " + std::to_string(f.order) + " type " + std::to_string(f.type));
      std::vector<uint8_t> data(s.texels() * f.channels() * f.channel_size);
      std::vector<uint32_t> want(s.texels() * f.channels());
      for (size_t t = 0; t < s.texels(); ++t)
        for (size_t c = 0; c < f.channels(); ++c) {
          uint32_t bits = initial_bits(f, t, c);
          std::memcpy(&data[(t * f.channels() + c) * f.channel_size], &bits, f.channel_size);
          uint32_t w = written_bits(f, bits);
          // The image keeps channel_size bytes: sign-extend narrow signed integers.
          if (f.kind == Kind::Int && f.channel_size < 4) w = uint32_t(int32_t(w << (32 - 8 * f.channel_size)) >> (32 - 8 * f.channel_size));
          want[t * f.channels() + c] = w;
        }
      Mem backing;
      Mem img = image(s, f, data, &backing);
      Mem out = poisoned(s.texels() * 16);
      Program p = build(kernel_source(s, f), "-cl-std=CL3.0");
      Kernel k = kernel(p, "k");
      cl_mem h = img.get();
      ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof h, &h));
      set_mem_arg(k, 1, out);
      size_t global[3] = {s.width, s.height, s.depth};
      run(k, 3, global, nullptr);

      std::vector<uint8_t> host(data.size());
      size_t origin[3] = {0, 0, 0}, region[3] = {s.width, s.height, s.depth};
      if (s.type == CL_MEM_OBJECT_IMAGE1D_BUFFER)
        ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, backing, CL_TRUE, 0, host.size(), host.data(), 0, nullptr, nullptr));
      else
        ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, img, CL_TRUE, origin, region, 0, 0, host.data(), 0, nullptr, nullptr));
      auto second = read<uint32_t>(out, s.texels() * 4);
      for (size_t t = 0; t < s.texels(); ++t) {
        uint32_t channels[4] = {0, 0, 0, 0};
        for (size_t c = 0; c < f.channels(); ++c) {
          uint32_t got = 0;
          std::memcpy(&got, &host[(t * f.channels() + c) * f.channel_size], f.channel_size);
          uint32_t mask = f.channel_size == 4 ? ~0u : (1u << (8 * f.channel_size)) - 1;
          ASSERT_EQ(want[t * f.channels() + c] & mask, got) << "texel " << t << " channel " << c;
          channels[c] = want[t * f.channels() + c];
        }
        auto expect = read_bits(f, channels);
        for (int c = 0; c < 4; ++c) {
          float e, g;
          std::memcpy(&e, &expect[c], 4);
          std::memcpy(&g, &second[t * 4 + c], 4);
          // Normalized reads may be 1.5 ulp off x / 255 (0 and 1 exact).
          if (f.kind == Kind::Unorm && e != 0.0f && e != 1.0f)
            ASSERT_NEAR(e, g, 1.5f * std::ldexp(1.0f, std::ilogb(e) - 23)) << "second read, texel " << t << " component " << c;
          else
            ASSERT_EQ(expect[c], second[t * 4 + c]) << "second read, texel " << t << " component " << c;
        }
      }
      ++checked;
    }
  // Every type and every format of the minimum list runs where the device has read_write images.
  EXPECT_EQ(checked, int(std::size(kShapes) * std::size(kFormats)));
}

// A format SPIR-V cannot name (CL_BGRA) on a device that cannot read storage images of format
// Unknown: not listed for read_write images, and refused as a read_write argument.
TEST_P(ReadWriteImages, FormatsWithoutASpirvNameAreRefusedWhereTheyCannotRun) {
  if (!read_write_args()) GTEST_SKIP() << "no read_write images";
  Format bgra{CL_BGRA, CL_UNORM_INT8, Kind::Unorm, 1};
  if (listed(bgra, CL_MEM_KERNEL_READ_AND_WRITE, CL_MEM_OBJECT_IMAGE2D)) GTEST_SKIP() << "read_write CL_BGRA runs here";
  if (!listed(bgra, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D)) GTEST_SKIP() << "no CL_BGRA images";
  EXPECT_EQ(CL_INVALID_ARG_VALUE, set_as_read_write_arg(bgra, kFormats[0]));
}

// CL_INTENSITY, written through a view without its swizzle: listed for CL_MEM_READ_WRITE (a
// kernel writes it, or reads it through the swizzle) but not for CL_MEM_KERNEL_READ_AND_WRITE,
// and refused as a read_write argument, whose reads would lose the swizzle (I, 0, 0, 1).
TEST_P(ReadWriteImages, SwizzledFormatsAreNotReadWriteArguments) {
  if (!read_write_args()) GTEST_SKIP() << "no read_write images";
  Format intensity{CL_INTENSITY, CL_FLOAT, Kind::Float, 4};
  EXPECT_FALSE(listed(intensity, CL_MEM_KERNEL_READ_AND_WRITE, CL_MEM_OBJECT_IMAGE2D));
  ASSERT_TRUE(listed(intensity, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D));
  EXPECT_EQ(CL_INVALID_ARG_VALUE, set_as_read_write_arg(intensity, kFormats[1]));
}

INSTANTIATE_TEST_SUITE_P(Options, ReadWriteImages, ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
