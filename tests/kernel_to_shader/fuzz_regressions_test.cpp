// Inputs with which fuzz/translate_fuzzer.cpp (scripts/fuzz.sh) crashed the translator: each
// must now fail with a log that names the problem. The files in tests/data/fuzz/translate are
// the fuzzer's inputs as it wrote them (some are not SPIR-V the assembler would take).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kernel_to_shader/spirv_text.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::test {
namespace {

// The fuzzer's caps (a device like lavapipe).
k2s::TargetCaps fuzzer_caps() {
  k2s::TargetCaps caps;
  caps.int8 = caps.int16 = caps.float16 = caps.float64 = caps.storage8 = caps.storage16 = true;
  caps.int64_atomics = true;
  caps.memory_barriers_stall = caps.loop_iteration_limit = true;
  caps.subgroup_operations = caps.subgroup_extended_types = true;
  caps.subgroup_features = k2s::kSubgroupBasic | k2s::kSubgroupVote | k2s::kSubgroupArithmetic |
                           k2s::kSubgroupBallot | k2s::kSubgroupShuffle | k2s::kSubgroupShuffleRelative;
  caps.subgroup_size = 8;
  caps.vulkan_memory_model = true;
  caps.images = caps.storage_image_write_without_format = caps.read_write_images = true;
  return caps;
}

// As the fuzz target does: the bytes as words, specialized, translated.
k2s::TranslateResult translate_file(const std::string& name) {
  std::ifstream in(std::string(VKCL_TEST_DATA_DIR) + "/fuzz/translate/" + name, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_FALSE(bytes.empty()) << name;
  std::vector<uint32_t> words(bytes.size() / 4);
  if (!words.empty()) std::memcpy(words.data(), bytes.data(), words.size() * 4);
  k2s::spec_constant_sizes(words);
  return k2s::translate(k2s::specialize(words, {}), fuzzer_caps());
}

struct Found {
  const char* file;
  const char* log;  // what the log must say
};

const Found kFound[] = {
    // An instruction longer than its grammar allows, and an OpTypeVector without operands
    // that splat_select_conditions read past: operands are checked against the grammar first.
    {"crash-94abd1b1ba10b0c4bda3e287df29bd58b1bf85ed", "expected no more operands"},
    // OpInBoundsPtrAccessChain indexed by a boolean (an OpSpecConstantOp LogicalNot), which
    // spirv-val lets through: lower_memory read the bool type's width.
    {"crash-f28e6f13d407fe1cf3487815af1673a1ff635762", "has an index that is not an integer"},
};

TEST(FuzzRegressions, FoundInputsFailWithALog) {
  for (const Found& f : kFound) {
    k2s::TranslateResult r = translate_file(f.file);
    EXPECT_FALSE(r.ok) << f.file;
    EXPECT_NE(r.log.find(f.log), std::string::npos) << f.file << ": " << r.log;
  }
}

// The second input's problem, written out.
TEST(FuzzRegressions, BooleanAccessChainIndex) {
  std::string error;
  std::vector<uint32_t> words = assemble(R"(
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "k"
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
       %bool = OpTypeBool
        %ptr = OpTypePointer CrossWorkgroup %uint
         %fn = OpTypeFunction %void %ptr
      %false = OpConstantFalse %bool
     %uint_1 = OpConstant %uint 1
          %k = OpFunction %void None %fn
          %p = OpFunctionParameter %ptr
      %entry = OpLabel
          %q = OpInBoundsPtrAccessChain %ptr %p %false
               OpStore %q %uint_1 Aligned 4
               OpReturn
               OpFunctionEnd
)", &error);
  ASSERT_FALSE(words.empty()) << error;
  k2s::TranslateResult r = k2s::translate(words, fuzzer_caps());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("has an index that is not an integer"), std::string::npos) << r.log;
}

// A module vkcl's own compiler made is not validated before its translation (clang and
// llvm-spirv make valid ones), only once its translation has failed, so that the log says
// what was wrong with it; an application's module is validated first.
TEST(FuzzRegressions, InvalidModulesFailWhereverTheyComeFrom) {
  std::string error;
  std::vector<uint32_t> words = assemble(R"(
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "k"
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
        %ptr = OpTypePointer CrossWorkgroup %uint
         %fn = OpTypeFunction %void %ptr
    %float_1 = OpConstant %float 1
          %k = OpFunction %void None %fn
          %p = OpFunctionParameter %ptr
      %entry = OpLabel
               OpStore %p %float_1 Aligned 4
               OpReturn
               OpFunctionEnd
)", &error);
  ASSERT_FALSE(words.empty()) << error;
  k2s::TranslateResult application = k2s::translate(words, fuzzer_caps());
  EXPECT_FALSE(application.ok);
  EXPECT_NE(application.log.find("the SPIR-V module is not valid"), std::string::npos) << application.log;
  EXPECT_NE(application.log.find("OpStore"), std::string::npos) << application.log;
  k2s::TranslateResult own = k2s::translate(words, fuzzer_caps(), k2s::InputOrigin::OwnCompiler);
  EXPECT_FALSE(own.ok);
  EXPECT_NE(own.log.find("the compiler made an invalid SPIR-V module"), std::string::npos) << own.log;
  EXPECT_NE(own.log.find("OpStore"), std::string::npos) << own.log;
  // And what stopped the translation, which the invalidity need not explain.
  const size_t then = own.log.find("and translating it failed with:\n");
  ASSERT_NE(then, std::string::npos) << own.log;
  EXPECT_GT(own.log.size(), then + 40) << own.log;
}

}  // namespace
}  // namespace vkcl::test
