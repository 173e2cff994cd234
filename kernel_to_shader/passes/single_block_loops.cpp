#include "passes/single_block_loops.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/cfg.h"

namespace vkcl::k2s {

namespace {

using spv::Op;

bool is_atomic(Op op) {
  const auto n = uint32_t(op);
  return (n >= uint32_t(Op::OpAtomicLoad) && n <= uint32_t(Op::OpAtomicXor)) ||
         op == Op::OpAtomicFlagTestAndSet || op == Op::OpAtomicFlagClear || op == Op::OpAtomicFAddEXT ||
         op == Op::OpAtomicFMinEXT || op == Op::OpAtomicFMaxEXT;
}

// Renames the ids |map| names in the operands of |i| (not in literals).
void rename(ir::Instruction& i, const std::unordered_map<uint32_t, uint32_t>& map) {
  for (size_t k = 0; k < i.operands.size(); ++k) {
    if (ir::is_literal_operand(i, k)) continue;
    auto it = map.find(i.operands[k]);
    if (it != map.end()) i.operands[k] = it->second;
  }
}

class SingleBlockLoops : public Pass {
 public:
  const char* name() const override { return "single-block-loops"; }

  PassStatus Process(ir::Module& m, PassContext& context) override {
    m_ = &m;
    keep_ = &context.probe_loops;
    for (const auto& g : m.globals)
      if (g.result_id) types_[g.result_id] = g.opcode;
    bool changed = false;
    for (auto& f : m.functions) {
      bool again = true;
      while (again) {
        again = false;
        for (size_t h = 0; h < f.blocks.size() && !again; ++h) again = rotate(f, h);
        changed = changed || again;
      }
    }
    return changed ? PassStatus::SuccessWithChange : PassStatus::SuccessWithoutChange;
  }

 private:
  // Whether header instruction |i| may run again before the loop and after each pass, its
  // value carried by a phi: a plain value, no side effect.
  bool repeatable(const ir::Instruction& i) const {
    if (!i.result_id || !i.type_id || i.opcode == Op::OpFunctionCall || is_atomic(i.opcode) ||
        i.opcode == Op::OpVariable)
      return false;
    auto t = types_.find(i.type_id);
    if (t == types_.end()) return false;
    return t->second == Op::OpTypeInt || t->second == Op::OpTypeFloat || t->second == Op::OpTypeBool ||
           t->second == Op::OpTypeVector;
  }

