// Which __constant arguments the translator reads as uniform buffers
// (kernel_to_shader/passes/constant_buffers.h): those whose pointers it can follow to the
// loads, through helpers, phis and selects that agree; KernelArg::binding says which.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::test {
namespace {

k2s::TargetCaps uniform_caps() {
  k2s::TargetCaps caps;
  caps.constant_buffer_words = 16384;
  caps.max_constant_buffers = 8;
  return caps;
}

// Per kernel (in module order), the bindings of its arguments (UINT32_MAX: none).
std::vector<std::vector<uint32_t>> bindings(const std::string& source, const k2s::TargetCaps& caps,
                                           const std::string& options = "") {
  compiler::DeviceFeatures features;
  features.features = {"__opencl_c_int64"};
  auto compiled = compiler::compile(source, options, features);
  EXPECT_TRUE(compiled.ok) << compiled.log;
  if (!compiled.ok) return {};
  k2s::TranslateResult r = k2s::translate(compiled.spirv, caps);
  EXPECT_TRUE(r.ok) << r.log;
  std::vector<std::vector<uint32_t>> out;
  for (const k2s::TranslatedKernel& k : r.kernels) {
    out.emplace_back();
    for (const k2s::KernelArg& a : k.interface.args) out.back().push_back(a.binding);
  }
  return out;
}

constexpr uint32_t kNone = UINT32_MAX;

TEST(ConstantBuffers, ArgumentsFollowedThroughHelpersAndPhis) {
  auto b = bindings(R"(
    __attribute__((noinline)) float pick(__constant float* c, int i) { return c[i] * 2; }
    __kernel void k(__global float* o, __constant float* t, __constant float* u,
                    __constant float4* v, int n) {
      o[0] = pick(t, n);
      __constant float4* p = v;
      float4 acc = 0;
      for (int i = 0; i < n; ++i) { acc += *p; p += o[i] > 0 ? 1 : 2; }  // a phi of v's
      o[1] = acc.x + acc.w + u[n & 3];
    })", uniform_caps());
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0], (std::vector<uint32_t>{kNone, 1, 2, 3, kNone}));
}

// Unoptimised code keeps each pointer in a private variable: one stored once is followed,
// one stored twice (w's) is not, where the optimised code's phi of w's pointers is.
TEST(ConstantBuffers, UnoptimisedCodeIsFollowedThroughItsVariables) {
  const char* source = R"(
    __attribute__((noinline)) float pick(__constant float* c, int i) { return c[i] * 2; }
    __kernel void k(__global float* o, __constant float* t, __constant float* u,
                    __constant float* w, int n) {
      o[0] = pick(t, n) + u[n & 3];
      __constant float* q = w;
      if (n > 2) q = w + 1;
      o[1] = *q;
    })";
  EXPECT_EQ(bindings(source, uniform_caps(), "-cl-opt-disable"),
            (std::vector<std::vector<uint32_t>>{{kNone, 1, 2, kNone, kNone}}));
  EXPECT_EQ(bindings(source, uniform_caps()), (std::vector<std::vector<uint32_t>>{{kNone, 1, 2, 3, kNone}}));
}

TEST(ConstantBuffers, PointersOfTwoArgumentsAreNotFollowed) {
  // The helper is called with t and with u: its loads read device addresses. w meets
  // a program-scope table in a phi.
  auto b = bindings(R"(
    __constant float table[4] = {1, 2, 3, 4};
    __attribute__((noinline)) float pick(__constant float* c, int i) { return c[i] * 2; }
    __kernel void k(__global float* o, __constant float* t, __constant float* u,
                    __constant float* w, int n) {
      o[0] = pick(t, n) + pick(u, n + 1);
      __constant float* p = w;
      float acc = 0;
      for (int i = 0; i < n; ++i) { acc += *p; p = o[i] > 0 ? table + i : w + i; }
      o[1] = acc;
    })", uniform_caps());
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0], (std::vector<uint32_t>{kNone, kNone, kNone, kNone, kNone}));
}

TEST(ConstantBuffers, ProgramScopeVariablesReadTheProgramsData) {
  compiler::DeviceFeatures features;
  const char* source = R"(
    __constant float table[4] = {1, 2, 3, 4};
    __kernel void k(__global float* o, int n) { o[0] = table[n & 3]; })";
  auto compiled = compiler::compile(source, "", features);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  k2s::TranslateResult r = k2s::translate(compiled.spirv, uniform_caps());
  ASSERT_TRUE(r.ok) << r.log;
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].interface.program_constants_binding, k2s::kProgramConstantsBinding);
  r = k2s::translate(compiled.spirv, k2s::TargetCaps{});
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.kernels[0].interface.program_constants_binding, kNone);
  // A kernel of 64 arguments could have an image at the program's binding: not there.
  std::string many = "__constant float table[4] = {1, 2, 3, 4};\n__kernel void k(__global float* o";
  for (int i = 1; i < 64; ++i) many += ", int a" + std::to_string(i);
  many += ") { o[0] = table[a63 & 3]; }";
  compiled = compiler::compile(many, "", features);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  r = k2s::translate(compiled.spirv, uniform_caps());
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.kernels[0].interface.program_constants_binding, kNone);
}

TEST(ConstantBuffers, HelperSharedByKernelsNeedsOneIndex) {
  const char* helper = R"(
    __attribute__((noinline)) float pick(__constant float* c, int i) { return c[i] * 2; }
    __kernel void a(__global float* o, __constant float* c) { o[0] = pick(c, 1); }
  )";
  // At the same index in both kernels: both read uniform buffers; at different ones neither.
  auto same = bindings(std::string(helper) +
                       "__kernel void b(__global float* o, __constant float* c, int n) { o[0] = pick(c, n); }",
                       uniform_caps());
  ASSERT_EQ(same.size(), 2u);
  EXPECT_EQ(same[0], (std::vector<uint32_t>{kNone, 1}));
  EXPECT_EQ(same[1], (std::vector<uint32_t>{kNone, 1, kNone}));
  auto apart = bindings(std::string(helper) +
                        "__kernel void b(__global float* o, int n, __constant float* c) { o[0] = pick(c, n); }",
                        uniform_caps());
  ASSERT_EQ(apart.size(), 2u);
  EXPECT_EQ(apart[0], (std::vector<uint32_t>{kNone, kNone}));
  EXPECT_EQ(apart[1], (std::vector<uint32_t>{kNone, kNone, kNone}));
}

TEST(ConstantBuffers, OnlyWhereTheDeviceTakesThem) {
  const std::string source = R"(
    __kernel void k(__global float* o, __constant float* c) { o[0] = c[get_global_id(0)]; })";
  EXPECT_EQ(bindings(source, uniform_caps()), (std::vector<std::vector<uint32_t>>{{kNone, 1}}));
  EXPECT_EQ(bindings(source, k2s::TargetCaps{}), (std::vector<std::vector<uint32_t>>{{kNone, kNone}}));
  k2s::TargetCaps checked = uniform_caps();
  checked.checked_memory = true;  // checked loads read device addresses, which are checked
  EXPECT_EQ(bindings(source, checked), (std::vector<std::vector<uint32_t>>{{kNone, kNone}}));
  k2s::TargetCaps one = uniform_caps();
  one.max_constant_buffers = 1;
  EXPECT_EQ(bindings(R"(
    __kernel void k(__global float* o, __constant float* c, __constant float* d) { o[0] = c[1] + d[2]; })", one),
            (std::vector<std::vector<uint32_t>>{{kNone, kNone, kNone}}));
}

}  // namespace
}  // namespace vkcl::test
