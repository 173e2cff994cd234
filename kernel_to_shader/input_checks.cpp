#include "input_checks.h"

#include <spirv-tools/libspirv.h>

#include <optional>
#include <unordered_map>

#include "vkcl/common/host_allocation.h"

namespace vkcl::k2s {

bool parse_input(const std::vector<uint32_t>& words, ir::Module* module, std::string* error) {
  // ir::parse checks only that instructions tile the module and that result ids are in
  // bound; the repairs run before validation read the operands their opcode has (found by
  // fuzzing: an OpTypeVector without operands read past the end). SPIRV-Tools' binary parser
  // checks each instruction against the grammar, as spirv-val does first.
  std::optional<host_allocation::ForeignCode> foreign(std::in_place);  // SPIRV-Tools
  spv_context context = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
  spv_diagnostic diagnostic = nullptr;
  spv_result_t parsed = spvBinaryParse(context, nullptr, words.data(), words.size(), nullptr,
                                       nullptr, &diagnostic);
  foreign.reset();
  if (parsed != SPV_SUCCESS) {
    *error = diagnostic && diagnostic->error ? diagnostic->error : "not a SPIR-V binary";
    if (diagnostic) *error += " (word " + std::to_string(diagnostic->position.index) + ")";
  }
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
  return parsed == SPV_SUCCESS && ir::parse(words.data(), words.size(), module, error);
}

std::string non_integer_index(const ir::Module& module) {
  // spirv-val does not check it (SPIRV-Tools 2023.1): found by fuzzing, a boolean index
  // read as an integer type's width.
  std::unordered_map<uint32_t, const ir::Instruction*> defs;
  for (const auto& g : module.globals)
    if (g.result_id) defs[g.result_id] = &g;
  for (const auto& f : module.functions) {
    for (const auto& p : f.parameters) defs[p.result_id] = &p;
    for (const auto& b : f.blocks)
      for (const auto& i : b.instructions)
        if (i.result_id) defs[i.result_id] = &i;
  }
  for (const auto& f : module.functions)
    for (const auto& b : f.blocks)
      for (const auto& i : b.instructions) {
        const bool pointer_chain = i.opcode == spv::Op::OpPtrAccessChain ||
                                   i.opcode == spv::Op::OpInBoundsPtrAccessChain;
        if (!pointer_chain && i.opcode != spv::Op::OpAccessChain &&
            i.opcode != spv::Op::OpInBoundsAccessChain)
          continue;
        for (size_t k = 1; k < i.operands.size(); ++k) {
          auto index = defs.find(i.operands[k]);
          if (index == defs.end()) continue;  // spirv-val has seen to ids
          auto type = defs.find(index->second->type_id);
          if (type == defs.end() || type->second->opcode != spv::Op::OpTypeInt)
            return "%" + std::to_string(i.result_id);
        }
      }
  return "";
}

}  // namespace vkcl::k2s
