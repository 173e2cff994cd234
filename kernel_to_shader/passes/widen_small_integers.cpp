#include "passes/widen_small_integers.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "passes/widen_small_integers_impl.h"

namespace vkcl::k2s {

using spv::Op;

namespace {

// The float holding the value of a half's bit pattern.
uint32_t half_constant_as_float(uint32_t h) {
  uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 31) return sign | 0x7f800000u | (m << 13);
  if (e) return sign | ((e + 112) << 23) | (m << 13);
  float v = float(m) * 0x1p-24f;
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return sign | bits;
}

bool non_aggregate_type(Op op) {
  switch (op) {
    case Op::OpTypeVoid: case Op::OpTypeBool: case Op::OpTypeInt: case Op::OpTypeFloat:
    case Op::OpTypeVector: case Op::OpTypePointer: case Op::OpTypeFunction:
      return true;
    default: return false;
  }
}

}  // namespace

// ---------------------------------------------------------------- types and globals

void Widening::describe_types() {
  std::unordered_map<uint32_t, uint32_t> constants;
  for (const auto& g : m_.globals) {
    if (g.result_id && g.type_id) old_type_[g.result_id] = g.type_id;
    if (g.opcode == Op::OpConstant) constants[g.result_id] = g.operands[0];
    TypeInfo t;
    t.opcode = g.opcode;
    switch (g.opcode) {
      case Op::OpTypeInt:
        t.width = g.operands[0];
        t.small = (t.width == 8 && widen8_) || (t.width == 16 && widen16_);
        break;
      case Op::OpTypeFloat:
        t.width = g.operands[0];
        t.is_float = true;
        t.half = t.width == 16 && widen_half_;
        break;
      case Op::OpTypeVector:
      case Op::OpTypeArray: {
        const TypeInfo& e = info(g.operands[0]);
        t.element = g.operands[0];
        t.width = e.width;
        t.is_float = e.is_float;
        t.small = e.small;
        t.half = e.half;
        if (g.opcode == Op::OpTypeVector) t.count = g.operands[1];
        else t.count = constants.count(g.operands[1]) ? constants[g.operands[1]] : 0;
        if (g.opcode == Op::OpTypeArray && e.opcode != Op::OpTypeInt && e.opcode != Op::OpTypeFloat) t.width = 0;
        t.contains_small = e.contains_small;
        break;
      }
      case Op::OpTypeStruct:
        for (uint32_t member : g.operands) t.contains_small = t.contains_small || info(member).contains_small;
        break;
      case Op::OpTypePointer:
        t.storage = spv::StorageClass(g.operands[0]);
        t.element = g.operands[1];
        break;
      default: continue;
    }
    t.contains_small = t.contains_small || t.small || t.half;
    info_[g.result_id] = t;
  }
}

bool Widening::uses_widened_types() const {
  for (const auto& [id, t] : info_) {
    if (t.contains_small) return true;
    // Half in global memory without 16-bit storage.
    if (widen16_ && t.opcode == Op::OpTypePointer && t.storage == spv::StorageClass::PhysicalStorageBuffer &&
        info(t.element).is_float && info(t.element).width == 16)
      return true;
  }
  return false;
}

bool Widening::rewrite_globals() {
  for (const auto& a : m_.annotations) {
    if (a.operands.empty()) continue;
    bool layout = (a.opcode == Op::OpMemberDecorate && spv::Decoration(a.operands[2]) == spv::Decoration::Offset) ||
                  (a.opcode == Op::OpDecorate && spv::Decoration(a.operands[1]) == spv::Decoration::ArrayStride);
    if (layout && info(a.operands[0]).contains_small)
      return fail("an explicitly laid-out type holds 8- or 16-bit integers");
  }
  std::map<std::vector<uint32_t>, uint32_t> seen;
  std::vector<ir::Instruction> kept;
  for (ir::Instruction g : m_.globals) {
    g.type_id = mapped(g.type_id);
    switch (g.opcode) {
      case Op::OpTypeVector: case Op::OpTypeArray: case Op::OpTypeRuntimeArray:
        g.operands[0] = mapped(g.operands[0]);
        break;
      case Op::OpTypeStruct: case Op::OpTypeFunction:
        for (auto& o : g.operands) o = mapped(o);
        break;
      case Op::OpTypePointer: g.operands[1] = mapped(g.operands[1]); break;
      default: break;
    }
    uint32_t old = old_type_.count(g.result_id) ? old_type_[g.result_id] : 0;
    if (g.opcode == Op::OpTypeInt && info(g.result_id).small) g.operands = {32, 0};
    if (g.opcode == Op::OpTypeFloat && info(g.result_id).half) g.operands = {32};
    if (g.opcode == Op::OpConstant && info(old).small) g.operands[0] &= lane_mask(info(old).width);
    if (g.opcode == Op::OpConstant && info(old).half) g.operands[0] = half_constant_as_float(g.operands[0]);
    if (g.opcode == Op::OpUndef && info(old).contains_small) g.opcode = Op::OpConstantNull;
    if ((g.opcode == Op::OpSpecConstant || g.opcode == Op::OpSpecConstantOp ||
         g.opcode == Op::OpSpecConstantComposite) && info(old).contains_small)
      return fail("specialization constants of 8- or 16-bit integers");
    if (non_aggregate_type(g.opcode)) {
      std::vector<uint32_t> key = g.operands;
      key.insert(key.begin(), uint32_t(g.opcode));
      auto [it, added] = seen.emplace(key, g.result_id);
      if (!added) {
        rename_[g.result_id] = it->second;
        continue;
      }
    }
    kept.push_back(std::move(g));
  }
  m_.globals = std::move(kept);
  return true;
}

