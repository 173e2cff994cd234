#include "passes/resumable_loops.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/cfg.h"
#include "passes/loop_bounds.h"

namespace vkcl::k2s {

namespace {

using ir::Block;
using ir::Cfg;
using ir::Instruction;
using spv::Op;

// A batch stops once its count reaches kYieldAt: the driver's 65535 leaves room for the
// entry point's probe loop and for copying 64 KiB of local memory out, 4 words an iteration.
constexpr uint32_t kYieldAt = 60000;
// In a kernel with barriers, a batch asks its work-group to stop at the next barrier from
// kFlagAt on; the stretch until then may take the rest (about 28000 loop iterations).
constexpr uint32_t kFlagAt = 32768;
// The most variables x blocks a kernel may have and resume (see transform()).
constexpr size_t kMaxResumeCost = 250000;
// The most loops without barriers in a kernel with barriers that stop in it (see
// transform_together()).
constexpr size_t kMaxWaitingLoops = 16;
constexpr uint32_t kScopeWorkgroup = 2;
// AcquireRelease, WorkgroupMemory, CrossWorkgroupMemory (the flag lives in global memory).
constexpr uint32_t kBarrierSemantics = 0x8 | 0x100 | 0x200;

// Operand indices of |i| that are ids (OpSwitch's case literals are not).
std::vector<size_t> id_operands(const ir::Module& m, const ir::Function& f, const Instruction& i) {
  std::vector<size_t> out;
  uint32_t words = i.opcode == Op::OpSwitch ? ir::switch_literal_words(m, f, i) : 0;
  for (size_t k = 0; k < i.operands.size(); ++k) {
    bool literal = words ? k >= 2 && (k - 2) % (words + 1) != words : ir::is_literal_operand(i, k);
    if (!literal) out.push_back(k);
  }
  return out;
}

// Instructions that need the work-items of a sub-group (or work-group) together, as the
// program's own control flow brings them: barriers and group and sub-group operations.
bool is_converging(const Instruction& i) {
  uint32_t op = uint32_t(i.opcode);
  return op == uint32_t(Op::OpControlBarrier) || (op >= 259 && op <= 270) ||  // OpGroup*
         (op >= 333 && op <= 366) ||      // OpGroupNonUniform*
         (op >= 4421 && op <= 4432) ||    // OpSubgroup*KHR, OpGroupNonUniformRotateKHR
         (op >= 5571 && op <= 5578) ||    // OpSubgroup*INTEL
         (op >= 6401 && op <= 6408);      // OpGroup*KHR (uniform group instructions)
}

// Backward liveness: what is live into each block, from what each block uses before it
// defines it (|use|) and what it defines (|def|).
std::vector<std::set<uint32_t>> live_into_blocks(const Cfg& cfg, const std::vector<std::set<uint32_t>>& use,
                                                 const std::vector<std::set<uint32_t>>& def) {
  std::vector<std::set<uint32_t>> live_in(use.size());
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = cfg.rpo().rbegin(); it != cfg.rpo().rend(); ++it) {
      int b = *it;
      std::set<uint32_t> in = use[b];
      for (int s : cfg.successors(b))
        for (uint32_t v : live_in[s])
          if (!def[b].count(v)) in.insert(v);
      if (in.size() != live_in[b].size()) {
        live_in[b] = std::move(in);
        changed = true;
      }
    }
  }
  return live_in;
}

// Targets of retreating edges of a depth-first order: every cycle has one.
std::set<int> loop_headers(const Cfg& cfg) {
  std::set<int> headers;
  for (int u : cfg.rpo())
    for (int v : cfg.successors(u))
      if (cfg.rpo_number(v) <= cfg.rpo_number(u)) headers.insert(v);
  return headers;
}

bool has_retreating_edge(const ir::Module& m, ir::Function& f) {
  if (f.blocks.empty()) return false;
  Cfg cfg(m, f);
  for (int u : cfg.rpo())
    for (int v : cfg.successors(u))
      if (cfg.rpo_number(v) <= cfg.rpo_number(u)) return true;
  return false;
}

class Resumer {
 public:
  Resumer(ir::Module& m, PassContext& ctx) : m_(m), ctx_(ctx) {}

  bool run() {
    std::unordered_map<uint32_t, ir::Function*>& by_id = by_id_;
    for (ir::Function& f : m_.functions) by_id[f.id()] = &f;
    // Library functions with loops (and those that call them) keep their frames: their
    // loops are short, and inlining them everywhere would make large kernels of math code
    // slow to build. Kernels call copies of them that count their loops' header passes.
    const auto& library = ctx_.library_functions;
    for (ir::Function& f : m_.functions)
      if (library.count(f.id()) && has_retreating_edge(m_, f)) library_looping_.insert(f.id());
    fixpoint(&library_looping_, by_id);
    // The fixpoint also reached the user functions and kernels that call them, which are not
    // library functions: they are inlined and resume like any with loops of their own (left
    // in, a kernel calling a looping library function such as tgamma never resumed).
    for (auto it = library_looping_.begin(); it != library_looping_.end();)
      it = library.count(*it) ? std::next(it) : library_looping_.erase(it);
    // User functions with loops, and those that call them or looping library functions:
    // inlined into the kernels, so that every loop of the kernel's own is a place to stop.
    std::unordered_set<uint32_t> looping;
    for (ir::Function& f : m_.functions)
      if (!library.count(f.id()) && has_retreating_edge(m_, f)) looping.insert(f.id());
    for (uint32_t id : library_looping_) looping.insert(id);
    fixpoint(&looping, by_id);
    for (uint32_t id : library_looping_) looping.erase(id);
    for (auto it = looping.begin(); it != looping.end();)
      it = library.count(*it) ? looping.erase(it) : std::next(it);
    // Functions that need their sub-group together (kernels that call them do not resume).
    for (ir::Function& f : m_.functions)
      for (const Block& b : f.blocks)
        for (const Instruction& i : b.instructions)
          if (is_converging(i)) converging_.insert(f.id());
    fixpoint(&converging_, by_id);

    bool changed = false;
    for (const Instruction& ep : m_.entry_points) {
      if (spv::ExecutionModel(ep.operands[0]) != spv::ExecutionModel::Kernel) continue;
      auto it = by_id.find(ep.operands[1]);
      if (it == by_id.end() || !looping.count(it->first) || it->second->blocks.empty() ||
          ctx_.bounded_kernels.count(it->first))
        continue;
      ir::Function& f = *it->second;
      ir::Function original = f;
      inline_looping_calls(f, looping, by_id);
      if (!transform(f)) {
        f = original;
        continue;
      }
      count_library_calls(f, by_id);
      changed = true;
    }
    for (ir::Function& c : counted_functions_) m_.functions.push_back(std::move(c));
    return changed;
  }

 private:
  void fixpoint(std::unordered_set<uint32_t>* set,
                const std::unordered_map<uint32_t, ir::Function*>& by_id) {
    for (bool grew = true; grew;) {
      grew = false;
      for (const auto& [id, f] : by_id) {
        if (set->count(id)) continue;
        for (const Block& b : f->blocks)
          for (const Instruction& i : b.instructions)
            if (i.opcode == Op::OpFunctionCall && set->count(i.operands[0]) && !set->count(id)) {
              set->insert(id);
              grew = true;
            }
      }
    }
  }

  // ---- module helpers
  uint32_t t_int(uint32_t width) { return ir::intern_global(m_, Op::OpTypeInt, 0, {width, 0}); }
  uint32_t t_bool() { return ir::intern_global(m_, Op::OpTypeBool, 0, {}); }
  uint32_t t_void() { return ir::intern_global(m_, Op::OpTypeVoid, 0, {}); }
  uint32_t t_ptr(spv::StorageClass s, uint32_t pointee) {
    return ir::intern_global(m_, Op::OpTypePointer, 0, {uint32_t(s), pointee});
  }
  uint32_t c_u32(uint32_t v) { return ir::intern_global(m_, Op::OpConstant, t_int(32), {v}); }
  uint32_t c_u64(uint64_t v) {
    return ir::intern_global(m_, Op::OpConstant, t_int(64), {uint32_t(v), uint32_t(v >> 32)});
  }
  const Instruction* global(uint32_t id) const {
    for (const auto& g : m_.globals)
      if (g.result_id == id) return &g;
    return nullptr;
  }
  uint32_t resume_set() {
    if (!resume_set_) {
      resume_set_ = m_.take_id();
      Instruction imp(Op::OpExtInstImport, 0, resume_set_);
      ir::append_string(&imp.operands, kResumeSet);
      m_.ext_inst_imports.push_back(imp);
    }
    return resume_set_;
  }

  // OpenCL C layout of a Kernel type (as lower-to-shader's TypeLayout computes it); false
  // for types that cannot be stored (booleans inside aggregates, opaque types).
  bool layout(uint32_t type, uint32_t* size, uint32_t* alignment) {
    const Instruction* t = global(type);
    if (!t) return false;
    auto up = [](uint32_t v, uint32_t a) { return (v + a - 1) / a * a; };
    switch (t->opcode) {
      case Op::OpTypeInt: case Op::OpTypeFloat:
        *size = *alignment = t->operands[0] / 8;
        return true;
      case Op::OpTypePointer:
        *size = *alignment = 8;
        return true;
      case Op::OpTypeVector: {
        uint32_t s, a;
        if (!layout(t->operands[0], &s, &a)) return false;
        *size = *alignment = s * (t->operands[1] == 3 ? 4 : t->operands[1]);
        return true;
      }
      case Op::OpTypeArray: {
        uint32_t s, a;
        const Instruction* n = global(t->operands[1]);
        if (!layout(t->operands[0], &s, &a) || !n || n->opcode != Op::OpConstant) return false;
        uint64_t count = n->operands[0] | (n->operands.size() > 1 ? uint64_t(n->operands[1]) << 32 : 0);
        if (count > (1u << 20)) return false;
        *size = uint32_t(up(s, a) * count);
        *alignment = a;
        return true;
      }
      case Op::OpTypeStruct: {
        bool packed = false;
        for (const auto& d : m_.annotations)
          if (d.opcode == Op::OpDecorate && d.operands[0] == type &&
              spv::Decoration(d.operands[1]) == spv::Decoration::CPacked)
            packed = true;
        uint32_t offset = 0, align = 1;
        for (uint32_t member : t->operands) {
          uint32_t s, a;
          if (!layout(member, &s, &a)) return false;
          a = packed ? 1 : a;
          offset = up(offset, a) + s;
          align = std::max(align, a);
        }
        *size = up(offset, align);
        *alignment = align;
        return true;
      }
      default:
        return false;
    }
  }

  // ---- inlining
  void inline_looping_calls(ir::Function& f, const std::unordered_set<uint32_t>& looping,
                            const std::unordered_map<uint32_t, ir::Function*>& by_id) {
    for (bool again = true; again;) {
      again = false;
      for (size_t b = 0; b < f.blocks.size() && !again; ++b)
        for (size_t k = 0; k < f.blocks[b].instructions.size() && !again; ++k) {
          const Instruction& i = f.blocks[b].instructions[k];
          if (i.opcode != Op::OpFunctionCall || !looping.count(i.operands[0])) continue;
          auto callee = by_id.find(i.operands[0]);
          if (callee == by_id.end() || callee->second->blocks.empty()) continue;
          inline_call(f, b, k, *callee->second);
          again = true;
        }
    }
  }

