#include "side_effects.h"

#include <spirv/unified1/OpenCL.std.h>

#include <string>
#include <unordered_map>
#include <unordered_set>

namespace vkcl::k2s {

namespace {

// The ids of the module's OpExtInstImport "OpenCL.std".
std::unordered_set<uint32_t> opencl_std_imports(const ir::Module& module) {
  std::unordered_set<uint32_t> ids;
  for (const ir::Instruction& i : module.ext_inst_imports)
    if (ir::decode_string(i.operands, 0) == "OpenCL.std") ids.insert(i.result_id);
  return ids;
}

}  // namespace

bool writes_only_local_memory_and_images(const ir::Module& module) {
  using spv::Op;
  std::unordered_map<uint32_t, const ir::Instruction*> defs;
  for (const ir::Instruction& i : module.globals)
    if (i.result_id) defs[i.result_id] = &i;
  std::unordered_set<uint32_t> defined, opencl_std = opencl_std_imports(module);
  for (const ir::Function& f : module.functions) {
    if (!f.blocks.empty()) defined.insert(f.id());
    for (const ir::Instruction& p : f.parameters) defs[p.result_id] = &p;
    for (const ir::Block& b : f.blocks)
      for (const ir::Instruction& i : b.instructions)
        if (i.result_id) defs[i.result_id] = &i;
  }
  // The storage class of pointer |id|, or Generic when it cannot be told.
  auto storage = [&](uint32_t id) {
    auto v = defs.find(id);
    if (v == defs.end()) return spv::StorageClass::Generic;
    auto t = defs.find(v->second->type_id);
    if (t == defs.end() || t->second->opcode != Op::OpTypePointer) return spv::StorageClass::Generic;
    return spv::StorageClass(t->second->operands[0]);
  };
  auto private_to_group = [&](uint32_t pointer) {
    spv::StorageClass s = storage(pointer);
    return s == spv::StorageClass::Workgroup || s == spv::StorageClass::Function ||
           s == spv::StorageClass::Private;
  };
  for (const ir::Function& f : module.functions)
    for (const ir::Block& b : f.blocks)
      for (const ir::Instruction& i : b.instructions) {
        switch (i.opcode) {
          case Op::OpStore:
          case Op::OpCopyMemory:
          case Op::OpCopyMemorySized:
            if (!private_to_group(i.operands[0])) return false;
            break;
          case Op::OpGroupAsyncCopy:  // (execution, destination, source, ...)
            if (!private_to_group(i.operands[1])) return false;
            break;
          case Op::OpImageWrite: {
            // Only write_only images: the kernel cannot read what it wrote.
            auto image = defs.find(i.operands[0]);
            auto type = image == defs.end() ? defs.end() : defs.find(image->second->type_id);
            if (type == defs.end() || type->second->opcode != Op::OpTypeImage ||
                type->second->operands.size() < 8 ||
                spv::AccessQualifier(type->second->operands[7]) != spv::AccessQualifier::WriteOnly)
              return false;
            break;
          }
          case Op::OpFunctionCall:
            if (!defined.count(i.operands[0])) return false;
            break;
          case Op::OpExtInst: {
            if (!opencl_std.count(i.operands[0])) return false;
            const auto op = OpenCLLIB::Entrypoints(i.operands[1]);
            if (op == OpenCLLIB::Printf) return false;
            // vstoren (data, offset, p), vstore_half[n][_r] and vstorea_halfn[_r] (data, offset, p[, mode]).
            const bool store = op == OpenCLLIB::Vstoren || op == OpenCLLIB::Vstore_half ||
                               op == OpenCLLIB::Vstore_half_r || op == OpenCLLIB::Vstore_halfn ||
                               op == OpenCLLIB::Vstore_halfn_r || op == OpenCLLIB::Vstorea_halfn ||
                               op == OpenCLLIB::Vstorea_halfn_r;
            if (store && (i.operands.size() < 5 || !private_to_group(i.operands[4]))) return false;
            break;
          }
          default:
            if (i.opcode >= Op::OpAtomicLoad && i.opcode <= Op::OpAtomicXor) {
              if (i.opcode != Op::OpAtomicLoad && !private_to_group(i.operands[0])) return false;
            } else if (i.opcode == Op::OpAtomicFlagTestAndSet || i.opcode == Op::OpAtomicFlagClear ||
                       i.opcode == Op::OpAtomicFMinEXT || i.opcode == Op::OpAtomicFMaxEXT ||
                       i.opcode == Op::OpAtomicFAddEXT) {
              if (!private_to_group(i.operands[0])) return false;
            }
        }
      }
  return true;
}

bool writes_global_only_through_parameters(const ir::Module& module,
                                           std::vector<std::vector<bool>>* read_only) {
  using spv::Op;
  std::unordered_map<uint32_t, const ir::Instruction*> globals;
  for (const ir::Instruction& i : module.globals) {
    if (i.result_id) globals[i.result_id] = &i;
    if (i.opcode == Op::OpVariable && spv::StorageClass(i.operands[0]) == spv::StorageClass::CrossWorkgroup)
      return false;
  }
  auto global_pointer = [&](uint32_t type) {
    auto t = globals.find(type);
    if (t == globals.end() || t->second->opcode != Op::OpTypePointer) return false;
    auto s = spv::StorageClass(t->second->operands[0]);
    return s == spv::StorageClass::CrossWorkgroup || s == spv::StorageClass::Generic;
  };
  std::unordered_set<uint32_t> defined, opencl_std = opencl_std_imports(module);
  std::unordered_map<uint32_t, uint32_t> type_of;
  for (const ir::Function& f : module.functions) {
    if (!f.blocks.empty()) defined.insert(f.id());
    for (const ir::Instruction& p : f.parameters) type_of[p.result_id] = p.type_id;
    for (const ir::Block& b : f.blocks)
      for (const ir::Instruction& i : b.instructions) type_of[i.result_id] = i.type_id;
  }
  auto is_pointer = [&](uint32_t id) {
    auto t = globals.find(type_of[id]);
    return t != globals.end() && t->second->opcode == Op::OpTypePointer;
  };
  for (const ir::Function& f : module.functions)
    for (const ir::Block& b : f.blocks)
      for (const ir::Instruction& i : b.instructions) {
        // A global pointer from memory or from an integer: where it points is not known.
        const bool from_memory = i.opcode == Op::OpLoad || i.opcode == Op::OpAtomicLoad ||
                                 i.opcode == Op::OpAtomicExchange || i.opcode == Op::OpAtomicCompareExchange;
        const bool from_integer = i.opcode == Op::OpConvertUToPtr ||
                                  (i.opcode == Op::OpBitcast && !is_pointer(i.operands[0]));
        if ((from_memory || from_integer) && global_pointer(i.type_id)) return false;
        if (i.opcode == Op::OpFunctionCall && !defined.count(i.operands[0])) return false;
        if (i.opcode == Op::OpExtInst &&
            (!opencl_std.count(i.operands[0]) || OpenCLLIB::Entrypoints(i.operands[1]) == OpenCLLIB::Printf))
          return false;
      }
  // FuncParamAttr decorations of each parameter.
  std::unordered_map<uint32_t, std::unordered_set<uint32_t>> attributes;
  for (const ir::Instruction& a : module.annotations)
    if (a.opcode == Op::OpDecorate && a.operands.size() >= 3 &&
        spv::Decoration(a.operands[1]) == spv::Decoration::FuncParamAttr)
      attributes[a.operands[0]].insert(a.operands[2]);
  read_only->clear();
  for (const ir::Instruction& entry : module.entry_points) {
    const ir::Function* f = nullptr;
    for (const ir::Function& g : module.functions)
      if (g.id() == entry.operands[1]) f = &g;
    if (!f) return false;
    // A parameter that may be captured rules out only its own kernel: hashcat's kernels that
    // count found hashes through atomics are not NoCapture, the kernels beside them are.
    std::vector<bool> flags;
    for (const ir::Instruction& p : f->parameters) {
      const auto& attr = attributes[p.result_id];
      if (global_pointer(p.type_id) && !attr.count(uint32_t(spv::FunctionParameterAttribute::NoCapture))) {
        flags.clear();
        break;
      }
      flags.push_back(global_pointer(p.type_id) && attr.count(uint32_t(spv::FunctionParameterAttribute::NoWrite)));
    }
    read_only->push_back(std::move(flags));
  }
  return true;
}

}  // namespace vkcl::k2s
