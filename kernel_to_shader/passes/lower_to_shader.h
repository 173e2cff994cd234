// lower-to-shader: rewrites a structured Kernel-model module into a Vulkan Shader-model module.
// Pointers follow one mechanism parameterised by the storage class's address format (DESIGN.md
// "Pointer model"): 64-bit device addresses for global/constant, 32-bit byte offsets into a
// word array for local and private, tagged 64-bit values for generic.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "passes/constant_buffers.h"
#include "passes/pass.h"
#include "passes/private_arenas.h"
#include "passes/type_layout.h"

namespace vkcl::k2s {

std::unique_ptr<Pass> create_lower_to_shader_pass();

// Finds the kernels that need the wide local arena (wide_arena.cpp), gives the functions
// they share with other kernels a copy of their own, and returns the ids of the functions to
// lower with the wide arena.
std::unordered_set<uint32_t> prepare_wide_arena(ir::Module& module);
// Likewise for the byte arena (wide_arena.cpp): kernels that store 8- or 16-bit values into
// local memory and use no atomic there (none of them wide).
std::unordered_set<uint32_t> prepare_byte_arena(ir::Module& module, const std::unordered_set<uint32_t>& wide);
// Likewise for the quad arena (wide_arena.cpp): kernels that move 8- or 16-byte vectors
// through local memory and use neither atomics nor narrow stores there (of the others).
std::unordered_set<uint32_t> prepare_quad_arena(ir::Module& module, const std::unordered_set<uint32_t>& others);

class Lowering;
// Emits `for (i = start; i < end; i = step(i)) body(i);` at the end of |f|, whose last block
// is the current one; afterwards the current block is the loop's merge block. |body| and
// |step| must not start blocks of their own. Only for helper functions (see lower_group.cpp).
void emit_loop(Lowering& L, ir::Function& f, uint32_t type, uint32_t start, uint32_t end,
               const std::function<uint32_t(uint32_t)>& step,
               const std::function<void(uint32_t)>& body);

// How a pointer into one storage class is represented and accessed.
enum class AddressFormat {
  Global64,   // PhysicalStorageBuffer device address (CrossWorkgroup, UniformConstant)
  Local32,    // byte offset into the workgroup word array
  Private32,  // byte offset into the per-invocation word array
  Generic64,  // address with the space in bits 62-63 (0 global, 1 local, 2 private)
  Push32,     // byte offset into the arguments copied after the dispatch block (loads only)
  Uniform32,  // byte offset into a __constant argument's uniform buffer (loads only; the
              // argument is Lowering::constant_argument_)
};

class Lowering;

// A generic address split into three always-safe addresses: the one its tag names, and
// scratch locations for the other two (so all three accesses can run without branches).
struct GenericParts {
  uint32_t is_local, is_private, global_address, local_offset, private_offset, is_global;
};
GenericParts split_generic(Lowering& L, uint32_t address);

class Lowering {
 public:
  Lowering(const ir::Module& in, PassContext& context) : in_(in), ctx_(context) {}
  // Builds the Shader module into |*out| with one GLCompute entry point per kernel (named as
  // the kernel) and fills context.kernels. Returns false with context.log set on failure.
  bool run(ir::Module* out);

  // ---- used by the per-topic files (memory, builtins, OpenCL.std) ----
  bool fail(const std::string& message);
  bool failed() const { return failed_; }
  std::string describe(const ir::Instruction& inst) const;

  // Input module queries.
  const ir::Instruction* def(uint32_t in_id) const;
  const ir::Instruction* decoration(uint32_t in_id, spv::Decoration d) const;
  uint64_t constant_value(uint32_t in_id, bool* ok) const;  // of an input integer constant
  spv::StorageClass pointer_storage(uint32_t in_pointer_type) const;
  uint32_t pointee(uint32_t in_pointer_type) const;
  static AddressFormat format_of(spv::StorageClass storage);
  TypeLayout& layouts() { return layout_; }

