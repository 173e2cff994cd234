// Checked mode (TargetCaps::checked_memory, VKCL_CHECKED=1): every access a kernel makes
// through a pointer is checked against what its launch may reach before it happens. Global
// addresses must fall in one of the objects the frontend lists in the launch's check table
// (its buffers, SVM allocations and program-scope variables), local offsets in one of its
// __local arguments or its __local variables, private offsets in the work-item's arena. An access that fails goes to a sink instead (so it does not
// happen), and the first one is reported in the table for the frontend to name.
//
// The check table, whose device address the frontend writes at kCheckSlot of the argument
// block:
//   [0] u32 global entries   [4] u32 local entries   [8] u32 reported (0, then 1)   [12] u32 site * 4 + space (0 global,
//   1 local, 2 private)   [16] u64 address or offset   [24] u32 bytes   [28] u32 failed
//   accesses   [32, 96) the global sink   [96] kCheckTableEntries global entries, then as many
//   local ones: u64 begin, u64 end (device addresses; byte offsets in local memory), sorted
//   and disjoint, the unused ones begin ~0; then as many again, the range of each kernel
//   argument by index (0, 0 where the table has none).
#include "passes/lower_to_shader.h"

namespace vkcl::k2s {

using spv::Op;

namespace {

constexpr uint64_t kSinkOffset = 32, kEntriesOffset = 96;

// if (cond) body(); in |f|, the current block being its last.
void emit_if(Lowering& L, ir::Function& f, uint32_t cond, const std::function<void()>& body) {
  uint32_t then = L.take_id(), merge = L.take_id();
  L.emit_void(Op::OpSelectionMerge, {merge, 0});
  L.emit_void(Op::OpBranchConditional, {cond, then, merge});
  f.blocks.push_back(ir::Block{then, {}});
  L.block_ = &f.blocks.back().instructions;
  body();
  L.emit_void(Op::OpBranch, {merge});
  f.blocks.push_back(ir::Block{merge, {}});
  L.block_ = &f.blocks.back().instructions;
}

}  // namespace

uint32_t Lowering::check_table() {
  return argument_slot(kCheckSlot);
}

// The first failed access writes its site, address and size; every one counts.
void Lowering::emit_check_report(ir::Function& f, uint32_t table, uint32_t code, uint32_t where,
                                 uint32_t bytes) {
  uint32_t u32 = t_uint(32), u64 = t_uint(64);
  auto word = [&](uint64_t at) {
    return emit(Op::OpConvertUToPtr, t_ptr(spv::StorageClass::PhysicalStorageBuffer, u32),
                {add_offset(AddressFormat::Global64, table, c_u64(at))});
  };
  uint32_t device = c_u32(uint32_t(spv::Scope::Device)), relaxed = c_u32(0);
  uint32_t old = emit(Op::OpAtomicCompareExchange, u32, {word(8), device, relaxed, relaxed, c_u32(1), c_u32(0)});
  emit_if(*this, f, emit(Op::OpIEqual, t_bool(), {old, c_u32(0)}), [&] {
    store_out(AddressFormat::Global64, add_offset(AddressFormat::Global64, table, c_u64(12)), u32, code, 4);
    store_out(AddressFormat::Global64, add_offset(AddressFormat::Global64, table, c_u64(16)), u64, where, 8);
    store_out(AddressFormat::Global64, add_offset(AddressFormat::Global64, table, c_u64(24)), u32, bytes, 4);
  });
  emit(Op::OpAtomicIAdd, u32, {word(28), device, relaxed, c_u32(1)});
}

// Global: u64 check(u64 address, u32 bytes, u32 code, bool active, u32 argument) ->
// |address| when inactive or when [address, address + bytes) lies inside the object: the
// argument's where the pointer comes from kernel argument |argument| and the table has its
// range, else any of the table's global entries; else the sink. Local: u32 check(u32 offset,
// u32 bytes, u32 code, bool active, u32 argument, u32 sink), the same in local memory. The
// entries are sorted and disjoint, so a binary search of fixed depth finds the one that could
// hold the access: no loop, which on lavapipe would spend the kernel's loop iteration budget
// (TargetCaps::loop_iteration_limit).
uint32_t Lowering::check_table_helper(bool local) {
  uint32_t& helper = local ? check_local_helper_ : check_global_helper_;
  if (helper) return helper;
  auto* caller_block = block_;
  uint32_t u32 = t_uint(32), u64 = t_uint(64), b = t_bool();
  ir::Function f;
  std::vector<uint32_t> p;
  uint32_t at_type = local ? u32 : u64;
  if (local) start_helper(f, u32, {u32, u32, u32, b, u32, u32}, p);
  else start_helper(f, u64, {u64, u32, u32, b, u32}, p);
  uint32_t table = check_table();
  uint32_t entries = add_offset(AddressFormat::Global64, table,
                                c_u64(kEntriesOffset + (local ? 16 * kCheckTableEntries : 0)));
  auto field = [&](uint32_t index, uint32_t which) {
    uint32_t at = emit(Op::OpIMul, u64, {emit(Op::OpUConvert, u64, {index}), c_u64(16)});
    if (which) at = emit(Op::OpIAdd, u64, {at, c_u64(8)});
    return load_out(AddressFormat::Global64, add_offset(AddressFormat::Global64, entries, at), u64, 8);
  };
  uint32_t begin_at = local ? emit(Op::OpUConvert, u64, {p[0]}) : p[0];
  uint32_t end = emit(Op::OpIAdd, u64, {begin_at, emit(Op::OpUConvert, u64, {p[1]})});
  // The argument's own range, where the table has one (else it reads 0, 0): then the search
  // is skipped (|argument| is a constant at each call, so the driver keeps one path).
  uint32_t known = emit(Op::OpULessThan, b, {p[4], c_u32(kCheckTableEntries)});
  uint32_t slot = emit(Op::OpSelect, u32, {known, p[4], c_u32(0)});
  slot = emit(Op::OpIAdd, u32, {slot, c_u32(local ? kCheckTableEntries : 2 * kCheckTableEntries)});
  uint32_t arg_first = field(slot, 0), arg_last = field(slot, 1);
  known = emit(Op::OpLogicalAnd, b, {known, emit(Op::OpINotEqual, b, {arg_last, c_u64(0)})});
  uint32_t before_search = f.blocks.back().label, search = take_id(), merge = take_id();
  emit_void(Op::OpSelectionMerge, {merge, 0});
  emit_void(Op::OpBranchConditional, {known, merge, search});
  f.blocks.push_back(ir::Block{search, {}});
  block_ = &f.blocks.back().instructions;
  uint32_t index = c_u32(0);  // the last entry that begins at or before the access
  for (uint32_t step = kCheckTableEntries / 2; step; step /= 2) {
    uint32_t next = emit(Op::OpIAdd, u32, {index, c_u32(step)});
    uint32_t before = emit(Op::OpULessThanEqual, b, {field(next, 0), begin_at});
    index = emit(Op::OpSelect, u32, {before, next, index});
  }
  uint32_t found_first = field(index, 0), found_last = field(index, 1);
  emit_void(Op::OpBranch, {merge});
  f.blocks.push_back(ir::Block{merge, {}});
  block_ = &f.blocks.back().instructions;
  uint32_t first = emit(Op::OpPhi, u64, {arg_first, before_search, found_first, search});
  uint32_t last = emit(Op::OpPhi, u64, {arg_last, before_search, found_last, search});
  uint32_t inside = emit(Op::OpLogicalAnd, b, {emit(Op::OpULessThanEqual, b, {first, begin_at}),
                                               emit(Op::OpULessThanEqual, b, {end, last})});
  inside = emit(Op::OpLogicalAnd, b, {inside, emit(Op::OpUGreaterThanEqual, b, {end, begin_at})});
  uint32_t ok = emit(Op::OpLogicalOr, b, {inside, emit(Op::OpLogicalNot, b, {p[3]})});
  emit_if(*this, f, emit(Op::OpLogicalNot, b, {ok}), [&] { emit_check_report(f, table, p[2], begin_at, p[1]); });
  uint32_t sink = local ? p[5] : add_offset(AddressFormat::Global64, table, c_u64(kSinkOffset));
  emit_void(Op::OpReturnValue, {emit(Op::OpSelect, at_type, {ok, p[0], sink})});
  out_.functions.push_back(std::move(f));
  block_ = caller_block;
  return helper = out_.functions.back().id();
}

// Private: u32 check(u32 offset, u32 bytes, u32 limit, u32 code, bool active) -> |offset|
// when inactive or when [offset, offset + bytes) ends by |limit|, else |limit| (where the
// arena's sink is). Private memory is the work-item's own: the arena is the object.
uint32_t Lowering::check_private_helper() {
  if (check_private_helper_) return check_private_helper_;
  auto* caller_block = block_;
  uint32_t u32 = t_uint(32), u64 = t_uint(64), b = t_bool();
  ir::Function f;
  std::vector<uint32_t> p;
  start_helper(f, u32, {u32, u32, u32, u32, b}, p);
  uint32_t fits = emit(Op::OpLogicalAnd, b, {emit(Op::OpULessThanEqual, b, {p[0], p[2]}),
                                             emit(Op::OpULessThanEqual, b, {p[1], emit(Op::OpISub, u32, {p[2], p[0]})})});
  uint32_t ok = emit(Op::OpLogicalOr, b, {fits, emit(Op::OpLogicalNot, b, {p[4]})});
  emit_if(*this, f, emit(Op::OpLogicalNot, b, {ok}), [&] {
    emit_check_report(f, check_table(), p[3], emit(Op::OpUConvert, u64, {p[0]}), p[1]);
  });
  emit_void(Op::OpReturnValue, {emit(Op::OpSelect, u32, {ok, p[0], p[2]})});
  out_.functions.push_back(std::move(f));
  block_ = caller_block;
  return check_private_helper_ = out_.functions.back().id();
}

// The end of the used local memory: the frontend gives checked launches kCheckSinkBytes more.
uint32_t Lowering::local_check_limit() {
  uint32_t u32 = t_uint(32);
  uint32_t words = emit(Op::OpISub, u32, {local_words_, c_u32(kCheckSinkBytes / 4)});
  return emit(Op::OpShiftLeftLogical, u32, {words, c_u32(2)});
}

// The end of private memory before its sink; defined by finish_module.
uint32_t Lowering::private_check_limit() {
  uint32_t& limit = private_memory_[private_arena_].check_limit;
  if (!limit) limit = take_id();
  return limit;
}

// The kernel argument input pointer |pointer| derives from, where the function being lowered
// is a kernel's and the pointer comes from one of its parameters; UINT32_MAX otherwise. Names
// the object in reports (which the address alone cannot: it may lie nearer another).
uint32_t Lowering::pointer_argument(uint32_t pointer) {
  // A kernel's function, or the one its entry point only calls (what the SPIR-V LLVM
  // translator makes of a module of several kernels): named as the kernel.
  auto name = names_.find(lowering_function_);
  bool kernel = false;
  for (const auto& e : in_.entry_points)
    kernel = kernel || e.operands[1] == lowering_function_ ||
             (name != names_.end() && ir::decode_string(e.operands, 2) == name->second);
  for (int depth = 0; pointer && depth < 64; ++depth) {
    const ir::Instruction* d = def(pointer);
    if (!d) return UINT32_MAX;
    switch (d->opcode) {
      case Op::OpAccessChain: case Op::OpInBoundsAccessChain: case Op::OpPtrAccessChain:
      case Op::OpInBoundsPtrAccessChain: case Op::OpBitcast: case Op::OpCopyObject:
      case Op::OpGenericCastToPtr: case Op::OpGenericCastToPtrExplicit: case Op::OpPtrCastToGeneric:
        pointer = d->operands[0];
        continue;
      case Op::OpLoad: {
        // Unoptimized code keeps each parameter in a variable it stores once.
        uint32_t stored = stored_once(d->operands[0]);
        if (!stored) return UINT32_MAX;
        pointer = stored;
        continue;
      }
      case Op::OpFunctionParameter:
        if (!kernel) return UINT32_MAX;
        for (const auto& f : in_.functions) {
          if (f.id() != lowering_function_) continue;
          for (size_t k = 0; k < f.parameters.size() && k < kCheckProgramVariables; ++k)
            if (f.parameters[k].result_id == pointer) return uint32_t(k);
        }
        return UINT32_MAX;
      case Op::OpVariable:
        switch (spv::StorageClass(d->operands[0])) {
          case spv::StorageClass::Workgroup: return kCheckLocalVariables;
          case spv::StorageClass::CrossWorkgroup:
          case spv::StorageClass::UniformConstant: return kCheckProgramVariables;
          default: return UINT32_MAX;
        }
      default:
        return UINT32_MAX;
    }
  }
  return UINT32_MAX;
}

// The value the function being lowered stores in Function variable |variable|, where it
// stores one value there once; else 0.
uint32_t Lowering::stored_once(uint32_t variable) {
  const ir::Instruction* v = def(variable);
  if (!v || v->opcode != Op::OpVariable || spv::StorageClass(v->operands[0]) != spv::StorageClass::Function)
    return 0;
  if (stores_function_ != lowering_function_) {
    stores_function_ = lowering_function_;
    single_stores_.clear();
    for (const auto& f : in_.functions) {
      if (f.id() != lowering_function_) continue;
      for (const auto& b : f.blocks)
        for (const auto& i : b.instructions)
          if (i.opcode == Op::OpStore) {
            auto [at, fresh] = single_stores_.emplace(i.operands[0], i.operands[1]);
            if (!fresh) at->second = 0;  // stored more than once
          }
    }
  }
  auto it = single_stores_.find(variable);
  return it == single_stores_.end() ? 0 : it->second;
}

// Whether input pointer |pointer| is one of vkcl's own (kInternalPointer) or derives from one.
bool Lowering::internal_pointer(uint32_t pointer) const {
  for (int depth = 0; pointer && depth < 64; ++depth) {
    const ir::Instruction* mark = decoration(pointer, spv::Decoration::UserSemantic);
    if (mark && ir::decode_string(mark->operands, 2) == kInternalPointer) return true;
    const ir::Instruction* d = def(pointer);
    if (!d) return false;
    switch (d->opcode) {
      case Op::OpAccessChain: case Op::OpInBoundsAccessChain: case Op::OpPtrAccessChain:
      case Op::OpInBoundsPtrAccessChain: case Op::OpBitcast: case Op::OpCopyObject:
        pointer = d->operands[0];
        continue;
      default:
        return false;
    }
  }
  return false;
}

uint32_t Lowering::checked(AddressFormat f, uint32_t address, uint32_t bytes, const std::string& what,
                           uint32_t in_pointer) {
  if (!ctx_.caps.checked_memory || f == AddressFormat::Push32 || failed_) return address;
  if (internal_pointer(in_pointer)) return address;
  std::string where = names_.count(lowering_function_) ? names_[lowering_function_] : "a function";
  uint32_t site = uint32_t(check_sites_.size());
  check_sites_.push_back(what + " in " + where);
  const uint32_t argument = pointer_argument(in_pointer);
  check_site_arguments_.push_back(argument);
  uint32_t u32 = t_uint(32), u64 = t_uint(64);
  auto code = [&](uint32_t space) { return c_u32(site * 4 + space); };
  auto global = [&](uint32_t a, uint32_t active) {
    return emit(Op::OpFunctionCall, u64, {check_table_helper(false), a, bytes, code(0), active, c_u32(argument)});
  };
  auto arena = [&](uint32_t offset, bool local, uint32_t active) {
    if (local)
      return emit(Op::OpFunctionCall, u32,
                  {check_table_helper(true), offset, bytes, code(1), active, c_u32(argument), local_check_limit()});
    return emit(Op::OpFunctionCall, u32, {check_private_helper(), offset, bytes, private_check_limit(), code(2), active});
  };
  switch (f) {
    case AddressFormat::Global64: return global(address, c_bool(true));
    case AddressFormat::Local32: return arena(address, true, c_bool(true));
    case AddressFormat::Private32: return arena(address, false, c_bool(true));
    case AddressFormat::Generic64: {
      GenericParts p = split_generic(*this, address);
      uint32_t g = global(p.global_address, p.is_global);
      uint32_t l = emit(Op::OpBitwiseOr, u64, {emit(Op::OpUConvert, u64, {arena(p.local_offset, true, p.is_local)}),
                                               c_u64(uint64_t(1) << 62)});
      uint32_t v = emit(Op::OpBitwiseOr, u64, {emit(Op::OpUConvert, u64, {arena(p.private_offset, false, p.is_private)}),
                                               c_u64(uint64_t(2) << 62)});
      uint32_t rest = emit(Op::OpSelect, u64, {p.is_local, l, emit(Op::OpSelect, u64, {p.is_private, v, address})});
      return emit(Op::OpSelect, u64, {p.is_global, g, rest});
    }
    case AddressFormat::Push32:
    case AddressFormat::Uniform32: break;
  }
  return address;
}

// A byte count of 64 bits as the 32 the checks take (larger ones saturate: never inside).
uint32_t Lowering::check_bytes(uint32_t bytes64) {
  uint32_t u32 = t_uint(32);
  uint32_t big = emit(Op::OpUGreaterThan, t_bool(), {bytes64, c_u64(0xffffffffu)});
  return emit(Op::OpSelect, u32, {big, c_u32(0xffffffffu), emit(Op::OpUConvert, u32, {bytes64})});
}

}  // namespace vkcl::k2s
