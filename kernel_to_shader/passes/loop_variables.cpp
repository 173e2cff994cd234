#include "passes/loop_variables.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/cfg.h"

namespace vkcl::k2s {

namespace {

using spv::Op;

// Where a block's own instructions end: before its merge instruction and terminator.
size_t end_of(const ir::Block& b) { return b.instructions.size() - (b.merge() ? 2 : 1); }

class LoopVariables : public Pass {
 public:
  const char* name() const override { return "loop-variables"; }

  PassStatus Process(ir::Module& m, PassContext& context) override {
    m_ = &m;
    for (const auto& g : m.globals)
      if (g.result_id) types_[g.result_id] = g.opcode;
    bool changed = false;
    for (auto& f : m.functions)
      for (size_t h = 0; h < f.blocks.size(); ++h) changed = carry(f, h, context.probe_loops) || changed;
    return changed ? PassStatus::SuccessWithChange : PassStatus::SuccessWithoutChange;
  }

 private:
  bool storable(uint32_t type) const {
    auto t = types_.find(type);
    return t != types_.end() && (t->second == Op::OpTypeInt || t->second == Op::OpTypeFloat ||
                                 t->second == Op::OpTypeBool || t->second == Op::OpTypeVector);
  }

  bool carry(ir::Function& f, size_t h, const std::unordered_set<uint32_t>& probes) {
    const ir::Instruction* merge = f.blocks[h].merge();
    if (!merge || merge->opcode != Op::OpLoopMerge || probes.count(f.blocks[h].label)) return false;
    const uint32_t header = f.blocks[h].label, continue_label = merge->operands[1];
    if (continue_label == header) return false;
    ir::BlockLabels labels = ir::block_labels(*m_, f);
    auto& at = labels.at;
    auto& preds = labels.preds;
    // The continue target: phis and the back edge, nothing else.
    ir::Block& next = f.blocks[at[continue_label]];
    for (const auto& i : next.instructions)
      if (i.opcode != Op::OpPhi && i.opcode != Op::OpLine && i.opcode != Op::OpNoLine && &i != &next.terminator())
        return false;
    if (next.terminator().opcode != Op::OpBranch || next.terminator().operands[0] != header) return false;
    const auto& header_preds = preds[header];
    if (header_preds.size() != 2) return false;
    const uint32_t outside = header_preds[0] == continue_label ? header_preds[1] : header_preds[0];

    std::vector<ir::Instruction*> carried;
    for (auto& i : f.blocks[h].instructions)
      if (i.opcode == Op::OpPhi) {
        if (!storable(i.type_id) || i.operands.size() != 4) return false;
        carried.push_back(&i);
      }
    if (carried.empty()) return false;
    std::unordered_map<uint32_t, const ir::Instruction*> next_phis;
    for (const auto& i : next.instructions)
      if (i.opcode == Op::OpPhi) next_phis[i.result_id] = &i;

    // Stores, by block: the start values where the loop is entered, and each pass's values
    // where the pass ends (the continue target's ways in).
    std::unordered_map<uint32_t, std::vector<ir::Instruction>> stores;
    std::vector<ir::Instruction> variables, loads;
    for (ir::Instruction* phi : carried) {
      const uint32_t var = m_->take_id();
      const uint32_t pointer = ir::intern_global(*m_, Op::OpTypePointer, 0,
                                                 {uint32_t(spv::StorageClass::Function), phi->type_id});
      variables.emplace_back(Op::OpVariable, pointer, var, std::vector<uint32_t>{uint32_t(spv::StorageClass::Function)});
      for (size_t k = 0; k + 1 < phi->operands.size(); k += 2) {
        const uint32_t value = phi->operands[k], from = phi->operands[k + 1];
        if (from == outside) {
          stores[outside].emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{var, value});
          continue;
        }
        auto through = next_phis.find(value);
        for (uint32_t end : preds[continue_label]) {
          uint32_t v = value;
          if (through != next_phis.end())
            for (size_t e = 0; e + 1 < through->second->operands.size(); e += 2)
              if (through->second->operands[e + 1] == end) v = through->second->operands[e];
          stores[end].emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{var, v});
        }
      }
      loads.emplace_back(Op::OpLoad, phi->type_id, phi->result_id, std::vector<uint32_t>{var});
    }
    // The header's phis become loads (all of them: carried holds every phi).
    auto& hi = f.blocks[h].instructions;
    hi.erase(std::remove_if(hi.begin(), hi.end(), [](const ir::Instruction& i) { return i.opcode == Op::OpPhi; }),
             hi.end());
    hi.insert(hi.begin(), loads.begin(), loads.end());
    for (auto& [label, list] : stores) {
      ir::Block& b = f.blocks[at[label]];
      b.instructions.insert(b.instructions.begin() + end_of(b), list.begin(), list.end());
    }
    // The continue target's phis that fed the header are dead now (and those only they used).
    for (bool removed = true; removed;) {
      std::unordered_set<uint32_t> used;
      for (const auto& b : f.blocks)
        for (const auto& i : b.instructions)
          for (size_t k = 0; k < i.operands.size(); ++k)
            if (!ir::is_literal_operand(i, k)) used.insert(i.operands[k]);
      const size_t before = next.instructions.size();
      next.instructions.erase(std::remove_if(next.instructions.begin(), next.instructions.end(),
                                             [&](const ir::Instruction& i) {
                                               return i.opcode == Op::OpPhi && !used.count(i.result_id);
                                             }),
                              next.instructions.end());
      removed = next.instructions.size() != before;
    }
    auto& entry = f.blocks.front().instructions;
    entry.insert(entry.begin(), variables.begin(), variables.end());
    return true;
  }

  ir::Module* m_ = nullptr;
  std::unordered_map<uint32_t, Op> types_;
};

}  // namespace

std::unique_ptr<Pass> create_loop_variables_pass() { return std::make_unique<LoopVariables>(); }

}  // namespace vkcl::k2s
