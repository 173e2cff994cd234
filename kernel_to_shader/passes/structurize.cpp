// The structurizer. Steps, each on a freshly analysed CFG:
//   1. canonicalise terminators, drop unreachable blocks, reject irreducible graphs (the
//      reducible pass, run before, removes them);
//   2. loops, outermost first: a dedicated continue block for the back edges, one merge block
//      for all exits (a dispatch block with a selector when the exits go to several places);
//   3. selections in reverse post-order: the merge is the immediate post-dominator within the
//      enclosing loop body (paths that break, continue or return do not count); a block that
//      is already a merge gets a fresh forwarding block; a join that no header can own (the
//      `a || b` shape) is duplicated along the offending edge, or, when it holds constructs,
//      reached through a dispatch block that becomes the dominating selection's merge; a
//      header whose paths meet at no one block (a ladder of joins) gets a dispatch block
//      where they do; sizes count calls as the callee's size, as drivers inline them all;
//   4. blocks in structured order (each construct before its merge);
//   5. SSA repair: values whose uses are no longer dominated go through Function variables.
#include "passes/structurize.h"

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/cfg.h"
#include "passes/dispatch_loop.h"

namespace vkcl::k2s {

using ir::Block;
using ir::Cfg;
using ir::Instruction;
using spv::Op;

namespace {

bool is_return(const Block& b) {
  Op op = b.terminator().opcode;
  return op == Op::OpReturn || op == Op::OpReturnValue;
}

class Structurizer {
 public:
  Structurizer(ir::Module& m, ir::Function& f, PassContext& ctx) : m_(m), f_(f), ctx_(ctx) {}
  // |label| stays a block of its own: it is never copied into its predecessor.
  void keep(uint32_t label) { keep_ = label; }

  bool run() {
    if (f_.blocks.size() < 2 && !f_.blocks.empty() &&
        f_.blocks[0].terminator().opcode != Op::OpBranchConditional &&
        f_.blocks[0].terminator().opcode != Op::OpSwitch)
      return true;
    canonicalize();
    if (!remove_unreachable()) return false;
    if (!check_reducible()) return false;
    for (const Block& b : f_.blocks) copy_budget_ += weight(b);
    // Returns first: a shared return block (every `return` of -O0 code branches to one) would
    // otherwise be a join of many constructs; copied into each path, it is none.
    inline_returns();
    if (!remove_unreachable()) return false;
    if (!normalize_loops()) return false;
    if (!structure_selections()) return false;
    inline_returns(true);
    order_blocks();
    repair_ssa();
    changed_ = true;
    return true;
  }
  bool changed() const { return changed_; }

 private:
  struct Loop {
    uint32_t header, merge, cont;
  };

  bool fail(const std::string& why) {
    ctx_.log += "error: cannot structure the control flow of function " + name() + ": " + why + "\n";
    return false;
  }
  std::string name() const {
    for (const auto& d : m_.debug)
      if (d.opcode == Op::OpName && d.operands[0] == f_.id()) return ir::decode_string(d.operands, 1);
    return "%" + std::to_string(f_.id());
  }

  // ---- module helpers
  uint32_t uint_type() { return ir::intern_global(m_, Op::OpTypeInt, 0, {32, 0}); }
  uint32_t bool_type() { return ir::intern_global(m_, Op::OpTypeBool, 0, {}); }
  uint32_t uint_constant(uint32_t v) { return ir::intern_global(m_, Op::OpConstant, uint_type(), {v}); }
  uint32_t undef(uint32_t type) {
    auto it = undefs_.find(type);
    if (it != undefs_.end()) return it->second;
    uint32_t id = m_.take_id();
    m_.globals.emplace_back(Op::OpUndef, type, id);
    undefs_[type] = id;
    return id;
  }
  uint32_t new_block(std::vector<Instruction> instructions) {
    uint32_t label = m_.take_id();
    f_.blocks.push_back(Block{label, std::move(instructions)});
    return label;
  }
  Block& block(uint32_t label) { return *f_.find_block(label); }

  // ---- step 1
  void canonicalize() {
    for (Block& b : f_.blocks) {
      Instruction& t = b.terminator();
      if (t.opcode == Op::OpBranchConditional && t.operands[1] == t.operands[2]) {
        t = Instruction(Op::OpBranch, 0, 0, {t.operands[1]});
      }
    }
    // Switches become chains of two-way branches: fallthrough and shared case targets are
    // then ordinary joins, with no case-ordering rules to meet.
    for (size_t b = 0; b < f_.blocks.size(); ++b)
      if (f_.blocks[b].terminator().opcode == Op::OpSwitch) switch_to_branches(b);
  }

  uint32_t constant_of_type(uint32_t type, const std::vector<uint32_t>& words) {
    for (const auto& g : m_.globals)
      if (g.opcode == Op::OpConstant && g.type_id == type && g.operands == words) return g.result_id;
    uint32_t id = m_.take_id();
    m_.globals.emplace_back(Op::OpConstant, type, id, words);
    return id;
  }

  void switch_to_branches(size_t index) {
    const Instruction sw = f_.blocks[index].terminator();
    uint32_t words = ir::switch_literal_words(m_, f_, sw);
    uint32_t selector = sw.operands[0], default_target = sw.operands[1];
    uint32_t selector_type = 0;
    for (const Block& b : f_.blocks)
      for (const Instruction& i : b.instructions)
        if (i.result_id == selector) selector_type = i.type_id;
    for (const auto& p : f_.parameters)
      if (p.result_id == selector) selector_type = p.type_id;
    for (const auto& g : m_.globals)
      if (g.result_id == selector) selector_type = g.type_id;
    std::vector<std::pair<std::vector<uint32_t>, uint32_t>> cases;
    for (size_t k = 2; k + words < sw.operands.size(); k += words + 1) {
      std::vector<uint32_t> literal(sw.operands.begin() + k, sw.operands.begin() + k + words);
      cases.push_back({literal, sw.operands[k + words]});
    }
    uint32_t original = f_.blocks[index].label;
    // Remember the phi values every target had for the switch block.
    std::unordered_map<uint32_t, std::vector<std::pair<size_t, uint32_t>>> phi_values;
    std::vector<uint32_t> all_targets = {default_target};
    for (auto& c : cases) all_targets.push_back(c.second);
    uint32_t chain = original;  // block holding the current comparison
    std::vector<std::pair<uint32_t, uint32_t>> edges;  // (chain block, target)
    f_.blocks[index].instructions.pop_back();
    if (cases.empty()) {
      f_.blocks[index].instructions.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{default_target});
      return;
    }
    for (size_t k = 0; k < cases.size(); ++k) {
      uint32_t cmp = m_.take_id();
      uint32_t next = k + 1 < cases.size() ? m_.take_id() : default_target;
      std::vector<Instruction> code = {
          Instruction(Op::OpIEqual, bool_type(), cmp,
                      {selector, constant_of_type(selector_type, cases[k].first)}),
          Instruction(Op::OpBranchConditional, 0, 0, {cmp, cases[k].second, next})};
      if (chain == original) {
        Block& b = block(original);
        b.instructions.insert(b.instructions.end(), code.begin(), code.end());
      } else {
        f_.blocks.push_back(Block{chain, code});
      }
      edges.push_back({chain, cases[k].second});
      if (k + 1 == cases.size()) edges.push_back({chain, default_target});
      chain = next;
    }
    // Phi entries for |original| become one entry per chain block that reaches the target.
    std::set<uint32_t> fixed;
    for (uint32_t t : all_targets) {
      if (fixed.count(t)) continue;
      fixed.insert(t);
      for (Instruction& phi : block(t).instructions) {
        if (phi.opcode != Op::OpPhi) break;
        uint32_t value = 0;
        std::vector<uint32_t> ops;
        for (size_t o = 0; o + 1 < phi.operands.size(); o += 2) {
          if (phi.operands[o + 1] == original) value = phi.operands[o];
          else ops.insert(ops.end(), {phi.operands[o], phi.operands[o + 1]});
        }
        std::set<uint32_t> added;
        for (auto [from, to] : edges)
          if (to == t && !added.count(from)) {
            added.insert(from);
            ops.insert(ops.end(), {value, from});
          }
        phi.operands = ops;
      }
    }
  }

