// The wide local arena. Vulkan has 64-bit atomics on Workgroup memory only through a 64-bit
// typed pointer, and Workgroup variables cannot alias (no
// VK_KHR_workgroup_memory_explicit_layout on lavapipe), so kernels that need a 64-bit atomic
// on local memory (directly or through a generic pointer) see local memory as an array of
// 64-bit words instead of 32-bit ones, of the same byte size. Every other kernel keeps the
// 32-bit arena: narrower accesses in a wide arena cost a shift, or two atomics for a store.
// A function called both from wide and from narrow kernels is lowered twice, once per arena.
#include <unordered_map>

#include "passes/lower_to_shader.h"

namespace vkcl::k2s {

using spv::Op;

namespace {

bool is_integer_atomic(Op op) {
  switch (op) {
    case Op::OpAtomicLoad: case Op::OpAtomicStore: case Op::OpAtomicExchange:
    case Op::OpAtomicCompareExchange: case Op::OpAtomicCompareExchangeWeak:
    case Op::OpAtomicIIncrement: case Op::OpAtomicIDecrement: case Op::OpAtomicIAdd:
    case Op::OpAtomicISub: case Op::OpAtomicSMin: case Op::OpAtomicUMin: case Op::OpAtomicSMax:
    case Op::OpAtomicUMax: case Op::OpAtomicAnd: case Op::OpAtomicOr: case Op::OpAtomicXor:
      return true;
    default: return false;
  }
}

struct CallGraph {
  std::unordered_map<uint32_t, ir::Function*> functions;
  std::unordered_map<uint32_t, std::vector<uint32_t>> callees;

