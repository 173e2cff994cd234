// Private arenas: a union of pointer values (see private_arenas.h).
#include "passes/private_arenas.h"

#include "passes/pass.h"

#include <map>
#include <unordered_set>
#include <vector>

namespace vkcl::k2s {

using spv::Op;

namespace {

class Finder {
 public:
  explicit Finder(const ir::Module& m) : m_(m) {
    for (const auto& g : m.globals)
      if (g.result_id) {
        types_[g.result_id] = g.type_id;
        if (g.opcode == Op::OpTypePointer) storage_[g.result_id] = spv::StorageClass(g.operands[0]);
      }
    for (const auto& a : m.annotations) {
      if (a.opcode != Op::OpDecorate || a.operands.size() < 3) continue;
      if (spv::Decoration(a.operands[1]) == spv::Decoration::FuncParamAttr &&
          spv::FunctionParameterAttribute(a.operands[2]) == spv::FunctionParameterAttribute::ByVal)
        variables_.push_back(a.operands[0]);  // a ByVal parameter points at its own copy
      if (spv::Decoration(a.operands[1]) == spv::Decoration::UserSemantic &&
          ir::decode_string(a.operands, 2) == kInternalPointer)
        internal_.insert(a.operands[0]);
    }
    for (const auto& f : m.functions) {
      functions_[f.id()] = &f;
      for (const auto& p : f.parameters) types_[p.result_id] = p.type_id;
      for (const auto& b : f.blocks)
        for (const auto& i : b.instructions) {
          if (i.result_id) types_[i.result_id] = i.type_id;
          if (i.opcode == Op::OpVariable) cells_[i.result_id] = 0;
        }
    }
    // A variable used otherwise, or stored as a value, is no cell.
    for (const auto& f : m.functions)
      for (const auto& b : f.blocks)
        for (const auto& i : b.instructions) {
          if (i.opcode == Op::OpVariable || i.opcode == Op::OpLifetimeStart || i.opcode == Op::OpLifetimeStop)
            continue;
          for (size_t k = 0; k < i.operands.size(); ++k)
            if (k > 0 || (i.opcode != Op::OpLoad && i.opcode != Op::OpStore)) cells_.erase(i.operands[k]);
        }
    uint32_t node = m.bound;
    for (auto& [variable, holds] : cells_) {
      (void)variable;
      holds = node++;
    }
  }

  void run(std::unordered_map<uint32_t, uint32_t>* arena, uint32_t* count,
           std::unordered_set<uint32_t>* whole) {
    for (const auto& cell : cells_) whole->insert(cell.first);
    for (const auto& g : m_.globals)  // module-scope private variables: not followed
      if (g.opcode == Op::OpVariable && is_private(g.result_id)) unite(g.result_id, PrivateArenas::kMain);
    for (const auto& f : m_.functions)
      for (const auto& b : f.blocks)
        for (const auto& i : b.instructions) visit(f, i);
    // Number the classes that hold a variable; the others' pointers point at nothing.
    std::map<uint32_t, uint32_t> numbers{{find(PrivateArenas::kMain), PrivateArenas::kMain}};
    for (uint32_t v : variables_) numbers.emplace(find(v), uint32_t(numbers.size()));
    *count = uint32_t(numbers.size());
    for (const auto& [id, parent] : parent_) {
      (void)parent;
      if (id == PrivateArenas::kMain || id >= m_.bound || functions_.count(id)) continue;
      auto n = numbers.find(find(id));
      (*arena)[id] = n == numbers.end() ? PrivateArenas::kMain : n->second;
    }
  }

 private:
  spv::StorageClass storage_of(uint32_t id) const {
    auto t = types_.find(id);
    if (t == types_.end()) return spv::StorageClass::Max;
    auto s = storage_.find(t->second);
    return s == storage_.end() ? spv::StorageClass::Max : s->second;
  }
  bool is_private(uint32_t id) const {
    spv::StorageClass s = storage_of(id);
    return s == spv::StorageClass::Function || s == spv::StorageClass::Private;
  }
  bool is_generic(uint32_t id) const { return storage_of(id) == spv::StorageClass::Generic; }

  uint32_t holder(uint32_t address) const {
    auto cell = cells_.find(address);
    return cell == cells_.end() ? PrivateArenas::kMain : cell->second;
  }

  uint32_t find(uint32_t x) {
    auto it = parent_.emplace(x, x).first;
    if (it->second == x) return x;
    uint32_t root = find(it->second);
    parent_[x] = root;
    return root;
  }
  void unite(uint32_t a, uint32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (b == PrivateArenas::kMain || (a != PrivateArenas::kMain && b < a)) std::swap(a, b);
    parent_[b] = a;
  }

