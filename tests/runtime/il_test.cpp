// clCreateProgramWithIL: Kernel SPIR-V made offline, run on the device, checked on the CPU.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class ILProgram : public KernelTest {
 protected:
  // A program from the IL file |name| made at build time (tests/CMakeLists.txt).
  Program from_il(const std::string& name) {
    std::string path = std::string(VKCL_IL_DIR) + "/" + name;
    std::ifstream file(path, std::ios::binary);
    EXPECT_TRUE(file) << path;
    std::string il((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    cl_int err = CL_SUCCESS;
    Program p(clCreateProgramWithIL(context_, il.data(), il.size(), &err));
    EXPECT_EQ(CL_SUCCESS, err);
    return p;
  }
};

// cl_khr_spirv_extended_debug_info: the -O0 module again, with OpenCL.DebugInfo.100
// instructions at module scope and in the function.
TEST_P(ILProgram, ScaleKernelWithDebugInfo) {
  std::ifstream file(std::string(VKCL_IL_DIR) + "/scale.debug.spv", std::ios::binary);
  std::string il((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  ASSERT_NE(il.find("OpenCL.DebugInfo.100"), std::string::npos);
  char extensions[4096] = {};
  clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions, nullptr);
  EXPECT_NE(nullptr, std::strstr(extensions, "cl_khr_spirv_extended_debug_info"));
  Program p = from_il("scale.debug.spv");
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(p, 1, &device_, "", nullptr, nullptr)) << log_of(p);
  Kernel k = kernel(p, "scale");
  const size_t n = 100;
  std::vector<float> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = float(i) * 0.5f;
  Mem din = buffer(n * 4, in.data()), dout = poisoned(n * 4);
  float factor = 2.0f;
  set_mem_arg(k, 0, din); set_mem_arg(k, 1, dout); set_arg(k, 2, factor);
  run(k, 1, &n, nullptr);
  auto out = read<float>(dout, n);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(out[i], float(i) * 2.0f) << i;  // exact either way
}

TEST_P(ILProgram, ScaleKernelFromSpirv) {
  Program p = from_il(std::string("scale.") + (GetParam().empty() ? "O2" : "O0") + ".spv");
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(p, 1, &device_, "", nullptr, nullptr));
  Kernel k = kernel(p, "scale");
  const size_t n = 777;
  std::uniform_real_distribution<float> dist(-50, 50);
  std::vector<float> in(n);
  for (auto& v : in) v = dist(rng_);
  Mem din = buffer(n * 4, in.data()), dout = poisoned(n * 4);
  float factor = -3.25f;
  set_mem_arg(k, 0, din); set_mem_arg(k, 1, dout); set_arg(k, 2, factor);
  run(k, 1, &n, nullptr);
  auto out = read<float>(dout, n);
  for (size_t i = 0; i < n; ++i) {
    volatile float product = in[i] * factor;
    float separate = product + float(i), fused = std::fma(in[i], factor, float(i));
    ASSERT_TRUE(out[i] == separate || out[i] == fused) << i << ": " << out[i];
  }
}