  // Output builders.
  uint32_t type(spv::Op op, std::vector<uint32_t> operands);
  uint32_t t_void() { return type(spv::Op::OpTypeVoid, {}); }
  uint32_t t_bool() { return type(spv::Op::OpTypeBool, {}); }
  uint32_t t_uint(uint32_t width);
  uint32_t t_float(uint32_t width);
  uint32_t t_vec(uint32_t element, uint32_t count);
  uint32_t t_ptr(spv::StorageClass storage, uint32_t pointee);
  uint32_t constant(uint32_t type, std::vector<uint32_t> words);
  uint32_t c_u32(uint32_t v) { return constant(t_uint(32), {v}); }
  uint32_t c_u64(uint64_t v) { return constant(t_uint(64), {uint32_t(v), uint32_t(v >> 32)}); }
  uint32_t c_uint(uint32_t width, uint64_t v);
  uint32_t c_bool(bool v);
  uint32_t c_null(uint32_t type);
  uint32_t emit(spv::Op op, uint32_t result_type, std::vector<uint32_t> operands);
  void emit_void(spv::Op op, std::vector<uint32_t> operands);
  void need_capability(spv::Capability c) { capabilities_.insert(c); }
  void need_extension(const std::string& name) { extensions_.insert(name); }
  uint32_t take_id() { return out_.take_id(); }

  // Value mapping (input id -> output id).
  uint32_t value(uint32_t in_id);
  void bind(uint32_t in_id, uint32_t out_type, uint32_t out_value);
  uint32_t lower_type(uint32_t in_type);
  // Type a value of |in_type| has in memory after lowering (pointers are always 64-bit there).
  uint32_t memory_type(uint32_t in_type);

  // Integer width helpers on output values.
  uint32_t to_width(uint32_t value, uint32_t from_width, uint32_t to_width, bool is_signed);
  uint32_t width_of_int_type(uint32_t out_type) const;

