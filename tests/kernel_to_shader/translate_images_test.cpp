// Image and sampler arguments through translate() (lower_image.cpp): clang's output at -O2
// and -O0 (images kept in variables, passed to functions), with and without the loop-limit
// probe; every output passes spirv-val for Vulkan (translate() validates), and the interface
// says which descriptor each image is.
#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/compiler.h"
#include "kernel_to_shader/spirv_text.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::test {
namespace {

compiler::DeviceFeatures image_features() {
  compiler::DeviceFeatures features;
  features.features = {"__opencl_c_int64", "__opencl_c_images", "__opencl_c_read_write_images",
                       "__opencl_c_3d_image_writes", "__opencl_c_generic_address_space"};
  features.extensions = {"cl_khr_3d_image_writes"};
  features.images = true;
  features.fp16 = true;
  return features;
}

k2s::TargetCaps image_caps() {
  k2s::TargetCaps caps;
  caps.int8 = caps.int16 = caps.storage8 = caps.storage16 = caps.float16 = true;
  caps.images = caps.storage_image_write_without_format = caps.read_write_images = true;
  return caps;
}

const char* kSource = R"(
__kernel void rdf(read_only image2d_t img, sampler_t s, __global float4* out, write_only image2d_t w) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  out[p.y * get_global_size(0) + p.x] = read_imagef(img, s, (float2)(p.x * 0.37f, p.y * 0.53f));
  write_imagef(w, p, read_imagef(img, p));
}
__kernel void rdi(read_only image2d_array_t img, sampler_t s, __global int4* out,
                  write_only image3d_t w, read_only image1d_t one, __global uint4* o2) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  out[0] = read_imagei(img, s, (int4)(p, 1, 0));
  out[1] = read_imagei(img, s, (float4)(0.5f, 0.5f, 1.0f, 0.0f));
  write_imagei(w, (int4)(p, 2, 0), out[2]);
  o2[0] = read_imageui(one, s, 0.3f);
  out[2] = (int4)(get_image_width(img), get_image_height(img), get_image_channel_data_type(img),
                  get_image_channel_order(img));
  out[3] = (int4)(get_image_dim(w).xyz, get_image_array_size(img));
}
const sampler_t cs = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
float4 helper(read_only image3d_t img, float4 c) { return read_imagef(img, cs, c); }
__kernel void lit(read_only image3d_t img, __global float4* out, write_only image1d_array_t wa,
                  read_write image1d_t rw) {
  out[0] = helper(img, (float4)(0.5f, 0.5f, 0.3f, 0.f));
  write_imagef(wa, (int2)(1, 2), out[0]);
  write_imageh(rw, 3, read_imageh(rw, 2));
}
)";

class TranslateImages : public ::testing::TestWithParam<const char*> {};