// clSetProgramSpecializationConstant: values set before a build replace the defaults; each
// build takes the values set so far; wrong ids, sizes and programs give the spec's errors.
TEST_P(ILProgram, SpecializationConstants) {
  Program p = from_il("spec.spv");
  cl_int err = CL_SUCCESS;
  auto run_once = [&]() {
    EXPECT_EQ(CL_SUCCESS, clBuildProgram(p, 1, &device_, "", nullptr, nullptr));
    Kernel k = kernel(p, "spec");
    Mem out = poisoned(12);
    set_mem_arg(k, 0, out);
    size_t one = 1;
    run(k, 1, &one, nullptr);
    return read<uint32_t>(out, 3);
  };
  EXPECT_EQ(run_once(), (std::vector<uint32_t>{7, 9, 1}));  // the defaults
  uint32_t a = 123456;
  uint64_t b = 0x100000005ull;  // the kernel keeps the low 32 bits
  uint8_t c = 0;
  EXPECT_EQ(CL_SUCCESS, clSetProgramSpecializationConstant(p, 1, sizeof a, &a));
  EXPECT_EQ(CL_SUCCESS, clSetProgramSpecializationConstant(p, 2, sizeof b, &b));
  EXPECT_EQ(CL_SUCCESS, clSetProgramSpecializationConstant(p, 3, sizeof c, &c));
  EXPECT_EQ(run_once(), (std::vector<uint32_t>{123456, 5, 0}));
  EXPECT_EQ(CL_INVALID_SPEC_ID, clSetProgramSpecializationConstant(p, 9, 4, &a));
  EXPECT_EQ(CL_INVALID_VALUE, clSetProgramSpecializationConstant(p, 1, 8, &b));
  EXPECT_EQ(CL_INVALID_VALUE, clSetProgramSpecializationConstant(p, 1, 4, nullptr));
  const char* src = "__kernel void k() {}";
  Program from_source(clCreateProgramWithSource(context_, 1, &src, nullptr, &err));
  EXPECT_EQ(CL_INVALID_PROGRAM, clSetProgramSpecializationConstant(from_source, 1, 4, &a));
}

// OpSpecConstantOp over specialization constants: the kernel stores 24 operations on them
// (tests/data/il/spec_op.spvasm); each is recomputed here for the defaults and for values
// set through clSetProgramSpecializationConstant.
TEST_P(ILProgram, SpecConstantOps) {
  Program p = from_il("spec_op.spv");
  auto bits = [](float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  };
  // SMod: the remainder takes the sign of the divisor.
  auto smod = [](int32_t x, int32_t y) {
    int32_t m = x % y;
    return m != 0 && (m < 0) != (y < 0) ? m + y : m;
  };
  auto expected = [&](uint32_t a, int32_t b, float f, bool c, uint64_t l) {
    int32_t sa = int32_t(a);
    uint32_t ub = uint32_t(b);
    float fmod_sign_of_divisor = std::fmod(-f, 1.0f);
    if (fmod_sign_of_divisor != 0 && std::signbit(fmod_sign_of_divisor)) fmod_sign_of_divisor += 1.0f;
    return std::vector<uint32_t>{
        a + 100, uint32_t(b / sa), uint32_t(b % sa), uint32_t(smod(b, sa)), uint32_t(b >> 1),
        a << 4, a ^ ub, b < sa ? 1u : 2u, uint32_t(l), uint32_t(l >> 32),
        uint32_t(int32_t(f * 2.0f)), bits(f + 0.25f), c ? a : ub, c ? 4u : 3u, ub, ub, a * 2,
        b < 0 ? 0xffffffffu : 0u, a / 3, a % 3, bits(std::fmod(-f, 1.0f)),
        bits(fmod_sign_of_divisor), bits(float(b)), a + 100 == 100 ? 1u : 2u};
  };
  auto run_once = [&]() {
    EXPECT_EQ(CL_SUCCESS, clBuildProgram(p, 1, &device_, "", nullptr, nullptr)) << log_of(p);
    Kernel k = kernel(p, "spec_op");
    Mem out = poisoned(24 * 4);
    set_mem_arg(k, 0, out);
    size_t one = 1;
    run(k, 1, &one, nullptr);
    return read<uint32_t>(out, 24);
  };
  EXPECT_EQ(run_once(), expected(7, -3, 1.5f, true, 0x123456789ull));  // the defaults
  struct Values { uint32_t a; int32_t b; float f; uint8_t c; uint64_t l; };
  for (Values v : {Values{1000, 77, -3.75f, 0, 0xfedcba9876543210ull},
                   Values{0xfffffff0u, -1000001, 123.125f, 1, 5}, Values{4294967196u, 9, 0.5f, 0, 0}}) {
    EXPECT_EQ(CL_SUCCESS, clSetProgramSpecializationConstant(p, 1, 4, &v.a));
    EXPECT_EQ(CL_SUCCESS, clSetProgramSpecializationConstant(p, 2, 4, &v.b));
    EXPECT_EQ(CL_SUCCESS, clSetProgramSpecializationConstant(p, 3, 4, &v.f));
    EXPECT_EQ(CL_SUCCESS, clSetProgramSpecializationConstant(p, 4, 1, &v.c));
    EXPECT_EQ(CL_SUCCESS, clSetProgramSpecializationConstant(p, 5, 8, &v.l));
    EXPECT_EQ(run_once(), expected(v.a, v.b, v.f, v.c, v.l)) << v.a << " " << v.b << " " << v.f;
  }
}

