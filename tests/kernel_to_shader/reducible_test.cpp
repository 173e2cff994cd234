// reducible on hand-written Kernel SPIR-V: an irreducible cycle gets one dispatch block; the
// result is valid SPIR-V, structurize then accepts it, and the whole translation passes
// spirv-val for Vulkan. Phis of vector, struct, pointer and bool type cross the dispatch.
#include <gtest/gtest.h>

#include <regex>

#include "kernel_to_shader/spirv_text.h"
#include "passes/pass.h"
#include "passes/reducible.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::test {
namespace {

const char* kHeader = R"(
OpCapability Addresses
OpCapability Kernel
OpCapability Int64
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %k "k"
)";

const char* kTypes = R"(
%void = OpTypeVoid
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%float = OpTypeFloat 32
%v4uint = OpTypeVector %uint 4
%pair = OpTypeStruct %uint %float
%uint_0 = OpConstant %uint 0
%uint_1 = OpConstant %uint 1
%uint_3 = OpConstant %uint 3
%uint_100 = OpConstant %uint 100
%float_1 = OpConstant %float 1
%true = OpConstantTrue %bool
%false = OpConstantFalse %bool
%v4_0 = OpConstantComposite %v4uint %uint_0 %uint_0 %uint_0 %uint_0
%v4_1 = OpConstantComposite %v4uint %uint_1 %uint_1 %uint_1 %uint_1
%pair_0 = OpConstantComposite %pair %uint_0 %float_1
%gptr_uint = OpTypePointer CrossWorkgroup %uint
%fn = OpTypeFunction %void %gptr_uint %uint
)";

// Two blocks that branch to each other, both entered from %entry: the smallest irreducible
// graph. %a carries a counter, %b a vector.
const std::string kTwoEntries = std::string(kHeader) + R"(
OpName %entry "entry"
OpName %a "a"
OpName %b "b"
OpName %ca "ca"
OpName %exit "exit"
OpName %ib2 "ib2"
OpName %v4_0 "v4_0"
OpName %v4_1 "v4_1"
)" + kTypes + R"(
%k = OpFunction %void None %fn
%p = OpFunctionParameter %gptr_uint
%n = OpFunctionParameter %uint
%entry = OpLabel
%odd = OpBitwiseAnd %uint %n %uint_1
%c = OpIEqual %bool %odd %uint_0
OpBranchConditional %c %a %b
%a = OpLabel
%ia = OpPhi %uint %uint_0 %entry %ib2 %b
%ia2 = OpIAdd %uint %ia %uint_3
%ca = OpULessThan %bool %ia2 %n
OpBranchConditional %ca %b %exit
%b = OpLabel
%ib = OpPhi %uint %n %entry %ia2 %a
%vb = OpPhi %v4uint %v4_0 %entry %v4_1 %a
%ib2 = OpIAdd %uint %ib %uint_1
%cb = OpULessThan %bool %ib2 %uint_100
OpBranchConditional %cb %a %exit
%exit = OpLabel
%r = OpPhi %uint %ia2 %a %ib2 %b
OpStore %p %r Aligned 4
OpReturn
OpFunctionEnd
)";

std::string validate_kernel(const std::vector<uint32_t>& words) {
  spvtools::SpirvTools tools(SPV_ENV_UNIVERSAL_1_5);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t&,
                               const char* m) { messages += std::string(m) + "\n"; });
  return tools.Validate(words) ? "" : messages + "(invalid)";
}

