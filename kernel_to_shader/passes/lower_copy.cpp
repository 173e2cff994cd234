// OpCopyMemory / OpCopyMemorySized that are not unrolled: copies larger than a few hundred
// bytes (struct assignment of large structs, __builtin_memcpy of big private arrays) and
// copies whose size is a run-time value. They call a helper function per pair of address
// formats that loops over the bytes, a word at a time when both sides are 4-byte aligned.
// The loop lives in a helper because an input instruction is lowered inside one output block
// (see lower_group.cpp).
#include "passes/lower_to_shader.h"

namespace vkcl::k2s {

using spv::Op;

namespace {
constexpr uint32_t kAlignedMask = uint32_t(spv::MemoryAccessMask::Aligned);

// The alignment the memory operands at |first| promise for both sides, 1 when they promise
// none. SPIR-V 1.4 allows a second memory operand for the source; the weaker of the two holds.
uint32_t copy_alignment(const ir::Instruction& i, size_t first) {
  uint32_t alignment = 0;
  size_t at = first;
  for (int side = 0; side < 2 && at < i.operands.size(); ++side) {
    uint32_t mask = i.operands[at++];
    uint32_t a = 1;
    if (mask & kAlignedMask) {
      if (at >= i.operands.size()) break;
      a = i.operands[at++];
    }
    // MakePointerAvailable / MakePointerVisible carry a scope id each.
    if (mask & uint32_t(spv::MemoryAccessMask::MakePointerAvailable)) ++at;
    if (mask & uint32_t(spv::MemoryAccessMask::MakePointerVisible)) ++at;
    alignment = alignment ? std::min(alignment, a) : a;
  }
  return std::max(alignment, 1u);
}
}  // namespace

bool Lowering::lower_copy_loop(const ir::Instruction& i) {
  const ir::Instruction* dst = def(i.operands[0]);
  const ir::Instruction* src = def(i.operands[1]);
  if (!dst || !src) return fail("copy between unknown pointers");
  uint32_t bytes = 0;
  size_t mem_operand = 2;
  if (i.opcode == Op::OpCopyMemorySized) {
    const ir::Instruction* size = def(i.operands[2]);
    if (!size) return fail("memory copy of an unknown size: " + describe(i));
    uint32_t width = width_of_int_type(lower_type(size->type_id));
    if (width != 32 && width != 64) return fail("memory copy size is not a 32- or 64-bit integer: " + describe(i));
    bytes = to_width(value(i.operands[2]), width, 64, false);
    mem_operand = 3;
  } else {
    bytes = c_u64(layouts().of(pointee(dst->type_id)).size);
  }
  bool words = copy_alignment(i, mem_operand) >= 4;
  AddressFormat fd = format_of(pointer_storage(dst->type_id));
  AddressFormat fs = format_of(pointer_storage(src->type_id));
  uint32_t helper = copy_helper(fd, fs, words);
  uint32_t from = checked(fs, value(i.operands[1]), check_bytes(bytes), "copy from", i.operands[1]);
  uint32_t to = checked(fd, value(i.operands[0]), check_bytes(bytes), "copy to", i.operands[0]);
  emit(Op::OpFunctionCall, t_void(), {helper, to, from, bytes});
  return !failed_;
}

// void copy(dst, src, u64 bytes). With |words|, the first bytes & ~3 go as 32-bit words and
// the rest as bytes; otherwise all go as bytes.
uint32_t Lowering::copy_helper(AddressFormat fd, AddressFormat fs, bool words) {
  std::vector<uint32_t> key = {uint32_t(fd), uint32_t(fs), words, arena_kind(),  // wide_arena.cpp
                               private_arena_};
  auto cached = copy_helpers_.find(key);
  if (cached != copy_helpers_.end()) return cached->second;

  auto* caller_block = block_;
  uint32_t u32 = t_uint(32), u64 = t_uint(64), u8 = t_uint(8);
  ir::Function f;
  std::vector<uint32_t> p;
  start_helper(f, t_void(), {t_uint(address_width(fd)), t_uint(address_width(fs)), u64}, p);
  auto at = [&](AddressFormat af, uint32_t base, uint32_t offset64) {
    uint32_t offset = address_width(af) == 32 ? emit(Op::OpUConvert, u32, {offset64}) : offset64;
    return add_offset(af, base, offset);
  };
  auto copy_units = [&](uint32_t start, uint32_t end, uint32_t unit) {
    uint32_t type = unit == 4 ? u32 : u8;
    emit_loop(*this, f, u64, start, end,
              [&](uint32_t o) { return emit(Op::OpIAdd, u64, {o, c_u64(unit)}); },
              [&](uint32_t o) {
                uint32_t v = load_out(fs, at(fs, p[1], o), type, unit);
                store_out(fd, at(fd, p[0], o), type, v, unit);
              });
  };
  uint32_t tail = c_u64(0);
  if (words) {
    tail = emit(Op::OpBitwiseAnd, u64, {p[2], c_u64(~uint64_t(3))});
    copy_units(c_u64(0), tail, 4);
  }
  copy_units(tail, p[2], 1);
  emit_void(Op::OpReturn, {});
  out_.functions.push_back(std::move(f));
  block_ = caller_block;
  return copy_helpers_[key] = out_.functions.back().id();
}

}  // namespace vkcl::k2s