  // A returning block small enough to copy into each path that reaches it, and which holds
  // no barrier or collective: copies would put those in divergent control flow.
  bool is_small_return(const Block& b) {
    if (!is_return(b) || weight(b) > 32) return false;
    for (const Instruction& i : b.instructions)
      if (is_collective(i)) return false;
    return true;
  }
  // The instructions |b| stands for once the driver has inlined every call (they all do): a
  // copy of a block that calls tgamma is a copy of tgamma (LibreOffice's GAMMA kernel, whose
  // returning tail was copied into each of its 13 paths, kept lavapipe compiling for hours).
  size_t weight(const Block& b) {
    size_t w = 0;
    for (const Instruction& i : b.instructions)
      w += 1 + (i.opcode == Op::OpFunctionCall ? function_weight(i.operands[0]) : 0);
    return w;
  }
  size_t function_weight(uint32_t id) {
    auto known = weights_.find(id);
    if (known != weights_.end()) return known->second;
    weights_[id] = 0;  // recursion, which kernels may not have, adds nothing
    size_t w = 0;
    for (const ir::Function& g : m_.functions)
      if (g.id() == id)
        for (const Block& b : g.blocks) w += weight(b);
    return weights_[id] = std::min<size_t>(w, size_t(1) << 32);
  }
  bool is_collective(const Instruction& i) {
    if (!collective_functions_computed_) {
      collective_functions_ = collective_functions(m_);
      collective_functions_computed_ = true;
    }
    return k2s::is_collective(i, collective_functions_);
  }

  // A branch to a small returning block that is not a merge becomes a copy of that block:
  // returning from inside a construct needs no branch out of it. With |conditional|, the
  // edges of two-way branches and switches get a copy of their own too (a new block with one
  // predecessor is inside that predecessor's construct, wherever the original was).
  void inline_returns(bool conditional = false) {
    for (size_t p = 0; p < f_.blocks.size(); ++p) {
      const Instruction& t = f_.blocks[p].terminator();
      uint32_t pred = f_.blocks[p].label;
      if (t.opcode == Op::OpBranch) {
        uint32_t target = t.operands[0];
        if (!copyable_return(target)) continue;
        std::vector<Instruction> body = return_copy(target, pred);
        Block& pb = f_.blocks[p];
        pb.instructions.pop_back();
        pb.instructions.insert(pb.instructions.end(), body.begin(), body.end());
        continue;
      }
      if (!conditional || (t.opcode != Op::OpBranchConditional && t.opcode != Op::OpSwitch)) continue;
      std::vector<uint32_t> targets = ir::successor_labels(m_, f_, f_.blocks[p]);
      std::set<uint32_t> seen;
      for (uint32_t target : targets) {
        if (!seen.insert(target).second || !copyable_return(target)) continue;
        uint32_t copy = new_block(return_copy(target, pred));  // may move f_.blocks
        ir::retarget(m_, f_, f_.blocks[p], target, copy);
      }
    }
  }
  bool copyable_return(uint32_t label) {
    const Block* r = f_.find_block(label);
    return r && is_small_return(*r) && !merges_.count(label) && label != keep_;
  }
  // The body of returning block |target| for the edge from |pred|: its phis resolved to that
  // edge's values, fresh result ids; the edge's phi entries leave |target|.
  std::vector<Instruction> return_copy(uint32_t target, uint32_t pred) {
    const Block original = block(target);
    std::unordered_map<uint32_t, uint32_t> remap;
    std::vector<Instruction> body;
    for (const Instruction& i : original.instructions) {
      if (i.opcode == Op::OpPhi) {
        for (size_t o = 0; o + 1 < i.operands.size(); o += 2)
          if (i.operands[o + 1] == pred) remap[i.result_id] = i.operands[o];
        continue;
      }
      Instruction c = i;
      if (c.result_id) {
        remap[i.result_id] = m_.take_id();
        c.result_id = remap[i.result_id];
      }
      for (size_t k = 0; k < c.operands.size(); ++k) {
        auto it = remap.find(c.operands[k]);
        if (it != remap.end() && !ir::is_literal_operand(c, k)) c.operands[k] = it->second;
      }
      body.push_back(c);
    }
    std::unordered_map<uint32_t, uint32_t> copies;
    for (const Instruction& i : original.instructions)
      if (i.result_id && i.opcode != Op::OpPhi) copies[i.result_id] = remap[i.result_id];
    ir::copy_decorations(m_, copies);
    drop_phi_entries(block(target), pred);
    return body;
  }
  // Removes the entries for predecessor |pred| from |b|'s phis.
  static void drop_phi_entries(Block& b, uint32_t pred) {
    for (Instruction& phi : b.instructions) {
      if (phi.opcode != Op::OpPhi) break;
      std::vector<uint32_t> ops;
      for (size_t o = 0; o + 1 < phi.operands.size(); o += 2)
        if (phi.operands[o + 1] != pred) ops.insert(ops.end(), {phi.operands[o], phi.operands[o + 1]});
      phi.operands = ops;
    }
  }

  bool remove_unreachable() {
    Cfg cfg(m_, f_);
    std::unordered_set<uint32_t> dead;
    for (size_t i = 0; i < f_.blocks.size(); ++i)
      if (!cfg.reachable(int(i))) dead.insert(f_.blocks[i].label);
    if (dead.empty()) return true;
    std::vector<Block> kept;
    for (Block& b : f_.blocks)
      if (!dead.count(b.label)) kept.push_back(std::move(b));
    f_.blocks = std::move(kept);
    for (Block& b : f_.blocks)
      for (Instruction& i : b.instructions) {
        if (i.opcode != Op::OpPhi) break;
        std::vector<uint32_t> ops;
        for (size_t k = 0; k + 1 < i.operands.size(); k += 2)
          if (!dead.count(i.operands[k + 1])) {
            ops.push_back(i.operands[k]);
            ops.push_back(i.operands[k + 1]);
          }
        i.operands = ops;
      }
    return true;
  }

  bool check_reducible() {
    Cfg cfg(m_, f_);
    for (int u : cfg.rpo())
      for (int v : cfg.successors(u))
        if (cfg.rpo_number(v) <= cfg.rpo_number(u) && !cfg.dominates(v, u))
          return fail("irreducible control flow (a loop with more than one entry) is not "
                      "supported yet");
    return true;
  }

