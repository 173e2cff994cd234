// structurize on hand-written Kernel SPIR-V, checked by what lavapipe's SPIR-V reader (Mesa
// 22.3) accepts and by what the driver is left to compile.
#include <gtest/gtest.h>

#include "kernel_to_shader/spirv_text.h"
#include "kernel_to_shader/structured_walk.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::test {
namespace {

const char* kModule = R"(
OpCapability Addresses
OpCapability Kernel
OpCapability Int64
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %k "k"
OpName %heavy "heavy"
%void = OpTypeVoid
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%ulong = OpTypeInt 64 0
%uint_0 = OpConstant %uint 0
%uint_5 = OpConstant %uint 5
%ulong_1 = OpConstant %ulong 1
%ulong_2 = OpConstant %ulong 2
%ulong_3 = OpConstant %ulong 3
%gptr = OpTypePointer CrossWorkgroup %uint
%fn = OpTypeFunction %void %gptr
%heavy_fn = OpTypeFunction %uint %uint
)";

// A helper of 48 instructions, as a library function (tgamma) would be.
std::string heavy_helper() {
  std::string text = "%heavy = OpFunction %uint None %heavy_fn\n%hx = OpFunctionParameter %uint\n"
                     "%heavy_entry = OpLabel\n";
  std::string previous = "%hx";
  for (int i = 0; i < 48; ++i) {
    std::string v = "%h" + std::to_string(i);
    text += v + " = OpIMul %uint " + previous + " " + previous + "\n";
    previous = v;
  }
  return text + "OpReturnValue " + previous + "\nOpFunctionEnd\n";
}

// Reads the condition of block |name| from p[index].
std::string condition(const std::string& name, const std::string& index) {
  return "%a_" + name + " = OpInBoundsPtrAccessChain %gptr %p " + index + "\n%v_" + name +
         " = OpLoad %uint %a_" + name + " Aligned 4\n%c_" + name + " = OpINotEqual %bool %v_" +
         name + " %uint_0\n";
}

// The one kernel translated from |function| (after the module's header, before the helper).
std::vector<uint32_t> translate_kernel(const std::string& function) {
  std::string error;
  std::vector<uint32_t> words = assemble(std::string(kModule) + function + heavy_helper(), &error);
  EXPECT_FALSE(words.empty()) << error;
  k2s::TranslateResult r = k2s::translate(words, {});
  EXPECT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.kernels.size(), 1u);
  return r.ok && r.kernels.size() == 1 ? r.kernels[0].shader : std::vector<uint32_t>{};
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Two short-circuit joins in a row (`a || b` meeting at %join1, while a path of `a` goes on
// to %join2, where %join1's path also arrives), then one return: the header's paths meet at
// no single block. Paths that meet inside the construct instead of at its merge pass
// spirv-val but not Mesa's reader ("Invalid back or cross-edge in the CFG": LibreOffice's
// OpenCL self-test kernel failed to compile on lavapipe, and LibreOffice turned OpenCL off).
TEST(Structurize, ShortCircuitLadderMeetsWhereMesaCanReadIt) {
  std::vector<uint32_t> shader = translate_kernel(R"(
%k = OpFunction %void None %fn
%p = OpFunctionParameter %gptr
%entry = OpLabel
%v0 = OpLoad %uint %p Aligned 4
%c0 = OpINotEqual %bool %v0 %uint_0
OpBranchConditional %c0 %a %b
%b = OpLabel
OpBranch %join1
%a = OpLabel
)" + condition("a", "%ulong_1") + R"(OpBranchConditional %c_a %x %inner
%x = OpLabel
)" + condition("x", "%ulong_2") + R"(OpBranchConditional %c_x %inner %y
%inner = OpLabel
OpBranch %join1
%join1 = OpLabel
OpBranch %join2
%y = OpLabel
OpBranch %join2
%join2 = OpLabel
OpBranch %exit
%exit = OpLabel
OpStore %p %uint_5 Aligned 4
OpReturn
OpFunctionEnd
)");
  ASSERT_FALSE(shader.empty());
  EXPECT_EQ(structured_walk_error(shader), "");
}

// Four early exits to one returning tail that calls a large function: copying the tail into
// each path (cheap by its own size) copies the function each time once the driver inlines it.
// LibreOffice's GAMMA kernel got 13 copies of tgamma, and lavapipe compiled for hours.
TEST(Structurize, ReturningTailIsNotCopiedWithTheFunctionItCalls) {
  std::vector<uint32_t> shader = translate_kernel(R"(
%k = OpFunction %void None %fn
%p = OpFunctionParameter %gptr
%entry = OpLabel
)" + condition("e", "%ulong_1") + R"(OpBranchConditional %c_e %tail %b1
%b1 = OpLabel
)" + condition("b1", "%ulong_2") + R"(OpBranchConditional %c_b1 %tail %b2
%b2 = OpLabel
)" + condition("b2", "%ulong_3") + R"(OpBranchConditional %c_b2 %b3 %tail
%b3 = OpLabel
%v3 = OpLoad %uint %p Aligned 4
%c3 = OpINotEqual %bool %v3 %uint_5
OpBranchConditional %c3 %tail %b4
%b4 = OpLabel
OpStore %p %uint_0 Aligned 4
OpReturn
%tail = OpLabel
%r = OpFunctionCall %uint %heavy %uint_5
OpStore %p %r Aligned 4
OpReturn
OpFunctionEnd
)");
  ASSERT_FALSE(shader.empty());
  std::string text = disassemble(shader);
  EXPECT_EQ(count(text, "OpFunctionCall %uint %heavy"), 1u) << text;
  EXPECT_EQ(structured_walk_error(shader), "");
}

}  // namespace
}  // namespace vkcl::test