  void visit(const ir::Function& f, const ir::Instruction& i) {
    const auto& ops = i.operands;
    bool result_private = i.result_id && is_private(i.result_id);
    switch (i.opcode) {
      case Op::OpVariable:
        if (result_private && !cells_.count(i.result_id)) {
          find(i.result_id);
          variables_.push_back(i.result_id);
        }
        return;
      case Op::OpFunctionCall: {
        auto callee = functions_.find(ops[0]);
        for (size_t k = 1; k < ops.size(); ++k) {
          if (!is_private(ops[k])) continue;
          if (callee == functions_.end() || k - 1 >= callee->second->parameters.size())
            unite(ops[k], PrivateArenas::kMain);
          else
            unite(ops[k], callee->second->parameters[k - 1].result_id);
        }
        if (result_private) unite(i.result_id, callee == functions_.end() ? PrivateArenas::kMain : ops[0]);
        return;
      }
      case Op::OpReturnValue:
        if (is_private(ops[0])) unite(ops[0], f.id());
        return;
      case Op::OpPhi:
        if (result_private)
          for (size_t k = 0; k < ops.size(); k += 2) unite(i.result_id, ops[k]);
        return;
      case Op::OpSelect:
        if (result_private) {
          unite(i.result_id, ops[1]);
          unite(i.result_id, ops[2]);
        }
        return;
      case Op::OpAccessChain: case Op::OpInBoundsAccessChain: case Op::OpPtrAccessChain:
      case Op::OpInBoundsPtrAccessChain: case Op::OpBitcast: case Op::OpCopyObject: {
        bool from_private = is_private(ops[0]);
        if (result_private && from_private) unite(i.result_id, ops[0]);
        else if (result_private) unite(i.result_id, PrivateArenas::kMain);  // from an integer
        else if (from_private) unite(ops[0], PrivateArenas::kMain);         // to an integer
        return;
      }
      // A pointer through memory is followed only through a cell. Resuming kernels save
      // variables in records of their own and load them back into the same variables: those
      // accesses leave the pointers where the variables' other accesses put them.
      case Op::OpLoad:
        if (result_private && !internal_.count(ops[0])) unite(i.result_id, holder(ops[0]));
        return;
      case Op::OpStore:
        if (is_private(ops[1]) && !internal_.count(ops[0])) unite(ops[1], holder(ops[0]));
        return;
      default:
        break;
    }
    // Instructions that access memory through their pointers, or compare them, keep them in
    // one arena; any other use lets a pointer go where it cannot be followed.
    bool access = i.opcode == Op::OpCopyMemory || i.opcode == Op::OpCopyMemorySized ||
                  i.opcode == Op::OpExtInst || i.opcode == Op::OpLifetimeStart ||
                  i.opcode == Op::OpLifetimeStop || i.opcode == Op::OpPtrEqual ||
                  i.opcode == Op::OpPtrNotEqual || i.opcode == Op::OpPtrDiff ||
                  (i.opcode >= Op::OpAtomicLoad && i.opcode <= Op::OpAtomicXor) ||
                  i.opcode == Op::OpAtomicFlagTestAndSet || i.opcode == Op::OpAtomicFlagClear ||
                  i.opcode == Op::OpAtomicFAddEXT || i.opcode == Op::OpAtomicFMinEXT ||
                  i.opcode == Op::OpAtomicFMaxEXT;
    std::vector<uint32_t> pointers;
    bool generic = false;
    for (size_t k = 0; k < ops.size(); ++k) {
      if (ir::is_literal_operand(i, k)) continue;
      if (is_private(ops[k])) pointers.push_back(ops[k]);
      generic = generic || is_generic(ops[k]);
    }
    if (result_private) pointers.push_back(i.result_id);
    if (pointers.empty()) return;
    if (!access || generic || result_private) pointers.push_back(PrivateArenas::kMain);
    for (size_t k = 1; k < pointers.size(); ++k) unite(pointers[0], pointers[k]);
  }

  const ir::Module& m_;
  std::unordered_map<uint32_t, uint32_t> types_;  // value id -> type id
  std::unordered_map<uint32_t, spv::StorageClass> storage_;  // pointer type -> storage
  std::unordered_map<uint32_t, const ir::Function*> functions_;
  std::unordered_map<uint32_t, uint32_t> parent_;
  std::vector<uint32_t> variables_;
  // Variables only loaded and stored whole (the lowering keeps them as real variables), and
  // for each, the node of the pointers they hold.
  std::unordered_map<uint32_t, uint32_t> cells_;
  std::unordered_set<uint32_t> internal_;  // kInternalPointer addresses
};

}  // namespace

void PrivateArenas::analyze(const ir::Module& m) {
  arena_.clear();
  whole_.clear();
  Finder(m).run(&arena_, &count_, &whole_);
}

uint32_t PrivateArenas::of_value(uint32_t id) const {
  auto it = arena_.find(id);
  return it == arena_.end() ? kMain : it->second;
}

uint32_t PrivateArenas::of_access(const ir::Instruction& i) const {
  if (i.opcode == Op::OpVariable) return of_value(i.result_id);
  for (size_t k = 0; k < i.operands.size(); ++k) {
    if (i.opcode == Op::OpStore && k == 1) break;  // the value stored, not where
    if (ir::is_literal_operand(i, k)) continue;
    auto it = arena_.find(i.operands[k]);
    if (it != arena_.end()) return it->second;
  }
  return kMain;
}

}  // namespace vkcl::k2s
