// The wide, byte and quad local arenas. Workgroup variables cannot alias (no
// VK_KHR_workgroup_memory_explicit_layout on lavapipe), so each kernel sees all its local
// memory as one array, whose element type is chosen per kernel:
//  - 64-bit words where the kernel needs a 64-bit atomic on local memory (directly or through
//    a generic pointer): Vulkan has those only through a 64-bit typed pointer;
//  - bytes where it stores 8- or 16-bit values into local memory, uses no atomic there and
//    not many more wider accesses: in an array of words such a store must merge into its word
//    with two atomics, since other work-items may write the word's other bytes meanwhile
//    (OpenCV's filters write their tiles byte by byte: 1.05-2.3x faster with bytes on
//    lavapipe); wider values then go byte by byte;
//  - 16-byte vectors (quads) where it loads or stores vectors of 8 or 16 bytes and neither
//    stores narrow values nor uses atomics there: such a vector is one access of its element,
//    where a word arena needs one per word (llvmpipe runs a loop over the lanes per access
//    of local memory: CLBlast's Xgemm reads float4 and float2 tiles); single words are a
//    component of their element;
//  - 32-bit words for every other kernel.
// The arrays have the same byte size. A function called from kernels of different arenas is
// lowered once per arena (the others get a copy of it).
#include <algorithm>
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

using TypeOf = std::unordered_map<uint32_t, uint32_t>;  // value id -> type id
using Globals = std::unordered_map<uint32_t, const ir::Instruction*>;

// The width of what atomic |i| acts on where its pointer is a Workgroup or Generic one (which
// may point to local memory); 0 for other atomics and other instructions; UINT32_MAX where the
// pointer's type is not known.
uint32_t local_atomic_width(const ir::Instruction& i, const TypeOf& types, const Globals& globals) {
  const bool atomic = is_integer_atomic(i.opcode) || i.opcode == Op::OpAtomicFAddEXT ||
                      i.opcode == Op::OpAtomicFMinEXT || i.opcode == Op::OpAtomicFMaxEXT ||
                      i.opcode == Op::OpAtomicFlagTestAndSet || i.opcode == Op::OpAtomicFlagClear;
  if (!atomic || i.operands.empty()) return 0;
  auto t = types.find(i.operands[0]);
  auto p = t == types.end() ? globals.end() : globals.find(t->second);
  if (p == globals.end() || p->second->opcode != Op::OpTypePointer) return UINT32_MAX;
  auto storage = spv::StorageClass(p->second->operands[0]);
  if (storage != spv::StorageClass::Workgroup && storage != spv::StorageClass::Generic) return 0;
  auto e = globals.find(p->second->operands[1]);
  if (e == globals.end() || (e->second->opcode != Op::OpTypeInt && e->second->opcode != Op::OpTypeFloat))
    return UINT32_MAX;
  return e->second->operands[0];
}

// Whether |f| has a 64-bit integer atomic on a Workgroup or Generic pointer.
bool has_wide_local_atomic(const ir::Function& f, const TypeOf& types, const Globals& globals) {
  for (const auto& b : f.blocks)
    for (const auto& i : b.instructions)
      if (is_integer_atomic(i.opcode) && local_atomic_width(i, types, globals) == 64) return true;
  return false;
}

// Whether |f| has any atomic that may act on local memory.
bool has_local_atomic(const ir::Function& f, const TypeOf& types, const Globals& globals) {
  for (const auto& b : f.blocks)
    for (const auto& i : b.instructions)
      if (local_atomic_width(i, types, globals) != 0) return true;
  return false;
}

// Local memory accesses of |f| (through Workgroup pointers, as written): stores of 8- or
// 16-bit values (or vectors of them), and loads and stores of wider ones, of which those of
// vectors of 8 or 16 bytes; narrow stores through generic pointers, and work-group
// functions of narrow values (both may store to local memory).
struct LocalAccesses {
  int narrow_stores = 0, wider = 0, quad_sized = 0, narrow_elsewhere = 0;
};