  // Memory access through any address format (lower_memory.cpp).
  // load/store take input types (aggregates are split by their OpenCL layout); load_out and
  // store_out take an output scalar or vector type.
  uint32_t load(AddressFormat f, uint32_t address, uint32_t in_type, uint32_t alignment);
  void store(AddressFormat f, uint32_t address, uint32_t in_type, uint32_t value,
             uint32_t alignment);
  uint32_t load_out(AddressFormat f, uint32_t address, uint32_t out_type, uint32_t alignment);
  void store_out(AddressFormat f, uint32_t address, uint32_t out_type, uint32_t value,
                 uint32_t alignment);
  // |offset| is an output integer value of the format's width (64 or 32 bits).
  uint32_t add_offset(AddressFormat f, uint32_t address, uint32_t offset);
  uint32_t c_offset(AddressFormat f, uint64_t bytes);
  void require_storage_access(uint32_t width);
  static uint32_t address_width(AddressFormat f) {
    return f == AddressFormat::Global64 || f == AddressFormat::Generic64 ? 64 : 32;
  }
  // Describes an output type: component count, component width, whether float.
  struct Shape {
    uint32_t count = 1;
    uint32_t width = 32;
    bool is_float = false;
    bool ok = false;
    bool wide = false;  // an array standing for an 8- or 16-component vector
  };
  Shape shape_of(uint32_t out_type) const;
  uint32_t wide_chunk_type(AddressFormat f, uint32_t in_type);
  Shape compute_shape(uint32_t out_type) const;
  mutable std::unordered_map<uint32_t, Shape> shape_cache_;
  bool lower_access_chain(const ir::Instruction& inst);
  bool lower_load(const ir::Instruction& inst);
  bool lower_store(const ir::Instruction& inst);
  bool lower_atomic(const ir::Instruction& inst);
  // Atomics (lower_atomics.cpp). lower_atomic_instruction takes every atomic opcode.
  bool lower_atomic_instruction(const ir::Instruction& inst);
  bool lower_atomic_flag(const ir::Instruction& inst);
  bool lower_memory_barrier(const ir::Instruction& inst);
  uint32_t atomic_scratch_word();  // the Workgroup u32 fences use where barriers stall
  bool lower_float_atomic(const ir::Instruction& inst);
  // A 32-bit atomic |op| (integer, or OpAtomicF*EXT on the bits of a float) on the half of
  // a wide-arena word at byte |offset32|; |v| and |comparator| are u32 operands (0 where |op|
  // has none), |scope| and |semantics| output constants. Returns the old u32 (0 for a store).
  uint32_t wide_atomic32(spv::Op op, uint32_t offset32, uint32_t scope, uint32_t semantics,
                         uint32_t v, uint32_t comparator);
  uint32_t float_atomic_loop(spv::Op op, AddressFormat af, uint32_t address, uint32_t scope,
                             uint32_t semantics, uint32_t v);
  // An input id no input instruction uses, for instructions made up during lowering.
  uint32_t synthetic_id();
  uint32_t synthetic_ids_ = 0;
  uint32_t atomic_lock_var_ = 0;  // Workgroup u32, zero-initialised (fences)
  std::map<std::vector<uint32_t>, uint32_t> atomic_helpers_;
  bool lower_generic_semantics(const ir::Instruction& inst);
  bool lower_subgroup(const ir::Instruction& inst);
  // OpGroupNonUniform* (cl_khr_subgroup_* extensions; lower_subgroup.cpp).
  bool lower_non_uniform(const ir::Instruction& inst);
  bool lower_clustered_by_shuffles(const ir::Instruction& inst);
  bool lower_rotate(const ir::Instruction& inst);
  bool lower_copy_memory(const ir::Instruction& inst);
  bool lower_pointer_cast(const ir::Instruction& inst);
  uint32_t lower_scope(uint32_t in_scope_id, AddressFormat f);
  uint32_t lower_semantics(uint32_t in_semantics_id, spv::Op op);
  // Scalar/vector access to the word arrays.
  uint32_t load_words(AddressFormat f, uint32_t offset32, uint32_t out_type);
  void store_words(AddressFormat f, uint32_t offset32, uint32_t out_type, uint32_t value);
  uint32_t word_pointer_at(AddressFormat f, uint32_t index, uint32_t words = 0);
  uint32_t load_word_at(AddressFormat f, uint32_t index, uint32_t words = 0);
  uint32_t load_whole_words(AddressFormat f, uint32_t index, uint32_t width);
  // The pushed arguments are 64-bit words: a 32-bit word of them, and 8-byte-aligned 64-bit
  // scalars and vectors at byte offset |offset32| as whole words.
  uint32_t push_u64_at(uint32_t index64);
  uint32_t push_word_at(uint32_t index);
  uint32_t load_push64(uint32_t offset32, uint32_t out_type);
  void store_whole_words(AddressFormat f, uint32_t index, uint32_t width, uint32_t bits);
  uint32_t word_pointer(AddressFormat f, uint32_t offset32);
  // The wide arena (wide_arena.cpp): the u64 word holding byte |offset32|, the bit position
  // of that byte in it, and loads and stores of 8- to 64-bit integers there.
  uint32_t wide_word_pointer(uint32_t offset32);
  // The byte arena (wide_arena.cpp): the byte at |offset32|, and values assembled from bytes.
  uint32_t byte_pointer(uint32_t offset32);
  uint32_t load_bytes(uint32_t offset32, uint32_t type);
  void store_bytes(uint32_t offset32, uint32_t type, uint32_t v);
  uint32_t wide_shift(uint32_t offset32);
  uint32_t wide_load(uint32_t offset32, uint32_t width);
  void wide_store(uint32_t offset32, uint32_t width, uint32_t bits);
  // The quad arena (wide_arena.cpp): 8- and 16-byte vectors through the 16-byte element
  // holding them; 0 / false where |type| and |alignment| do not allow that.
  uint32_t quad_pointer(uint32_t offset32);
  uint32_t load_quad(uint32_t offset32, uint32_t type, uint32_t alignment);
  bool store_quad(uint32_t offset32, uint32_t type, uint32_t v, uint32_t alignment);
  uint32_t load_words_unaligned(AddressFormat f, uint32_t offset32, uint32_t out_type,
                                uint32_t alignment);
  // __constant arguments read as uniform buffers (constant_buffers.h): the argument an input
  // pointer points into (UINT32_MAX: none known), and a load of |out_type| at device address
  // |address| in it: the uniform buffer's value where the launch binds one, else |global|.
  uint32_t constant_argument_of(uint32_t in_pointer) const;
  uint32_t read_constant_buffer(uint32_t address, uint32_t out_type, uint32_t alignment, uint32_t global);
  void store_words_unaligned(AddressFormat f, uint32_t offset32, uint32_t out_type,
                             uint32_t value, uint32_t alignment);
  uint32_t arg_block_address();
  // The address the frontend writes at |slot| of the argument block (kProgramDataSlot and the
  // others): from push constants where the pushed window reaches it, else from memory.
  uint32_t argument_slot(uint32_t slot);
  // A DispatchBlock word (after the argument block address), folded by the driver where the
  // pipeline's specialization gives its value.
  uint32_t push_word(uint32_t index);