// Names and decorations of dropped duplicate types go; every remaining type reference in
// function bodies follows the rename.
void Widening::rename_types() {
  auto dropped = [&](const ir::Instruction& i) { return !i.operands.empty() && rename_.count(i.operands[0]); };
  auto erase = [&](std::vector<ir::Instruction>& list) {
    list.erase(std::remove_if(list.begin(), list.end(), dropped), list.end());
  };
  erase(m_.debug);
  erase(m_.annotations);
  for (auto& f : m_.functions) {
    f.definition.type_id = mapped(f.definition.type_id);
    f.definition.operands[1] = mapped(f.definition.operands[1]);
    for (auto& p : f.parameters) p.type_id = mapped(p.type_id);
    for (auto& b : f.blocks)
      for (auto& i : b.instructions) i.type_id = mapped(i.type_id);
  }
}

void Widening::drop_capabilities() {
  auto gone = [&](const ir::Instruction& i) {
    switch (spv::Capability(i.operands[0])) {
      case spv::Capability::Int8: case spv::Capability::StorageBuffer8BitAccess:
      case spv::Capability::UniformAndStorageBuffer8BitAccess: case spv::Capability::StoragePushConstant8:
        return widen8_;
      case spv::Capability::Float16: case spv::Capability::Float16Buffer:
        return widen_half_;
      case spv::Capability::Int16: case spv::Capability::StorageBuffer16BitAccess:
      case spv::Capability::UniformAndStorageBuffer16BitAccess: case spv::Capability::StoragePushConstant16:
      case spv::Capability::StorageInputOutput16:
        return widen16_;
      default: return false;
    }
  };
  m_.capabilities.erase(std::remove_if(m_.capabilities.begin(), m_.capabilities.end(), gone),
                        m_.capabilities.end());
  m_.extensions.erase(std::remove_if(m_.extensions.begin(), m_.extensions.end(),
                                     [&](const ir::Instruction& e) {
                                       std::string name = ir::decode_string(e.operands, 0);
                                       return (widen8_ && name == "SPV_KHR_8bit_storage") ||
                                              (widen16_ && name == "SPV_KHR_16bit_storage");
                                     }),
                      m_.extensions.end());
}

// ---------------------------------------------------------------- output builders

uint32_t Widening::mapped(uint32_t type) const {
  auto it = rename_.find(type);
  return it == rename_.end() ? type : it->second;
}

const TypeInfo& Widening::info(uint32_t type) const {
  static const TypeInfo none;
  auto it = info_.find(type);
  return it == info_.end() ? none : it->second;
}

const TypeInfo& Widening::value_info(uint32_t value) const {
  auto it = old_type_.find(value);
  return it == old_type_.end() ? info(0) : info(it->second);
}

// ir::intern_global's search, through an index of the globals: the rewrite interns types and
// constants for nearly every instruction, and a scan each time grew with the module squared.
uint32_t Widening::intern(Op op, uint32_t type, std::vector<uint32_t> operands) {
  auto key_of = [](Op o, uint32_t t, const std::vector<uint32_t>& words) {
    std::vector<uint32_t> key = {uint32_t(o), t};
    key.insert(key.end(), words.begin(), words.end());
    return key;
  };
  if (interned_.empty())
    for (const auto& g : m_.globals)
      if (g.result_id) interned_.emplace(key_of(g.opcode, g.type_id, g.operands), g.result_id);
  auto [it, added] = interned_.emplace(key_of(op, type, operands), 0);
  if (added) {
    it->second = m_.take_id();
    m_.globals.emplace_back(op, type, it->second, std::move(operands));
  }
  return it->second;
}

uint32_t Widening::type(Op op, std::vector<uint32_t> operands) {
  return intern(op, 0, std::move(operands));
}

uint32_t Widening::u32() { return type(Op::OpTypeInt, {32, 0}); }
uint32_t Widening::u64() { return type(Op::OpTypeInt, {64, 0}); }
uint32_t Widening::u32s(uint32_t n) { return n == 1 ? u32() : type(Op::OpTypeVector, {u32(), n}); }