TEST_P(TranslateImages, ArgumentsBecomeDescriptors) {
  auto compiled = compiler::compile(kSource, std::string(GetParam()) + " -cl-std=CL3.0", image_features());
  ASSERT_TRUE(compiled.ok) << compiled.log;
  for (bool loop_limit : {false, true}) {
    k2s::TargetCaps caps = image_caps();
    caps.loop_iteration_limit = loop_limit;
    k2s::TranslateResult r = k2s::translate(compiled.spirv, caps);
    ASSERT_TRUE(r.ok) << r.log;
    ASSERT_EQ(3u, r.kernels.size());
    for (const auto& k : r.kernels) {
      const auto& a = k.interface.args;
      uint32_t words_end = 0;
      for (const auto& arg : a) words_end = std::max(words_end, arg.offset + arg.size);
      EXPECT_LE(words_end, k.interface.argument_block_size);
      if (k.interface.name == "rdf") {
        ASSERT_EQ(4u, a.size());
        EXPECT_EQ(k2s::ArgKind::Image, a[0].kind);
        EXPECT_EQ(0u, a[0].binding);
        EXPECT_EQ(24u, a[0].size);
        EXPECT_EQ(k2s::ImageAccess::ReadOnly, a[0].image_access);
        EXPECT_EQ(k2s::ImageTexel::Float, a[0].image_texel);
        EXPECT_EQ(k2s::ImageDim::k2D, a[0].image_dim);
        EXPECT_EQ(k2s::ArgKind::Sampler, a[1].kind);
        EXPECT_EQ(4u, a[1].size);
        EXPECT_EQ(k2s::ArgKind::GlobalPointer, a[2].kind);
        EXPECT_EQ(3u, a[3].binding);
        EXPECT_EQ(k2s::ImageAccess::WriteOnly, a[3].image_access);
      } else if (k.interface.name == "rdi") {
        ASSERT_EQ(6u, a.size());
        EXPECT_EQ(k2s::ImageDim::k2DArray, a[0].image_dim);
        EXPECT_EQ(k2s::ImageTexel::Int, a[0].image_texel);
        EXPECT_EQ(k2s::ImageDim::k3D, a[3].image_dim);
        EXPECT_EQ(k2s::ImageTexel::Int, a[3].image_texel);
        EXPECT_EQ(k2s::ImageDim::k1D, a[4].image_dim);
        EXPECT_EQ(k2s::ImageTexel::UInt, a[4].image_texel);
        EXPECT_EQ(4u, a[4].binding);
      } else {
        ASSERT_EQ("lit", k.interface.name);
        ASSERT_EQ(4u, a.size());
        EXPECT_EQ(k2s::ImageDim::k3D, a[0].image_dim);
        EXPECT_EQ(k2s::ImageDim::k1DArray, a[2].image_dim);
        EXPECT_EQ(k2s::ImageAccess::ReadWrite, a[3].image_access);
        EXPECT_EQ(k2s::ImageTexel::Float, a[3].image_texel);
      }
    }
  }
}

TEST_P(TranslateImages, WhatTheDeviceCannotDoIsABuildError) {
  auto compiled = compiler::compile(kSource, std::string(GetParam()) + " -cl-std=CL3.0", image_features());
  ASSERT_TRUE(compiled.ok) << compiled.log;
  k2s::TargetCaps caps = image_caps();
  caps.read_write_images = false;
  k2s::TranslateResult r = k2s::translate(compiled.spirv, caps);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("__opencl_c_read_write_images"), std::string::npos) << r.log;
  caps.read_write_images = true;
  caps.storage_image_write_without_format = false;
  r = k2s::translate(compiled.spirv, caps);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("shaderStorageImageWriteWithoutFormat"), std::string::npos) << r.log;
}

// Read_write images on devices that cannot read storage images of format Unknown: the
// pipeline's module names the bound format (type_storage_images). The write_only images keep
// format Unknown; the module stays valid for Vulkan; extended formats declare their capability.
TEST_P(TranslateImages, ReadWriteImagesTakeTheBoundFormat) {
  const char* source = R"(
__kernel void k(read_write image2d_t a, write_only image2d_t w, read_write image1d_buffer_t b, int n) {
  int2 p = (int2)(get_global_id(0), 0);
  float4 v = read_imagef(a, p);
  write_imagef(a, p, v + 1);
  write_imagef(w, p, v);
  if (n) write_imagef(b, p.x, read_imagef(b, p.x) * 2);
})";
  auto compiled = compiler::compile(source, std::string(GetParam()) + " -cl-std=CL3.0", image_features());
  ASSERT_TRUE(compiled.ok) << compiled.log;
  k2s::TranslateResult r = k2s::translate(compiled.spirv, image_caps());
  ASSERT_TRUE(r.ok) << r.log;
  const auto& args = r.kernels[0].interface.args;
  ASSERT_EQ(4u, args.size());
  std::string before = disassemble(r.kernels[0].shader);
  EXPECT_NE(before.find("OpCapability StorageImageReadWithoutFormat"), std::string::npos);
  // Both read_write images: no read of format Unknown is left.
  std::vector<uint32_t> typed = k2s::type_storage_images(
      r.kernels[0].shader, {{args[0].binding, uint32_t(spv::ImageFormat::Rgba8)}, {args[2].binding, uint32_t(spv::ImageFormat::R16f)}});
  EXPECT_EQ("", validate_vulkan(typed));
  std::string text = disassemble(typed);
  EXPECT_EQ(text.find("OpCapability StorageImageReadWithoutFormat"), std::string::npos) << text;
  EXPECT_NE(text.find("OpCapability StorageImageWriteWithoutFormat"), std::string::npos);  // |w|
  EXPECT_NE(text.find("OpCapability StorageImageExtendedFormats"), std::string::npos);     // R16f
  EXPECT_NE(text.find("2D 0 0 0 2 Rgba8"), std::string::npos) << text;
  EXPECT_NE(text.find("Buffer 0 0 0 2 R16f"), std::string::npos) << text;
  EXPECT_NE(text.find("2D 0 0 0 2 Unknown"), std::string::npos) << text;
  // One of them: the other still reads format Unknown.
  typed = k2s::type_storage_images(r.kernels[0].shader, {{args[0].binding, uint32_t(spv::ImageFormat::Rgba32f)}});
  EXPECT_EQ("", validate_vulkan(typed));
  text = disassemble(typed);
  EXPECT_NE(text.find("OpCapability StorageImageReadWithoutFormat"), std::string::npos);
  EXPECT_EQ(text.find("OpCapability StorageImageExtendedFormats"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Options, TranslateImages, ::testing::Values("", "-cl-opt-disable"),
                         [](const auto& info) { return std::string(*info.param ? "O0" : "O2"); });

// A device that reports no images gets no image kernels.
TEST(TranslateImagesErrors, WithoutImagesTheyAreABuildError) {
  auto compiled = compiler::compile(kSource, "-cl-std=CL3.0", image_features());
  ASSERT_TRUE(compiled.ok) << compiled.log;
  k2s::TargetCaps caps = image_caps();
  caps.images = false;
  k2s::TranslateResult r = k2s::translate(compiled.spirv, caps);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("ImageBasic is not supported"), std::string::npos) << r.log;
}

