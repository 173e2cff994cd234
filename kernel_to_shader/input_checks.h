// Checks and repairs of input Kernel modules shared by translate() and link_modules().
#pragma once

#include <spirv-tools/libspirv.h>

#include <string>
#include <vector>

#include "ir/module.h"

namespace vkcl::k2s {

// ir::parse for a module from the application, which first has every instruction's operands
// checked against the SPIR-V grammar (their number, enumerants, strings). False with |error|
// when either fails.
bool parse_input(const std::vector<uint32_t>& words, ir::Module* module, std::string* error);

// The result id of an access chain with an index that is not an integer scalar (as SPIR-V
// requires), or "".
std::string non_integer_index(const ir::Module& module);

// spirv-val's messages for |words| under |env|, or "" when the module is valid.
std::string validate(const std::vector<uint32_t>& words, spv_target_env env);

// Gives every vector OpSelect a vector condition: llvm-spirv 15 writes scalar conditions
// (a SPIR-V 1.4 form) into modules it labels 1.3.
void splat_select_conditions(ir::Module& module);
// Lists every module-scope variable in every entry point's interface (SPIR-V 1.4 and later).
void complete_interfaces(ir::Module& module);
// Turns OpAtomicCompareExchangeWeak (removed in SPIR-V 1.4) into OpAtomicCompareExchange.
void strengthen_weak_compare_exchange(ir::Module& module);

}  // namespace vkcl::k2s