// An OpSpecConstantOp vkcl cannot fold (on a pointer) is a build failure naming it.
TEST_P(ILProgram, UnfoldableSpecConstantOpIsABuildFailure) {
  Program p = from_il("spec_op_pointer.spv");
  EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(p, 1, &device_, "", nullptr, nullptr));
  EXPECT_NE(log_of(p).find("OpSpecConstantOp"), std::string::npos) << log_of(p);
}

// The parameter selects the offline optimisation level of the IL (O2 or O0).
// SPV_KHR_expect_assume and SPV_KHR_no_integer_wrap_decoration (cl_khr_expect_assume,
// cl_khr_spirv_no_integer_wrap_decoration): the hints are accepted and change nothing.
TEST_P(ILProgram, ExpectAssumeAndWrapDecorations) {
  Program p = from_il("hints.spv");
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(p, 1, &device_, GetParam().c_str(), nullptr, nullptr))
      << log_of(p);
  Kernel k = kernel(p, "hints");
  const size_t n = 300;
  std::uniform_int_distribution<uint32_t> dist(0, 1u << 30);
  std::vector<uint32_t> in(n);
  for (auto& v : in) v = dist(rng_);
  Mem din = buffer(n * 4, in.data()), dout = poisoned(n * 4);
  set_mem_arg(k, 0, din); set_mem_arg(k, 1, dout);
  run(k, 1, &n, nullptr);
  auto out = read<uint32_t>(dout, n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] * 3 + 5) << i;
}

// A SPIR-V 1.6 module (the device reports SPIR-V_1.6) with the Uniform and UniformId
// decorations 1.6 brought, which change nothing.
TEST_P(ILProgram, Spirv16ModuleWithUniformDecorations) {
  size_t size = 0;
  clGetDeviceInfo(device_, CL_DEVICE_IL_VERSION, 0, nullptr, &size);
  std::string versions(size, '\0');
  clGetDeviceInfo(device_, CL_DEVICE_IL_VERSION, size, versions.data(), nullptr);
  EXPECT_NE(versions.find("SPIR-V_1.6"), std::string::npos) << versions;
  Program p = from_il("spirv16.spv");
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(p, 1, &device_, GetParam().c_str(), nullptr, nullptr))
      << log_of(p);
  Kernel k = kernel(p, "spirv16");
  const size_t n = 200;
  std::vector<uint32_t> in(n);
  for (auto& v : in) v = std::uniform_int_distribution<uint32_t>(0, 1u << 28)(rng_);
  Mem din = buffer(n * 4, in.data()), dout = poisoned(n * 4);
  set_mem_arg(k, 0, din); set_mem_arg(k, 1, dout);
  run(k, 1, &n, nullptr);
  auto out = read<uint32_t>(dout, n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] + 2 * in[0]) << i;
}