  // Built-in variables (lower_builtins.cpp).
  bool is_builtin_variable(uint32_t in_id) const;
  bool lower_builtin_load(const ir::Instruction& inst, uint32_t variable, int component);
  uint32_t vulkan_builtin(spv::BuiltIn b, uint32_t out_type);
  uint32_t workgroup_size();
  // Work-groups packed into Vulkan workgroups (work_group_packing.h): in a module with a
  // packable kernel, OpenCL's group id, local id and work-group size along x follow
  // kSpecPackedGroups (1 unless set). |c| is the dimension.
  bool packs_groups() const { return !ctx_.packable.empty(); }
  uint32_t packed_groups();
  uint32_t unpacked();
  uint32_t group_in_region(uint32_t c);
  uint32_t opencl_group_id(uint32_t c);
  uint32_t opencl_local_id(uint32_t c);
  uint32_t opencl_local_size(uint32_t c);
  // Whether this Vulkan invocation runs an OpenCL work-group of the region (places past the
  // region's last group in the last Vulkan workgroup do not).
  uint32_t runs_a_group();

  // 8- and 16-component vectors (lower_wide_vectors.cpp).
  bool is_wide(uint32_t in_type) const;
  bool needs_wide_lowering(const ir::Instruction& i) const;
  uint32_t wide_count(uint32_t in_type) const;
  uint32_t component(uint32_t in_id, uint32_t k);
  bool lower_wide(const ir::Instruction& i);

  // convert_<type>[_sat][_<rounding>] and regrouping bit casts (lower_conversions.cpp).
  bool lower_conversion(const ir::Instruction& inst);
  bool lower_wide_bitcast(const ir::Instruction& inst);

  // OpenCL.std (lower_opencl_std.cpp).
  bool lower_opencl_std(const ir::Instruction& inst);
  bool lower_kernel_only_op(const ir::Instruction& inst);
  // vload_half/vstore_half families (lower_half.cpp).
  bool lower_half_memory(const ir::Instruction& inst);
  uint32_t fma_through_double(uint32_t a, uint32_t b, uint32_t c, uint32_t result_type,
                              uint32_t count);
  uint32_t half_to_float(uint32_t bits32);
  // |h| (half or half vector) widened to |result_type| (float or double of as many
  // components): OpFConvert, or from the bits where caps.widen_half_from_bits or |from_bits|
  // says so.
  uint32_t widen_half(uint32_t h, uint32_t result_type, bool from_bits = false);
  uint32_t float_to_half(uint32_t value, uint32_t rounding_mode, uint32_t width = 32);

