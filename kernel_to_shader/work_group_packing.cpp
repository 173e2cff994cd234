#include "work_group_packing.h"

#include <unordered_map>

namespace vkcl::k2s {

namespace {

using spv::Op;

// Instructions whose meaning depends on the work-group or sub-group around a work-item.
bool meets_other_work_items(Op op) {
  auto in = [op](Op first, Op last) { return uint32_t(op) >= uint32_t(first) && uint32_t(op) <= uint32_t(last); };
  return op == Op::OpControlBarrier || in(Op::OpGroupAsyncCopy, Op::OpGroupSMax) ||
         in(Op::OpGroupReserveReadPipePackets, Op::OpGroupCommitWritePipe) ||
         in(Op::OpNamedBarrierInitialize, Op::OpMemoryNamedBarrier) ||
         in(Op::OpGroupNonUniformElect, Op::OpGroupNonUniformQuadSwap) ||
         in(Op::OpSubgroupBallotKHR, Op::OpSubgroupReadInvocationKHR) ||
         in(Op::OpGroupIAddNonUniformAMD, Op::OpGroupSMaxNonUniformAMD) ||
         op == Op::OpGroupNonUniformPartitionNV ||
         in(Op::OpSubgroupShuffleINTEL, Op::OpSubgroupImageMediaBlockWriteINTEL) ||
         in(Op::OpControlBarrierArriveINTEL, Op::OpControlBarrierWaitINTEL) ||
         in(Op::OpGroupIMulKHR, Op::OpGroupLogicalXorKHR);
}

bool is_sub_group_builtin(spv::BuiltIn b) {
  switch (b) {
    case spv::BuiltIn::SubgroupSize: case spv::BuiltIn::SubgroupMaxSize: case spv::BuiltIn::NumSubgroups:
    case spv::BuiltIn::NumEnqueuedSubgroups: case spv::BuiltIn::SubgroupId:
    case spv::BuiltIn::SubgroupLocalInvocationId: case spv::BuiltIn::SubgroupEqMask:
    case spv::BuiltIn::SubgroupGeMask: case spv::BuiltIn::SubgroupGtMask: case spv::BuiltIn::SubgroupLeMask:
    case spv::BuiltIn::SubgroupLtMask:
      return true;
    default: return false;
  }
}

}  // namespace

std::unordered_set<uint32_t> packable_kernels(const ir::Module& module) {
  // Ids a function of a packable kernel may not name: __local variables and pointer types,
  // sub-group built-in variables.
  std::unordered_set<uint32_t> shared;
  for (const ir::Instruction& i : module.globals) {
    if (i.opcode == Op::OpTypePointer && spv::StorageClass(i.operands[0]) == spv::StorageClass::Workgroup)
      shared.insert(i.result_id);
    if (i.opcode == Op::OpVariable && spv::StorageClass(i.operands[0]) == spv::StorageClass::Workgroup)
      shared.insert(i.result_id);
  }
  for (const ir::Instruction& d : module.annotations)
    if (d.opcode == Op::OpDecorate && d.operands.size() >= 3 && spv::Decoration(d.operands[1]) == spv::Decoration::BuiltIn &&
        is_sub_group_builtin(spv::BuiltIn(d.operands[2])))
      shared.insert(d.operands[0]);

  std::unordered_map<uint32_t, const ir::Function*> functions;
  for (const ir::Function& f : module.functions) functions[f.id()] = &f;
  // Whether function |id| alone (not its callees) keeps its kernels from being packed.
  std::unordered_map<uint32_t, bool> alone;
  auto keeps_apart = [&](uint32_t id) {
    auto known = alone.find(id);
    if (known != alone.end()) return known->second;
    bool apart = false;
    auto f = functions.find(id);
    if (f == functions.end() || f->second->blocks.empty()) {
      apart = true;  // defined elsewhere: what it does is not known
    } else {
      for (const ir::Instruction& p : f->second->parameters) apart = apart || shared.count(p.type_id);
      for (const ir::Block& b : f->second->blocks)
        for (const ir::Instruction& i : b.instructions) {
          apart = apart || meets_other_work_items(i.opcode) || shared.count(i.type_id);
          for (size_t k = 0; k < i.operands.size(); ++k)
            apart = apart || (!ir::is_literal_operand(i, k) && shared.count(i.operands[k]));
        }
    }
    return alone[id] = apart;
  };

  std::unordered_set<uint32_t> packable;
  for (const ir::Instruction& e : module.entry_points) {
    const uint32_t entry = e.operands[1];
    std::vector<uint32_t> work = {entry};
    std::unordered_set<uint32_t> seen = {entry};
    bool apart = false;
    while (!work.empty() && !apart) {
      const uint32_t id = work.back();
      work.pop_back();
      apart = keeps_apart(id);
      if (apart) break;
      for (const ir::Block& b : functions[id]->blocks)
        for (const ir::Instruction& i : b.instructions)
          if (i.opcode == Op::OpFunctionCall && seen.insert(i.operands[0]).second) work.push_back(i.operands[0]);
    }
    if (!apart) packable.insert(entry);
  }
  return packable;
}

}  // namespace vkcl::k2s