  // Natural loop of |header|: the header and every block that reaches a back edge without
  // passing through the header.
  std::set<int> loop_body(Cfg& cfg, int header) {
    std::set<int> body = {header};
    std::vector<int> work;
    for (int p : cfg.predecessors(header))
      if (cfg.dominates(header, p) && !body.count(p)) body.insert(p), work.push_back(p);
    while (!work.empty()) {
      int x = work.back();
      work.pop_back();
      for (int p : cfg.predecessors(x))
        if (cfg.reachable(p) && !body.count(p)) body.insert(p), work.push_back(p);
    }
    return body;
  }

  const Loop* innermost_loop_containing(Cfg& cfg, int b, std::set<int>* body_out = nullptr,
                                        uint32_t exclude_header = 0) {
    for (auto it = loops_.rbegin(); it != loops_.rend(); ++it) {
      if (it->header == exclude_header) continue;
      int h = cfg.index(it->header);
      std::set<int> body = loop_body(cfg, h);
      if (body.count(b)) {
        if (body_out) *body_out = body;
        return &*it;
      }
    }
    return nullptr;
  }

  // ---- step 2
  bool normalize_loops() {
    std::unordered_set<uint32_t> done;
    while (true) {
      Cfg cfg(m_, f_);
      int header = -1;
      for (int b : cfg.rpo()) {
        if (done.count(f_.blocks[b].label)) continue;
        for (int p : cfg.predecessors(b))
          if (cfg.dominates(b, p)) header = b;
        if (header >= 0) break;
      }
      if (header < 0) return true;
      uint32_t h = f_.blocks[header].label;
      done.insert(h);
      if (!normalize_loop(h)) return false;
    }
  }

  bool normalize_loop(uint32_t h) {
    // a. A dedicated continue block receives every back edge.
    {
      Cfg cfg(m_, f_);
      int hi = cfg.index(h);
      std::vector<uint32_t> latches;
      for (int p : cfg.predecessors(hi))
        if (cfg.dominates(hi, p)) latches.push_back(f_.blocks[p].label);
      std::vector<Instruction> cont;
      for (Instruction& phi : block(h).instructions) {
        if (phi.opcode != Op::OpPhi) break;
        Instruction merged(Op::OpPhi, phi.type_id, m_.take_id());
        std::vector<uint32_t> kept;
        for (size_t k = 0; k + 1 < phi.operands.size(); k += 2) {
          bool from_latch = std::count(latches.begin(), latches.end(), phi.operands[k + 1]);
          auto& dst = from_latch ? merged.operands : kept;
          dst.push_back(phi.operands[k]);
          dst.push_back(phi.operands[k + 1]);
        }
        phi.operands = kept;
        cont.push_back(merged);
      }
      cont.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{h});
      uint32_t c = new_block(cont);
      size_t n = 0;
      for (Instruction& phi : block(h).instructions) {
        if (phi.opcode != Op::OpPhi) break;
        phi.operands.push_back(block(c).instructions[n++].result_id);
        phi.operands.push_back(c);
      }
      for (uint32_t l : latches) ir::retarget(m_, f_, block(l), h, c);
      pending_cont_ = c;
    }
    uint32_t c = pending_cont_;

    // b. One merge block for every exit.
    Cfg cfg(m_, f_);
    int hi = cfg.index(h);
    std::set<int> body = loop_body(cfg, hi);
    std::vector<std::pair<uint32_t, uint32_t>> exits;  // (from, to)
    std::vector<uint32_t> targets;
    for (int u : body)
      for (int t : cfg.successors(u))
        if (!body.count(t)) {
          exits.push_back({f_.blocks[u].label, f_.blocks[t].label});
          if (std::find(targets.begin(), targets.end(), f_.blocks[t].label) == targets.end())
            targets.push_back(f_.blocks[t].label);
        }
    std::set<int> parent_body;
    const Loop* parent = innermost_loop_containing(cfg, hi, &parent_body);
    auto acceptable = [&](uint32_t x) {
      if (merges_.count(x) || continues_.count(x)) return false;
      // The merge must belong to this loop: a block also reached around the loop (a
      // zero-trip path) gets a forwarding block instead.
      if (!cfg.dominates(hi, cfg.index(x))) return false;
      if (!parent) return true;
      return parent_body.count(cfg.index(x)) && x != parent->cont;
    };
    uint32_t merge;
    if (targets.size() == 1 && acceptable(targets[0])) {
      merge = targets[0];
    } else {
      merge = make_dispatch(exits, targets);
    }

    // c. The header ends in an unconditional branch, or a conditional one that leaves the
    //    loop; anything else moves into a block of its own.
    Block& hb = block(h);
    const Instruction& t = hb.terminator();
    bool simple = t.opcode == Op::OpBranch ||
                  (t.opcode == Op::OpBranchConditional &&
                   (t.operands[1] == merge || t.operands[2] == merge));
    if (!simple) split_after_phis(h);
    Block& header = block(h);
    header.instructions.insert(header.instructions.end() - 1,
                               Instruction(Op::OpLoopMerge, 0, 0, {merge, c, 0}));
    loops_.push_back({h, merge, c});
    merges_.insert(merge);
    continues_.insert(c);
    return true;
  }