TEST(TranslateImagesErrors, OneImageReadAsFloatAndIntIsABuildError) {
  auto compiled = compiler::compile(
      "__kernel void k(read_only image2d_t img, __global float4* f, __global int4* i) {\n"
      "  f[0] = read_imagef(img, (int2)(0, 0)); i[0] = read_imagei(img, (int2)(0, 0)); }",
      "-cl-std=CL3.0", image_features());
  ASSERT_TRUE(compiled.ok) << compiled.log;
  k2s::TranslateResult r = k2s::translate(compiled.spirv, image_caps());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("image used both as float"), std::string::npos) << r.log;
}

// KernelInterface::rerunnable: a module whose code writes only local memory and write_only
// images may run again from the start; any global write, global atomic, read_write image
// write or printf anywhere in it, at -O2 or -O0, makes every kernel of it not rerunnable.
TEST(TranslateImages, RerunnableOnlyWithoutWritesOutsideLocalMemoryAndImages) {
  const char* blur = R"(
    __kernel void blur(read_only image2d_t in, write_only image2d_t out, __global const float* w,
                       int radius) {
      int2 p = (int2)(get_global_id(0), get_global_id(1));
      __local float l[64];
      l[get_local_id(0) % 64] = w[0];
      barrier(CLK_LOCAL_MEM_FENCE);
      float4 sum = 0;
      for (int k = -radius; k <= radius; ++k) sum += read_imagef(in, p + (int2)(k, 0)) * l[0];
      write_imagef(out, p, sum);
    }
  )";
  const std::pair<const char*, const char*> writers[] = {
      {"global store", "__kernel void x(__global float* o) { o[get_global_id(0)] = 1.0f; }"},
      {"global atomic", "__kernel void x(__global int* o) { atomic_add(o, 1); }"},
      {"vstore to global", "__kernel void x(__global float* o) { vstore4((float4)(1.0f), 0, o); }"},
      {"read_write image", "__kernel void x(read_write image2d_t i) { write_imagef(i, (int2)(0, 0), (float4)(0)); }"},
      {"printf", "__kernel void x() { printf(\"%d\\n\", 1); }"},
      {"through a helper", "void put(__global int* p) { *p = 2; } __kernel void x(__global int* o) { put(o); }"},
  };
  for (const char* options : {"-cl-std=CL3.0", "-cl-std=CL3.0 -cl-opt-disable"}) {
    auto translate = [&](const std::string& source) {
      auto compiled = compiler::compile(source, options, image_features());
      EXPECT_TRUE(compiled.ok) << compiled.log;
      k2s::TranslateResult r = k2s::translate(compiled.spirv, image_caps());
      EXPECT_TRUE(r.ok) << r.log;
      return r;
    };
    k2s::TranslateResult r = translate(std::string(blur) +
                                       "__kernel void local_atomics(__local int* c) { atomic_inc(c); }");
    ASSERT_EQ(2u, r.kernels.size());
    EXPECT_TRUE(r.kernels[0].interface.rerunnable) << options;
    EXPECT_TRUE(r.kernels[1].interface.rerunnable) << options;
    for (const auto& [what, source] : writers) {
      k2s::TranslateResult w = translate(std::string(blur) + source);
      ASSERT_EQ(2u, w.kernels.size()) << what;
      EXPECT_FALSE(w.kernels[0].interface.rerunnable) << what << " " << options;
      EXPECT_FALSE(w.kernels[1].interface.rerunnable) << what << " " << options;
    }
  }
}