bool is_work_group_function(Op op) {
  switch (op) {
    case Op::OpGroupBroadcast: case Op::OpGroupIAdd: case Op::OpGroupFAdd: case Op::OpGroupFMin:
    case Op::OpGroupUMin: case Op::OpGroupSMin: case Op::OpGroupFMax: case Op::OpGroupUMax:
    case Op::OpGroupSMax:
      return true;
    default: return false;
  }
}
LocalAccesses local_accesses(const ir::Function& f, const TypeOf& types, const Globals& globals) {
  LocalAccesses n;
  for (const auto& b : f.blocks)
    for (const auto& i : b.instructions) {
      if (is_work_group_function(i.opcode)) {
        auto r = globals.find(i.type_id);
        if (r != globals.end() && r->second->opcode == Op::OpTypeVector) r = globals.find(r->second->operands[0]);
        if (r == globals.end() || r->second->operands.empty() || r->second->operands[0] < 32) ++n.narrow_elsewhere;
        continue;
      }
      const bool store = i.opcode == Op::OpStore;
      if ((!store && i.opcode != Op::OpLoad) || i.operands.empty()) continue;
      auto t = types.find(i.operands[0]);  // the pointer
      auto p = t == types.end() ? globals.end() : globals.find(t->second);
      if (p == globals.end() || p->second->opcode != Op::OpTypePointer) continue;
      const auto storage = spv::StorageClass(p->second->operands[0]);
      if (storage != spv::StorageClass::Workgroup && storage != spv::StorageClass::Generic) continue;
      auto e = globals.find(p->second->operands[1]);
      uint32_t count = 1;
      if (e != globals.end() && e->second->opcode == Op::OpTypeVector) {
        count = e->second->operands[1];
        e = globals.find(e->second->operands[0]);
      }
      if (e == globals.end() || (e->second->opcode != Op::OpTypeInt && e->second->opcode != Op::OpTypeFloat)) continue;
      const uint32_t width = e->second->operands[0];
      if (storage == spv::StorageClass::Generic) {
        if (store && width < 32) ++n.narrow_elsewhere;
      } else if (width >= 32) {
        ++n.wider;
        if (count * width == 64 || count * width == 128) ++n.quad_sized;
      } else if (store) {
        ++n.narrow_stores;
      }
    }
  return n;
}

struct ModuleIndex {
  TypeOf types;
  Globals globals;
  CallGraph graph;
  explicit ModuleIndex(ir::Module& m) {
    for (const auto& g : m.globals) {
      if (g.result_id) globals[g.result_id] = &g;
      if (g.result_id && g.type_id) types[g.result_id] = g.type_id;
    }
    for (auto& f : m.functions) {
      graph.functions[f.id()] = &f;
      for (const auto& p : f.parameters) types[p.result_id] = p.type_id;
      for (const auto& b : f.blocks)
        for (const auto& i : b.instructions) {
          if (i.result_id && i.type_id) types[i.result_id] = i.type_id;
          if (i.opcode == Op::OpFunctionCall) graph.callees[f.id()].push_back(i.operands[0]);
        }
    }
  }
};

// The functions to lower with an arena of their own: those only the kernels in |roots| reach,
// and a copy of each that the other kernels reach too (calls from the first side go to the
// copy); with |uncalled|, also the functions no kernel calls.
std::unordered_set<uint32_t> split_functions(ir::Module& m, const CallGraph& graph,
                                             const std::vector<uint32_t>& roots, bool uncalled) {
  std::vector<uint32_t> others;
  for (const auto& e : m.entry_points)
    if (std::find(roots.begin(), roots.end(), e.operands[1]) == roots.end()) others.push_back(e.operands[1]);
  std::unordered_set<uint32_t> mine = graph.closure(roots);
  std::unordered_set<uint32_t> theirs = graph.closure(others);
  // No entry point is shared: a kernel calling one of the other side would be of that side.
  std::unordered_map<uint32_t, uint32_t> copy_of;
  std::vector<ir::Function> copies;
  for (uint32_t f : mine)
    if (theirs.count(f)) {
      copies.push_back(ir::clone_function(m, *graph.functions.at(f)));
      copy_of[f] = copies.back().id();
    }
  std::unordered_set<uint32_t> result;
  for (uint32_t f : mine)
    if (!theirs.count(f)) result.insert(f);
  if (uncalled)
    for (const auto& f : m.functions)
      if (!mine.count(f.id()) && !theirs.count(f.id())) result.insert(f.id());
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

}  // namespace

std::unordered_set<uint32_t> prepare_wide_arena(ir::Module& m) {
  ModuleIndex index(m);
  std::unordered_set<uint32_t> needs;
  for (const auto& f : m.functions)
    if (has_wide_local_atomic(f, index.types, index.globals)) needs.insert(f.id());
  if (needs.empty()) return {};
  std::vector<uint32_t> roots;
  for (const auto& e : m.entry_points) {
    bool wide = false;
    for (uint32_t f : index.graph.closure({e.operands[1]})) wide = wide || needs.count(f);
    if (wide) roots.push_back(e.operands[1]);
  }
  // Functions no kernel calls (clang keeps an inlined helper that has external linkage) are
  // still lowered; the wide arena fits whatever they do.
  return split_functions(m, index.graph, roots, /*uncalled=*/true);
}

