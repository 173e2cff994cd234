// widen-small-integers, global memory: a device without 8- or 16-bit storage access reads and
// writes 32-bit words. A store that covers a whole word is a plain store; one that covers
// part of it merges its bits atomically (merge_into_word), because OpenCL lets other
// work-items write the neighbouring bytes at the same time.
#include "passes/widen_small_integers_impl.h"

namespace vkcl::k2s {

using spv::Op;

namespace {
constexpr uint32_t kVolatile = 0x1, kAligned = 0x2;
constexpr uint32_t kDeviceScope = 1, kRelaxed = 0;
}  // namespace

bool Widening::narrow_global_pointer(uint32_t type) const {
  const TypeInfo& p = info(type);
  if (p.opcode != Op::OpTypePointer || p.storage != spv::StorageClass::PhysicalStorageBuffer) return false;
  const TypeInfo& e = info(p.element);
  return e.small || ((widen16_ || widen_half_) && e.is_float && e.width == 16);
}

uint32_t Widening::word_pointer(uint32_t address) {
  uint32_t pointer = type(Op::OpTypePointer, {uint32_t(spv::StorageClass::PhysicalStorageBuffer), u32()});
  return emit(Op::OpConvertUToPtr, pointer, {address});
}

// The |width|-bit lane at byte |offset| from |address|, zero-extended in a u32. With the
// address 4-aligned the lane's place in its word is known and each word is read once per load.
uint32_t Widening::load_lane(uint32_t address, uint32_t offset, uint32_t width,
                             uint32_t alignment, bool is_volatile) {
  uint32_t access = kAligned | (is_volatile ? kVolatile : 0);
  if (alignment >= 4) {
    uint32_t word_offset = offset & ~3u, shift = (offset & 3) * 8;
    uint32_t& word = word_loads_[word_offset];
    if (!word) {
      uint32_t a = word_offset ? emit(Op::OpIAdd, u64(), {address, constant64(word_offset)}) : address;
      word = emit(Op::OpLoad, u32(), {word_pointer(a), access, 4});
    }
    uint32_t v = shift ? emit(Op::OpShiftRightLogical, u32(), {word, constant(shift, 1)}) : word;
    return shift + width < 32 ? mask(v, width, 1) : v;
  }
  if (width == 16 && alignment < 2) {  // may straddle two words: byte by byte
    uint32_t lo = load_lane(address, offset, 8, alignment, is_volatile);
    uint32_t hi = load_lane(address, offset + 1, 8, alignment, is_volatile);
    uint32_t placed = emit(Op::OpShiftLeftLogical, u32(), {hi, constant(8, 1)});
    return emit(Op::OpBitwiseOr, u32(), {lo, placed});
  }
  uint32_t at = offset ? emit(Op::OpIAdd, u64(), {address, constant64(offset)}) : address;
  uint32_t word_address = emit(Op::OpBitwiseAnd, u64(), {at, constant64(~uint64_t(3))});
  uint32_t word = emit(Op::OpLoad, u32(), {word_pointer(word_address), access, 4});
  uint32_t byte = emit(Op::OpUConvert, u32(), {emit(Op::OpBitwiseAnd, u64(), {at, constant64(3)})});
  uint32_t shift = emit(Op::OpShiftLeftLogical, u32(), {byte, constant(3, 1)});
  return mask(emit(Op::OpShiftRightLogical, u32(), {word, shift}), width, 1);
}

// The word becomes (word & keep) | placed in one atomic step, a compare-exchange loop, so no
// work-item ever sees the bytes in between: work-items that store the same value to the same
// byte (a flag many set) leave it unchanged to every reader. A loop header's own block cannot
// be split; there the bits are cleared and set by two atomics, which other bytes of the word
// survive too, though a reader of this byte may see it cleared for a moment.
void Widening::merge_into_word(uint32_t word_address, uint32_t keep, uint32_t placed) {
  uint32_t pointer = word_pointer(word_address);
  uint32_t scope = constant(kDeviceScope, 1), relaxed = constant(kRelaxed, 1);
  if (in_loop_header_) {
    emit(Op::OpAtomicAnd, u32(), {pointer, scope, relaxed, keep});
    emit(Op::OpAtomicOr, u32(), {pointer, scope, relaxed, placed});
    return;
  }
  // Atomic like the exchange: a plain load racing with other work-items' exchanges would be
  // a data race in Vulkan's memory model.
  uint32_t initial = emit(Op::OpAtomicLoad, u32(), {pointer, scope, relaxed});
  uint32_t before = blocks_->back().label;
  uint32_t header = m_.take_id(), body = m_.take_id(), next = m_.take_id(), merge = m_.take_id();
  uint32_t old = m_.take_id(), seen = m_.take_id();
  emit_void(Op::OpBranch, {header});
  start_block(header);
  out_->emplace_back(Op::OpPhi, u32(), old, std::vector<uint32_t>{initial, before, seen, next});
  loop_phis_.insert(old);
  emit_void(Op::OpLoopMerge, {merge, next, 0});
  emit_void(Op::OpBranch, {body});
  start_block(body);
  uint32_t merged = emit(Op::OpBitwiseOr, u32(), {emit(Op::OpBitwiseAnd, u32(), {old, keep}), placed});
  out_->emplace_back(Op::OpAtomicCompareExchange, u32(), seen,
                     std::vector<uint32_t>{pointer, scope, relaxed, relaxed, merged, old});
  uint32_t done = emit(Op::OpIEqual, bool_type(1), {seen, old});
  emit_void(Op::OpBranchConditional, {done, merge, next});
  start_block(next);
  emit_void(Op::OpBranch, {header});
  start_block(merge);
}

// Stores the low |width| bits of |bits| at byte |offset| from |address| (alignment below 4).
void Widening::store_lane(uint32_t address, uint32_t offset, uint32_t width, uint32_t alignment,
                          uint32_t bits) {
  if (width == 16 && alignment < 2) {
    store_lane(address, offset, 8, alignment, mask(bits, 8, 1));
    store_lane(address, offset + 1, 8, alignment,
               emit(Op::OpShiftRightLogical, u32(), {bits, constant(8, 1)}));
    return;
  }
  uint32_t at = offset ? emit(Op::OpIAdd, u64(), {address, constant64(offset)}) : address;
  uint32_t word_address = emit(Op::OpBitwiseAnd, u64(), {at, constant64(~uint64_t(3))});
  uint32_t byte = emit(Op::OpUConvert, u32(), {emit(Op::OpBitwiseAnd, u64(), {at, constant64(3)})});
  uint32_t shift = emit(Op::OpShiftLeftLogical, u32(), {byte, constant(3, 1)});
  uint32_t placed = emit(Op::OpShiftLeftLogical, u32(), {bits, shift});
  uint32_t hole = emit(Op::OpShiftLeftLogical, u32(), {constant(lane_mask(width), 1), shift});
  merge_into_word(word_address, emit(Op::OpNot, u32(), {hole}), placed);
}

bool Widening::load(const ir::Instruction& i) {
  const NarrowPointer& p = narrow_pointers_[i.operands[0]];
  const TypeInfo& t = info(p.pointee);
  uint32_t access = i.operands.size() > 1 ? i.operands[1] : 0;
  uint32_t alignment = (access & kAligned) ? i.operands[2] : 1;
  word_loads_.clear();
  std::vector<uint32_t> lanes;
  for (uint32_t c = 0; c < t.count; ++c) {
    uint32_t lane = load_lane(p.address, c * t.width / 8, t.width, alignment, access & kVolatile);
    lanes.push_back(t.is_float ? half_from_bits(lane) : lane);
  }
  uint32_t type = mapped(p.pointee);
  if (t.count == 1) emit_as(i, Op::OpCopyObject, type, {lanes[0]});
  else emit_as(i, Op::OpCompositeConstruct, type, lanes);
  return true;
}

bool Widening::store(const ir::Instruction& i) {
  const NarrowPointer& p = narrow_pointers_[i.operands[0]];
  const TypeInfo& t = info(p.pointee);
  uint32_t value = i.operands[1];
  uint32_t access = i.operands.size() > 2 ? i.operands[2] : 0;
  uint32_t alignment = (access & kAligned) ? i.operands[3] : 1;
  // Each lane masked again: a value whose high bits are not clear (an undefined result that
  // escaped the rules) must not reach the neighbouring bytes of its word.
  std::vector<uint32_t> lanes;
  for (uint32_t c = 0; c < t.count; ++c) {
    uint32_t lane = t.count == 1 ? value : emit(Op::OpCompositeExtract, mapped(t.element), {value, c});
    lanes.push_back(t.is_float ? half_bits(lane) : mask(lane, t.width, 1));
  }
  if (alignment < 4) {
    for (uint32_t c = 0; c < t.count; ++c) store_lane(p.address, c * t.width / 8, t.width, alignment, lanes[c]);
    return true;
  }
  // Aligned: the lanes grouped by word; whole words are written, partial ones merged.
  uint32_t bytes = t.count * t.width / 8;
  for (uint32_t w = 0; w < bytes; w += 4) {
    uint32_t word = 0, covered = 0;
    for (uint32_t c = 0; c < t.count; ++c) {
      uint32_t offset = c * t.width / 8;
      if (offset < w || offset >= w + 4) continue;
      uint32_t shift = (offset - w) * 8;
      uint32_t placed = shift ? emit(Op::OpShiftLeftLogical, u32(), {lanes[c], constant(shift, 1)}) : lanes[c];
      word = word ? emit(Op::OpBitwiseOr, u32(), {word, placed}) : placed;
      covered |= lane_mask(t.width) << shift;
    }
    uint32_t address = w ? emit(Op::OpIAdd, u64(), {p.address, constant64(w)}) : p.address;
    if (covered == ~0u)
      emit_void(Op::OpStore, {word_pointer(address), word, kAligned | (access & kVolatile), 4});
    else
      merge_into_word(address, constant(~covered, 1), word);
  }
  return true;
}

}  // namespace vkcl::k2s
