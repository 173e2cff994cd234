// lower-to-shader on hand-written Kernel SPIR-V: checks on the Shader SPIR-V text it writes,
// which must also pass spirv-val for Vulkan 1.2.
#include <gtest/gtest.h>

#include "kernel_to_shader/spirv_text.h"
#include "passes/lower_to_shader.h"
#include "passes/pass.h"

namespace vkcl::test {
namespace {

const char* kHeader = R"(
OpCapability Addresses
OpCapability Kernel
OpCapability Int64
OpCapability Int8
%std = OpExtInstImport "OpenCL.std"
OpMemoryModel Physical64 OpenCL
)";

const char* kTypes = R"(
%void = OpTypeVoid
%bool = OpTypeBool
%uchar = OpTypeInt 8 0
%uint = OpTypeInt 32 0
%ulong = OpTypeInt 64 0
%float = OpTypeFloat 32
%v3ulong = OpTypeVector %ulong 3
%v3float = OpTypeVector %float 3
%uint_0 = OpConstant %uint 0
%uint_1 = OpConstant %uint 1
%uint_2 = OpConstant %uint 2
%uint_272 = OpConstant %uint 272
%float_2 = OpConstant %float 2
%ptr_in_v3ulong = OpTypePointer Input %v3ulong
%gptr_float = OpTypePointer CrossWorkgroup %float
%lptr_uint = OpTypePointer Workgroup %uint
%gptr_uint = OpTypePointer CrossWorkgroup %uint
)";

struct Lowered {
  bool ok = false;
  std::string text;
  std::string log;
  std::string invalid;
  std::vector<k2s::KernelInterface> kernels;
};

Lowered lower(const std::string& body, k2s::TargetCaps caps = {}) {
  caps.int8 = caps.storage8 = true;
  ir::Module m = parse_text(std::string(kHeader) + body);
  k2s::PassContext context;
  context.caps = caps;
  auto pass = k2s::create_lower_to_shader_pass();
  Lowered out;
  out.ok = pass->Process(m, context) != k2s::PassStatus::Failure;
  // The memory model pass follows, as in translate(); it changes nothing without the cap.
  if (out.ok) out.ok = k2s::create_pass("vulkan-memory-model")->Process(m, context) !=
                       k2s::PassStatus::Failure;
  out.log = context.log;
  if (!out.ok) return out;
  std::vector<uint32_t> words = ir::serialize(m);
  out.text = disassemble(words);
  out.invalid = validate_vulkan(words);
  out.kernels = context.kernels;
  return out;
}

TEST(LowerToShader, GlobalPointersBecomeDeviceAddresses) {
  Lowered r = lower(std::string(R"(
OpEntryPoint Kernel %k "scale" %gid
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %gid Constant
OpDecorate %gid LinkageAttributes "__spirv_BuiltInGlobalInvocationId" Import
)") + kTypes + R"(
%gid = OpVariable %ptr_in_v3ulong Input
%fn = OpTypeFunction %void %gptr_float
%k = OpFunction %void None %fn
%p = OpFunctionParameter %gptr_float
%entry = OpLabel
%ids = OpLoad %v3ulong %gid Aligned 32
%i = OpCompositeExtract %ulong %ids 0
%addr = OpInBoundsPtrAccessChain %gptr_float %p %i
%v = OpLoad %float %addr Aligned 4
%w = OpFMul %float %v %float_2
OpStore %addr %w Aligned 4
OpReturn
OpFunctionEnd
)");
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.invalid, "") << r.text;
  EXPECT_NE(r.text.find("OpMemoryModel PhysicalStorageBuffer64 GLSL450"), std::string::npos);
  EXPECT_NE(r.text.find("OpEntryPoint GLCompute"), std::string::npos);
  EXPECT_NE(r.text.find("OpConvertUToPtr %_ptr_PhysicalStorageBuffer_float"), std::string::npos);
  EXPECT_NE(r.text.find("OpLoad %float %") , std::string::npos);
  EXPECT_NE(r.text.find("Aligned 4"), std::string::npos);
  // The global id comes from the work-group id, the dispatch block and the local id.
  EXPECT_NE(r.text.find("BuiltIn WorkgroupId"), std::string::npos);
  EXPECT_NE(r.text.find("BuiltIn LocalInvocationId"), std::string::npos);
  EXPECT_NE(r.text.find("BuiltIn WorkgroupSize"), std::string::npos);
  ASSERT_EQ(r.kernels.size(), 1u);
  const auto& ki = r.kernels[0];
  EXPECT_EQ(ki.name, "scale");
  ASSERT_EQ(ki.args.size(), 1u);
  EXPECT_EQ(ki.args[0].kind, k2s::ArgKind::GlobalPointer);
  EXPECT_EQ(ki.args[0].size, 8u);
  EXPECT_EQ(ki.args[0].offset % 8, 0u);
  EXPECT_EQ(ki.argument_block_size % 16, 0u);
  EXPECT_GE(ki.argument_block_size, ki.args[0].offset + 8);
}

