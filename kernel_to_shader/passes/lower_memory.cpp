// Loads, stores, atomics and pointer arithmetic through the four address formats.
#include "passes/lower_to_shader.h"

namespace vkcl::k2s {

using spv::Op;

namespace {
constexpr uint32_t kAligned = 0x2;  // MemoryAccess::Aligned
constexpr uint64_t kTagShift = 62;
}  // namespace

Lowering::Shape Lowering::shape_of(uint32_t out_type) const {
  // Types never change once made, so their shapes are worth remembering: large kernels ask
  // for them at every memory access.
  auto cached = shape_cache_.find(out_type);
  if (cached != shape_cache_.end()) return cached->second;
  Shape s = compute_shape(out_type);
  if (s.ok) shape_cache_[out_type] = s;
  return s;
}

Lowering::Shape Lowering::compute_shape(uint32_t out_type) const {
  Shape s;
  const ir::Instruction* t = nullptr;
  for (const auto& g : out_.globals)
    if (g.result_id == out_type) t = &g;
  if (!t) return s;
  if (t->opcode == Op::OpTypeVector) {
    s = shape_of(t->operands[0]);
    s.count = t->operands[1];
    return s;
  }
  if (t->opcode == Op::OpTypeArray) {  // an 8- or 16-component vector
    s = shape_of(t->operands[0]);
    for (const auto& g : out_.globals)
      if (g.result_id == t->operands[1] && g.opcode == Op::OpConstant) s.count = g.operands[0];
    s.wide = true;
    return s;
  }
  if (t->opcode == Op::OpTypeInt || t->opcode == Op::OpTypeFloat) {
    s.width = t->operands[0];
    s.is_float = t->opcode == Op::OpTypeFloat;
    s.ok = true;
  }
  return s;
}

uint32_t Lowering::c_offset(AddressFormat f, uint64_t bytes) {
  return address_width(f) == 64 ? c_u64(bytes) : c_u32(uint32_t(bytes));
}

uint32_t Lowering::add_offset(AddressFormat f, uint32_t address, uint32_t offset) {
  return emit(Op::OpIAdd, t_uint(address_width(f)), {address, offset});
}

uint32_t Lowering::word_pointer(AddressFormat f, uint32_t offset32) {
  return word_pointer_at(f, emit(Op::OpShiftRightLogical, t_uint(32), {offset32, c_u32(2)}));
}

// The word at |index| (a byte offset / 4), plus |words| more.
uint32_t Lowering::word_pointer_at(AddressFormat f, uint32_t index, uint32_t words) {
  if (words) index = emit(Op::OpIAdd, t_uint(32), {index, c_u32(words)});
  if (f == AddressFormat::Push32) {
    fail("internal: a 32-bit pointer into the pushed arguments (they are 64-bit words)");
    return 0;
  }
  if (f == AddressFormat::Uniform32)
    return emit(Op::OpAccessChain, t_ptr(spv::StorageClass::Uniform, t_uint(32)),
                {constant_buffer(constant_argument_).variable, c_u32(0), index});
  bool local = f == AddressFormat::Local32;
  if (local && wide_arena_) fail("internal: 32-bit word access to the wide local arena");
  if (local && byte_arena_) fail("internal: 32-bit word access to the byte local arena");
  if (local && quad_arena_) {  // a component of a 16-byte element
    uint32_t quad = emit(Op::OpShiftRightLogical, t_uint(32), {index, c_u32(2)});
    uint32_t word = emit(Op::OpBitwiseAnd, t_uint(32), {index, c_u32(3)});
    return emit(Op::OpAccessChain, t_ptr(spv::StorageClass::Workgroup, t_uint(32)), {local_quad_var_, quad, word});
  }
  auto storage = local ? spv::StorageClass::Workgroup : spv::StorageClass::Private;
  return emit(Op::OpAccessChain, t_ptr(storage, t_uint(32)),
              {local ? local_memory_var_ : private_memory_[private_arena_].variable, index});
}

uint32_t Lowering::load_word_at(AddressFormat f, uint32_t index, uint32_t words) {
  if (f != AddressFormat::Push32) return emit(Op::OpLoad, t_uint(32), {word_pointer_at(f, index, words)});
  if (words) index = emit(Op::OpIAdd, t_uint(32), {index, c_u32(words)});
  return push_word_at(index);
}

// The pushed arguments are declared as 64-bit words so that a pointer argument reaches the
// driver as one uniform 64-bit load. Assembled from two 32-bit halves, llvmpipe kept it as a
// vector of lanes and took it apart lane by lane in every load through it (a gather from a
// pointer argument ran 4x slower than rusticl's).
uint32_t Lowering::push_u64_at(uint32_t index64) {
  uint32_t u64 = t_uint(64);
  uint32_t p = emit(Op::OpAccessChain, t_ptr(spv::StorageClass::PushConstant, u64), {push_var_, c_u32(2), index64});
  return emit(Op::OpLoad, u64, {p});
}

uint32_t Lowering::push_word_at(uint32_t index) {
  const uint32_t u32 = t_uint(32), u64 = t_uint(64);
  uint32_t both = push_u64_at(emit(Op::OpShiftRightLogical, u32, {index, c_u32(1)}));
  uint32_t shift = emit(Op::OpShiftLeftLogical, u32, {emit(Op::OpBitwiseAnd, u32, {index, c_u32(1)}), c_u32(5)});
  return emit(Op::OpUConvert, u32, {emit(Op::OpShiftRightLogical, u64, {both, shift})});
}

uint32_t Lowering::load_push64(uint32_t offset32, uint32_t out_type) {
  Shape s = shape_of(out_type);
  const uint32_t u32 = t_uint(32);
  uint32_t index = emit(Op::OpShiftRightLogical, u32, {offset32, c_u32(3)});
  std::vector<uint32_t> parts;
  for (uint32_t c = 0; c < s.count; ++c) {
    uint32_t bits = push_u64_at(c ? emit(Op::OpIAdd, u32, {index, c_u32(c)}) : index);
    parts.push_back(s.is_float ? emit(Op::OpBitcast, t_float(64), {bits}) : bits);
  }
  return s.count == 1 ? parts[0] : emit(Op::OpCompositeConstruct, out_type, parts);
}

uint32_t Lowering::argument_slot(uint32_t slot) {
  if (slot >= kArgumentScratchBytes && slot + 8 <= kArgumentScratchBytes + 4 * push_argument_words_)
    return load_push64(c_u32(slot - kArgumentScratchBytes), t_uint(64));
  uint32_t at = add_offset(AddressFormat::Global64, arg_block_address(), c_u64(slot));
  return load_out(AddressFormat::Global64, at, t_uint(64), 8);
}

// A scalar of 32 or 64 bits from the words at |index| (a 64-bit one little-endian).
uint32_t Lowering::load_whole_words(AddressFormat f, uint32_t index, uint32_t width) {
  uint32_t lo = load_word_at(f, index);
  if (width == 32) return lo;
  uint32_t hi = load_word_at(f, index, 1);
  uint32_t lo64 = emit(Op::OpUConvert, t_uint(64), {lo});
  uint32_t hi64 = emit(Op::OpUConvert, t_uint(64), {hi});
  uint32_t shifted = emit(Op::OpShiftLeftLogical, t_uint(64), {hi64, c_u32(32)});
  return emit(Op::OpBitwiseOr, t_uint(64), {lo64, shifted});
}

void Lowering::store_whole_words(AddressFormat f, uint32_t index, uint32_t width, uint32_t bits) {
  if (width == 32) {
    emit_void(Op::OpStore, {word_pointer_at(f, index), bits});
    return;
  }
  uint32_t lo = emit(Op::OpUConvert, t_uint(32), {bits});
  uint32_t hi64 = emit(Op::OpShiftRightLogical, t_uint(64), {bits, c_u32(32)});
  uint32_t hi = emit(Op::OpUConvert, t_uint(32), {hi64});
  emit_void(Op::OpStore, {word_pointer_at(f, index), lo});
  emit_void(Op::OpStore, {word_pointer_at(f, index, 1), hi});
}

// Scalars wider or narrower than a word are assembled from, or merged into, 32-bit words.
uint32_t Lowering::load_words(AddressFormat f, uint32_t off, uint32_t out_type) {
  Shape s = shape_of(out_type);
  if (!s.ok) { fail("internal: load of a non-scalar from word memory"); return 0; }
  if (f == AddressFormat::Local32 && byte_arena_) return load_bytes(off, out_type);
  bool whole_words = (s.width == 32 || s.width == 64) && !(f == AddressFormat::Local32 && wide_arena_);
  if (s.count > 1 && whole_words) {
    // One word index for the vector, its components at constant distances from it: the
    // driver's loads then share one address (offset + 4c >> 2 per component hid that).
    uint32_t element = s.is_float ? t_float(s.width) : t_uint(s.width);
    uint32_t index = emit(Op::OpShiftRightLogical, t_uint(32), {off, c_u32(2)});
    std::vector<uint32_t> parts;
    for (uint32_t c = 0; c < s.count; ++c) {
      uint32_t at = c ? emit(Op::OpIAdd, t_uint(32), {index, c_u32(c * s.width / 32)}) : index;
      uint32_t bits = load_whole_words(f, at, s.width);
      parts.push_back(s.is_float ? emit(Op::OpBitcast, element, {bits}) : bits);
    }
    return emit(Op::OpCompositeConstruct, out_type, parts);
  }
  if (s.count > 1) {
    uint32_t element = s.is_float ? t_float(s.width) : t_uint(s.width);
    std::vector<uint32_t> parts;
    for (uint32_t c = 0; c < s.count; ++c) {
      uint32_t o = c ? emit(Op::OpIAdd, t_uint(32), {off, c_u32(c * s.width / 8)}) : off;
      parts.push_back(load_words(f, o, element));
    }
    return emit(Op::OpCompositeConstruct, out_type, parts);
  }
  uint32_t bits = 0;
  if (f == AddressFormat::Local32 && wide_arena_) {
    bits = wide_load(off, s.width);
  } else if (s.width == 32 || s.width == 64) {
    bits = load_whole_words(f, emit(Op::OpShiftRightLogical, t_uint(32), {off, c_u32(2)}), s.width);
  } else {
    uint32_t word = load_word_at(f, emit(Op::OpShiftRightLogical, t_uint(32), {off, c_u32(2)}));
    uint32_t byte = emit(Op::OpBitwiseAnd, t_uint(32), {off, c_u32(3)});
    uint32_t shift = emit(Op::OpShiftLeftLogical, t_uint(32), {byte, c_u32(3)});
    uint32_t v = emit(Op::OpShiftRightLogical, t_uint(32), {word, shift});
    bits = emit(Op::OpUConvert, t_uint(s.width), {v});
  }
  return s.is_float ? emit(Op::OpBitcast, out_type, {bits}) : bits;
}

void Lowering::store_words(AddressFormat f, uint32_t off, uint32_t out_type, uint32_t v) {
  Shape s = shape_of(out_type);
  if (!s.ok) { fail("internal: store of a non-scalar to word memory"); return; }
  if (f == AddressFormat::Local32 && byte_arena_) return store_bytes(off, out_type, v);
  bool whole_words = (s.width == 32 || s.width == 64) && !(f == AddressFormat::Local32 && wide_arena_);
  if (s.count > 1 && whole_words) {
    uint32_t element = s.is_float ? t_float(s.width) : t_uint(s.width);
    uint32_t index = emit(Op::OpShiftRightLogical, t_uint(32), {off, c_u32(2)});
    for (uint32_t c = 0; c < s.count; ++c) {
      uint32_t part = emit(Op::OpCompositeExtract, element, {v, c});
      uint32_t bits = s.is_float ? emit(Op::OpBitcast, t_uint(s.width), {part}) : part;
      uint32_t at = c ? emit(Op::OpIAdd, t_uint(32), {index, c_u32(c * s.width / 32)}) : index;
      store_whole_words(f, at, s.width, bits);
    }
    return;
  }
  if (s.count > 1) {
    uint32_t element = s.is_float ? t_float(s.width) : t_uint(s.width);
    for (uint32_t c = 0; c < s.count; ++c) {
      uint32_t part = emit(Op::OpCompositeExtract, element, {v, c});
      uint32_t o = c ? emit(Op::OpIAdd, t_uint(32), {off, c_u32(c * s.width / 8)}) : off;
      store_words(f, o, element, part);
    }
    return;
  }
  uint32_t bits = s.is_float ? emit(Op::OpBitcast, t_uint(s.width), {v}) : v;
  if (f == AddressFormat::Local32 && wide_arena_) {
    wide_store(off, s.width, bits);
    return;
  }
  if (s.width == 32 || s.width == 64) {
    store_whole_words(f, emit(Op::OpShiftRightLogical, t_uint(32), {off, c_u32(2)}), s.width, bits);
    return;
  }
  // 8- and 16-bit stores replace their bytes of the word. In local memory other work-items
  // may write the neighbouring bytes at the same time, so the merge is two atomics there.
  uint32_t mask = s.width == 8 ? 0xffu : 0xffffu;
  uint32_t wide = emit(Op::OpUConvert, t_uint(32), {bits});
  uint32_t byte = emit(Op::OpBitwiseAnd, t_uint(32), {off, c_u32(3)});
  uint32_t shift = emit(Op::OpShiftLeftLogical, t_uint(32), {byte, c_u32(3)});
  uint32_t placed = emit(Op::OpShiftLeftLogical, t_uint(32), {wide, shift});
  uint32_t hole = emit(Op::OpShiftLeftLogical, t_uint(32), {c_u32(mask), shift});
  uint32_t keep = emit(Op::OpNot, t_uint(32), {hole});
  uint32_t ptr = word_pointer(f, off);
  if (f == AddressFormat::Local32) {
    uint32_t scope = c_u32(uint32_t(spv::Scope::Workgroup));
    uint32_t relaxed = c_u32(0);
    emit(Op::OpAtomicAnd, t_uint(32), {ptr, scope, relaxed, keep});
    emit(Op::OpAtomicOr, t_uint(32), {ptr, scope, relaxed, placed});
  } else {
    uint32_t old = emit(Op::OpLoad, t_uint(32), {ptr});
    uint32_t kept = emit(Op::OpBitwiseAnd, t_uint(32), {old, keep});
    uint32_t merged = emit(Op::OpBitwiseOr, t_uint(32), {kept, placed});
    emit_void(Op::OpStore, {ptr, merged});
  }
}

GenericParts split_generic(Lowering& L, uint32_t address) {
  GenericParts p;
  uint32_t tag = L.emit(Op::OpShiftRightLogical, L.t_uint(64), {address, L.c_u32(kTagShift)});
  p.is_global = L.emit(Op::OpIEqual, L.t_bool(), {tag, L.c_u64(0)});
  p.is_local = L.emit(Op::OpIEqual, L.t_bool(), {tag, L.c_u64(1)});
  p.is_private = L.emit(Op::OpIEqual, L.t_bool(), {tag, L.c_u64(2)});
  uint32_t scratch = L.arg_block_address();
  p.global_address = L.emit(Op::OpSelect, L.t_uint(64), {p.is_global, address, scratch});
  uint32_t low = L.emit(Op::OpUConvert, L.t_uint(32), {address});
  p.local_offset = L.emit(Op::OpSelect, L.t_uint(32), {p.is_local, low, L.c_u32(0)});
  p.private_offset = L.emit(Op::OpSelect, L.t_uint(32), {p.is_private, low, L.c_u32(0)});
  return p;
}

// Word memory with an alignment below the value's size (packed data, vstoren at odd
// offsets, stores LLVM merged): byte by byte, so no access spills into a neighbouring word.
uint32_t Lowering::load_words_unaligned(AddressFormat f, uint32_t off, uint32_t out_type,
                                        uint32_t alignment) {
  if (f == AddressFormat::Local32 && quad_arena_)
    if (uint32_t v = load_quad(off, out_type, alignment)) return v;
  Shape s = shape_of(out_type);
  uint32_t bytes = s.width / 8;
  if (alignment >= bytes || s.width == 8 || !s.ok) return load_words(f, off, out_type);
  uint32_t element = s.is_float ? t_float(s.width) : t_uint(s.width);
  std::vector<uint32_t> parts;
  for (uint32_t c = 0; c < s.count; ++c) {
    uint32_t bits = 0;
    for (uint32_t b = 0; b < bytes; ++b) {
      uint32_t o = emit(Op::OpIAdd, t_uint(32), {off, c_u32(c * bytes + b)});
      uint32_t byte = emit(Op::OpUConvert, t_uint(s.width), {load_words(f, o, t_uint(8))});
      if (b) byte = emit(Op::OpShiftLeftLogical, t_uint(s.width), {byte, c_u32(8 * b)});
      bits = bits ? emit(Op::OpBitwiseOr, t_uint(s.width), {bits, byte}) : byte;
    }
    parts.push_back(s.is_float ? emit(Op::OpBitcast, element, {bits}) : bits);
  }
  return s.count == 1 ? parts[0] : emit(Op::OpCompositeConstruct, out_type, parts);
}

void Lowering::store_words_unaligned(AddressFormat f, uint32_t off, uint32_t out_type,
                                     uint32_t v, uint32_t alignment) {
  if (f == AddressFormat::Local32 && quad_arena_ && store_quad(off, out_type, v, alignment)) return;
  Shape s = shape_of(out_type);
  uint32_t bytes = s.width / 8;
  if (alignment >= bytes || s.width == 8 || !s.ok) return store_words(f, off, out_type, v);
  uint32_t element = s.is_float ? t_float(s.width) : t_uint(s.width);
  for (uint32_t c = 0; c < s.count; ++c) {
    uint32_t part = s.count == 1 ? v : emit(Op::OpCompositeExtract, element, {v, c});
    uint32_t bits = s.is_float ? emit(Op::OpBitcast, t_uint(s.width), {part}) : part;
    for (uint32_t b = 0; b < bytes; ++b) {
      uint32_t shifted = b ? emit(Op::OpShiftRightLogical, t_uint(s.width), {bits, c_u32(8 * b)}) : bits;
      uint32_t byte = emit(Op::OpUConvert, t_uint(8), {shifted});
      uint32_t o = emit(Op::OpIAdd, t_uint(32), {off, c_u32(c * bytes + b)});
      store_words(f, o, t_uint(8), byte);
    }
  }
}

// 8- and 16-bit values in global memory need the device's small-type storage features
// (widen-small-integers goes through 32-bit words where it lacks them).
void Lowering::require_storage_access(uint32_t width) {
  if (width == 8) need_capability(spv::Capability::StorageBuffer8BitAccess);
  if (width == 16) need_capability(spv::Capability::StorageBuffer16BitAccess);
}

uint32_t Lowering::load_out(AddressFormat f, uint32_t address, uint32_t out_type,
                            uint32_t alignment) {
  switch (f) {
    case AddressFormat::Global64: {
      require_storage_access(shape_of(out_type).width);
      uint32_t ptr = emit(Op::OpConvertUToPtr,
                          t_ptr(spv::StorageClass::PhysicalStorageBuffer, out_type), {address});
      uint32_t v = emit(Op::OpLoad, out_type, {ptr, kAligned, std::max<uint32_t>(alignment, 1)});
      return constant_argument_ == UINT32_MAX ? v : read_constant_buffer(address, out_type, alignment, v);
    }
    case AddressFormat::Push32:
      if (Shape s = shape_of(out_type); s.ok && s.width == 64 && alignment >= 8)
        return load_push64(address, out_type);
      return load_words_unaligned(f, address, out_type, alignment);
    case AddressFormat::Local32:
    case AddressFormat::Private32:
    case AddressFormat::Uniform32:
      return load_words_unaligned(f, address, out_type, alignment);
    case AddressFormat::Generic64: {
      GenericParts p = split_generic(*this, address);
      uint32_t g = load_out(AddressFormat::Global64, p.global_address, out_type, alignment);
      uint32_t l = load_words_unaligned(AddressFormat::Local32, p.local_offset, out_type, alignment);
      uint32_t v = load_words_unaligned(AddressFormat::Private32, p.private_offset, out_type, alignment);
      uint32_t lv = emit(Op::OpSelect, out_type, {p.is_local, l, v});
      return emit(Op::OpSelect, out_type, {p.is_global, g, lv});
    }
  }
  return 0;
}

void Lowering::store_out(AddressFormat f, uint32_t address, uint32_t out_type, uint32_t v,
                         uint32_t alignment) {
  switch (f) {
    case AddressFormat::Global64: {
      require_storage_access(shape_of(out_type).width);
      uint32_t ptr = emit(Op::OpConvertUToPtr,
                          t_ptr(spv::StorageClass::PhysicalStorageBuffer, out_type), {address});
      emit_void(Op::OpStore, {ptr, v, kAligned, std::max<uint32_t>(alignment, 1)});
      return;
    }
    case AddressFormat::Local32:
    case AddressFormat::Private32:
      store_words_unaligned(f, address, out_type, v, alignment);
      return;
    case AddressFormat::Push32:
    case AddressFormat::Uniform32:
      fail("internal: store to push constants or a uniform buffer");
      return;
    case AddressFormat::Generic64: {
      GenericParts p = split_generic(*this, address);
      store_out(AddressFormat::Global64, p.global_address, out_type, v, alignment);
      store_words_unaligned(AddressFormat::Local32, p.local_offset, out_type, v, alignment);
      store_words_unaligned(AddressFormat::Private32, p.private_offset, out_type, v, alignment);
      return;
    }
  }
}

// The 4-component vector type a wide vector of |in_type| is moved through in global memory, or
// 0: for 32- and 64-bit components, a float16 is four 16-byte loads rather than sixteen 4-byte
// ones (Vulkan has no vector wider than 4; the chunks keep the access's alignment, up to
// their own size).
uint32_t Lowering::wide_chunk_type(AddressFormat f, uint32_t in_type) {
  if (f != AddressFormat::Global64 || !is_wide(in_type)) return 0;
  const ir::Instruction* element = def(def(in_type)->operands[0]);
  if (!element || (element->opcode != Op::OpTypeFloat && element->opcode != Op::OpTypeInt)) return 0;
  uint32_t width = element->operands[0];
  if (width != 32 && width != 64) return 0;
  uint32_t scalar = element->opcode == Op::OpTypeFloat ? t_float(width) : t_uint(width);
  return lower_type(def(in_type)->operands[0]) == scalar ? t_vec(scalar, 4) : 0;
}

uint32_t Lowering::load(AddressFormat f, uint32_t address, uint32_t in_type,
                        uint32_t alignment) {
  const ir::Instruction* t = def(in_type);
  if (!t) { fail("load of unknown type"); return 0; }
  bool wide = is_wide(in_type);
  if (uint32_t chunk = wide_chunk_type(f, in_type)) {
    const uint32_t count = t->operands[1], bytes = shape_of(chunk).width / 2;  // 4 components
    uint32_t scalar = lower_type(t->operands[0]);
    std::vector<uint32_t> parts;
    for (uint32_t k = 0; k < count / 4; ++k) {
      uint32_t a = k ? add_offset(f, address, c_offset(f, k * bytes)) : address;
      uint32_t v = load_out(f, a, chunk, std::min(alignment, bytes));
      for (uint32_t c = 0; c < 4; ++c) parts.push_back(emit(Op::OpCompositeExtract, scalar, {v, c}));
    }
    return emit(Op::OpCompositeConstruct, lower_type(in_type), parts);
  }
  switch (wide ? Op::OpTypeArray : t->opcode) {
    case Op::OpTypeStruct:
    case Op::OpTypeArray: {
      const Layout& l = layouts().of(in_type);
      std::vector<uint32_t> parts;
      size_t n = t->opcode == Op::OpTypeStruct ? t->operands.size() : l.size / std::max(l.stride, 1u);
      if (n > 1024) { fail("load of an aggregate with more than 1024 elements"); return 0; }
      for (size_t k = 0; k < n; ++k) {
        uint32_t member = t->opcode == Op::OpTypeStruct ? t->operands[k] : t->operands[0];
        uint32_t off = t->opcode == Op::OpTypeStruct ? l.member_offsets[k] : uint32_t(k * l.stride);
        uint32_t a = off ? add_offset(f, address, c_offset(f, off)) : address;
        uint32_t ma = std::min(alignment, layouts().of(member).alignment);
        parts.push_back(load(f, a, member, std::max(ma, 1u)));
        if (failed_) return 0;
      }
      return emit(Op::OpCompositeConstruct, lower_type(in_type), parts);
    }
    case Op::OpTypePointer: {
      uint32_t v = load_out(f, address, t_uint(64), alignment);
      uint32_t repr = lower_type(in_type);
      return repr == t_uint(64) ? v : emit(Op::OpUConvert, repr, {v});
    }
    case Op::OpTypeBool: {
      uint32_t byte = load_out(f, address, t_uint(8), 1);
      return emit(Op::OpINotEqual, t_bool(), {byte, c_uint(8, 0)});
    }
    default:
      return load_out(f, address, lower_type(in_type), alignment);
  }
}

void Lowering::store(AddressFormat f, uint32_t address, uint32_t in_type, uint32_t v,
                     uint32_t alignment) {
  const ir::Instruction* t = def(in_type);
  if (!t) { fail("store of unknown type"); return; }
  bool wide = is_wide(in_type);
  if (uint32_t chunk = wide_chunk_type(f, in_type)) {
    const uint32_t count = t->operands[1], bytes = shape_of(chunk).width / 2;
    uint32_t scalar = lower_type(t->operands[0]);
    for (uint32_t k = 0; k < count / 4; ++k) {
      std::vector<uint32_t> parts;
      for (uint32_t c = 0; c < 4; ++c) parts.push_back(emit(Op::OpCompositeExtract, scalar, {v, 4 * k + c}));
      uint32_t a = k ? add_offset(f, address, c_offset(f, k * bytes)) : address;
      store_out(f, a, chunk, emit(Op::OpCompositeConstruct, chunk, parts), std::min(alignment, bytes));
    }
    return;
  }
  switch (wide ? Op::OpTypeArray : t->opcode) {
    case Op::OpTypeStruct:
    case Op::OpTypeArray: {
      const Layout& l = layouts().of(in_type);
      size_t n = t->opcode == Op::OpTypeStruct ? t->operands.size() : l.size / std::max(l.stride, 1u);
      if (n > 1024) { fail("store of an aggregate with more than 1024 elements"); return; }
      for (size_t k = 0; k < n; ++k) {
        uint32_t member = t->opcode == Op::OpTypeStruct ? t->operands[k] : t->operands[0];
        uint32_t off = t->opcode == Op::OpTypeStruct ? l.member_offsets[k] : uint32_t(k * l.stride);
        uint32_t part = emit(Op::OpCompositeExtract, lower_type(member), {v, uint32_t(k)});
        uint32_t a = off ? add_offset(f, address, c_offset(f, off)) : address;
        uint32_t ma = std::min(alignment, layouts().of(member).alignment);
        store(f, a, member, part, std::max(ma, 1u));
        if (failed_) return;
      }
      return;
    }
    case Op::OpTypePointer: {
      uint32_t repr = lower_type(in_type);
      uint32_t wide = repr == t_uint(64) ? v : emit(Op::OpUConvert, t_uint(64), {v});
      store_out(f, address, t_uint(64), wide, alignment);
      return;
    }
    case Op::OpTypeBool: {
      uint32_t byte = emit(Op::OpSelect, t_uint(8), {v, c_uint(8, 1), c_uint(8, 0)});
      store_out(f, address, t_uint(8), byte, 1);
      return;
    }
    default:
      store_out(f, address, lower_type(in_type), v, alignment);
  }
}

static uint32_t memory_alignment(const ir::Instruction& inst, size_t first_operand) {
  if (inst.operands.size() > first_operand + 1 && (inst.operands[first_operand] & kAligned))
    return inst.operands[first_operand + 1];
  return 0;
}

bool Lowering::lower_load(const ir::Instruction& i) {
  uint32_t pointer = i.operands[0];
  if (logical_vars_.count(pointer)) {
    bind(i.result_id, lower_type(i.type_id),
         emit(Op::OpLoad, lower_type(i.type_id), {value(pointer)}));
    return !failed_;
  }
  if (is_builtin_variable(pointer)) return lower_builtin_load(i, pointer, -1);
  auto bp = builtin_pointers_.find(pointer);
  if (bp != builtin_pointers_.end())
    return lower_builtin_load(i, bp->second.first, bp->second.second);
  const ir::Instruction* p = def(pointer);
  if (!p) return fail("load through an unknown pointer");
  AddressFormat f = format_of(pointer_storage(p->type_id));
  uint32_t a = memory_alignment(i, 1);
  if (!a) a = layouts().of(i.type_id).alignment;
  uint32_t address = checked(f, value(pointer), c_u32(layouts().of(i.type_id).size), "load", pointer);
  constant_argument_ = constant_argument_of(pointer);
  bind(i.result_id, lower_type(i.type_id), load(f, address, i.type_id, a));
  constant_argument_ = UINT32_MAX;
  return !failed_;
}

bool Lowering::lower_store(const ir::Instruction& i) {
  uint32_t pointer = i.operands[0];
  if (logical_vars_.count(pointer)) {
    emit_void(Op::OpStore, {value(pointer), value(i.operands[1])});
    return !failed_;
  }
  const ir::Instruction* p = def(pointer);
  if (!p) return fail("store through an unknown pointer");
  if (pointer_storage(p->type_id) == spv::StorageClass::UniformConstant)
    return fail("store to __constant memory: " + describe(i));
  AddressFormat f = format_of(pointer_storage(p->type_id));
  uint32_t in_type = pointee(p->type_id);
  uint32_t a = memory_alignment(i, 2);
  if (!a) a = layouts().of(in_type).alignment;
  uint32_t address = checked(f, value(pointer), c_u32(layouts().of(in_type).size), "store", pointer);
  store(f, address, in_type, value(i.operands[1]), a);
  return !failed_;
}

bool Lowering::lower_access_chain(const ir::Instruction& i) {
  uint32_t base = i.operands[0];
  bool ptr_chain = i.opcode == Op::OpPtrAccessChain || i.opcode == Op::OpInBoundsPtrAccessChain;
  if (is_builtin_variable(base)) {
    // Built-in vectors are read by component: remember which one.
    size_t index_pos = ptr_chain ? 2 : 1;
    int component = -1;
    if (i.operands.size() > index_pos) {
      bool ok = false;
      component = int(constant_value(i.operands[index_pos], &ok));
      if (!ok) return fail("dynamic index into a built-in variable: " + describe(i));
    }
    builtin_pointers_[i.result_id] = {base, component};
    return true;
  }
  if (logical_vars_.count(base)) return fail("internal: access chain on a logical variable");
  const ir::Instruction* b = def(base);
  if (!b) return fail("access chain on an unknown pointer");
  AddressFormat f = format_of(pointer_storage(b->type_id));
  uint32_t width = address_width(f);
  uint32_t type = pointee(b->type_id);
  uint64_t constant_offset = 0;
  std::vector<uint32_t> dynamic;  // output values to add

  auto add_index = [&](uint32_t index_id, uint64_t stride) {
    bool ok = false;
    uint64_t c = constant_value(index_id, &ok);
    const ir::Instruction* idef = def(index_id);
    uint32_t iw = 32;
    if (idef)
      if (const ir::Instruction* it = def(idef->type_id)) iw = it->operands[0];
    if (ok) {
      if (iw < 64) c = uint64_t(int64_t(int32_t(uint32_t(c)) ) );  // indexes are signed
      constant_offset += c * stride;
      return;
    }
    uint32_t v = to_width(value(index_id), iw, width, true);
    if (stride != 1) v = emit(Op::OpIMul, t_uint(width), {v, c_offset(f, stride)});
    dynamic.push_back(v);
  };

  size_t k = 1;
  if (ptr_chain) {
    const Layout& l = layouts().of(type);
    uint32_t stride = (l.size + l.alignment - 1) / std::max(l.alignment, 1u) * std::max(l.alignment, 1u);
    add_index(i.operands[1], stride);
    k = 2;
  }
  for (; k < i.operands.size(); ++k) {
    const ir::Instruction* t = def(type);
    if (!t) return fail("access chain through an unknown type");
    const Layout& l = layouts().of(type);
    if (t->opcode == Op::OpTypeStruct) {
      bool ok = false;
      uint64_t m = constant_value(i.operands[k], &ok);
      if (!ok || m >= t->operands.size()) return fail("bad struct index: " + describe(i));
      constant_offset += l.member_offsets[m];
      type = t->operands[m];
    } else if (t->opcode == Op::OpTypeArray || t->opcode == Op::OpTypeVector) {
      add_index(i.operands[k], l.stride);
      type = t->operands[0];
    } else {
      return fail("access chain into a non-composite: " + describe(i));
    }
  }
  uint32_t address = value(base);
  for (uint32_t d : dynamic) address = add_offset(f, address, d);
  if (constant_offset)
    address = add_offset(f, address, c_offset(f, width == 64 ? constant_offset
                                                             : uint32_t(constant_offset)));
  bind(i.result_id, t_uint(width), address);
  return !failed_;
}

bool Lowering::lower_pointer_cast(const ir::Instruction& i) {
  auto repr_width = [&](uint32_t in_type) -> uint32_t {
    const ir::Instruction* t = def(in_type);
    if (!t) return 64;
    if (t->opcode == Op::OpTypePointer) return address_width(format_of(spv::StorageClass(t->operands[0])));
    if (t->opcode == Op::OpTypeInt) return t->operands[0];
    if (t->opcode == Op::OpTypeVector) {  // SPIR-V 1.5: a pointer bitcast to uint2 and back
      const ir::Instruction* e = def(t->operands[0]);
      if (e && e->opcode == Op::OpTypeInt) return e->operands[0] * t->operands[1];
    }
    return 0;
  };
  auto is_vector = [&](uint32_t in_type) {
    const ir::Instruction* t = def(in_type);
    return t && t->opcode == Op::OpTypeVector;
  };
  uint32_t src = i.operands[0];
  const ir::Instruction* s = def(src);
  if (!s) return fail("cast of an unknown value");
  uint32_t out_type = lower_type(i.type_id);
  uint32_t v = value(src);
  switch (i.opcode) {
    case Op::OpPtrCastToGeneric: {
      AddressFormat from = format_of(pointer_storage(s->type_id));
      if (from == AddressFormat::Global64) { bind(i.result_id, out_type, v); return true; }
      uint32_t wide = emit(Op::OpUConvert, t_uint(64), {v});
      uint64_t tag = from == AddressFormat::Local32 ? 1 : 2;
      uint32_t tagged = emit(Op::OpBitwiseOr, t_uint(64), {wide, c_u64(tag << kTagShift)});
      // NULL stays NULL in every space: offset 0 is scratch, never an object, so it is the
      // local and private null, and the generic null is 0.
      uint32_t null = emit(Op::OpIEqual, t_bool(), {v, c_u32(0)});
      bind(i.result_id, out_type, emit(Op::OpSelect, t_uint(64), {null, c_u64(0), tagged}));
      return true;
    }
    case Op::OpGenericCastToPtr:
    case Op::OpGenericCastToPtrExplicit: {
      AddressFormat to = format_of(pointer_storage(i.type_id));
      uint32_t converted = to == AddressFormat::Global64 ? v : emit(Op::OpUConvert, t_uint(32), {v});
      if (i.opcode == Op::OpGenericCastToPtrExplicit) {
        uint64_t tag = to == AddressFormat::Global64 ? 0 : to == AddressFormat::Local32 ? 1 : 2;
        uint32_t t = emit(Op::OpShiftRightLogical, t_uint(64), {v, c_u32(kTagShift)});
        uint32_t match = emit(Op::OpIEqual, t_bool(), {t, c_u64(tag)});
        converted = emit(Op::OpSelect, out_type, {match, converted, c_null(out_type)});
      }
      bind(i.result_id, out_type, converted);
      return true;
    }
    case Op::OpPtrEqual:
    case Op::OpPtrNotEqual:
      bind(i.result_id, out_type,
           emit(i.opcode == Op::OpPtrEqual ? Op::OpIEqual : Op::OpINotEqual, out_type,
                {v, value(i.operands[1])}));
      return true;
    case Op::OpPtrDiff: {
      uint32_t w = repr_width(s->type_id);
      uint32_t diff = emit(Op::OpISub, t_uint(w), {v, value(i.operands[1])});
      const Layout& l = layouts().of(pointee(s->type_id));
      uint32_t rw = repr_width(i.type_id);
      diff = to_width(diff, w, rw, true);
      bind(i.result_id, out_type,
           emit(Op::OpSDiv, out_type, {diff, c_uint(rw, std::max(l.size, 1u))}));
      return true;
    }
    default: {
      // OpConvertPtrToU, OpConvertUToPtr, OpBitcast: the value is an integer on both sides.
      uint32_t from = repr_width(s->type_id), to = repr_width(i.type_id);
      if (!from || !to) return fail("pointer cast between unsupported types: " + describe(i));
      if (is_vector(s->type_id)) v = emit(Op::OpBitcast, t_uint(from), {v});
      uint32_t r = to_width(v, from, to, false);
      if (is_vector(i.type_id)) r = emit(Op::OpBitcast, out_type, {r});
      bind(i.result_id, out_type, r);
      return true;
    }
  }
}

uint32_t Lowering::lower_scope(uint32_t in_scope, AddressFormat f) {
  bool ok = false;
  auto s = spv::Scope(constant_value(in_scope, &ok));
  if (!ok) { fail("scope is not a constant"); return 0; }
  switch (s) {
    case spv::Scope::CrossDevice:
    case spv::Scope::Device: s = spv::Scope::Device; break;
    case spv::Scope::Workgroup:
      // OpenCL 1.2 atomics on global memory are device-wide whatever scope they carry.
      if (f == AddressFormat::Global64) s = spv::Scope::Device;
      break;
    default: break;
  }
  return c_u32(uint32_t(s));
}

uint32_t Lowering::lower_semantics(uint32_t in_semantics, Op op) {
  bool ok = false;
  uint32_t v = uint32_t(constant_value(in_semantics, &ok));
  if (!ok) { fail("memory semantics are not a constant"); return 0; }
  uint32_t order = v & 0x1e;
  if (!order) return c_u32(0);
  // See TargetCaps::memory_barriers_stall: ordering comes from read-modify-writes there.
  if (ctx_.caps.memory_barriers_stall && op != Op::OpControlBarrier) return c_u32(0);
  uint32_t out = 0;
  if (op == Op::OpAtomicLoad) out = 0x2;        // Acquire
  else if (op == Op::OpAtomicStore) out = 0x4;  // Release
  else out = 0x8;                               // AcquireRelease
  uint32_t storage = 0;
  if (v & 0x100) storage |= 0x100;              // WorkgroupMemory
  if (v & 0x200) storage |= 0x40;               // CrossWorkgroupMemory -> UniformMemory
  if (!storage) storage = 0x140;
  return c_u32(out | storage);
}

bool Lowering::lower_atomic(const ir::Instruction& i) {
  const ir::Instruction* p = def(i.operands[0]);
  if (!p) return fail("atomic on an unknown pointer");
  AddressFormat f = format_of(pointer_storage(p->type_id));
  uint32_t in_type = i.opcode == Op::OpAtomicStore ? pointee(p->type_id) : i.type_id;
  uint32_t out_type = lower_type(in_type);
  Shape s = shape_of(out_type);
  // OpenCL 1.2's atomic_xchg on float (and atomic loads and stores of floats) only move bits:
  // they run on the integer of the same size, with bit casts around them.
  uint32_t float_type = 0;
  if (s.ok && s.is_float && s.count == 1 && (s.width == 32 || s.width == 64) &&
      (i.opcode == Op::OpAtomicExchange || i.opcode == Op::OpAtomicLoad ||
       i.opcode == Op::OpAtomicStore || i.opcode == Op::OpAtomicOr)) {  // Or: ordered loads
    float_type = out_type;
    out_type = t_uint(s.width);
    s = shape_of(out_type);
  }
  if (s.is_float || !s.ok) return fail("floating-point atomics are not supported yet: " + describe(i));
  // The value operand |k| as the atomic's (integer) type.
  auto operand = [&](size_t k) {
    uint32_t v = value(i.operands[k]);
    return float_type ? emit(Op::OpBitcast, out_type, {v}) : v;
  };
  // Binds the atomic's result, as a float again where it was one.
  auto bind_result = [&](uint32_t r) {
    if (float_type) bind(i.result_id, float_type, emit(Op::OpBitcast, float_type, {r}));
    else bind(i.result_id, out_type, r);
  };
  const uint32_t address = checked(f, value(i.operands[0]), c_u32(s.width / 8), "atomic", i.operands[0]);
  Op op = i.opcode == Op::OpAtomicCompareExchangeWeak ? Op::OpAtomicCompareExchange : i.opcode;
  bool cmpxchg = op == Op::OpAtomicCompareExchange;
  // The atomic instruction on |ptr|, a pointer of format |af|; 0 for a store.
  auto atomic_on = [&](uint32_t ptr, AddressFormat af) -> uint32_t {
    std::vector<uint32_t> ops = {ptr, lower_scope(i.operands[1], af)};
    switch (op) {
      case Op::OpAtomicCompareExchange:
        ops.push_back(lower_semantics(i.operands[2], i.opcode));
        ops.push_back(lower_semantics(i.operands[3], Op::OpAtomicLoad));
        ops.push_back(value(i.operands[4]));
        ops.push_back(value(i.operands[5]));
        break;
      case Op::OpAtomicLoad:
      case Op::OpAtomicIIncrement:
      case Op::OpAtomicIDecrement:
        ops.push_back(lower_semantics(i.operands[2], i.opcode));
        break;
      default:
        ops.push_back(lower_semantics(i.operands[2], i.opcode));
        ops.push_back(operand(3));
        break;
    }
    if (op == Op::OpAtomicStore) {
      emit_void(op, ops);
      return 0;
    }
    return emit(op, out_type, ops);
  };
  if (f == AddressFormat::Global64) {
    if (s.width == 64) {
      if (!ctx_.caps.int64_atomics) return fail("64-bit atomics need shaderBufferInt64Atomics");
      need_capability(spv::Capability::Int64Atomics);
    } else if (s.width != 32) {
      return fail("atomics on " + std::to_string(s.width) + "-bit values: " + describe(i));
    }
    uint32_t ptr = emit(Op::OpConvertUToPtr, t_ptr(spv::StorageClass::PhysicalStorageBuffer, out_type),
                        {address});
    uint32_t r = atomic_on(ptr, f);
    if (r) bind_result(r);
    return !failed_;
  }
  if ((f != AddressFormat::Local32 && f != AddressFormat::Generic64) || (s.width != 32 && s.width != 64))
    return fail("atomics on this address space or width are not supported yet: " + describe(i));
  if (s.width == 64) {
    if (!ctx_.caps.int64_atomics) return fail("64-bit atomics are not supported by this device");
    need_capability(spv::Capability::Int64Atomics);
  }
  // The atomic at byte |offset| of local memory. In the wide arena (wide_arena.cpp) 64-bit
  // atomics are native on their word and 32-bit ones work on half a word.
  auto local_atomic = [&](uint32_t offset) -> uint32_t {
    if (!wide_arena_) {
      if (s.width == 64) {
        fail("internal: 64-bit local atomic outside the wide arena");
        return 0u;
      }
      return atomic_on(word_pointer(AddressFormat::Local32, offset), AddressFormat::Local32);
    }
    if (s.width == 64) return atomic_on(wide_word_pointer(offset), AddressFormat::Local32);
    bool none = op == Op::OpAtomicLoad || op == Op::OpAtomicIIncrement || op == Op::OpAtomicIDecrement;
    return wide_atomic32(op, offset, lower_scope(i.operands[1], AddressFormat::Local32),
                         lower_semantics(i.operands[2], i.opcode),
                         none ? 0u : cmpxchg ? value(i.operands[4]) : operand(3),
                         cmpxchg ? value(i.operands[5]) : 0u);
  };
  if (f == AddressFormat::Local32) {
    uint32_t r = local_atomic(address);
    if (op != Op::OpAtomicStore) bind_result(r);
    return !failed_;
  }
  // Through a generic pointer: the atomic runs on the global address and on the local
  // offset the tag selects, or on their scratch locations when the tag names another space
  // (harmless: nothing else reads them), like a generic load. Private memory belongs to one
  // work-item, so its read-modify-write needs no atomicity. The tag picks the result.
  GenericParts g = split_generic(*this, address);
  uint32_t gptr = emit(Op::OpConvertUToPtr, t_ptr(spv::StorageClass::PhysicalStorageBuffer, out_type),
                       {g.global_address});
  uint32_t r_global = atomic_on(gptr, AddressFormat::Global64);
  uint32_t r_local = local_atomic(g.local_offset);
  uint32_t old = load_out(AddressFormat::Private32, g.private_offset, out_type, 4);
  uint32_t bt = t_bool();
  uint32_t v = op == Op::OpAtomicLoad || op == Op::OpAtomicIIncrement || op == Op::OpAtomicIDecrement
                   ? 0
                   : cmpxchg ? value(i.operands[4]) : operand(3);
  uint32_t updated = 0;
  switch (op) {
    case Op::OpAtomicLoad: break;
    case Op::OpAtomicStore: case Op::OpAtomicExchange: updated = v; break;
    case Op::OpAtomicCompareExchange:
      updated = emit(Op::OpSelect, out_type,
                     {emit(Op::OpIEqual, bt, {old, value(i.operands[5])}), v, old});
      break;
    case Op::OpAtomicIIncrement: updated = emit(Op::OpIAdd, out_type, {old, c_uint(s.width, 1)}); break;
    case Op::OpAtomicIDecrement: updated = emit(Op::OpISub, out_type, {old, c_uint(s.width, 1)}); break;
    case Op::OpAtomicIAdd: updated = emit(Op::OpIAdd, out_type, {old, v}); break;
    case Op::OpAtomicISub: updated = emit(Op::OpISub, out_type, {old, v}); break;
    case Op::OpAtomicAnd: updated = emit(Op::OpBitwiseAnd, out_type, {old, v}); break;
    case Op::OpAtomicOr: updated = emit(Op::OpBitwiseOr, out_type, {old, v}); break;
    case Op::OpAtomicXor: updated = emit(Op::OpBitwiseXor, out_type, {old, v}); break;
    case Op::OpAtomicSMin: case Op::OpAtomicUMin: case Op::OpAtomicSMax: case Op::OpAtomicUMax: {
      Op cmp = op == Op::OpAtomicSMin ? Op::OpSLessThan : op == Op::OpAtomicUMin ? Op::OpULessThan
               : op == Op::OpAtomicSMax ? Op::OpSGreaterThan : Op::OpUGreaterThan;
      updated = emit(Op::OpSelect, out_type, {emit(cmp, bt, {v, old}), v, old});
      break;
    }
    default:
      return fail("atomic through a generic pointer not supported yet: " + describe(i));
  }
  if (updated) store_out(AddressFormat::Private32, g.private_offset, out_type, updated, 4);
  if (op == Op::OpAtomicStore) return !failed_;
  uint32_t r = emit(Op::OpSelect, out_type, {g.is_global, r_global,
                                             emit(Op::OpSelect, out_type, {g.is_local, r_local, old})});
  bind_result(r);
  return !failed_;
}

// get_fence(p): the memory-semantics storage bit of the space a generic pointer's tag names
// (WorkgroupMemory for local, CrossWorkgroupMemory for global, none for private).
bool Lowering::lower_generic_semantics(const ir::Instruction& i) {
  uint32_t u64 = t_uint(64), u32 = t_uint(32), bt = t_bool();
  uint32_t tag = emit(Op::OpShiftRightLogical, u64, {value(i.operands[0]), c_u32(kTagShift)});
  uint32_t global = c_u32(uint32_t(spv::MemorySemanticsMask::CrossWorkgroupMemory));
  uint32_t local = c_u32(uint32_t(spv::MemorySemanticsMask::WorkgroupMemory));
  uint32_t r = emit(Op::OpSelect, u32, {emit(Op::OpIEqual, bt, {tag, c_u64(1)}), local, c_u32(0)});
  r = emit(Op::OpSelect, u32, {emit(Op::OpIEqual, bt, {tag, c_u64(0)}), global, r});
  bind(i.result_id, u32, r);
  return !failed_;
}

bool Lowering::lower_copy_memory(const ir::Instruction& i) {
  const ir::Instruction* dst = def(i.operands[0]);
  const ir::Instruction* src = def(i.operands[1]);
  if (!dst || !src) return fail("copy between unknown pointers");
  if (logical_vars_.count(i.operands[0]) || logical_vars_.count(i.operands[1]))
    return fail("internal: memory copy with a logical variable");
  uint64_t size = 0;
  size_t mem_operand = 2;
  if (i.opcode == Op::OpCopyMemorySized) {
    bool ok = false;
    size = constant_value(i.operands[2], &ok);
    if (!ok) return lower_copy_loop(i);
    mem_operand = 3;
  } else {
    size = layouts().of(pointee(dst->type_id)).size;
  }
  if (size > 256) return lower_copy_loop(i);  // unrolled below, looped above
  uint32_t a = memory_alignment(i, mem_operand);
  AddressFormat fd = format_of(pointer_storage(dst->type_id));
  AddressFormat fs = format_of(pointer_storage(src->type_id));
  uint32_t unit = (a >= 4 && size % 4 == 0) ? 4 : 1;
  uint32_t unit_type = t_uint(unit * 8);
  const uint32_t from = checked(fs, value(i.operands[1]), c_u32(uint32_t(size)), "copy from", i.operands[1]);
  const uint32_t to = checked(fd, value(i.operands[0]), c_u32(uint32_t(size)), "copy to", i.operands[0]);
  for (uint64_t off = 0; off < size; off += unit) {
    uint32_t s = off ? add_offset(fs, from, c_offset(fs, off)) : from;
    uint32_t d = off ? add_offset(fd, to, c_offset(fd, off)) : to;
    uint32_t v = load_out(fs, s, unit_type, unit);
    store_out(fd, d, unit_type, v, unit);
    if (failed_) return false;
  }
  return true;
}

}  // namespace vkcl::k2s