  // Redirects every exit edge to a new block that branches on to the original target, chosen
  // by a selector phi when there are several.
  uint32_t make_dispatch(const std::vector<std::pair<uint32_t, uint32_t>>& exits,
                         const std::vector<uint32_t>& targets) {
    if (targets.empty())
      return new_block({Instruction(Op::OpUnreachable, 0, 0)});
    uint32_t label = m_.take_id();
    std::vector<Instruction> code;
    uint32_t selector = 0;
    if (targets.size() > 1) {
      Instruction phi(Op::OpPhi, uint_type(), m_.take_id());
      for (auto [u, t] : exits) {
        size_t index = std::find(targets.begin(), targets.end(), t) - targets.begin();
        phi.operands.push_back(uint_constant(uint32_t(index)));
        phi.operands.push_back(u);
      }
      selector = phi.result_id;
      code.push_back(phi);
    }
    // Phis of the targets move into the dispatch block.
    for (uint32_t t : targets) {
      for (Instruction& p : block(t).instructions) {
        if (p.opcode != Op::OpPhi) break;
        Instruction moved(Op::OpPhi, p.type_id, m_.take_id());
        std::vector<uint32_t> kept;
        for (auto [u, t2] : exits) {
          uint32_t v = undef(p.type_id);
          if (t2 == t)
            for (size_t k = 0; k + 1 < p.operands.size(); k += 2)
              if (p.operands[k + 1] == u) v = p.operands[k];
          moved.operands.push_back(v);
          moved.operands.push_back(u);
        }
        for (size_t k = 0; k + 1 < p.operands.size(); k += 2) {
          bool exiting = false;
          for (auto [u, t2] : exits) exiting |= (t2 == t && u == p.operands[k + 1]);
          if (!exiting) {
            kept.push_back(p.operands[k]);
            kept.push_back(p.operands[k + 1]);
          }
        }
        kept.push_back(moved.result_id);
        kept.push_back(label);
        p.operands = kept;
        code.push_back(moved);
      }
    }
    if (targets.size() == 1) {
      code.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{targets[0]});
    } else {
      Instruction sw(Op::OpSwitch, 0, 0, {selector, targets[0]});
      for (size_t k = 1; k < targets.size(); ++k) {
        sw.operands.push_back(uint32_t(k));
        sw.operands.push_back(targets[k]);
      }
      code.push_back(sw);
    }
    f_.blocks.push_back(Block{label, code});
    for (auto [u, t] : exits) ir::retarget(m_, f_, block(u), t, label);
    // As a chain of two-way branches, targets that lead to one another (an early exit that
    // falls into the loop's normal exit) are ordinary joins, not case fall-through.
    if (targets.size() > 1) switch_to_branches(f_.blocks.size() - 1);
    return label;
  }

  // Moves everything after |label|'s phis into a new block; returns the new block.
  uint32_t split_after_phis(uint32_t label) {
    Block& b = block(label);
    size_t first = 0;
    while (first < b.instructions.size() && b.instructions[first].opcode == Op::OpPhi) ++first;
    std::vector<Instruction> tail(b.instructions.begin() + first, b.instructions.end());
    b.instructions.resize(first);
    uint32_t next = m_.take_id();
    block(label).instructions.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{next});
    f_.blocks.push_back(Block{next, tail});
    for (uint32_t s : ir::successor_labels(m_, f_, f_.blocks.back()))
      ir::rename_phi_predecessor(block(s), label, next);
    return next;
  }

  // A block that forwards to |target|; the edges into |target| from blocks |from| selects are
  // redirected to it (with their phi values).
  uint32_t forwarding_block(uint32_t target, const std::function<bool(uint32_t)>& from) {
    Cfg cfg(m_, f_);
    std::vector<uint32_t> preds;
    for (int p : cfg.predecessors(cfg.index(target)))
      if (from(f_.blocks[p].label)) preds.push_back(f_.blocks[p].label);
    uint32_t label = m_.take_id();
    std::vector<Instruction> code;
    for (Instruction& p : block(target).instructions) {
      if (p.opcode != Op::OpPhi) break;
      Instruction moved(Op::OpPhi, p.type_id, m_.take_id());
      std::vector<uint32_t> kept;
      for (size_t k = 0; k + 1 < p.operands.size(); k += 2) {
        bool redirected = std::count(preds.begin(), preds.end(), p.operands[k + 1]);
        auto& dst = redirected ? moved.operands : kept;
        dst.push_back(p.operands[k]);
        dst.push_back(p.operands[k + 1]);
      }
      kept.push_back(moved.result_id);
      kept.push_back(label);
      p.operands = kept;
      code.push_back(moved);
    }
    code.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{target});
    f_.blocks.push_back(Block{label, code});
    for (uint32_t p : preds) ir::retarget(m_, f_, block(p), target, label);
    return label;
  }

  // ---- step 3
  struct Region {
    std::set<int> nodes;
    int sink = -1;                          // the loop's continue block, or -1 (returns)
    std::unordered_map<int, int> collapsed;  // inner loop header -> its merge
  };

  Region region_of(Cfg& cfg, int b) {
    Region r;
    std::set<int> body;
    const Loop* loop = innermost_loop_containing(cfg, b, &body);
    if (loop) {
      r.nodes = body;
      r.nodes.erase(cfg.index(loop->cont));
      r.sink = cfg.index(loop->cont);
    } else {
      for (int x : cfg.rpo()) r.nodes.insert(x);
    }
    for (const Loop& inner : loops_) {
      int ih = cfg.index(inner.header);
      if (!r.nodes.count(ih) || (loop && inner.header == loop->header)) continue;
      for (int x : loop_body(cfg, ih))
        if (x != ih) r.nodes.erase(x);
      r.collapsed[ih] = cfg.index(inner.merge);
    }
    if (loop) r.nodes.insert(cfg.index(loop->header));
    return r;
  }

  // The first block, in reverse post-order, that every path from |from| to |to| inside |r|
  // passes through, if it is dominated by |from| and free to become a merge (not a loop
  // header, merge, continue or small returning block); -1 otherwise.
  int nearest_cut(Cfg& cfg, const Region& r, int from, int to) {
    auto in_region = [&](int y) { return r.nodes.count(y) || r.collapsed.count(y); };
    auto reaches_avoiding = [&](int avoid) {
      std::set<int> seen = {from};
      std::vector<int> work = {from};
      while (!work.empty()) {
        int x = work.back();
        work.pop_back();
        if (x == to) return true;
        auto c = r.collapsed.find(x);
        std::vector<int> next = c != r.collapsed.end() ? std::vector<int>{c->second} : cfg.successors(x);
        for (int y : next)
          if (y != avoid && in_region(y) && seen.insert(y).second) work.push_back(y);
      }
      return false;
    };
    for (int x : cfg.rpo()) {
      if (x == from || x == to || !in_region(x) || !cfg.dominates(from, x)) continue;
      if (reaches_avoiding(x)) continue;
      uint32_t label = f_.blocks[x].label;
      bool header = std::any_of(loops_.begin(), loops_.end(),
                                [&](const Loop& l) { return l.header == label; });
      if (header || merges_.count(label) || continues_.count(label) || is_small_return(f_.blocks[x]))
        return -1;
      return x;
    }
    return -1;
  }

  // Immediate post-dominator of |b| in |r|, ignoring paths that leave the region. Returns
  // -2 when the region's sink (continue block or function exit) is the answer, -3 when no
  // path from |b| reaches the sink.
  int region_ipdom(Cfg& cfg, const Region& r, int b) {
    const int kSink = int(f_.blocks.size());
    auto succs = [&](int x) {
      std::vector<int> out;
      if (x == kSink) return out;
      auto c = r.collapsed.find(x);
      if (c != r.collapsed.end()) {
        if (r.nodes.count(c->second)) out.push_back(c->second);
        else if (c->second == r.sink) out.push_back(kSink);
        return out;
      }
      if (r.sink < 0 && is_return(f_.blocks[x])) out.push_back(kSink);
      for (int t : cfg.successors(x)) {
        if (t == r.sink) out.push_back(kSink);
        else if (r.nodes.count(t)) out.push_back(t);
      }
      return out;
    };
    // Reverse graph from the sink: post-order numbering, then dominators of the reverse.
    std::unordered_map<int, std::vector<int>> rpreds;  // reverse successors = predecessors
    for (int x : r.nodes)
      for (int s : succs(x)) rpreds[s].push_back(x);
    std::unordered_map<int, int> number;
    std::vector<int> order;
    std::vector<std::pair<int, size_t>> stack = {{kSink, 0}};
    std::unordered_set<int> seen = {kSink};
    std::vector<int> post;
    while (!stack.empty()) {
      auto& [x, next] = stack.back();
      auto& ps = rpreds[x];
      if (next < ps.size()) {
        int p = ps[next++];
        if (!seen.count(p)) seen.insert(p), stack.push_back({p, 0});
      } else {
        post.push_back(x);
        stack.pop_back();
      }
    }
    if (!seen.count(b)) return -3;
    order.assign(post.rbegin(), post.rend());
    for (size_t i = 0; i < order.size(); ++i) number[order[i]] = int(i);
    std::unordered_map<int, int> ipdom;
    ipdom[kSink] = kSink;
    bool changed = true;
    while (changed) {
      changed = false;
      for (size_t i = 1; i < order.size(); ++i) {
        int x = order[i];
        int candidate = -1;
        for (int s : succs(x)) {
          if (!ipdom.count(s)) continue;
          if (candidate < 0) { candidate = s; continue; }
          int a = s, c = candidate;
          while (a != c) {
            while (number[a] > number[c]) a = ipdom[a];
            while (number[c] > number[a]) c = ipdom[c];
          }
          candidate = a;
        }
        if (candidate >= 0 && (!ipdom.count(x) || ipdom[x] != candidate)) {
          ipdom[x] = candidate;
          changed = true;
        }
      }
    }
    int p = ipdom[b];
    return p == kSink ? -2 : p;
  }

  bool structure_selections() {
    for (int guard = 0; guard < 100000; ++guard) {
      Cfg cfg(m_, f_);
      int header = -1;
      for (int b : cfg.rpo()) {
        const Block& blk = f_.blocks[b];
        if (blk.merge()) continue;
        Op op = blk.terminator().opcode;
        if ((op == Op::OpBranchConditional || op == Op::OpSwitch) && cfg.successors(b).size() > 1) {
          header = b;
          break;
        }
      }
      if (header < 0) return true;
      if (!structure_selection(f_.blocks[header].label)) return false;
    }
    return fail("the structurizer did not converge");
  }

  bool structure_selection(uint32_t h) {
    uint32_t merge = 0;
    {
      Cfg cfg(m_, f_);
      int hi = cfg.index(h);
      Region r = region_of(cfg, hi);
      int m = region_ipdom(cfg, r, hi);
      auto dominated = [&](uint32_t label) {
        Cfg now(m_, f_);
        return now.dominates(now.index(h), now.index(label));
      };
      if (r.sink < 0 && (m < 0 || is_small_return(f_.blocks[m]))) {
        // Early returns make the function's exit the only common successor. The merge is
        // then the first join this header owns (where its non-returning paths meet).
        int standard = m;
        m = standard >= 0 ? standard : -3;
        bool is_switch = f_.blocks[hi].terminator().opcode == Op::OpSwitch;
        std::vector<uint32_t> targets = ir::successor_labels(m_, f_, f_.blocks[hi]);
        // A header that branches straight to an enclosing construct's merge joins that flow:
        // it gets a forwarding block to it as its own merge.
        // Flow that rejoins an enclosing selection goes there through this header's merge:
        // the innermost enclosing merge this header reaches becomes its merge.
        std::set<int> reach;
        std::vector<int> work = {hi};
        while (!work.empty()) {
          int x = work.back();
          work.pop_back();
          for (int y : cfg.successors(x))
            if (r.nodes.count(y) && !reach.count(y)) reach.insert(y), work.push_back(y);
        }
        for (int a = cfg.idom(hi); a >= 0; a = cfg.idom(a)) {
          const Instruction* mi = f_.blocks[a].merge();
          if (!mi || mi->opcode != Op::OpSelectionMerge) continue;
          int mb = cfg.index(mi->operands[0]);
          if (mb >= 0 && reach.count(mb) && !is_small_return(f_.blocks[mb])) {
            m = mb;
            break;
          }
        }
        // Where every path from here to that merge (the returning ones aside) passes through
        // one block of this construct, that block is the merge: the paths meet there, as an
        // `if` without `else` meets at its end. (A forwarding block to the enclosing merge
        // instead made the end of the `then` part branch into the `else` part, which Mesa's
        // SPIR-V reader rejects as a cross edge.)
        if (m >= 0 && !is_small_return(f_.blocks[m])) {
          int cut = nearest_cut(cfg, r, hi, m);
          if (cut >= 0) m = cut;
        }
        int ladder = -1;  // the first join refused because later joins are entered past it
        for (int x : cfg.rpo()) {
          if (m >= 0 && !is_small_return(f_.blocks[m])) break;
          if (cfg.idom(x) != hi) continue;
          int forward_preds = 0;  // back edges do not make a join
          for (int p : cfg.predecessors(x)) forward_preds += !cfg.dominates(x, p);
          if (forward_preds < 2) continue;
          if (is_small_return(f_.blocks[x]) || merges_.count(f_.blocks[x].label)) continue;
          if (is_switch && std::count(targets.begin(), targets.end(), f_.blocks[x].label)) continue;
          if (leads_back_into(cfg, hi, x)) {
            if (ladder < 0) ladder = x;
            continue;
          }
          m = x;
          break;
        }
        // With no join to meet at, the paths would meet inside the construct, which Mesa's
        // SPIR-V reader rejects ("Invalid back or cross-edge"): funnel the ladder instead.
        if ((m < 0 || is_small_return(f_.blocks[m])) && ladder >= 0 && funnel_ladder(cfg, hi, ladder))
          return true;  // re-analyse: the dispatch block is now the join
        // Inside another construct a returning block cannot be the merge (it lies outside
        // that construct): the merge is then unreachable and every path returns by itself.
        if (m >= 0 && is_small_return(f_.blocks[m]))
          for (int a = cfg.idom(hi); a >= 0; a = cfg.idom(a)) {
            const Instruction* mi = f_.blocks[a].merge();
            int mb = mi ? cfg.index(mi->operands[0]) : -1;
            if (mi && mb != m && !(mb >= 0 && cfg.dominates(mb, hi))) {
              m = -3;
              break;
            }
          }
      }
      // Joins this header cannot own are duplicated first; the analysis then starts over.
      // A join is reached from inside the construct (any of its blocks, not only the
      // header) and from outside it, and is not the merge.
      uint32_t planned = m >= 0 ? f_.blocks[m].label : (m == -2 && r.sink >= 0 ? f_.blocks[r.sink].label : 0);
      for (int x : cfg.rpo()) {
        bool x_in_region = r.nodes.count(x) || r.collapsed.count(x);
        if (!x_in_region || !cfg.dominates(hi, x) || (m >= 0 && cfg.dominates(m, x))) continue;
        std::vector<int> succ;
        auto c = r.collapsed.find(x);
        if (c != r.collapsed.end()) succ = {c->second};
        else succ = cfg.successors(x);
        for (int ti : succ) {
          if (ti < 0 || f_.blocks[ti].label == planned) continue;
          bool in_region = r.nodes.count(ti) || r.collapsed.count(ti);
          // A small returning block is copied later (inline_returns), unless it is already
          // an enclosing construct's merge: then this edge gets its copy now.
          bool copied_later = is_small_return(f_.blocks[ti]) && !merges_.count(f_.blocks[ti].label);
          if (in_region && !cfg.dominates(hi, ti) && !copied_later)
            return duplicate_for_edge(f_.blocks[x].label, f_.blocks[ti].label);
        }
      }
      if (m == -3 || (m == -2 && r.sink < 0)) {
        merge = new_block({Instruction(Op::OpUnreachable, 0, 0)});
      } else {
        uint32_t candidate = m == -2 ? f_.blocks[r.sink].label : f_.blocks[m].label;
        // Exits of loops whose merge is |candidate| stay where they are: they belong to
        // those loops, not to this selection.
        std::set<uint32_t> inner_exits;
        for (const Loop& l : loops_)
          if (l.merge == candidate)
            for (int x : loop_body(cfg, cfg.index(l.header))) inner_exits.insert(f_.blocks[x].label);
        auto owned = [&](uint32_t label) { return !inner_exits.count(label) && dominated(label); };
        if (m == -2 || merges_.count(candidate) || continues_.count(candidate))
          merge = forwarding_block(candidate, owned);
        else
          merge = candidate;
      }
    }
    Block& hb = block(h);
    hb.instructions.insert(hb.instructions.end() - 1,
                           Instruction(Op::OpSelectionMerge, 0, 0, {merge, 0}));
    merges_.insert(merge);
    // Targets outside the construct that are breaks, continues or returns get a block of
    // their own, so the header branches only into its construct or to its merge.
    Cfg cfg(m_, f_);
    int hi = cfg.index(h);
    std::vector<uint32_t> targets = ir::successor_labels(m_, f_, block(h));
    std::set<uint32_t> handled;
    for (uint32_t t : targets) {
      if (t == merge || handled.count(t)) continue;
      handled.insert(t);
      int ti = cfg.index(t);
      Region r = region_of(cfg, hi);
      bool in_region = r.nodes.count(ti) || r.collapsed.count(ti);
      if (in_region && cfg.dominates(hi, ti)) continue;  // inside the construct
      if (in_region) {
        // A join this header cannot own: give this path its own copy of the join.
        if (!duplicate_for_edge(h, t)) return false;
        return true;  // re-analyse from scratch
      }
      uint32_t s = new_block({Instruction(Op::OpBranch, 0, 0, {t})});
      ir::retarget(m_, f_, block(h), t, s);
      ir::rename_phi_predecessor(block(t), h, s);
    }
    return true;
  }

  // Whether a block |m| dominates branches to a block of the construct |h| would have with
  // |m| as its merge (one |h| dominates and |m| does not): a join after which another path
  // of the construct still joins in (the selection that enters loops at several places,
  // resumable-loops' resume switch) cannot be the merge.
  bool leads_back_into(const Cfg& cfg, int h, int m) {
    for (int y : cfg.rpo()) {
      if (!cfg.dominates(m, y)) continue;
      for (int z : cfg.successors(y))
        if (cfg.dominates(h, z) && !cfg.dominates(m, z)) return true;
    }
    return false;
  }

  // Copies the blocks |target| dominates so that the edge from |from| enters the copy.
  bool duplicate_for_edge(uint32_t from, uint32_t target) {
    demote_escaping_values(target);
    Cfg cfg(m_, f_);
    int ti = cfg.index(target);
    std::vector<int> region;
    for (int x : cfg.rpo())
      if (cfg.dominates(ti, x)) region.push_back(x);
    if (region.size() > 64) {
      if (funnel_join(target)) return true;
      return fail("a join of " + std::to_string(region.size()) +
                  " blocks would need duplication (short-circuit control flow)");
    }
    // Copies along every path of a ladder of short-circuit joins (CLBlast's unrolled
    // `if (part == 2 || col++ < n)`) grow exponentially with its length: past a budget of
    // the function's own size, joins are reached through a dispatch block instead.
    size_t cost = 0;
    for (int x : region) cost += weight(f_.blocks[x]);
    if (copied_ + cost > copy_budget_) {
      if (funnel_join(target)) return true;
      return fail("duplicating the joins of its short-circuit control flow would grow the "
                  "function more than its own size");
    }
    copied_ += cost;
    // A small returning block may be copied even where it is another construct's merge: the
    // copy returns by itself and is nobody's merge.
    bool lone_return = region.size() == 1 && is_small_return(f_.blocks[region[0]]);
    for (int x : region)
      if (!lone_return && (merges_.count(f_.blocks[x].label) || continues_.count(f_.blocks[x].label) ||
                           block(f_.blocks[x].label).merge())) {
        if (funnel_join(target)) return true;
        return fail("a join that contains structured constructs cannot be duplicated yet (edge %" + std::to_string(from) + " -> %" + std::to_string(target) + ")");
      }
    std::unordered_map<uint32_t, uint32_t> remap;
    for (int x : region) {
      remap[f_.blocks[x].label] = m_.take_id();
      for (const Instruction& i : f_.blocks[x].instructions)
        if (i.result_id) remap[i.result_id] = m_.take_id();
    }
    std::vector<Block> copies;
    for (int x : region) {
      Block copy{remap[f_.blocks[x].label], f_.blocks[x].instructions};
      for (Instruction& i : copy.instructions) {
        if (i.result_id) i.result_id = remap[i.result_id];
        for (size_t k = 0; k < i.operands.size(); ++k) {
          auto it = remap.find(i.operands[k]);
          if (it != remap.end() && !ir::is_literal_operand(i, k)) i.operands[k] = it->second;
        }
      }
      copies.push_back(copy);
    }
    ir::copy_decorations(m_, remap);
    // The copy of |target| keeps only |from|'s phi entries; the original loses them.
    for (Instruction& phi : copies.front().instructions) {
      if (phi.opcode != Op::OpPhi) break;
      std::vector<uint32_t> ops;
      for (size_t k = 0; k + 1 < phi.operands.size(); k += 2)
        if (phi.operands[k + 1] == from) ops = {phi.operands[k], from};
      phi.operands = ops;
    }
    drop_phi_entries(block(target), from);
    // Successors outside the region gain phi entries for the copies.
    std::set<uint32_t> inside;
    for (int x : region) inside.insert(f_.blocks[x].label);
    for (int x : region) {
      uint32_t original = f_.blocks[x].label;
      for (uint32_t s : ir::successor_labels(m_, f_, f_.blocks[x])) {
        if (inside.count(s)) continue;
        for (Instruction& phi : block(s).instructions) {
          if (phi.opcode != Op::OpPhi) break;
          for (size_t k = 0; k + 1 < phi.operands.size(); k += 2)
            if (phi.operands[k + 1] == original) {
              uint32_t v = phi.operands[k];
              auto it = remap.find(v);
              phi.operands.push_back(it == remap.end() ? v : it->second);
              phi.operands.push_back(remap[original]);
              break;
            }
        }
      }
    }
    for (Block& b : copies) f_.blocks.push_back(std::move(b));
    ir::retarget(m_, f_, block(from), target, remap[target]);
    return true;
  }

  // A ladder of short-circuit joins (`a || b` whose paths meet at |j|, while a path of `a`
  // goes on to a later join that |j|'s paths reach too, LibreOffice's chained `approx_equal`
  // tests) gives header |hi| no block where all its paths meet. Every edge from the rest of
  // the construct into |j| or into a block after it goes through one dispatch block instead,
  // which is then that meeting place. False where an edge is a loop's and cannot move.
  bool funnel_ladder(const Cfg& cfg, int hi, int j) {
    if (++funnels_ > 256) return false;
    std::set<int> after = {j};  // reachable from |j| inside the construct, back edges aside
    std::vector<int> work = {j};
    while (!work.empty()) {
      int x = work.back();
      work.pop_back();
      for (int y : cfg.successors(x))
        if (cfg.dominates(hi, y) && !cfg.dominates(y, x) && after.insert(y).second) work.push_back(y);
    }
    std::vector<uint32_t> targets;
    std::vector<std::pair<uint32_t, uint32_t>> exits;
    for (int z : cfg.rpo()) {  // |j| first: everything in |after| is reached from it
      if (!after.count(z)) continue;
      uint32_t t = f_.blocks[z].label;
      std::set<int> preds;
      for (int p : cfg.predecessors(z))
        if (!after.count(p) && cfg.dominates(hi, p) && !cfg.dominates(z, p)) preds.insert(p);
      if (preds.empty()) continue;
      for (const Loop& l : loops_)
        if (l.merge == t || l.cont == t || l.header == t) return false;
      if (merges_.count(t) || continues_.count(t)) return false;
      targets.push_back(t);
      for (int p : preds) exits.push_back({f_.blocks[p].label, t});
    }
    if (targets.empty() || targets.front() != f_.blocks[j].label) return false;
    dispatch_edges(exits, targets);
    return true;
  }

  // make_dispatch for |exits| that may share a source block: the selector phi needs one
  // predecessor per edge, so a block that enters several targets reaches all but its last
  // through blocks of their own.
  uint32_t dispatch_edges(std::vector<std::pair<uint32_t, uint32_t>> exits,
                          const std::vector<uint32_t>& targets) {
    for (size_t e = 0; e < exits.size(); ++e) {
      auto& [from, t] = exits[e];
      bool later = false;
      for (size_t o = e + 1; o < exits.size(); ++o) later |= exits[o].first == from;
      if (!later) continue;
      uint32_t split = new_block({Instruction(Op::OpBranch, 0, 0, {t})});
      ir::retarget(m_, f_, block(from), t, split);
      ir::rename_phi_predecessor(block(t), from, split);
      from = split;
    }
    return make_dispatch(exits, targets);
  }

  // For a join that cannot be duplicated (a state machine's `switch` whose cases share
  // loops): the selection that dominates |target| gets a new merge, a dispatch block that
  // every edge into |target| or into its old merge goes through, so |target| is then reached
  // from one place. Returns false where that selection has no merge to replace.
  bool funnel_join(uint32_t target) {
    if (++funnels_ > 256) return false;
    Cfg cfg(m_, f_);
    int ti = cfg.index(target);
    int hi = ti >= 0 ? cfg.idom(ti) : -1;
    if (hi < 0) return false;
    uint32_t h = f_.blocks[hi].label;
    const Instruction* mi = f_.blocks[hi].merge();
    if (!mi || mi->opcode != Op::OpSelectionMerge || mi->operands[0] == target) return false;
    uint32_t old_merge = mi->operands[0];
    // Blocks after |target| (reachable from it before the old merge) keep their edges: the
    // dispatch comes before |target|, so routing them through it would make a cycle.
    std::set<int> after = {ti};
    std::vector<int> work = {ti};
    int mi_index = cfg.index(old_merge);
    while (!work.empty()) {
      int x = work.back();
      work.pop_back();
      for (int y : cfg.successors(x))
        if (y != mi_index && !after.count(y)) after.insert(y), work.push_back(y);
    }
    std::vector<std::pair<uint32_t, uint32_t>> exits;  // forward edges from |h|'s construct
    std::vector<uint32_t> targets = {target, old_merge};
    for (uint32_t t : targets) {
      int index = cfg.index(t);
      if (index < 0) return false;
      for (int p : cfg.predecessors(index))
        if (cfg.dominates(hi, p) && !after.count(p)) exits.push_back({f_.blocks[p].label, t});
    }
    if (exits.empty() || exits.front().second != target) return false;
    merges_.erase(old_merge);
    uint32_t dispatch = dispatch_edges(exits, targets);
    for (Instruction& i : block(h).instructions)
      if (i.opcode == Op::OpSelectionMerge) i.operands[0] = dispatch;
    merges_.insert(dispatch);
    return true;
  }

  // Values defined in the blocks |root| dominates and used outside them go through a
  // Function variable, so duplicating those blocks keeps SSA valid.
  void demote_escaping_values(uint32_t root) {
    Cfg cfg(m_, f_);
    int ri = cfg.index(root);
    std::set<uint32_t> region_defs;
    std::set<uint32_t> region_labels;
    for (int x : cfg.rpo())
      if (cfg.dominates(ri, x)) {
        region_labels.insert(f_.blocks[x].label);
        for (const Instruction& i : f_.blocks[x].instructions)
          if (i.result_id && i.type_id) region_defs.insert(i.result_id);
      }
    std::set<uint32_t> escaping;
    for (Block& b : f_.blocks) {
      if (region_labels.count(b.label)) continue;
      for (const Instruction& i : b.instructions)
        for (size_t k = 0; k < i.operands.size(); ++k)
          if (region_defs.count(i.operands[k]) && !ir::is_literal_operand(i, k))
            escaping.insert(i.operands[k]);
    }
    for (uint32_t v : escaping) demote(v);
  }

  // ---- step 5 helpers
  uint32_t type_of(uint32_t value) {
    for (const Block& b : f_.blocks)
      for (const Instruction& i : b.instructions)
        if (i.result_id == value) return i.type_id;
    return 0;
  }
  bool is_void(uint32_t type) const {
    for (const auto& g : m_.globals)
      if (g.result_id == type) return g.opcode == Op::OpTypeVoid;
    return false;
  }
  uint32_t pointer_type(uint32_t pointee) {
    for (const auto& g : m_.globals)
      if (g.opcode == Op::OpTypePointer && g.operands[0] == uint32_t(spv::StorageClass::Function) &&
          g.operands[1] == pointee)
        return g.result_id;
    uint32_t id = m_.take_id();
    m_.globals.emplace_back(Op::OpTypePointer, 0, id,
                            std::vector<uint32_t>{uint32_t(spv::StorageClass::Function), pointee});
    return id;
  }

  // Replaces every use of |value| outside its own defining instruction by a load from a new
  // variable stored right after the definition.
  void demote(uint32_t value) {
    uint32_t type = type_of(value);
    if (!type || is_void(type)) return;  // a void call's result is never used
    uint32_t var = m_.take_id();
    Block& entry = f_.blocks.front();
    size_t at = 0;
    while (at < entry.instructions.size() && entry.instructions[at].opcode == Op::OpVariable) ++at;
    entry.instructions.insert(entry.instructions.begin() + at,
        Instruction(Op::OpVariable, pointer_type(type), var,
                    {uint32_t(spv::StorageClass::Function)}));
    for (Block& b : f_.blocks) {
      for (size_t k = 0; k < b.instructions.size(); ++k) {
        Instruction& i = b.instructions[k];
        if (i.result_id == value) {
          size_t pos = k + 1;
          if (i.opcode == Op::OpPhi)
            while (pos < b.instructions.size() && b.instructions[pos].opcode == Op::OpPhi) ++pos;
          b.instructions.insert(b.instructions.begin() + pos,
                                Instruction(Op::OpStore, 0, 0, {var, value}));
          if (pos == k + 1) ++k;
          continue;
        }
        if (i.opcode == Op::OpStore && i.operands[0] == var) continue;
        if (i.opcode == Op::OpPhi) {
          for (size_t o = 0; o + 1 < i.operands.size(); o += 2)
            if (i.operands[o] == value) {
              // Load at the end of the predecessor.
              Block& pred = block(i.operands[o + 1]);
              uint32_t loaded = m_.take_id();
              size_t end = pred.instructions.size() - 1;
              if (pred.merge()) --end;
              pred.instructions.insert(pred.instructions.begin() + end,
                                       Instruction(Op::OpLoad, type, loaded, {var}));
              i.operands[o] = loaded;
            }
          continue;
        }
        bool uses = false;
        for (size_t o = 0; o < i.operands.size(); ++o)
          uses = uses || (i.operands[o] == value && !ir::is_literal_operand(i, o));
        if (!uses || i.opcode == Op::OpSelectionMerge || i.opcode == Op::OpLoopMerge) continue;
        uint32_t loaded = m_.take_id();
        for (size_t o = 0; o < i.operands.size(); ++o)
          if (i.operands[o] == value && !ir::is_literal_operand(i, o)) i.operands[o] = loaded;
        // A terminator's load goes before the block's merge instruction, which must stay
        // right before the terminator.
        size_t load_at = k;
        if (k + 1 == b.instructions.size() && k > 0 &&
            (b.instructions[k - 1].opcode == Op::OpSelectionMerge ||
             b.instructions[k - 1].opcode == Op::OpLoopMerge))
          load_at = k - 1;
        b.instructions.insert(b.instructions.begin() + load_at,
                              Instruction(Op::OpLoad, type, loaded, {var}));
        ++k;
      }
    }
  }

  // ---- step 4
  void order_blocks() {
    Cfg cfg(m_, f_);
    std::vector<char> seen(f_.blocks.size(), 0);
    std::vector<int> post;
    std::function<void(int)> visit = [&](int b) {
      seen[b] = 1;
      std::vector<uint32_t> next;
      if (const Instruction* m = f_.blocks[b].merge()) {
        next.push_back(m->operands[0]);
        if (m->opcode == Op::OpLoopMerge) next.push_back(m->operands[1]);
      }
      std::vector<uint32_t> succ = ir::successor_labels(m_, f_, f_.blocks[b]);
      next.insert(next.end(), succ.rbegin(), succ.rend());
      for (uint32_t l : next) {
        int s = cfg.index(l);
        if (s >= 0 && !seen[s]) visit(s);
      }
      post.push_back(b);
    };
    visit(0);
    std::vector<Block> ordered;
    for (auto it = post.rbegin(); it != post.rend(); ++it) ordered.push_back(f_.blocks[*it]);
    f_.blocks = std::move(ordered);
  }

  // ---- step 5
  void repair_ssa() {
    for (int round = 0; round < 4; ++round) {
      Cfg cfg(m_, f_);
      std::unordered_map<uint32_t, int> def_block;
      for (size_t b = 0; b < f_.blocks.size(); ++b)
        for (const Instruction& i : f_.blocks[b].instructions)
          if (i.result_id) def_block[i.result_id] = int(b);
      std::set<uint32_t> broken;
      for (size_t b = 0; b < f_.blocks.size(); ++b) {
        if (!cfg.reachable(int(b))) continue;
        for (size_t k = 0; k < f_.blocks[b].instructions.size(); ++k) {
          const Instruction& i = f_.blocks[b].instructions[k];
          if (i.opcode == Op::OpPhi) {
            for (size_t o = 0; o + 1 < i.operands.size(); o += 2) {
              auto d = def_block.find(i.operands[o]);
              int pred = cfg.index(i.operands[o + 1]);
              if (d != def_block.end() && pred >= 0 && cfg.reachable(pred) &&
                  !cfg.dominates(d->second, pred))
                broken.insert(i.operands[o]);
            }
            continue;
          }
          if (i.opcode == Op::OpSelectionMerge || i.opcode == Op::OpLoopMerge ||
              i.opcode == Op::OpBranch || i.opcode == Op::OpSwitch) {
            if (i.opcode == Op::OpSwitch) {
              auto d = def_block.find(i.operands[0]);
              if (d != def_block.end() && !cfg.dominates(d->second, int(b))) broken.insert(i.operands[0]);
            }
            continue;
          }
          size_t first = i.opcode == Op::OpBranchConditional ? 0 : 0;
          size_t last = i.opcode == Op::OpBranchConditional ? 1 : i.operands.size();
          for (size_t o = first; o < last; ++o) {
            if (ir::is_literal_operand(i, o)) continue;
            auto d = def_block.find(i.operands[o]);
            if (d == def_block.end()) continue;
            if (d->second == int(b)) continue;  // same block: order is preserved
            if (!cfg.dominates(d->second, int(b))) broken.insert(i.operands[o]);
          }
        }
      }
      if (broken.empty()) return;
      for (uint32_t v : broken) demote(v);
    }
  }

  ir::Module& m_;
  ir::Function& f_;
  PassContext& ctx_;
  bool changed_ = false;
  uint32_t keep_ = 0;
  std::vector<Loop> loops_;
  std::unordered_set<uint32_t> merges_, continues_;
  std::unordered_map<uint32_t, uint32_t> undefs_;
  uint32_t pending_cont_ = 0;
  int funnels_ = 0;
  size_t copied_ = 0;         // instructions duplicate_for_edge has copied, calls inlined
  size_t copy_budget_ = 256;  // and how many it may copy: 256 plus the function's size
  std::unordered_map<uint32_t, size_t> weights_;  // function id -> its size, calls inlined
  bool collective_functions_computed_ = false;
  std::unordered_set<uint32_t> collective_functions_;
};

