#include "passes/vector_loads.h"

#include <map>
#include <unordered_map>

namespace vkcl::k2s {

namespace {

using spv::Op;

constexpr uint32_t kVolatile = 0x1, kAligned = 0x2;

bool is_chain(Op op) {
  return op == Op::OpAccessChain || op == Op::OpInBoundsAccessChain || op == Op::OpPtrAccessChain ||
         op == Op::OpInBoundsPtrAccessChain;
}

// Instructions that neither write memory nor order accesses: a group of loads may span them.
bool is_pure(Op op) {
  const auto n = uint32_t(op);
  if (n >= uint32_t(Op::OpConvertFToU) && n <= uint32_t(Op::OpBitcast)) return true;   // conversions
  if (n >= uint32_t(Op::OpSNegate) && n <= uint32_t(Op::OpSMulExtended)) return true;   // arithmetic
  if (n >= uint32_t(Op::OpAny) && n <= uint32_t(Op::OpFUnordGreaterThanEqual)) return true;
  if (n >= uint32_t(Op::OpShiftRightLogical) && n <= uint32_t(Op::OpBitCount)) return true;
  if (n >= uint32_t(Op::OpVectorExtractDynamic) && n <= uint32_t(Op::OpCopyObject)) return true;
  return is_chain(op) || op == Op::OpPhi || op == Op::OpUndef || op == Op::OpLine || op == Op::OpNoLine;
}

struct Component {
  size_t position;  // of the load in its block
  uint32_t index;   // which component
};

struct Group {
  const ir::Instruction* chain;  // of one of the loads: its base and prefix name the vector
  uint32_t vector_type = 0, storage = 0;
  uint32_t components = 0;
  std::vector<Component> loads;
  uint32_t alignment = 0;  // of component 0's load, 0 when it has none
};

class VectorLoads : public Pass {
 public:
  const char* name() const override { return "vector-loads"; }

  PassStatus Process(ir::Module& m, PassContext&) override {
    index_globals(m);
    for (const auto& x : m.ext_inst_imports)
      if (ir::decode_string(x.operands, 0) == "OpenCL.std") opencl_std_ = x.result_id;
    bool changed = false;
    for (auto& f : m.functions) {
      types_.clear();
      defs_.clear();
      for (const auto& p : f.parameters) types_[p.result_id] = p.type_id;
      for (const auto& b : f.blocks)
        for (const auto& i : b.instructions)
          if (i.result_id) types_[i.result_id] = i.type_id, defs_[i.result_id] = &i;
      for (auto& b : f.blocks) changed = merge(m, b) || changed;
    }
    return changed ? PassStatus::SuccessWithChange : PassStatus::SuccessWithoutChange;
  }

 private:
  void index_globals(const ir::Module& m) {
    globals_.clear();
    for (const auto& g : m.globals)
      if (g.result_id) globals_[g.result_id] = &g;
  }

  const ir::Instruction* global(uint32_t id) const {
    auto it = globals_.find(id);
    return it == globals_.end() ? nullptr : it->second;
  }

  // The type of value |id|: a function's own or a module-scope one (variables, constants).
  const ir::Instruction* type_of(uint32_t id) const {
    auto t = types_.find(id);
    if (t != types_.end()) return global(t->second);
    const ir::Instruction* g = global(id);
    return g && g->type_id ? global(g->type_id) : nullptr;
  }

  bool is_pointer_value(uint32_t id) const {
    const ir::Instruction* type = type_of(id);
    return type && type->opcode == Op::OpTypePointer;
  }

  bool may_touch_memory(const ir::Instruction& i) const {
    if (i.opcode == Op::OpExtInst) {
      // OpenCL.std's instructions with a pointer operand read or write through it (vstoren,
      // sincos, printf ...); the others compute.
      if (i.operands.empty() || i.operands[0] != opencl_std_) return true;
      for (size_t k = 2; k < i.operands.size(); ++k)
        if (is_pointer_value(i.operands[k])) return true;
      return false;
    }
    if (i.opcode == Op::OpLoad) return i.operands.size() > 1 && (i.operands[1] & kVolatile);
    return !is_pure(i.opcode);
  }

