// vector-loads on hand-written Kernel SPIR-V (loads of a vector's components become one load
// of the vector only where all are read and nothing between them may write), and the quad
// arena it feeds (wide_arena.cpp) on kernels compiled from OpenCL C. What the kernels compute
// is checked on the device: LocalQuads.* in the runtime tests.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "compiler/compiler.h"
#include "kernel_to_shader/spirv_text.h"
#include "passes/pass.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::test {
namespace {

// One function reading |body|'s loads through %t (a __local float4 array) at element %i.
std::string module_with(const std::string& body) {
  return R"(
OpCapability Addresses
OpCapability Kernel
OpCapability Int64
%std = OpExtInstImport "OpenCL.std"
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %k "k"
%void = OpTypeVoid
%ulong = OpTypeInt 64 0
%float = OpTypeFloat 32
%v4float = OpTypeVector %float 4
%ulong_0 = OpConstant %ulong 0
%ulong_1 = OpConstant %ulong 1
%ulong_2 = OpConstant %ulong 2
%ulong_3 = OpConstant %ulong 3
%ulong_64 = OpConstant %ulong 64
%float_1 = OpConstant %float 1
%arr = OpTypeArray %v4float %ulong_64
%lptr_arr = OpTypePointer Workgroup %arr
%lptr_float = OpTypePointer Workgroup %float
%gptr_float = OpTypePointer CrossWorkgroup %float
%fn = OpTypeFunction %void %gptr_float %ulong
%t = OpVariable %lptr_arr Workgroup
%k = OpFunction %void None %fn
%out = OpFunctionParameter %gptr_float
%i = OpFunctionParameter %ulong
%entry = OpLabel
%p0 = OpInBoundsPtrAccessChain %lptr_float %t %ulong_0 %i %ulong_0
%p1 = OpInBoundsPtrAccessChain %lptr_float %t %ulong_0 %i %ulong_1
%p2 = OpInBoundsPtrAccessChain %lptr_float %t %ulong_0 %i %ulong_2
%p3 = OpInBoundsPtrAccessChain %lptr_float %t %ulong_0 %i %ulong_3
)" + body + R"(
OpReturn
OpFunctionEnd
)";
}

// The pass's output text, and how many vector loads it has.
struct Result {
  std::string text;
  int vector_loads = 0;
};

Result run_pass(const std::string& body) {
  ir::Module m = parse_text(module_with(body));
  k2s::PassContext context;
  EXPECT_NE(k2s::create_pass("vector-loads")->Process(m, context), k2s::PassStatus::Failure);
  Result r;
  r.text = disassemble(ir::serialize(m));
  std::regex load("OpLoad %v4float");
  r.vector_loads = int(std::distance(std::sregex_iterator(r.text.begin(), r.text.end(), load), std::sregex_iterator()));
  return r;
}

TEST(VectorLoads, AllComponentsReadTogetherAreOneLoad) {
  Result r = run_pass(R"(
%x = OpLoad %float %p0 Aligned 16
%y = OpLoad %float %p1 Aligned 4
%s = OpFAdd %float %x %y
%z = OpLoad %float %p2 Aligned 8
%m = OpExtInst %float %std mad %s %z %x
%w = OpLoad %float %p3 Aligned 4
%x2 = OpLoad %float %p0 Aligned 16
%r = OpFAdd %float %m %w
%r2 = OpFAdd %float %r %x2
OpStore %out %r2
)");
  EXPECT_EQ(r.vector_loads, 1) << r.text;
  EXPECT_NE(r.text.find("Aligned 16"), std::string::npos) << r.text;  // component 0's alignment
  EXPECT_EQ(r.text.find("OpLoad %float"), std::string::npos) << r.text;
}

TEST(VectorLoads, AStoreBetweenKeepsTheLoadsApart) {
  Result r = run_pass(R"(
%x = OpLoad %float %p0
%y = OpLoad %float %p1
OpStore %p2 %float_1
%z = OpLoad %float %p2
%w = OpLoad %float %p3
%s = OpFAdd %float %x %y
%s2 = OpFAdd %float %z %w
%r = OpFAdd %float %s %s2
OpStore %out %r
)");
  EXPECT_EQ(r.vector_loads, 0) << r.text;
}

TEST(VectorLoads, AComponentNotReadIsNotRead) {
  // Reading the whole vector could reach past the end of a buffer.
  Result r = run_pass(R"(
%x = OpLoad %float %p0
%y = OpLoad %float %p1
%z = OpLoad %float %p2
%s = OpFAdd %float %x %y
%r = OpFAdd %float %s %z
OpStore %out %r
)");
  EXPECT_EQ(r.vector_loads, 0) << r.text;
}

TEST(VectorLoads, VolatileLoadsStayApart) {
  Result r = run_pass(R"(
%x = OpLoad %float %p0 Volatile
%y = OpLoad %float %p1 Volatile
%z = OpLoad %float %p2 Volatile
%w = OpLoad %float %p3 Volatile
%s = OpFAdd %float %x %y
%s2 = OpFAdd %float %z %w
%r = OpFAdd %float %s %s2
OpStore %out %r
)");
  EXPECT_EQ(r.vector_loads, 0) << r.text;
}

const char* kSource = R"(
float4 at(__local float4* t, uint i) { return t[i]; }
__kernel void quads(__global float4* o, __global const float4* in) {
  __local float4 t[64];
  uint i = get_local_id(0);
  t[i] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  float4 v = at(t, 63 - i);
  o[get_global_id(0)] = (float4)(v.x * v.y, v.z, v.w, ((__local float*)t)[i]);
}
__kernel void words_with_an_atomic(__global float4* o, __global const float4* in) {
  __local float4 t[64];
  __local uint n;
  uint i = get_local_id(0);
  if (i == 0) n = 0;
  t[i] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&n);
  o[get_global_id(0)] = at(t, 63 - i) + (float)n;
}
)";

TEST(QuadArena, VectorKernelsMoveWholeQuadsUnlessTheyHaveALocalAtomic) {
  for (const char* options : {"-cl-std=CL3.0", "-cl-std=CL3.0 -cl-opt-disable"}) {
    SCOPED_TRACE(options);
    compiler::DeviceFeatures features;
    features.features = {"__opencl_c_int64", "__opencl_c_generic_address_space"};
    auto compiled = compiler::compile(kSource, options, features);
    ASSERT_TRUE(compiled.ok) << compiled.log;
    k2s::TargetCaps caps;
    caps.int8 = caps.storage8 = caps.int16 = caps.storage16 = true;
    k2s::TranslateResult r = k2s::translate(compiled.spirv, caps);
    ASSERT_TRUE(r.ok) << r.log;
    ASSERT_EQ(r.kernels.size(), 2u);
    for (const k2s::TranslatedKernel& k : r.kernels) {
      const std::string text = disassemble(k.shader);
      const bool quad_arena = std::regex_search(text, std::regex("OpVariable %_ptr_Workgroup__arr_v4uint"));
      const bool word_arena = std::regex_search(text, std::regex("OpVariable %_ptr_Workgroup__arr_uint"));
      const bool quad_loads = text.find("OpLoad %v4uint") != std::string::npos;
      const bool is_quads = k.interface.name == "quads";
      EXPECT_EQ(quad_arena, is_quads) << text;
      EXPECT_EQ(quad_loads, is_quads) << text;
      EXPECT_NE(word_arena, is_quads) << text;  // one arena each
    }
  }
}

}  // namespace
}  // namespace vkcl::test