  bool rotate(ir::Function& f, size_t h) {
    ir::Block& header = f.blocks[h];
    const ir::Instruction* merge = header.merge();
    if (!merge || merge->opcode != Op::OpLoopMerge) return false;
    const uint32_t merge_label = merge->operands[0], continue_label = merge->operands[1];
    if (continue_label == header.label || keep_->count(header.label)) return false;
    const ir::Instruction& test = header.terminator();
    if (test.opcode != Op::OpBranchConditional) return false;
    const bool exit_when_true = test.operands[1] == merge_label;
    if (exit_when_true == (test.operands[2] == merge_label)) return false;
    const uint32_t first = exit_when_true ? test.operands[2] : test.operands[1];

    std::unordered_map<uint32_t, size_t> at;
    std::unordered_map<uint32_t, std::vector<uint32_t>> preds;
    for (size_t b = 0; b < f.blocks.size(); ++b) {
      at[f.blocks[b].label] = b;
      for (uint32_t s : ir::successor_labels(*m_, f, f.blocks[b])) {
        auto& p = preds[s];
        if (std::find(p.begin(), p.end(), f.blocks[b].label) == p.end()) p.push_back(f.blocks[b].label);
      }
    }
    // The body: a line of blocks from |first| back to the header, each entered only from the
    // one before it, without merges.
    std::vector<size_t> line;
    bool has_continue = false;
    for (uint32_t label = first, from = header.label;;) {
      auto b = at.find(label);
      if (b == at.end() || preds[label].size() != 1 || preds[label][0] != from || line.size() > 64) return false;
      const ir::Block& block = f.blocks[b->second];
      if (block.merge() || block.terminator().opcode != Op::OpBranch) return false;
      line.push_back(b->second);
      has_continue = has_continue || label == continue_label;
      from = label;
      label = block.terminator().operands[0];
      if (label == header.label) break;
      if (label == merge_label) return false;
    }
    const uint32_t back_edge = f.blocks[line.back()].label;
    auto& header_preds = preds[header.label];
    if (!has_continue || header_preds.size() != 2) return false;
    const uint32_t outside = header_preds[0] == back_edge ? header_preds[1] : header_preds[0];
    if (outside == back_edge) return false;
    for (const auto& b : f.blocks) {
      const ir::Instruction* mi = b.merge();
      if (!mi || mi == merge) continue;
      if (mi->operands[0] == header.label || (mi->opcode == Op::OpLoopMerge && mi->operands[1] == header.label))
        return false;  // the header ends another construct (until that one is done)
    }

    // The header: its phis (start value, value after a pass), the instructions between them
    // and the merge, all repeatable.
    std::vector<const ir::Instruction*> phis, computed;
    for (size_t k = 0; k + 2 < header.instructions.size(); ++k) {
      const ir::Instruction& i = header.instructions[k];
      if (i.opcode == Op::OpPhi) phis.push_back(&i);
      else if (i.opcode == Op::OpLine || i.opcode == Op::OpNoLine) continue;
      else if (repeatable(i)) computed.push_back(&i);
      else return false;
    }
    auto incoming = [](const ir::Instruction& phi, uint32_t from) {
      for (size_t k = 0; k + 1 < phi.operands.size(); k += 2)
        if (phi.operands[k + 1] == from) return phi.operands[k];
      return uint32_t(0);
    };

    // guard: the first test; loop: the loop; exit: its merge; join: where both ways meet
    // (the selection's merge) before the old merge, which may head a loop of its own.
    const uint32_t guard = m_->take_id(), loop = m_->take_id(), exit = m_->take_id(), join = m_->take_id();
    // Header values as the body sees them (phis of the new loop), before the loop (the
    // guard's copies) and after each pass (the copies at the loop's end).
    std::unordered_map<uint32_t, uint32_t> in_body, before, after, copies_before, copies_after;
    for (const ir::Instruction* p : phis) {
      in_body[p->result_id] = p->result_id;
      before[p->result_id] = incoming(*p, outside);
    }
    for (const ir::Instruction* i : computed) {
      in_body[i->result_id] = m_->take_id();
      before[i->result_id] = copies_before[i->result_id] = m_->take_id();
      after[i->result_id] = copies_after[i->result_id] = m_->take_id();
    }
    // The body's own phis have one way in: they are the value that comes that way.
    std::unordered_map<uint32_t, uint32_t> body_map = in_body;
    std::vector<ir::Instruction> body;
    for (size_t b : line)
      for (const ir::Instruction& i : f.blocks[b].instructions) {
        if (i.opcode == Op::OpPhi) {
          body_map[i.result_id] = i.operands[0];
          continue;
        }
        if (&i == &f.blocks[b].terminator()) continue;
        body.push_back(i);
      }
    auto resolve = [&](uint32_t id) {
      for (int hops = 0; hops < 70; ++hops) {  // a body phi may name an earlier one
        auto it = body_map.find(id);
        if (it == body_map.end() || it->second == id) break;
        id = it->second;
      }
      return id;
    };
    for (auto& i : body)
      for (size_t k = 0; k < i.operands.size(); ++k)
        if (!ir::is_literal_operand(i, k)) i.operands[k] = resolve(i.operands[k]);
    for (const ir::Instruction* p : phis) after[p->result_id] = resolve(incoming(*p, back_edge));

    auto copy_header = [&](const std::unordered_map<uint32_t, uint32_t>& values,
                           const std::unordered_map<uint32_t, uint32_t>& ids, std::vector<ir::Instruction>* out) {
      for (const ir::Instruction* i : computed) {
        ir::Instruction c = *i;
        rename(c, values);
        c.result_id = ids.at(i->result_id);
        out->push_back(c);
      }
    };
    const uint32_t condition = test.operands[0];
    auto branch = [&](uint32_t cond, uint32_t leave, uint32_t stay) {
      return exit_when_true ? ir::Instruction(Op::OpBranchConditional, 0, 0, {cond, leave, stay})
                            : ir::Instruction(Op::OpBranchConditional, 0, 0, {cond, stay, leave});
    };
    auto value_of = [](const std::unordered_map<uint32_t, uint32_t>& map, uint32_t id) {
      auto it = map.find(id);
      return it == map.end() ? id : it->second;
    };

    ir::Block g{guard, {}};
    copy_header(before, copies_before, &g.instructions);
    g.instructions.emplace_back(Op::OpSelectionMerge, 0, 0, std::vector<uint32_t>{join, 0});
    g.instructions.push_back(branch(value_of(before, condition), join, loop));

    ir::Block l{loop, {}};
    for (const ir::Instruction* p : phis)
      l.instructions.emplace_back(Op::OpPhi, p->type_id, p->result_id,
                                  std::vector<uint32_t>{before[p->result_id], guard, after[p->result_id], loop});
    for (const ir::Instruction* i : computed)
      l.instructions.emplace_back(Op::OpPhi, i->type_id, in_body[i->result_id],
                                  std::vector<uint32_t>{before[i->result_id], guard, after[i->result_id], loop});
    l.instructions.insert(l.instructions.end(), body.begin(), body.end());
    copy_header(after, copies_after, &l.instructions);
    std::vector<uint32_t> loop_merge = {exit, loop};
    loop_merge.insert(loop_merge.end(), merge->operands.begin() + 2, merge->operands.end());
    l.instructions.emplace_back(Op::OpLoopMerge, 0, 0, loop_merge);
    l.instructions.push_back(branch(value_of(after, condition), exit, loop));

    ir::Block x{exit, {}};
    x.instructions.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{join});