// KernelInterface::rerunnable_restoring_buffers: at -O2 LLVM marks the pointer parameters
// NoCapture and the read ones NoWrite; a pointer loaded from memory or made from an integer
// makes the module's writes unknown, a parameter that is not NoCapture its kernel's.
TEST(TranslateImages, RestoringBuffersNeedsWritesThroughParametersOnly) {
  auto translate = [](const char* source) {
    compiler::DeviceFeatures features = image_features();
    features.features.push_back("__opencl_c_program_scope_global_variables");
    auto compiled = compiler::compile(source, "-cl-std=CL3.0", features);
    EXPECT_TRUE(compiled.ok) << compiled.log;
    k2s::TranslateResult r = k2s::translate(compiled.spirv, image_caps());
    EXPECT_TRUE(r.ok) << r.log;
    return r;
  };
  k2s::TranslateResult r = translate(R"(
    __kernel void mm(int n, __global const float* a, __global const float* b, __global float* c) {
      float s = 0;
      for (int k = 0; k < n; ++k) s += a[get_global_id(0) * n + k] * b[k];
      c[get_global_id(0)] += s;
    })");
  ASSERT_EQ(1u, r.kernels.size());
  const k2s::KernelInterface& ki = r.kernels[0].interface;
  EXPECT_FALSE(ki.rerunnable);
  EXPECT_TRUE(ki.rerunnable_restoring_buffers);
  ASSERT_EQ(4u, ki.args.size());
  EXPECT_TRUE(ki.args[1].read_only);
  EXPECT_TRUE(ki.args[2].read_only);
  EXPECT_FALSE(ki.args[3].read_only);
  for (const char* source : {
           "__kernel void k(__global int* __global* p) { *p[0] = 1; }",
           "__kernel void k(ulong address) { *(__global int*)address = 1; }",
           "__global int g; __kernel void k(__global int* o) { g = 1; o[0] = 2; }"}) {
    k2s::TranslateResult w = translate(source);
    ASSERT_EQ(1u, w.kernels.size()) << source;
    EXPECT_FALSE(w.kernels[0].interface.rerunnable_restoring_buffers) << source;
  }
  // A kernel that keeps the address of a parameter (here as an integer: LLVM's nocapture does
  // not hold) may write through copies of it; the kernel beside it still restores.
  k2s::TranslateResult two = translate(R"(
    __kernel void keeps(__global ulong* out, __global int* p) { out[0] = (ulong)p; p[1] = 3; }
    __kernel void plain(__global const int* a, __global int* c) { c[get_global_id(0)] += a[0]; })");
  ASSERT_EQ(2u, two.kernels.size());
  EXPECT_EQ("keeps", two.kernels[0].interface.name);
  EXPECT_FALSE(two.kernels[0].interface.rerunnable_restoring_buffers);
  EXPECT_TRUE(two.kernels[1].interface.rerunnable_restoring_buffers);
  ASSERT_EQ(2u, two.kernels[1].interface.args.size());
  EXPECT_TRUE(two.kernels[1].interface.args[0].read_only);
  EXPECT_FALSE(two.kernels[1].interface.args[1].read_only);
}

}  // namespace
}  // namespace vkcl::test