  // Work-group functions and async copies (lower_group.cpp).
  bool lower_group(const ir::Instruction& inst);
  uint32_t subgroup_op(spv::Op op, uint32_t result_type, std::vector<uint32_t> operands,
                       size_t value_at, uint32_t in_value);
  bool lower_async_copy(const ir::Instruction& inst);
  uint32_t lower_broadcast(const ir::Instruction& inst, uint32_t out_type);
  bool check_workgroup_scope(const ir::Instruction& inst);
  // Checked mode (checked_memory.cpp): |address| of format |f|, or a sink where the
  // |bytes| (an output u32) from it lie outside what the launch may reach.
  // |in_pointer|, the input pointer it comes from where there is one, names the argument.
  uint32_t checked(AddressFormat f, uint32_t address, uint32_t bytes, const std::string& what,
                   uint32_t in_pointer = 0);
  uint32_t pointer_argument(uint32_t in_pointer);
  uint32_t stored_once(uint32_t variable);
  bool internal_pointer(uint32_t in_pointer) const;
  uint32_t check_bytes(uint32_t bytes64);
  uint32_t local_linear_id();
  uint32_t workgroup_invocations();
  void workgroup_barrier(bool global_memory);
  uint32_t group_slot(uint32_t index);
  // Appends block |label| to |f| and makes it the one emitted into.
  void start_block(ir::Function& f, uint32_t label) {
    f.blocks.push_back(ir::Block{label, {}});
    block_ = &f.blocks.back().instructions;
  }
  void start_helper(ir::Function& f, uint32_t return_type,
                    const std::vector<uint32_t>& param_types, std::vector<uint32_t>& params);
  uint32_t async_copy_helper(AddressFormat fd, AddressFormat fs, uint32_t size, uint32_t chunk);
  uint32_t scan_helper(uint32_t combine, uint32_t out_type, spv::GroupOperation operation);
  uint32_t group_identity(uint32_t combine, uint32_t out_type, const Shape& s);
  // Helper functions by kind. Keys of helpers that touch local memory include arena_kind().
  std::map<std::vector<uint32_t>, uint32_t> group_helpers_;

  uint32_t group_scratch_offset_ = 0;  // local_region() of the work-group scratch slots, or 0

  // Memory copies too large to unroll, or of a size known only at run time (lower_copy.cpp).
  bool lower_copy_loop(const ir::Instruction& inst);
  uint32_t copy_helper(AddressFormat fd, AddressFormat fs, bool words);
  std::map<std::vector<uint32_t>, uint32_t> copy_helpers_;

 private:
  bool index_input();
  bool lower_globals();
  bool lower_function(const ir::Function& f);
  bool lower_instruction(const ir::Instruction& inst);
  bool copy_instruction(const ir::Instruction& inst);
  uint32_t copy_logical(uint32_t value, uint32_t from_type, uint32_t to_type);
  uint32_t divide(uint32_t x, uint32_t y, uint32_t result_type);
  uint32_t mad(uint32_t a, uint32_t b, uint32_t c, uint32_t result_type, uint32_t width);
  uint32_t signed_remainder(spv::Op op, uint32_t a, uint32_t b, uint32_t result_type);
  uint32_t count_bits(uint32_t value, uint32_t scalar_type);
  // Bit-field instructions and integer dot products (lower_integer_ext.cpp).
  bool lower_integer_ext(const ir::Instruction& inst);
  uint32_t bit_field(spv::Op op, uint32_t type, const std::vector<uint32_t>& operands);
  uint32_t splat32(uint32_t v, uint32_t count);
  bool classify_variables(const ir::Function& f);
  bool build_entry_point(const ir::Instruction& entry);
  // Whether lowered function |fn| or one it calls has a loop (an OpLoopMerge: the output is
  // structured).
  bool loops_reachable(uint32_t fn) const;
  // Appends to the entry point |main| (whose last block is open) the probe that finds out
  // whether the driver cut the kernel's loops short (TargetCaps::loop_iteration_limit) and
  // then sets the u32 whose address the argument block at |args| holds at byte |slot|.
  void emit_loop_limit_probe(ir::Function& main, uint32_t args, uint32_t slot);
  // The probe's loop at the end of |f| (block_ left in the block after it): whether it was cut.
  uint32_t emit_probe_loop(ir::Function& f);
  uint32_t probe_helper();
  uint32_t probe_helper_ = 0;
  // Private bool: the probe run where this work-item stopped found its loops cut.
  uint32_t cut_before_stop_var();
  uint32_t cut_before_stop_var_ = 0;
  void emit_local_zeroing(ir::Function& main, uint32_t kernel);  // |kernel|: input function id
  // The local arena kernel |kernel| (input function id) uses: its variable, element type and
  // length (wide_arena.cpp).
  struct Arena {
    uint32_t variable, element, length;
  };
  Arena arena_of(uint32_t kernel);
  void finish_module();