  void inline_call(ir::Function& f, size_t bi, size_t ki, const ir::Function& g) {
    ir::Function c = ir::clone_function(m_, g);
    Instruction call = f.blocks[bi].instructions[ki];
    std::unordered_map<uint32_t, uint32_t> args;
    for (size_t p = 0; p < c.parameters.size(); ++p) args[c.parameters[p].result_id] = call.operands[1 + p];
    std::vector<Instruction> variables;
    for (Block& b : c.blocks) {
      std::vector<Instruction> rest;
      for (Instruction& i : b.instructions) {
        for (size_t k : id_operands(m_, c, i)) {
          auto a = args.find(i.operands[k]);
          if (a != args.end()) i.operands[k] = a->second;
        }
        (i.opcode == Op::OpVariable ? variables : rest).push_back(std::move(i));
      }
      b.instructions = std::move(rest);
    }
    Block after{m_.take_id(), {}};
    uint32_t caller_label = f.blocks[bi].label, after_label = after.label;
    std::vector<Instruction>& at = f.blocks[bi].instructions;
    after.instructions.assign(at.begin() + ki + 1, at.end());
    at.resize(ki);
    at.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{c.blocks.front().label});
    std::vector<uint32_t> returned;
    for (Block& b : c.blocks) {
      Instruction& t = b.terminator();
      if (t.opcode == Op::OpReturnValue) {
        returned.push_back(t.operands[0]);
        returned.push_back(b.label);
      }
      if (t.opcode == Op::OpReturn || t.opcode == Op::OpReturnValue)
        t = Instruction(Op::OpBranch, 0, 0, {after.label});
    }
    if (call.result_id && !returned.empty())
      after.instructions.insert(after.instructions.begin(),
                                Instruction(Op::OpPhi, call.type_id, call.result_id, returned));
    auto& entry = f.blocks.front().instructions;
    entry.insert(entry.begin(), variables.begin(), variables.end());
    std::vector<Block> blocks = std::move(c.blocks);
    blocks.push_back(std::move(after));
    f.blocks.insert(f.blocks.begin() + bi + 1, std::make_move_iterator(blocks.begin()),
                    std::make_move_iterator(blocks.end()));
    for (uint32_t s : ir::successor_labels(m_, f, *f.find_block(after_label)))
      if (Block* sb = f.find_block(s)) ir::rename_phi_predecessor(*sb, caller_label, after_label);
  }

  // ---- library functions with loops: copies that count
  void count_library_calls(ir::Function& f, const std::unordered_map<uint32_t, ir::Function*>& by_id) {
    for (Block& b : f.blocks)
      for (Instruction& i : b.instructions)
        if (i.opcode == Op::OpFunctionCall && library_looping_.count(i.operands[0]))
          i.operands[0] = counted(i.operands[0], by_id);
  }

  // The loops a call of library function |id| runs through at least once, its callees'
  // included. gallivm runs code whose work-items are all elsewhere too, with none active,
  // and a loop there still takes one pass from the batch's limiter (its back edge decrements
  // it before the loop sees that no work-item is left), which no work-item counts.
  uint32_t masked_loops(uint32_t id) {
    auto known = masked_loops_.find(id);
    if (known != masked_loops_.end()) return known->second;
    masked_loops_[id] = 0;  // (the library does not recurse)
    auto f = by_id_.find(id);
    if (f == by_id_.end() || f->second->blocks.empty()) return 0;
    uint32_t n = uint32_t(loop_headers(Cfg(m_, *f->second)).size());
    for (const Block& b : f->second->blocks)
      for (const Instruction& i : b.instructions)
        if (i.opcode == Op::OpFunctionCall && library_looping_.count(i.operands[0])) n += masked_loops(i.operands[0]);
    masked_loops_[id] = n;
    return n;
  }

  // What one pass of |f|'s loops costs the driver's limiter beyond the pass itself, where
  // all work-items are elsewhere: the loops of the library calls inside its loops (blocks
  // that a loop header reaches and that reach one back).
  uint32_t masked_loops_per_pass(ir::Function& f, const std::set<uint32_t>& headers) {
    Cfg cfg(m_, f);
    auto reach = [&](int from, bool forward) {
      std::vector<bool> seen(f.blocks.size(), false);
      std::vector<int> work = {from};
      while (!work.empty()) {
        int b = work.back();
        work.pop_back();
        for (int n : forward ? cfg.successors(b) : cfg.predecessors(b))
          if (!seen[n]) seen[n] = true, work.push_back(n);
      }
      return seen;
    };
    std::vector<bool> in_loop(f.blocks.size(), false);
    for (uint32_t h : headers) {
      int hi = cfg.index(h);
      if (hi < 0) continue;
      std::vector<bool> after = reach(hi, true), before = reach(hi, false);
      for (size_t b = 0; b < f.blocks.size(); ++b) in_loop[b] = in_loop[b] || (after[b] && before[b]) || int(b) == hi;
    }
    uint32_t n = 0;
    for (size_t b = 0; b < f.blocks.size(); ++b)
      if (in_loop[b])
        for (const Instruction& i : f.blocks[b].instructions)
          if (i.opcode == Op::OpFunctionCall && library_looping_.count(i.operands[0])) n += masked_loops(i.operands[0]);
    return n;
  }

  // A copy of library function |id| that counts every pass through its loops' headers in
  // its sub-group's budget (it never stops there: its loops are short).
  uint32_t counted(uint32_t id, const std::unordered_map<uint32_t, ir::Function*>& by_id) {
    auto done = counted_.find(id);
    if (done != counted_.end()) return done->second;
    ir::Function c = ir::clone_function(m_, *by_id.at(id));
    counted_[id] = c.id();
    {
      Cfg cfg(m_, c);
      const std::set<int> headers = loop_headers(cfg);
      std::vector<std::pair<uint32_t, uint32_t>> edges;
      for (int v : headers)
        for (int u : cfg.predecessors(v))
          if (cfg.reachable(u)) edges.push_back({c.blocks[u].label, c.blocks[v].label});
      for (auto [from, to] : edges) {
        Block step{m_.take_id(), {}};
        ext(step.instructions, t_int(32), ResumeOp::BudgetStep);
        step.instructions.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{to});
        ir::retarget(m_, c, *c.find_block(from), to, step.label);
        ir::rename_phi_predecessor(*c.find_block(to), from, step.label);
        c.blocks.push_back(std::move(step));
      }
    }
    count_library_calls(c, by_id);
    counted_functions_.push_back(std::move(c));
    return counted_[id];
  }

  // ---- variables recomputed on resuming instead of saved
  // A variable stored once, before every loop header, with a value computed only from
  // constants, the kernel's parameters and built-in variables (work-item ids, sizes): the same
  // in every round, so the resume path computes it again (llvmpipe spends a per-lane loop on
  // every saved and restored component; ffmpeg's avgblur_opencl saves 4 of 12 fewer).
  struct Recomputed {
    uint32_t var;
    std::vector<Instruction> code;  // computing |value|, in order
    uint32_t value;
  };
  std::vector<Recomputed> remat_;
  std::vector<Recomputed> recomputable(ir::Function& f, const std::unordered_set<uint32_t>& live,
                                       const std::set<uint32_t>& targets) {
    std::unordered_map<uint32_t, const Instruction*> defined;
    std::unordered_map<uint32_t, int> block_of;
    std::unordered_map<uint32_t, std::vector<std::pair<int, const Instruction*>>> stores;
    for (size_t b = 0; b < f.blocks.size(); ++b)
      for (const Instruction& i : f.blocks[b].instructions) {
        if (i.result_id) defined[i.result_id] = &i;
        if (i.opcode == Op::OpStore) stores[i.operands[0]].push_back({int(b), &i});
      }
    std::unordered_set<uint32_t> params;
    for (const Instruction& p : f.parameters) params.insert(p.result_id);
    auto input_variable = [&](uint32_t id) {
      const Instruction* g = global(id);
      return g && g->opcode == Op::OpVariable && spv::StorageClass(g->operands[0]) == spv::StorageClass::Input;
    };
    // Variables used other than as what a load reads or a store writes.
    std::unordered_set<uint32_t> escaped;
    for (const Block& b : f.blocks)
      for (const Instruction& i : b.instructions)
        for (size_t k : id_operands(m_, f, i))
          if (!((i.opcode == Op::OpLoad || i.opcode == Op::OpStore) && k == 0)) escaped.insert(i.operands[k]);
    Cfg cfg(m_, f);
    std::vector<Recomputed> out;
    for (uint32_t var : live) {
      auto st = stores.find(var);
      if (escaped.count(var) || st == stores.end() || st->second.size() != 1) continue;
      auto [block, store] = st->second[0];
      bool before_all = true;
      for (uint32_t t : targets) before_all = before_all && cfg.dominates(block, cfg.index(t));
      if (!before_all) continue;
      Recomputed r{var, {}, store->operands[1]};
      std::unordered_set<uint32_t> seen;
      std::function<bool(uint32_t, int)> gather = [&](uint32_t id, int depth) {
        if (global(id) || params.count(id) || seen.count(id)) return true;
        auto d = defined.find(id);
        if (d == defined.end() || depth > 12 || r.code.size() >= 16) return false;
        const Instruction& i = *d->second;
        if (i.opcode == Op::OpLoad) {
          if (!input_variable(i.operands[0])) return false;
        } else if (!is_pure(i)) {
          return false;
        }
        for (size_t k : id_operands(m_, f, i))
          if (!gather(i.operands[k], depth + 1)) return false;
        seen.insert(id);
        r.code.push_back(i);
        return true;
      };
      if (gather(r.value, 0)) out.push_back(std::move(r));
    }
    return out;
  }
  // The resume path computes the recomputed variables again (fresh ids) and stores them.
  void recompute(std::vector<Instruction>& out) {
    for (const Recomputed& r : remat_) {
      std::unordered_map<uint32_t, uint32_t> renamed;
      for (Instruction i : r.code) {
        for (size_t k = 0; k < i.operands.size(); ++k) {
          if (ir::is_literal_operand(i, k)) continue;
          auto n = renamed.find(i.operands[k]);
          if (n != renamed.end()) i.operands[k] = n->second;
        }
        uint32_t id = m_.take_id();
        renamed[i.result_id] = id;
        i.result_id = id;
        out.push_back(i);
      }
      auto v = renamed.find(r.value);
      out.emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{r.var, v != renamed.end() ? v->second : r.value});
    }
  }

  // ---- the transformation
  // Every phi becomes a variable stored at the end of each predecessor, so that blocks can
  // gain predecessors (the resume paths) without repair.
  void demote_phis(ir::Function& f) {
    std::vector<std::pair<uint32_t, Instruction>> stores;  // (predecessor, store)
    for (Block& b : f.blocks)
      for (Instruction& i : b.instructions) {
        if (i.opcode != Op::OpPhi) break;
        uint32_t var = new_variable_later(i.type_id);
        for (size_t k = 0; k + 1 < i.operands.size(); k += 2)
          stores.push_back({i.operands[k + 1], Instruction(Op::OpStore, 0, 0, {var, i.operands[k]})});
        i = Instruction(Op::OpLoad, i.type_id, i.result_id, {var});
      }
    for (auto& [pred, store] : stores)
      if (Block* p = f.find_block(pred))
        p->instructions.insert(p->instructions.end() - 1, store);
    flush_variables(f);
  }
  std::vector<Instruction> pending_variables_;
  uint32_t new_variable_later(uint32_t type) {
    uint32_t id = m_.take_id();
    pending_variables_.emplace_back(Op::OpVariable, t_ptr(spv::StorageClass::Function, type), id,
                                    std::vector<uint32_t>{uint32_t(spv::StorageClass::Function)});
    return id;
  }
  void flush_variables(ir::Function& f) {
    auto& entry = f.blocks.front().instructions;
    entry.insert(entry.begin(), pending_variables_.begin(), pending_variables_.end());
    pending_variables_.clear();
  }

  uint32_t ext(std::vector<Instruction>& out, uint32_t type, ResumeOp op, std::vector<uint32_t> args = {}) {
    uint32_t id = m_.take_id();
    std::vector<uint32_t> operands = {resume_set(), uint32_t(op)};
    operands.insert(operands.end(), args.begin(), args.end());
    out.emplace_back(Op::OpExtInst, type ? type : t_void(), id, operands);
    return id;
  }
  // A pass of the kernel's loops: one, and |masked| more for the loops of library calls that
  // the driver runs with no work-item active (masked_loops_per_pass).
  uint32_t budget_step(std::vector<Instruction>& out, uint32_t masked) {
    return masked ? ext(out, t_int(32), ResumeOp::BudgetStep, {c_u32(1 + masked)})
                  : ext(out, t_int(32), ResumeOp::BudgetStep);
  }
  uint32_t emit(std::vector<Instruction>& out, Op op, uint32_t type, std::vector<uint32_t> operands) {
    uint32_t id = m_.take_id();
    out.emplace_back(op, type, id, operands);
    return id;
  }
  // A CrossWorkgroup pointer to |type| at |address| + |offset|.
  uint32_t at(std::vector<Instruction>& out, uint32_t address, uint32_t offset, uint32_t type) {
    uint32_t a = offset ? emit(out, Op::OpIAdd, t_int(64), {address, c_u64(offset)}) : address;
    uint32_t pointer = emit(out, Op::OpConvertUToPtr, t_ptr(spv::StorageClass::CrossWorkgroup, type), {a});
    Instruction internal(Op::OpDecorate, 0, 0, {pointer, uint32_t(spv::Decoration::UserSemantic)});
    ir::append_string(&internal.operands, kInternalPointer);
    m_.annotations.push_back(internal);
    return pointer;
  }
  void store(std::vector<Instruction>& out, uint32_t pointer, uint32_t value, uint32_t alignment) {
    out.emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{pointer, value, 2, alignment});
  }
  uint32_t load(std::vector<Instruction>& out, uint32_t type, uint32_t pointer, uint32_t alignment) {
    return emit(out, Op::OpLoad, type, {pointer, 2, alignment});
  }
  void barrier(std::vector<Instruction>& out) {
    uint32_t scope = c_u32(kScopeWorkgroup);
    out.emplace_back(Op::OpControlBarrier, 0, 0,
                     std::vector<uint32_t>{scope, scope, c_u32(kBarrierSemantics)});
  }

  // One saved piece of state: the contents of a variable (or of a ByVal parameter's copy).
  struct Slot {
    uint32_t pointer;      // Function pointer
    uint32_t type;         // what it holds
    uint32_t saved_type;   // type in the record (booleans are saved as integers)
    uint32_t offset, alignment;
  };

  bool make_slot(uint32_t pointer, uint32_t type, uint32_t* record, std::vector<Slot>* slots) {
    const Instruction* t = global(type);
    if (!t) return false;
    if (t->opcode == Op::OpTypeEvent || t->opcode == Op::OpTypeDeviceEvent ||
        t->opcode == Op::OpTypeReserveId)
      return true;  // no state behind it in this implementation
    Slot s{pointer, type, type, 0, 0};
    if (t->opcode == Op::OpTypeBool) s.saved_type = t_int(32);
    if (t->opcode == Op::OpTypeVector) {
      const Instruction* e = global(t->operands[0]);
      if (e && e->opcode == Op::OpTypeBool)
        s.saved_type = ir::intern_global(m_, Op::OpTypeVector, 0, {t_int(32), t->operands[1]});
    }
    uint32_t size;
    if (!layout(s.saved_type, &size, &s.alignment)) return false;
    s.alignment = std::max<uint32_t>(s.alignment, 4);
    *record = (*record + s.alignment - 1) / s.alignment * s.alignment;
    s.offset = *record;
    *record += size;
    slots->push_back(s);
    return true;
  }

  uint32_t to_saved(std::vector<Instruction>& out, const Slot& s, uint32_t v) {
    if (s.saved_type == s.type) return v;
    uint32_t one = c_u32(1), zero = c_u32(0);
    // Looked up after c_u32, which may add to the globals |t| points into (found by fuzzing).
    const Instruction* t = global(s.type);
    if (t->opcode == Op::OpTypeVector) {
      std::vector<uint32_t> ones(t->operands[1], one), zeros(t->operands[1], zero);
      one = ir::intern_global(m_, Op::OpConstantComposite, s.saved_type, ones);
      zero = ir::intern_global(m_, Op::OpConstantComposite, s.saved_type, zeros);
    }
    return emit(out, Op::OpSelect, s.saved_type, {v, one, zero});
  }
  uint32_t from_saved(std::vector<Instruction>& out, const Slot& s, uint32_t v) {
    if (s.saved_type == s.type) return v;
    uint32_t zero = c_u32(0);
    const Instruction* t = global(s.type);  // after c_u32, as in to_saved
    if (t->opcode == Op::OpTypeVector)
      zero = ir::intern_global(m_, Op::OpConstantComposite, s.saved_type,
                               std::vector<uint32_t>(t->operands[1], zero));
    return emit(out, Op::OpINotEqual, s.type, {v, zero});
  }

  // Addresses at constant places in module-scope variables (built-in variables' components
  // above all, which the lowering follows by their definitions) and in |f|'s own variables
  // are computed before anything else, where every path, resuming ones too, passes. Such an
  // address is the same in every round, so it is never saved; kept in a variable instead, it
  // would reach the loop headers through phis whose other input is undefined (the hub's way
  // in), which Mesa 22.3's NIR does not fold: lavapipe then indexes the whole private array
  // behind it dynamically, every access a gather, and LLVM's coroutine frame spends minutes
  // on them (hashcat's MD5 kernel).
  std::unordered_set<uint32_t> hoist_fixed_addresses(ir::Function& f) {
    std::unordered_set<uint32_t> fixed;
    for (const Instruction& g : m_.globals)
      if (g.result_id) fixed.insert(g.result_id);
    for (const Instruction& i : f.blocks.front().instructions)
      if (i.opcode == Op::OpVariable) fixed.insert(i.result_id);
    std::unordered_set<uint32_t> hoisted;
    std::vector<Instruction> early;
    for (Block& b : f.blocks) {
      std::vector<Instruction> rest;
      for (Instruction& i : b.instructions) {
        bool address = i.opcode == Op::OpAccessChain || i.opcode == Op::OpInBoundsAccessChain ||
                       i.opcode == Op::OpPtrAccessChain || i.opcode == Op::OpInBoundsPtrAccessChain ||
                       i.opcode == Op::OpPtrCastToGeneric || i.opcode == Op::OpBitcast ||
                       i.opcode == Op::OpCopyObject;
        std::vector<size_t> ids = address ? id_operands(m_, f, i) : std::vector<size_t>{};
        if (address && std::all_of(ids.begin(), ids.end(), [&](size_t k) { return fixed.count(i.operands[k]) > 0; })) {
          fixed.insert(i.result_id);
          hoisted.insert(i.result_id);
          early.push_back(std::move(i));
        } else {
          rest.push_back(std::move(i));
        }
      }
      b.instructions = std::move(rest);
    }
    auto& entry_ins = f.blocks.front().instructions;
    size_t at = 0;
    while (at < entry_ins.size() && entry_ins[at].opcode == Op::OpVariable) ++at;
    entry_ins.insert(entry_ins.begin() + at, early.begin(), early.end());
    return hoisted;
  }

  // The variables of |f| whose contents may still be read after one of |targets| is entered:
  // those used otherwise than loaded or stored whole (their address goes somewhere), and
  // those loaded, on some path from a target, before they are stored.
  std::unordered_set<uint32_t> live_variables(ir::Function& f, const std::set<uint32_t>& targets) {
    std::unordered_set<uint32_t> vars, escaped;
    for (const Instruction& i : f.blocks.front().instructions)
      if (i.opcode == Op::OpVariable) vars.insert(i.result_id);
    size_t n = f.blocks.size();
    std::vector<std::set<uint32_t>> use(n), def(n);
    for (size_t b = 0; b < n; ++b)
      for (const Instruction& i : f.blocks[b].instructions) {
        if (i.opcode == Op::OpVariable) continue;
        for (size_t k : id_operands(m_, f, i)) {
          uint32_t v = i.operands[k];
          if (!vars.count(v)) continue;
          if (i.opcode == Op::OpLoad && k == 0) {
            if (!def[b].count(v)) use[b].insert(v);
          } else if (i.opcode == Op::OpStore && k == 0) {
            def[b].insert(v);
          } else {
            escaped.insert(v);
          }
        }
      }
    Cfg cfg(m_, f);
    std::vector<std::set<uint32_t>> live_in = live_into_blocks(cfg, use, def);
    std::unordered_set<uint32_t> live = escaped;
    for (uint32_t t : targets) {
      int b = cfg.index(t);
      if (b >= 0) live.insert(live_in[b].begin(), live_in[b].end());
    }
    return live;
  }

  // The state: every variable in |live| (all where it is null), and the copies ByVal
  // parameters point to. False where some cannot be saved.
  bool collect_slots(const ir::Function& f, uint32_t* record, std::vector<Slot>* slots,
                     const std::unordered_set<uint32_t>* live = nullptr) {
    std::unordered_set<uint32_t> byval;
    for (const auto& a : m_.annotations)
      if (a.opcode == Op::OpDecorate && a.operands.size() >= 3 &&
          spv::Decoration(a.operands[1]) == spv::Decoration::FuncParamAttr &&
          spv::FunctionParameterAttribute(a.operands[2]) == spv::FunctionParameterAttribute::ByVal)
        byval.insert(a.operands[0]);
    *record = kResumeRecordHeader;
    for (const Instruction& i : f.blocks.front().instructions) {
      if (i.opcode != Op::OpVariable || (live && !live->count(i.result_id))) continue;
      const Instruction* pt = global(i.type_id);
      if (!pt || !make_slot(i.result_id, pt->operands[1], record, slots)) return false;
    }
    for (const Instruction& p : f.parameters)
      if (byval.count(p.result_id)) {
        const Instruction* pt = global(p.type_id);
        if (!pt || !make_slot(p.result_id, pt->operands[1], record, slots)) return false;
      }
    *record = (*record + 15) / 16 * 16;
    return true;
  }

  // The new entry block: |f|'s variables and |hoisted| instructions, taken from its entry.
  Block split_entry(ir::Function& f, const std::unordered_set<uint32_t>& hoisted) {
    Block entry{m_.take_id(), {}};
    std::vector<Instruction> rest;
    for (Instruction& i : f.blocks.front().instructions)
      (i.opcode == Op::OpVariable || hoisted.count(i.result_id) ? entry.instructions : rest)
          .push_back(std::move(i));
    f.blocks.front().instructions = std::move(rest);
    return entry;
  }
  // Whether the record at |rec| says this work-item stopped in this launch (|epoch|) at
  // |point| and has not finished since.
  uint32_t resuming(std::vector<Instruction>& out, uint32_t rec, uint32_t epoch, uint32_t point) {
    uint32_t boolean = t_bool();
    uint32_t mine = load(out, t_int(32), at(out, rec, 0, t_int(32)), 4);
    return emit(out, Op::OpLogicalAnd, boolean,
                {emit(out, Op::OpIEqual, boolean, {mine, epoch}),
                 emit(out, Op::OpINotEqual, boolean, {point, c_u32(kResumeDone)})});
  }
  void save_slots(std::vector<Instruction>& out, const std::vector<Slot>& slots, uint32_t rec) {
    for (const Slot& sl : slots) {
      uint32_t v = emit(out, Op::OpLoad, sl.type, {sl.pointer});
      store(out, at(out, rec, sl.offset, sl.saved_type), to_saved(out, sl, v), sl.alignment);
    }
  }
  void restore_slots(std::vector<Instruction>& out, const std::vector<Slot>& slots, uint32_t rec) {
    for (const Slot& sl : slots) {
      uint32_t v = load(out, sl.saved_type, at(out, rec, sl.offset, sl.saved_type), sl.alignment);
      out.emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{sl.pointer, from_saved(out, sl, v)});
    }
  }
  // A work-item that finishes after it resumed says so (its record's point).
  void mark_done(ir::Function& f, uint32_t rec) {
    for (Block& b : f.blocks)
      if (b.terminator().opcode == Op::OpReturn) {
        std::vector<Instruction> done;
        store(done, at(done, rec, 4, t_int(32)), c_u32(kResumeDone), 4);
        b.instructions.insert(b.instructions.end() - 1, done.begin(), done.end());
      }
  }

  // The blocks after a resumable kernel's entry: |dispatch| goes on to |fresh| in a launch's
  // first round; later, a work-item that stopped in this launch restores its variables in
  // the block returned, still open (|*point|: where it stopped; |*label|: that block's), and
  // the others go to |returned|, which is added here.
  std::vector<Instruction>& resume_path(std::deque<Block>& added, uint32_t dispatch, uint32_t fresh,
                                        uint32_t returned, uint32_t round, uint32_t epoch, uint32_t rec,
                                        const std::vector<Slot>& slots, uint32_t* point, uint32_t* label) {
    uint32_t u32 = t_int(32), look = m_.take_id(), restore = m_.take_id();
    auto start = [&](uint32_t l) -> std::vector<Instruction>& {
      added.push_back(Block{l, {}});
      return added.back().instructions;
    };
    auto& d = start(dispatch);
    uint32_t first = emit(d, Op::OpIEqual, t_bool(), {round, c_u32(0)});
    d.emplace_back(Op::OpBranchConditional, 0, 0, std::vector<uint32_t>{first, fresh, look});
    auto& l = start(look);
    *point = load(l, u32, at(l, rec, 4, u32), 4);
    l.emplace_back(Op::OpBranchConditional, 0, 0,
                   std::vector<uint32_t>{resuming(l, rec, epoch, *point), restore, returned});
    start(returned).emplace_back(Op::OpReturn, 0, 0);
    if (label) *label = restore;
    auto& r = start(restore);
    restore_slots(r, slots, rec);
    recompute(r);
    return r;
  }

  // Where the work-group's record says it saved local memory in this launch (a round after
  // the first), the work-group copies it back; all then meet. Returns the block after that,
  // still open.
  std::vector<Instruction>& restore_local(std::deque<Block>& added, std::vector<Instruction>& e,
                                          uint32_t round, uint32_t epoch, uint32_t grec) {
    uint32_t u32 = t_int(32), u64 = t_int(64), boolean = t_bool();
    uint32_t gepoch = load(e, u32, at(e, grec, 0, u32), 4);
    uint32_t later = emit(e, Op::OpINotEqual, boolean, {round, c_u32(0)});
    uint32_t saved = emit(e, Op::OpIEqual, boolean, {gepoch, epoch});
    uint32_t restore = emit(e, Op::OpLogicalAnd, boolean, {later, saved});
    uint32_t copy = m_.take_id(), joined = m_.take_id();
    e.emplace_back(Op::OpBranchConditional, 0, 0, std::vector<uint32_t>{restore, copy, joined});
    added.push_back(Block{copy, {}});
    auto& c = added.back().instructions;
    ext(c, 0, ResumeOp::RestoreLocal, {emit(c, Op::OpIAdd, u64, {grec, c_u64(16)})});
    c.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{joined});
    added.push_back(Block{joined, {}});
    auto& j = added.back().instructions;
    barrier(j);
    return j;
  }

  // transform_together(), first with stops in loops without barriers; where that fails, as
  // the kernel was.
  bool together(ir::Function& f) {
    ir::Function original = f;
    size_t annotations = m_.annotations.size();
    waits_found_ = false;
    if (ctx_.wait_in_loops && transform_together(f, true)) return true;
    if (!waits_found_) return false;  // the same again would fail the same way
    f = std::move(original);
    m_.annotations.resize(annotations);
    return transform_together(f, false);
  }

  // Kernels with barriers: the work-group stops together, at a barrier inside a loop. The
  // batch whose count runs low raises a flag (global memory, one per work-group); after
  // each such barrier every work-item reads it, they meet again, and if it was raised they
  // all save their state and local memory and return. The loops stay as they were (the
  // reducible pass gives a loop entered at a barrier a dispatch block of its own), so each
  // barrier still runs once per iteration of a loop all work-items go round alike.
  //
  // A loop with no barrier in it (a grid-stride loop before a reduction's barriers) has no
  // such place. A batch whose count runs out there keeps the loop's header as its place to
  // resume and goes straight to the barrier its work-group meets at next, past the code in
  // between (which it runs once resumed); the others wait for it there and all stop, and,
  // resumed, they wait at that barrier again until it comes. After a kernel's last barrier
  // such a batch stops alone.
  bool transform_together(ir::Function& f, bool wait_in_loops) {
    remat_.clear();  // its work-groups restore all they saved
    demote_phis(f);
    std::unordered_set<uint32_t> hoisted = hoist_fixed_addresses(f);
    struct Edge {
      uint32_t from, to;
      bool back;  // from inside the loop
    };
    std::vector<Edge> edges;
    uint32_t masked = 0;  // masked_loops_per_pass
    // Barriers to stop at: those inside loops, then (|before|) those the loops without one
    // wait at, which the work-group resumes at rather than after.
    struct At {
      size_t block, index;
      bool before;
    };
    std::vector<At> stops;
    size_t cycle_stops = 0;
    // Headers of loops without barriers: the stop each waits at, -1 where it stops alone.
    std::map<uint32_t, int> waits;
    {
      Cfg cfg(m_, f);
      const std::set<int> headers = loop_headers(cfg);
      for (int v : headers)
        for (int u : cfg.predecessors(v))
          if (cfg.reachable(u))
            edges.push_back({f.blocks[u].label, f.blocks[v].label, cfg.rpo_number(v) <= cfg.rpo_number(u)});
      std::set<uint32_t> header_labels;
      for (int v : headers) header_labels.insert(f.blocks[v].label);
      masked = masked_loops_per_pass(f, header_labels);
      std::vector<std::pair<size_t, size_t>> barriers = cycle_barriers(cfg, f);
      cycle_stops = barriers.size();
      for (auto [b, k] : barriers) stops.push_back({b, k, false});
      std::map<std::pair<size_t, size_t>, int> stop_of;
      for (int h : wait_in_loops ? headers : std::set<int>{}) {
        std::pair<size_t, size_t> meet;
        int kind = next_meeting(cfg, f, h, &meet);
        if (kind < 0) continue;
        int index = -1;
        if (kind == 2) {  // a barrier in a loop: one of the cycle's stops, resumed before it
          auto it = std::find_if(stops.begin(), stops.begin() + cycle_stops, [&](const At& a) {
            return a.block == meet.first && a.index == meet.second;
          });
          if (it == stops.begin() + cycle_stops) continue;
          it->before = true;
          index = int(it - stops.begin());
        } else if (kind == 1) {
          auto it = stop_of.find(meet);
          if (it == stop_of.end()) {
            it = stop_of.emplace(meet, int(stops.size())).first;
            stops.push_back({meet.first, meet.second, true});
          }
          index = it->second;
        }
        waits[f.blocks[h].label] = index;
      }
      // Each is one more way into the kernel for the resume path (build time).
      if (waits.size() > kMaxWaitingLoops) {
        waits.clear();
        stops.resize(cycle_stops);
      }
      waits_found_ = !waits.empty();
    }
    if (edges.empty() || (stops.empty() && waits.empty())) return false;

    // Split after each barrier (and before it, where the work-group resumes at it); the
    // block that ends with it gets the flag's reading, a second barrier and the branch to
    // stopping (added below) or to the rest.
    struct Point {
      uint32_t check, rest, stop, resume;
    };
    std::vector<Point> points(stops.size());
    std::vector<size_t> order(stops.size());
    for (size_t s = 0; s < order.size(); ++s) order[s] = s;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {  // from the back: indices stay valid
      return std::make_pair(stops[x].block, stops[x].index) > std::make_pair(stops[y].block, stops[y].index);
    });
    for (size_t s : order) {
      auto [b, k, before] = stops[s];
      auto& ins = f.blocks[b].instructions;
      uint32_t split = f.blocks[b].label;
      Block rest{m_.take_id(), {}};
      rest.instructions.assign(ins.begin() + k + 1, ins.end());
      std::vector<Block> inserted;
      if (before) {
        Block check{m_.take_id(), {ins[k]}};
        ins.resize(k);
        ins.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{check.label});
        check.instructions.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{rest.label});  // for now
        inserted.push_back(std::move(check));
      } else {
        ins.resize(k + 1);
        ins.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{rest.label});  // for now
      }
      for (uint32_t t : ir::successor_labels(m_, f, rest))
        if (Block* sb = f.find_block(t)) ir::rename_phi_predecessor(*sb, split, rest.label);
      for (Edge& e : edges)
        if (e.from == split) e.from = rest.label;
      uint32_t check = before ? inserted.front().label : split;
      // A barrier later in the same block (split before this one) now ends |rest|.
      for (Point& p : points)
        if (p.check == split) p.check = rest.label;
      points[s] = {check, rest.label, m_.take_id(), before ? check : rest.label};
      inserted.push_back(std::move(rest));
      f.blocks.insert(f.blocks.begin() + b + 1, std::make_move_iterator(inserted.begin()),
                      std::make_move_iterator(inserted.end()));
    }
    std::set<uint32_t> targets;
    for (const Point& p : points) targets.insert(p.resume);
    for (const auto& w : waits) targets.insert(w.first);
    demote_live_values(f, targets, hoisted);
    uint32_t record = 0;
    std::vector<Slot> slots;
    std::unordered_set<uint32_t> live = live_variables(f, targets);
    if (!collect_slots(f, &record, &slots, &live)) return false;

    uint32_t u32 = t_int(32), u64 = t_int(64), boolean = t_bool();
    // Where a batch that went to a barrier from a loop without one resumes (the loop's point),
    // kResumeDone where it did not; and, for the guards (guard_chain()), where a work-item
    // resumes and on which stretch of the kernel that is (0: it runs from the start).
    uint32_t jumped = 0, resume_at = 0, resume_spine = 0;
    if (!waits.empty()) {
      jumped = new_variable_later(u32);
      resume_at = new_variable_later(u32);
      resume_spine = new_variable_later(u32);
      flush_variables(f);
    }
    Block entry = split_entry(f, hoisted);
    uint32_t fresh_label = f.blocks.front().label;
    std::deque<Block> added;
    auto start = [&](uint32_t label) -> std::vector<Instruction>& {
      added.push_back(Block{label, {}});
      return added.back().instructions;
    };
    auto& e = entry.instructions;
    if (jumped) {
      e.emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{jumped, c_u32(kResumeDone)});
      e.emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{resume_spine, c_u32(0)});
    }
    uint32_t round = ext(e, u32, ResumeOp::Round);
    uint32_t epoch = ext(e, u32, ResumeOp::Epoch);
    uint32_t rec = ext(e, u64, ResumeOp::ItemRecord, {c_u32(record)});
    uint32_t grec = ext(e, u64, ResumeOp::GroupRecord);
    uint32_t returned = m_.take_id(), dispatch = m_.take_id();
    {
      auto& j = restore_local(added, e, round, epoch, grec);
      ext(j, 0, ResumeOp::GroupBudgetReset);
      ext(j, 0, ResumeOp::FlagReset);
      barrier(j);
      j.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{dispatch});
    }
    // Points: the stops' in order, then the waiting loops' headers. The resume path enters
    // such a loop where the kernel does, through one block before its header (a join the
    // structurizer can funnel, unlike a header's).
    std::map<uint32_t, uint32_t> header_point, enter;
    for (const auto& w : waits) {
      header_point[w.first] = uint32_t(points.size() + header_point.size());
      enter[w.first] = m_.take_id();
      for (const Edge& edge : edges)
        if (edge.to == w.first && !edge.back) ir::retarget(m_, f, *f.find_block(edge.from), edge.to, enter[w.first]);
      f.blocks.push_back(Block{enter[w.first], {Instruction(Op::OpBranch, 0, 0, {w.first})}});
    }
    edges.erase(std::remove_if(edges.begin(), edges.end(), [&](const Edge& e) { return !e.back && waits.count(e.to); }),
                edges.end());
    for (const auto& [header, label] : enter) edges.push_back({label, header, false});
    // Where each point resumes.
    std::vector<uint32_t> resume_targets;
    for (const Point& p : points) resume_targets.push_back(p.resume);
    for (const auto& [header, k] : header_point) resume_targets.push_back(enter[header]);
    uint32_t first_guard = 0, spine_of = 0;  // (the guards' block; the restore path's spine index)
    {
      uint32_t point = 0;
      auto& r = resume_path(added, dispatch, fresh_label, returned, round, epoch, rec, slots, &point, nullptr);
      if (waits.empty()) {
        std::vector<uint32_t> sw = {point, returned};
        for (size_t k = 0; k < resume_targets.size(); ++k) {
          sw.push_back(uint32_t(k));
          sw.push_back(resume_targets[k]);
        }
        r.emplace_back(Op::OpSwitch, 0, 0, sw);
      } else {
        // The guards take it from here (a switch into every stretch of the kernel is a
        // ladder of joins the structurizer cannot merge). Which stretch is known later.
        r.emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{resume_at, point});
        spine_of = m_.take_id();
        r.emplace_back(Op::OpNop, 0, spine_of);  // replaced by guard_chain()
        first_guard = m_.take_id();
        r.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{first_guard});
        start(first_guard).emplace_back(Op::OpReturn, 0, 0);  // for now
      }
    }
    for (size_t k = 0; k < points.size(); ++k) {
      Block* b = f.find_block(points[k].check);
      b->instructions.pop_back();  // the branch put there for now
      uint32_t flag = ext(b->instructions, u32, ResumeOp::FlagRead);
      barrier(b->instructions);
      uint32_t raised = emit(b->instructions, Op::OpINotEqual, boolean, {flag, c_u32(0)});
      b->instructions.emplace_back(Op::OpBranchConditional, 0, 0,
                                   std::vector<uint32_t>{raised, points[k].stop, points[k].rest});
      b = nullptr;
      auto& s = start(points[k].stop);
      save_slots(s, slots, rec);
      store(s, at(s, rec, 0, u32), epoch, 4);
      uint32_t point = c_u32(uint32_t(k));
      if (stops[k].before) {
        uint32_t from = emit(s, Op::OpLoad, u32, {jumped});
        uint32_t here = emit(s, Op::OpIEqual, boolean, {from, c_u32(kResumeDone)});
        point = emit(s, Op::OpSelect, u32, {here, point, from});
      }
      store(s, at(s, rec, 4, u32), point, 4);
      ext(s, 0, ResumeOp::SaveLocal, {emit(s, Op::OpIAdd, u64, {grec, c_u64(16)}), c_u32(1)});
      store(s, at(s, grec, 0, u32), epoch, 4);
      ext(s, 0, ResumeOp::Yield, {flag});
      s.emplace_back(Op::OpReturn, 0, 0);
    }
    // A batch that stops alone (after the last barrier): as in a kernel without barriers,
    // it copies all of local memory itself.
    uint32_t alone = 0;
    for (const auto& w : waits)
      if (w.second < 0 && !alone) {
        alone = m_.take_id();
        auto& s = start(alone);
        save_slots(s, slots, rec);
        store(s, at(s, rec, 0, u32), epoch, 4);
        store(s, at(s, rec, 4, u32), emit(s, Op::OpLoad, u32, {jumped}), 4);
        ext(s, 0, ResumeOp::SaveLocal, {emit(s, Op::OpIAdd, u64, {grec, c_u64(16)}), c_u32(0)});
        store(s, at(s, grec, 0, u32), epoch, 4);
        ext(s, 0, ResumeOp::Yield, {c_u32(1)});
        s.emplace_back(Op::OpReturn, 0, 0);
      }
    // Ways from loops without barriers into the middle of a loop with them (to one of its
    // stops): their block, and the stop's point; guard_chain() finishes them.
    std::map<uint32_t, uint32_t> into_loops;
    // Each edge into a loop header counts; a batch that runs low raises the flag. So does
    // each pass into a resume point in a loop: the reducible pass sends every edge into one
    // through the dispatch block of its loop, which the driver counts as an iteration.
    for (size_t k = 0; k < cycle_stops; ++k) edges.push_back({points[k].check, points[k].rest, false});
    for (const Edge& edge : edges) {
      uint32_t check = m_.take_id(), raise = m_.take_id();
      auto& c = start(check);
      uint32_t count = masked ? ext(c, u32, ResumeOp::GroupBudgetStep, {c_u32(1 + masked)})
                              : ext(c, u32, ResumeOp::GroupBudgetStep);
      uint32_t low = emit(c, Op::OpUGreaterThanEqual, boolean, {count, c_u32(kFlagAt)});
      c.emplace_back(Op::OpBranchConditional, 0, 0, std::vector<uint32_t>{low, raise, edge.to});
      auto& r = start(raise);
      ext(r, 0, ResumeOp::FlagSet);
      // (Only back edges stop: the way in, counted, lies between the loop's point and its
      // header, where a stop would skip over the loop's way into an enclosing one.)
      auto w = edge.back ? waits.find(edge.to) : waits.end();
      if (w == waits.end()) {
        r.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{edge.to});
      } else {
        // Out of the loop to where its work-group meets, to resume at its header.
        uint32_t go = m_.take_id();
        uint32_t out = emit(r, Op::OpUGreaterThanEqual, boolean, {count, c_u32(kYieldAt)});
        r.emplace_back(Op::OpBranchConditional, 0, 0, std::vector<uint32_t>{out, go, edge.to});
        auto& g = start(go);
        g.emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{jumped, c_u32(header_point[edge.to])});
        uint32_t to = w->second < 0 ? alone : points[size_t(w->second)].check;
        if (w->second >= 0 && size_t(w->second) < cycle_stops) {
          // Into a loop's middle: guard_chain() makes this the way a work-item resuming
          // there takes, through the loop's way in (a return until then, so that the loop
          // keeps one way in while the guards are placed).
          uint32_t via = m_.take_id();
          into_loops[via] = uint32_t(w->second);
          start(via).emplace_back(Op::OpReturn, 0, 0);
          to = via;
        }
        g.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{to});
      }
      ir::retarget(m_, f, *f.find_block(edge.from), edge.to, check);
    }
    mark_done(f, rec);
    f.blocks.insert(f.blocks.begin(), std::move(entry));
    for (Block& b : added) f.blocks.push_back(std::move(b));
    if (first_guard &&
        !guard_chain(f, resume_targets, into_loops, first_guard, spine_of, resume_at, resume_spine))
      return false;
    if (first_guard) ctx_.waited = true;
    if (cycle_stops == 1 && ctx_.rotate_resumed_loops) rotate(f, points[0].resume, points[0].stop, hoisted);
    ctx_.resumable[f.id()] = {record, true};
    return true;
  }

  // The resume path's way to its points where loops without barriers have some: the places
  // to resume lie on one line through the kernel (the spine: each stretch of it leads to
  // the next), a point inside a loop counting as that loop's way in. Before each spine block
  // a guard: a work-item resuming further on skips the stretch (its values are saved in the
  // record), one resuming here goes to its point, the others run it. Every guard is then the
  // merge of the one before. The restore path's |spine_of| (a placeholder) becomes the
  // point's stretch; false where the points do not lie on one line.
  bool guard_chain(ir::Function& f, const std::vector<uint32_t>& targets, const std::map<uint32_t, uint32_t>& into_loops,
                   uint32_t first_guard, uint32_t spine_of, uint32_t resume_at, uint32_t resume_spine) {
    uint32_t u32 = t_int(32), boolean = t_bool();
    // Each point's spine block: itself, or a new block before the outermost loop it is in.
    std::vector<uint32_t> spine_block(targets.size());
    {
      Cfg cfg(m_, f);
      const std::set<int> headers = loop_headers(cfg);
      std::map<int, uint32_t> way_in;  // outermost loop header -> its new block
      for (size_t k = 0; k < targets.size(); ++k) {
        int t = cfg.index(targets[k]);
        if (t < 0) return false;
        int outer = -1;
        for (int h : headers)
          if ((h == t || (reaches(cfg, h, t) && reaches(cfg, t, h))) &&
              (outer < 0 || cfg.rpo_number(h) < cfg.rpo_number(outer)))
            outer = h;
        if (outer < 0) {
          spine_block[k] = targets[k];
          continue;
        }
        if (!way_in.count(outer)) way_in[outer] = m_.take_id();
        spine_block[k] = way_in[outer];
      }
      for (const auto& [h, label] : way_in) {
        uint32_t header = f.blocks[h].label;
        for (int p : cfg.predecessors(h))
          if (cfg.reachable(p) && !reaches(cfg, h, p)) ir::retarget(m_, f, f.blocks[p], header, label);
        f.blocks.push_back(Block{label, {Instruction(Op::OpBranch, 0, 0, {header})}});
      }
    }
    std::vector<uint32_t> spine;
    {
      Cfg cfg(m_, f);
      for (uint32_t s : spine_block)
        if (std::find(spine.begin(), spine.end(), s) == spine.end()) spine.push_back(s);
      std::sort(spine.begin(), spine.end(),
                [&](uint32_t x, uint32_t y) { return cfg.rpo_number(cfg.index(x)) < cfg.rpo_number(cfg.index(y)); });
      // The ways into a loop's middle from outside it (a loop without barriers going to the
      // barrier it waits at, inside a reduction's loop) go through the loop's way in, as a
      // work-item resuming there would.
      for (const auto& [label, k] : into_loops) {
        uint32_t stretch = uint32_t(std::find(spine.begin(), spine.end(), spine_block[k]) - spine.begin()) + 1;
        auto& via = f.find_block(label)->instructions;
        via.clear();
        via.emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{resume_spine, c_u32(stretch)});
        via.emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{resume_at, c_u32(k)});
        via.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{spine_block[k]});
      }
    }
    Cfg cfg(m_, f);
    for (size_t i = 0; i < spine.size(); ++i) {
      int s = cfg.index(spine[i]);
      if (s < 0 || !cfg.reachable(s) || reaches(cfg, s, s)) return false;
      if (i + 1 == spine.size()) break;
      int next = cfg.index(spine[i + 1]);
      if (!cfg.dominates(s, next)) return false;
      for (size_t j = 0; j < spine.size(); ++j)  // the stretch leads only to the next
        if (j != i && j != i + 1 && reaches(cfg, s, cfg.index(spine[j]), next)) return false;
    }
    // Guards on every way into the spine blocks.
    std::vector<uint32_t> guard(spine.size());
    for (size_t i = 0; i < spine.size(); ++i) {
      guard[i] = i ? m_.take_id() : first_guard;
      int s = cfg.index(spine[i]);
      for (int p : cfg.predecessors(s))
        if (cfg.reachable(p)) ir::retarget(m_, f, f.blocks[p], spine[i], guard[i]);
    }
    for (size_t i = 0; i < spine.size(); ++i) {
      std::vector<Instruction> g;
      uint32_t stretch = emit(g, Op::OpLoad, u32, {resume_spine});
      uint32_t run = m_.take_id();
      if (i + 1 < spine.size()) {
        uint32_t skip = emit(g, Op::OpUGreaterThan, boolean, {stretch, c_u32(uint32_t(i + 1))});
        g.emplace_back(Op::OpBranchConditional, 0, 0, std::vector<uint32_t>{skip, guard[i + 1], run});
      } else {
        g.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{run});
      }
      std::vector<uint32_t> sw;
      for (size_t k = 0; k < targets.size(); ++k)
        if (spine_block[k] == spine[i] && targets[k] != spine[i]) {
          sw.push_back(uint32_t(k));
          sw.push_back(targets[k]);
        }
      std::vector<Instruction> r;
      if (sw.empty()) {
        r.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{spine[i]});
      } else {
        uint32_t into = m_.take_id();
        uint32_t here = emit(r, Op::OpIEqual, boolean, {stretch, c_u32(uint32_t(i + 1))});
        r.emplace_back(Op::OpBranchConditional, 0, 0, std::vector<uint32_t>{here, into, spine[i]});
        std::vector<Instruction> in;
        uint32_t at = emit(in, Op::OpLoad, u32, {resume_at});
        sw.insert(sw.begin(), {at, spine[i]});
        in.emplace_back(Op::OpSwitch, 0, 0, sw);
        f.blocks.push_back(Block{into, std::move(in)});
      }
      f.blocks.push_back(Block{run, std::move(r)});
      if (i) f.blocks.push_back(Block{guard[i], std::move(g)});
      else f.find_block(first_guard)->instructions = std::move(g);
    }
    // The restore path: the point's stretch, 1-based.
    for (Block& b : f.blocks)
      for (size_t n = 0; n < b.instructions.size(); ++n) {
        if (b.instructions[n].result_id != spine_of) continue;
        std::vector<Instruction> code;
        uint32_t at = emit(code, Op::OpLoad, u32, {resume_at});
        uint32_t index = c_u32(0);
        for (size_t k = 0; k < targets.size(); ++k) {
          uint32_t i = uint32_t(std::find(spine.begin(), spine.end(), spine_block[k]) - spine.begin());
          uint32_t is = emit(code, Op::OpIEqual, boolean, {at, c_u32(uint32_t(k))});
          index = emit(code, Op::OpSelect, u32, {is, c_u32(i + 1), index});
        }
        code.emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{resume_spine, index});
        b.instructions.erase(b.instructions.begin() + n);
        b.instructions.insert(b.instructions.begin() + n, code.begin(), code.end());
        return true;
      }
    return false;
  }

  // The workgroup barriers of one cycle (the first one's) that the work-group stops at: a
  // resume path into two loops one after the other would need a merge the structurizer
  // cannot find.
  std::vector<std::pair<size_t, size_t>> cycle_barriers(Cfg& cfg, ir::Function& f) {
    std::vector<std::pair<size_t, size_t>> barriers;  // (block, instruction)
    auto reaches = [&](int from, int to, int avoid = -1) { return Resumer::reaches(cfg, from, to, avoid); };
    int cycle = -1;
    for (int b : cfg.rpo()) {
      for (size_t k = 0; k < f.blocks[b].instructions.size(); ++k) {
        const Instruction& i = f.blocks[b].instructions[k];
        if (i.opcode != Op::OpControlBarrier || !is_workgroup_scope(i.operands[0])) continue;
        if (!reaches(b, b)) continue;
        if (cycle < 0) cycle = b;
        if (b == cycle || (reaches(b, cycle) && reaches(cycle, b))) barriers.push_back({size_t(b), k});
      }
    }
    // Each place to stop is one more way into the loop for the resume path, and lavapipe's
    // build time grows with them (PyOpenCL's scan kernels, a dozen barriers in a loop: 13.6 s
    // against 1.5 s). A barrier every iteration of the cycle passes (its block dominates
    // each edge back to the header) is enough, with those of inner cycles that go round
    // without it.
    if (barriers.size() > 1) {
      int header = -1;
      std::vector<int> latches;
      for (int b : cfg.rpo())
        if (b == cycle || (reaches(b, cycle) && reaches(cycle, b))) {
          if (header < 0) header = b;
          for (int n : cfg.successors(b))
            if (n == header) latches.push_back(b);
        }
      for (auto [b, k] : barriers) {
        int at = int(b);
        if (!std::all_of(latches.begin(), latches.end(), [&](int l) { return cfg.dominates(at, l); }))
          continue;
        std::vector<std::pair<size_t, size_t>> kept = {{b, k}};
        for (auto [c, j] : barriers)
          if (int(c) != at && reaches(int(c), int(c), at)) kept.push_back({c, j});
        barriers = std::move(kept);
        break;
      }
    }
    return barriers;
  }

  // Where the work-items leaving the loop at |header| meet next: at a workgroup barrier
  // (|*at|) reached on every way out before any other converging instruction or return, 1
  // outside any loop, 2 inside a loop that |header|'s is not part of; 0 where they only
  // return; -1 otherwise (the loop has a barrier or group operation in it, or leads to
  // several).
  int next_meeting(Cfg& cfg, ir::Function& f, int header, std::pair<size_t, size_t>* at) {
    std::set<std::pair<size_t, size_t>> found;
    bool returns = false;
    std::vector<bool> seen(f.blocks.size(), false);
    std::vector<int> work = {header};
    seen[header] = true;
    while (!work.empty()) {
      int b = work.back();
      work.pop_back();
      const auto& ins = f.blocks[b].instructions;
      bool met = false;
      for (size_t k = 0; k < ins.size() && !met; ++k)
        if (is_converging(ins[k]) || (ins[k].opcode == Op::OpFunctionCall && converging_.count(ins[k].operands[0]))) {
          found.insert({size_t(b), k});
          met = true;
        }
      if (met) continue;
      if (cfg.successors(b).empty()) returns = true;
      for (int n : cfg.successors(b))
        if (!seen[n]) seen[n] = true, work.push_back(n);
    }
    if (found.empty()) return returns ? 0 : -1;
    if (found.size() != 1 || returns) return -1;
    auto [b, k] = *found.begin();
    const Instruction& i = f.blocks[b].instructions[k];
    if (i.opcode != Op::OpControlBarrier || !is_workgroup_scope(i.operands[0])) return -1;
    *at = {b, k};
    if (!reaches(cfg, int(b), int(b))) return 1;
    // In a loop (a reduction's tree that starts with its barrier): one the loop without
    // barriers is not part of.
    return reaches(cfg, int(b), header) && reaches(cfg, header, int(b)) ? -1 : 2;
  }

  // Whether |to| can be reached from |from| (in at least one step), not through |avoid|.
  static bool reaches(Cfg& cfg, int from, int to, int avoid = -1) {
    std::vector<bool> seen(cfg.function().blocks.size(), false);
    std::vector<int> work = {from};
    seen[from] = true;
    while (!work.empty()) {
      int b = work.back();
      work.pop_back();
      for (int n : cfg.successors(b)) {
        if (n == to) return true;
        if (!seen[n] && n != avoid) seen[n] = true, work.push_back(n);
      }
    }
    return false;
  }

  // The loop the resume path enters at |rest| (after its barrier) starts there instead: the
  // stretch from its header to |rest| runs once before it (a copy) and then at the end of
  // each iteration. Entered at two places, the loop would become a dispatch loop that goes
  // round twice per iteration, each time through both halves (masked on a CPU driver):
  // tiled matrix products took 2.5 times as long.
  void rotate(ir::Function& f, uint32_t rest, uint32_t stop, const std::unordered_set<uint32_t>& hoisted) {
    Cfg cfg(m_, f);
    int r = cfg.index(rest);
    if (r < 0) return;
    std::vector<bool> in_loop(f.blocks.size(), false);
    for (int b : cfg.rpo()) in_loop[b] = b == r || (reaches(cfg, r, b) && reaches(cfg, b, r));
    int header = -1;
    for (int b : cfg.rpo()) {
      if (!in_loop[b] || b == r) continue;
      for (int p : cfg.predecessors(b))
        if (cfg.reachable(p) && !in_loop[p]) {
          if (header >= 0 && header != b) return;  // entered at more places
          header = b;
        }
    }
    if (header < 0 || reaches(cfg, r, r, header)) return;  // |rest| in a loop of its own
    // The stretch: what the header reaches before |rest|.
    std::vector<bool> stretch(f.blocks.size(), false);
    std::vector<int> work = {header};
    stretch[header] = true;
    while (!work.empty()) {
      int b = work.back();
      work.pop_back();
      for (int n : cfg.successors(b))
        if (in_loop[n] && n != r && !stretch[n]) stretch[n] = true, work.push_back(n);
    }
    // Values made in the stretch and used beyond it go through variables, so that both
    // copies can make them.
    std::set<uint32_t> beyond;
    for (size_t b = 0; b < f.blocks.size(); ++b)
      if (stretch[b])
        for (int n : cfg.successors(int(b)))
          if (!stretch[n]) beyond.insert(f.blocks[n].label);
    std::vector<uint32_t> labels;
    for (size_t b = 0; b < f.blocks.size(); ++b)
      if (stretch[b]) labels.push_back(f.blocks[b].label);
    std::vector<uint32_t> outside;  // blocks before the loop that enter it at its header
    for (int p : cfg.predecessors(header))
      if (cfg.reachable(p) && !in_loop[p]) outside.push_back(f.blocks[p].label);
    uint32_t header_label = f.blocks[header].label;
    demote_live_values(f, beyond, hoisted);

    std::unordered_map<uint32_t, uint32_t> fresh;
    for (uint32_t l : labels) {
      fresh[l] = m_.take_id();
      for (const Instruction& i : f.find_block(l)->instructions)
        if (i.result_id) fresh[i.result_id] = m_.take_id();
    }
    std::vector<Block> copies;
    for (uint32_t l : labels) {
      Block c = *f.find_block(l);
      c.label = fresh[l];
      for (Instruction& i : c.instructions) {
        std::vector<size_t> ids = id_operands(m_, f, i);
        if (i.result_id) i.result_id = fresh[i.result_id];
        for (size_t k : ids) {
          auto it = fresh.find(i.operands[k]);
          if (it != fresh.end()) i.operands[k] = it->second;
        }
      }
      // The copy runs once, before the loop, and does not stop: the work-group stops at the
      // end of that first iteration instead (a shared stop would be a join the structurizer
      // could only make by copying it).
      Instruction& t = c.terminator();
      if (t.opcode == Op::OpBranchConditional && (t.operands[1] == stop || t.operands[2] == stop))
        t = Instruction(Op::OpBranch, 0, 0, {t.operands[1] == stop ? t.operands[2] : t.operands[1]});
      copies.push_back(std::move(c));
    }
    std::vector<Instruction> decorations;
    for (const auto& a : m_.annotations)
      if (a.opcode == Op::OpDecorate && !a.operands.empty() && fresh.count(a.operands[0])) {
        Instruction d = a;
        d.operands[0] = fresh[a.operands[0]];
        decorations.push_back(d);
      }
    m_.annotations.insert(m_.annotations.end(), decorations.begin(), decorations.end());
    for (uint32_t o : outside) ir::retarget(m_, f, *f.find_block(o), header_label, fresh[header_label]);
    for (Block& c : copies) f.blocks.push_back(std::move(c));
    ctx_.rotated = true;
  }

  bool is_workgroup_scope(uint32_t scope_id) const {
    const Instruction* g = global(scope_id);
    return g && g->opcode == Op::OpConstant && !g->operands.empty() && g->operands[0] == kScopeWorkgroup;
  }

  bool transform(ir::Function& f) {
    if (ctx_.dispatch_loops) return false;  // a dispatch loop's iterations would go uncounted
    // Barriers and group and sub-group operations need the work-items together as the
    // program's own control flow brings them; the hub below runs the loops of one batch of
    // work-items in one loop, and gallivm runs a barrier inside a loop once for every
    // iteration of the batch, whichever work-items are where. Such kernels keep the loop
    // limit's detection only.
    for (const Block& b : f.blocks)
      for (const Instruction& i : b.instructions)
        if (is_converging(i) || (i.opcode == Op::OpFunctionCall && converging_.count(i.operands[0])))
          return ctx_.caps.resumable_barrier_loops && together(f);
    demote_phis(f);
    std::unordered_set<uint32_t> hoisted = hoist_fixed_addresses(f);

    // Edges into loop headers (targets of retreating edges of a depth-first order: every
    // cycle has one). The driver counts every pass through a loop's header, the first one
    // too (its limiter steps at each loop end, and a loop ends once more to leave): so every
    // edge into a header counts, and each is a place to stop, resuming at the header.
    struct Edge {
      uint32_t from, to;
    };
    std::vector<Edge> edges;
    std::set<uint32_t> back_from;  // blocks with a retreating edge into a header
    {
      Cfg cfg(m_, f);
      const std::set<int> headers = loop_headers(cfg);
      for (int v : headers)
        for (int u : cfg.predecessors(v))
          if (cfg.reachable(u)) {
            edges.push_back({f.blocks[u].label, f.blocks[v].label});
            if (cfg.rpo_number(v) <= cfg.rpo_number(u)) back_from.insert(f.blocks[u].label);
          }
    }
    if (edges.empty()) return false;
    bool group_records = touches_local_memory(f);

    // The headers, numbered: a header's number is the point a work-item that stopped on
    // its way there resumes at. Every edge into a header goes through one hub (below), so
    // values live into any of them go through variables.
    std::vector<uint32_t> targets;
    for (const Edge& e : edges)
      if (std::find(targets.begin(), targets.end(), e.to) == targets.end()) targets.push_back(e.to);
    std::set<uint32_t> target_set(targets.begin(), targets.end());
    const uint32_t masked = masked_loops_per_pass(f, target_set);
    demote_live_values(f, target_set, hoisted);

    // Only what a header may still read: saving the rest would keep it alive around the
    // whole hub loop.
    uint32_t record = 0;
    std::vector<Slot> slots;
    std::unordered_set<uint32_t> live = live_variables(f, target_set);
    remat_ = recomputable(f, live, target_set);
    for (const auto& r : remat_) live.erase(r.var);
    if (!collect_slots(f, &record, &slots, &live)) return false;
    // Each saved variable gains a definition on the resume path, and its uses then meet
    // that one across the whole hub loop, so lavapipe builds a resuming kernel in more time
    // than the plain one, growing with both. With addresses into private arrays no longer
    // kept in variables (hoist_fixed_addresses), which made most of that time (PyOpenCL's
    // Ranlux generator took 15-65 s more than its 0.5 s), the first round's pipeline of a
    // kernel of 480 variables in 486 blocks builds in 4.6 s against 1.8 s without resuming,
    // the resuming one (built only when some work-item stopped) in 9.6 s; sasmodels' pringle,
    // 222 in 292, in 2.4 and 3.3 s against 0.8 s. A right result after a longer build is worth
    // more than a fast failure: only kernels larger than these keep the detection.
    if (slots.size() * f.blocks.size() > kMaxResumeCost) return false;

    uint32_t u32 = t_int(32), u64 = t_int(64), boolean = t_bool();

    // The new entry block: the variables, then which way this work-item goes.
    Block entry = split_entry(f, hoisted);
    uint32_t fresh_label = f.blocks.front().label;
    std::deque<Block> added;  // references to its blocks stay valid as it grows
    auto& e = entry.instructions;
    uint32_t round = ext(e, u32, ResumeOp::Round);
    uint32_t epoch = ext(e, u32, ResumeOp::Epoch);
    uint32_t rec = ext(e, u64, ResumeOp::ItemRecord, {c_u32(record)});
    uint32_t grec = 0;
    uint32_t returned = m_.take_id(), dispatch = m_.take_id();
    if (group_records) {
      // Local memory a batch of the work-group saved when it stopped comes back, once,
      // before any work-item runs.
      grec = ext(e, u64, ResumeOp::GroupRecord);
      auto& j = restore_local(added, e, round, epoch, grec);
      ext(j, 0, ResumeOp::BudgetReset);
      j.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{dispatch});
    } else {
      ext(e, 0, ResumeOp::BudgetReset);
      e.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{dispatch});
    }
    uint32_t hub = m_.take_id();
    std::vector<uint32_t> hub_entries;  // the hub's selector phi: (value, predecessor)...
    {
      uint32_t point = 0, restore_label = 0;
      auto& r = resume_path(added, dispatch, fresh_label, returned, round, epoch, rec, slots, &point,
                            &restore_label);
      r.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{hub});
      hub_entries.push_back(point);
      hub_entries.push_back(restore_label);
    }

    std::unordered_map<uint32_t, uint32_t> point_of;
    for (size_t k = 0; k < targets.size(); ++k) point_of[targets[k]] = uint32_t(k);
    mark_done(f, rec);

    f.blocks.insert(f.blocks.begin(), std::move(entry));
    for (Block& b : added) f.blocks.push_back(std::move(b));
    if (targets.size() == 1) {
      single_loop(f, targets[0], back_from, hub, hub_entries, returned, slots, rec, epoch, grec, group_records,
                  masked);
      ctx_.resumable[f.id()] = {record, group_records};
      return true;
    }

    // The hub: every edge into a loop header becomes an edge to one block that switches on
    // where it goes. The resume path then joins the kernel's own control flow in one place
    // (a selection whose arms enter loops at several places has no merge the structurizer
    // could find), and all loops become one loop around the hub, whose iterations are
    // exactly the header passes the driver counted before.
    size_t blocks = f.blocks.size();
    for (size_t b = 0; b < blocks; ++b) {
      std::vector<uint32_t> succ = ir::successor_labels(m_, f, f.blocks[b]);
      std::set<uint32_t> seen;
      for (uint32_t t : succ) {
        auto it = point_of.find(t);
        if (it == point_of.end() || !seen.insert(t).second) continue;
        uint32_t via = m_.take_id();
        ir::retarget(m_, f, f.blocks[b], t, via);
        hub_entries.push_back(c_u32(it->second));
        hub_entries.push_back(via);
        f.blocks.push_back(Block{via, {Instruction(Op::OpBranch, 0, 0, {hub})}});
      }
    }
    // Every work-item still looping passes the hub in every iteration of its batch, so a
    // count of its own passes (a register) is the batch's count the driver keeps. Where it
    // runs low, the work-item stops on its way to the header it was bound for: the
    // variables, the header's number, local memory where the work-group has any.
    Block h{hub, {}};
    uint32_t selector = m_.take_id(), go = m_.take_id(), stop = m_.take_id();
    h.instructions.emplace_back(Op::OpPhi, u32, selector, hub_entries);
    uint32_t passes = budget_step(h.instructions, masked);
    uint32_t low = emit(h.instructions, Op::OpUGreaterThanEqual, boolean, {passes, c_u32(kYieldAt)});
    h.instructions.emplace_back(Op::OpBranchConditional, 0, 0, std::vector<uint32_t>{low, stop, go});
    f.blocks.push_back(std::move(h));
    Block g{go, {}};
    std::vector<uint32_t> sw = {selector, returned};
    for (size_t k = 0; k < targets.size(); ++k) {
      sw.push_back(uint32_t(k));
      sw.push_back(targets[k]);
    }
    g.instructions.emplace_back(Op::OpSwitch, 0, 0, sw);
    f.blocks.push_back(std::move(g));
    Block st{stop, {}};
    auto& b = st.instructions;
    save_slots(b, slots, rec);
    store(b, at(b, rec, 0, u32), epoch, 4);
    store(b, at(b, rec, 4, u32), selector, 4);
    if (group_records) {
      // This batch alone copies all of local memory: the work-items of the others that have
      // not finished stop later and copy it again, so the last copy has everything.
      uint32_t local = emit(b, Op::OpIAdd, u64, {grec, c_u64(16)});
      ext(b, 0, ResumeOp::SaveLocal, {local, c_u32(0)});
      store(b, at(b, grec, 0, u32), epoch, 4);
    }
    ext(b, 0, ResumeOp::Yield, {emit(b, Op::OpSelect, u32, {low, c_u32(1), c_u32(0)})});
    b.emplace_back(Op::OpReturn, 0, 0);
    f.blocks.push_back(std::move(st));
    ctx_.resumable[f.id()] = {record, group_records};
    return true;
  }

  // One loop header: the kernel keeps its loop, counted on its back edges. The hub only joins
  // the way in with the resume path (going on to the header, or to |returned| for a
  // work-item that had finished); each back edge counts a pass and stops the work-item where
  // the count runs low. A hub that every pass went through (as several headers need) was the
  // loop's header, with the count and the way back to the header as two more exits before
  // the program's own condition: lavapipe ran such a loop 1.5x (4 chains of mads) to 3x
  // (8 chains) slower than the plain one.
  void single_loop(ir::Function& f, uint32_t header, const std::set<uint32_t>& back_from, uint32_t hub,
                   std::vector<uint32_t> hub_entries, uint32_t returned, const std::vector<Slot>& slots,
                   uint32_t rec, uint32_t epoch, uint32_t grec, bool group_records, uint32_t masked) {
    uint32_t u32 = t_int(32), u64 = t_int(64), boolean = t_bool();
    uint32_t stop = m_.take_id();
    CountedLoop counted;
    // (A bound from the loop's count takes one limiter pass per iteration.)
    bool is_counted = masked == 0 && counted_loop(f, header, back_from, &counted);
    size_t blocks = f.blocks.size();
    for (size_t b = 0; b < blocks; ++b) {
      std::vector<uint32_t> succ = ir::successor_labels(m_, f, f.blocks[b]);
      if (std::find(succ.begin(), succ.end(), header) == succ.end()) continue;
      bool back = back_from.count(f.blocks[b].label) != 0;
      if (back && is_counted) continue;  // its bound does the counting (below)
      uint32_t via = m_.take_id();
      ir::retarget(m_, f, f.blocks[b], header, via);
      Block v{via, {}};
      if (back) {
        uint32_t passes = budget_step(v.instructions, masked);
        uint32_t low = emit(v.instructions, Op::OpUGreaterThanEqual, boolean, {passes, c_u32(kYieldAt)});
        v.instructions.emplace_back(Op::OpBranchConditional, 0, 0, std::vector<uint32_t>{low, stop, header});
      } else {
        hub_entries.push_back(c_u32(0));
        hub_entries.push_back(via);
        v.instructions.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{hub});
      }
      f.blocks.push_back(std::move(v));
    }
    Block h{hub, {}};
    uint32_t selector = m_.take_id();
    h.instructions.emplace_back(Op::OpPhi, u32, selector, hub_entries);
    if (is_counted) bound_counted_loop(f, counted, h.instructions, stop);
    uint32_t go = emit(h.instructions, Op::OpIEqual, boolean, {selector, c_u32(0)});
    h.instructions.emplace_back(Op::OpBranchConditional, 0, 0, std::vector<uint32_t>{go, header, returned});
    f.blocks.push_back(std::move(h));
    Block st{stop, {}};
    auto& b = st.instructions;
    save_slots(b, slots, rec);
    store(b, at(b, rec, 0, u32), epoch, 4);
    store(b, at(b, rec, 4, u32), c_u32(0), 4);
    if (group_records) {
      uint32_t local = emit(b, Op::OpIAdd, u64, {grec, c_u64(16)});
      ext(b, 0, ResumeOp::SaveLocal, {local, c_u32(0)});
      store(b, at(b, grec, 0, u32), epoch, 4);
    }
    ext(b, 0, ResumeOp::Yield, {c_u32(1)});
    b.emplace_back(Op::OpReturn, 0, 0);
    f.blocks.push_back(std::move(st));
  }

  // Arithmetic, comparisons, conversions, composites and the OpenCL.std instructions other
  // than the stores, printf and prefetch.
  bool is_pure(const Instruction& i) const {
    uint32_t op = uint32_t(i.opcode);
    if ((op >= 109 && op <= 124) || (op >= 126 && op <= 205)) return true;
    switch (i.opcode) {
      case Op::OpCompositeExtract: case Op::OpCompositeConstruct: case Op::OpCompositeInsert:
      case Op::OpVectorShuffle: case Op::OpSelect: case Op::OpCopyObject:
      case Op::OpAccessChain: case Op::OpInBoundsAccessChain:
        return true;
      default: break;
    }
    if (i.opcode != Op::OpExtInst || i.operands.size() < 2) return false;
    bool opencl_std = false;
    for (const Instruction& imp : m_.ext_inst_imports)
      if (imp.result_id == i.operands[0]) opencl_std = ir::decode_string(imp.operands, 0) == "OpenCL.std";
    uint32_t n = i.operands[1];  // vloadn 171, vload_half(n) 173-174, vloada_halfn 179, shuffle(2) 182-183
    return opencl_std && (n <= 171 || n == 173 || n == 174 || n == 179 || n == 182 || n == 183);
  }
  // A loop that leaves on a comparison of an induction variable with a bound that does not
  // change in the loop (`for (i = a; i < b; i += k)` or `i <= b`, k a positive constant),
  // tested in its header or, rotated, in its one latch.
  struct CountedLoop {
    uint32_t test_block = 0;  // the header or the latch
    uint32_t stays = 0;       // the test's target inside the loop
    uint32_t exit = 0;        // and outside
    bool exit_when_true = false;
    uint32_t condition = 0;
    uint32_t value = 0;       // compared with the bound: the variable, or it plus the step
    uint32_t var = 0;         // the induction variable (a Function variable)
    uint32_t type = 0;        // its integer type
    uint32_t width = 32;
    bool is_signed = false;
    uint64_t step = 0;
  };
  // Whether the single loop at |header| is such a loop, with nothing else counting passes in
  // it (library functions with loops count their own).
  bool counted_loop(ir::Function& f, uint32_t header, const std::set<uint32_t>& back_from, CountedLoop* out) {
    // The loop: the blocks from which a back edge is reached without passing the header.
    Cfg cfg(m_, f);
    int hi = cfg.index(header);
    std::set<int> body = {hi};
    std::vector<int> work;
    for (uint32_t from : back_from) work.push_back(cfg.index(from));
    while (!work.empty()) {
      int b = work.back();
      work.pop_back();
      if (b < 0 || !body.insert(b).second) continue;
      for (int p : cfg.predecessors(b)) work.push_back(p);
    }
    std::unordered_set<uint32_t> in_loop;
    for (int b : body) in_loop.insert(f.blocks[b].label);
    std::unordered_map<uint32_t, const Instruction*> defined;
    std::unordered_map<uint32_t, std::vector<const Instruction*>> stores;
    for (int b : body)
      for (const Instruction& i : f.blocks[b].instructions) {
        if (i.result_id) defined[i.result_id] = &i;
        if (i.opcode == Op::OpStore) stores[i.operands[0]].push_back(&i);
        if (i.opcode == Op::OpFunctionCall && library_looping_.count(i.operands[0])) return false;
      }
    // The test: in the one latch (the work-item stops on the back edge, as without a bound),
    // else in the header, which it then runs again when it resumes, so that may only compute.
    CountedLoop c;
    auto exiting = [&](uint32_t label) {
      const Block* b = f.find_block(label);
      if (!b || b->instructions.empty()) return false;
      const Instruction& t = b->instructions.back();
      if (t.opcode != Op::OpBranchConditional || t.operands[1] == t.operands[2]) return false;
      bool true_stays = in_loop.count(t.operands[1]) != 0, false_stays = in_loop.count(t.operands[2]) != 0;
      if (true_stays == false_stays) return false;
      c.test_block = label;
      c.condition = t.operands[0];
      c.exit_when_true = false_stays;
      c.exit = c.exit_when_true ? t.operands[1] : t.operands[2];
      c.stays = c.exit_when_true ? t.operands[2] : t.operands[1];
      return true;
    };
    bool latch = back_from.size() == 1 && exiting(*back_from.begin()) && c.stays == header;
    if (!latch) {
      if (!exiting(header)) return false;
      for (const Instruction& i : f.find_block(header)->instructions)
        if (!is_pure(i) && i.opcode != Op::OpLoad && i.opcode != Op::OpSelectionMerge &&
            i.opcode != Op::OpLoopMerge && i.opcode != Op::OpBranchConditional)
          return false;
    }
    auto cmp = defined.find(c.condition);
    if (cmp == defined.end()) return false;
    const Instruction& test = *cmp->second;
    // Stays while value < bound or value <= bound (leaves on >= or >).
    const Op o = test.opcode;
    bool stays_on_true = o == Op::OpSLessThan || o == Op::OpULessThan || o == Op::OpSLessThanEqual ||
                         o == Op::OpULessThanEqual;
    bool leaves_on_true = o == Op::OpSGreaterThanEqual || o == Op::OpUGreaterThanEqual ||
                          o == Op::OpSGreaterThan || o == Op::OpUGreaterThan;
    if (!(stays_on_true && !c.exit_when_true) && !(leaves_on_true && c.exit_when_true)) return false;
    c.is_signed = o == Op::OpSLessThan || o == Op::OpSLessThanEqual || o == Op::OpSGreaterThanEqual ||
                  o == Op::OpSGreaterThan;
    c.value = test.operands[0];
    uint32_t bound = test.operands[1];
    // The variable: stored once in the loop, with itself plus a positive constant; the test
    // compares its value or that sum.
    auto loaded_var = [&](uint32_t id) -> uint32_t {
      auto d = defined.find(id);
      return d != defined.end() && d->second->opcode == Op::OpLoad ? d->second->operands[0] : 0;
    };
    c.var = loaded_var(c.value);
    if (!c.var)
      for (const auto& [var, list] : stores)
        if (list.size() == 1 && list[0]->operands[1] == c.value) c.var = var;
    if (!c.var) return false;
    auto st = stores.find(c.var);
    if (st == stores.end() || st->second.size() != 1) return false;
    auto add = defined.find(st->second[0]->operands[1]);
    if (add == defined.end() || add->second->opcode != Op::OpIAdd) return false;
    c.type = add->second->type_id;
    for (int side = 0; side < 2; ++side) {
      const Instruction* k = global(add->second->operands[1 - side]);
      if (loaded_var(add->second->operands[side]) != c.var || !k || k->opcode != Op::OpConstant) continue;
      c.step = k->operands[0] | (k->operands.size() > 1 ? uint64_t(k->operands[1]) << 32 : 0);
    }
    const Instruction* ti = global(c.type);
    if (!ti || ti->opcode != Op::OpTypeInt || (ti->operands[0] != 32 && ti->operands[0] != 64)) return false;
    c.width = ti->operands[0];
    if (c.step == 0 || c.step > 32768) return false;
    // A Function variable of this function, only loaded and stored.
    bool local = false;
    for (const Instruction& i : f.blocks.front().instructions)
      local = local || (i.opcode == Op::OpVariable && i.result_id == c.var);
    if (!local) return false;
    for (const Block& b : f.blocks)
      for (const Instruction& i : b.instructions)
        for (size_t k : id_operands(m_, f, i))
          if (i.operands[k] == c.var && !((i.opcode == Op::OpLoad || i.opcode == Op::OpStore) && k == 0)) return false;
    // The bound does not change in the loop: defined outside it, or computed in the loop from
    // such values and from variables the loop does not store.
    std::function<bool(uint32_t, int)> invariant = [&](uint32_t id, int depth) {
      auto d = defined.find(id);
      if (d == defined.end()) return true;
      const Instruction& i = *d->second;
      if (depth > 16) return false;
      if (i.opcode == Op::OpLoad) {
        const Instruction* v = nullptr;
        for (const Instruction& e : f.blocks.front().instructions)
          if (e.opcode == Op::OpVariable && e.result_id == i.operands[0]) v = &e;
        return v && stores.count(i.operands[0]) == 0;  // a Function variable the loop does not store
      }
      if (!is_pure(i)) return false;
      for (size_t k : id_operands(m_, f, i))
        if (!invariant(i.operands[k], depth + 1)) return false;
      return true;
    };
    if (!invariant(bound, 0)) return false;
    *out = c;
    return true;
  }
  // The counted loop leaves also where its variable reaches a limit set in the hub (the way
  // into the loop, fresh or resuming): kYieldAt steps from where it starts, so the driver
  // never cuts it; where it would have gone on, the work-item stops and resumes at the header.
  // Nothing is counted in the loop: llvmpipe runs ffmpeg's avgblur_opencl (loops of 7 image
  // reads) 10% faster.
  void bound_counted_loop(ir::Function& f, const CountedLoop& c, std::vector<Instruction>& hub, uint32_t stop) {
    uint32_t boolean = t_bool(), t = c.type;
    auto constant = [&](uint64_t v) {
      return c.width == 64 ? ir::intern_global(m_, Op::OpConstant, t, {uint32_t(v), uint32_t(v >> 32)})
                           : ir::intern_global(m_, Op::OpConstant, t, {uint32_t(v)});
    };
    uint32_t limit_var = m_.take_id();
    auto& e = f.blocks.front().instructions;
    e.insert(e.begin(), Instruction(Op::OpVariable, t_ptr(spv::StorageClass::Function, t), limit_var,
                                    {uint32_t(spv::StorageClass::Function)}));
    // limit = start + kYieldAt * step, saturated at the type's largest value.
    uint64_t span = uint64_t(kYieldAt) * c.step;
    uint64_t max = c.is_signed ? (c.width == 64 ? uint64_t(INT64_MAX) : uint64_t(INT32_MAX))
                               : (c.width == 64 ? UINT64_MAX : uint64_t(UINT32_MAX));
    uint32_t start = emit(hub, Op::OpLoad, t, {c.var});
    uint32_t room = emit(hub, c.is_signed ? Op::OpSGreaterThan : Op::OpUGreaterThan, boolean, {start, constant(max - span)});
    uint32_t limit = emit(hub, Op::OpSelect, t, {room, constant(max), emit(hub, Op::OpIAdd, t, {start, constant(span)})});
    hub.emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{limit_var, limit});
    // The test: stays only below the limit too.
    Block* b = f.find_block(c.test_block);
    b->instructions.pop_back();
    auto& in = b->instructions;
    uint32_t lim = emit(in, Op::OpLoad, t, {limit_var});
    uint32_t under = emit(in, c.is_signed ? Op::OpSLessThan : Op::OpULessThan, boolean, {c.value, lim});
    uint32_t leave = m_.take_id();
    if (c.exit_when_true) {
      uint32_t go = emit(in, Op::OpLogicalOr, boolean, {c.condition, emit(in, Op::OpLogicalNot, boolean, {under})});
      in.emplace_back(Op::OpBranchConditional, 0, 0, std::vector<uint32_t>{go, leave, c.stays});
      f.blocks.push_back(Block{leave, {Instruction(Op::OpBranchConditional, 0, 0, {c.condition, c.exit, stop})}});
    } else {
      uint32_t go = emit(in, Op::OpLogicalAnd, boolean, {c.condition, under});
      in.emplace_back(Op::OpBranchConditional, 0, 0, std::vector<uint32_t>{go, c.stays, leave});
      f.blocks.push_back(Block{leave, {Instruction(Op::OpBranchConditional, 0, 0, {c.condition, stop, c.exit})}});
    }
  }

  bool touches_local_memory(const ir::Function& f) {
    std::unordered_set<uint32_t> local;
    for (const auto& g : m_.globals)
      if (g.opcode == Op::OpVariable && spv::StorageClass(g.operands[0]) == spv::StorageClass::Workgroup)
        local.insert(g.result_id);
    for (const auto& p : f.parameters) {
      const Instruction* t = global(p.type_id);
      if (t && t->opcode == Op::OpTypePointer &&
          spv::StorageClass(t->operands[0]) == spv::StorageClass::Workgroup)
        return true;
    }
    std::unordered_map<uint32_t, const ir::Function*> by_id;
    for (const auto& g : m_.functions) by_id[g.id()] = &g;
    std::unordered_set<uint32_t> seen = {f.id()};
    std::vector<const ir::Function*> work = {&f};
    while (!work.empty()) {
      const ir::Function* g = work.back();
      work.pop_back();
      for (const Block& b : g->blocks)
        for (const Instruction& i : b.instructions) {
          if (i.opcode == Op::OpFunctionCall && !seen.count(i.operands[0]) && by_id.count(i.operands[0])) {
            seen.insert(i.operands[0]);
            work.push_back(by_id[i.operands[0]]);
          }
          for (uint32_t o : i.operands)
            if (local.count(o)) return true;
        }
    }
    return false;
  }

  // Liveness over blocks (there are no phis left), then every value live into a target
  // block is stored to a variable where it is made and loaded where it is used.
  void demote_live_values(ir::Function& f, const std::set<uint32_t>& targets,
                          const std::unordered_set<uint32_t>& kept) {
    std::unordered_set<uint32_t> local_defs;
    for (const Block& b : f.blocks)
      for (const Instruction& i : b.instructions)
        if (i.result_id && i.type_id && i.opcode != Op::OpVariable && !kept.count(i.result_id))
          local_defs.insert(i.result_id);
    size_t n = f.blocks.size();
    std::vector<std::set<uint32_t>> use(n), def(n);
    for (size_t b = 0; b < n; ++b)
      for (const Instruction& i : f.blocks[b].instructions) {
        for (size_t k : id_operands(m_, f, i))
          if (local_defs.count(i.operands[k]) && !def[b].count(i.operands[k])) use[b].insert(i.operands[k]);
        if (i.result_id && local_defs.count(i.result_id)) def[b].insert(i.result_id);
      }
    Cfg cfg(m_, f);
    std::vector<std::set<uint32_t>> live_in = live_into_blocks(cfg, use, def);
    std::set<uint32_t> demoted;
    for (uint32_t t : targets) {
      int b = cfg.index(t);
      if (b >= 0) demoted.insert(live_in[b].begin(), live_in[b].end());
    }
    if (demoted.empty()) return;
    std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> var_of;  // value -> (var, type)
    for (const Block& b : f.blocks)
      for (const Instruction& i : b.instructions)
        if (demoted.count(i.result_id)) var_of[i.result_id] = {new_variable_later(i.type_id), i.type_id};
    for (Block& b : f.blocks) {
      std::vector<Instruction> out;
      for (Instruction& i : b.instructions) {
        std::unordered_map<uint32_t, uint32_t> loaded;
        for (size_t k : id_operands(m_, f, i)) {
          auto v = var_of.find(i.operands[k]);
          if (v == var_of.end()) continue;
          auto l = loaded.find(i.operands[k]);
          if (l == loaded.end()) {
            uint32_t id = m_.take_id();
            out.emplace_back(Op::OpLoad, v->second.second, id, std::vector<uint32_t>{v->second.first});
            l = loaded.emplace(i.operands[k], id).first;
          }
          i.operands[k] = l->second;
        }
        uint32_t result = i.result_id;
        out.push_back(std::move(i));
        auto v = var_of.find(result);
        if (v != var_of.end()) out.emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{v->second.first, result});
      }
      b.instructions = std::move(out);
    }
    flush_variables(f);
  }

  ir::Module& m_;
  PassContext& ctx_;
  uint32_t resume_set_ = 0;
  std::unordered_set<uint32_t> converging_;
  bool waits_found_ = false;  // transform_together() found loops without barriers to stop in
  std::unordered_set<uint32_t> library_looping_;
  std::unordered_map<uint32_t, ir::Function*> by_id_;
  std::unordered_map<uint32_t, uint32_t> masked_loops_;  // memo of masked_loops()
  std::unordered_map<uint32_t, uint32_t> counted_;  // library function -> its counting copy
  std::vector<ir::Function> counted_functions_;     // added to the module at the end
};

class ResumableLoopsPass : public Pass {
 public:
  const char* name() const override { return "resumable-loops"; }
  PassStatus Process(ir::Module& module, PassContext& context) override {
    if (!context.caps.loop_iteration_limit) return PassStatus::SuccessWithoutChange;
    // kSafeLoopPasses, a quarter of gallivm's 65535: what the limit counts (passes, back
    // edges, per batch of work-items that diverge) then never matters.
    context.bounded_kernels = bounded_kernels(module, kSafeLoopPasses);
    context.counted_loops = argument_bounded_kernels(module, kSafeLoopPasses);
    if (!context.resumable_loops) return PassStatus::SuccessWithoutChange;
    Resumer r(module, context);
    return r.run() ? PassStatus::SuccessWithChange : PassStatus::SuccessWithoutChange;
  }
};

}  // namespace

std::unique_ptr<Pass> create_resumable_loops_pass() { return std::make_unique<ResumableLoopsPass>(); }

}  // namespace vkcl::k2s
