// Helpers for translator tests: SPIR-V text in, SPIR-V text out.
#pragma once

#include <spirv-tools/libspirv.hpp>

#include <string>
#include <vector>

#include "ir/module.h"

namespace vkcl::test {

// Assembles |text| (universal environment); an empty vector and |*error| on failure.
std::vector<uint32_t> assemble(const std::string& text, std::string* error = nullptr);
std::string disassemble(const std::vector<uint32_t>& words);
ir::Module parse_text(const std::string& text);
// Empty when |words| is valid for Vulkan 1.2, else the validator's messages.
std::string validate_vulkan(const std::vector<uint32_t>& words);

}  // namespace vkcl::test
