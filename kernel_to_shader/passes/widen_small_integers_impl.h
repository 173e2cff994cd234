// The widen-small-integers pass's state, shared by its three files: types and globals
// (widen_small_integers.cpp), instructions (widen_instructions.cpp), global memory
// (widen_memory.cpp).
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "passes/pass.h"

namespace vkcl::k2s {

// An input type, as far as widening cares.
struct TypeInfo {
  spv::Op opcode = spv::Op::OpNop;
  uint32_t width = 0;   // bits of the scalar, or of the element of a vector or array of scalars
  uint32_t count = 1;   // components of a vector, length of an array
  bool is_float = false;
  bool small = false;   // an integer of a widened width, or a vector or array of them
  bool half = false;    // half on a device without Float16 (carried in float), or vectors of it
  bool contains_small = false;  // small or half, or a struct or array holding such
  uint32_t element = 0;  // element type (vectors, arrays), pointee (pointers)
  spv::StorageClass storage{};
};

// Instructions that move, select or gather values without looking at their bits: exact for
// any way a value is carried (widen_instructions.cpp).
bool moves_values(spv::Op op);

inline uint32_t lane_mask(uint32_t width) { return width >= 32 ? ~0u : (1u << width) - 1; }

class Widening {
 public:
  Widening(ir::Module& m, PassContext& ctx) : m_(m), ctx_(ctx) {}
  PassStatus run();

 private:
  // widen_small_integers.cpp
  void describe_types();
  bool uses_widened_types() const;
  bool rewrite_globals();
  void rename_types();
  void drop_capabilities();
  uint32_t mapped(uint32_t type) const;
  const TypeInfo& info(uint32_t type) const;
  const TypeInfo& value_info(uint32_t value) const;
  uint32_t intern(spv::Op op, uint32_t type, std::vector<uint32_t> operands);  // a global
  uint32_t type(spv::Op op, std::vector<uint32_t> operands);
  uint32_t u32();
  uint32_t u64();
  uint32_t u32s(uint32_t n);  // u32, or a vector of n of them
  uint32_t constant(uint32_t value, uint32_t n);  // splat over n components
  uint32_t constant64(uint64_t value);
  void start_block(uint32_t label);  // later instructions go to a new block
  uint32_t emit(spv::Op op, uint32_t type, std::vector<uint32_t> operands);
  void emit_void(spv::Op op, std::vector<uint32_t> operands);
  // The instruction that takes over |i|'s result id.
  void emit_as(const ir::Instruction& i, spv::Op op, uint32_t type, std::vector<uint32_t> operands);
  uint32_t mask(uint32_t v, uint32_t width, uint32_t n);
  uint32_t sign_extend(uint32_t v, uint32_t width, uint32_t n);
  uint32_t sign_extend_if_small(uint32_t v);
  bool fail(const std::string& what);

  // widen_instructions.cpp
  bool rewrite(const ir::Instruction& i);
  bool is_literal(const ir::Instruction& i, size_t k) const;
  bool convert(const ir::Instruction& i);
  bool extended_multiply(const ir::Instruction& i);
  bool glsl(const ir::Instruction& i);
  bool group(const ir::Instruction& i);
  bool bitcast(const ir::Instruction& i);
  // A value as pieces of at most 32 bits (each a u32 id, zero-extended, with its width in
  // bits), lowest bits first; and a value of |type| put together from such pieces.
  struct Piece {
    uint32_t id;
    uint32_t bits;
  };
  bool to_pieces(uint32_t v, uint32_t type, std::vector<Piece>* pieces);
  uint32_t from_bits(const std::vector<uint32_t>& chunks, uint32_t type, uint32_t* position);
  uint32_t half_bits(uint32_t h);       // a half value -> its 16 bits in a u32
  uint32_t half_from_bits(uint32_t b);  // and back
  uint32_t half2();

  // widen_half.cpp: half on a device without Float16, carried in float. Every such value
  // is a float holding a value a half can hold; each operation that can leave that set is
  // rounded back to it.
  bool half_instruction(const ir::Instruction& i);
  bool half_glsl(const ir::Instruction& i);
  uint32_t float_type(uint32_t width, uint32_t n);
  uint32_t bool_type(uint32_t n);
  uint32_t float_constant(uint32_t width, double value, uint32_t n);
  uint32_t exact(spv::Op op, uint32_t type, std::vector<uint32_t> operands);  // NoContraction
  uint32_t glsl_import();  // the GLSL.std.450 import, added when the module has none
  // |v| (floats or doubles of |width|, n components) rounded to the nearest half, ties to even,
  // as a float.
  uint32_t round_to_half(uint32_t v, uint32_t width, uint32_t n);
  uint32_t fused_multiply_add(uint32_t a, uint32_t b, uint32_t c, uint32_t n);
  uint32_t float_bits_to_half_bits(uint32_t x);  // scalar float holding a half -> 16 bits
  uint32_t half_bits_to_float(uint32_t h);       // and back (exact)

  // widen_memory.cpp: loads and stores through PhysicalStorageBuffer pointers to widened
  // integers or half, which the device cannot access by their own width.
  bool narrow_global_pointer(uint32_t type) const;
  bool load(const ir::Instruction& i);
  bool store(const ir::Instruction& i);
  uint32_t word_pointer(uint32_t address);
  uint32_t load_lane(uint32_t address, uint32_t offset, uint32_t width, uint32_t alignment, bool is_volatile);
  void store_lane(uint32_t address, uint32_t offset, uint32_t width, uint32_t alignment, uint32_t bits);
  void merge_into_word(uint32_t word_address, uint32_t keep, uint32_t placed);

  ir::Module& m_;
  PassContext& ctx_;
  bool widen8_ = false, widen16_ = false, widen_half_ = false;
  uint32_t glsl_ = 0;  // the GLSL.std.450 import
  std::unordered_map<uint32_t, TypeInfo> info_;        // input type id -> what it is
  std::unordered_map<uint32_t, uint32_t> old_type_;    // value id -> its input type
  std::unordered_map<uint32_t, uint32_t> rename_;      // dropped duplicate type -> kept one
  std::map<std::vector<uint32_t>, uint32_t> interned_;  // (opcode, type, operands) -> global
  struct NarrowPointer {
    uint32_t address;  // the u64 the pointer was made from
    uint32_t pointee;  // input type
  };
  std::unordered_map<uint32_t, NarrowPointer> narrow_pointers_;
  std::unordered_map<uint64_t, uint32_t> word_loads_;  // per load: word offset -> loaded word
  std::vector<ir::Block>* blocks_ = nullptr;  // the function's rewritten blocks
  std::vector<ir::Instruction>* out_ = nullptr;  // the last of them, being written
  bool in_loop_header_ = false;  // the input block is a loop header (it cannot be split)
  std::unordered_set<uint32_t> loop_phis_;  // OpPhi of the compare-exchange loops, which
                                            // already name the blocks they come from
};

}  // namespace vkcl::k2s