    // After the loop, header values come from the guard or the loop's last pass: a phi of
    // the two in the join for each header value used there on.
    std::unordered_set<uint32_t> gone_blocks = {header.label};
    for (size_t b : line) gone_blocks.insert(f.blocks[b].label);
    std::unordered_map<uint32_t, uint32_t> joined;  // header value -> its phi in the join
    ir::Block j{join, {}};
    auto join_value = [&](uint32_t id) {
      if (!before.count(id)) return id;
      uint32_t& phi = joined[id];
      if (!phi) {
        phi = m_->take_id();
        j.instructions.emplace_back(Op::OpPhi, type_of(id, phis, computed), phi,
                                    std::vector<uint32_t>{before[id], guard, after[id], exit});
      }
      return phi;
    };
    for (size_t b = 0; b < f.blocks.size(); ++b) {
      if (gone_blocks.count(f.blocks[b].label)) continue;
      for (auto& i : f.blocks[b].instructions)
        for (size_t k = 0; k < i.operands.size(); ++k)
          if (!ir::is_literal_operand(i, k)) i.operands[k] = join_value(i.operands[k]);
    }
    j.instructions.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{merge_label});
    ir::rename_phi_predecessor(f.blocks[at[merge_label]], header.label, join);
    ir::retarget(*m_, f, f.blocks[at[outside]], header.label, guard);

    // Names and decorations follow the header's values to their copies; labels and values
    // that are gone lose theirs.
    ir::copy_decorations(*m_, copies_before);
    ir::copy_decorations(*m_, copies_after);
    std::unordered_set<uint32_t> gone = gone_blocks;
    for (const ir::Instruction* i : computed) gone.insert(i->result_id);
    auto names_gone = [&](const ir::Instruction& i) { return !i.operands.empty() && gone.count(i.operands[0]); };
    m_->debug.erase(std::remove_if(m_->debug.begin(), m_->debug.end(), names_gone), m_->debug.end());
    m_->annotations.erase(std::remove_if(m_->annotations.begin(), m_->annotations.end(), names_gone),
                          m_->annotations.end());

    std::vector<ir::Block> blocks;
    for (size_t b = 0; b < f.blocks.size(); ++b) {
      if (b == h) {
        blocks.push_back(std::move(g));
        blocks.push_back(std::move(l));
        blocks.push_back(std::move(x));
        blocks.push_back(std::move(j));
      }
      if (!gone_blocks.count(f.blocks[b].label)) blocks.push_back(std::move(f.blocks[b]));
    }
    f.blocks = std::move(blocks);
    return true;
  }

  uint32_t type_of(uint32_t id, const std::vector<const ir::Instruction*>& phis,
                   const std::vector<const ir::Instruction*>& computed) const {
    for (const ir::Instruction* i : phis)
      if (i->result_id == id) return i->type_id;
    for (const ir::Instruction* i : computed)
      if (i->result_id == id) return i->type_id;
    return 0;
  }

  ir::Module* m_ = nullptr;
  const std::unordered_set<uint32_t>* keep_ = nullptr;
  std::unordered_map<uint32_t, Op> types_;
};

}  // namespace

std::unique_ptr<Pass> create_single_block_loops_pass() { return std::make_unique<SingleBlockLoops>(); }

}  // namespace vkcl::k2s