  std::unordered_set<uint32_t> closure(const std::vector<uint32_t>& roots) const {
    std::unordered_set<uint32_t> seen;
    std::vector<uint32_t> work = roots;
    while (!work.empty()) {
      uint32_t f = work.back();
      work.pop_back();
      if (!functions.count(f) || !seen.insert(f).second) continue;
      auto it = callees.find(f);
      if (it != callees.end()) work.insert(work.end(), it->second.begin(), it->second.end());
    }
    return seen;
  }
};

// Whether |f| has a 64-bit atomic on a Workgroup or Generic pointer; |types| maps ids to
// their type ids.
bool has_wide_local_atomic(const ir::Function& f,
                           const std::unordered_map<uint32_t, uint32_t>& types,
                           const std::unordered_map<uint32_t, const ir::Instruction*>& globals) {
  for (const auto& b : f.blocks)
    for (const auto& i : b.instructions) {
      if (!is_integer_atomic(i.opcode) || i.operands.empty()) continue;
      auto t = types.find(i.operands[0]);
      if (t == types.end()) continue;
      auto p = globals.find(t->second);
      if (p == globals.end() || p->second->opcode != Op::OpTypePointer) continue;
      auto storage = spv::StorageClass(p->second->operands[0]);
      if (storage != spv::StorageClass::Workgroup && storage != spv::StorageClass::Generic) continue;
      auto e = globals.find(p->second->operands[1]);
      if (e == globals.end()) continue;
      const ir::Instruction* element = e->second;
      if ((element->opcode == Op::OpTypeInt || element->opcode == Op::OpTypeFloat) &&
          element->operands[0] == 64)
        return true;
    }
  return false;
}

}  // namespace

std::unordered_set<uint32_t> prepare_wide_arena(ir::Module& m) {
  std::unordered_map<uint32_t, uint32_t> types;
  std::unordered_map<uint32_t, const ir::Instruction*> globals;
  for (const auto& g : m.globals) {
    if (g.result_id) globals[g.result_id] = &g;
    if (g.result_id && g.type_id) types[g.result_id] = g.type_id;
  }
  CallGraph graph;
  for (auto& f : m.functions) {
    graph.functions[f.id()] = &f;
    for (const auto& p : f.parameters) types[p.result_id] = p.type_id;
    for (const auto& b : f.blocks)
      for (const auto& i : b.instructions) {
        if (i.result_id && i.type_id) types[i.result_id] = i.type_id;
        if (i.opcode == Op::OpFunctionCall) graph.callees[f.id()].push_back(i.operands[0]);
      }
  }
  std::unordered_set<uint32_t> needs;
  for (const auto& f : m.functions)
    if (has_wide_local_atomic(f, types, globals)) needs.insert(f.id());
  if (needs.empty()) return {};

  std::vector<uint32_t> wide_roots, narrow_roots;
  for (const auto& e : m.entry_points) {
    bool wide = false;
    for (uint32_t f : graph.closure({e.operands[1]})) wide = wide || needs.count(f);
    (wide ? wide_roots : narrow_roots).push_back(e.operands[1]);
  }
  std::unordered_set<uint32_t> wide = graph.closure(wide_roots);
  std::unordered_set<uint32_t> narrow = graph.closure(narrow_roots);
  // Functions both sides call get a wide copy. No entry point is among them: a narrow kernel
  // calling a wide one would itself be wide.
  std::unordered_map<uint32_t, uint32_t> copy_of;
  std::vector<ir::Function> copies;
  for (uint32_t f : wide)
    if (narrow.count(f)) {
      copies.push_back(ir::clone_function(m, *graph.functions[f]));
      copy_of[f] = copies.back().id();
    }
  std::unordered_set<uint32_t> result;
  for (uint32_t f : wide)
    if (!narrow.count(f)) result.insert(f);
  // Functions no kernel calls (clang keeps an inlined helper that has external linkage) are
  // still lowered; the wide arena fits whatever they do.
  for (const auto& f : m.functions)
    if (!wide.count(f.id()) && !narrow.count(f.id())) result.insert(f.id());
  for (const auto& c : copies) result.insert(c.id());
  m.functions.insert(m.functions.end(), copies.begin(), copies.end());
  for (auto& f : m.functions) {
    if (!result.count(f.id())) continue;
    for (auto& b : f.blocks)
      for (auto& i : b.instructions)
        if (i.opcode == Op::OpFunctionCall && copy_of.count(i.operands[0]))
          i.operands[0] = copy_of[i.operands[0]];
  }
  return result;
}

// ---------------------------------------------------------------- access to the wide arena

uint32_t Lowering::wide_word_pointer(uint32_t offset32) {
  need_capability(spv::Capability::Int64Atomics);
  uint32_t index = emit(Op::OpShiftRightLogical, t_uint(32), {offset32, c_u32(3)});
  return emit(Op::OpAccessChain, t_ptr(spv::StorageClass::Workgroup, t_uint(64)),
              {local_wide_var_, index});
}

// Bit position of byte offset |offset32| within its 64-bit word.
uint32_t Lowering::wide_shift(uint32_t offset32) {
  uint32_t byte = emit(Op::OpBitwiseAnd, t_uint(32), {offset32, c_u32(7)});
  return emit(Op::OpShiftLeftLogical, t_uint(32), {byte, c_u32(3)});
}

uint32_t Lowering::wide_load(uint32_t offset32, uint32_t width) {
  uint32_t word = emit(Op::OpLoad, t_uint(64), {wide_word_pointer(offset32)});
  if (width == 64) return word;
  uint32_t v = emit(Op::OpShiftRightLogical, t_uint(64), {word, wide_shift(offset32)});
  return emit(Op::OpUConvert, t_uint(width), {v});
}

// Narrower stores replace their bytes with two atomics: other work-items may be writing the
// rest of the word at the same time.
void Lowering::wide_store(uint32_t offset32, uint32_t width, uint32_t bits) {
  uint32_t u64 = t_uint(64);
  uint32_t ptr = wide_word_pointer(offset32);
  if (width == 64) {
    emit_void(Op::OpStore, {ptr, bits});
    return;
  }
  uint32_t shift = wide_shift(offset32);
  uint32_t placed = emit(Op::OpShiftLeftLogical, u64, {emit(Op::OpUConvert, u64, {bits}), shift});
  uint32_t hole = emit(Op::OpShiftLeftLogical, u64, {c_u64((1ull << width) - 1), shift});
  uint32_t scope = c_u32(uint32_t(spv::Scope::Workgroup));
  emit(Op::OpAtomicAnd, u64, {ptr, scope, c_u32(0), emit(Op::OpNot, u64, {hole})});
  emit(Op::OpAtomicOr, u64, {ptr, scope, c_u32(0), placed});
}

}  // namespace vkcl::k2s