std::unordered_set<uint32_t> prepare_byte_arena(ir::Module& m, const std::unordered_set<uint32_t>& wide) {
  ModuleIndex index(m);
  std::unordered_map<uint32_t, LocalAccesses> accesses;
  std::unordered_set<uint32_t> atomics;
  bool any = false;
  for (const auto& f : m.functions) {
    LocalAccesses a = local_accesses(f, index.types, index.globals);
    any = any || a.narrow_stores > 0;
    accesses[f.id()] = a;
    if (has_local_atomic(f, index.types, index.globals)) atomics.insert(f.id());
  }
  if (!any) return {};
  std::vector<uint32_t> roots;
  for (const auto& e : m.entry_points) {
    LocalAccesses sum;
    bool atomic = false;
    for (uint32_t f : index.graph.closure({e.operands[1]})) {
      sum.narrow_stores += accesses[f].narrow_stores;
      sum.wider += accesses[f].wider;
      atomic = atomic || atomics.count(f) || wide.count(f);
    }
    // Bytes cost each wider access three more; words cost each narrow store two atomics.
    // Counted as written (a loop's body once), bytes win unless wider accesses are many more.
    if (sum.narrow_stores > 0 && sum.wider <= 4 * sum.narrow_stores && !atomic) roots.push_back(e.operands[1]);
  }
  if (roots.empty()) return {};
  return split_functions(m, index.graph, roots, /*uncalled=*/false);
}

std::unordered_set<uint32_t> prepare_quad_arena(ir::Module& m, const std::unordered_set<uint32_t>& others) {
  ModuleIndex index(m);
  std::vector<uint32_t> roots;
  for (const auto& e : m.entry_points) {
    LocalAccesses sum;
    bool excluded = false;
    for (uint32_t f : index.graph.closure({e.operands[1]})) {
      const ir::Function& fn = *index.graph.functions.at(f);
      LocalAccesses a = local_accesses(fn, index.types, index.globals);
      sum.quad_sized += a.quad_sized;
      excluded = excluded || others.count(f) || a.narrow_stores || a.narrow_elsewhere ||
                 has_local_atomic(fn, index.types, index.globals);
    }
    if (sum.quad_sized > 0 && !excluded) roots.push_back(e.operands[1]);
  }
  if (roots.empty()) return {};
  return split_functions(m, index.graph, roots, /*uncalled=*/false);
}