// Arguments in push constants are read as 64-bit words: a pointer is one 64-bit load, which a
// driver sees as one uniform value (llvmpipe took a pointer assembled from two 32-bit loads
// apart lane by lane in every access through it). Narrower arguments are cut out of theirs.
TEST(LowerToShader, PushedPointersAreWhole64BitWords) {
  Lowered r = lower(std::string(R"(
OpEntryPoint Kernel %k "pushed"
)") + kTypes + R"(
%fn = OpTypeFunction %void %gptr_uint %uint %uchar %ulong %gptr_uint
%k = OpFunction %void None %fn
%in = OpFunctionParameter %gptr_uint
%n = OpFunctionParameter %uint
%c = OpFunctionParameter %uchar
%step = OpFunctionParameter %ulong
%out = OpFunctionParameter %gptr_uint
%entry = OpLabel
%at = OpInBoundsPtrAccessChain %gptr_uint %in %step
%v = OpLoad %uint %at Aligned 4
%c32 = OpUConvert %uint %c
%sum = OpIAdd %uint %v %n
%all = OpIAdd %uint %sum %c32
OpStore %out %all Aligned 4
OpReturn
OpFunctionEnd
)");
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.invalid, "") << r.text;
  ASSERT_EQ(r.kernels.size(), 1u);
  // All five arguments are in the pushed window (the default caps leave 40 bytes).
  EXPECT_EQ(r.kernels[0].pushed_arguments_size, 32u);
  // Member 2 of the push constant block is an array of 64-bit words; every load from it is one.
  EXPECT_NE(r.text.find("OpTypeArray %ulong"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("OpAccessChain %_ptr_PushConstant_uint %8 %uint_2"), std::string::npos) << r.text;
  size_t wide = 0;
  for (size_t at = r.text.find("OpAccessChain %_ptr_PushConstant_ulong"); at != std::string::npos;
       at = r.text.find("OpAccessChain %_ptr_PushConstant_ulong", at + 1))
    ++wide;
  // The two pointers and the ulong whole, the uint and the uchar from their words; the
  // argument block address (member 0) besides.
  EXPECT_GE(wide, 5u) << r.text;
}

// A store to a __local argument, a work-group barrier, the value read back and written to a
// __global argument, and a relaxed atomic add there.
std::string local_copy_kernel() {
  return std::string(R"(
OpEntryPoint Kernel %k "local_copy"
)") + kTypes + R"(
%fn = OpTypeFunction %void %lptr_uint %gptr_uint %uint
%k = OpFunction %void None %fn
%tmp = OpFunctionParameter %lptr_uint
%out = OpFunctionParameter %gptr_uint
%x = OpFunctionParameter %uint
%entry = OpLabel
OpStore %tmp %x Aligned 4
OpControlBarrier %uint_2 %uint_2 %uint_272
%v = OpLoad %uint %tmp Aligned 4
OpStore %out %v Aligned 4
%old = OpAtomicIAdd %uint %out %uint_2 %uint_0 %v
OpReturn
OpFunctionEnd
)";
}

// Where the device has Vulkan's memory model, shaders declare it: global and local accesses are
// non-private, and the barrier's acquire-release makes them available and visible. Relaxed
// atomics stay as they are. Without the model, GLSL450 and plain accesses.
TEST(LowerToShader, VulkanMemoryModelWhereTheDeviceHasIt) {
  const std::string body = local_copy_kernel();
  k2s::TargetCaps caps;
  caps.vulkan_memory_model = true;
  Lowered r = lower(body, caps);
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.invalid, "") << r.text;
  EXPECT_NE(r.text.find("OpMemoryModel PhysicalStorageBuffer64 Vulkan"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("OpCapability VulkanMemoryModelDeviceScope"), std::string::npos);
  // AcquireRelease | WorkgroupMemory | MakeAvailable | MakeVisible.
  EXPECT_NE(r.text.find("OpControlBarrier %uint_2 %uint_2 %uint_24840"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("OpAtomicIAdd %uint %"), std::string::npos);
  EXPECT_NE(r.text.find("%uint_1 %uint_0 %"), std::string::npos) << r.text;  // relaxed, device
  // The local store and load, the global store and the store that zeroes local memory
  // (zero_local.cpp); push constants stay private.
  size_t non_private = 0;
  for (size_t at = 0; (at = r.text.find("NonPrivatePointer", at)) != std::string::npos; ++at)
    ++non_private;
  EXPECT_EQ(non_private, 4u) << r.text;
  EXPECT_NE(r.text.find("Aligned|NonPrivatePointer 4"), std::string::npos) << r.text;

  Lowered plain = lower(body);
  ASSERT_TRUE(plain.ok) << plain.log;
  EXPECT_EQ(plain.invalid, "") << plain.text;
  EXPECT_NE(plain.text.find("OpMemoryModel PhysicalStorageBuffer64 GLSL450"), std::string::npos);
  EXPECT_EQ(plain.text.find("NonPrivatePointer"), std::string::npos);
}

TEST(LowerToShader, LocalArgumentsAndBarriers) {
  Lowered r = lower(local_copy_kernel());
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.invalid, "") << r.text;
  EXPECT_NE(r.text.find("Workgroup"), std::string::npos);
  EXPECT_NE(r.text.find("OpControlBarrier %uint_2 %uint_2"), std::string::npos);
  // Legacy atomics on global memory are device-scoped.
  EXPECT_NE(r.text.find("OpAtomicIAdd %uint %"), std::string::npos);
  EXPECT_NE(r.text.find("%uint_1 %uint_0"), std::string::npos) << r.text;
  ASSERT_EQ(r.kernels.size(), 1u);
  ASSERT_EQ(r.kernels[0].args.size(), 3u);
  EXPECT_EQ(r.kernels[0].args[0].kind, k2s::ArgKind::LocalPointer);
  EXPECT_EQ(r.kernels[0].args[0].size, 4u);
  EXPECT_EQ(r.kernels[0].args[2].kind, k2s::ArgKind::ByValue);
  EXPECT_EQ(r.kernels[0].args[2].size, 4u);
}

TEST(LowerToShader, StructLayoutFollowsOpenCLRules) {
  // struct { char c; int i; float3 v; } is 32 bytes: c@0, i@4, v@16.
  Lowered r = lower(std::string(R"(
OpEntryPoint Kernel %k "byval"
OpDecorate %s FuncParamAttr ByVal
)") + kTypes + R"(
%S = OpTypeStruct %uchar %uint %v3float
%fptr_S = OpTypePointer Function %S
%fptr_v3 = OpTypePointer Function %v3float
%gptr_v3 = OpTypePointer CrossWorkgroup %v3float
%fn = OpTypeFunction %void %gptr_v3 %fptr_S
%k = OpFunction %void None %fn
%out = OpFunctionParameter %gptr_v3
%s = OpFunctionParameter %fptr_S
%entry = OpLabel
%vp = OpInBoundsPtrAccessChain %fptr_v3 %s %uint_0 %uint_2
%v = OpLoad %v3float %vp Aligned 16
OpStore %out %v Aligned 16
OpReturn
OpFunctionEnd
)");
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.invalid, "") << r.text;
  ASSERT_EQ(r.kernels.size(), 1u);
  ASSERT_EQ(r.kernels[0].args.size(), 2u);
  EXPECT_EQ(r.kernels[0].args[1].kind, k2s::ArgKind::ByValue);
  EXPECT_EQ(r.kernels[0].args[1].size, 32u);
  EXPECT_EQ(r.kernels[0].args[1].offset % 16, 0u);
  EXPECT_GT(r.kernels[0].private_memory_size, 32u);  // the kernel gets a private copy
}

TEST(LowerToShader, GenericPointersCarryTheirAddressSpace) {
  Lowered r = lower(std::string(R"(
OpCapability GenericPointer
OpEntryPoint Kernel %k "generic"
)") + kTypes + R"(
%genptr_uint = OpTypePointer Generic %uint
%fn = OpTypeFunction %void %lptr_uint %gptr_uint
%k = OpFunction %void None %fn
%l = OpFunctionParameter %lptr_uint
%g = OpFunctionParameter %gptr_uint
%entry = OpLabel
%gl = OpPtrCastToGeneric %genptr_uint %l
%gg = OpPtrCastToGeneric %genptr_uint %g
%v = OpLoad %uint %gl Aligned 4
OpStore %gg %v Aligned 4
OpReturn
OpFunctionEnd
)");
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.invalid, "") << r.text;
  EXPECT_NE(r.text.find("%ulong_4611686018427387904"), std::string::npos)
      << "local pointers are tagged 1 in bits 62-63\n" << r.text;
}

TEST(LowerToShader, UnsupportedBuiltinIsABuildErrorNamingIt) {
  Lowered r = lower(std::string(R"(
OpEntryPoint Kernel %k "sine"
)") + kTypes + R"(
%fn = OpTypeFunction %void %gptr_float
%k = OpFunction %void None %fn
%p = OpFunctionParameter %gptr_float
%entry = OpLabel
%v = OpLoad %float %p Aligned 4
%s = OpExtInst %float %std sin %v
OpStore %p %s Aligned 4
OpReturn
OpFunctionEnd
)");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("Sin"), std::string::npos) << r.log;
}

TEST(LowerToShader, ExactOpenCLStdMapsToGlslStd450) {
  Lowered r = lower(std::string(R"(
OpEntryPoint Kernel %k "exact"
)") + kTypes + R"(
%fn = OpTypeFunction %void %gptr_float
%k = OpFunction %void None %fn
%p = OpFunctionParameter %gptr_float
%entry = OpLabel
%v = OpLoad %float %p Aligned 4
%a = OpExtInst %float %std fabs %v
%b = OpExtInst %float %std floor %a
%c = OpExtInst %float %std fmax %b %v
%d = OpExtInst %float %std native_sin %c
OpStore %p %d Aligned 4
OpReturn
OpFunctionEnd
)");
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.invalid, "") << r.text;
  EXPECT_NE(r.text.find("FAbs"), std::string::npos);
  EXPECT_NE(r.text.find("Floor"), std::string::npos);
  EXPECT_NE(r.text.find("NMax"), std::string::npos);
  EXPECT_NE(r.text.find("Sin"), std::string::npos);
}

TEST(LowerToShader, KernelOnlyRelationalsAreRewritten) {
  Lowered r = lower(std::string(R"(
OpEntryPoint Kernel %k "rel"
)") + kTypes + R"(
%fn = OpTypeFunction %void %gptr_float %gptr_uint
%k = OpFunction %void None %fn
%p = OpFunctionParameter %gptr_float
%o = OpFunctionParameter %gptr_uint
%entry = OpLabel
%v = OpLoad %float %p Aligned 4
%f = OpIsFinite %bool %v
%n = OpIsNormal %bool %v
%both = OpLogicalAnd %bool %f %n
%r = OpSelect %uint %both %uint_1 %uint_0
OpStore %o %r Aligned 4
OpReturn
OpFunctionEnd
)");
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.invalid, "") << r.text;
  EXPECT_EQ(r.text.find("OpIsFinite"), std::string::npos);
  EXPECT_EQ(r.text.find("OpIsNormal"), std::string::npos);
  EXPECT_NE(r.text.find("OpIsInf"), std::string::npos);
}

TEST(LowerToShader, EightComponentVectorsBecomeArrays) {
  Lowered r = lower(std::string(R"(
OpCapability Vector16
OpEntryPoint Kernel %k "wide"
)") + kTypes + R"(
%v8float = OpTypeVector %float 8
%gptr_v8 = OpTypePointer CrossWorkgroup %v8float
%fn = OpTypeFunction %void %gptr_v8
%k = OpFunction %void None %fn
%p = OpFunctionParameter %gptr_v8
%entry = OpLabel
%v = OpLoad %v8float %p Aligned 32
%w = OpFAdd %v8float %v %v
%s = OpVectorShuffle %v8float %w %v 0 9 2 11 4 13 6 15
OpStore %p %s Aligned 32
OpReturn
OpFunctionEnd
)");
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.invalid, "") << r.text;
  EXPECT_NE(r.text.find("OpTypeArray %float %uint_8"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("OpTypeVector %float 8"), std::string::npos);
}

// Each kernel's local memory is the __local variables its own call graph reaches. SPIR-V
// producers other than clang may use a module-scope Workgroup variable in any function: here
// a helper that two kernels call uses a 4000-byte array, a third kernel only its own 64-byte
// one, and a fourth none.
TEST(LowerToShader, LocalMemoryIsWhatEachKernelReaches) {
  std::string error;
  std::vector<uint32_t> words = assemble(std::string(kHeader) + R"(
OpEntryPoint Kernel %k1 "first"
OpEntryPoint Kernel %k2 "second"
OpEntryPoint Kernel %k3 "own_only"
OpEntryPoint Kernel %k4 "none"
)" + kTypes + R"(
%uint_5 = OpConstant %uint 5
%uint_16 = OpConstant %uint 16
%uint_1000 = OpConstant %uint 1000
%big = OpTypeArray %uint %uint_1000
%small = OpTypeArray %uint %uint_16
%lptr_big = OpTypePointer Workgroup %big
%lptr_small = OpTypePointer Workgroup %small
%shared = OpVariable %lptr_big Workgroup
%own = OpVariable %lptr_small Workgroup
%fn = OpTypeFunction %void %gptr_uint
%helper = OpFunction %void None %fn
%hout = OpFunctionParameter %gptr_uint
%h0 = OpLabel
%hp = OpInBoundsAccessChain %lptr_uint %shared %uint_5
OpStore %hp %uint_2 Aligned 4
%hv = OpLoad %uint %hp Aligned 4
OpStore %hout %hv Aligned 4
OpReturn
OpFunctionEnd
%k1 = OpFunction %void None %fn
%o1 = OpFunctionParameter %gptr_uint
%e1 = OpLabel
%c1 = OpFunctionCall %void %helper %o1
OpReturn
OpFunctionEnd
%k2 = OpFunction %void None %fn
%o2 = OpFunctionParameter %gptr_uint
%e2 = OpLabel
%c2 = OpFunctionCall %void %helper %o2
OpReturn
OpFunctionEnd
%k3 = OpFunction %void None %fn
%o3 = OpFunctionParameter %gptr_uint
%e3 = OpLabel
%p3 = OpInBoundsAccessChain %lptr_uint %own %uint_1
OpStore %p3 %uint_2 Aligned 4
%v3 = OpLoad %uint %p3 Aligned 4
OpStore %o3 %v3 Aligned 4
OpReturn
OpFunctionEnd
%k4 = OpFunction %void None %fn
%o4 = OpFunctionParameter %gptr_uint
%e4 = OpLabel
OpStore %o4 %uint_2 Aligned 4
OpReturn
OpFunctionEnd
)", &error);
  ASSERT_FALSE(words.empty()) << error;
  k2s::TargetCaps caps;
  caps.int8 = caps.storage8 = true;
  k2s::TranslateResult r = k2s::translate(words, caps);
  ASSERT_TRUE(r.ok) << r.log;
  ASSERT_EQ(r.kernels.size(), 4u);
  EXPECT_EQ(r.kernels[0].interface.static_local_memory_size, 4000u);
  EXPECT_EQ(r.kernels[1].interface.static_local_memory_size, 4000u);
  EXPECT_EQ(r.kernels[2].interface.static_local_memory_size, 64u);
  EXPECT_EQ(r.kernels[3].interface.static_local_memory_size, 0u);
  // The offsets are plain constants, each kernel's own (own_only's array starts at 0).
  for (const auto& k : r.kernels) {
    std::string text = disassemble(k.shader);
    EXPECT_EQ(text.find("OpSpecConstant %uint 0"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace vkcl::test