  const ir::Module& in_;
  PassContext& ctx_;
  ir::Module out_;
  bool failed_ = false;
  TypeLayout layout_{*this};
  friend class TypeLayout;

  std::unordered_map<uint32_t, const ir::Instruction*> defs_;
  std::unordered_map<uint32_t, std::vector<const ir::Instruction*>> decorations_;
  std::unordered_map<uint32_t, std::string> names_;
  uint32_t opencl_std_ = 0;

  std::map<std::vector<uint32_t>, uint32_t> type_cache_;
  std::map<std::vector<uint32_t>, uint32_t> constant_cache_;
  std::unordered_map<uint32_t, uint32_t> map_;
  std::unordered_map<uint32_t, uint32_t> type_map_;
  std::set<spv::Capability> capabilities_;
  std::set<std::string> extensions_;
  std::vector<ir::Instruction> annotations_;
  std::vector<uint32_t> interface_;  // global variables every entry point lists
  std::vector<ir::Instruction> ep_instructions_;
  uint32_t glsl_ = 0;

 public:
  uint32_t glsl_import();
  void decorate(uint32_t target, spv::Decoration d, std::vector<uint32_t> extra = {});

 public:
  // Function-scope state.
  std::vector<ir::Instruction>* block_ = nullptr;  // output instructions of the current block
  std::vector<ir::Instruction> variables_;         // OpVariables of the current function
  std::unordered_set<uint32_t> logical_vars_;      // input Function variables kept as variables
  std::unordered_map<uint32_t, std::pair<uint32_t, int>> builtin_pointers_;  // ptr -> (var, comp)
  // Input ids of loaded built-in vectors -> the value a dimension >= 3 reads (0 or 1).
  std::unordered_map<uint32_t, uint64_t> builtin_vector_default_;
  bool contraction_off_ = false;