// SubgroupDispatch: the queries match clGetKernelSubGroupInfo's, and SubgroupsPerWorkgroup
// is the kernel's CL_KERNEL_COMPILE_NUM_SUB_GROUPS.
TEST_P(ILProgram, SubgroupDispatchQueries) {
  cl_uint max_sub_groups = 0;
  clGetDeviceInfo(device_, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof max_sub_groups, &max_sub_groups, nullptr);
  if (!max_sub_groups) GTEST_SKIP() << "the device has no sub-groups";
  Program p = from_il("subgroup_dispatch.spv");
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(p, 1, &device_, GetParam().c_str(), nullptr, nullptr))
      << log_of(p);
  Kernel k = kernel(p, "dispatch");
  Mem dout = poisoned(12);
  set_mem_arg(k, 0, dout);
  size_t one = 1;
  run(k, 1, &one, &one);
  auto out = read<uint32_t>(dout, 3);
  size_t max = 0, compiled = 0, three = 3, local[3] = {};
  ASSERT_EQ(CL_SUCCESS, clGetKernelSubGroupInfo(k, device_, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, nullptr,
                                                sizeof max, &max, nullptr));
  ASSERT_EQ(CL_SUCCESS, clGetKernelSubGroupInfo(k, device_, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, 0, nullptr,
                                                sizeof compiled, &compiled, nullptr));
  ASSERT_EQ(CL_SUCCESS, clGetKernelSubGroupInfo(k, device_, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                                sizeof three, &three, sizeof local, local, nullptr));
  EXPECT_EQ(out[0], max);
  EXPECT_EQ(out[1], local[0]);
  EXPECT_EQ(out[2], 0u);
  EXPECT_EQ(compiled, 2u);
}

// OpGroupNonUniformRotateKHR and OpReadClockKHR written directly in SPIR-V (the IL path of
// cl_khr_subgroup_rotate and cl_khr_kernel_clock).
TEST_P(ILProgram, SubgroupRotateAndShaderClock) {
  char extensions[4096] = {};
  clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions, nullptr);
  if (!std::strstr(extensions, "cl_khr_subgroup_rotate") || !std::strstr(extensions, "cl_khr_kernel_clock"))
    GTEST_SKIP() << "needs cl_khr_subgroup_rotate and cl_khr_kernel_clock";
  Program p = from_il("clock_rotate.spv");
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(p, 1, &device_, GetParam().c_str(), nullptr, nullptr))
      << log_of(p);
  Kernel k = kernel(p, "clock_rotate");
  const size_t n = 128, local = 32;
  std::vector<uint32_t> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = uint32_t(i * 7 + 3);
  Mem din = buffer(n * 4, in.data()), dout = poisoned(n * 16);
  set_mem_arg(k, 0, din); set_mem_arg(k, 1, dout);
  run(k, 1, &n, &local);
  auto out = read<uint32_t>(dout, n * 4);
  for (size_t i = 0; i < n; ++i) {
    uint32_t lane = out[4 * i + 1], size = out[4 * i + 2];
    ASSERT_TRUE(size >= 1 && local % size == 0 && lane < size) << i;
    size_t first = i - lane;
    ASSERT_EQ(out[4 * i], in[first + (lane + 1) % size]) << "rotate at " << i;
    ASSERT_EQ(out[4 * i + 3], 1u) << "clock at " << i;
  }
}

// Decoration groups and a Constant decoration on a parameter (spirv-val rejects the latter;
// older producers write it): both are accepted.
TEST_P(ILProgram, DecorationGroupsAndParameterConstant) {
  Program p = from_il("groups.spv");
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(p, 1, &device_, GetParam().c_str(), nullptr, nullptr))
      << log_of(p);
  Kernel k = kernel(p, "groups");
  const size_t n = 100;
  std::vector<uint32_t> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = uint32_t(i * 977);
  Mem din = buffer(n * 4, in.data()), dout = poisoned(n * 4);
  set_mem_arg(k, 0, din); set_mem_arg(k, 1, dout);
  run(k, 1, &n, nullptr);
  auto out = read<uint32_t>(dout, n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] + 7) << i;
}

