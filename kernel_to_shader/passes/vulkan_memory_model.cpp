#include "passes/vulkan_memory_model.h"

#include <algorithm>
#include <unordered_map>

namespace vkcl::k2s {

namespace {

using spv::Op;

constexpr uint32_t kAcquire = 0x2, kRelease = 0x4, kAcquireRelease = 0x8,
                   kSequentiallyConsistent = 0x10;
constexpr uint32_t kMakeAvailable = 0x2000, kMakeVisible = 0x4000;
constexpr uint32_t kNonPrivatePointer = 0x20;  // memory operand

// Index of the memory semantics operands of |op| (operands after the result id), or -1.
int semantics_operand(Op op) {
  switch (op) {
    case Op::OpMemoryBarrier: return 1;
    case Op::OpControlBarrier: case Op::OpAtomicLoad: case Op::OpAtomicStore:
    case Op::OpAtomicExchange: case Op::OpAtomicCompareExchange: case Op::OpAtomicIIncrement:
    case Op::OpAtomicIDecrement: case Op::OpAtomicIAdd: case Op::OpAtomicISub:
    case Op::OpAtomicSMin: case Op::OpAtomicUMin: case Op::OpAtomicSMax: case Op::OpAtomicUMax:
    case Op::OpAtomicAnd: case Op::OpAtomicOr: case Op::OpAtomicXor: case Op::OpAtomicFAddEXT:
    case Op::OpAtomicFMinEXT: case Op::OpAtomicFMaxEXT: case Op::OpAtomicFlagTestAndSet:
    case Op::OpAtomicFlagClear:
      return 2;
    default: return -1;
  }
}

class VulkanMemoryModel : public Pass {
 public:
  const char* name() const override { return "vulkan-memory-model"; }

  PassStatus Process(ir::Module& m, PassContext& context) override {
    if (!context.caps.vulkan_memory_model) return PassStatus::SuccessWithoutChange;
    module_ = &m;
    for (const auto& g : m.globals) {
      if (g.result_id) type_of_[g.result_id] = g.type_id;
      if (g.opcode == Op::OpTypePointer) storage_of_[g.result_id] = spv::StorageClass(g.operands[0]);
      if (g.opcode == Op::OpConstant) constant_[g.result_id] = g.operands[0];
    }
    for (auto& f : m.functions) {
      for (const auto& p : f.parameters) type_of_[p.result_id] = p.type_id;
      for (const auto& b : f.blocks)
        for (const auto& i : b.instructions)
          if (i.result_id) type_of_[i.result_id] = i.type_id;
    }
    for (auto& f : m.functions)
      for (auto& b : f.blocks)
        for (auto& i : b.instructions) {
          if (i.opcode == Op::OpLoad || i.opcode == Op::OpStore) mark_shared_access(i);
          if (semantics_operand(i.opcode) >= 0) {
            size_t k = size_t(semantics_operand(i.opcode));
            if (!make_visible_and_available(i, k)) return fail(context, i);
            // A compare-exchange that fails is a load: its own semantics follow the first.
            if (i.opcode == Op::OpAtomicCompareExchange && !make_visible_and_available(i, k + 1))
              return fail(context, i);
          }
        }
    // Device scope (OpenCL's memory_scope_device, global fences) needs its own capability.
    for (auto c : {spv::Capability::VulkanMemoryModel, spv::Capability::VulkanMemoryModelDeviceScope}) {
      bool present = std::any_of(m.capabilities.begin(), m.capabilities.end(),
                                 [c](const ir::Instruction& i) { return spv::Capability(i.operands[0]) == c; });
      if (!present)
        m.capabilities.emplace_back(Op::OpCapability, 0, 0, std::vector<uint32_t>{uint32_t(c)});
    }
    m.memory_model.operands[1] = uint32_t(spv::MemoryModel::Vulkan);
    return PassStatus::SuccessWithChange;
  }

 private:
  PassStatus fail(PassContext& context, const ir::Instruction& i) {
    context.log += "internal error: memory semantics of " + std::to_string(uint32_t(i.opcode)) +
                   " are not a constant\n";
    return PassStatus::Failure;
  }

  // Loads and stores through PhysicalStorageBuffer (global) and Workgroup (local) pointers.
  void mark_shared_access(ir::Instruction& i) {
    size_t pointer = 0, mask = i.opcode == Op::OpLoad ? 1 : 2;
    auto type = type_of_.find(i.operands[pointer]);
    if (type == type_of_.end()) return;
    auto storage = storage_of_.find(type->second);
    if (storage == storage_of_.end() ||
        (storage->second != spv::StorageClass::PhysicalStorageBuffer &&
         storage->second != spv::StorageClass::Workgroup))
      return;
    if (i.operands.size() > mask) i.operands[mask] |= kNonPrivatePointer;
    else i.operands.push_back(kNonPrivatePointer);
  }

  // Acquire gains MakeVisible, release MakeAvailable (SequentiallyConsistent, which Vulkan
  // treats as AcquireRelease, both).
  bool make_visible_and_available(ir::Instruction& i, size_t k) {
    auto c = constant_.find(i.operands[k]);
    if (c == constant_.end()) return false;
    uint32_t v = c->second;
    if (v & kSequentiallyConsistent) v = (v & ~kSequentiallyConsistent) | kAcquireRelease;
    if (v & (kAcquire | kAcquireRelease)) v |= kMakeVisible;
    if (v & (kRelease | kAcquireRelease)) v |= kMakeAvailable;
    if (v == c->second) return true;
    uint32_t u32 = type_of_[i.operands[k]];
    i.operands[k] = ir::intern_global(*module_, Op::OpConstant, u32, {v});
    constant_[i.operands[k]] = v;
    type_of_[i.operands[k]] = u32;
    return true;
  }

  ir::Module* module_ = nullptr;
  std::unordered_map<uint32_t, uint32_t> type_of_;
  std::unordered_map<uint32_t, spv::StorageClass> storage_of_;
  std::unordered_map<uint32_t, uint32_t> constant_;
};

}  // namespace

std::unique_ptr<Pass> create_vulkan_memory_model_pass() {
  return std::make_unique<VulkanMemoryModel>();
}

}  // namespace vkcl::k2s
