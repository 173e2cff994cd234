// Work-group functions (OpenCL C 6.15.16: all, any, broadcast, reduce and scans) and async
// copies (6.15.11) at Workgroup scope. Every work-item of the work-group reaches them with the
// same arguments, so they are built from barriers plus a scratch region of local memory with
// one 8-byte slot per work-item. Code that needs a loop goes into a helper function: an input
// instruction is lowered inside one output block, and splitting that block would break the
// OpPhi instructions that name it as a predecessor and the loop headers the structurizer made.
#include <spirv/unified1/GLSL.std.450.h>

#include <functional>

#include "passes/lower_to_shader.h"

namespace vkcl::k2s {

using spv::Op;

namespace {
constexpr uint32_t kSlotBytes = 8;
constexpr uint32_t kAcquireRelease = 0x8, kUniformMemory = 0x40, kWorkgroupMemory = 0x100;
// Helper-function cache keys start with one of these.
enum HelperKind : uint32_t { kAsyncCopy = 1, kScan = 2 };
// Collective operations, independent of the opcode that asked for them.
// cl_khr_work_group_uniform_arithmetic (SPV_KHR_uniform_group_instructions) adds the
// multiplications and the bitwise ones; its logical operations run on 0/1 words as
// UMin (and), UMax (or) and Xor.
enum class Combine : uint32_t { IAdd, FAdd, SMin, UMin, FMin, SMax, UMax, FMax, IMul, FMul, And, Or, Xor };

}  // namespace

void emit_loop(Lowering& L, ir::Function& f, uint32_t type, uint32_t start, uint32_t end,
               const std::function<uint32_t(uint32_t)>& step,
               const std::function<void(uint32_t)>& body) {
  uint32_t before = f.blocks.back().label;
  uint32_t header = L.take_id(), inner = L.take_id(), next = L.take_id(), merge = L.take_id();
  uint32_t counter = L.take_id();
  L.emit_void(Op::OpBranch, {header});
  L.start_block(f, header);
  size_t header_index = f.blocks.size() - 1;
  L.block_->emplace_back(Op::OpPhi, type, counter,
                         std::vector<uint32_t>{start, before, 0, next});
  uint32_t go = L.emit(Op::OpULessThan, L.t_bool(), {counter, end});
  L.emit_void(Op::OpLoopMerge, {merge, next, 0});
  L.emit_void(Op::OpBranchConditional, {go, inner, merge});
  L.start_block(f, inner);
  body(counter);
  L.emit_void(Op::OpBranch, {next});
  L.start_block(f, next);
  uint32_t stepped = step(counter);
  L.emit_void(Op::OpBranch, {header});
  f.blocks[header_index].instructions[0].operands[2] = stepped;
  L.start_block(f, merge);
}

uint32_t Lowering::local_linear_id() {
  return vulkan_builtin(spv::BuiltIn::LocalInvocationIndex, t_uint(32));
}

// The size of this work-group (the specialization constants hold the size of the region
// being dispatched, so the last, smaller work-group of a non-uniform NDRange sees its own).
uint32_t Lowering::workgroup_invocations() {
  uint32_t u32 = t_uint(32);
  uint32_t size = workgroup_size();
  uint32_t x = emit(Op::OpCompositeExtract, u32, {size, 0});
  uint32_t y = emit(Op::OpCompositeExtract, u32, {size, 1});
  uint32_t z = emit(Op::OpCompositeExtract, u32, {size, 2});
  return emit(Op::OpIMul, u32, {emit(Op::OpIMul, u32, {x, y}), z});
}

void Lowering::workgroup_barrier(bool global_memory) {
  uint32_t scope = c_u32(uint32_t(spv::Scope::Workgroup));
  uint32_t semantics = kAcquireRelease | kWorkgroupMemory | (global_memory ? kUniformMemory : 0);
  emit_void(Op::OpControlBarrier, {scope, scope, c_u32(semantics)});
}

// Byte offset in local memory of the scratch slot of work-item |index| (an output u32).
// The slots are a local memory region of their own, so only kernels that reach a work-group
// function give memory to them (PassContext::local_regions).
uint32_t Lowering::group_slot(uint32_t index) {
  if (!group_scratch_offset_)
    group_scratch_offset_ = local_region(ctx_.caps.max_work_group_size * kSlotBytes, kSlotBytes);
  uint32_t bytes = emit(Op::OpIMul, t_uint(32), {index, c_u32(kSlotBytes)});
  return emit(Op::OpIAdd, t_uint(32), {bytes, group_scratch_offset_});
}

// Starts output function |f| returning |return_type|; the ids of its parameters of types
// |param_types| go to |params|, and the current block becomes its entry block.
void Lowering::start_helper(ir::Function& f, uint32_t return_type,
                            const std::vector<uint32_t>& param_types,
                            std::vector<uint32_t>& params) {
  std::vector<uint32_t> signature = {return_type};
  signature.insert(signature.end(), param_types.begin(), param_types.end());
  uint32_t fn_type = type(Op::OpTypeFunction, signature);
  f.definition = ir::Instruction(Op::OpFunction, return_type, take_id(), {0, fn_type});
  for (uint32_t t : param_types) {
    params.push_back(take_id());
    f.parameters.emplace_back(Op::OpFunctionParameter, t, params.back());
  }
  f.blocks.push_back(ir::Block{take_id(), {}});
  block_ = &f.blocks.back().instructions;
}

bool Lowering::check_workgroup_scope(const ir::Instruction& i) {
  bool ok = false;
  uint64_t scope = constant_value(i.operands[0], &ok);
  if (!ok || spv::Scope(scope) != spv::Scope::Workgroup)
    return fail("group operation at a scope other than Workgroup: " + describe(i));
  return true;
}

// ---------------------------------------------------------------- async copies

// OpGroupAsyncCopy: the work-items share the elements out, element e going to work-item
// e mod (work-group size), and copy them at once; the returned event only has to reach
// OpGroupWaitEvents, which is the barrier that makes the copy visible.
bool Lowering::lower_async_copy(const ir::Instruction& i) {
  if (!check_workgroup_scope(i)) return false;
  const ir::Instruction* dst = def(i.operands[1]);
  const ir::Instruction* src = def(i.operands[2]);
  if (!dst || !src) return fail("async copy between unknown pointers: " + describe(i));
  AddressFormat fd = format_of(pointer_storage(dst->type_id));
  AddressFormat fs = format_of(pointer_storage(src->type_id));
  bool to_local = fd == AddressFormat::Local32 && fs == AddressFormat::Global64;
  bool to_global = fd == AddressFormat::Global64 && fs == AddressFormat::Local32 &&
                   pointer_storage(dst->type_id) == spv::StorageClass::CrossWorkgroup;
  if (!to_local && !to_global)
    return fail("async copy must go between __global and __local memory: " + describe(i));
  // "async_work_group_copy and async_work_group_strided_copy for 3-component vector types
  // behave as async_work_group_copy and async_work_group_strided_copy respectively for
  // 4-component vector types" (OpenCL C 6.15.11, note): an element is its padded size.
  const Layout& l = layouts().of(pointee(dst->type_id));
  if (l.size == 0) return fail("async copy of an element type without a size: " + describe(i));
  uint32_t chunk = 1;
  for (uint32_t c : {8u, 4u})
    if (l.size % c == 0 && l.alignment >= c) { chunk = c; break; }
  if (chunk == 1) require_storage_access(8);
  if (failed_) return false;

  uint32_t u64 = t_uint(64);
  auto as_u64 = [&](uint32_t in_id) {
    const ir::Instruction* d = def(in_id);
    uint32_t w = d ? width_of_int_type(lower_type(d->type_id)) : 64;
    return to_width(value(in_id), w, 64, false);
  };
  uint32_t count = as_u64(i.operands[3]);
  uint32_t stride = as_u64(i.operands[4]);
  uint32_t helper = async_copy_helper(fd, fs, l.size, chunk);
  emit(Op::OpFunctionCall, t_void(), {helper, value(i.operands[1]), value(i.operands[2]), count, stride});
  // "If event argument is non-zero, the event object supplied in event argument will be
  // returned."
  bind(i.result_id, u64, value(i.operands[5]));
  return !failed_;
}

// void copy(dst, src, u64 count, u64 stride): element e of the local side at e * |size|, of
// the global side at e * stride * |size|.
uint32_t Lowering::async_copy_helper(AddressFormat fd, AddressFormat fs, uint32_t size,
                                     uint32_t chunk) {
  std::vector<uint32_t> key = {kAsyncCopy, uint32_t(fd), uint32_t(fs), size, chunk, arena_kind()};
  auto cached = group_helpers_.find(key);
  if (cached != group_helpers_.end()) return cached->second;

  auto* caller_block = block_;
  uint32_t u32 = t_uint(32), u64 = t_uint(64);
  ir::Function f;
  std::vector<uint32_t> p;
  start_helper(f, t_void(), {t_uint(address_width(fd)), t_uint(address_width(fs)), u64, u64}, p);
  uint32_t lid = emit(Op::OpUConvert, u64, {local_linear_id()});
  uint32_t n = emit(Op::OpUConvert, u64, {workgroup_invocations()});
  uint32_t unit = t_uint(chunk * 8);
  auto address = [&](AddressFormat af, uint32_t base, uint32_t element, bool strided) {
    uint32_t e = strided ? emit(Op::OpIMul, u64, {element, p[3]}) : element;
    uint32_t bytes = emit(Op::OpIMul, u64, {e, c_u64(size)});
    if (af == AddressFormat::Local32) bytes = emit(Op::OpUConvert, u32, {bytes});
    return add_offset(af, base, bytes);
  };
  emit_loop(*this, f, u64, lid, p[2],
            [&](uint32_t e) { return emit(Op::OpIAdd, u64, {e, n}); },
            [&](uint32_t e) {
              uint32_t from = checked(fs, address(fs, p[1], e, fs == AddressFormat::Global64),
                                      c_u32(size), "async copy from");
              uint32_t to = checked(fd, address(fd, p[0], e, fd == AddressFormat::Global64),
                                    c_u32(size), "async copy to");
              for (uint32_t at = 0; at < size; at += chunk) {
                uint32_t s = at ? add_offset(fs, from, c_offset(fs, at)) : from;
                uint32_t d = at ? add_offset(fd, to, c_offset(fd, at)) : to;
                store_out(fd, d, unit, load_out(fs, s, unit, chunk), chunk);
              }
            });
  emit_void(Op::OpReturn, {});
  out_.functions.push_back(std::move(f));
  block_ = caller_block;
  return group_helpers_[key] = out_.functions.back().id();
}

// ---------------------------------------------------------------- collectives

namespace {
bool combine_of(Op op, Combine* c) {
  switch (op) {
    case Op::OpGroupIAdd: *c = Combine::IAdd; return true;
    case Op::OpGroupFAdd: *c = Combine::FAdd; return true;
    case Op::OpGroupSMin: *c = Combine::SMin; return true;
    case Op::OpGroupUMin: *c = Combine::UMin; return true;
    case Op::OpGroupFMin: *c = Combine::FMin; return true;
    case Op::OpGroupSMax: *c = Combine::SMax; return true;
    case Op::OpGroupUMax: *c = Combine::UMax; return true;
    case Op::OpGroupFMax: *c = Combine::FMax; return true;
    case Op::OpGroupIMulKHR: *c = Combine::IMul; return true;
    case Op::OpGroupFMulKHR: *c = Combine::FMul; return true;
    case Op::OpGroupBitwiseAndKHR: *c = Combine::And; return true;
    case Op::OpGroupBitwiseOrKHR: *c = Combine::Or; return true;
    case Op::OpGroupBitwiseXorKHR: *c = Combine::Xor; return true;
    case Op::OpGroupLogicalAndKHR: *c = Combine::UMin; return true;
    case Op::OpGroupLogicalOrKHR: *c = Combine::UMax; return true;
    case Op::OpGroupLogicalXorKHR: *c = Combine::Xor; return true;
    default: return false;
  }
}
}  // namespace

// The identity of |c| on values of output type |t| with shape |s| (the value an exclusive
// scan gives the first work-item): "If op = add, the identity I is 0. If op = min, the
// identity I is INT_MAX, UINT_MAX, LONG_MAX, ULONG_MAX, for int, uint, long, ulong types and
// is +INF for floating-point types. Similarly if op = max, the identity I is INT_MIN, 0,
// LONG_MIN, 0 and -INF." (OpenCL C 6.15.16)
uint32_t Lowering::group_identity(uint32_t c, uint32_t t, const Shape& s) {
  uint64_t bits = 0;
  uint64_t all = s.width == 64 ? ~0ull : (1ull << s.width) - 1;
  uint64_t sign = 1ull << (s.width - 1);
  uint64_t infinity = s.width == 64 ? 0x7ff0000000000000ull
                      : s.width == 32 ? 0x7f800000ull : 0x7c00ull;
  uint64_t one = !s.is_float ? 1 : s.width == 64 ? 0x3ff0000000000000ull
                              : s.width == 32 ? 0x3f800000ull : 0x3c00ull;
  switch (Combine(c)) {
    case Combine::IAdd: case Combine::FAdd: case Combine::UMax: bits = 0; break;
    case Combine::Or: case Combine::Xor: bits = 0; break;
    case Combine::IMul: case Combine::FMul: bits = one; break;
    case Combine::And: bits = all; break;
    case Combine::SMin: bits = all >> 1; break;
    case Combine::UMin: bits = all; break;
    case Combine::FMin: bits = infinity; break;
    case Combine::SMax: bits = sign; break;
    case Combine::FMax: bits = infinity | sign; break;
  }
  if (s.width == 64) return constant(t, {uint32_t(bits), uint32_t(bits >> 32)});
  return constant(t, {uint32_t(bits)});
}

// T scan(T x) for one combine operation and GroupOperation: every work-item puts its value
// in its slot, then log2(n) rounds of Hillis-Steele steps turn the slots into the inclusive
// scan, from which the reduction (last slot) and the exclusive scan (previous slot) follow.
uint32_t Lowering::scan_helper(uint32_t c, uint32_t t, spv::GroupOperation operation) {
  std::vector<uint32_t> key = {kScan, c, t, uint32_t(operation), arena_kind()};
  auto cached = group_helpers_.find(key);
  if (cached != group_helpers_.end()) return cached->second;

  auto* caller_block = block_;
  Shape s = shape_of(t);
  uint32_t u32 = t_uint(32);
  ir::Function f;
  std::vector<uint32_t> p;
  start_helper(f, t, {t}, p);
  uint32_t lid = local_linear_id();
  uint32_t n = workgroup_invocations();
  uint32_t mine = group_slot(lid);
  store_words(AddressFormat::Local32, mine, t, p[0]);
  workgroup_barrier(false);
  auto combine = [&](uint32_t a, uint32_t b) -> uint32_t {
    auto glsl = [&](GLSLstd450 op) { return emit(Op::OpExtInst, t, {glsl_import(), uint32_t(op), a, b}); };
    switch (Combine(c)) {
      case Combine::IAdd: return emit(Op::OpIAdd, t, {a, b});
      case Combine::FAdd: return emit(Op::OpFAdd, t, {a, b});
      case Combine::SMin: return glsl(GLSLstd450SMin);
      case Combine::UMin: return glsl(GLSLstd450UMin);
      case Combine::FMin: return glsl(GLSLstd450NMin);
      case Combine::SMax: return glsl(GLSLstd450SMax);
      case Combine::UMax: return glsl(GLSLstd450UMax);
      case Combine::FMax: return glsl(GLSLstd450NMax);
      case Combine::IMul: return emit(Op::OpIMul, t, {a, b});
      case Combine::FMul: return emit(Op::OpFMul, t, {a, b});
      case Combine::And: return emit(Op::OpBitwiseAnd, t, {a, b});
      case Combine::Or: return emit(Op::OpBitwiseOr, t, {a, b});
      case Combine::Xor: return emit(Op::OpBitwiseXor, t, {a, b});
    }
    return 0;
  };
  emit_loop(*this, f, u32, c_u32(1), n,
            [&](uint32_t d) { return emit(Op::OpShiftLeftLogical, u32, {d, c_u32(1)}); },
            [&](uint32_t d) {
              uint32_t v = load_words(AddressFormat::Local32, mine, t);
              uint32_t has = emit(Op::OpUGreaterThanEqual, t_bool(), {lid, d});
              uint32_t back = emit(Op::OpISub, u32, {lid, d});
              uint32_t other = emit(Op::OpSelect, u32, {has, back, lid});
              uint32_t o = load_words(AddressFormat::Local32, group_slot(other), t);
              uint32_t w = emit(Op::OpSelect, t, {has, combine(o, v), v});
              workgroup_barrier(false);
              store_words(AddressFormat::Local32, mine, t, w);
              workgroup_barrier(false);
            });
  uint32_t result = 0;
  switch (operation) {
    case spv::GroupOperation::Reduce: {
      uint32_t last = emit(Op::OpISub, u32, {n, c_u32(1)});
      result = load_words(AddressFormat::Local32, group_slot(last), t);
      break;
    }
    case spv::GroupOperation::InclusiveScan:
      result = load_words(AddressFormat::Local32, mine, t);
      break;
    default: {  // ExclusiveScan
      uint32_t first = emit(Op::OpIEqual, t_bool(), {lid, c_u32(0)});
      uint32_t back = emit(Op::OpISub, u32, {lid, c_u32(1)});
      uint32_t previous = emit(Op::OpSelect, u32, {first, c_u32(0), back});
      uint32_t v = load_words(AddressFormat::Local32, group_slot(previous), t);
      result = emit(Op::OpSelect, t, {first, group_identity(c, t, s), v});
      break;
    }
  }
  // No work-item may start the next collective, overwriting the slots, before all have read.
  workgroup_barrier(false);
  emit_void(Op::OpReturnValue, {result});
  out_.functions.push_back(std::move(f));
  block_ = caller_block;
  return group_helpers_[key] = out_.functions.back().id();
}

// OpGroupBroadcast: every work-item writes its slot, then all read the chosen one. The local
// id is a scalar or a 2- or 3-component vector of size_t.
uint32_t Lowering::lower_broadcast(const ir::Instruction& i, uint32_t t) {
  uint32_t u32 = t_uint(32);
  uint32_t lid = local_linear_id();
  store_words(AddressFormat::Local32, group_slot(lid), t, value(i.operands[1]));
  workgroup_barrier(false);
  const ir::Instruction* id = def(i.operands[2]);
  uint32_t id_type = id ? lower_type(id->type_id) : 0;
  Shape is = shape_of(id_type);
  if (!is.ok || is.is_float || is.count > 3) {
    fail("work_group_broadcast with an unexpected local id: " + describe(i));
    return 0;
  }
  uint32_t size = workgroup_size();
  uint32_t linear = 0, scale = 0;
  for (uint32_t k = 0; k < is.count; ++k) {
    uint32_t part = is.count == 1 ? value(i.operands[2])
                                  : emit(Op::OpCompositeExtract, t_uint(is.width),
                                         {value(i.operands[2]), k});
    part = to_width(part, is.width, 32, false);
    if (k == 0) {
      linear = part;
      scale = emit(Op::OpCompositeExtract, u32, {size, 0});
      continue;
    }
    linear = emit(Op::OpIAdd, u32, {linear, emit(Op::OpIMul, u32, {part, scale})});
    if (k + 1 < is.count)
      scale = emit(Op::OpIMul, u32, {scale, emit(Op::OpCompositeExtract, u32, {size, k})});
  }
  uint32_t result = load_words(AddressFormat::Local32, group_slot(linear), t);
  workgroup_barrier(false);
  return result;
}

// One subgroup operation |op| whose operand |at| is input value |in_value|: per component for
// 8- and 16-component vectors, which Vulkan does not have. 8- and 16-bit values need
// shaderSubgroupExtendedTypes (cl_khr_subgroup_extended_types).
uint32_t Lowering::subgroup_op(Op op, uint32_t rt, std::vector<uint32_t> ops, size_t at,
                               uint32_t in_value) {
  Shape shape = shape_of(rt);
  if (shape.ok && shape.width < 32 && !ctx_.caps.subgroup_extended_types) {
    fail("sub-group operations on 8- or 16-bit values need shaderSubgroupExtendedTypes");
    return 0;
  }
  if (!shape.wide) return emit(op, rt, ops);
  uint32_t elem = shape.is_float ? t_float(shape.width) : t_uint(shape.width);
  std::vector<uint32_t> parts;
  for (uint32_t c = 0; c < shape.count; ++c) {
    ops[at] = component(in_value, c);
    parts.push_back(emit(op, elem, ops));
  }
  return emit(Op::OpCompositeConstruct, rt, parts);
}

// Sub-group functions (cl_khr_subgroups): Vulkan's subgroup operations, one instruction each.
bool Lowering::lower_subgroup(const ir::Instruction& i) {
  uint32_t rt = lower_type(i.type_id);
  if (failed_) return false;
  uint32_t scope = c_u32(uint32_t(spv::Scope::Subgroup));
  need_capability(spv::Capability::GroupNonUniform);
  uint32_t r = 0;
  switch (i.opcode) {
    case Op::OpGroupAll:
    case Op::OpGroupAny:
      need_capability(spv::Capability::GroupNonUniformVote);
      r = emit(i.opcode == Op::OpGroupAll ? Op::OpGroupNonUniformAll : Op::OpGroupNonUniformAny,
               rt, {scope, value(i.operands[1])});
      break;
    case Op::OpGroupBroadcast: {
      // The id is the same for the whole sub-group (OpenCL's rule), which SPIR-V 1.5
      // accepts as a dynamically uniform operand.
      need_capability(spv::Capability::GroupNonUniformBallot);
      uint32_t id = value(i.operands[2]);
      Shape is = shape_of(lower_type(def(i.operands[2])->type_id));
      if (is.width != 32) id = to_width(id, is.width, 32, false);
      // A shuffle where the device has one: see lower_non_uniform on merged broadcasts.
      bool shuffle = ctx_.caps.subgroup_features & kSubgroupShuffle;
      if (shuffle) need_capability(spv::Capability::GroupNonUniformShuffle);
      r = subgroup_op(shuffle ? Op::OpGroupNonUniformShuffle : Op::OpGroupNonUniformBroadcast, rt,
                      {scope, value(i.operands[1]), id}, 1, i.operands[1]);
      break;
    }
    default: {
      Op op;
      switch (i.opcode) {
        case Op::OpGroupIAdd: op = Op::OpGroupNonUniformIAdd; break;
        case Op::OpGroupFAdd: op = Op::OpGroupNonUniformFAdd; break;
        case Op::OpGroupSMin: op = Op::OpGroupNonUniformSMin; break;
        case Op::OpGroupUMin: op = Op::OpGroupNonUniformUMin; break;
        case Op::OpGroupFMin: op = Op::OpGroupNonUniformFMin; break;
        case Op::OpGroupSMax: op = Op::OpGroupNonUniformSMax; break;
        case Op::OpGroupUMax: op = Op::OpGroupNonUniformUMax; break;
        case Op::OpGroupFMax: op = Op::OpGroupNonUniformFMax; break;
        case Op::OpGroupIMulKHR: op = Op::OpGroupNonUniformIMul; break;
        case Op::OpGroupFMulKHR: op = Op::OpGroupNonUniformFMul; break;
        case Op::OpGroupBitwiseAndKHR: op = Op::OpGroupNonUniformBitwiseAnd; break;
        case Op::OpGroupBitwiseOrKHR: op = Op::OpGroupNonUniformBitwiseOr; break;
        case Op::OpGroupBitwiseXorKHR: op = Op::OpGroupNonUniformBitwiseXor; break;
        case Op::OpGroupLogicalAndKHR: op = Op::OpGroupNonUniformLogicalAnd; break;
        case Op::OpGroupLogicalOrKHR: op = Op::OpGroupNonUniformLogicalOr; break;
        case Op::OpGroupLogicalXorKHR: op = Op::OpGroupNonUniformLogicalXor; break;
        default: return fail("sub-group operation not supported: " + describe(i));
      }
      auto operation = spv::GroupOperation(i.operands[1]);
      if (operation != spv::GroupOperation::Reduce && operation != spv::GroupOperation::InclusiveScan &&
          operation != spv::GroupOperation::ExclusiveScan)
        return fail("sub-group operation not supported: " + describe(i));
      need_capability(spv::Capability::GroupNonUniformArithmetic);
      r = subgroup_op(op, rt, {scope, uint32_t(operation), value(i.operands[2])}, 2, i.operands[2]);
    }
  }
  bind(i.result_id, rt, r);
  return !failed_;
}

bool Lowering::lower_group(const ir::Instruction& i) {
  if (i.opcode == Op::OpGroupAsyncCopy) return lower_async_copy(i);
  if (i.opcode != Op::OpGroupWaitEvents) {
    bool ok = false;
    if (spv::Scope(constant_value(i.operands[0], &ok)) == spv::Scope::Subgroup && ok) {
      if (!ctx_.caps.subgroup_operations)
        return fail("sub-group functions need Vulkan subgroup vote, ballot and arithmetic: " + describe(i));
      return lower_subgroup(i);
    }
  }
  if (!check_workgroup_scope(i)) return false;
  if (i.opcode == Op::OpGroupWaitEvents) {
    // The copies are complete when they return; the wait is the barrier that makes them
    // visible to the whole work-group, in local and in global memory.
    workgroup_barrier(true);
    return !failed_;
  }
  uint32_t rt = lower_type(i.type_id);
  if (failed_) return false;
  if (i.opcode == Op::OpGroupAll || i.opcode == Op::OpGroupAny) {
    // all: the minimum of the predicates as 0/1; any: their maximum.
    uint32_t u32 = t_uint(32);
    uint32_t bit = emit(Op::OpSelect, u32, {value(i.operands[1]), c_u32(1), c_u32(0)});
    Combine c = i.opcode == Op::OpGroupAll ? Combine::UMin : Combine::UMax;
    uint32_t r = emit(Op::OpFunctionCall, u32,
                      {scan_helper(uint32_t(c), u32, spv::GroupOperation::Reduce), bit});
    bind(i.result_id, rt, emit(Op::OpINotEqual, t_bool(), {r, c_u32(0)}));
    return !failed_;
  }
  if (i.opcode == Op::OpGroupLogicalAndKHR || i.opcode == Op::OpGroupLogicalOrKHR ||
      i.opcode == Op::OpGroupLogicalXorKHR) {
    // Booleans as 0/1 words (an exclusive and's identity, UMin's all-ones word, reads true).
    uint32_t u32 = t_uint(32);
    auto operation = spv::GroupOperation(i.operands[1]);
    Combine c;
    combine_of(i.opcode, &c);
    uint32_t bit = emit(Op::OpSelect, u32, {value(i.operands[2]), c_u32(1), c_u32(0)});
    uint32_t r = emit(Op::OpFunctionCall, u32, {scan_helper(uint32_t(c), u32, operation), bit});
    bind(i.result_id, rt, emit(Op::OpINotEqual, t_bool(), {r, c_u32(0)}));
    return !failed_;
  }
  Shape s = shape_of(rt);
  if (!s.ok || s.count != 1 || (s.width != 32 && s.width != 64 && s.width != 16))
    return fail("work-group function on an unsupported type: " + describe(i));
  if (i.opcode == Op::OpGroupBroadcast) {
    uint32_t r = lower_broadcast(i, rt);
    if (failed_) return false;
    bind(i.result_id, rt, r);
    return true;
  }
  Combine c;
  if (!combine_of(i.opcode, &c)) return fail("group operation not supported: " + describe(i));
  auto operation = spv::GroupOperation(i.operands[1]);
  if (operation != spv::GroupOperation::Reduce && operation != spv::GroupOperation::InclusiveScan &&
      operation != spv::GroupOperation::ExclusiveScan)
    return fail("group operation not supported: " + describe(i));
  uint32_t helper = scan_helper(uint32_t(c), rt, operation);
  bind(i.result_id, rt, emit(Op::OpFunctionCall, rt, {helper, value(i.operands[2])}));
  return !failed_;
}

}  // namespace vkcl::k2s
