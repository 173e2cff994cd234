// Atomics beyond the integer operations lower_memory.cpp maps one to one: atomic_flag,
// sequentially consistent loads and stores, 32-bit float add/min/max, and 32-bit atomics on
// the wide local arena. Loops (compare-exchange retries) go into helper functions, as in
// lower_group.cpp: an input instruction is lowered inside one output block.
#include <spirv/unified1/GLSL.std.450.h>

#include "passes/lower_to_shader.h"

namespace vkcl::k2s {

using spv::Op;

namespace {
constexpr uint32_t kSeqCst = 0x10;
enum HelperKind : uint32_t { kWideHalf = 1, kFloatLoop = 2 };

// The new value a read-modify-write |op| stores, from the |old| value, operand |v| and, for
// compare-exchange, |comparator|.
uint32_t apply(Lowering& L, Op op, uint32_t type, uint32_t old, uint32_t v, uint32_t comparator) {
  uint32_t bt = L.t_bool();
  uint32_t width = L.width_of_int_type(type);
  switch (op) {
    case Op::OpAtomicLoad: return old;
    case Op::OpAtomicStore: case Op::OpAtomicExchange: return v;
    case Op::OpAtomicCompareExchange:
      return L.emit(Op::OpSelect, type, {L.emit(Op::OpIEqual, bt, {old, comparator}), v, old});
    case Op::OpAtomicIIncrement: return L.emit(Op::OpIAdd, type, {old, L.c_uint(width, 1)});
    case Op::OpAtomicIDecrement: return L.emit(Op::OpISub, type, {old, L.c_uint(width, 1)});
    case Op::OpAtomicIAdd: return L.emit(Op::OpIAdd, type, {old, v});
    case Op::OpAtomicISub: return L.emit(Op::OpISub, type, {old, v});
    case Op::OpAtomicAnd: return L.emit(Op::OpBitwiseAnd, type, {old, v});
    case Op::OpAtomicOr: return L.emit(Op::OpBitwiseOr, type, {old, v});
    case Op::OpAtomicXor: return L.emit(Op::OpBitwiseXor, type, {old, v});
    case Op::OpAtomicSMin: case Op::OpAtomicUMin: case Op::OpAtomicSMax: case Op::OpAtomicUMax: {
      Op cmp = op == Op::OpAtomicSMin ? Op::OpSLessThan : op == Op::OpAtomicUMin ? Op::OpULessThan
               : op == Op::OpAtomicSMax ? Op::OpSGreaterThan : Op::OpUGreaterThan;
      return L.emit(Op::OpSelect, type, {L.emit(cmp, bt, {v, old}), v, old});
    }
    case Op::OpAtomicFAddEXT: case Op::OpAtomicFMinEXT: case Op::OpAtomicFMaxEXT: {  // on bits
      uint32_t f = L.t_float(width);
      uint32_t a = L.emit(Op::OpBitcast, f, {old}), b = L.emit(Op::OpBitcast, f, {v});
      uint32_t r = op == Op::OpAtomicFAddEXT
                       ? L.emit(Op::OpFAdd, f, {a, b})
                       : L.emit(Op::OpExtInst, f, {L.glsl_import(), op == Op::OpAtomicFMinEXT
                                                                      ? uint32_t(GLSLstd450NMin)
                                                                      : uint32_t(GLSLstd450NMax),
                                                   a, b});
      return L.emit(Op::OpBitcast, type, {r});
    }
    default: return 0;
  }
}
}  // namespace

uint32_t Lowering::synthetic_id() { return in_.bound + synthetic_ids_++; }

// Entry point for every atomic instruction.
bool Lowering::lower_atomic_instruction(const ir::Instruction& i) {
  switch (i.opcode) {
    case Op::OpAtomicFlagTestAndSet: case Op::OpAtomicFlagClear: return lower_atomic_flag(i);
    case Op::OpAtomicFAddEXT: case Op::OpAtomicFMinEXT: case Op::OpAtomicFMaxEXT:
      return lower_float_atomic(i);
    default: break;
  }
  bool ok = false;
  uint64_t semantics = constant_value(i.operands[2], &ok);  // every atomic's semantics operand
  if (!ok) return fail("memory semantics are not a constant: " + describe(i));
  // Vulkan treats SequentiallyConsistent as AcquireRelease, which alone does not order a
  // store before a later load of another location (store buffering). Read-modify-writes
  // read the latest value in modification order, so making every seq_cst access one gives
  // a single total order: a seq_cst store is an exchange, a seq_cst load an OR with zero.
  // Where barriers stall (TargetCaps::memory_barriers_stall) every ordered access is one.
  if ((semantics & kSeqCst) || (ctx_.caps.memory_barriers_stall && (semantics & 0x1e))) {
    if (i.opcode == Op::OpAtomicStore) {
      const ir::Instruction* p = def(i.operands[0]);
      if (!p) return fail("atomic on an unknown pointer");
      ir::Instruction x(Op::OpAtomicExchange, pointee(p->type_id), synthetic_id(),
                        {i.operands[0], i.operands[1], i.operands[2], i.operands[3]});
      return lower_atomic(x);
    }
    if (i.opcode == Op::OpAtomicLoad) {
      uint32_t zero = synthetic_id();
      bind(zero, lower_type(i.type_id), c_null(lower_type(i.type_id)));
      ir::Instruction x(Op::OpAtomicOr, i.type_id, i.result_id,
                        {i.operands[0], i.operands[1], i.operands[2], zero});
      return lower_atomic(x);
    }
  }
  return lower_atomic(i);
}

// atomic_flag_test_and_set is an exchange with 1 that reports whether the old value was
// set; atomic_flag_clear stores 0. The flag is a 32-bit integer in memory.
bool Lowering::lower_atomic_flag(const ir::Instruction& i) {
  const ir::Instruction* p = def(i.operands[0]);
  if (!p) return fail("atomic flag on an unknown pointer");
  uint32_t in_int = pointee(p->type_id);
  uint32_t int_type = lower_type(in_int);
  if (width_of_int_type(int_type) != 32) return fail("atomic flag that is not 32 bits: " + describe(i));
  uint32_t operand = synthetic_id();
  bool set = i.opcode == Op::OpAtomicFlagTestAndSet;
  bind(operand, int_type, c_u32(set ? 1 : 0));
  if (!set) {
    ir::Instruction x(Op::OpAtomicStore, 0, 0, {i.operands[0], i.operands[1], i.operands[2], operand});
    return lower_atomic_instruction(x);
  }
  uint32_t old = synthetic_id();
  ir::Instruction x(Op::OpAtomicExchange, in_int, old, {i.operands[0], i.operands[1], i.operands[2], operand});
  if (!lower_atomic_instruction(x)) return false;
  bind(i.result_id, t_bool(), emit(Op::OpINotEqual, t_bool(), {value(old), c_u32(0)}));
  return !failed_;
}

// ---------------------------------------------------------------- fences

// A zero-initialised Workgroup word for fences where barriers stall.
uint32_t Lowering::atomic_scratch_word() {
  if (!atomic_lock_var_) {
    atomic_lock_var_ = take_id();
    out_.globals.emplace_back(Op::OpVariable, t_ptr(spv::StorageClass::Workgroup, t_uint(32)),
                              atomic_lock_var_,
                              std::vector<uint32_t>{uint32_t(spv::StorageClass::Workgroup),
                                                    c_null(t_uint(32))});
    interface_.push_back(atomic_lock_var_);
  }
  return atomic_lock_var_;
}

// Fences: OpMemoryBarrier with lowered scope and semantics, or, where barriers stall, an
// atomic read-modify-write on a scratch word (see TargetCaps::memory_barriers_stall).
bool Lowering::lower_memory_barrier(const ir::Instruction& i) {
  bool ok = false;
  uint64_t semantics = constant_value(i.operands[1], &ok);
  if (!ok) return fail("memory semantics are not a constant: " + describe(i));
  if (!(semantics & 0x1e)) return true;  // a relaxed fence orders nothing
  // memory_scope_work_item orders one work-item's own accesses, which program order already
  // does here (its purpose is image accesses, and the device has no images).
  uint64_t scope = constant_value(i.operands[0], &ok);
  if (!ok) return fail("memory scope is not a constant: " + describe(i));
  if (spv::Scope(scope) == spv::Scope::Invocation) return true;
  if (ctx_.caps.memory_barriers_stall) {
    emit(Op::OpAtomicIAdd, t_uint(32), {atomic_scratch_word(), c_u32(uint32_t(spv::Scope::Workgroup)),
                                        c_u32(0), c_u32(0)});
    return !failed_;
  }
  emit_void(Op::OpMemoryBarrier, {lower_scope(i.operands[0], AddressFormat::Local32),
                                  lower_semantics(i.operands[1], i.opcode)});
  return !failed_;
}

// A 32-bit atomic on half of a wide-arena word (see wide_arena.cpp). and/or/xor and loads
// are one 64-bit atomic with the operand shifted into place; everything else is a 64-bit
// compare-exchange loop that changes only its half, in a helper function
// u32 f(u32 offset, u32 v, u32 comparator). add and sub on the high half are native (the
// carry out of bit 63 is dropped): the helper issues them, with a zero operand on the low
// half, and only the low half enters the loop.
uint32_t Lowering::wide_atomic32(Op op, uint32_t offset32, uint32_t scope, uint32_t semantics,
                                 uint32_t v, uint32_t comparator) {
  uint32_t u32 = t_uint(32), u64 = t_uint(64), bt = t_bool();
  if (op == Op::OpAtomicIIncrement || op == Op::OpAtomicIDecrement) {
    op = op == Op::OpAtomicIIncrement ? Op::OpAtomicIAdd : Op::OpAtomicISub;
    v = c_u32(1);
  }
  auto half_of = [&](uint32_t word, uint32_t shift) {
    return emit(Op::OpUConvert, u32, {emit(Op::OpShiftRightLogical, u64, {word, shift})});
  };
  if (op == Op::OpAtomicLoad || op == Op::OpAtomicAnd || op == Op::OpAtomicOr || op == Op::OpAtomicXor) {
    uint32_t ptr = wide_word_pointer(offset32);
    uint32_t shift = wide_shift(offset32);
    if (op == Op::OpAtomicLoad) return half_of(emit(op, u64, {ptr, scope, semantics}), shift);
    uint32_t placed = emit(Op::OpShiftLeftLogical, u64, {emit(Op::OpUConvert, u64, {v}), shift});
    if (op == Op::OpAtomicAnd) {  // the other half's bits are ones
      uint32_t hole = emit(Op::OpShiftLeftLogical, u64, {c_u64(0xffffffffull), shift});
      placed = emit(Op::OpBitwiseOr, u64, {placed, emit(Op::OpNot, u64, {hole})});
    }
    return half_of(emit(op, u64, {ptr, scope, semantics, placed}), shift);
  }
  std::vector<uint32_t> key = {kWideHalf, uint32_t(op), scope, semantics};
  auto cached = atomic_helpers_.find(key);
  uint32_t helper = 0;
  if (cached != atomic_helpers_.end()) {
    helper = cached->second;
  } else {
    auto* caller_block = block_;
    ir::Function f;
    std::vector<uint32_t> p;
    start_helper(f, u32, {u32, u32, u32}, p);
    uint32_t ptr = wide_word_pointer(p[0]);
    uint32_t shift = wide_shift(p[0]);
    uint32_t relaxed = c_u32(0);
    uint32_t first = 0, skip_loop = c_bool(false);
    if (op == Op::OpAtomicIAdd || op == Op::OpAtomicISub) {
      uint32_t high = emit(Op::OpIEqual, bt, {shift, c_u32(32)});
      uint32_t placed = emit(Op::OpShiftLeftLogical, u64, {emit(Op::OpUConvert, u64, {p[1]}), c_u32(32)});
      // On the low half this adds zero: it only reads the word for the loop.
      first = emit(op, u64, {ptr, scope, semantics, emit(Op::OpSelect, u64, {high, placed, c_u64(0)})});
      skip_loop = high;
    } else {
      first = emit(Op::OpAtomicLoad, u64, {ptr, scope, relaxed});
    }
    uint32_t entry = f.blocks.back().label;
    uint32_t header = take_id(), body = take_id(), next = take_id(), merge = take_id();
    uint32_t expected = take_id(), done = take_id();
    emit_void(Op::OpBranch, {header});
    start_block(f, header);
    size_t header_index = f.blocks.size() - 1;
    block_->emplace_back(Op::OpPhi, u64, expected, std::vector<uint32_t>{first, entry, 0, next});
    block_->emplace_back(Op::OpPhi, bt, done, std::vector<uint32_t>{skip_loop, entry, 0, next});
    emit_void(Op::OpLoopMerge, {merge, next, 0});
    emit_void(Op::OpBranchConditional, {done, merge, body});
    start_block(f, body);
    // A failed exchange only reads, and the value returned is the one the successful
    // exchange read, which carries the operation's semantics: the retries can be relaxed.
    uint32_t old = half_of(expected, shift);
    uint32_t updated = apply(*this, op, u32, old, p[1], p[2]);
    if (!updated) fail("internal: 32-bit wide-arena atomic of an unknown kind");
    uint32_t hole = emit(Op::OpShiftLeftLogical, u64, {c_u64(0xffffffffull), shift});
    uint32_t kept = emit(Op::OpBitwiseAnd, u64, {expected, emit(Op::OpNot, u64, {hole})});
    uint32_t placed = emit(Op::OpShiftLeftLogical, u64, {emit(Op::OpUConvert, u64, {updated}), shift});
    uint32_t seen = emit(Op::OpAtomicCompareExchange, u64,
                         {ptr, scope, semantics, relaxed, emit(Op::OpBitwiseOr, u64, {kept, placed}), expected});
    uint32_t swapped = emit(Op::OpIEqual, bt, {seen, expected});
    emit_void(Op::OpBranch, {next});
    start_block(f, next);
    emit_void(Op::OpBranch, {header});
    f.blocks[header_index].instructions[0].operands[2] = seen;
    f.blocks[header_index].instructions[1].operands[2] = swapped;
    start_block(f, merge);
    emit_void(Op::OpReturnValue, {half_of(expected, shift)});
    out_.functions.push_back(std::move(f));
    block_ = caller_block;
    helper = atomic_helpers_[key] = out_.functions.back().id();
  }
  return emit(Op::OpFunctionCall, u32, {helper, offset32, v ? v : c_u32(0), comparator ? comparator : c_u32(0)});
}

// ---------------------------------------------------------------- float atomics

// OpAtomicFAddEXT / FMinEXT / FMaxEXT on 32-bit floats: the device's own instruction where
// Vulkan has it for that memory, otherwise a compare-exchange loop on the bits (correct on
// any device; local memory, a word array, always takes the loop).
bool Lowering::lower_float_atomic(const ir::Instruction& i) {
  const ir::Instruction* p = def(i.operands[0]);
  if (!p) return fail("atomic on an unknown pointer");
  AddressFormat f = format_of(pointer_storage(p->type_id));
  uint32_t type = lower_type(i.type_id);
  Shape s = shape_of(type);
  if (!s.ok || !s.is_float || s.count != 1 || s.width != 32)
    return fail("float atomics on other than 32-bit floats are not supported: " + describe(i));
  uint32_t v = value(i.operands[3]);
  bool add = i.opcode == Op::OpAtomicFAddEXT;
  // The atomic on one address |address| of format |af| (not generic).
  auto on = [&](AddressFormat af, uint32_t address) -> uint32_t {
    uint32_t scope = lower_scope(i.operands[1], af);
    uint32_t semantics = lower_semantics(i.operands[2], i.opcode);
    bool native = af == AddressFormat::Global64 &&
                  (add ? ctx_.caps.float32_atomic_add_global : ctx_.caps.float32_atomic_min_max_global);
    if (native) {
      if (add) {
        need_capability(spv::Capability::AtomicFloat32AddEXT);
        need_extension("SPV_EXT_shader_atomic_float_add");
      } else {
        need_capability(spv::Capability::AtomicFloat32MinMaxEXT);
        need_extension("SPV_EXT_shader_atomic_float_min_max");
      }
      uint32_t ptr = emit(Op::OpConvertUToPtr, t_ptr(spv::StorageClass::PhysicalStorageBuffer, type),
                          {address});
      return emit(i.opcode, type, {ptr, scope, semantics, v});
    }
    return float_atomic_loop(i.opcode, af, address, scope, semantics, v);
  };
  const uint32_t address = checked(f, value(i.operands[0]), c_u32(4), "atomic", i.operands[0]);
  if (f == AddressFormat::Global64 || f == AddressFormat::Local32) {
    bind(i.result_id, type, on(f, address));
    return !failed_;
  }
  if (f != AddressFormat::Generic64) return fail("float atomic on this address space: " + describe(i));
  // As for integer atomics through a generic pointer (lower_memory.cpp): both the global and
  // the local candidates are updated (scratch locations for the space the tag does not
  // name), private memory is updated in place, and the tag picks the result.
  GenericParts g = split_generic(*this, address);
  uint32_t r_global = on(AddressFormat::Global64, g.global_address);
  uint32_t r_local = on(AddressFormat::Local32, g.local_offset);
  uint32_t old = load_out(AddressFormat::Private32, g.private_offset, type, 4);
  uint32_t updated = add ? emit(Op::OpFAdd, type, {old, v})
                         : emit(Op::OpExtInst, type,
                                {glsl_import(), i.opcode == Op::OpAtomicFMinEXT
                                                    ? uint32_t(GLSLstd450NMin) : uint32_t(GLSLstd450NMax),
                                 old, v});
  store_out(AddressFormat::Private32, g.private_offset, type, updated, 4);
  bind(i.result_id, type,
       emit(Op::OpSelect, type, {g.is_global, r_global, emit(Op::OpSelect, type, {g.is_local, r_local, old})}));
  return !failed_;
}

// float f(address, float v), |scope| and |semantics| being output constants: retries a 32-bit compare-exchange of the float's bits until
// no other work-item changed them in between; returns the value it replaced.
uint32_t Lowering::float_atomic_loop(Op op, AddressFormat af, uint32_t address, uint32_t scope,
                                     uint32_t semantics, uint32_t v) {
  if (af == AddressFormat::Local32 && wide_arena_) {
    uint32_t u32 = t_uint(32);
    uint32_t bits = wide_atomic32(op, address, scope, semantics, emit(Op::OpBitcast, u32, {v}), 0);
    return emit(Op::OpBitcast, t_float(32), {bits});
  }
  std::vector<uint32_t> key = {kFloatLoop, uint32_t(op), uint32_t(af), scope, semantics, private_arena_};
  auto cached = atomic_helpers_.find(key);
  uint32_t helper = 0;
  uint32_t f32 = t_float(32), u32 = t_uint(32), bt = t_bool();
  if (cached != atomic_helpers_.end()) {
    helper = cached->second;
  } else {
    auto* caller_block = block_;
    ir::Function f;
    std::vector<uint32_t> p;
    start_helper(f, f32, {t_uint(address_width(af)), f32}, p);
    uint32_t ptr = af == AddressFormat::Local32
                       ? word_pointer(af, p[0])
                       : emit(Op::OpConvertUToPtr, t_ptr(spv::StorageClass::PhysicalStorageBuffer, u32), {p[0]});
    // A failed exchange only reads, and the value returned is the one the successful
    // exchange read, which carries the operation's semantics: the retries can be relaxed.
    uint32_t semantics_id = semantics, failure_id = c_u32(0);
    uint32_t first = emit(Op::OpAtomicLoad, u32, {ptr, scope, failure_id});
    uint32_t entry = f.blocks.back().label;
    uint32_t header = take_id(), body = take_id(), next = take_id(), merge = take_id();
    uint32_t expected = take_id(), done = take_id();
    emit_void(Op::OpBranch, {header});
    start_block(f, header);
    size_t header_index = f.blocks.size() - 1;
    block_->emplace_back(Op::OpPhi, u32, expected, std::vector<uint32_t>{first, entry, 0, next});
    block_->emplace_back(Op::OpPhi, bt, done, std::vector<uint32_t>{c_bool(false), entry, 0, next});
    emit_void(Op::OpLoopMerge, {merge, next, 0});
    emit_void(Op::OpBranchConditional, {done, merge, body});
    start_block(f, body);
    uint32_t old = emit(Op::OpBitcast, f32, {expected});
    uint32_t updated = op == Op::OpAtomicFAddEXT
                           ? emit(Op::OpFAdd, f32, {old, p[1]})
                           : emit(Op::OpExtInst, f32,
                                  {glsl_import(), op == Op::OpAtomicFMinEXT ? uint32_t(GLSLstd450NMin)
                                                                            : uint32_t(GLSLstd450NMax),
                                   old, p[1]});
    uint32_t seen = emit(Op::OpAtomicCompareExchange, u32,
                         {ptr, scope, semantics_id, failure_id, emit(Op::OpBitcast, u32, {updated}), expected});
    uint32_t swapped = emit(Op::OpIEqual, bt, {seen, expected});
    emit_void(Op::OpBranch, {next});
    start_block(f, next);
    emit_void(Op::OpBranch, {header});
    f.blocks[header_index].instructions[0].operands[2] = seen;
    f.blocks[header_index].instructions[1].operands[2] = swapped;
    start_block(f, merge);
    emit_void(Op::OpReturnValue, {emit(Op::OpBitcast, f32, {expected})});
    out_.functions.push_back(std::move(f));
    block_ = caller_block;
    helper = atomic_helpers_[key] = out_.functions.back().id();
  }
  return emit(Op::OpFunctionCall, f32, {helper, address, v});
}

}  // namespace vkcl::k2s
