// The dispatch loop (see dispatch_loop.h). With region blocks B0 (the entry) .. Bn-1:
//
//   new entry:  the entry's OpVariables; state = 0; branch head
//   head:       loop; branch (state < n) ? body : exit
//   body:       switch state: i -> Bi               (merge: switch merge)
//   Bi:         its code; state = <target>; branch switch merge
//               (a switch in Bi: one trampoline per target storing its state, merged in Mi)
//   latch:      branch head                        (after the switch merge)
//   exit:       state == return ? ret : X           (or just ret without X)
//
// Phis of region blocks, and X's phis for region edges, become Function variables stored by
// the predecessor. Every value used outside the region block that defines it goes through a
// Function variable too: no region block dominates another any more.
#include "passes/dispatch_loop.h"

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

bool is_collective(const Instruction& i, const std::unordered_set<uint32_t>& collective) {
  if (i.opcode == Op::OpFunctionCall) return collective.count(i.operands[0]) > 0;
  uint32_t op = uint32_t(i.opcode);
  return i.opcode == Op::OpControlBarrier ||
         (op >= uint32_t(Op::OpGroupAsyncCopy) && op <= uint32_t(Op::OpGroupSMax)) ||
         (op >= uint32_t(Op::OpGroupNonUniformElect) &&
          op <= uint32_t(Op::OpGroupNonUniformQuadSwap));
}

std::unordered_set<uint32_t> collective_functions(const ir::Module& m) {
  std::unordered_set<uint32_t> out;
  for (bool grew = true; grew;) {  // through calls: until no function is added
    grew = false;
    for (const ir::Function& f : m.functions) {
      if (out.count(f.id())) continue;
      bool has = false;
      for (const Block& b : f.blocks)
        for (const Instruction& x : b.instructions) has = has || is_collective(x, out);
      if (has) out.insert(f.id()), grew = true;
    }
  }
  return out;
}

namespace {

class Dispatcher {
 public:
  Dispatcher(ir::Module& m, ir::Function& f) : m_(m), f_(f) {}

  bool run(DispatchLoop* loop, std::string* why) {
    drop_unreachable();
    Cfg cfg(m_, f_);
    int x = -1;
    std::unordered_set<uint32_t> collective = collective_functions(m_);
    for (const int b : cfg.rpo())
      for (const Instruction& i : f_.blocks[b].instructions)
        if (is_collective(i, collective)) {
          x = x < 0 ? b : common_dominator(cfg, x, b);
          break;
        }
    // X's part must only be left by returning: an edge out of it (back to a loop header, to
    // a join after the selection X is in) moves X up to the common dominator.
    for (bool moved = x > 0; moved && x > 0;) {
      moved = false;
      for (const int b : cfg.rpo()) {
        if (!cfg.dominates(x, b)) continue;
        for (int s : cfg.successors(b))
          if (!cfg.dominates(x, s)) {
            x = common_dominator(cfg, x, s);
            moved = true;
          }
        if (moved) break;
      }
    }
    if (x == 0) return fail(why, "a barrier or collective operation dominates all its control flow");
    std::vector<int> region;
    for (const int b : cfg.rpo())
      if (x < 0 || !cfg.dominates(x, b)) region.push_back(b);
    for (size_t i = 0; i < region.size(); ++i) state_[f_.blocks[region[i]].label] = uint32_t(i);
    exit_state_ = uint32_t(region.size());
    return_state_ = exit_state_ + 1;
    x_label_ = x >= 0 ? f_.blocks[x].label : 0;
    rewrite(region, loop);
    return true;
  }

 private:
  static bool fail(std::string* why, const char* text) {
    *why = text;
    return false;
  }
  static int common_dominator(const Cfg& cfg, int a, int b) {
    while (a != b) {
      if (cfg.rpo_number(a) > cfg.rpo_number(b)) a = cfg.idom(a);
      else b = cfg.idom(b);
    }
    return a;
  }