// Built-in variables in every form valid producers write (data/il/builtin_forms*.spvasm):
// Input or UniformConstant, listed in the entry point's interface or not, loaded whole or one
// component through an access chain, in any block; size_t of 64 bits (Physical64) and 32
// bits (Physical32). Each kernel runs on 1024 work-items in groups of 64 and writes
// a number made of its global id, local id, group id and global size at out[global id].
TEST_P(ILProgram, BuiltInVariablesInEveryForm) {
  const size_t n = 1024, local = 64;
  for (bool narrow : {false, true}) {
    SCOPED_TRACE(narrow ? "Physical32" : "Physical64");
    Program p = from_il(narrow ? "builtin_forms32.spv" : "builtin_forms.spv");
    ASSERT_EQ(CL_SUCCESS, clBuildProgram(p, 1, &device_, GetParam().c_str(), nullptr, nullptr))
        << log_of(p);
    for (const char* name : {"whole_vector", "access_chain", "in_bounds_chain"}) {
      SCOPED_TRACE(name);
      Kernel k = kernel(p, name);
      const size_t bytes = narrow ? 4 : 8;
      Mem out = poisoned(n * bytes);
      set_mem_arg(k, 0, out);
      run(k, 1, &n, &local);
      uint64_t size = std::string(name) == "in_bounds_chain" ? 3 * n : n;
      if (narrow) {
        auto got = read<uint32_t>(out, n);
        for (size_t i = 0; i < n; ++i)
          ASSERT_EQ(got[i], uint32_t(i + ((i % local) << 10) + ((i / local) << 16) + (size << 20)))
              << "at " << i;
      } else {
        auto got = read<uint64_t>(out, n);
        for (size_t i = 0; i < n; ++i)
          ASSERT_EQ(got[i], uint64_t(i + ((i % local) << 16) + (uint64_t(i / local) << 32) +
                                     (size << 48)))
              << "at " << i;
      }
    }
  }
}

// Images and a literal sampler in IL (tests/data/il/images.spvasm); without image support
// (VKCL_WITHOUT_FEATURES=images) the program fails to build.
TEST_P(ILProgram, ImagesAndLiteralSampler) {
  {
    WithoutImages hidden;
    Program p = from_il("images.spv");
    EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(p, 1, &device_, "", nullptr, nullptr));
    EXPECT_NE(log_of(p).find("ImageBasic"), std::string::npos) << log_of(p);
  }
  Program p = from_il("images.spv");
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(p, 1, &device_, "", nullptr, nullptr)) << log_of(p);
  Kernel k = kernel(p, "images");
  const size_t w = 11, h = 6;
  cl_image_format format{CL_RGBA, CL_SIGNED_INT32};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = w;
  desc.image_height = h;
  std::vector<int32_t> data(w * h * 4), poison(w * h * 4, -7);
  for (auto& d : data) d = int32_t(rng_() % 2000001) - 1000000;
  cl_int err = CL_SUCCESS;
  Mem src(clCreateImage(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc, data.data(), &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Mem dst(clCreateImage(context_, CL_MEM_WRITE_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc, poison.data(), &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Mem out = poisoned(16);
  cl_mem sh = src.get(), dh = dst.get();
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(cl_mem), &sh));
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(cl_mem), &dh));
  set_mem_arg(k, 2, out);
  size_t global[2] = {w, h};
  run(k, 2, global, nullptr);
  std::vector<int32_t> got(w * h * 4);
  size_t origin[3] = {0, 0, 0}, region[3] = {w, h, 1};
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, dst, CL_TRUE, origin, region, 0, 0, got.data(), 0, nullptr, nullptr));
  for (size_t t = 0; t < got.size(); ++t) ASSERT_EQ(2 * data[t], got[t]) << "channel " << t;
  auto words = read<uint32_t>(out, 4);
  EXPECT_EQ(w, words[0]);
  EXPECT_EQ(h, words[1]);
  EXPECT_EQ(uint32_t(CL_SIGNED_INT32 - CL_SNORM_INT8), words[2]);  // OpImageQueryFormat
  EXPECT_EQ(uint32_t(CL_RGBA - CL_R), words[3]);                   // OpImageQueryOrder
}

INSTANTIATE_TEST_SUITE_P(Options, ILProgram,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