namespace vkcl::k2s {

// (constant_pointers_ is empty unless the device takes uniform buffers: run().)
uint32_t Lowering::constant_argument_of(uint32_t in_pointer) const {
  auto it = constant_pointers_.find(in_pointer);
  return it == constant_pointers_.end() ? UINT32_MAX : it->second;
}

const Lowering::ConstantBuffer& Lowering::constant_buffer(uint32_t argument) {
  auto it = constant_buffers_.find(argument);
  if (it != constant_buffers_.end()) return it->second;
  // { u32 words[N]; } at set 0, binding |argument|: fresh types, so that no other array of
  // as many words shares the stride decoration.
  uint32_t array = take_id(), block = take_id();
  out_.globals.emplace_back(Op::OpTypeArray, 0, array,
                            std::vector<uint32_t>{t_uint(32), c_u32(ctx_.caps.constant_buffer_words)});
  decorate(array, spv::Decoration::ArrayStride, {4});
  out_.globals.emplace_back(Op::OpTypeStruct, 0, block, std::vector<uint32_t>{array});
  decorate(block, spv::Decoration::Block);
  annotations_.emplace_back(Op::OpMemberDecorate, 0, 0,
                            std::vector<uint32_t>{block, 0, uint32_t(spv::Decoration::Offset), 0});
  ConstantBuffer b{take_id(), take_id(), take_id()};
  out_.globals.emplace_back(Op::OpVariable, t_ptr(spv::StorageClass::Uniform, block), b.variable,
                            std::vector<uint32_t>{uint32_t(spv::StorageClass::Uniform)});
  decorate(b.variable, spv::Decoration::DescriptorSet, {0});
  decorate(b.variable, spv::Decoration::Binding, {argument});
  decorate(b.variable, spv::Decoration::NonWritable);
  out_.globals.emplace_back(Op::OpSpecConstantFalse, t_bool(), b.bound, std::vector<uint32_t>{});
  decorate(b.bound, spv::Decoration::SpecId, {kSpecConstantBuffer + argument});
  interface_.push_back(b.variable);
  if (argument != kProgramConstantsBinding) {
    out_.globals.emplace_back(Op::OpVariable, t_ptr(spv::StorageClass::Private, t_uint(64)), b.base,
                              std::vector<uint32_t>{uint32_t(spv::StorageClass::Private)});
    interface_.push_back(b.base);
  }
  return constant_buffers_.emplace(argument, b).first->second;
}

// Both loads are made; the driver keeps the one the pipeline's specialization selects.
uint32_t Lowering::read_constant_buffer(uint32_t address, uint32_t out_type, uint32_t alignment,
                                        uint32_t global) {
  const ConstantBuffer& b = constant_buffer(constant_argument_);
  uint32_t base = constant_argument_ == kProgramConstantsBinding ? program_data_base_
                                                                 : emit(Op::OpLoad, t_uint(64), {b.base});
  uint32_t offset = emit(Op::OpUConvert, t_uint(32), {emit(Op::OpISub, t_uint(64), {address, base})});
  uint32_t uniform = load_words_unaligned(AddressFormat::Uniform32, offset, out_type, alignment);
  return emit(Op::OpSelect, out_type, {b.bound, uniform, global});
}

}  // namespace vkcl::k2s
