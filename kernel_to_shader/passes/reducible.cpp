// Irreducible cycles become loops with a single entry through a dispatch block (a "dispatch
// loop"). Node splitting would avoid the selector but can grow code exponentially; the
// dispatch block adds one phi per entry phi and no copies.
//
// For a cycle C (a strongly connected component) with entries e0..en (blocks of C with a
// predecessor outside C), every edge p -> ei, from inside or outside C, becomes p -> H, and H
// is `OpSwitch %selector e0 1 e1 ...` with `%selector = OpPhi (i, p)...`. Phis of ei move to
// H, taking OpUndef for the edges that meant another entry. H then dominates C, C's entries
// have H as their only predecessor, and C minus H is searched for cycles again.
//
// SSA stays valid without demotion: a path that the rewrite creates (p -> H -> ej for an edge
// p -> ei) reaches ej, which was already reachable from outside C without passing through any
// block of C, so every block of C keeps its dominators, and values from outside C that
// dominated one block of C dominate all of C and therefore H.
#include "passes/reducible.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "ir/cfg.h"

namespace vkcl::k2s {

using ir::Block;
using ir::Cfg;
using ir::Instruction;
using spv::Op;

namespace {

// Whether every retreating edge of |f| goes to a block that dominates its source.
bool is_reducible(const ir::Module& m, ir::Function& f) {
  Cfg cfg(m, f);
  for (int u : cfg.rpo())
    for (int v : cfg.successors(u))
      if (cfg.rpo_number(v) <= cfg.rpo_number(u) && !cfg.dominates(v, u)) return false;
  return true;
}

// Strongly connected components of the subgraph of |cfg| induced by |nodes| (Tarjan,
// iterative).
std::vector<std::vector<int>> components(const Cfg& cfg, const std::set<int>& nodes) {
  std::unordered_map<int, int> number, low;
  std::vector<int> stack;
  std::set<int> on_stack;
  std::vector<std::vector<int>> out;
  int counter = 0;
  auto open = [&](int v) {
    number[v] = low[v] = counter++;
    stack.push_back(v);
    on_stack.insert(v);
  };
  for (int root : nodes) {
    if (number.count(root)) continue;
    std::vector<std::pair<int, size_t>> calls = {{root, 0}};
    open(root);
    while (!calls.empty()) {
      int v = calls.back().first;
      const std::vector<int>& succ = cfg.successors(v);
      if (calls.back().second < succ.size()) {
        int w = succ[calls.back().second++];
        if (!nodes.count(w)) continue;
        if (!number.count(w)) {
          open(w);
          calls.push_back({w, 0});
        } else if (on_stack.count(w)) {
          low[v] = std::min(low[v], number[w]);
        }
        continue;
      }
      calls.pop_back();
      if (!calls.empty()) low[calls.back().first] = std::min(low[calls.back().first], low[v]);
      if (low[v] != number[v]) continue;
      std::vector<int> component;
      int w;
      do {
        w = stack.back();
        stack.pop_back();
        on_stack.erase(w);
        component.push_back(w);
      } while (w != v);
      out.push_back(component);
    }
  }
  return out;
}

class Rewriter {
 public:
  Rewriter(ir::Module& m, ir::Function& f) : m_(m), f_(f) {}

  void run() {
    std::set<uint32_t> all;
    {
      Cfg cfg(m_, f_);
      for (int b : cfg.rpo()) all.insert(f_.blocks[b].label);
    }
    make_single_entry_cycles(all);
    order_blocks();
  }

 private:
  Block& block(uint32_t label) { return *f_.find_block(label); }

  uint32_t uint_type() { return ir::intern_global(m_, Op::OpTypeInt, 0, {32, 0}); }
  uint32_t uint_constant(uint32_t v) { return ir::intern_global(m_, Op::OpConstant, uint_type(), {v}); }
  uint32_t undef(uint32_t type) { return ir::intern_global(m_, Op::OpUndef, type, {}); }

  // Gives every cycle among |labels| a single entry, outermost cycles first.
  void make_single_entry_cycles(const std::set<uint32_t>& labels) {
    std::vector<std::set<uint32_t>> cycles;
    {
      Cfg cfg(m_, f_);
      std::set<int> nodes;
      for (uint32_t l : labels) nodes.insert(cfg.index(l));
      for (const std::vector<int>& c : components(cfg, nodes)) {
        const std::vector<int>& succ = cfg.successors(c[0]);
        bool cycle = c.size() > 1 || std::count(succ.begin(), succ.end(), c[0]);
        if (!cycle) continue;
        std::set<uint32_t> members;
        for (int x : c) members.insert(f_.blocks[x].label);
        cycles.push_back(members);
      }
    }
    // The rewrite of one cycle only redirects edges into that cycle, so the others' member
    // sets stay valid.
    for (const std::set<uint32_t>& members : cycles) {
      std::vector<uint32_t> entries = entries_of(members);
      if (entries.empty()) continue;
      std::set<uint32_t> inner = members;
      if (entries.size() > 1) add_dispatch(entries);
      else inner.erase(entries[0]);
      make_single_entry_cycles(inner);
    }
  }

