// single-block-loops and loop-variables on hand-written Shader SPIR-V: a loop tested at its
// header with a straight body becomes one block that is its own continue target (valid for
// Vulkan, header values used after the loop still reaching there); loops with a second way
// out or a header that writes memory stay as they are, and loop-variables carries the values
// of the first kind through variables. (What such loops compute is checked on the device:
// LoopShapes.* in the runtime tests.)
#include <gtest/gtest.h>

#include <string>

#include "kernel_to_shader/spirv_text.h"
#include "passes/pass.h"

namespace vkcl::test {
namespace {

// A compute shader reading n from buf[0] and writing buf[1], with |loop| between.
std::string shader_with(const std::string& loop) {
  return R"(
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %buf
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %Buf Block
OpMemberDecorate %Buf 0 Offset 0
OpDecorate %arr ArrayStride 4
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%bool = OpTypeBool
%arr = OpTypeRuntimeArray %uint
%Buf = OpTypeStruct %arr
%pbuf = OpTypePointer StorageBuffer %Buf
%puint = OpTypePointer StorageBuffer %uint
%buf = OpVariable %pbuf StorageBuffer
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u3 = OpConstant %uint 3
%main = OpFunction %void None %fn
%entry = OpLabel
%pn = OpAccessChain %puint %buf %u0 %u0
%pout = OpAccessChain %puint %buf %u0 %u1
%n = OpLoad %uint %pn
OpBranch %header
)" + loop + R"(
OpReturn
OpFunctionEnd
)";
}

struct Result {
  bool changed = false;
  bool own_continue = false;  // some loop is its own continue target
  std::string invalid, text;
};

Result run_pass(const std::string& loop, const char* pass = "single-block-loops") {
  ir::Module m = parse_text(shader_with(loop));
  m.version = 0x00010500;
  k2s::PassContext context;
  Result r;
  r.changed = k2s::create_pass(pass)->Process(m, context) == k2s::PassStatus::SuccessWithChange;
  for (const auto& f : m.functions)
    for (const auto& b : f.blocks)
      if (const ir::Instruction* merge = b.merge(); merge && merge->opcode == spv::Op::OpLoopMerge)
        r.own_continue = r.own_continue || merge->operands[1] == b.label;
  std::vector<uint32_t> words = ir::serialize(m);
  r.invalid = validate_vulkan(words);
  r.text = disassemble(words);
  return r;
}

TEST(SingleBlockLoops, AStraightLoopBecomesOneBlockAndItsHeaderValuesReachTheEnd) {
  // The counter and the sum, both header phis, are used after the loop.
  Result r = run_pass(R"(
%header = OpLabel
%i = OpPhi %uint %u0 %entry %i1 %cont
%c = OpPhi %uint %u1 %entry %c1 %cont
%more = OpULessThan %bool %i %n
OpLoopMerge %merge %cont None
OpBranchConditional %more %body %merge
%body = OpLabel
%c3 = OpIMul %uint %c %u3
OpBranch %cont
%cont = OpLabel
%c1 = OpIAdd %uint %c3 %i
%i1 = OpIAdd %uint %i %u1
OpBranch %header
%merge = OpLabel
%sum = OpIAdd %uint %c %i
OpStore %pout %sum
)");
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(r.own_continue) << r.text;
  EXPECT_EQ(r.invalid, "") << r.text;
}

TEST(SingleBlockLoops, ABreakFromTheBodyKeepsTheLoop) {
  Result r = run_pass(R"(
%header = OpLabel
%i = OpPhi %uint %u0 %entry %i1 %cont
%more = OpULessThan %bool %i %n
OpLoopMerge %merge %cont None
OpBranchConditional %more %body %merge
%body = OpLabel
%three = OpIEqual %bool %i %u3
OpBranchConditional %three %merge %cont
%cont = OpLabel
%i1 = OpIAdd %uint %i %u1
OpBranch %header
%merge = OpLabel
OpStore %pout %i
)");
  EXPECT_FALSE(r.changed) << r.text;
  EXPECT_EQ(r.invalid, "") << r.text;
}

const char* kLoopWithABreak = R"(
%header = OpLabel
%i = OpPhi %uint %u0 %entry %i1 %cont
%c = OpPhi %uint %u1 %entry %c1 %cont
%more = OpULessThan %bool %i %n
OpLoopMerge %merge %cont None
OpBranchConditional %more %body %merge
%body = OpLabel
%three = OpIEqual %bool %c %u3
OpSelectionMerge %go None
OpBranchConditional %three %out %go
%out = OpLabel
OpBranch %merge
%go = OpLabel
%c1 = OpIMul %uint %c %u3
%i1 = OpIAdd %uint %i %u1
OpBranch %cont
%cont = OpLabel
OpBranch %header
%merge = OpLabel
%sum = OpIAdd %uint %c %i
OpStore %pout %sum
)";

TEST(LoopVariables, ALoopWithABreakCarriesItsValuesInVariables) {
  EXPECT_FALSE(run_pass(kLoopWithABreak).changed);  // not a line of blocks
  Result r = run_pass(kLoopWithABreak, "loop-variables");
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.invalid, "") << r.text;
  EXPECT_EQ(r.text.find("OpPhi"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("OpVariable %_ptr_Function_uint Function"), std::string::npos) << r.text;
}

TEST(SingleBlockLoops, AHeaderThatWritesKeepsTheLoop) {
  Result r = run_pass(R"(
%header = OpLabel
%i = OpPhi %uint %u0 %entry %i1 %cont
OpStore %pout %i
%more = OpULessThan %bool %i %n
OpLoopMerge %merge %cont None
OpBranchConditional %more %body %merge
%body = OpLabel
OpBranch %cont
%cont = OpLabel
%i1 = OpIAdd %uint %i %u1
OpBranch %header
%merge = OpLabel
)");
  EXPECT_FALSE(r.changed) << r.text;
  EXPECT_EQ(r.invalid, "") << r.text;
}

TEST(SingleBlockLoops, ProbeLoopsKeepTheirShape) {
  const std::string loop = R"(
%header = OpLabel
%i = OpPhi %uint %u0 %entry %i1 %cont
%more = OpULessThan %bool %i %n
OpLoopMerge %merge %cont None
OpBranchConditional %more %cont %merge
%cont = OpLabel
%i1 = OpIAdd %uint %i %u1
OpBranch %header
%merge = OpLabel
OpStore %pout %i
)";
  ir::Module m = parse_text(shader_with(loop));
  k2s::PassContext context;
  for (const auto& b : m.functions[0].blocks)
    if (b.merge() && b.merge()->opcode == spv::Op::OpLoopMerge) context.probe_loops.insert(b.label);
  ASSERT_EQ(context.probe_loops.size(), 1u);
  EXPECT_EQ(k2s::create_pass("single-block-loops")->Process(m, context), k2s::PassStatus::SuccessWithoutChange);
  EXPECT_TRUE(run_pass(loop).changed);  // the same loop, not a probe
}

}  // namespace
}  // namespace vkcl::test