  // Module-scope memory.
  uint32_t local_memory_var_ = 0;    // Workgroup u32[spec] word array
  uint32_t local_wide_var_ = 0;      // Workgroup u64[(spec + 1) / 2], the wide arena
  uint32_t local_wide_words_ = 0;    // its length, (spec + 1) / 2
  std::unordered_set<uint32_t> wide_functions_;  // input functions lowered with the wide arena
  bool wide_arena_ = false;          // the function being lowered uses the wide arena
  uint32_t local_byte_var_ = 0;      // Workgroup u8[spec * 4], the byte arena
  uint32_t local_bytes_ = 0;         // its length, spec * 4
  std::unordered_set<uint32_t> byte_functions_;  // input functions lowered with the byte arena
  bool byte_arena_ = false;          // the function being lowered uses the byte arena
  uint32_t local_quad_var_ = 0;      // Workgroup uvec4[spec / 4], the quad arena
  uint32_t local_quads_ = 0;         // its length, spec / 4
  std::unordered_set<uint32_t> quad_functions_;  // input functions lowered with the quad arena
  bool quad_arena_ = false;          // the function being lowered uses the quad arena
  // Which arena the function being lowered uses, for the keys of helpers.
  uint32_t arena_kind() const { return uint32_t(wide_arena_) | uint32_t(byte_arena_) << 1 | uint32_t(quad_arena_) << 2; }
  // Private memory: u32 word arrays, the arenas of private_arenas.h. Arena 0's first 64
  // bytes are scratch for generic accesses; the others leave offset 0 to null pointers.
  struct PrivateArena {
    uint32_t variable, length, array_type, pointer_type;  // ids taken up front
    uint32_t bytes;            // laid out so far
    uint32_t check_limit = 0;  // checked mode: the constant where the sink starts
  };
  PrivateArenas private_arenas_;
  std::vector<PrivateArena> private_memory_;
  uint32_t private_arena_ = 0;  // the arena the instruction being lowered reaches
  // Lays out |size| bytes aligned to |alignment| in the arena of the instruction being
  // lowered; returns their offset.
  uint32_t place_private(uint32_t size, uint32_t alignment);
  static constexpr uint32_t kLocalScratch = 64;
  uint32_t static_local_bytes_ = 0;  // kLocalScratch where needed (index_input)
  // A region of |size| bytes of local memory: the output u32 holding its byte offset, which
  // translate() fixes per kernel (PassContext::local_regions).
  uint32_t local_region(uint32_t size, uint32_t alignment);
  std::vector<PassContext::LocalRegion> local_regions_;
  uint32_t push_var_ = 0;
  // __constant arguments as uniform buffers: input pointer -> argument index (or
  // kProgramConstantsBinding); per argument its uniform buffer, the Private u64 where the
  // kernel's wrapper keeps the argument's address (what offsets into the buffer count from;
  // the program's data address for kProgramConstantsBinding) and its kSpecConstantBuffer bool.
  std::unordered_map<uint32_t, uint32_t> constant_pointers_;
  struct ConstantBuffer {
    uint32_t variable, base, bound;
  };
  std::map<uint32_t, ConstantBuffer> constant_buffers_;
  const ConstantBuffer& constant_buffer(uint32_t argument);
  uint32_t constant_argument_ = UINT32_MAX;  // of the load being lowered
  uint32_t program_data_base_ = 0;  // the function's program data address (its first block)
  uint32_t push_argument_words_ = 0;  // argument block words the push constants carry too
  std::unordered_map<uint32_t, uint32_t> builtin_vars_;  // spv::BuiltIn -> output Input variable
  uint32_t workgroup_size_ = 0;
  uint32_t packed_groups_ = 0;  // spec constant kSpecPackedGroups
  uint32_t launch_facts_[3] = {};  // kSpecNoGlobalOffset, kSpecWholeGroups, kSpecRegionAtOrigin
  uint32_t private_words_constant_ = 0;  // patched at the end
  std::vector<KernelInterface> kernels_;
  // Bytes [0, kArgumentScratchBytes) of every argument block are scratch for generic accesses.
  static constexpr uint32_t kArgumentScratchBytes = 64;
  // Bytes [64, 72) hold the program data address when the module has program-scope variables.
  static constexpr uint32_t kProgramDataSlot = 64;
  // Bytes [72, 80) hold the printf buffer address when the module calls printf.
  static constexpr uint32_t kPrintfSlot = 72;
  bool uses_printf_ = false;
  // Bytes [80, 112) hold the resume areas' addresses (items, groups, indirect arguments,
  // counters) in
  // kernels that resume (resumable_loops.h); lower_resume.cpp expands the kResumeSet
  // instructions that reach them.
  static constexpr uint32_t kResumeSlot = 80;
  uint32_t resume_set_ = 0;
  uint32_t local_words_ = 0;    // the spec constant sizing local memory
  uint32_t stopped_var_ = 0;    // Private bool: this work-item stopped to resume later
  uint32_t first_round_ = 0;    // spec constant kSpecFirstRound, where a kernel resumes
  uint32_t zero_local_ = 0;     // spec constant kSpecZeroLocalMemory
  // Checked mode: bytes [112, 120) of the argument block hold the check table's address.
  static constexpr uint32_t kCheckSlot = 112;
  uint32_t check_table();
  void emit_check_report(ir::Function& f, uint32_t table, uint32_t code, uint32_t where, uint32_t bytes);
  uint32_t check_table_helper(bool local);
  uint32_t check_private_helper();
  uint32_t local_check_limit();
  uint32_t private_check_limit();
  uint32_t check_global_helper_ = 0, check_local_helper_ = 0, check_private_helper_ = 0;
  std::vector<std::string> check_sites_;
  std::vector<uint32_t> check_site_arguments_;
  uint32_t stores_function_ = 0;  // stored_once()'s cache: of which function
  std::unordered_map<uint32_t, uint32_t> single_stores_;
  uint32_t lowering_function_ = 0;  // input id of the function being lowered
  uint32_t budget_var_ = 0;     // Private u32: its count of loop iterations
  uint32_t budget_var();
  std::map<std::vector<uint32_t>, uint32_t> resume_helpers_;
  bool lower_resume(const ir::Instruction& inst);
  uint32_t resume_local_copy_helper(bool save);
  std::vector<PrintfCall> printf_calls_;
  bool lower_printf(const ir::Instruction& inst);
  bool constant_string(uint32_t in_pointer, std::string* text) const;
  std::vector<uint8_t> program_data_;
  std::vector<std::pair<uint32_t, uint32_t>> program_variables_;  // (input id, data offset)
  std::vector<uint32_t> program_relocations_;  // see PassContext
  std::unordered_set<uint32_t> address_constants_;  // composites of addresses, not lowered
  uint32_t global_variable_size_ = 0;
  bool constant_address(uint32_t in_constant, uint64_t* offset);
  bool write_constant(uint32_t in_constant, uint32_t in_type, size_t offset);