  // Blocks of |members| with a reachable predecessor outside it, in function order.
  std::vector<uint32_t> entries_of(const std::set<uint32_t>& members) {
    Cfg cfg(m_, f_);
    std::vector<uint32_t> entries;
    for (const Block& b : f_.blocks) {
      if (!members.count(b.label)) continue;
      for (int p : cfg.predecessors(cfg.index(b.label)))
        if (cfg.reachable(p) && !members.count(f_.blocks[p].label)) {
          entries.push_back(b.label);
          break;
        }
    }
    return entries;
  }

  // Routes every edge into |entries| through a new dispatch block.
  void add_dispatch(const std::vector<uint32_t>& entries) {
    std::vector<std::pair<uint32_t, uint32_t>> edges;  // (predecessor, entry)
    {
      Cfg cfg(m_, f_);
      for (uint32_t e : entries)
        for (int p : cfg.predecessors(cfg.index(e)))
          if (cfg.reachable(p)) edges.push_back({f_.blocks[p].label, e});
    }
    // The selector phi needs one predecessor per value: a block that branches to two
    // entries reaches each through a block of its own.
    std::map<uint32_t, int> targets_of;
    for (const auto& edge : edges) ++targets_of[edge.first];
    for (auto& [p, e] : edges) {
      if (targets_of[p] < 2) continue;
      uint32_t split = m_.take_id();
      f_.blocks.push_back(Block{split, {Instruction(Op::OpBranch, 0, 0, {e})}});
      ir::retarget(m_, f_, block(p), e, split);
      ir::rename_phi_predecessor(block(e), p, split);
      p = split;
    }
    uint32_t h = m_.take_id();
    std::vector<Instruction> code;
    Instruction selector(Op::OpPhi, uint_type(), m_.take_id());
    for (const auto& [p, e] : edges) {
      size_t index = std::find(entries.begin(), entries.end(), e) - entries.begin();
      selector.operands.insert(selector.operands.end(), {uint_constant(uint32_t(index)), p});
    }
    code.push_back(selector);
    for (uint32_t e : entries) {
      for (Instruction& phi : block(e).instructions) {
        if (phi.opcode != Op::OpPhi) break;
        Instruction moved(Op::OpPhi, phi.type_id, m_.take_id());
        std::vector<uint32_t> kept = {moved.result_id, h};
        for (const auto& [p, target] : edges) {
          uint32_t value = 0;
          for (size_t k = 0; k + 1 < phi.operands.size(); k += 2)
            if (target == e && phi.operands[k + 1] == p) value = phi.operands[k];
          moved.operands.insert(moved.operands.end(), {value ? value : undef(phi.type_id), p});
        }
        // Entries from unreachable blocks stay; the structurizer drops those blocks.
        for (size_t k = 0; k + 1 < phi.operands.size(); k += 2) {
          bool rerouted = false;
          for (const auto& [p, target] : edges) rerouted |= target == e && p == phi.operands[k + 1];
          if (!rerouted) kept.insert(kept.end(), {phi.operands[k], phi.operands[k + 1]});
        }
        phi.operands = kept;
        code.push_back(moved);
      }
    }
    Instruction dispatch(Op::OpSwitch, 0, 0, {selector.result_id, entries[0]});
    for (size_t k = 1; k < entries.size(); ++k)
      dispatch.operands.insert(dispatch.operands.end(), {uint32_t(k), entries[k]});
    code.push_back(dispatch);
    for (const auto& [p, e] : edges) ir::retarget(m_, f_, block(p), e, h);
    f_.blocks.push_back(Block{h, code});
  }

  // Blocks in reverse post-order, so each comes after its dominators as SPIR-V requires;
  // unreachable blocks keep their order at the end.
  void order_blocks() {
    Cfg cfg(m_, f_);
    std::vector<Block> ordered;
    for (int b : cfg.rpo()) ordered.push_back(f_.blocks[b]);
    for (size_t b = 0; b < f_.blocks.size(); ++b)
      if (!cfg.reachable(int(b))) ordered.push_back(f_.blocks[b]);
    f_.blocks = std::move(ordered);
  }

  ir::Module& m_;
  ir::Function& f_;
};

class ReduciblePass : public Pass {
 public:
  const char* name() const override { return "reducible"; }
  PassStatus Process(ir::Module& module, PassContext& context) override {
    bool changed = false;
    for (ir::Function& f : module.functions) {
      if (f.blocks.empty() || is_reducible(module, f)) continue;
      Rewriter(module, f).run();
      changed = true;
      if (!is_reducible(module, f)) {
        context.log += "internal error: the control flow of function %" + std::to_string(f.id()) +
                       " is still irreducible after adding dispatch blocks\n";
        return PassStatus::Failure;
      }
    }
    return changed ? PassStatus::SuccessWithChange : PassStatus::SuccessWithoutChange;
  }
};

}  // namespace

std::unique_ptr<Pass> create_reducible_pass() { return std::make_unique<ReduciblePass>(); }

}  // namespace vkcl::k2s