  // The vector whose component chain |c| picks with its last index (a constant): fills the
  // group's types and returns the component, or -1 when |c| is not such a chain.
  int64_t vector_component(const ir::Instruction& c, uint32_t load_type, Group* g) const {
    const bool ptr_chain = c.opcode == Op::OpPtrAccessChain || c.opcode == Op::OpInBoundsPtrAccessChain;
    const size_t first_index = ptr_chain ? 2 : 1;
    if (c.operands.size() < first_index + 1) return -1;
    const ir::Instruction* ptr = type_of(c.operands[0]);
    if (!ptr || ptr->opcode != Op::OpTypePointer) return -1;
    const uint32_t storage = ptr->operands[0];
    const ir::Instruction* t = global(ptr->operands[1]);
    for (size_t k = first_index; t && k + 1 < c.operands.size(); ++k) {
      if (t->opcode == Op::OpTypeStruct) {
        const ir::Instruction* member = global(c.operands[k]);
        if (!member || member->opcode != Op::OpConstant || member->operands[0] >= t->operands.size()) return -1;
        t = global(t->operands[member->operands[0]]);
      } else if (t->opcode == Op::OpTypeArray || t->opcode == Op::OpTypeRuntimeArray ||
                 t->opcode == Op::OpTypeVector) {
        t = global(t->operands[0]);
      } else {
        return -1;
      }
    }
    if (!t || t->opcode != Op::OpTypeVector || t->operands[0] != load_type) return -1;
    const ir::Instruction* last = global(c.operands.back());
    if (!last || last->opcode != Op::OpConstant || last->operands[0] >= t->operands[1]) return -1;
    g->vector_type = t->result_id;
    g->components = t->operands[1];
    g->storage = storage;
    return last->operands[0];
  }

  bool merge(ir::Module& m, ir::Block& b) {
    // Loads grouped by the vector they read: the chain's opcode, base and prefix indices, and
    // the stretch of the block (between two instructions that may write) they lie in.
    std::map<std::vector<uint32_t>, Group> groups;
    uint32_t stretch = 0;
    for (size_t p = 0; p < b.instructions.size(); ++p) {
      const ir::Instruction& i = b.instructions[p];
      if (may_touch_memory(i)) {
        ++stretch;
        continue;
      }
      if (i.opcode != Op::OpLoad) continue;
      auto d = defs_.find(i.operands[0]);
      if (d == defs_.end() || !is_chain(d->second->opcode)) continue;
      const ir::Instruction& c = *d->second;
      Group candidate;
      int64_t k = vector_component(c, i.type_id, &candidate);
      if (k < 0) continue;
      std::vector<uint32_t> key = {stretch, uint32_t(c.opcode)};
      key.insert(key.end(), c.operands.begin(), c.operands.end() - 1);
      Group& g = groups[key];
      if (g.loads.empty()) g = candidate, g.chain = &c;
      g.loads.push_back({p, uint32_t(k)});
      if (k == 0 && i.operands.size() > 2 && (i.operands[1] & kAligned)) g.alignment = i.operands[2];
    }

    // Where every component is read, the first of the loads becomes the vector's, and each
    // load an extract of it.
    std::map<size_t, std::vector<ir::Instruction>> before;  // new instructions, by position
    for (auto& [key, g] : groups) {
      uint32_t seen = 0;
      for (const auto& l : g.loads) seen |= 1u << l.index;
      if (seen != (1u << g.components) - 1) continue;
      const size_t had = m.globals.size();
      const uint32_t pointer = ir::intern_global(m, Op::OpTypePointer, 0, {g.storage, g.vector_type});
      if (m.globals.size() != had) index_globals(m);  // the vector may have moved
      const uint32_t chain = m.take_id(), vector = m.take_id();
      std::vector<uint32_t> prefix(g.chain->operands.begin(), g.chain->operands.end() - 1);
      std::vector<uint32_t> access;
      if (g.alignment) access = {kAligned, g.alignment};
      auto& out = before[g.loads.front().position];
      out.emplace_back(g.chain->opcode, pointer, chain, prefix);
      out.emplace_back(Op::OpLoad, g.vector_type, vector, std::vector<uint32_t>{chain});
      out.back().operands.insert(out.back().operands.end(), access.begin(), access.end());
      for (const auto& l : g.loads) {
        ir::Instruction& load = b.instructions[l.position];
        load = ir::Instruction(Op::OpCompositeExtract, load.type_id, load.result_id, {vector, l.index});
      }
    }
    if (before.empty()) return false;
    std::vector<ir::Instruction> merged;
    merged.reserve(b.instructions.size() + 2 * before.size());
    for (size_t p = 0; p < b.instructions.size(); ++p) {
      auto it = before.find(p);
      if (it != before.end()) merged.insert(merged.end(), it->second.begin(), it->second.end());
      merged.push_back(std::move(b.instructions[p]));
    }
    b.instructions = std::move(merged);
    for (const auto& i : b.instructions)
      if (i.result_id) defs_[i.result_id] = &i;
    return true;
  }

  std::unordered_map<uint32_t, const ir::Instruction*> globals_;
  std::unordered_map<uint32_t, uint32_t> types_;
  std::unordered_map<uint32_t, const ir::Instruction*> defs_;
  uint32_t opencl_std_ = 0;
};

}  // namespace

std::unique_ptr<Pass> create_vector_loads_pass() { return std::make_unique<VectorLoads>(); }

}  // namespace vkcl::k2s
