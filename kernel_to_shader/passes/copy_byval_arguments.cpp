#include "passes/copy_byval_arguments.h"

#include <unordered_map>
#include <unordered_set>

namespace vkcl::k2s {

namespace {

using spv::Op;

class CopyByValArguments : public Pass {
 public:
  const char* name() const override { return "copy-byval-arguments"; }

  PassStatus Process(ir::Module& m, PassContext&) override {
    std::unordered_set<uint32_t> byval;  // parameter ids
    for (const auto& a : m.annotations)
      if (a.opcode == Op::OpDecorate && a.operands.size() >= 3 &&
          spv::Decoration(a.operands[1]) == spv::Decoration::FuncParamAttr &&
          spv::FunctionParameterAttribute(a.operands[2]) == spv::FunctionParameterAttribute::ByVal)
        byval.insert(a.operands[0]);
    if (byval.empty()) return PassStatus::SuccessWithoutChange;
    std::unordered_set<uint32_t> function_pointers;  // OpTypePointer Function ids
    for (const auto& g : m.globals)
      if (g.opcode == Op::OpTypePointer &&
          spv::StorageClass(g.operands[0]) == spv::StorageClass::Function)
        function_pointers.insert(g.result_id);
    // Per function, the parameter types at its ByVal positions (0 elsewhere).
    std::unordered_map<uint32_t, std::vector<uint32_t>> copied_params;
    for (const ir::Function& f : m.functions) {
      std::vector<uint32_t>& types = copied_params[f.id()];
      for (const auto& p : f.parameters)
        types.push_back(byval.count(p.result_id) && function_pointers.count(p.type_id) ? p.type_id : 0);
    }

    bool changed = false;
    for (ir::Function& f : m.functions) {
      if (f.blocks.empty()) continue;
      // How often the body names each of the function's own ByVal parameters and variables.
      std::unordered_map<uint32_t, uint32_t> uses;
      std::unordered_set<uint32_t> own_variables;
      for (const auto& p : f.parameters)
        if (byval.count(p.result_id)) uses[p.result_id] = 0;
      for (const ir::Block& b : f.blocks)
        for (const ir::Instruction& i : b.instructions)
          if (i.opcode == Op::OpVariable) uses[i.result_id] = 0, own_variables.insert(i.result_id);
      for (const ir::Block& b : f.blocks)
        for (const ir::Instruction& i : b.instructions)
          for (size_t k = 0; k < i.operands.size(); ++k)
            if (!ir::is_literal_operand(i, k) && uses.count(i.operands[k])) ++uses[i.operands[k]];

      std::vector<ir::Instruction> variables;
      for (ir::Block& b : f.blocks) {
        std::vector<ir::Instruction> out;
        for (ir::Instruction& i : b.instructions) {
          auto callee = i.opcode == Op::OpFunctionCall ? copied_params.find(i.operands[0])
                                                       : copied_params.end();
          if (callee != copied_params.end()) {
            const std::vector<uint32_t>& types = callee->second;
            for (size_t a = 0; a < types.size() && a + 1 < i.operands.size(); ++a) {
              uint32_t arg = i.operands[a + 1];
              if (!types[a]) continue;
              // The caller's own copy, passed on and never used again: nobody else can see
              // what the callee does to it. Nor can anyone see a variable that only holds a
              // copy made for this call (this pass's own, so a second run changes nothing).
              auto own = uses.find(arg);
              if (own != uses.end() && own->second == 1 && !own_variables.count(arg)) continue;
              if (own != uses.end() && own->second == 2 && own_variables.count(arg) &&
                  !out.empty() && out.back().opcode == Op::OpCopyMemory &&
                  out.back().operands[0] == arg)
                continue;
              uint32_t copy = m.take_id();
              variables.emplace_back(Op::OpVariable, types[a], copy,
                                     std::vector<uint32_t>{uint32_t(spv::StorageClass::Function)});
              out.emplace_back(Op::OpCopyMemory, 0, 0, std::vector<uint32_t>{copy, arg});
              i.operands[a + 1] = copy;
              changed = true;
            }
          }
          out.push_back(std::move(i));
        }
        b.instructions = std::move(out);
      }
      auto& entry = f.blocks.front().instructions;
      entry.insert(entry.begin(), variables.begin(), variables.end());
    }
    return changed ? PassStatus::SuccessWithChange : PassStatus::SuccessWithoutChange;
  }
};

}  // namespace

std::unique_ptr<Pass> create_copy_byval_arguments_pass() {
  return std::make_unique<CopyByValArguments>();
}

}  // namespace vkcl::k2s
