#include <spirv/unified1/GLSL.std.450.h>

#include "passes/lower_to_shader.h"
#include "passes/resumable_loops.h"

#include <spirv-tools/libspirv.hpp>
#include <spirv/unified1/OpenCL.std.h>

#include "vkcl/common/host_allocation.h"

#include <algorithm>
#include <functional>
#include <cstddef>
#include <cstring>

namespace vkcl::k2s {

using spv::Op;

bool Lowering::fail(const std::string& message) {
  if (!failed_) ctx_.log += "error: " + message + "\n";
  failed_ = true;
  return false;
}

std::string Lowering::describe(const ir::Instruction& inst) const {
  // Disassemble the instruction alone inside a minimal module header for the log.
  ir::Module tiny;
  tiny.bound = out_.bound + in_.bound + 16;
  tiny.memory_model = ir::Instruction(Op::OpMemoryModel, 0, 0, {2, 2});
  std::vector<uint32_t> words = ir::serialize(tiny);
  uint32_t count = 1 + (inst.type_id ? 1 : 0) + (inst.result_id ? 1 : 0) +
                   uint32_t(inst.operands.size());
  words.push_back((count << 16) | uint32_t(inst.opcode));
  if (inst.type_id) words.push_back(inst.type_id);
  if (inst.result_id) words.push_back(inst.result_id);
  words.insert(words.end(), inst.operands.begin(), inst.operands.end());
  std::string text;
  bool disassembled;
  {
    host_allocation::ForeignCode foreign;  // SPIRV-Tools
    spvtools::SpirvTools tools(SPV_ENV_UNIVERSAL_1_6);
    disassembled = tools.Disassemble(words, &text, SPV_BINARY_TO_TEXT_OPTION_NO_HEADER);
  }
  if (disassembled) {
    auto pos = text.find("OpMemoryModel");
    pos = text.find('\n', pos);
    text = text.substr(pos + 1);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    auto name = names_.find(inst.result_id);
    if (name != names_.end()) text += "  (" + name->second + ")";
    return text;
  }
  return "opcode " + std::to_string(uint32_t(inst.opcode));
}

const ir::Instruction* Lowering::def(uint32_t in_id) const {
  auto it = defs_.find(in_id);
  return it == defs_.end() ? nullptr : it->second;
}

const ir::Instruction* Lowering::decoration(uint32_t in_id, spv::Decoration d) const {
  auto it = decorations_.find(in_id);
  if (it == decorations_.end()) return nullptr;
  for (const ir::Instruction* i : it->second)
    if (i->operands.size() > 1 && spv::Decoration(i->operands[1]) == d) return i;
  return nullptr;
}

uint64_t Lowering::constant_value(uint32_t in_id, bool* ok) const {
  const ir::Instruction* c = def(in_id);
  *ok = false;
  if (!c) return 0;
  if (c->opcode == Op::OpConstantNull) { *ok = true; return 0; }
  if (c->opcode != Op::OpConstant && c->opcode != Op::OpSpecConstant) return 0;
  *ok = true;
  uint64_t v = c->operands[0];
  if (c->operands.size() > 1) v |= uint64_t(c->operands[1]) << 32;
  return v;
}

spv::StorageClass Lowering::pointer_storage(uint32_t in_pointer_type) const {
  const ir::Instruction* t = def(in_pointer_type);
  if (!t || t->opcode != Op::OpTypePointer) return spv::StorageClass::Max;
  return spv::StorageClass(t->operands[0]);
}

uint32_t Lowering::pointee(uint32_t in_pointer_type) const {
  const ir::Instruction* t = def(in_pointer_type);
  return t && t->opcode == Op::OpTypePointer ? t->operands[1] : 0;
}

AddressFormat Lowering::format_of(spv::StorageClass storage) {
  switch (storage) {
    case spv::StorageClass::Workgroup: return AddressFormat::Local32;
    case spv::StorageClass::Function:
    case spv::StorageClass::Private: return AddressFormat::Private32;
    case spv::StorageClass::Generic: return AddressFormat::Generic64;
    default: return AddressFormat::Global64;
  }
}

// ---------------------------------------------------------------- output builders

uint32_t Lowering::type(Op op, std::vector<uint32_t> operands) {
  std::vector<uint32_t> key = operands;
  key.insert(key.begin(), uint32_t(op));
  auto it = type_cache_.find(key);
  if (it != type_cache_.end()) return it->second;
  uint32_t id = take_id();
  out_.globals.emplace_back(op, 0, id, std::move(operands));
  type_cache_[key] = id;
  return id;
}

uint32_t Lowering::t_uint(uint32_t width) {
  if (width == 8) need_capability(spv::Capability::Int8);
  if (width == 16) need_capability(spv::Capability::Int16);
  if (width == 64) need_capability(spv::Capability::Int64);
  return type(Op::OpTypeInt, {width, 0});
}

uint32_t Lowering::t_float(uint32_t width) {
  if (width == 16) need_capability(spv::Capability::Float16);
  if (width == 64) need_capability(spv::Capability::Float64);
  return type(Op::OpTypeFloat, {width});
}

uint32_t Lowering::t_vec(uint32_t element, uint32_t count) {
  return count == 1 ? element : type(Op::OpTypeVector, {element, count});
}

uint32_t Lowering::t_ptr(spv::StorageClass storage, uint32_t pointee_type) {
  return type(Op::OpTypePointer, {uint32_t(storage), pointee_type});
}

uint32_t Lowering::constant(uint32_t type_id, std::vector<uint32_t> words) {
  std::vector<uint32_t> key = words;
  key.insert(key.begin(), type_id);
  auto it = constant_cache_.find(key);
  if (it != constant_cache_.end()) return it->second;
  uint32_t id = take_id();
  out_.globals.emplace_back(Op::OpConstant, type_id, id, std::move(words));
  constant_cache_[key] = id;
  return id;
}

uint32_t Lowering::c_uint(uint32_t width, uint64_t v) {
  if (width == 64) return c_u64(v);
  uint64_t mask = width == 32 ? 0xffffffffull : ((1ull << width) - 1);
  return constant(t_uint(width), {uint32_t(v & mask)});
}

uint32_t Lowering::c_bool(bool v) {
  std::vector<uint32_t> key = {0xfffffffeu, v ? 1u : 0u};
  auto it = constant_cache_.find(key);
  if (it != constant_cache_.end()) return it->second;
  uint32_t id = take_id();
  out_.globals.emplace_back(v ? Op::OpConstantTrue : Op::OpConstantFalse, t_bool(), id);
  constant_cache_[key] = id;
  return id;
}

uint32_t Lowering::c_null(uint32_t type_id) {
  std::vector<uint32_t> key = {0xffffffffu, type_id};
  auto it = constant_cache_.find(key);
  if (it != constant_cache_.end()) return it->second;
  uint32_t id = take_id();
  out_.globals.emplace_back(Op::OpConstantNull, type_id, id);
  constant_cache_[key] = id;
  return id;
}

uint32_t Lowering::emit(Op op, uint32_t result_type, std::vector<uint32_t> operands) {
  uint32_t id = take_id();
  block_->emplace_back(op, result_type, id, std::move(operands));
  return id;
}

void Lowering::emit_void(Op op, std::vector<uint32_t> operands) {
  block_->emplace_back(op, 0, 0, std::move(operands));
}

uint32_t Lowering::value(uint32_t in_id) {
  auto it = map_.find(in_id);
  if (it != map_.end()) return it->second;
  uint32_t id = take_id();
  map_[in_id] = id;
  return id;
}

void Lowering::bind(uint32_t in_id, uint32_t out_type, uint32_t out_value) {
  auto it = map_.find(in_id);
  if (it == map_.end()) {
    map_[in_id] = out_value;
    return;
  }
  // A forward reference (an OpPhi) already named this value.
  block_->emplace_back(Op::OpCopyObject, out_type, it->second, std::vector<uint32_t>{out_value});
}

uint32_t Lowering::width_of_int_type(uint32_t out_type) const {
  for (const auto& g : out_.globals)
    if (g.result_id == out_type && g.opcode == Op::OpTypeInt) return g.operands[0];
  return 0;
}

uint32_t Lowering::to_width(uint32_t v, uint32_t from, uint32_t to, bool is_signed) {
  if (from == to) return v;
  return emit(is_signed && to > from ? Op::OpSConvert : Op::OpUConvert, t_uint(to), {v});
}

uint32_t Lowering::lower_type(uint32_t in_type) {
  auto it = type_map_.find(in_type);
  if (it != type_map_.end()) return it->second;
  const ir::Instruction* t = def(in_type);
  if (!t) {
    fail("unknown type id " + std::to_string(in_type));
    return t_uint(32);
  }
  uint32_t out = 0;
  switch (t->opcode) {
    case Op::OpTypeVoid: out = t_void(); break;
    case Op::OpTypeBool: out = t_bool(); break;
    case Op::OpTypeEvent: out = t_uint(64); break;  // async copies complete at once (lower_group)
    case Op::OpTypeInt:
      // Without shaderInt8/shaderInt16, widen-small-integers carries them in 32 bits.
      out = t_uint(t->operands[0]);
      break;
    case Op::OpTypeFloat:
      // Without shaderFloat16, widen-small-integers carries halves in floats.
      if (t->operands[0] == 64 && !ctx_.caps.float64) fail("double needs shaderFloat64");
      out = t_float(t->operands[0]);
      break;
    case Op::OpTypeVector:
      if (t->operands[1] > 4)  // Vulkan has no 8- and 16-component vectors: arrays instead
        out = type(Op::OpTypeArray, {lower_type(t->operands[0]), c_u32(t->operands[1])});
      else
        out = t_vec(lower_type(t->operands[0]), t->operands[1]);
      break;
    case Op::OpTypeArray: {
      bool ok = false;
      uint64_t n = constant_value(t->operands[1], &ok);
      if (!ok) { fail("array length is not a constant: " + describe(*t)); return t_uint(32); }
      out = type(Op::OpTypeArray, {lower_type(t->operands[0]), c_u32(uint32_t(n))});
      break;
    }
    case Op::OpTypeStruct: {
      std::vector<uint32_t> members;
      for (uint32_t m : t->operands) members.push_back(lower_type(m));
      // Structs are never deduplicated: two OpenCL structs with the same members stay distinct.
      out = take_id();
      out_.globals.emplace_back(Op::OpTypeStruct, 0, out, members);
      break;
    }
    case Op::OpTypePointer:
      switch (format_of(spv::StorageClass(t->operands[0]))) {
        case AddressFormat::Local32:
        case AddressFormat::Private32: out = t_uint(32); break;
        default: out = t_uint(64); break;
      }
      break;
    case Op::OpTypeSampler: out = t_uint(32); break;  // the CLK_* bits (lower_image.cpp)
    case Op::OpTypeFunction: {
      std::vector<uint32_t> ops;
      for (uint32_t o : t->operands)
        if (!is_image_type(o)) ops.push_back(lower_type(o));  // functions read descriptors
      out = type(Op::OpTypeFunction, ops);
      break;
    }
    default:
      fail("type not supported yet: " + describe(*t));
      return t_uint(32);
  }
  type_map_[in_type] = out;
  return out;
}

uint32_t Lowering::memory_type(uint32_t in_type) {
  const ir::Instruction* t = def(in_type);
  if (t && t->opcode == Op::OpTypePointer) return t_uint(64);
  return lower_type(in_type);
}

// ---------------------------------------------------------------- input indexing

bool Lowering::index_input() {
  for (const auto& i : in_.ext_inst_imports) {
    defs_[i.result_id] = &i;
    std::string name = ir::decode_string(i.operands, 0);
    if (name == "OpenCL.std") opencl_std_ = i.result_id;
    else if (name == kResumeSet) resume_set_ = i.result_id;
    else if (name.rfind("NonSemantic.", 0) != 0 && name != "OpenCL.DebugInfo.100")
      return fail("extended instruction set \"" + name + "\" is not supported");
  }
  for (const auto& f : in_.functions)
    for (const auto& b : f.blocks)
      for (const auto& i : b.instructions)
        if (i.opcode == Op::OpExtInst && i.operands[0] == opencl_std_ &&
            i.operands[1] == uint32_t(OpenCLLIB::Printf))
          uses_printf_ = true;
  for (const auto& c : in_.capabilities) {
    auto cap = spv::Capability(c.operands[0]);
    switch (cap) {
      case spv::Capability::Pipes: case spv::Capability::DeviceEnqueue:
        return fail("capability " + describe(c) + " is not supported yet");
      case spv::Capability::ImageBasic: case spv::Capability::LiteralSampler:
        if (!ctx_.caps.images) return fail("capability " + describe(c) + " is not supported (the device reports no images)");
        break;
      default: break;
    }
  }
  // Local offset 0 is a 64-byte scratch area that generic accesses touch when their pointer
  // is not local, and no object lives there, so 0 is the local NULL. Modules with no generic
  // pointer and no pointer compared or converted (where NULL could be told from an object)
  // keep all of local memory for the kernel.
  for (const auto& g : in_.globals) {
    if (g.result_id) defs_[g.result_id] = &g;
    if (g.opcode == Op::OpTypePointer && spv::StorageClass(g.operands[0]) == spv::StorageClass::Generic)
      static_local_bytes_ = kLocalScratch;
  }
  for (const auto& f : in_.functions)
    for (const auto& b : f.blocks)
      for (const auto& i : b.instructions)
        if (i.opcode == Op::OpConvertPtrToU || i.opcode == Op::OpPtrEqual ||
            i.opcode == Op::OpPtrNotEqual || i.opcode == Op::OpPtrDiff)
          static_local_bytes_ = kLocalScratch;
  for (const auto& f : in_.functions) {
    defs_[f.id()] = &f.definition;
    for (const auto& p : f.parameters) defs_[p.result_id] = &p;
    for (const auto& b : f.blocks)
      for (const auto& i : b.instructions)
        if (i.result_id) defs_[i.result_id] = &i;
  }
  for (const auto& a : in_.annotations) {
    if (a.opcode == Op::OpDecorate || a.opcode == Op::OpDecorateId ||
        a.opcode == Op::OpDecorateString)
      decorations_[a.operands[0]].push_back(&a);
    if (a.opcode == Op::OpDecorationGroup || a.opcode == Op::OpGroupDecorate)
      return fail("decoration groups are not supported yet");
  }
  for (const auto& d : in_.debug)
    if (d.opcode == Op::OpName) names_[d.operands[0]] = ir::decode_string(d.operands, 1);
  return true;
}

// ---------------------------------------------------------------- module-scope values

bool Lowering::lower_globals() {
  for (const auto& g : in_.globals) {
    switch (g.opcode) {
      case Op::OpConstant:
      case Op::OpSpecConstant: {
        // Specialization constants keep their default value in this milestone
        // (clSetProgramSpecializationConstant reports CL_INVALID_OPERATION).
        const ir::Instruction* t = def(g.type_id);
        uint32_t out_type = lower_type(g.type_id);
        if (t && t->opcode == Op::OpTypeInt) {
          bool ok;
          map_[g.result_id] = c_uint(t->operands[0], constant_value(g.result_id, &ok));
        } else {
          map_[g.result_id] = constant(out_type, g.operands);
        }
        break;
      }
      case Op::OpConstantTrue:
      case Op::OpSpecConstantTrue: map_[g.result_id] = c_bool(true); break;
      case Op::OpConstantFalse:
      case Op::OpSpecConstantFalse: map_[g.result_id] = c_bool(false); break;
      case Op::OpConstantNull: map_[g.result_id] = c_null(lower_type(g.type_id)); break;
      case Op::OpConstantComposite:
      case Op::OpSpecConstantComposite: {
        // A composite of addresses (`global int* table[2] = {&a, &b}`) is only an
        // initializer: write_constant reads it from the input.
        bool addresses = false;
        for (uint32_t p : g.operands) {
          const ir::Instruction* d = def(p);
          addresses = addresses || address_constants_.count(p) ||
                      (d && (d->opcode == Op::OpVariable || d->opcode == Op::OpSpecConstantOp));
        }
        if (addresses) {
          address_constants_.insert(g.result_id);
          break;
        }
        std::vector<uint32_t> parts;
        for (uint32_t p : g.operands) parts.push_back(value(p));
        uint32_t id = take_id();
        out_.globals.emplace_back(Op::OpConstantComposite, lower_type(g.type_id), id, parts);
        map_[g.result_id] = id;
        break;
      }
      case Op::OpUndef: {
        uint32_t id = take_id();
        out_.globals.emplace_back(Op::OpUndef, lower_type(g.type_id), id);
        map_[g.result_id] = id;
        break;
      }
      case Op::OpVariable: {
        auto storage = spv::StorageClass(g.operands[0]);
        if (storage == spv::StorageClass::Input) {
          if (!decoration(g.result_id, spv::Decoration::BuiltIn))
            return fail("Input variable without BuiltIn: " + describe(g));
          break;
        }
        if (is_builtin_variable(g.result_id)) break;  // a UniformConstant built-in

        if (storage == spv::StorageClass::Workgroup) {
          // Kernel-scope __local variables are regions of the local word array, placed for
          // each kernel that reaches them.
          const Layout& l = layout_.of(pointee(g.type_id));
          map_[g.result_id] = local_region(l.size, l.alignment);
          // OpenCL C cannot initialise __local variables; llvm-spirv writes an undef or null
          // initializer for some of them, which means no initial value.
          std::function<bool(uint32_t)> no_value = [&](uint32_t id) {
            const ir::Instruction* c = def(id);
            if (!c) return false;
            if (c->opcode == Op::OpUndef || c->opcode == Op::OpConstantNull) return true;
            if (c->opcode != Op::OpConstantComposite) return false;
            for (uint32_t part : c->operands)
              if (!no_value(part)) return false;
            return true;
          };
          if (g.operands.size() > 1 && !no_value(g.operands[1]))
            return fail("__local variable with an initializer: " + describe(g));
          break;
        }
        {
          // Program-scope __constant and __global variables live in the program's data
          // buffer, at offsets fixed here; each function computes their addresses.
          uint32_t in_type = pointee(g.type_id);
          const Layout& l = layout_.of(in_type);
          uint32_t a = std::max<uint32_t>(l.alignment, 16);
          size_t offset = (program_data_.size() + a - 1) / a * a;
          program_data_.resize(offset + l.size, 0);
          if (storage == spv::StorageClass::CrossWorkgroup) global_variable_size_ += l.size;
          if (g.operands.size() > 1 && !write_constant(g.operands[1], in_type, offset))
            return fail("cannot evaluate the initializer of " + describe(g));
          program_variables_.push_back({g.result_id, uint32_t(offset)});
          break;
        }
      }
      case Op::OpSpecConstantOp: {
        // What specialize() could not fold. Addresses of program-scope variables (a pointer
        // variable's initializer, `global int* p = &a[1]`) are written by write_constant;
        // half-precision or aggregate operations are not supported.
        const ir::Instruction* t = def(g.type_id);
        uint64_t offset = 0;
        if (t && t->opcode == Op::OpTypePointer && constant_address(g.result_id, &offset)) break;
        return fail("OpSpecConstantOp not supported yet: " + describe(g));
      }
      case Op::OpConstantSampler:
        map_[g.result_id] = sampler_constant(g);
        break;
      default:
        break;  // types are lowered on demand
    }
    if (failed_) return false;
  }
  return true;
}

// Writes the value of input constant |c| (of input type |type|) at |offset| of the program
// data, in OpenCL layout.
bool Lowering::write_constant(uint32_t c, uint32_t type, size_t offset) {
  const ir::Instruction* d = def(c);
  const ir::Instruction* t = def(type);
  if (!d || !t) return false;
  const Layout& l = layout_.of(type);
  if (offset + l.size > program_data_.size()) return false;
  switch (d->opcode) {
    case Op::OpConstantNull:
    case Op::OpUndef:
      return true;  // already zero
    // Specialization constants hold their final values by now (specialize.cpp).
    case Op::OpConstantTrue:
    case Op::OpSpecConstantTrue:
      program_data_[offset] = 1;
      return true;
    case Op::OpConstantFalse:
    case Op::OpSpecConstantFalse:
      return true;
    case Op::OpConstant:
    case Op::OpSpecConstant: {
      uint32_t bytes = std::min<uint32_t>(l.size, uint32_t(d->operands.size() * 4));
      std::memcpy(&program_data_[offset], d->operands.data(), bytes);
      return true;
    }
    case Op::OpVariable:
    case Op::OpSpecConstantOp: {
      // The address of a program-scope variable: its offset in the data buffer, plus the
      // buffer's address when the buffer is made (a relocation).
      uint64_t target = 0;
      if (t->opcode != Op::OpTypePointer || !constant_address(c, &target)) return false;
      std::memcpy(&program_data_[offset], &target, 8);
      program_relocations_.push_back(uint32_t(offset));
      return true;
    }
    case Op::OpConstantComposite: {
      for (size_t k = 0; k < d->operands.size(); ++k) {
        uint32_t member, at;
        if (t->opcode == Op::OpTypeStruct) {
          member = t->operands[k];
          at = l.member_offsets[k];
        } else if (t->opcode == Op::OpTypeArray || t->opcode == Op::OpTypeVector) {
          member = t->operands[0];
          at = uint32_t(k * l.stride);
        } else {
          return false;
        }
        if (!write_constant(d->operands[k], member, offset + at)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

// The data-buffer offset that constant pointer |c| points at: a program-scope variable, or
// an access chain or cast of one with constant indices.
bool Lowering::constant_address(uint32_t c, uint64_t* offset) {
  const ir::Instruction* d = def(c);
  if (!d) return false;
  if (d->opcode == Op::OpVariable) {
    for (auto [id, at] : program_variables_)
      if (id == c) return *offset = at, true;
    return false;
  }
  if (d->opcode != Op::OpSpecConstantOp || d->operands.size() < 2) return false;
  Op op = Op(d->operands[0]);
  if (op == Op::OpBitcast || op == Op::OpPtrCastToGeneric || op == Op::OpGenericCastToPtr)
    return constant_address(d->operands[1], offset);
  bool element = op == Op::OpPtrAccessChain || op == Op::OpInBoundsPtrAccessChain;
  if (!element && op != Op::OpAccessChain && op != Op::OpInBoundsAccessChain) return false;
  const ir::Instruction* base = def(d->operands[1]);
  if (!base || !constant_address(d->operands[1], offset)) return false;
  uint32_t type = pointee(base->type_id);
  for (size_t k = 2; k < d->operands.size(); ++k) {
    bool ok = false;
    int64_t index = int64_t(constant_value(d->operands[k], &ok));
    if (!ok) return false;
    const Layout& l = layout_.of(type);
    if (element && k == 2) {  // steps over whole objects of the pointee type
      uint64_t stride = (uint64_t(l.size) + l.alignment - 1) / l.alignment * l.alignment;
      *offset += uint64_t(index) * stride;
      continue;
    }
    const ir::Instruction* t = def(type);
    if (!t) return false;
    if (t->opcode == Op::OpTypeStruct) {
      if (index < 0 || size_t(index) >= l.member_offsets.size()) return false;
      *offset += l.member_offsets[size_t(index)];
      type = t->operands[size_t(index)];
    } else if (t->opcode == Op::OpTypeArray || t->opcode == Op::OpTypeVector) {
      *offset += uint64_t(index) * l.stride;
      type = t->operands[0];
    } else {
      return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------- functions

// A Function variable stays a real variable when its address never escapes: every use is a
// direct load or store of the whole variable (private_arenas.h). Everything else lives in
// the private word arrays.
bool Lowering::classify_variables(const ir::Function& f) {
  logical_vars_.clear();
  for (const auto& b : f.blocks)
    for (const auto& i : b.instructions)
      if (i.opcode == Op::OpVariable && private_arenas_.kept_whole(i.result_id))
        logical_vars_.insert(i.result_id);
  return true;
}

uint32_t Lowering::place_private(uint32_t size, uint32_t alignment) {
  uint32_t& bytes = private_memory_[private_arena_].bytes;
  uint32_t a = std::max<uint32_t>(alignment, 4);
  bytes = (bytes + a - 1) / a * a;
  uint32_t at = bytes;
  bytes += (size + 3) / 4 * 4;
  return at;
}

bool Lowering::lower_function(const ir::Function& f) {
  if (!classify_variables(f)) return false;
  wide_arena_ = wide_functions_.count(f.id()) > 0;
  byte_arena_ = byte_functions_.count(f.id()) > 0;
  quad_arena_ = quad_functions_.count(f.id()) > 0;
  lowering_function_ = f.id();
  ir::Function out;
  const ir::Instruction& d = f.definition;
  out.definition = ir::Instruction(Op::OpFunction, lower_type(d.type_id), value(d.result_id),
                                   {0, lower_type(d.operands[1])});
  for (const auto& p : f.parameters)
    if (!is_image_type(p.type_id))  // images are descriptors (lower_image.cpp)
      out.parameters.emplace_back(Op::OpFunctionParameter, lower_type(p.type_id),
                                  value(p.result_id));
  variables_.clear();
  builtin_pointers_.clear();
  builtin_vector_default_.clear();
  bool first_block = true;
  for (const auto& b : f.blocks) {
    out.blocks.push_back(ir::Block{value(b.label), {}});
    block_ = &out.blocks.back().instructions;
    if (first_block && !program_variables_.empty()) {
      // Addresses of program-scope variables, from the program data address the frontend
      // writes into every argument block.
      uint32_t base = program_data_base_ = argument_slot(kProgramDataSlot);
      for (auto [var, offset] : program_variables_)
        map_[var] = emit(Op::OpIAdd, t_uint(64), {base, c_u64(offset)});
    }
    first_block = false;
    for (const auto& i : b.instructions) {
      private_arena_ = private_arenas_.of_access(i);
      if (!lower_instruction(i)) {
        if (!failed_) fail("cannot translate " + describe(i));
        ctx_.log += "  in function " + (names_.count(f.id()) ? names_[f.id()]
                                                             : std::to_string(f.id())) + "\n";
        return false;
      }
    }
  }
  private_arena_ = PrivateArenas::kMain;
  // Vulkan wants every OpVariable at the top of the entry block.
  auto& entry = out.blocks.front().instructions;
  entry.insert(entry.begin(), variables_.begin(), variables_.end());
  out_.functions.push_back(std::move(out));
  return true;
}

bool Lowering::copy_instruction(const ir::Instruction& i) {
  ir::Instruction o = i;
  if (i.type_id) o.type_id = lower_type(i.type_id);
  if (failed_) return false;
  o.result_id = i.result_id ? value(i.result_id) : 0;
  // Operands that are ids are remapped; literal operands are known per opcode.
  auto remap_all = [&](size_t first, size_t last) {
    for (size_t k = first; k < std::min(last, o.operands.size()); ++k)
      o.operands[k] = value(o.operands[k]);
  };
  switch (i.opcode) {
    case Op::OpCompositeExtract: remap_all(0, 1); break;
    case Op::OpCompositeInsert: remap_all(0, 2); break;
    case Op::OpVectorShuffle: remap_all(0, 2); break;
    case Op::OpBranch: remap_all(0, 1); break;
    case Op::OpBranchConditional: remap_all(0, 3); break;
    case Op::OpSwitch: {
      o.operands[0] = value(i.operands[0]);
      o.operands[1] = value(i.operands[1]);
      uint32_t words = 1;  // case literals are as wide as the selector
      if (const ir::Instruction* s = def(i.operands[0]))
        if (const ir::Instruction* t = def(s->type_id))
          if (t->operands[0] > 32) words = 2;
      for (size_t k = 2 + words; k < o.operands.size(); k += words + 1)
        o.operands[k] = value(i.operands[k]);
      break;
    }
    case Op::OpSelectionMerge: remap_all(0, 1); break;
    case Op::OpLoopMerge: remap_all(0, 2); break;
    case Op::OpReturn: case Op::OpUnreachable: break;
    default: remap_all(0, o.operands.size()); break;
  }
  if (i.opcode == Op::OpFunctionCall) o.operands[0] = value(i.operands[0]);
  block_->push_back(std::move(o));
  if ((contraction_off_ || decoration(i.result_id, spv::Decoration::NoContraction)) &&
      (i.opcode == Op::OpFMul || i.opcode == Op::OpFAdd || i.opcode == Op::OpFSub ||
       i.opcode == Op::OpFNegate)) {
    annotations_.emplace_back(Op::OpDecorate, 0, 0,
        std::vector<uint32_t>{value(i.result_id), uint32_t(spv::Decoration::NoContraction)});
  }
  return true;
}

bool Lowering::lower_instruction(const ir::Instruction& i) {
  if (moves_image(i)) return true;
  if (needs_wide_lowering(i)) return lower_wide(i);
  switch (i.opcode) {
    case Op::OpVariable: {
      if (logical_vars_.count(i.result_id)) {
        uint32_t t = t_ptr(spv::StorageClass::Function, lower_type(pointee(i.type_id)));
        uint32_t id = value(i.result_id);
        variables_.emplace_back(Op::OpVariable, t, id,
                                std::vector<uint32_t>{uint32_t(spv::StorageClass::Function)});
        if (i.operands.size() > 1)
          emit_void(Op::OpStore, {id, value(i.operands[1])});
        return !failed_;
      }
      const Layout& l = layout_.of(pointee(i.type_id));
      bind(i.result_id, t_uint(32), c_u32(place_private(l.size, l.alignment)));
      if (i.operands.size() > 1)
        store(AddressFormat::Private32, value(i.result_id), pointee(i.type_id),
              value(i.operands[1]), std::max<uint32_t>(l.alignment, 4));
      return !failed_;
    }
    case Op::OpSRem:
    case Op::OpSMod: {
      uint32_t rt = lower_type(i.type_id);
      Shape s = shape_of(rt);
      if (!s.ok || s.is_float || s.wide) return copy_instruction(i);
      bind(i.result_id, rt, signed_remainder(i.opcode, value(i.operands[0]), value(i.operands[1]), rt));
      return !failed_;
    }
    case Op::OpFDiv: {
      uint32_t rt = lower_type(i.type_id);
      Shape s = shape_of(rt);
      if (!s.ok || !s.is_float || s.wide) return copy_instruction(i);
      bind(i.result_id, rt, divide(value(i.operands[0]), value(i.operands[1]), rt));
      return !failed_;
    }
    case Op::OpLoad: return lower_load(i);
    case Op::OpStore: return lower_store(i);
    case Op::OpAccessChain:
    case Op::OpInBoundsAccessChain:
    case Op::OpPtrAccessChain:
    case Op::OpInBoundsPtrAccessChain: return lower_access_chain(i);
    case Op::OpCopyMemory:
    case Op::OpCopyMemorySized: return lower_copy_memory(i);
    case Op::OpPtrCastToGeneric:
    case Op::OpGenericCastToPtr:
    case Op::OpGenericCastToPtrExplicit:
    case Op::OpConvertPtrToU:
    case Op::OpConvertUToPtr:
    case Op::OpPtrEqual:
    case Op::OpPtrNotEqual:
    case Op::OpPtrDiff: return lower_pointer_cast(i);
    case Op::OpBitcast: {
      const ir::Instruction* src = def(i.operands[0]);
      const ir::Instruction* rt = def(i.type_id);
      bool src_ptr = src && def(src->type_id) && def(src->type_id)->opcode == Op::OpTypePointer;
      bool dst_ptr = rt && rt->opcode == Op::OpTypePointer;
      if (src_ptr || dst_ptr) return lower_pointer_cast(i);
      return copy_instruction(i);
    }
    case Op::OpCopyLogical: {
      // SPIR-V 1.4: between types equal but for decorations; rebuilt member by member.
      const ir::Instruction* src = def(i.operands[0]);
      if (!src) return fail("bad operand: " + describe(i));
      uint32_t r = copy_logical(value(i.operands[0]), src->type_id, i.type_id);
      if (!r) return fail("OpCopyLogical between types that do not match: " + describe(i));
      bind(i.result_id, lower_type(i.type_id), r);
      return !failed_;
    }
    case Op::OpVectorExtractDynamic: {
      auto d = builtin_vector_default_.find(i.operands[0]);
      if (d == builtin_vector_default_.end()) return copy_instruction(i);
      uint32_t rt = lower_type(i.type_id);
      uint32_t index = value(i.operands[1]);
      uint32_t iw = width_of_int_type(lower_type(def(i.operands[1])->type_id));
      uint32_t in_range = emit(Op::OpULessThan, t_bool(), {index, c_uint(iw, 3)});
      uint32_t safe = emit(Op::OpSelect, lower_type(def(i.operands[1])->type_id),
                           {in_range, index, c_uint(iw, 0)});
      uint32_t v = emit(Op::OpVectorExtractDynamic, rt, {value(i.operands[0]), safe});
      bind(i.result_id, rt,
           emit(Op::OpSelect, rt, {in_range, v, c_uint(width_of_int_type(rt), d->second)}));
      return !failed_;
    }
    case Op::OpLifetimeStart:
    case Op::OpLifetimeStop:
    case Op::OpNop:
    case Op::OpLine:
    case Op::OpNoLine: return true;
    case Op::OpExtInst:
      if (i.operands[0] == opencl_std_) return lower_opencl_std(i);
      if (resume_set_ && i.operands[0] == resume_set_) return lower_resume(i);
      if (i.type_id && def(i.type_id) && def(i.type_id)->opcode == Op::OpTypeVoid)
        return true;  // non-semantic / debug info
      return fail("extended instruction not supported: " + describe(i));
    case Op::OpAtomicLoad: case Op::OpAtomicStore: case Op::OpAtomicExchange:
    case Op::OpAtomicCompareExchange: case Op::OpAtomicCompareExchangeWeak:
    case Op::OpAtomicIIncrement: case Op::OpAtomicIDecrement: case Op::OpAtomicIAdd:
    case Op::OpAtomicISub: case Op::OpAtomicSMin: case Op::OpAtomicUMin: case Op::OpAtomicSMax:
    case Op::OpAtomicUMax: case Op::OpAtomicAnd: case Op::OpAtomicOr: case Op::OpAtomicXor:
    case Op::OpAtomicFlagTestAndSet: case Op::OpAtomicFlagClear: case Op::OpAtomicFAddEXT:
    case Op::OpAtomicFMinEXT: case Op::OpAtomicFMaxEXT:
      return lower_atomic_instruction(i);
    case Op::OpGetKernelMaxNumSubgroups:
    case Op::OpGetKernelLocalSizeForSubgroupCount: {
      // The queries of SubgroupDispatch, about the kernel an Invoke function would be
      // enqueued as: Vulkan's sub-groups have the device's fixed size, so they are
      // constants, as clGetKernelSubGroupInfo computes them.
      uint32_t sub = std::max(ctx_.caps.subgroup_size, 1u), max = ctx_.caps.max_work_group_size;
      uint32_t rt = lower_type(i.type_id);
      if (i.opcode == Op::OpGetKernelMaxNumSubgroups) {
        bind(i.result_id, rt, c_u32((max + sub - 1) / sub));
      } else {
        uint32_t count = value(i.operands[0]);
        uint32_t local = emit(Op::OpIMul, t_uint(32), {count, c_u32(sub)});
        uint32_t fits = emit(Op::OpLogicalAnd, t_bool(),
                             {emit(Op::OpINotEqual, t_bool(), {count, c_u32(0)}),
                              emit(Op::OpULessThanEqual, t_bool(), {count, c_u32(max / sub)})});
        bind(i.result_id, rt, emit(Op::OpSelect, rt, {fits, local, c_u32(0)}));
      }
      return !failed_;
    }
    case Op::OpControlBarrier: {
      const ir::Instruction* sem = def(i.operands[2]);
      (void)sem;
      emit_void(Op::OpControlBarrier,
                {lower_scope(i.operands[0], AddressFormat::Local32),
                 lower_scope(i.operands[1], AddressFormat::Local32),
                 lower_semantics(i.operands[2], i.opcode)});
      return !failed_;
    }
    case Op::OpMemoryBarrier:
      return lower_memory_barrier(i);
    case Op::OpIsFinite: case Op::OpIsNormal: case Op::OpSignBitSet: case Op::OpOrdered:
    case Op::OpUnordered: case Op::OpLessOrGreater:
      return lower_kernel_only_op(i);
    case Op::OpUConvert: case Op::OpSConvert: case Op::OpFConvert: case Op::OpConvertFToU:
    case Op::OpConvertFToS: case Op::OpConvertSToF: case Op::OpConvertUToF:
    case Op::OpSatConvertSToU: case Op::OpSatConvertUToS:
      return lower_conversion(i);
    case Op::OpGroupAsyncCopy: case Op::OpGroupWaitEvents: case Op::OpGroupAll:
    case Op::OpGroupAny: case Op::OpGroupBroadcast: case Op::OpGroupIAdd: case Op::OpGroupFAdd:
    case Op::OpGroupSMin: case Op::OpGroupUMin: case Op::OpGroupFMin: case Op::OpGroupSMax:
    case Op::OpGroupUMax: case Op::OpGroupFMax: case Op::OpGroupIMulKHR: case Op::OpGroupFMulKHR:
    case Op::OpGroupBitwiseAndKHR: case Op::OpGroupBitwiseOrKHR: case Op::OpGroupBitwiseXorKHR:
    case Op::OpGroupLogicalAndKHR: case Op::OpGroupLogicalOrKHR: case Op::OpGroupLogicalXorKHR:
      return lower_group(i);
    case Op::OpGenericPtrMemSemantics:
      return lower_generic_semantics(i);
    case Op::OpReadClockKHR: {
      // cl_khr_kernel_clock / SPV_KHR_shader_clock. Vulkan reads Device and Subgroup clocks;
      // a work-group's clock is the device's, which is coherent across the work-group too.
      bool ok = false;
      uint64_t scope = constant_value(i.operands[0], &ok);
      bool subgroup = ok && scope == uint64_t(spv::Scope::Subgroup);
      bool device = ok && (scope == uint64_t(spv::Scope::Device) || scope == uint64_t(spv::Scope::Workgroup));
      if ((!subgroup || !ctx_.caps.subgroup_clock) && (!device || !ctx_.caps.device_clock))
        return fail("OpReadClockKHR of this scope needs a Vulkan shader clock the device lacks");
      need_capability(spv::Capability::ShaderClockKHR);
      need_extension("SPV_KHR_shader_clock");
      uint32_t vk_scope = c_uint(32, uint32_t(subgroup ? spv::Scope::Subgroup : spv::Scope::Device));
      bind(i.result_id, lower_type(i.type_id), emit(Op::OpReadClockKHR, lower_type(i.type_id), {vk_scope}));
      return !failed_;
    }
    case Op::OpExpectKHR:  // SPV_KHR_expect_assume: hints Vulkan has no use for
      bind(i.result_id, lower_type(i.type_id), value(i.operands[0]));
      return !failed_;
    case Op::OpAssumeTrueKHR:
      return true;
    case Op::OpGroupNonUniformRotateKHR:
      return lower_rotate(i);
    case Op::OpGroupNonUniformElect: case Op::OpGroupNonUniformAll: case Op::OpGroupNonUniformAny:
    case Op::OpGroupNonUniformAllEqual: case Op::OpGroupNonUniformBroadcast:
    case Op::OpGroupNonUniformBroadcastFirst: case Op::OpGroupNonUniformBallot:
    case Op::OpGroupNonUniformInverseBallot: case Op::OpGroupNonUniformBallotBitExtract:
    case Op::OpGroupNonUniformBallotBitCount: case Op::OpGroupNonUniformBallotFindLSB:
    case Op::OpGroupNonUniformBallotFindMSB: case Op::OpGroupNonUniformShuffle:
    case Op::OpGroupNonUniformShuffleXor: case Op::OpGroupNonUniformShuffleUp:
    case Op::OpGroupNonUniformShuffleDown: case Op::OpGroupNonUniformIAdd:
    case Op::OpGroupNonUniformFAdd: case Op::OpGroupNonUniformIMul: case Op::OpGroupNonUniformFMul:
    case Op::OpGroupNonUniformSMin: case Op::OpGroupNonUniformUMin: case Op::OpGroupNonUniformFMin:
    case Op::OpGroupNonUniformSMax: case Op::OpGroupNonUniformUMax: case Op::OpGroupNonUniformFMax:
    case Op::OpGroupNonUniformBitwiseAnd: case Op::OpGroupNonUniformBitwiseOr:
    case Op::OpGroupNonUniformBitwiseXor: case Op::OpGroupNonUniformLogicalAnd:
    case Op::OpGroupNonUniformLogicalOr: case Op::OpGroupNonUniformLogicalXor:
      return lower_non_uniform(i);
    case Op::OpSizeOf:
      return fail("not supported yet (issue 3): " + describe(i));
    case Op::OpSampledImage: case Op::OpImageSampleExplicitLod: case Op::OpImageSampleImplicitLod:
    case Op::OpImageRead: case Op::OpImageWrite: case Op::OpImageFetch:
    case Op::OpImageQuerySize: case Op::OpImageQuerySizeLod: case Op::OpImageQueryFormat:
    case Op::OpImageQueryOrder: case Op::OpImageQueryLevels: case Op::OpImageQuerySamples:
      return lower_image(i);
    case Op::OpFunctionCall:
      for (size_t k = 1; k < i.operands.size(); ++k)
        if (const ir::Instruction* a = def(i.operands[k]))
          if (is_image_type(a->type_id)) return lower_image_call(i);
      break;
    case Op::OpBitFieldInsert: case Op::OpBitFieldSExtract: case Op::OpBitFieldUExtract:
    case Op::OpBitReverse: case Op::OpSDot: case Op::OpUDot: case Op::OpSUDot:
    case Op::OpSDotAccSat: case Op::OpUDotAccSat: case Op::OpSUDotAccSat:
      return lower_integer_ext(i);
    default:
      break;
  }
  // Everything else has the same meaning in the Shader model; check the operand types are
  // ones the Shader model allows.
  switch (i.opcode) {
    case Op::OpPhi: case Op::OpSelect: case Op::OpFunctionCall: case Op::OpReturn:
    case Op::OpReturnValue: case Op::OpBranch: case Op::OpBranchConditional: case Op::OpSwitch:
    case Op::OpSelectionMerge: case Op::OpLoopMerge: case Op::OpUnreachable: case Op::OpUndef:
    case Op::OpCopyObject: case Op::OpCompositeConstruct: case Op::OpCompositeExtract:
    case Op::OpCompositeInsert: case Op::OpVectorShuffle: case Op::OpVectorExtractDynamic:
    case Op::OpVectorInsertDynamic: case Op::OpSNegate: case Op::OpFNegate: case Op::OpIAdd:
    case Op::OpFAdd: case Op::OpISub: case Op::OpFSub: case Op::OpIMul: case Op::OpFMul:
    case Op::OpUDiv: case Op::OpSDiv: case Op::OpFDiv: case Op::OpUMod: case Op::OpSRem:
    case Op::OpSMod: case Op::OpFRem: case Op::OpFMod: case Op::OpVectorTimesScalar:
    case Op::OpDot: case Op::OpIAddCarry: case Op::OpISubBorrow: case Op::OpUMulExtended:
    case Op::OpSMulExtended: case Op::OpShiftRightLogical: case Op::OpShiftRightArithmetic:
    case Op::OpShiftLeftLogical: case Op::OpBitwiseOr: case Op::OpBitwiseXor:
    case Op::OpBitwiseAnd: case Op::OpNot: case Op::OpBitFieldInsert:
    case Op::OpBitFieldSExtract: case Op::OpBitFieldUExtract: case Op::OpBitReverse:
    case Op::OpBitCount: case Op::OpAny: case Op::OpAll: case Op::OpIsNan: case Op::OpIsInf:
    case Op::OpLogicalEqual: case Op::OpLogicalNotEqual: case Op::OpLogicalOr:
    case Op::OpLogicalAnd: case Op::OpLogicalNot: case Op::OpIEqual: case Op::OpINotEqual:
    case Op::OpUGreaterThan: case Op::OpSGreaterThan: case Op::OpUGreaterThanEqual:
    case Op::OpSGreaterThanEqual: case Op::OpULessThan: case Op::OpSLessThan:
    case Op::OpULessThanEqual: case Op::OpSLessThanEqual: case Op::OpFOrdEqual:
    case Op::OpFUnordEqual: case Op::OpFOrdNotEqual: case Op::OpFUnordNotEqual:
    case Op::OpFOrdLessThan: case Op::OpFUnordLessThan: case Op::OpFOrdGreaterThan:
    case Op::OpFUnordGreaterThan: case Op::OpFOrdLessThanEqual: case Op::OpFUnordLessThanEqual:
    case Op::OpFOrdGreaterThanEqual: case Op::OpFUnordGreaterThanEqual:
      if (i.opcode == Op::OpBitCount && shape_of(lower_type(i.type_id)).width != 32) {
        // Vulkan counts bits of 32-bit integers only; popcount handles the other widths.
        ir::Instruction p(Op::OpExtInst, i.type_id, i.result_id,
                          {opencl_std_, uint32_t(OpenCLLIB::Popcount), i.operands[0]});
        return lower_opencl_std(p);
      }
      return copy_instruction(i);
    default:
      return fail("instruction not supported yet: " + describe(i));
  }
}

uint32_t Lowering::local_region(uint32_t size, uint32_t alignment) {
  // A specialization constant without SpecId: never merged with equal constants by a later
  // pass, and made an OpConstant of the kernel's offset when the kernel is extracted.
  uint32_t id = take_id();
  out_.globals.emplace_back(Op::OpSpecConstant, t_uint(32), id, std::vector<uint32_t>{0});
  local_regions_.push_back({id, (size + 3) / 4 * 4, std::max<uint32_t>(alignment, 4)});
  return id;
}

uint32_t Lowering::push_word(uint32_t index) {
  uint32_t p = emit(Op::OpAccessChain, t_ptr(spv::StorageClass::PushConstant, t_uint(32)),
                    {push_var_, c_u32(1), c_u32(index)});
  uint32_t word = emit(Op::OpLoad, t_uint(32), {p});
  // DispatchBlock: global_offset, enqueued_local_size and region_group_offset, each known
  // where the pipeline is specialised for it (kSpecNoGlobalOffset and the others).
  struct Known { uint32_t first, spec_id, slot; };
  // (A field's word index: its byte offset after the 8-byte argument block address.)
  static constexpr Known kKnown[] = {
      {(offsetof(DispatchBlock, global_offset) - 8) / 4, kSpecNoGlobalOffset, 0},
      {(offsetof(DispatchBlock, enqueued_local_size) - 8) / 4, kSpecWholeGroups, 1},
      {(offsetof(DispatchBlock, region_group_offset) - 8) / 4, kSpecRegionAtOrigin, 2}};
  for (const Known& k : kKnown) {
    if (index < k.first || index >= k.first + 3) continue;
    uint32_t& fact = launch_facts_[k.slot];
    if (!fact) {
      fact = take_id();
      out_.globals.emplace_back(Op::OpSpecConstantFalse, t_bool(), fact, std::vector<uint32_t>{});
      decorate(fact, spv::Decoration::SpecId, {k.spec_id});
    }
    uint32_t value = k.slot == 1 ? opencl_local_size(index - k.first) : c_u32(0);
    return emit(Op::OpSelect, t_uint(32), {fact, value, word});
  }
  return word;
}

uint32_t Lowering::arg_block_address() {
  uint32_t p = emit(Op::OpAccessChain, t_ptr(spv::StorageClass::PushConstant, t_uint(64)),
                    {push_var_, c_u32(0)});
  return emit(Op::OpLoad, t_uint(64), {p});
}

// ---------------------------------------------------------------- kernels

// Mesa's gallivm gives each batch of invocations one loop limiter: a counter set to 65535
// that every back edge of every loop decrements, each loop leaving at a back edge where it
// is no longer positive. Once the kernel's loops have used it up, a loop of two iterations
// that runs after them (every work-item reaches the entry point's end, and the driver
// reconverges them there) leaves after its first. Its trip count is a run-time value, 2
// whatever the work dimension is, so the driver cannot unroll it. No cut goes unnoticed; a
// false alarm needs a kernel whose loops ended with the counter at 1 or 0 without needing
// another iteration (measured on lavapipe: two loops of n iterations are cut from
// n = 32768 on, and reported from n = 32766 on).
uint32_t Lowering::emit_probe_loop(ir::Function& f) {
  uint32_t u32 = t_uint(32);
  uint32_t work_dim = push_word(3);  // DispatchBlock::work_dim, 1 to 3
  uint32_t trips = emit(Op::OpIAdd, u32, {c_u32(2), emit(Op::OpShiftRightLogical, u32, {work_dim, c_u32(2)})});
  uint32_t before = f.blocks.back().label;
  uint32_t header = take_id(), body = take_id(), next = take_id(), merge = take_id();
  uint32_t trip = take_id(), stepped = take_id();
  ctx_.probe_loops.insert(header);
  emit_void(Op::OpBranch, {header});
  start_block(f, header);
  block_->emplace_back(Op::OpPhi, u32, trip, std::vector<uint32_t>{c_u32(0), before, stepped, next});
  uint32_t go = emit(Op::OpULessThan, t_bool(), {trip, trips});
  emit_void(Op::OpLoopMerge, {merge, next, 0});
  emit_void(Op::OpBranchConditional, {go, body, merge});
  start_block(f, body);
  emit_void(Op::OpBranch, {next});
  start_block(f, next);
  block_->emplace_back(Op::OpIAdd, u32, stepped, std::vector<uint32_t>{trip, c_u32(1)});
  emit_void(Op::OpBranch, {header});
  start_block(f, merge);
  // Not the loop's own test: a use of that condition after the loop could be folded to
  // false by a compiler that knows only the loop's exit through it.
  return emit(Op::OpINotEqual, t_bool(), {trip, trips});
}

uint32_t Lowering::cut_before_stop_var() {
  if (cut_before_stop_var_) return cut_before_stop_var_;
  cut_before_stop_var_ = take_id();
  out_.globals.emplace_back(Op::OpVariable, t_ptr(spv::StorageClass::Private, t_bool()), cut_before_stop_var_,
                            std::vector<uint32_t>{uint32_t(spv::StorageClass::Private), c_bool(false)});
  interface_.push_back(cut_before_stop_var_);
  return cut_before_stop_var_;
}

// A function that runs the probe loop and says whether it was cut.
uint32_t Lowering::probe_helper() {
  if (probe_helper_) return probe_helper_;
  auto* caller_block = block_;
  ir::Function f;
  std::vector<uint32_t> none;
  start_helper(f, t_bool(), {}, none);
  uint32_t cut = emit_probe_loop(f);
  emit_void(Op::OpReturnValue, {cut});
  out_.functions.push_back(std::move(f));
  block_ = caller_block;
  return probe_helper_ = out_.functions.back().id();
}

void Lowering::emit_loop_limit_probe(ir::Function& main, uint32_t args, uint32_t slot) {
  uint32_t u64 = t_uint(64);
  uint32_t report = take_id(), end = take_id();
  uint32_t cut = emit_probe_loop(main);
  // A work-item that stopped to resume in the next round had its loops counted and cut
  // them itself; what the probe sees of its batch then says nothing. What it saw when it
  // stopped does (a batch of a work-group that stops together may have run a long loop
  // with no place to stop in it before the barrier it stopped at).
  if (stopped_var_)
    cut = emit(Op::OpLogicalAnd, t_bool(), {cut, emit(Op::OpLogicalNot, t_bool(), {emit(Op::OpLoad, t_bool(), {stopped_var_})})});
  if (cut_before_stop_var_)
    cut = emit(Op::OpLogicalOr, t_bool(), {cut, emit(Op::OpLoad, t_bool(), {cut_before_stop_var_})});
  emit_void(Op::OpSelectionMerge, {end, 0});
  emit_void(Op::OpBranchConditional, {cut, report, end});
  start_block(main, report);
  uint32_t address = load_out(AddressFormat::Global64,
                              add_offset(AddressFormat::Global64, args, c_u64(slot)), u64, 8);
  uint32_t status = emit(Op::OpConvertUToPtr, t_ptr(spv::StorageClass::PhysicalStorageBuffer, t_uint(32)), {address});
  emit(Op::OpAtomicOr, t_uint(32), {status, c_u32(uint32_t(spv::Scope::Device)), c_u32(0), c_u32(1)});
  emit_void(Op::OpBranch, {end});
  start_block(main, end);
}

bool Lowering::loops_reachable(uint32_t fn) const {
  std::unordered_map<uint32_t, const ir::Function*> by_id;
  for (const ir::Function& f : out_.functions) by_id[f.id()] = &f;
  std::vector<uint32_t> work = {fn};
  std::unordered_set<uint32_t> seen = {fn};
  while (!work.empty()) {
    auto it = by_id.find(work.back());
    work.pop_back();
    if (it == by_id.end()) continue;
    for (const ir::Block& b : it->second->blocks)
      for (const ir::Instruction& i : b.instructions) {
        if (i.opcode == Op::OpLoopMerge) return true;
        if (i.opcode == Op::OpFunctionCall && seen.insert(i.operands[0]).second) work.push_back(i.operands[0]);
      }
  }
  return false;
}

bool Lowering::build_entry_point(const ir::Instruction& entry) {
  uint32_t fn = entry.operands[1];
  std::string name = ir::decode_string(entry.operands, 2);
  const ir::Instruction* fdef = def(fn);
  const ir::Function* in_fn = nullptr;
  for (const auto& f : in_.functions)
    if (f.id() == fn) in_fn = &f;
  if (!fdef || !in_fn) return fail("entry point " + name + " has no function");

  KernelInterface ki;
  ki.name = name;
  for (const auto& m : in_.execution_modes) {
    if (m.operands[0] != fn) continue;
    auto mode = spv::ExecutionMode(m.operands[1]);
    if (mode == spv::ExecutionMode::LocalSize)
      ki.required_work_group_size = std::array<uint32_t, 3>{m.operands[2], m.operands[3],
                                                            m.operands[4]};
    if (mode == spv::ExecutionMode::LocalSizeHint)
      ki.work_group_size_hint = std::array<uint32_t, 3>{m.operands[2], m.operands[3],
                                                        m.operands[4]};
    // SubgroupDispatch (SPIR-V 1.1): the number of sub-groups the kernel is written for, which
    // clGetKernelSubGroupInfo reports; and a sub-group size the device must have.
    if (mode == spv::ExecutionMode::SubgroupsPerWorkgroup) ki.compile_num_sub_groups = m.operands[2];
    if (mode == spv::ExecutionMode::SubgroupsPerWorkgroupId) {
      bool ok = false;
      ki.compile_num_sub_groups = uint32_t(constant_value(m.operands[2], &ok));
      if (!ok) return fail("SubgroupsPerWorkgroupId of a value that is not a constant");
    }
    if (mode == spv::ExecutionMode::SubgroupSize && m.operands[2] != ctx_.caps.subgroup_size)
      return fail("kernel " + name + " needs sub-groups of " + std::to_string(m.operands[2]) +
                  " work-items; the device's have " + std::to_string(ctx_.caps.subgroup_size));
  }

  wide_arena_ = byte_arena_ = quad_arena_ = false;  // the wrapper below touches no local memory
  ir::Function main;
  uint32_t fn_type = type(Op::OpTypeFunction, {t_void()});
  uint32_t main_id = take_id();
  main.definition = ir::Instruction(Op::OpFunction, t_void(), main_id, {0, fn_type});
  main.blocks.push_back(ir::Block{take_id(), {}});
  block_ = &main.blocks.back().instructions;

  uint32_t args = arg_block_address();
  uint32_t offset = kArgumentScratchBytes;
  if (!program_variables_.empty()) {
    ki.program_data_address_offset = kProgramDataSlot;
    if (constant_buffers_.count(kProgramConstantsBinding)) ki.program_constants_binding = kProgramConstantsBinding;
    offset = kProgramDataSlot + 8;
  }
  if (uses_printf_) {
    ki.printf_buffer_address_offset = kPrintfSlot;
    offset = kPrintfSlot + 8;
  }
  auto resumable = ctx_.resumable.find(fn);
  if (resumable != ctx_.resumable.end()) {
    ki.resume_area_offset = kResumeSlot;
    ki.resume_record_size = resumable->second.record_size;
    ki.resume_group_records = resumable->second.group_records;
    offset = kResumeSlot + 32;
  }
  if (ctx_.caps.checked_memory) {
    ki.check_table_offset = kCheckSlot;
    offset = kCheckSlot + 8;
  }
  // Only modules with local memory at all have anything to zero.
  bool local_arguments = false;
  for (const auto& p : in_fn->parameters) {
    const ir::Instruction* pt = def(p.type_id);
    local_arguments = local_arguments || (pt->opcode == Op::OpTypePointer &&
                                          spv::StorageClass(pt->operands[0]) == spv::StorageClass::Workgroup);
  }
  if (local_arguments || static_local_bytes_ > 0 || !local_regions_.empty())
    emit_local_zeroing(main, fn);
  std::vector<uint32_t> call = {value(fn)};
  // The slots before the arguments are pushed as far as the window reaches (argument_slot).
  uint32_t pushed_end = std::min(offset - kArgumentScratchBytes, 4 * push_argument_words_) / 8 * 8;
  for (const auto& p : in_fn->parameters) {
    const uint32_t index = uint32_t(&p - in_fn->parameters.data());
    const ir::Instruction* pt = def(p.type_id);
    KernelArg arg{};
    bool byval = false;
    if (const ir::Instruction* attr = decoration(p.result_id, spv::Decoration::FuncParamAttr))
      byval = spv::FunctionParameterAttribute(attr->operands[2]) ==
              spv::FunctionParameterAttribute::ByVal;
    uint32_t arg_type = p.type_id;
    if (pt->opcode == Op::OpTypePointer && !byval) {
      auto storage = spv::StorageClass(pt->operands[0]);
      arg.address_space = uint32_t(storage);
      if (storage == spv::StorageClass::Workgroup) {
        arg.kind = ArgKind::LocalPointer;
        arg.size = 4;
      } else if (storage == spv::StorageClass::CrossWorkgroup ||
                 storage == spv::StorageClass::UniformConstant) {
        arg.kind = ArgKind::GlobalPointer;
        arg.size = 8;
      } else {
        return fail("kernel " + name + ": pointer argument in storage class " +
                    std::to_string(uint32_t(storage)) + " is not supported");
      }
    } else if (pt->opcode == Op::OpTypeImage) {
      arg.kind = ArgKind::Image;
      arg.size = 24;
    } else if (pt->opcode == Op::OpTypeSampler) {
      arg.kind = ArgKind::Sampler;
      arg.size = 4;
    } else {
      arg.kind = ArgKind::ByValue;
      if (byval) arg_type = pointee(p.type_id);
      arg.size = layout_.of(arg_type).size;
    }
    uint32_t a = arg.kind == ArgKind::ByValue ? layout_.of(arg_type).alignment
                 : arg.kind == ArgKind::Image ? 4 : arg.size;
    offset = (offset + a - 1) / a * a;
    arg.offset = offset;
    offset += arg.size;
    if (arg.kind == ArgKind::Image) {
      // Read where the kernel uses it (lower_image.cpp); the call passes no image.
      place_image_words(fn, uint32_t(ki.args.size()), arg.offset, &arg);
      ki.args.push_back(arg);
      continue;
    }
    const bool constant_buffer = arg.address_space == uint32_t(spv::StorageClass::UniformConstant) &&
                                 arg.kind == ArgKind::GlobalPointer && constant_buffers_.count(index);
    if (constant_buffer) arg.binding = index;
    ki.args.push_back(arg);

    // Arguments inside the pushed window are read from push constants.
    bool pushed = arg.offset >= kArgumentScratchBytes &&
                  arg.offset + arg.size <= kArgumentScratchBytes + 4 * push_argument_words_;
    AddressFormat from = pushed ? AddressFormat::Push32 : AddressFormat::Global64;
    uint32_t address = pushed ? c_u32(arg.offset - kArgumentScratchBytes)
                              : add_offset(AddressFormat::Global64, args, c_u64(arg.offset));
    if (pushed) pushed_end = arg.offset + arg.size - kArgumentScratchBytes;
    if (byval) {
      // The kernel receives a private copy of the struct.
      const Layout& l = layout_.of(arg_type);
      private_arena_ = private_arenas_.of_value(p.result_id);
      uint32_t copy = c_u32(place_private(l.size, 8));
      uint32_t v = load(from, address, arg_type, l.alignment);
      store(AddressFormat::Private32, copy, arg_type, v, l.alignment);
      private_arena_ = PrivateArenas::kMain;
      call.push_back(copy);
    } else if (arg.kind == ArgKind::LocalPointer || arg.kind == ArgKind::Sampler) {
      call.push_back(load_out(from, address, t_uint(32), 4));
    } else {
      call.push_back(load(from, address, arg_type,
                          arg.kind == ArgKind::GlobalPointer ? 8 : layout_.of(arg_type).alignment));
    }
    // What its uniform buffer's offsets count from.
    if (constant_buffer) emit_void(Op::OpStore, {constant_buffers_[index].base, call.back()});
    if (failed_) return false;
  }
  // Only a kernel with a loop that may run long can have one cut short; the others carry no
  // status word (and
  // so a command buffer can record them once). Where small types are widened, a later pass
  // adds loops of its own (8- and 16-bit stores become compare-and-swap loops): those keep it.
  const TargetCaps& caps = ctx_.caps;
  const bool widened = !(caps.int8 && caps.storage8 && caps.int16 && caps.storage16 && caps.float16);
  if (caps.loop_iteration_limit && (widened || (loops_reachable(value(fn)) && !ctx_.bounded_kernels.count(fn)))) {
    offset = (offset + 7) / 8 * 8;
    ki.loop_limit_status_offset = offset;
    offset += 8;
  }
  // (Not where the widening adds loops of its own.)
  if (auto counted = ctx_.counted_loops.find(fn); caps.loop_iteration_limit && !widened && counted != ctx_.counted_loops.end())
    ki.counted_loops = counted->second;
  ki.argument_block_size = (offset + 15) / 16 * 16;
  ki.push_constant_size = uint32_t(sizeof(DispatchBlock)) + 4 * push_argument_words_;
  ki.pushed_arguments_offset = kArgumentScratchBytes;
  ki.pushed_arguments_size = (pushed_end + 3) / 4 * 4;
  if (ctx_.packable.count(fn)) {
    // Places of a packed Vulkan workgroup past the region's last group run nothing.
    ki.packable = true;
    uint32_t runs = runs_a_group();
    uint32_t body = take_id(), after = take_id();
    emit_void(Op::OpSelectionMerge, {after, 0});
    emit_void(Op::OpBranchConditional, {runs, body, after});
    main.blocks.push_back(ir::Block{body, {}});
    block_ = &main.blocks.back().instructions;
    emit(Op::OpFunctionCall, t_void(), call);
    emit_void(Op::OpBranch, {after});
    main.blocks.push_back(ir::Block{after, {}});
    block_ = &main.blocks.back().instructions;
  } else {
    emit(Op::OpFunctionCall, t_void(), call);
  }
  if (ki.loop_limit_status_offset != UINT32_MAX)
    emit_loop_limit_probe(main, args, ki.loop_limit_status_offset);
  emit_void(Op::OpReturn, {});
  out_.functions.push_back(std::move(main));

  ir::Instruction ep(Op::OpEntryPoint, 0, 0, {uint32_t(spv::ExecutionModel::GLCompute), main_id});
  ir::append_string(&ep.operands, name);
  ep.operands.push_back(arena_of(fn).variable);
  for (uint32_t v : image_variables(fn)) ep.operands.push_back(v);
  ep_instructions_.push_back(ep);
  out_.execution_modes.emplace_back(Op::OpExecutionMode, 0, 0,
      std::vector<uint32_t>{main_id, uint32_t(spv::ExecutionMode::LocalSize), 1, 1, 1});
  // OpenCL requires IEEE infinities, NaNs and signed zeros; Vulkan keeps them only when asked.
  if (ctx_.caps.preserve_inf_nan32) {
    need_capability(spv::Capability::SignedZeroInfNanPreserve);
    out_.execution_modes.emplace_back(Op::OpExecutionMode, 0, 0,
        std::vector<uint32_t>{main_id, uint32_t(spv::ExecutionMode::SignedZeroInfNanPreserve), 32});
  }
  kernels_.push_back(ki);
  return true;
}

}  // namespace vkcl::k2s

namespace vkcl::k2s {

bool Lowering::run(ir::Module* result) {
  if (!index_input()) return false;
  out_ = ir::Module();
  out_.version = 0x00010500;  // Vulkan 1.2
  out_.generator = 0;
  out_.bound = 1;

  // Push constants: { u64 argument block address; u32 words[20]; u64 arguments[N] } (see
  // DispatchBlock). The arguments are the argument block's bytes from kArgumentScratchBytes
  // on, as far as the device's push constants reach: kernels read them there, uniform in
  // every work-item, instead of from memory (as 64-bit words: push_word_at says why).
  uint32_t words = type(Op::OpTypeArray, {t_uint(32), c_u32(20)});
  decorate(words, spv::Decoration::ArrayStride, {4});
  uint32_t room = ctx_.caps.max_push_constant_size > sizeof(DispatchBlock)
                      ? ctx_.caps.max_push_constant_size - uint32_t(sizeof(DispatchBlock)) : 0;
  static_assert(sizeof(DispatchBlock) % 8 == 0 && kMaxPushedArgumentBytes % 8 == 0 &&
                kArgumentScratchBytes % 8 == 0);
  push_argument_words_ = std::min<uint32_t>(room / 8 * 2, kMaxPushedArgumentBytes / 4);
  std::vector<uint32_t> members = {t_uint(64), words};
  if (push_argument_words_) {
    uint32_t arguments = type(Op::OpTypeArray, {t_uint(64), c_u32(push_argument_words_ / 2)});
    decorate(arguments, spv::Decoration::ArrayStride, {8});
    members.push_back(arguments);
  }
  uint32_t block = take_id();
  out_.globals.emplace_back(Op::OpTypeStruct, 0, block, members);
  decorate(block, spv::Decoration::Block);
  const uint32_t member_offsets[] = {0, 8, uint32_t(sizeof(DispatchBlock))};
  for (uint32_t m = 0; m < members.size(); ++m)
    annotations_.emplace_back(Op::OpMemberDecorate, 0, 0,
        std::vector<uint32_t>{block, m, uint32_t(spv::Decoration::Offset), member_offsets[m]});
  push_var_ = take_id();
  out_.globals.emplace_back(Op::OpVariable, t_ptr(spv::StorageClass::PushConstant, block),
                            push_var_, std::vector<uint32_t>{uint32_t(spv::StorageClass::PushConstant)});
  interface_.push_back(push_var_);

  // Local memory: u32[spec constant] shared by static __local variables and __local arguments.
  uint32_t local_words = local_words_ = take_id();
  out_.globals.emplace_back(Op::OpSpecConstant, t_uint(32), local_words, std::vector<uint32_t>{16});
  decorate(local_words, spv::Decoration::SpecId, {kSpecLocalMemoryWords});
  uint32_t local_array = take_id();
  out_.globals.emplace_back(Op::OpTypeArray, 0, local_array,
                            std::vector<uint32_t>{t_uint(32), local_words});
  local_memory_var_ = take_id();
  out_.globals.emplace_back(Op::OpVariable, t_ptr(spv::StorageClass::Workgroup, local_array),
                            local_memory_var_,
                            std::vector<uint32_t>{uint32_t(spv::StorageClass::Workgroup)});
  if (!wide_functions_.empty()) {
    // The wide arena (wide_arena.cpp): as many bytes in 64-bit words. Each entry point lists
    // only the arena it uses, so the other takes no shared memory.
    if (!ctx_.caps.int64_atomics) return fail("64-bit atomics on local memory are not supported by this device");
    uint32_t plus_one = take_id(), halved = take_id();
    out_.globals.emplace_back(Op::OpSpecConstantOp, t_uint(32), plus_one,
                              std::vector<uint32_t>{uint32_t(Op::OpIAdd), local_words, c_u32(1)});
    out_.globals.emplace_back(Op::OpSpecConstantOp, t_uint(32), halved,
                              std::vector<uint32_t>{uint32_t(Op::OpUDiv), plus_one, c_u32(2)});
    uint32_t wide_array = take_id();
    local_wide_words_ = halved;
    out_.globals.emplace_back(Op::OpTypeArray, 0, wide_array, std::vector<uint32_t>{t_uint(64), halved});
    local_wide_var_ = take_id();
    out_.globals.emplace_back(Op::OpVariable, t_ptr(spv::StorageClass::Workgroup, wide_array),
                              local_wide_var_,
                              std::vector<uint32_t>{uint32_t(spv::StorageClass::Workgroup)});
  }

  if (!byte_functions_.empty()) {
    // The byte arena (wide_arena.cpp): as many bytes, one element each.
    need_capability(spv::Capability::Int8);
    uint32_t byte_array = take_id();
    local_bytes_ = take_id();
    out_.globals.emplace_back(Op::OpSpecConstantOp, t_uint(32), local_bytes_,
                              std::vector<uint32_t>{uint32_t(Op::OpIMul), local_words, c_u32(4)});
    out_.globals.emplace_back(Op::OpTypeArray, 0, byte_array, std::vector<uint32_t>{t_uint(8), local_bytes_});
    local_byte_var_ = take_id();
    out_.globals.emplace_back(Op::OpVariable, t_ptr(spv::StorageClass::Workgroup, byte_array),
                              local_byte_var_,
                              std::vector<uint32_t>{uint32_t(spv::StorageClass::Workgroup)});
  }

  if (!quad_functions_.empty()) {
    // The quad arena (wide_arena.cpp): as many bytes in 16-byte elements (the frontend makes
    // the word count a multiple of 4).
    uint32_t quad_array = take_id();
    local_quads_ = take_id();
    out_.globals.emplace_back(Op::OpSpecConstantOp, t_uint(32), local_quads_,
                              std::vector<uint32_t>{uint32_t(Op::OpUDiv), local_words, c_u32(4)});
    out_.globals.emplace_back(Op::OpTypeArray, 0, quad_array, std::vector<uint32_t>{t_vec(t_uint(32), 4), local_quads_});
    local_quad_var_ = take_id();
    out_.globals.emplace_back(Op::OpVariable, t_ptr(spv::StorageClass::Workgroup, quad_array),
                              local_quad_var_,
                              std::vector<uint32_t>{uint32_t(spv::StorageClass::Workgroup)});
  }

  // Private memory: its size is known once every function is lowered; ids are reserved now.
  private_arenas_.analyze(in_);
  for (uint32_t a = 0; a < private_arenas_.count(); ++a) {
    PrivateArena arena{take_id(), take_id(), take_id(), take_id(), a == PrivateArenas::kMain ? 64u : 4u};
    private_memory_.push_back(arena);
    interface_.push_back(arena.variable);
  }

  workgroup_size();  // every kernel declares its local size as specialization constants

  for (const auto& m : in_.execution_modes)
    if (spv::ExecutionMode(m.operands[1]) == spv::ExecutionMode::ContractionOff)
      contraction_off_ = true;

  if (!lower_globals() || !analyze_images()) return false;
  if (ctx_.caps.constant_buffer_words && !ctx_.caps.checked_memory)
    constant_pointers_ = constant_argument_pointers(in_, ctx_.caps.max_constant_buffers);
  for (const auto& f : in_.functions)
    if (unused_image_functions_.count(f.id())) continue;
    else if (!f.blocks.empty() && !lower_function(f)) return false;
    else if (f.blocks.empty())
      return fail("function " + (names_.count(f.id()) ? names_[f.id()] : std::to_string(f.id())) +
                  " is declared but not defined (linking is not supported yet)");
  for (const auto& e : in_.entry_points) {
    if (spv::ExecutionModel(e.operands[0]) != spv::ExecutionModel::Kernel)
      return fail("entry point is not a Kernel: " + describe(e));
    if (!build_entry_point(e)) return false;
  }
  if (failed_) return false;
  finish_module();
  // Every region, as if one kernel reached them all; translate() gives each kernel its own.
  uint32_t local_bytes = static_local_bytes_;
  for (const PassContext::LocalRegion& r : local_regions_)
    local_bytes = (local_bytes + r.alignment - 1) / r.alignment * r.alignment + r.size;
  ctx_.local_regions = local_regions_;
  ctx_.local_base = static_local_bytes_;
  for (auto& k : kernels_) {
    k.static_local_memory_size = (local_bytes + 15) / 16 * 16;
    k.private_memory_size = 0;
    for (const PrivateArena& a : private_memory_) k.private_memory_size += a.bytes;
    k.check_sites = check_sites_;
    k.check_site_arguments = check_site_arguments_;
  }
  uint32_t max_record = 0;
  for (const PrintfCall& c : printf_calls_) max_record = std::max(max_record, c.record_bytes);
  for (KernelInterface& k : kernels_) {
    if (k.printf_buffer_address_offset == UINT32_MAX) continue;
    k.printf_calls = printf_calls_;
    k.printf_max_record = max_record;
  }
  ctx_.kernels = kernels_;
  ctx_.program_data = program_data_;
  ctx_.program_relocations = program_relocations_;
  ctx_.global_variable_size = global_variable_size_;
  *result = std::move(out_);
  return true;
}

void Lowering::finish_module() {
  for (PrivateArena& a : private_memory_) {
    a.bytes = (a.bytes + 3) / 4 * 4;
    if (a.check_limit) {
      out_.globals.emplace_back(Op::OpConstant, t_uint(32), a.check_limit, std::vector<uint32_t>{a.bytes});
      a.bytes += kCheckSinkBytes;
    }
    out_.globals.emplace_back(Op::OpConstant, t_uint(32), a.length, std::vector<uint32_t>{a.bytes / 4});
    out_.globals.emplace_back(Op::OpTypeArray, 0, a.array_type, std::vector<uint32_t>{t_uint(32), a.length});
    out_.globals.emplace_back(Op::OpTypePointer, 0, a.pointer_type,
                              std::vector<uint32_t>{uint32_t(spv::StorageClass::Private), a.array_type});
    out_.globals.emplace_back(Op::OpVariable, a.pointer_type, a.variable,
                              std::vector<uint32_t>{uint32_t(spv::StorageClass::Private)});
  }

  // Doubles keep signed zeros, infinities and NaNs too (without the mode lavapipe folds
  // x + 0.0 to x, turning -0 + 0 into -0).
  if (ctx_.caps.preserve_inf_nan64 && capabilities_.count(spv::Capability::Float64)) {
    need_capability(spv::Capability::SignedZeroInfNanPreserve);
    for (const auto& ep : ep_instructions_)
      out_.execution_modes.emplace_back(Op::OpExecutionMode, 0, 0,
          std::vector<uint32_t>{ep.operands[1], uint32_t(spv::ExecutionMode::SignedZeroInfNanPreserve), 64});
  }
  capabilities_.insert(spv::Capability::Shader);
  capabilities_.insert(spv::Capability::Int64);
  capabilities_.insert(spv::Capability::PhysicalStorageBufferAddresses);
  for (auto c : capabilities_)
    out_.capabilities.emplace_back(Op::OpCapability, 0, 0, std::vector<uint32_t>{uint32_t(c)});
  for (const std::string& e : extensions_) {
    ir::Instruction x(Op::OpExtension, 0, 0, {});
    ir::append_string(&x.operands, e);
    out_.extensions.push_back(x);
  }
  out_.memory_model = ir::Instruction(Op::OpMemoryModel, 0, 0,
      {uint32_t(spv::AddressingModel::PhysicalStorageBuffer64), uint32_t(spv::MemoryModel::GLSL450)});
  for (auto ep : ep_instructions_) {
    ep.operands.insert(ep.operands.end(), interface_.begin(), interface_.end());
    out_.entry_points.push_back(ep);
  }
  out_.annotations = annotations_;
  for (const auto& [in_id, name] : names_) {
    auto it = map_.find(in_id);
    if (it == map_.end()) continue;
    const ir::Instruction* d = def(in_id);
    if (!d || d->opcode == Op::OpVariable || d->opcode == Op::OpConstant) continue;
    ir::Instruction n(Op::OpName, 0, 0, {it->second});
    ir::append_string(&n.operands, name);
    out_.debug.push_back(n);
  }
}

namespace {

class LowerToShaderPass : public Pass {
 public:
  const char* name() const override { return "lower-to-shader"; }
  PassStatus Process(ir::Module& module, PassContext& context) override {
    ir::Module out;
    std::unordered_set<uint32_t> wide = prepare_wide_arena(module);
    std::unordered_set<uint32_t> bytes;
    if (context.caps.int8) bytes = prepare_byte_arena(module, wide);
    std::unordered_set<uint32_t> others = wide;
    others.insert(bytes.begin(), bytes.end());
    std::unordered_set<uint32_t> quads = prepare_quad_arena(module, others);
    Lowering lowering(module, context);
    lowering.wide_functions_ = std::move(wide);
    lowering.byte_functions_ = std::move(bytes);
    lowering.quad_functions_ = std::move(quads);
    if (!lowering.run(&out)) return PassStatus::Failure;
    module = std::move(out);
    return PassStatus::SuccessWithChange;
  }
};

}  // namespace

std::unique_ptr<Pass> create_lower_to_shader_pass() {
  return std::make_unique<LowerToShaderPass>();
}

// |v| (of input type |from|) as a value of input type |to|; 0 when their shapes differ.
uint32_t Lowering::copy_logical(uint32_t v, uint32_t from, uint32_t to) {
  uint32_t out_to = lower_type(to);
  if (lower_type(from) == out_to) return v;
  const ir::Instruction* a = def(from);
  const ir::Instruction* b = def(to);
  if (!a || !b || a->opcode != b->opcode) return 0;
  std::vector<std::pair<uint32_t, uint32_t>> members;  // (from, to) member types
  if (a->opcode == Op::OpTypeStruct) {
    if (a->operands.size() != b->operands.size()) return 0;
    for (size_t m = 0; m < a->operands.size(); ++m) members.push_back({a->operands[m], b->operands[m]});
  } else if (a->opcode == Op::OpTypeArray) {
    bool ok_a = false, ok_b = false;
    uint64_t n = constant_value(a->operands[1], &ok_a);
    if (!ok_a || n != constant_value(b->operands[1], &ok_b) || !ok_b || n > 4096) return 0;
    members.assign(n, {a->operands[0], b->operands[0]});
  } else {
    return 0;
  }
  std::vector<uint32_t> parts;
  for (uint32_t m = 0; m < members.size(); ++m) {
    uint32_t part = emit(Op::OpCompositeExtract, lower_type(members[m].first), {v, m});
    uint32_t copied = copy_logical(part, members[m].first, members[m].second);
    if (!copied) return 0;
    parts.push_back(copied);
  }
  return emit(Op::OpCompositeConstruct, out_to, parts);
}

// OpenCL's mad: a * b + c, the product rounded or not (OpenCL C leaves it open; clang turns
// contracted a * b + c into it). One fused instruction where the probe found the device's Fma
// fused (the GPUs' fast path); otherwise a multiply and an add, each rounded once, which no
// driver may re-fuse into something the probe did not check.
// mad: "implemented either as a correctly rounded fma, or as a multiply followed by an add,
// both of which are correctly rounded". A multiply and an add the driver may contract give one
// or the other, and the device its fastest form (an FMA instruction where it has one).
uint32_t Lowering::mad(uint32_t a, uint32_t b, uint32_t c, uint32_t rt, uint32_t width) {
  if ((width == 32 && ctx_.caps.exact_fma) || (width == 64 && ctx_.caps.exact_fma64))
    return emit(Op::OpExtInst, rt, {glsl_import(), uint32_t(GLSLstd450Fma), a, b, c});
  return emit(Op::OpFAdd, rt, {emit(Op::OpFMul, rt, {a, b}), c});
}

// x / y. Vulkan's division is only promised for divisors up to 2^126; beyond, a GPU computing
// x * (1/y) gets 1/y flushed to zero (inf / FLT_MAX is NaN on NVIDIA). Where the precision probe
// found that, both operands are scaled by 1/4 first, which changes no result that is not
// already zero.
uint32_t Lowering::divide(uint32_t x, uint32_t y, uint32_t rt) {
  Shape s = shape_of(rt);
  if (s.ok && s.is_float && s.width == 16) {
    // Half: through float. Vulkan promises float division within 2.5 ulp, a few 2^-13 of a
    // half ulp, so the quotient rounded to half is within OpenCL's 1 ulp (exact on lavapipe:
    // 24 bits are more than twice 11 + 2). Vulkan promises nothing for half division, and
    // NVIDIA's is off by more.
    uint32_t ft = s.count == 1 ? t_float(32) : t_vec(t_float(32), s.count);
    uint32_t q = divide(widen_half(x, ft), widen_half(y, ft), ft);
    return emit(Op::OpFConvert, rt, {q});
  }
  if (ctx_.caps.full_range_divide || !s.ok || !s.is_float || s.width != 32)
    return emit(Op::OpFDiv, rt, {x, y});
  auto splat = [&](uint32_t c) {
    if (s.count == 1) return c;
    uint32_t id = take_id();
    out_.globals.emplace_back(Op::OpConstantComposite, rt, id, std::vector<uint32_t>(s.count, c));
    return id;
  };
  uint32_t bt = s.count == 1 ? t_bool() : t_vec(t_bool(), s.count);
  uint32_t abs_y = emit(Op::OpExtInst, rt, {glsl_import(), uint32_t(GLSLstd450FAbs), y});
  uint32_t big = emit(Op::OpFOrdGreaterThan, bt, {abs_y, splat(constant(t_float(32), {0x7e800000}))});
  uint32_t scale = emit(Op::OpSelect, rt, {big, splat(constant(t_float(32), {0x3e800000})),
                                           splat(constant(t_float(32), {0x3f800000}))});
  return emit(Op::OpFDiv, rt, {emit(Op::OpFMul, rt, {x, scale}), emit(Op::OpFMul, rt, {y, scale})});
}

// OpSRem (sign of a) or OpSMod (sign of b). Vulkan leaves both undefined for negative operands
// (NVIDIA gives -8 % 7 = 3): the remainder of the magnitudes, then the sign.
uint32_t Lowering::signed_remainder(spv::Op op, uint32_t a, uint32_t b, uint32_t rt) {
  Shape s = shape_of(rt);
  uint32_t bt = s.count == 1 ? t_bool() : t_vec(t_bool(), s.count);
  uint32_t zero = c_null(rt);
  uint32_t a_neg = emit(Op::OpSLessThan, bt, {a, zero});
  uint32_t b_neg = emit(Op::OpSLessThan, bt, {b, zero});
  uint32_t abs_a = emit(Op::OpSelect, rt, {a_neg, emit(Op::OpSNegate, rt, {a}), a});
  uint32_t abs_b = emit(Op::OpSelect, rt, {b_neg, emit(Op::OpSNegate, rt, {b}), b});
  uint32_t m = emit(Op::OpUMod, rt, {abs_a, abs_b});
  uint32_t r = emit(Op::OpSelect, rt, {a_neg, emit(Op::OpSNegate, rt, {m}), m});
  if (op != Op::OpSMod) return r;
  uint32_t differs = emit(Op::OpLogicalAnd, bt, {emit(Op::OpINotEqual, bt, {r, zero}),
                                                 emit(Op::OpLogicalNotEqual, bt, {a_neg, b_neg})});
  return emit(Op::OpSelect, rt, {differs, emit(Op::OpIAdd, rt, {r, b}), r});
}

// OpBitCount of one 8-, 16-, 32- or 64-bit integer: Vulkan counts 32-bit integers only.
uint32_t Lowering::count_bits(uint32_t v, uint32_t type) {
  uint32_t width = shape_of(type).width;
  if (width == 32) return emit(Op::OpBitCount, type, {v});
  uint32_t u32 = t_uint(32);
  uint32_t count = 0;
  if (width == 64) {
    uint32_t lo = emit(Op::OpUConvert, u32, {v});
    uint32_t hi = emit(Op::OpUConvert, u32, {emit(Op::OpShiftRightLogical, type, {v, c_u32(32)})});
    count = emit(Op::OpIAdd, u32, {emit(Op::OpBitCount, u32, {lo}), emit(Op::OpBitCount, u32, {hi})});
  } else {
    count = emit(Op::OpBitCount, u32, {emit(Op::OpUConvert, u32, {v})});
  }
  return emit(Op::OpUConvert, type, {count});
}

}  // namespace vkcl::k2s
