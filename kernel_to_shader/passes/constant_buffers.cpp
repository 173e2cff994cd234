#include "passes/constant_buffers.h"

#include <unordered_set>

namespace vkcl::k2s {

using spv::Op;

namespace {

constexpr uint32_t kNone = UINT32_MAX;  // points into no one argument (or not known to)

// A pointer's argument: absent while nothing reaches it yet, then one index, then kNone.
class Roots {
 public:
  // Joins |index| into |id|'s; true when that changed it.
  bool join(uint32_t id, uint32_t index) {
    auto [it, added] = of_.emplace(id, index);
    if (added) return true;
    if (it->second == index || it->second == kNone) return false;
    it->second = kNone;
    return true;
  }
  // The argument of operand |id|, where it is known to have one (nullopt-like: absent).
  bool get(uint32_t id, uint32_t* index) const {
    auto it = of_.find(id);
    if (it == of_.end()) return false;
    *index = it->second;
    return true;
  }
  std::unordered_map<uint32_t, uint32_t> known() const {
    std::unordered_map<uint32_t, uint32_t> out;
    for (const auto& [id, index] : of_)
      if (index != kNone) out.emplace(id, index);
    return out;
  }

 private:
  std::unordered_map<uint32_t, uint32_t> of_;
};

// Function variables stored exactly once, and only ever stored to or loaded from: variable ->
// the value stored. Unoptimised code keeps each pointer in such a variable and loads it where
// it is used, so a load of one points where the stored value does.
std::unordered_map<uint32_t, uint32_t> stored_once(const ir::Module& module) {
  std::unordered_map<uint32_t, uint32_t> value;
  std::unordered_set<uint32_t> variables, dropped;
  for (const ir::Function& f : module.functions)
    for (const ir::Block& b : f.blocks)
      for (const ir::Instruction& i : b.instructions) {
        if (i.opcode == Op::OpVariable) variables.insert(i.result_id);
        for (size_t k = 0; k < i.operands.size(); ++k) {
          const uint32_t id = i.operands[k];
          if (!variables.count(id) || ir::is_literal_operand(i, k)) continue;
          if (i.opcode == Op::OpLoad && k == 0) continue;
          if (i.opcode == Op::OpStore && k == 0 && value.emplace(id, i.operands[1]).second) continue;
          dropped.insert(id);  // stored twice, or its address used otherwise
        }
      }
  for (uint32_t id : dropped) value.erase(id);
  return value;
}

}  // namespace

std::unordered_map<uint32_t, uint32_t> constant_argument_pointers(const ir::Module& module,
                                                                 uint32_t max_buffers) {
  std::unordered_set<uint32_t> constant_pointer_types;
  for (const ir::Instruction& g : module.globals)
    if (g.opcode == Op::OpTypePointer && spv::StorageClass(g.operands[0]) == spv::StorageClass::UniformConstant)
      constant_pointer_types.insert(g.result_id);
  std::unordered_map<uint32_t, const ir::Function*> functions;
  for (const ir::Function& f : module.functions) functions[f.id()] = &f;

  // Every value's type: a bit cast is followed only from a pointer.
  std::unordered_map<uint32_t, uint32_t> type_of;
  for (const ir::Function& f : module.functions) {
    for (const ir::Instruction& p : f.parameters) type_of[p.result_id] = p.type_id;
    for (const ir::Block& b : f.blocks)
      for (const ir::Instruction& i : b.instructions)
        if (i.result_id) type_of[i.result_id] = i.type_id;
  }
  for (const ir::Instruction& g : module.globals)
    if (g.result_id) type_of[g.result_id] = g.type_id;

  Roots roots;
  // (Not in a module with a kernel of so many arguments that one could have that binding,
  // an image's.)
  bool binding_free = max_buffers > 0;
  for (const ir::Instruction& e : module.entry_points) {
    auto it = functions.find(e.operands[1]);
    binding_free = binding_free && (it == functions.end() || it->second->parameters.size() <= kProgramConstantsBinding);
  }
  for (const ir::Instruction& g : module.globals)
    if (g.opcode == Op::OpVariable && constant_pointer_types.count(g.type_id))
      roots.join(g.result_id, binding_free ? kProgramConstantsBinding : kNone);
  for (const ir::Instruction& e : module.entry_points) {
    auto it = functions.find(e.operands[1]);
    if (it == functions.end()) continue;
    const auto& parameters = it->second->parameters;
    uint32_t count = 0;
    for (const ir::Instruction& p : parameters) count += constant_pointer_types.count(p.type_id);
    for (uint32_t k = 0; k < parameters.size(); ++k)
      if (constant_pointer_types.count(parameters[k].type_id))
        roots.join(parameters[k].result_id, k < kMaxConstantBufferArgument && count < max_buffers ? k : kNone);
  }

  const std::unordered_map<uint32_t, uint32_t> kept = stored_once(module);

  // Joins operand |from|'s argument into |to|'s; true when that changed something. An
  // operand no pointer reached yet adds nothing (a later round brings it).
  auto flow = [&](uint32_t to, uint32_t from) {
    uint32_t index;
    return roots.get(from, &index) && roots.join(to, index);
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const ir::Function& f : module.functions)
      for (const ir::Block& b : f.blocks)
        for (const ir::Instruction& i : b.instructions) {
          if (i.opcode == Op::OpFunctionCall) {
            auto callee = functions.find(i.operands[0]);
            if (callee == functions.end()) continue;
            const auto& parameters = callee->second->parameters;
            for (size_t a = 1; a < i.operands.size() && a - 1 < parameters.size(); ++a)
              if (constant_pointer_types.count(parameters[a - 1].type_id))
                changed |= flow(parameters[a - 1].result_id, i.operands[a]);
            if (constant_pointer_types.count(i.type_id)) changed |= roots.join(i.result_id, kNone);
            continue;
          }
          if (!i.result_id || !constant_pointer_types.count(i.type_id)) continue;
          switch (i.opcode) {
            case Op::OpAccessChain: case Op::OpInBoundsAccessChain: case Op::OpPtrAccessChain:
            case Op::OpInBoundsPtrAccessChain: case Op::OpCopyObject:
              changed |= flow(i.result_id, i.operands[0]);
              break;
            case Op::OpBitcast:  // from another pointer; one made from an integer is not followed
              if (constant_pointer_types.count(type_of[i.operands[0]])) changed |= flow(i.result_id, i.operands[0]);
              else changed |= roots.join(i.result_id, kNone);
              break;
            case Op::OpLoad: {
              auto it = kept.find(i.operands[0]);
              if (it != kept.end()) changed |= flow(i.result_id, it->second);
              else changed |= roots.join(i.result_id, kNone);
              break;
            }
            case Op::OpPhi:
              for (size_t k = 0; k + 1 < i.operands.size(); k += 2) changed |= flow(i.result_id, i.operands[k]);
              break;
            case Op::OpSelect:
              changed |= flow(i.result_id, i.operands[1]);
              changed |= flow(i.result_id, i.operands[2]);
              break;
            default:
              changed |= roots.join(i.result_id, kNone);
              break;
          }
        }
  }
  return roots.known();
}

}  // namespace vkcl::k2s
