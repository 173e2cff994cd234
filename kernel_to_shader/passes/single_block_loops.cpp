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
        for (size_t h = 0; h < f.blocks.size() && !again; ++h) {
          Candidate c;
          if ((again = find(f, h, &c))) rewrite(f, c);
        }
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

  // A loop to redo, as find() sees it.
  struct Candidate {
    size_t header;  // index in the function's blocks
    uint32_t merge_label, condition;
    bool exit_when_true;
    std::vector<uint32_t> control;  // the loop control of its OpLoopMerge, and parameters
    std::vector<size_t> line;       // the body's blocks, in order
    uint32_t outside, back_edge;    // the header's ways in
    std::vector<const ir::Instruction*> phis, computed;  // the header's phis and the rest
  };

  // Header values as the new loop's body sees them (its phis), before the loop (the guard's
  // copies) and after each pass (the copies at the loop's end).
  struct Values {
    std::unordered_map<uint32_t, uint32_t> in_body, before, after, copies_before, copies_after;
  };

  static uint32_t incoming(const ir::Instruction& phi, uint32_t from) {
    for (size_t k = 0; k + 1 < phi.operands.size(); k += 2)
      if (phi.operands[k + 1] == from) return phi.operands[k];
    return 0;
  }

  static uint32_t value_of(const std::unordered_map<uint32_t, uint32_t>& map, uint32_t id) {
    auto it = map.find(id);
    return it == map.end() ? id : it->second;
  }

  bool find(ir::Function& f, size_t h, Candidate* c) {
    const ir::Block& header = f.blocks[h];
    const ir::Instruction* merge = header.merge();
    if (!merge || merge->opcode != Op::OpLoopMerge) return false;
    const uint32_t merge_label = merge->operands[0], continue_label = merge->operands[1];
    if (continue_label == header.label || keep_->count(header.label)) return false;
    const ir::Instruction& test = header.terminator();
    if (test.opcode != Op::OpBranchConditional) return false;
    c->header = h;
    c->merge_label = merge_label;
    c->condition = test.operands[0];
    c->exit_when_true = test.operands[1] == merge_label;
    if (c->exit_when_true == (test.operands[2] == merge_label)) return false;
    c->control.assign(merge->operands.begin() + 2, merge->operands.end());

    ir::BlockLabels labels = ir::block_labels(*m_, f);
    auto& at = labels.at;
    auto& preds = labels.preds;
    // The body: a line of blocks back to the header, each entered only from the one before
    // it, without merges.
    bool has_continue = false;
    for (uint32_t label = c->exit_when_true ? test.operands[2] : test.operands[1], from = header.label;;) {
      auto b = at.find(label);
      if (b == at.end() || preds[label] != std::vector<uint32_t>{from} || c->line.size() > 64) return false;
      const ir::Block& block = f.blocks[b->second];
      if (block.merge() || block.terminator().opcode != Op::OpBranch) return false;
      c->line.push_back(b->second);
      has_continue = has_continue || label == continue_label;
      from = label;
      label = block.terminator().operands[0];
      if (label == header.label) break;
      if (label == merge_label) return false;
    }
    c->back_edge = f.blocks[c->line.back()].label;
    const auto& header_preds = preds[header.label];
    if (!has_continue || header_preds.size() != 2) return false;
    c->outside = header_preds[0] == c->back_edge ? header_preds[1] : header_preds[0];
    if (c->outside == c->back_edge) return false;
    for (const auto& b : f.blocks) {
      const ir::Instruction* mi = b.merge();
      if (!mi || mi == merge) continue;
      if (mi->operands[0] == header.label || (mi->opcode == Op::OpLoopMerge && mi->operands[1] == header.label))
        return false;  // the header ends another construct (until that one is done)
    }
    // The header: its phis, and instructions between them and the merge, all repeatable.
    for (size_t k = 0; k + 2 < header.instructions.size(); ++k) {
      const ir::Instruction& i = header.instructions[k];
      if (i.opcode == Op::OpPhi) c->phis.push_back(&i);
      else if (i.opcode == Op::OpLine || i.opcode == Op::OpNoLine) continue;
      else if (repeatable(i)) c->computed.push_back(&i);
      else return false;
    }
    return true;
  }

  // The body's instructions, the header's values renamed; fills |v|'s values after a pass.
  std::vector<ir::Instruction> body_of(const ir::Function& f, const Candidate& c, Values* v) {
    // The body's own phis have one way in: they are the value that comes that way.
    std::unordered_map<uint32_t, uint32_t> map = v->in_body;
    std::vector<ir::Instruction> body;
    for (size_t b : c.line)
      for (const ir::Instruction& i : f.blocks[b].instructions) {
        if (i.opcode == Op::OpPhi) map[i.result_id] = i.operands[0];
        else if (&i != &f.blocks[b].terminator()) body.push_back(i);
      }
    auto resolve = [&](uint32_t id) {
      for (int hops = 0; hops < 70; ++hops) {  // a body phi may name an earlier one
        auto it = map.find(id);
        if (it == map.end() || it->second == id) break;
        id = it->second;
      }
      return id;
    };
    for (auto& i : body)
      for (size_t k = 0; k < i.operands.size(); ++k)
        if (!ir::is_literal_operand(i, k)) i.operands[k] = resolve(i.operands[k]);
    for (const ir::Instruction* p : c.phis) v->after[p->result_id] = resolve(incoming(*p, c.back_edge));
    return body;
  }

  // Copies of the header's instructions on |values|, with result ids |ids|.
  static void copy_header(const Candidate& c, const std::unordered_map<uint32_t, uint32_t>& values,
                          const std::unordered_map<uint32_t, uint32_t>& ids, std::vector<ir::Instruction>* out) {
    for (const ir::Instruction* i : c.computed) {
      ir::Instruction copy = *i;
      rename(copy, values);
      copy.result_id = ids.at(i->result_id);
      out->push_back(copy);
    }
  }

  void rewrite(ir::Function& f, const Candidate& c) {
    const ir::Block& header = f.blocks[c.header];
    // guard: the first test; loop: the loop; exit: its merge; join: where both ways meet
    // (the selection's merge) before the old merge, which may head a loop of its own.
    const uint32_t guard = m_->take_id(), loop = m_->take_id(), exit = m_->take_id(), join = m_->take_id();
    Values v;
    for (const ir::Instruction* p : c.phis) {
      v.in_body[p->result_id] = p->result_id;
      v.before[p->result_id] = incoming(*p, c.outside);
    }
    for (const ir::Instruction* i : c.computed) {
      v.in_body[i->result_id] = m_->take_id();
      v.before[i->result_id] = v.copies_before[i->result_id] = m_->take_id();
      v.after[i->result_id] = v.copies_after[i->result_id] = m_->take_id();
    }
    std::vector<ir::Instruction> body = body_of(f, c, &v);
    auto branch = [&](uint32_t cond, uint32_t leave, uint32_t stay) {
      return c.exit_when_true ? ir::Instruction(Op::OpBranchConditional, 0, 0, {cond, leave, stay})
                              : ir::Instruction(Op::OpBranchConditional, 0, 0, {cond, stay, leave});
    };

    ir::Block g{guard, {}};
    copy_header(c, v.before, v.copies_before, &g.instructions);
    g.instructions.emplace_back(Op::OpSelectionMerge, 0, 0, std::vector<uint32_t>{join, 0});
    g.instructions.push_back(branch(value_of(v.before, c.condition), join, loop));

    ir::Block l{loop, {}};
    for (const ir::Instruction* p : c.phis)
      l.instructions.emplace_back(Op::OpPhi, p->type_id, p->result_id,
                                  std::vector<uint32_t>{v.before[p->result_id], guard, v.after[p->result_id], loop});
    for (const ir::Instruction* i : c.computed)
      l.instructions.emplace_back(Op::OpPhi, i->type_id, v.in_body[i->result_id],
                                  std::vector<uint32_t>{v.before[i->result_id], guard, v.after[i->result_id], loop});
    l.instructions.insert(l.instructions.end(), body.begin(), body.end());
    copy_header(c, v.after, v.copies_after, &l.instructions);
    std::vector<uint32_t> loop_merge = {exit, loop};
    loop_merge.insert(loop_merge.end(), c.control.begin(), c.control.end());
    l.instructions.emplace_back(Op::OpLoopMerge, 0, 0, loop_merge);
    l.instructions.push_back(branch(value_of(v.after, c.condition), exit, loop));

    ir::Block x{exit, {}};
    x.instructions.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{join});

    // After the loop, header values come from the guard or the loop's last pass: a phi of
    // the two in the join for each header value used there on.
    std::unordered_set<uint32_t> gone_blocks = {header.label};
    for (size_t b : c.line) gone_blocks.insert(f.blocks[b].label);
    std::unordered_map<uint32_t, uint32_t> joined;  // header value -> its phi in the join
    ir::Block j{join, {}};
    auto join_value = [&](uint32_t id) {
      if (!v.before.count(id)) return id;
      uint32_t& phi = joined[id];
      if (!phi) {
        phi = m_->take_id();
        j.instructions.emplace_back(Op::OpPhi, type_of(id, c), phi,
                                    std::vector<uint32_t>{v.before[id], guard, v.after[id], exit});
      }
      return phi;
    };
    for (auto& b : f.blocks) {
      if (gone_blocks.count(b.label)) continue;
      for (auto& i : b.instructions)
        for (size_t k = 0; k < i.operands.size(); ++k)
          if (!ir::is_literal_operand(i, k)) i.operands[k] = join_value(i.operands[k]);
      if (b.label == c.merge_label) ir::rename_phi_predecessor(b, header.label, join);
      if (b.label == c.outside) ir::retarget(*m_, f, b, header.label, guard);
    }
    j.instructions.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{c.merge_label});

    // Decorations follow the header's values to their copies; labels and values that are
    // gone lose their names and decorations.
    ir::copy_decorations(*m_, v.copies_before);
    ir::copy_decorations(*m_, v.copies_after);
    std::unordered_set<uint32_t> gone = gone_blocks;
    for (const ir::Instruction* i : c.computed) gone.insert(i->result_id);
    auto names_gone = [&](const ir::Instruction& i) { return !i.operands.empty() && gone.count(i.operands[0]); };
    m_->debug.erase(std::remove_if(m_->debug.begin(), m_->debug.end(), names_gone), m_->debug.end());
    m_->annotations.erase(std::remove_if(m_->annotations.begin(), m_->annotations.end(), names_gone),
                          m_->annotations.end());

    std::vector<ir::Block> blocks;
    for (size_t b = 0; b < f.blocks.size(); ++b) {
      if (b == c.header) {
        for (ir::Block* made : {&g, &l, &x, &j}) blocks.push_back(std::move(*made));
      }
      if (!gone_blocks.count(f.blocks[b].label)) blocks.push_back(std::move(f.blocks[b]));
    }
    f.blocks = std::move(blocks);
  }

  static uint32_t type_of(uint32_t id, const Candidate& c) {
    for (const auto* list : {&c.phis, &c.computed})
      for (const ir::Instruction* i : *list)
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
