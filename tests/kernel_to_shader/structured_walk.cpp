#include "kernel_to_shader/structured_walk.h"

#include <deque>
#include <map>
#include <memory>
#include <set>

#include "ir/module.h"

namespace vkcl::test {
namespace {

using spv::Op;

struct Construct {
  enum Kind { Function, If, Loop } kind;
  Construct* parent;
  uint32_t header = 0, merge = 0, cont = 0;  // merge 0: a selection without one
};

class Walk {
 public:
  Walk(const ir::Module& m, ir::Function& f) : m_(m), f_(f) {}

  std::string run() {
    constructs_.push_back(std::make_unique<Construct>(Construct{Construct::Function, nullptr}));
    work_.push_back({constructs_.back().get(), f_.blocks[0].label});
    while (!work_.empty() && error_.empty()) {
      auto [parent, label] = work_.front();
      work_.pop_front();
      bool first = true;
      while (label && error_.empty()) {
        label = process(parent, label, first);
        first = false;
      }
    }
    return error_;
  }

 private:
  enum Branch { Plain, BackEdge, Continue, Break, IfMerge };

  static Construct* innermost_loop(Construct* c) {
    while (c && c->kind != Construct::Loop) c = c->parent;
    return c;
  }
  Branch classify(Construct* parent, uint32_t target) {
    Construct* loop = innermost_loop(parent);
    if (loop && target == loop->header) return BackEdge;
    if (loop && target == loop->cont) return Continue;
    auto m = merge_of_.find(target);
    if (m == merge_of_.end() || m->second->parent == parent) return Plain;
    Construct* owner = m->second;
    if (owner->kind == Construct::Loop) {
      if (owner != loop) fail("a break out of more than the innermost loop to %", target);
      return Break;
    }
    for (Construct* c = parent; c != owner; c = c->parent)
      if (!c || c->kind != Construct::If || c->merge)
        return fail("a branch to the merge %", target, " from outside its selection's innermost level"), Plain;
    return IfMerge;
  }
  void set_merge(uint32_t label, Construct* c) {
    auto [it, added] = merge_of_.emplace(label, c);
    if (!added && it->second != c) fail("block % merges two constructs", label);
  }
  // Places block |label| under |parent|; returns the block the walk goes on with, or 0.
  uint32_t process(Construct* parent, uint32_t label, bool first) {
    if (!first && classify(parent, label) != Plain) return 0;
    if (placed_.count(label)) return fail("Invalid back or cross-edge in the CFG at %", label), 0;
    const ir::Block* b = f_.find_block(label);
    if (!b) return fail("a branch to a missing block %", label), 0;
    const ir::Instruction* merge = b->merge();
    if (merge && merge->opcode == Op::OpLoopMerge && !loops_.count(label)) {
      constructs_.push_back(std::make_unique<Construct>(
          Construct{Construct::Loop, parent, label, merge->operands[0], merge->operands[1]}));
      Construct* loop = constructs_.back().get();
      loops_[label] = loop;
      work_.push_back({loop, label});
      if (loop->cont != label) work_.push_back({loop, loop->cont});
      set_merge(loop->merge, loop);
      return loop->merge;
    }
    placed_[label] = parent;
    const ir::Instruction& t = b->terminator();
    if (t.opcode == Op::OpBranch) return classify(parent, t.operands[0]) == Plain ? t.operands[0] : 0;
    if (t.opcode != Op::OpBranchConditional && t.opcode != Op::OpSwitch) return 0;
    // A switch is walked as a selection with one arm per target (its breaks leave for its
    // merge as a selection's do); case fall-through is not modelled.
    constructs_.push_back(std::make_unique<Construct>(Construct{Construct::If, parent, label}));
    Construct* sel = constructs_.back().get();
    if (merge && merge->opcode == Op::OpSelectionMerge) {
      sel->merge = merge->operands[0];
      set_merge(sel->merge, sel);
    }
    std::vector<uint32_t> arms = b->successors(ir::switch_literal_words(m_, f_, t));
    std::set<uint32_t> seen;
    for (uint32_t arm : arms)
      if (seen.insert(arm).second && classify(sel, arm) == Plain) work_.push_back({sel, arm});
    return sel->merge;
  }
  void fail(const std::string& before, uint32_t id, const std::string& after = "") {
    if (!error_.empty()) return;
    std::string text = before;
    text.replace(text.find('%'), 1, "%" + std::to_string(id));
    error_ = "function %" + std::to_string(f_.id()) + ": " + text + after;
  }

  const ir::Module& m_;
  ir::Function& f_;
  std::vector<std::unique_ptr<Construct>> constructs_;
  std::deque<std::pair<Construct*, uint32_t>> work_;
  std::map<uint32_t, Construct*> merge_of_, placed_, loops_;
  std::string error_;
};

}  // namespace

std::string structured_walk_error(const std::vector<uint32_t>& shader) {
  ir::Module m;
  std::string error;
  if (!ir::parse(shader.data(), shader.size(), &m, &error)) return "unreadable: " + error;
  for (ir::Function& f : m.functions) {
    if (f.blocks.empty()) continue;
    std::string e = Walk(m, f).run();
    if (!e.empty()) return e;
  }
  return "";
}

}  // namespace vkcl::test