  // Images and samplers (lower_image.cpp). An image argument of a kernel (its entry
  // function's parameter) and the descriptor it becomes; image parameters of the functions it
  // calls map to it.
  struct ImageRoot {
    uint32_t entry_function = 0, parameter = 0, in_type = 0;
    ImageDim dim = ImageDim::k2D;
    ImageAccess access = ImageAccess::ReadOnly;
    ImageTexel texel = ImageTexel::Float;
    bool texel_used = false;  // read or written, not only queried
    uint32_t image_type = 0, variable = 0;  // output OpTypeImage and UniformConstant variable
    uint32_t words_offset = 0;  // output u32: argument block offset of its words
  };
  std::vector<ImageRoot> image_roots_;
  std::unordered_map<uint32_t, uint32_t> image_root_of_;  // input image value -> root index
  // Input OpSampledImage results -> (input image, input sampler).
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> sampled_images_;
  // Functions with image parameters no kernel passes an image to (an exported helper clang
  // also inlined): no kernel calls them, and they are not lowered.
  std::unordered_set<uint32_t> unused_image_functions_;
  bool is_image_type(uint32_t in_type) const;
  bool analyze_images();
  uint32_t sampler_constant(const ir::Instruction& constant_sampler);
  // build_entry_point: the image argument |parameter| of |entry_function| has its words at
  // |offset|; fills |arg|'s image fields.
  void place_image_words(uint32_t entry_function, uint32_t parameter, uint32_t offset, KernelArg* arg);
  std::vector<uint32_t> image_variables(uint32_t entry_function) const;
  const ImageRoot* image_root(uint32_t in_image);
  bool lower_image(const ir::Instruction& inst);
  bool lower_image_sample(const ir::Instruction& inst);
  bool lower_image_call(const ir::Instruction& inst);
  // Whether |inst| only keeps or passes on an image (a Function variable of one, its loads
  // and stores at -O0): nothing in the output, analyze_images followed the image through it.
  bool moves_image(const ir::Instruction& inst) const;
  uint32_t image_word(const ImageRoot& r, uint32_t k);
  uint32_t image_size(const ImageRoot& r, uint32_t image = 0);
  uint32_t snap_packed(const ImageRoot& r, uint32_t texel);
  uint32_t image_fetch(const ImageRoot& r, uint32_t image, uint32_t coordinate);
  uint32_t leading_components(uint32_t v, uint32_t in_type, uint32_t count, uint32_t scalar);
  uint32_t texel_result(uint32_t texel, uint32_t in_result_type);
};

}  // namespace vkcl::k2s