  void drop_unreachable() {
    Cfg cfg(m_, f_);
    std::vector<Block> kept;
    std::set<uint32_t> labels;
    for (size_t b = 0; b < f_.blocks.size(); ++b)
      if (cfg.reachable(int(b))) {
        kept.push_back(f_.blocks[b]);
        labels.insert(f_.blocks[b].label);
      }
    if (kept.size() == f_.blocks.size()) return;
    for (Block& b : kept)
      for (Instruction& phi : b.instructions) {
        if (phi.opcode != Op::OpPhi) break;
        std::vector<uint32_t> ops;
        for (size_t o = 0; o + 1 < phi.operands.size(); o += 2)
          if (labels.count(phi.operands[o + 1])) ops.insert(ops.end(), {phi.operands[o], phi.operands[o + 1]});
        phi.operands = ops;
      }
    f_.blocks = std::move(kept);
  }

  uint32_t uint_type() { return ir::intern_global(m_, Op::OpTypeInt, 0, {32, 0}); }
  uint32_t bool_type() { return ir::intern_global(m_, Op::OpTypeBool, 0, {}); }
  uint32_t constant(uint32_t v) { return ir::intern_global(m_, Op::OpConstant, uint_type(), {v}); }
  uint32_t variable(uint32_t type) {
    uint32_t pointer = ir::intern_global(m_, Op::OpTypePointer, 0,
                                         {uint32_t(spv::StorageClass::Function), type});
    uint32_t id = m_.take_id();
    variables_.emplace_back(Op::OpVariable, pointer, id,
                            std::vector<uint32_t>{uint32_t(spv::StorageClass::Function)});
    return id;
  }
  uint32_t state_of(uint32_t label) const {
    auto it = state_.find(label);
    return it == state_.end() ? exit_state_ : it->second;
  }
  Instruction store_state(uint32_t value) { return Instruction(Op::OpStore, 0, 0, {state_var_, value}); }

  void rewrite(const std::vector<int>& region, DispatchLoop* loop) {
    state_var_ = variable(uint_type());
    uint32_t head = m_.take_id(), body = m_.take_id(), switch_merge = m_.take_id();
    uint32_t latch = m_.take_id(), exit = m_.take_id();
    uint32_t return_type = f_.definition.type_id;
    bool returns_value = false;
    for (const auto& g : m_.globals)
      if (g.result_id == return_type) returns_value = g.opcode != Op::OpTypeVoid;
    uint32_t return_var = returns_value ? variable(return_type) : 0;

    // Phis: each becomes a variable, stored at the end of every region predecessor.
    std::map<uint32_t, std::vector<Instruction>> stores;  // predecessor label -> stores
    std::set<uint32_t> in_region;
    for (int b : region) in_region.insert(f_.blocks[b].label);
    std::vector<Instruction> exit_loads;
    for (Block& b : f_.blocks) {
      bool is_x = b.label == x_label_;
      if (!is_x && !in_region.count(b.label)) continue;
      for (Instruction& phi : b.instructions) {
        if (phi.opcode != Op::OpPhi) break;
        uint32_t var = is_x ? 0 : variable(phi.type_id);
        std::vector<uint32_t> kept;
        for (size_t o = 0; o + 1 < phi.operands.size(); o += 2) {
          uint32_t value = phi.operands[o], from = phi.operands[o + 1];
          if (is_x && !in_region.count(from)) {
            kept.insert(kept.end(), {value, from});
            continue;
          }
          if (!var) var = variable(phi.type_id);
          stores[from].emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{var, value});
        }
        if (!is_x) {
          phi = Instruction(Op::OpLoad, phi.type_id, phi.result_id, {var});
        } else if (var) {
          uint32_t loaded = m_.take_id();
          exit_loads.emplace_back(Op::OpLoad, phi.type_id, loaded, std::vector<uint32_t>{var});
          kept.insert(kept.end(), {loaded, exit});
          phi.operands = kept;
        }
      }
    }

