#include "kernel_to_shader/spirv_text.h"

#include <gtest/gtest.h>

namespace vkcl::test {

std::vector<uint32_t> assemble(const std::string& text, std::string* error) {
  spvtools::SpirvTools tools(SPV_ENV_UNIVERSAL_1_5);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& p,
                               const char* m) {
    messages += "line " + std::to_string(p.line) + ": " + m + "\n";
  });
  std::vector<uint32_t> words;
  if (!tools.Assemble(text, &words, SPV_TEXT_TO_BINARY_OPTION_PRESERVE_NUMERIC_IDS)) {
    if (error) *error = messages;
    return {};
  }
  return words;
}

std::string disassemble(const std::vector<uint32_t>& words) {
  spvtools::SpirvTools tools(SPV_ENV_UNIVERSAL_1_6);
  std::string text;
  tools.Disassemble(words, &text, SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES);
  return text;
}

ir::Module parse_text(const std::string& text) {
  std::string error;
  std::vector<uint32_t> words = assemble(text, &error);
  EXPECT_FALSE(words.empty()) << error;
  ir::Module m;
  EXPECT_TRUE(ir::parse(words.data(), words.size(), &m, &error)) << error;
  return m;
}

std::string validate_vulkan(const std::vector<uint32_t>& words) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t&,
                               const char* m) { messages += std::string(m) + "\n"; });
  if (tools.Validate(words)) return "";
  return messages.empty() ? "invalid" : messages;
}

}  // namespace vkcl::test