uint32_t Widening::constant(uint32_t value, uint32_t n) {
  uint32_t c = intern(Op::OpConstant, u32(), {value});
  if (n == 1) return c;
  return intern(Op::OpConstantComposite, u32s(n), std::vector<uint32_t>(n, c));
}

uint32_t Widening::constant64(uint64_t value) {
  return intern(Op::OpConstant, u64(), {uint32_t(value), uint32_t(value >> 32)});
}

void Widening::start_block(uint32_t label) {
  blocks_->push_back(ir::Block{label, {}});
  out_ = &blocks_->back().instructions;
}

uint32_t Widening::emit(Op op, uint32_t type, std::vector<uint32_t> operands) {
  uint32_t id = m_.take_id();
  out_->emplace_back(op, type, id, std::move(operands));
  return id;
}

void Widening::emit_void(Op op, std::vector<uint32_t> operands) {
  out_->emplace_back(op, 0, 0, std::move(operands));
}

void Widening::emit_as(const ir::Instruction& i, Op op, uint32_t type, std::vector<uint32_t> operands) {
  out_->emplace_back(op, type, i.result_id, std::move(operands));
}

uint32_t Widening::mask(uint32_t v, uint32_t width, uint32_t n) {
  return emit(Op::OpBitwiseAnd, u32s(n), {v, constant(lane_mask(width), n)});
}

uint32_t Widening::sign_extend(uint32_t v, uint32_t width, uint32_t n) {
  return emit(Op::OpBitFieldSExtract, u32s(n), {v, constant(0, 1), constant(width, 1)});
}

uint32_t Widening::sign_extend_if_small(uint32_t v) {
  const TypeInfo& t = value_info(v);
  return t.small ? sign_extend(v, t.width, t.count) : v;
}

bool Widening::fail(const std::string& what) {
  ctx_.log += "error: the device lacks 8/16-bit integers, 8/16-bit storage or half arithmetic, "
              "and vkcl cannot carry this in 32 bits: " + what + "\n";
  return false;
}

// ---------------------------------------------------------------- the pass

PassStatus Widening::run() {
  widen8_ = !(ctx_.caps.int8 && ctx_.caps.storage8);
  widen16_ = !(ctx_.caps.int16 && ctx_.caps.storage16);
  widen_half_ = !ctx_.caps.float16;
  if (!widen8_ && !widen16_ && !widen_half_) return PassStatus::SuccessWithoutChange;
  describe_types();
  if (!uses_widened_types()) return PassStatus::SuccessWithoutChange;
  for (const auto& e : m_.ext_inst_imports)
    if (ir::decode_string(e.operands, 0) == "GLSL.std.450") glsl_ = e.result_id;
  for (const auto& f : m_.functions) {
    for (const auto& p : f.parameters) old_type_[p.result_id] = p.type_id;
    for (const auto& b : f.blocks)
      for (const auto& i : b.instructions)
        if (i.result_id && i.type_id) old_type_[i.result_id] = i.type_id;
  }
  if (!rewrite_globals()) return PassStatus::Failure;
  for (auto& f : m_.functions) {
    // A store may split its block around a compare-exchange loop (widen_memory.cpp): the
    // rest of the block, terminator included, then lies in a later block, which successors'
    // OpPhi must name instead.
    std::vector<ir::Block> rewritten;
    std::unordered_map<uint32_t, uint32_t> ends_in;  // original label -> its last block
    blocks_ = &rewritten;
    for (const ir::Block& b : f.blocks) {
      start_block(b.label);
      in_loop_header_ = b.merge() && b.merge()->opcode == Op::OpLoopMerge;
      for (const ir::Instruction& i : b.instructions)
        if (!rewrite(i)) return PassStatus::Failure;
      ends_in[b.label] = rewritten.back().label;
    }
    for (ir::Block& b : rewritten)
      for (ir::Instruction& i : b.instructions)
        if (i.opcode == Op::OpPhi && !loop_phis_.count(i.result_id))
          for (size_t k = 1; k < i.operands.size(); k += 2)
            if (ends_in.count(i.operands[k])) i.operands[k] = ends_in[i.operands[k]];
    f.blocks = std::move(rewritten);
  }
  rename_types();
  drop_capabilities();
  for (const auto& g : m_.globals)
    if ((g.opcode == Op::OpTypeInt && ((widen8_ && g.operands[0] == 8) || (widen16_ && g.operands[0] == 16))) ||
        (g.opcode == Op::OpTypeFloat && widen_half_ && g.operands[0] == 16)) {
      fail("internal: a narrow type is left");
      return PassStatus::Failure;
    }
  return PassStatus::SuccessWithChange;
}

namespace {

class WidenSmallIntegers : public Pass {
 public:
  const char* name() const override { return "widen-small-integers"; }
  PassStatus Process(ir::Module& m, PassContext& context) override {
    Widening w(m, context);
    return w.run();
  }
};

}  // namespace

std::unique_ptr<Pass> create_widen_small_integers_pass() {
  return std::make_unique<WidenSmallIntegers>();
}

}  // namespace vkcl::k2s