    // Terminators: every edge stores its target's state and leaves the switch.
    std::vector<Block> cases;  // region blocks, each followed by its trampolines and merge
    std::map<uint32_t, uint32_t> inner_merge;  // region block with a switch -> its merge
    bool any_return = false;
    for (int index : region) {
      Block b = f_.blocks[index];
      Instruction t = b.terminator();
      b.instructions.pop_back();
      if (!b.instructions.empty() && (b.instructions.back().opcode == Op::OpSelectionMerge ||
                                      b.instructions.back().opcode == Op::OpLoopMerge))
        b.instructions.pop_back();
      auto& own = stores[b.label];
      b.instructions.insert(b.instructions.end(), own.begin(), own.end());
      std::vector<Block> after;
      switch (t.opcode) {
        case Op::OpBranch:
          b.instructions.push_back(store_state(constant(state_of(t.operands[0]))));
          break;
        case Op::OpBranchConditional: {
          uint32_t on_true = state_of(t.operands[1]), on_false = state_of(t.operands[2]);
          uint32_t value = constant(on_true);
          if (on_true != on_false) {
            value = m_.take_id();
            b.instructions.emplace_back(Op::OpSelect, uint_type(), value,
                std::vector<uint32_t>{t.operands[0], constant(on_true), constant(on_false)});
          }
          b.instructions.push_back(store_state(value));
          break;
        }
        case Op::OpSwitch: {
          uint32_t merge = m_.take_id();
          std::map<uint32_t, uint32_t> trampoline;
          Block with_switch{b.label, {t}};
          for (uint32_t target : ir::successor_labels(m_, f_, with_switch)) {
            if (trampoline.count(target)) continue;
            uint32_t label = m_.take_id();
            trampoline[target] = label;
            after.push_back(Block{label, {store_state(constant(state_of(target))),
                                          Instruction(Op::OpBranch, 0, 0, {merge})}});
          }
          for (auto [target, label] : trampoline) ir::retarget(m_, f_, with_switch, target, label);
          b.instructions.push_back(with_switch.instructions.back());
          after.push_back(Block{merge, {Instruction(Op::OpBranch, 0, 0, {switch_merge})}});
          inner_merge[b.label] = merge;
          break;
        }
        case Op::OpReturnValue:
          b.instructions.emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{return_var, t.operands[0]});
          [[fallthrough]];
        default:  // OpReturn, OpUnreachable
          any_return = true;
          b.instructions.push_back(store_state(constant(return_state_)));
          break;
      }
      if (t.opcode != Op::OpSwitch)
        b.instructions.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{switch_merge});
      cases.push_back(std::move(b));
      cases.insert(cases.end(), after.begin(), after.end());
    }

    // The new entry takes the old one's variables.
    Block& old_entry = cases[0];
    auto first_other = std::stable_partition(
        old_entry.instructions.begin(), old_entry.instructions.end(),
        [](const Instruction& i) { return i.opcode == Op::OpVariable; });
    std::vector<Instruction> entry_code(old_entry.instructions.begin(), first_other);
    old_entry.instructions.erase(old_entry.instructions.begin(), first_other);

    // The exit, and what follows the loop.
    std::vector<Block> rest;
    auto return_code = [&]() {
      std::vector<Instruction> code;
      if (!returns_value) {
        code.emplace_back(Op::OpReturn, 0, 0);
      } else {
        uint32_t value = m_.take_id();
        code.emplace_back(Op::OpLoad, return_type, value, std::vector<uint32_t>{return_var});
        code.emplace_back(Op::OpReturnValue, 0, 0, std::vector<uint32_t>{value});
      }
      return code;
    };
    Block exit_block{exit, exit_loads};
    std::vector<Block> tail;
    if (!x_label_) {
      auto code = return_code();
      exit_block.instructions.insert(exit_block.instructions.end(), code.begin(), code.end());
    } else if (!any_return) {
      exit_block.instructions.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{x_label_});
    } else {
      uint32_t ret = m_.take_id(), final_state = m_.take_id(), returning = m_.take_id();
      exit_block.instructions.emplace_back(Op::OpLoad, uint_type(), final_state, std::vector<uint32_t>{state_var_});
      exit_block.instructions.emplace_back(Op::OpIEqual, bool_type(), returning,
                                           std::vector<uint32_t>{final_state, constant(return_state_)});
      exit_block.instructions.emplace_back(Op::OpBranchConditional, 0, 0,
                                           std::vector<uint32_t>{returning, ret, x_label_});
      tail.push_back(Block{ret, return_code()});
    }
    rest.push_back(exit_block);
    rest.insert(rest.end(), tail.begin(), tail.end());
    for (Block& b : f_.blocks)
      if (!in_region.count(b.label)) rest.push_back(b);

    demote_across_blocks(cases, rest);
    for (Block& b : cases) {  // merges go in last: demotion puts loads before terminators
      auto it = inner_merge.find(b.label);
      if (it != inner_merge.end())
        b.instructions.insert(b.instructions.end() - 1,
            Instruction(Op::OpSelectionMerge, 0, 0, {it->second, 0}));
    }

    entry_code.insert(entry_code.end(), variables_.begin(), variables_.end());
    entry_code.push_back(store_state(constant(0)));
    entry_code.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{head});

    // The loop itself, kept aside; a placeholder takes its place until splice_dispatch_loop.
    uint32_t at = m_.take_id(), more = m_.take_id(), picked = m_.take_id();
    std::vector<uint32_t> targets = {picked, cases[0].label};
    for (size_t i = 1; i < region.size(); ++i)
      targets.insert(targets.end(), {uint32_t(i), f_.blocks[region[i]].label});
    loop->head = head;
    loop->latch = latch;
    loop->more = more;
    loop->blocks.push_back(Block{head, {Instruction(Op::OpLoad, uint_type(), at, {state_var_}),
        Instruction(Op::OpULessThan, bool_type(), more, {at, constant(exit_state_)})}});
    loop->blocks.push_back(Block{body, {Instruction(Op::OpLoad, uint_type(), picked, {state_var_}),
        Instruction(Op::OpSelectionMerge, 0, 0, {switch_merge, 0}),
        Instruction(Op::OpSwitch, 0, 0, targets)}});
    loop->blocks.insert(loop->blocks.end(), cases.begin(), cases.end());
    loop->blocks.push_back(Block{switch_merge, {Instruction(Op::OpBranch, 0, 0, {latch})}});
    loop->blocks.push_back(Block{latch, {Instruction(Op::OpBranch, 0, 0, {head})}});

    std::vector<Block> blocks;
    blocks.push_back(Block{m_.take_id(), entry_code});
    blocks.push_back(Block{head, {Instruction(Op::OpBranch, 0, 0, {exit})}});
    blocks.insert(blocks.end(), rest.begin(), rest.end());
    f_.blocks = std::move(blocks);
  }

  // Every value used outside the region block that defines it is stored to a variable right
  // after its definition and loaded before each such use (at the end of the predecessor for a
  // phi operand).
  void demote_across_blocks(std::vector<Block>& cases, std::vector<Block>& rest) {
    std::unordered_map<uint32_t, uint32_t> home, type;  // value -> defining block, its type
    for (const Block& b : cases)
      for (const Instruction& i : b.instructions)
        if (i.result_id && i.type_id) home[i.result_id] = b.label, type[i.result_id] = i.type_id;
    auto value_operand = [](const Instruction& i, size_t k) {
      if (i.opcode == Op::OpSwitch || i.opcode == Op::OpBranchConditional) return k == 0;
      return !ir::is_literal_operand(i, k);
    };
    std::unordered_map<uint32_t, uint32_t> var;
    auto escapes = [&](Block& b) {
      for (const Instruction& i : b.instructions)
        for (size_t k = 0; k < i.operands.size(); ++k) {
          auto h = home.find(i.operands[k]);
          if (h != home.end() && h->second != b.label && value_operand(i, k) && !var.count(h->first))
            var[h->first] = variable(type[h->first]);
        }
    };
    for (Block& b : cases) escapes(b);
    for (Block& b : rest) escapes(b);
    if (var.empty()) return;
    std::map<uint32_t, std::vector<Instruction>> pred_loads;
    auto rewrite_block = [&](Block& b) {
      std::vector<Instruction> out;
      for (Instruction i : b.instructions) {
        if (i.opcode == Op::OpPhi) {
          for (size_t o = 0; o + 1 < i.operands.size(); o += 2) {
            auto v = var.find(i.operands[o]);
            if (v == var.end()) continue;
            uint32_t loaded = m_.take_id();
            pred_loads[i.operands[o + 1]].emplace_back(Op::OpLoad, type[v->first], loaded,
                                                       std::vector<uint32_t>{v->second});
            i.operands[o] = loaded;
          }
        } else {
          for (size_t k = 0; k < i.operands.size(); ++k) {
            auto h = home.find(i.operands[k]);
            if (h == home.end() || h->second == b.label || !value_operand(i, k)) continue;
            uint32_t loaded = m_.take_id();
            out.emplace_back(Op::OpLoad, type[h->first], loaded, std::vector<uint32_t>{var[h->first]});
            i.operands[k] = loaded;
          }
        }
        out.push_back(i);
        auto v = var.find(i.result_id);
        if (i.result_id && v != var.end())
          out.emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{v->second, i.result_id});
      }
      b.instructions = std::move(out);
    };
    for (Block& b : cases) rewrite_block(b);
    for (Block& b : rest) rewrite_block(b);
    for (std::vector<Block>* list : {&cases, &rest})
      for (Block& b : *list) {
        auto p = pred_loads.find(b.label);
        if (p == pred_loads.end()) continue;
        auto at = b.instructions.end() - 1;
        if (at != b.instructions.begin() && ((at - 1)->opcode == Op::OpSelectionMerge ||
                                             (at - 1)->opcode == Op::OpLoopMerge))
          --at;
        b.instructions.insert(at, p->second.begin(), p->second.end());
      }
  }

  ir::Module& m_;
  ir::Function& f_;
  std::unordered_map<uint32_t, uint32_t> state_;
  uint32_t exit_state_ = 0, return_state_ = 0, x_label_ = 0, state_var_ = 0;
  std::vector<Instruction> variables_;
};

}  // namespace