Lowering::Arena Lowering::arena_of(uint32_t kernel) {
  if (wide_functions_.count(kernel)) return {local_wide_var_, t_uint(64), local_wide_words_};
  if (byte_functions_.count(kernel)) return {local_byte_var_, t_uint(8), local_bytes_};
  if (quad_functions_.count(kernel)) return {local_quad_var_, t_vec(t_uint(32), 4), local_quads_};
  return {local_memory_var_, t_uint(32), local_words_};
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

// ---------------------------------------------------------------- access to the byte arena

uint32_t Lowering::byte_pointer(uint32_t offset32) {
  return emit(Op::OpAccessChain, t_ptr(spv::StorageClass::Workgroup, t_uint(8)), {local_byte_var_, offset32});
}

// A scalar or vector from the bytes at |offset32|, little-endian, each component from its own
// bytes.
uint32_t Lowering::load_bytes(uint32_t offset32, uint32_t type) {
  Shape s = shape_of(type);
  const uint32_t u32 = t_uint(32), bytes = s.width / 8;
  const uint32_t element = s.is_float ? t_float(s.width) : t_uint(s.width);
  std::vector<uint32_t> parts;
  for (uint32_t c = 0; c < s.count; ++c) {
    uint32_t bits = 0;
    for (uint32_t b = 0; b < bytes; ++b) {
      uint32_t at = c || b ? emit(Op::OpIAdd, u32, {offset32, c_u32(c * bytes + b)}) : offset32;
      uint32_t byte = emit(Op::OpLoad, t_uint(8), {byte_pointer(at)});
      if (s.width == 8) {
        bits = byte;
        break;
      }
      byte = emit(Op::OpUConvert, t_uint(s.width), {byte});
      if (b) byte = emit(Op::OpShiftLeftLogical, t_uint(s.width), {byte, c_u32(8 * b)});
      bits = b ? emit(Op::OpBitwiseOr, t_uint(s.width), {bits, byte}) : byte;
    }
    parts.push_back(s.is_float ? emit(Op::OpBitcast, element, {bits}) : bits);
  }
  return s.count == 1 ? parts[0] : emit(Op::OpCompositeConstruct, type, parts);
}

void Lowering::store_bytes(uint32_t offset32, uint32_t type, uint32_t v) {
  Shape s = shape_of(type);
  const uint32_t u32 = t_uint(32), bytes = s.width / 8;
  const uint32_t element = s.is_float ? t_float(s.width) : t_uint(s.width);
  for (uint32_t c = 0; c < s.count; ++c) {
    uint32_t part = s.count == 1 ? v : emit(Op::OpCompositeExtract, element, {v, c});
    uint32_t bits = s.is_float ? emit(Op::OpBitcast, t_uint(s.width), {part}) : part;
    for (uint32_t b = 0; b < bytes; ++b) {
      uint32_t at = c || b ? emit(Op::OpIAdd, u32, {offset32, c_u32(c * bytes + b)}) : offset32;
      uint32_t byte = bits;
      if (s.width != 8) {
        uint32_t shifted = b ? emit(Op::OpShiftRightLogical, t_uint(s.width), {bits, c_u32(8 * b)}) : bits;
        byte = emit(Op::OpUConvert, t_uint(8), {shifted});
      }
      emit_void(Op::OpStore, {byte_pointer(at), byte});
    }
  }
}

// ---------------------------------------------------------------- access to the quad arena

uint32_t Lowering::quad_pointer(uint32_t offset32) {
  uint32_t index = emit(Op::OpShiftRightLogical, t_uint(32), {offset32, c_u32(4)});
  return emit(Op::OpAccessChain, t_ptr(spv::StorageClass::Workgroup, t_vec(t_uint(32), 4)),
              {local_quad_var_, index});
}

namespace {
// Bytes of a vector (or 64-bit scalar) of 32- or 64-bit components that the quad arena moves
// whole: 8 or 16, aligned to that; 0 for others.
uint32_t quad_bytes(bool ok, bool wide, uint32_t width, uint32_t count, uint32_t alignment) {
  const uint32_t bytes = count * width / 8;
  if (!ok || wide || (width != 32 && width != 64) || (bytes != 8 && bytes != 16)) return 0;
  return alignment >= bytes ? bytes : 0;
}
}  // namespace

// An 8-byte value is the low or high half of its element, as bit 3 of its offset says.
uint32_t Lowering::load_quad(uint32_t offset32, uint32_t type, uint32_t alignment) {
  const Shape s = shape_of(type);
  const uint32_t bytes = quad_bytes(s.ok, s.wide, s.width, s.count, alignment);
  if (!bytes) return 0;
  const uint32_t u32 = t_uint(32), u64 = t_uint(64);
  uint32_t quad = emit(Op::OpLoad, t_vec(u32, 4), {quad_pointer(offset32)});
  uint32_t words[4];
  for (uint32_t w = 0; w < 4; ++w) words[w] = emit(Op::OpCompositeExtract, u32, {quad, w});
  if (bytes == 8) {
    uint32_t bit = emit(Op::OpBitwiseAnd, u32, {offset32, c_u32(8)});
    uint32_t high = emit(Op::OpINotEqual, t_bool(), {bit, c_u32(0)});
    words[0] = emit(Op::OpSelect, u32, {high, words[2], words[0]});
    words[1] = emit(Op::OpSelect, u32, {high, words[3], words[1]});
  }
  const uint32_t element = s.is_float ? t_float(s.width) : t_uint(s.width);
  std::vector<uint32_t> parts;
  for (uint32_t c = 0; c < s.count; ++c) {
    uint32_t bits = words[c];
    if (s.width == 64) {
      uint32_t lo = emit(Op::OpUConvert, u64, {words[2 * c]});
      uint32_t hi = emit(Op::OpUConvert, u64, {words[2 * c + 1]});
      bits = emit(Op::OpBitwiseOr, u64, {lo, emit(Op::OpShiftLeftLogical, u64, {hi, c_u32(32)})});
    }
    parts.push_back(s.is_float ? emit(Op::OpBitcast, element, {bits}) : bits);
  }
  return s.count == 1 ? parts[0] : emit(Op::OpCompositeConstruct, type, parts);
}

// Only a whole element is stored at once: a half store would write the other half too.
bool Lowering::store_quad(uint32_t offset32, uint32_t type, uint32_t v, uint32_t alignment) {
  const Shape s = shape_of(type);
  if (quad_bytes(s.ok, s.wide, s.width, s.count, alignment) != 16) return false;
  const uint32_t u32 = t_uint(32), u64 = t_uint(64);
  const uint32_t element = s.is_float ? t_float(s.width) : t_uint(s.width);
  std::vector<uint32_t> words;
  for (uint32_t c = 0; c < s.count; ++c) {
    uint32_t part = emit(Op::OpCompositeExtract, element, {v, c});
    uint32_t bits = s.is_float ? emit(Op::OpBitcast, t_uint(s.width), {part}) : part;
    if (s.width == 32) {
      words.push_back(bits);
      continue;
    }
    words.push_back(emit(Op::OpUConvert, u32, {bits}));
    words.push_back(emit(Op::OpUConvert, u32, {emit(Op::OpShiftRightLogical, u64, {bits, c_u32(32)})}));
  }
  emit_void(Op::OpStore, {quad_pointer(offset32), emit(Op::OpCompositeConstruct, t_vec(u32, 4), words)});
  return true;
}

}  // namespace vkcl::k2s
