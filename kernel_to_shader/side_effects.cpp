#include "side_effects.h"

#include <spirv/unified1/OpenCL.std.h>

#include <string>
#include <unordered_map>
#include <unordered_set>

namespace vkcl::k2s {

bool writes_only_local_memory_and_images(const ir::Module& module) {
  using spv::Op;
  std::unordered_map<uint32_t, const ir::Instruction*> defs;
  for (const ir::Instruction& i : module.globals)
    if (i.result_id) defs[i.result_id] = &i;
  std::unordered_set<uint32_t> defined, opencl_std;
  for (const ir::Instruction& i : module.ext_inst_imports) {
    std::string name;
    for (uint32_t w : i.operands)
      for (int b = 0; b < 4 && char(w >> (8 * b)); ++b) name += char(w >> (8 * b));
    if (name == "OpenCL.std") opencl_std.insert(i.result_id);
  }
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

}  // namespace vkcl::k2s