bool make_dispatch_loop(ir::Module& module, ir::Function& function, DispatchLoop* loop,
                        std::string* why) {
  ir::Function saved = function;
  Dispatcher d(module, function);
  if (d.run(loop, why)) return true;
  function = saved;
  return false;
}

bool splice_dispatch_loop(ir::Module& module, ir::Function& function, DispatchLoop loop) {
  auto at = std::find_if(function.blocks.begin(), function.blocks.end(),
                         [&](const Block& b) { return b.label == loop.head; });
  if (at == function.blocks.end()) return false;
  Op last = at->terminator().opcode;
  if (last == Op::OpBranchConditional || last == Op::OpSwitch || at->merge()) return false;
  // What the structurizer made of the placeholder (a branch on, or an inlined return) becomes
  // the loop's merge block.
  uint32_t after = module.take_id();
  for (uint32_t s : ir::successor_labels(module, function, *at))
    for (Block& b : function.blocks)
      if (b.label == s) ir::rename_phi_predecessor(b, loop.head, after);
  Block merge{after, at->instructions};
  Block& head = loop.blocks.front();
  head.instructions.emplace_back(Op::OpLoopMerge, 0, 0, std::vector<uint32_t>{after, loop.latch, 0});
  head.instructions.emplace_back(Op::OpBranchConditional, 0, 0,
                                 std::vector<uint32_t>{loop.more, loop.blocks[1].label, after});
  loop.blocks.push_back(std::move(merge));
  size_t index = size_t(at - function.blocks.begin());
  function.blocks.erase(at);
  function.blocks.insert(function.blocks.begin() + long(index), loop.blocks.begin(), loop.blocks.end());
  return true;
}

}  // namespace vkcl::k2s
