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
  Dispatcher(ir::Module& m, ir::Function& f, bool uniform) : m_(m), f_(f), uniform_(uniform) {}

  bool run(DispatchLoop* loop, std::string* why) {
    drop_unreachable();
    std::unordered_set<uint32_t> collective = collective_functions(m_);
    if (uniform_) return run_uniform(loop, why, collective);
    Cfg cfg(m_, f_);
    int x = -1;
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

  // The whole function, collectives included: see dispatch_loop.h.
  bool run_uniform(DispatchLoop* loop, std::string* why, const std::unordered_set<uint32_t>& collective) {
    std::set<uint32_t> visited;
    if (has_subgroup_operations(f_, visited))
      return fail(why, "sub-group operations depend on which work-items run together");
    // Its work-group operations need the whole work-group: a kernel, or a function that holds
    // collectives itself (OpenCL then requires every work-item to call it).
    bool kernel = false, holds = false;
    for (const auto& ep : m_.entry_points) kernel = kernel || ep.operands[1] == f_.id();
    for (const Block& b : f_.blocks)
      for (const Instruction& i : b.instructions) holds = holds || is_collective(i, collective);
    if (!kernel && !holds) return fail(why, "a function without barriers may be called by some work-items only");
    split_at_collectives(collective);
    Cfg cfg(m_, f_);
    std::vector<int> normal, waiting;  // blocks starting with a collective wait for the others
    for (const int b : cfg.rpo()) {
      bool starts = false;
      for (const Instruction& i : f_.blocks[b].instructions) {
        if (i.opcode == Op::OpPhi) continue;
        starts = is_collective(i, collective);
        break;
      }
      (starts && b != 0 ? waiting : normal).push_back(b);
    }
    std::vector<int> region = normal;
    region.insert(region.end(), waiting.begin(), waiting.end());
    for (size_t i = 0; i < region.size(); ++i) state_[f_.blocks[region[i]].label] = uint32_t(i);
    for (int b : waiting) waiting_.insert(f_.blocks[b].label);
    normal_states_ = uint32_t(normal.size());
    exit_state_ = uint32_t(region.size());
    return_state_ = exit_state_ + 1;
    rewrite(region, loop);
    return true;
  }

  // Whether |f| or a function it calls runs a sub-group operation or barrier.
  bool has_subgroup_operations(const ir::Function& f, std::set<uint32_t>& visited) {
    if (!visited.insert(f.id()).second) return false;
    auto scope_is_subgroup = [&](uint32_t id) {
      for (const auto& g : m_.globals)
        if (g.result_id == id && g.opcode == Op::OpConstant) return g.operands[0] == uint32_t(spv::Scope::Subgroup);
      return false;
    };
    for (const Block& b : f.blocks)
      for (const Instruction& i : b.instructions) {
        uint32_t op = uint32_t(i.opcode);
        if (op >= uint32_t(Op::OpGroupNonUniformElect) && op <= uint32_t(Op::OpGroupNonUniformQuadSwap)) return true;
        bool scoped = i.opcode == Op::OpControlBarrier ||
                      (op >= uint32_t(Op::OpGroupAll) && op <= uint32_t(Op::OpGroupSMax));
        if (scoped && !i.operands.empty() && scope_is_subgroup(i.operands[0])) return true;
        if (i.opcode == Op::OpFunctionCall)
          for (const ir::Function& g : m_.functions)
            if (g.id() == i.operands[0] && has_subgroup_operations(g, visited)) return true;
      }
    return false;
  }

  // Each collective starts a block of its own (the entry's first one too, so the entry never
  // waits).
  void split_at_collectives(const std::unordered_set<uint32_t>& collective) {
    for (size_t b = 0; b < f_.blocks.size(); ++b) {
      auto& code = f_.blocks[b].instructions;
      for (size_t i = 0; i + 1 < code.size(); ++i) {
        if (code[i].opcode == Op::OpPhi || code[i].opcode == Op::OpVariable) continue;
        if (!is_collective(code[i], collective) || (i == 0 && b != 0)) continue;
        bool leading = true;  // only phis and variables before it: the block already starts here
        for (size_t k = 0; k < i; ++k)
          leading = leading && (code[k].opcode == Op::OpPhi || code[k].opcode == Op::OpVariable);
        if (leading && b != 0) continue;
        uint32_t label = m_.take_id();
        Block tail{label, std::vector<Instruction>(code.begin() + long(i), code.end())};
        code.erase(code.begin() + long(i), code.end());
        code.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{label});
        uint32_t old = f_.blocks[b].label;
        for (uint32_t s : ir::successor_labels(m_, f_, tail))
          for (Block& t : f_.blocks)
            if (t.label == s) ir::rename_phi_predecessor(t, old, label);
        f_.blocks.push_back(std::move(tail));
        break;  // the new block is visited later and split again if it holds more
      }
    }
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
    uint32_t latch = m_.take_id(), exit = m_.take_id(), wait_merge = m_.take_id();
    loop->exit = m_.take_id();
    // Where a case ends: the merge of the switch it is a case of.
    auto case_exit = [&](uint32_t label) { return waiting_.count(label) ? wait_merge : switch_merge; };
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
          after.push_back(Block{merge, {Instruction(Op::OpBranch, 0, 0, {case_exit(b.label)})}});
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
        b.instructions.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{case_exit(b.label)});
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
    loop->head = head;
    loop->latch = latch;
    if (uniform_) {
      assemble_uniform(region, cases, body, switch_merge, wait_merge, loop);
    } else {
      uint32_t at = m_.take_id(), more = m_.take_id(), picked = m_.take_id();
      std::vector<uint32_t> targets = {picked, cases[0].label};
      for (size_t i = 1; i < region.size(); ++i)
        targets.insert(targets.end(), {uint32_t(i), f_.blocks[region[i]].label});
      loop->more = more;
      loop->blocks.push_back(Block{head, {Instruction(Op::OpLoad, uint_type(), at, {state_var_}),
          Instruction(Op::OpULessThan, bool_type(), more, {at, constant(exit_state_)})}});
      loop->blocks.push_back(Block{body, {Instruction(Op::OpLoad, uint_type(), picked, {state_var_}),
          Instruction(Op::OpSelectionMerge, 0, 0, {switch_merge, 0}),
          Instruction(Op::OpSwitch, 0, 0, targets)}});
      loop->blocks.insert(loop->blocks.end(), cases.begin(), cases.end());
      loop->blocks.push_back(Block{switch_merge, {Instruction(Op::OpBranch, 0, 0, {latch})}});
    }
    loop->blocks.push_back(Block{latch, {Instruction(Op::OpBranch, 0, 0, {head})}});

    std::vector<Block> blocks;
    blocks.push_back(Block{m_.take_id(), entry_code});
    blocks.push_back(Block{head, {Instruction(Op::OpBranch, 0, 0, {exit})}});
    blocks.insert(blocks.end(), rest.begin(), rest.end());
    f_.blocks = std::move(blocks);
  }

  // The uniform loop. Every work-item runs every iteration, so the work-group operations in it
  // are in uniform control flow:
  //   head:  any = work_group_any(state is a normal block)
  //          if (any) { if (state is normal) switch (state) { normal blocks } }
  //          else if (work_group_all(state is past the end)) break;
  //          else switch (state) { blocks that start with a collective }
  // Work-items that reach a collective wait until none has a normal block left; OpenCL
  // requires that they then all wait at the same one.
  void assemble_uniform(const std::vector<int>& region, std::vector<Block>& cases, uint32_t body,
                        uint32_t switch_merge, uint32_t wait_merge, DispatchLoop* loop) {
    bool has_groups = false;
    for (const auto& c : m_.capabilities) has_groups = has_groups || c.operands[0] == uint32_t(spv::Capability::Groups);
    if (!has_groups) m_.capabilities.emplace_back(Op::OpCapability, 0, 0, std::vector<uint32_t>{uint32_t(spv::Capability::Groups)});
    uint32_t wg = constant(uint32_t(spv::Scope::Workgroup));
    uint32_t top = m_.take_id(), run = m_.take_id(), join = m_.take_id(), run_join = m_.take_id();
    uint32_t wait = m_.take_id(), wait_switch = m_.take_id(), wait_join = m_.take_id();
    uint32_t s0 = m_.take_id(), mine = m_.take_id(), any = m_.take_id();
    uint32_t s1 = m_.take_id(), s2 = m_.take_id(), done = m_.take_id(), all = m_.take_id();
    std::vector<uint32_t> normal_targets = {s1, cases[0].label}, waiting_targets = {s2, wait_merge};
    for (size_t i = 1; i < region.size(); ++i) {
      uint32_t label = f_.blocks[region[i]].label;
      auto& list = i < normal_states_ ? normal_targets : waiting_targets;
      list.insert(list.end(), {uint32_t(i), label});
    }
    auto& out = loop->blocks;
    out.push_back(Block{loop->head, {}});  // its merge and branch come with splice_dispatch_loop
    out.push_back(Block{top, {Instruction(Op::OpLoad, uint_type(), s0, {state_var_}),
        Instruction(Op::OpULessThan, bool_type(), mine, {s0, constant(normal_states_)}),
        Instruction(Op::OpGroupAny, bool_type(), any, {wg, mine}),
        Instruction(Op::OpSelectionMerge, 0, 0, {join, 0}),
        Instruction(Op::OpBranchConditional, 0, 0, {any, run, wait})}});
    out.push_back(Block{run, {Instruction(Op::OpSelectionMerge, 0, 0, {run_join, 0}),
        Instruction(Op::OpBranchConditional, 0, 0, {mine, body, run_join})}});
    out.push_back(Block{body, {Instruction(Op::OpLoad, uint_type(), s1, {state_var_}),
        Instruction(Op::OpSelectionMerge, 0, 0, {switch_merge, 0}),
        Instruction(Op::OpSwitch, 0, 0, normal_targets)}});
    std::vector<Block> waiting_cases;
    bool w = false;
    for (Block& b : cases) {  // a block's trampolines and inner merge follow it
      if (state_.count(b.label)) w = waiting_.count(b.label) > 0;
      (w ? waiting_cases : out).push_back(b);
    }
    out.push_back(Block{switch_merge, {Instruction(Op::OpBranch, 0, 0, {run_join})}});
    out.push_back(Block{run_join, {Instruction(Op::OpBranch, 0, 0, {join})}});
    out.push_back(Block{wait, {Instruction(Op::OpLoad, uint_type(), s2 + 0, {state_var_}),
        Instruction(Op::OpUGreaterThanEqual, bool_type(), done, {s2, constant(exit_state_)}),
        Instruction(Op::OpGroupAll, bool_type(), all, {wg, done}),
        Instruction(Op::OpSelectionMerge, 0, 0, {wait_join, 0}),
        Instruction(Op::OpBranchConditional, 0, 0, {all, loop->exit, wait_switch})}});
    out.push_back(Block{wait_switch, {Instruction(Op::OpSelectionMerge, 0, 0, {wait_merge, 0}),
        Instruction(Op::OpSwitch, 0, 0, waiting_targets)}});
    out.insert(out.end(), waiting_cases.begin(), waiting_cases.end());
    out.push_back(Block{wait_merge, {Instruction(Op::OpBranch, 0, 0, {wait_join})}});
    out.push_back(Block{wait_join, {Instruction(Op::OpBranch, 0, 0, {join})}});
    out.push_back(Block{join, {Instruction(Op::OpBranch, 0, 0, {loop->latch})}});
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
  bool uniform_ = false;
  uint32_t normal_states_ = 0;
  std::set<uint32_t> waiting_;  // blocks that start with a collective (uniform loops)
  std::vector<Instruction> variables_;
};

}  // namespace

bool make_dispatch_loop(ir::Module& module, ir::Function& function, DispatchLoop* loop,
                        std::string* why, bool uniform) {
  ir::Function saved = function;
  Dispatcher d(module, function, uniform);
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
  uint32_t after = loop.exit;
  for (uint32_t s : ir::successor_labels(module, function, *at))
    for (Block& b : function.blocks)
      if (b.label == s) ir::rename_phi_predecessor(b, loop.head, after);
  Block merge{after, at->instructions};
  Block& head = loop.blocks.front();
  head.instructions.emplace_back(Op::OpLoopMerge, 0, 0, std::vector<uint32_t>{after, loop.latch, 0});
  if (loop.more)
    head.instructions.emplace_back(Op::OpBranchConditional, 0, 0,
                                   std::vector<uint32_t>{loop.more, loop.blocks[1].label, after});
  else  // a uniform loop leaves from inside
    head.instructions.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{loop.blocks[1].label});
  loop.blocks.push_back(std::move(merge));
  size_t index = size_t(at - function.blocks.begin());
  function.blocks.erase(at);
  function.blocks.insert(function.blocks.begin() + long(index), loop.blocks.begin(), loop.blocks.end());
  return true;
}

}  // namespace vkcl::k2s