// A dispatch loop for the region before any barrier, the rest structured as usual.
bool dispatch(ir::Module& module, ir::Function& f, PassContext& context, std::string* why = nullptr,
              bool uniform = false) {
  DispatchLoop loop;
  std::string reason;
  if (!make_dispatch_loop(module, f, &loop, &reason, uniform)) {
    if (why) *why = reason;
    return false;
  }
  Structurizer rest(module, f, context);
  rest.keep(loop.head);  // the placeholder
  if (rest.run() && splice_dispatch_loop(module, f, std::move(loop))) return true;
  if (why) *why = "the rest of the function could not be structured";
  return false;
}

class StructurizePass : public Pass {
 public:
  const char* name() const override { return "structurize"; }
  PassStatus Process(ir::Module& module, PassContext& context) override {
    bool changed = false;
    for (ir::Function& f : module.functions) {
      if (f.blocks.empty()) continue;
      bool structured = true;
      for (const Block& b : f.blocks) {
        Op op = b.terminator().opcode;
        if ((op == Op::OpBranchConditional || op == Op::OpSwitch) && !b.merge()) structured = false;
      }
      // A function that already has merge instructions everywhere (run twice) is left alone.
      bool has_loops_unmarked = false;
      {
        Cfg cfg(module, f);
        for (int b : cfg.rpo())
          for (int p : cfg.predecessors(b))
            if (cfg.dominates(b, p) && f.blocks[b].merge() == nullptr) has_loops_unmarked = true;
      }
      if (structured && !has_loops_unmarked) continue;
      ir::Function original = f;
      size_t log_size = context.log.size();
      if (context.dispatch_loops) {  // in step first: it leaves nothing to the structurizer
        if (dispatch(module, f, context, nullptr, true)) {
          changed = true;
          continue;
        }
        f = original;
        context.log.resize(log_size);
        if (dispatch(module, f, context)) {
          changed = true;
          continue;
        }
      }
      f = original;
      context.log.resize(log_size);
      Structurizer s(module, f, context);
      if (s.run()) {
        changed |= s.changed();
        continue;
      }
      // The last resort: a dispatch loop for the region before any barrier, the rest
      // structured again. The first failure's log stands when that does not work either.
      std::string failure = context.log.substr(log_size), why;
      // A dispatch loop would go round once per block: a resumable kernel's count of loop
      // passes would be wrong. translate() tries again in another way.
      if (context.resumable.count(f.id())) {
        context.log += failure;
        return PassStatus::Failure;
      }
      f = original;
      context.log.resize(log_size);
      if (dispatch(module, f, context, &why)) {
        changed = true;
        continue;
      }
      // Barriers in the way: the whole function in a loop the work-group runs in step.
      f = original;
      context.log.resize(log_size);
      std::string uniform_why;
      if (dispatch(module, f, context, &uniform_why, true)) {
        changed = true;
        continue;
      }
      context.log.resize(log_size);
      context.log += failure + "note: nor as a dispatch loop: " + why + "; nor in step: " + uniform_why + "\n";
      return PassStatus::Failure;
    }
    return changed ? PassStatus::SuccessWithChange : PassStatus::SuccessWithoutChange;
  }
};

}  // namespace

std::unique_ptr<Pass> create_structurize_pass() { return std::make_unique<StructurizePass>(); }

}  // namespace vkcl::k2s