// Runs one pass on |text|; returns its status and writes the resulting module's text.
k2s::PassStatus run_pass(const char* name, ir::Module& m, std::string* log = nullptr) {
  auto pass = k2s::create_pass(name);
  k2s::PassContext context;
  k2s::PassStatus status = pass->Process(m, context);
  if (log) *log = context.log;
  return status;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Without the reducible pass the structurizer fails on the cycle and falls back to its last
// resort: every block a case of one switch in one loop, the phis through variables.
TEST(Reducible, StructurizeAloneMakesADispatchLoop) {
  ir::Module m = parse_text(kTwoEntries);
  std::string log;
  EXPECT_EQ(run_pass("structurize", m, &log), k2s::PassStatus::SuccessWithChange) << log;
  std::vector<uint32_t> words = ir::serialize(m);
  EXPECT_EQ(validate_kernel(words), "");
  std::string text = disassemble(words);
  EXPECT_EQ(count(text, "OpLoopMerge"), 1u) << text;
  EXPECT_EQ(count(text, "OpSwitch"), 1u) << text;
  EXPECT_EQ(count(text, "OpPhi"), 0u) << text;
  auto has = [&](const char* pattern) { return std::regex_search(text, std::regex(pattern)); };
  // The four blocks are the cases 0..3; %a and %b choose their successor with a select.
  EXPECT_TRUE(has("OpSwitch %\\w+ %entry 1 %\\w+ 2 %\\w+ 3 %\\w+\\n")) << text;
  EXPECT_EQ(count(text, "OpSelect %uint %ca"), 1u) << text;
}

TEST(Reducible, TwoEntriesGoThroughOneDispatchBlock) {
  ir::Module m = parse_text(kTwoEntries);
  ASSERT_EQ(validate_kernel(ir::serialize(m)), "");
  ASSERT_EQ(run_pass("reducible", m), k2s::PassStatus::SuccessWithChange);
  std::vector<uint32_t> words = ir::serialize(m);
  EXPECT_EQ(validate_kernel(words), "");
  std::string text = disassemble(words);
  // One dispatch: a selector phi over the four edges into the cycle (two of them through
  // edge blocks, as %entry branches to both entries) and a switch to the two entries. The
  // entries' three phis move there; %a and %b keep single-entry phis.
  EXPECT_EQ(count(text, "OpSwitch"), 1u) << text;
  EXPECT_EQ(count(text, "OpPhi"), 1u + 3u + 3u + 1u) << text;
  EXPECT_EQ(count(text, "OpUndef %v4uint"), 1u) << text;  // the vector is %b's alone
  // Edges in order: into %a from %entry (through an edge block) and %b, into %b from
  // %entry (likewise) and %a. The selector says which entry each edge meant; the moved phis
  // keep each edge's value and take OpUndef on the edges into the other entry.
  auto has = [&](const char* pattern) { return std::regex_search(text, std::regex(pattern)); };
  EXPECT_TRUE(has("OpPhi %uint %uint_0 %\\w+ %uint_0 %b %uint_1 %\\w+ %uint_1 %a\\n")) << text;
  EXPECT_TRUE(has("OpPhi %uint %uint_0 %\\w+ %ib2 %b (%\\w+) %\\w+ \\1 %a\\n")) << text;
  EXPECT_TRUE(has("OpPhi %v4uint (%\\w+) %\\w+ \\1 %b %v4_0 %\\w+ %v4_1 %a\\n")) << text;
  EXPECT_EQ(count(text, "OpBranchConditional %ca %b"), 0u) << text;
  EXPECT_EQ(count(text, "OpBranchConditional %ca %"), 1u) << text;
  EXPECT_EQ(run_pass("reducible", m), k2s::PassStatus::SuccessWithoutChange);
  std::string log;
  EXPECT_NE(run_pass("structurize", m, &log), k2s::PassStatus::Failure) << log;
  EXPECT_NE(disassemble(ir::serialize(m)).find("OpLoopMerge"), std::string::npos);
}

TEST(Reducible, ReducibleInputIsLeftAlone) {
  ir::Module m = parse_text(std::string(kHeader) + kTypes + R"(
%k = OpFunction %void None %fn
%p = OpFunctionParameter %gptr_uint
%n = OpFunctionParameter %uint
%entry = OpLabel
OpBranch %loop
%loop = OpLabel
%i = OpPhi %uint %uint_0 %entry %i2 %loop
%i2 = OpIAdd %uint %i %uint_1
%c = OpULessThan %bool %i2 %n
OpBranchConditional %c %loop %exit
%exit = OpLabel
OpStore %p %i2 Aligned 4
OpReturn
OpFunctionEnd
)");
  EXPECT_EQ(run_pass("reducible", m), k2s::PassStatus::SuccessWithoutChange);
}

k2s::TranslateResult translate_text(const std::string& text) {
  std::string error;
  std::vector<uint32_t> words = assemble(text, &error);
  EXPECT_FALSE(words.empty()) << error;
  return k2s::translate(words, {});
}

TEST(Reducible, TranslatesToValidVulkan) {
  k2s::TranslateResult r = translate_text(kTwoEntries);
  ASSERT_TRUE(r.ok) << r.log;  // translate() runs spirv-val for Vulkan on each kernel
  ASSERT_EQ(r.kernels.size(), 1u);
}

// A cycle of three blocks entered at all three (a state machine), with a block that branches
// to two entries (it needs an edge block per entry), and phis of struct, bool, vector and
// pointer type. The cycle exits to a block that stores what the phis carried.
TEST(Reducible, ThreeEntriesAndPhisOfEveryType) {
  std::string text = std::string(kHeader) + kTypes + R"(
%k = OpFunction %void None %fn
%p = OpFunctionParameter %gptr_uint
%n = OpFunctionParameter %uint
%entry = OpLabel
%sel = OpBitwiseAnd %uint %n %uint_3
%q = OpInBoundsPtrAccessChain %gptr_uint %p %uint_1
OpSwitch %sel %s0 1 %s1 2 %s2
%s0 = OpLabel
%pair0 = OpPhi %pair %pair_0 %entry %pair_0 %s1 %pair2 %s2
%flag0 = OpPhi %bool %true %entry %flag1 %s1 %flag2 %s2
%x0 = OpCompositeExtract %uint %pair0 0
%c0 = OpULessThan %bool %x0 %n
OpBranchConditional %c0 %s1 %s2
%s1 = OpLabel
%ptr1 = OpPhi %gptr_uint %p %entry %p %s0 %q %s2
%flag1 = OpPhi %bool %false %entry %true %s0 %flag2 %s2
%v = OpLoad %uint %ptr1 Aligned 4
%c1 = OpULessThan %bool %v %n
OpBranchConditional %c1 %s0 %exit
%s2 = OpLabel
%vec2 = OpPhi %v4uint %v4_0 %entry %v4_1 %s0
%flag2 = OpPhi %bool %true %entry %flag0 %s0
%e = OpCompositeExtract %uint %vec2 1
%x2 = OpIAdd %uint %e %uint_1
%pair2 = OpCompositeInsert %pair %x2 %pair_0 0
OpBranchConditional %flag2 %s1 %s0
%exit = OpLabel
%fl = OpSelect %uint %flag1 %uint_1 %uint_0
%out = OpIAdd %uint %v %fl
OpStore %ptr1 %out Aligned 4
OpReturn
OpFunctionEnd
)";
  ir::Module m = parse_text(text);
  ASSERT_EQ(validate_kernel(ir::serialize(m)), "");
  ASSERT_EQ(run_pass("reducible", m), k2s::PassStatus::SuccessWithChange);
  std::vector<uint32_t> words = ir::serialize(m);
  EXPECT_EQ(validate_kernel(words), "");
  std::string dis = disassemble(words);
  EXPECT_EQ(count(dis, "OpSwitch"), 2u) << dis;  // the input's and the dispatch's
  EXPECT_NE(dis.find("OpPhi %_struct"), std::string::npos) << dis;
  EXPECT_EQ(count(dis, "OpUndef"), 4u) << dis;  // struct, vector, pointer and bool
  k2s::TranslateResult r = translate_text(text);
  ASSERT_TRUE(r.ok) << r.log;
}

}  // namespace
}  // namespace vkcl::test
