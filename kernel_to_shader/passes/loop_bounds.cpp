#include "passes/loop_bounds.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "ir/cfg.h"
#include "passes/loop_arith.h"

namespace vkcl::k2s {

namespace {

using ir::Instruction;
using spv::Op;

static_assert(LaunchTerm::kConstant == uint32_t(Op::OpConstant) &&
              LaunchTerm::kArgument == uint32_t(Op::OpFunctionParameter) &&
              LaunchTerm::kBuiltIn == uint32_t(Op::OpVariable));

struct Constant {
  uint64_t value = 0;
  uint32_t width = 0;
};

// What one count shares across the functions it visits.
struct Memo {
  std::unordered_map<uint32_t, ir::Function*> functions;  // by id
  std::unordered_map<uint32_t, uint32_t> int_width;        // integer type -> width
  std::unordered_map<uint32_t, Constant> constants;        // integer constants
  std::unordered_map<uint32_t, spv::BuiltIn> builtins;     // built-in variable -> which
  std::unordered_map<uint32_t, bool> bools;                // OpConstantTrue and OpConstantFalse
  uint32_t opencl_std = 0;                                 // its OpExtInstImport
  // The storage class of every integer atomic's pointer (ids are unique in the module).
  std::unordered_map<uint32_t, spv::StorageClass> atomic_storage;
  // A 64-bit atomic on local memory (or through a generic pointer) somewhere in the module:
  // the kernels that make one see local memory as 64-bit words, where 32-bit atomics other
  // than and/or/xor become compare-exchange loops (wide_arena.cpp).
  bool wide_local_atomics = false;
  // Passes by function id (nullopt: unbounded, or being counted: a call cycle).
  std::unordered_map<uint32_t, std::optional<uint64_t>> passes;
};

std::optional<uint64_t> passes_of(const ir::Module& m, ir::Function& f, uint64_t cap, Memo* memo);

bool integer_atomic(Op op) {
  return uint32_t(op) >= uint32_t(Op::OpAtomicLoad) && uint32_t(op) <= uint32_t(Op::OpAtomicXor);
}

// Instructions the lowering may turn into loops of its own, which are not counted here:
// atomics (compare-exchange retries for float and wide-arena ones) and group operations
// (loops over the work-group's values). Integer atomics are one instruction of the device
// each (lower_memory.cpp) on global memory, and on local memory where the module has no
// 64-bit local atomic (Memo::wide_local_atomics): |native| says so for |op|.
bool lowered_with_loops(Op op, bool native) {
  const uint32_t o = uint32_t(op);
  return (integer_atomic(op) && !native) ||
         op == Op::OpAtomicFlagTestAndSet || op == Op::OpAtomicFlagClear || op == Op::OpAtomicFMinEXT ||
         op == Op::OpAtomicFMaxEXT || op == Op::OpAtomicFAddEXT ||
         (o >= uint32_t(Op::OpGroupAll) && o <= uint32_t(Op::OpGroupSMax)) ||
         (o >= uint32_t(Op::OpGroupNonUniformElect) && o <= uint32_t(Op::OpGroupNonUniformQuadSwap)) ||
         (o >= uint32_t(Op::OpGroupIMulKHR) && o <= uint32_t(Op::OpGroupLogicalXorKHR));
}

using namespace loop_arith;

class Bounds {
  // An induction variable: from |start| by |step_op| with |step| (launch values).
  struct Induction {
    std::vector<LaunchTerm> start, step;
    Op step_op = Op::OpNop;
    uint32_t width = 0;
    bool tests_next = false;  // the test reads the value after this iteration's step
  };

 public:
  Bounds(const ir::Module& m, ir::Function& f, uint64_t cap, Memo* memo)
      : m_(m), f_(f), cfg_(m, f), cap_(cap), memo_(memo), int_width_(memo->int_width),
        constants_(memo->constants) {
    for (ir::Block& b : f.blocks)
      for (const Instruction& i : b.instructions)
        if (i.result_id) defs_[i.result_id] = &i;
  }

  // The function's loop header passes per work-item (nested loops multiplied, calls
  // added), at most cap_. With |counted|, loops may be bounded by the function's parameters
  // too, those that |arguments| maps to the kernel's arguments (by parameter index;
  // UINT32_MAX: not one), also in the functions it calls: the terms a launch counts go
  // there (and 0 is returned).
  std::optional<uint64_t> run(std::vector<CountedLoop>* counted = nullptr,
                              const std::vector<uint32_t>* arguments = nullptr, int depth = 0) {
    arguments_ = arguments;
    for (const ir::Block& b : f_.blocks)
      for (const Instruction& i : b.instructions)
        if (lowered_with_loops(i.opcode, integer_atomic(i.opcode) && native_atomic(i.operands[0])))
          return std::nullopt;
    // Natural loops: a back edge goes to a block that dominates its source; any other
    // retreating edge is an irreducible cycle, which has no header to count.
    std::map<int, std::vector<int>> latches;  // header -> back edge sources
    for (int u : cfg_.rpo())
      for (int v : cfg_.successors(u))
        if (cfg_.rpo_number(v) <= cfg_.rpo_number(u)) {
          if (!cfg_.dominates(v, u)) return std::nullopt;
          latches[v].push_back(u);
        }
    std::vector<std::pair<int, std::set<int>>> loops;  // header, body
    std::vector<uint64_t> passes;
    std::vector<CountedLoop> terms;
    for (const auto& [header, from] : latches) {
      std::set<int> body = {header};
      std::vector<int> work(from.begin(), from.end());
      while (!work.empty()) {
        int b = work.back();
        work.pop_back();
        if (!body.insert(b).second) continue;
        for (int p : cfg_.predecessors(b))
          if (cfg_.reachable(p)) work.push_back(p);
      }
      std::optional<uint64_t> n = header_passes(header, from, body);
      CountedLoop term;
      if (n)
        term.passes = *n;
      else if (!counted || !launch_passes(header, from, body, &term))
        return std::nullopt;
      loops.emplace_back(header, std::move(body));
      passes.push_back(n ? *n : 0);
      terms.push_back(std::move(term));
    }
    if (counted) {
      auto enclosing = [&](int block, int own_header) {
        std::vector<uint32_t> around;
        for (size_t o = 0; o < loops.size(); ++o)
          if (loops[o].first != own_header && loops[o].second.count(block)) around.push_back(uint32_t(o));
        return around;
      };
      for (size_t l = 0; l < loops.size(); ++l) terms[l].enclosing = enclosing(loops[l].first, loops[l].first);
      for (int b : cfg_.rpo())
        for (const Instruction& i : cfg_.block(b).instructions) {
          if (i.opcode != Op::OpFunctionCall) continue;
          auto callee = memo_->functions.find(i.operands[0]);
          if (callee == memo_->functions.end()) continue;
          std::optional<uint64_t> n = passes_of(m_, *callee->second, cap_, memo_);
          if (n) {
            if (!*n) continue;
            CountedLoop call;
            call.passes = *n;
            call.enclosing = enclosing(b, -1);
            terms.push_back(std::move(call));
            continue;
          }
          // A callee bounded by what it is passed (the translator's entry point wrapper
          // passes a kernel's parameters on to its body): its terms, once per pass of the
          // loops around the call.
          if (depth >= 8 || callee->second->blocks.empty()) return std::nullopt;
          std::vector<uint32_t> passed(callee->second->parameters.size(), UINT32_MAX);
          for (size_t a = 1; a < i.operands.size() && a - 1 < passed.size(); ++a)
            for (size_t p = 0; p < f_.parameters.size(); ++p)
              if (f_.parameters[p].result_id == i.operands[a] && arguments_ && p < arguments_->size())
                passed[a - 1] = (*arguments_)[p];
          std::vector<CountedLoop> inner;
          if (!Bounds(m_, *callee->second, cap_, memo_).run(&inner, &passed, depth + 1)) return std::nullopt;
          const uint32_t base = uint32_t(terms.size());
          const std::vector<uint32_t> around = enclosing(b, -1);
          for (CountedLoop& t : inner) {
            for (uint32_t& e : t.enclosing) e += base;
            t.enclosing.insert(t.enclosing.end(), around.begin(), around.end());
            terms.push_back(std::move(t));
          }
        }
      *counted = std::move(terms);
      return 0;
    }
    // Each loop runs once per pass through the header of every loop around it, and so
    // does each call, with the passes of the function it calls.
    uint64_t total = 0;
    auto add = [&](int block, uint64_t n, int own_header) {
      for (size_t o = 0; o < loops.size(); ++o)
        if (loops[o].first != own_header && loops[o].second.count(block)) {
          if (n > cap_ / std::max<uint64_t>(passes[o], 1)) return false;
          n *= passes[o];
        }
      total += n;
      return total <= cap_;
    };
    for (size_t l = 0; l < loops.size(); ++l)
      if (!add(loops[l].first, passes[l], loops[l].first)) return std::nullopt;
    for (int b : cfg_.rpo())
      for (const Instruction& i : cfg_.block(b).instructions) {
        if (i.opcode != Op::OpFunctionCall) continue;
        auto callee = memo_->functions.find(i.operands[0]);
        if (callee == memo_->functions.end()) continue;  // a declaration: no loops of the module's
        std::optional<uint64_t> n = passes_of(m_, *callee->second, cap_, memo_);
        if (!n || (*n && !add(b, *n, -1))) return std::nullopt;
      }
    return total;
  }

 private:
  bool native_atomic(uint32_t pointer) const {
    auto found = memo_->atomic_storage.find(pointer);
    const spv::StorageClass c =
        found == memo_->atomic_storage.end() ? spv::StorageClass::Max : found->second;
    return c == spv::StorageClass::CrossWorkgroup ||
           ((c == spv::StorageClass::Workgroup || c == spv::StorageClass::Generic) && !memo_->wide_local_atomics);
  }

  // Passes through |header| per entry into its loop, found by running the induction
  // variable's test until it leaves (at most cap_ times).
  std::optional<uint64_t> header_passes(int header, const std::vector<int>& from, const std::set<int>& body) {
    for (auto [condition, true_leaves] : exit_tests(from, body))
      if (auto n = test_passes(header, from, condition, true_leaves)) return n;
    return std::nullopt;
  }

  // The loop's exiting tests: conditional branches out of it in blocks every iteration
  // passes on its way to a back edge; their conditions, and whether true leaves.
  std::vector<std::pair<uint32_t, bool>> exit_tests(const std::vector<int>& from, const std::set<int>& body) {
    std::vector<std::pair<uint32_t, bool>> tests;
    for (int e : body) {
      bool on_every_iteration = true;
      for (int l : from) on_every_iteration = on_every_iteration && cfg_.dominates(e, l);
      const ir::Block& b = cfg_.block(e);
      if (!on_every_iteration || b.instructions.empty()) continue;
      const Instruction& t = b.instructions.back();
      if (t.opcode != Op::OpBranchConditional) continue;
      const bool true_leaves = !body.count(cfg_.index(t.operands[1]));
      const bool false_leaves = !body.count(cfg_.index(t.operands[2]));
      if (true_leaves != false_leaves) add_exit_test(t.operands[0], true_leaves, &tests);
    }
    return tests;
  }

  // |condition| and, where the loop stays only while all of several tests pass (`a && b`,
  // which clang makes of a loop's own test and a `break` before it), or leaves as soon as
  // one of them does (`a || b`), each of those: any one of them alone bounds the loop.
  void add_exit_test(uint32_t condition, bool leaves_on_true, std::vector<std::pair<uint32_t, bool>>* tests,
                     int depth = 0) {
    tests->emplace_back(condition, leaves_on_true);
    auto d = defs_.find(condition);
    if (depth > 4 || d == defs_.end()) return;
    const Instruction& i = *d->second;
    uint32_t a = 0, b = 0;
    if (i.opcode == Op::OpLogicalNot && i.operands.size() == 1) {
      add_exit_test(i.operands[0], !leaves_on_true, tests, depth + 1);
      return;
    }
    // a && b: OpLogicalAnd, or OpSelect(a, b, false); a || b: OpLogicalOr, or OpSelect(a, true, b).
    const bool is_and = i.opcode == Op::OpLogicalAnd ||
                        (i.opcode == Op::OpSelect && i.operands.size() == 3 && bool_constant(i.operands[2]) == false);
    const bool is_or = i.opcode == Op::OpLogicalOr ||
                       (i.opcode == Op::OpSelect && i.operands.size() == 3 && bool_constant(i.operands[1]) == true);
    if (is_and && !leaves_on_true) {
      a = i.operands[0];
      b = i.operands[1];
    } else if (is_or && leaves_on_true) {
      a = i.operands[0];
      b = i.operands[i.opcode == Op::OpSelect ? 2 : 1];
    } else {
      return;
    }
    add_exit_test(a, leaves_on_true, tests, depth + 1);
    add_exit_test(b, leaves_on_true, tests, depth + 1);
  }

  std::optional<bool> bool_constant(uint32_t id) const {
    auto b = memo_->bools.find(id);
    if (b == memo_->bools.end()) return std::nullopt;
    return b->second;
  }

  std::optional<uint64_t> test_passes(int header, const std::vector<int>& from, uint32_t condition, bool leaves_on_true) {
    auto c = defs_.find(condition);
    if (c == defs_.end() || c->second->operands.size() != 2) return std::nullopt;
    const Instruction& test = *c->second;
    // One side a constant (or one of a few constants), the other the induction variable or
    // its next value.
    for (int side = 0; side < 2; ++side) {
      const std::optional<std::set<uint64_t>> bounds = constant_values(test.operands[1 - side]);
      if (!bounds) continue;
      Induction iv;
      if (!induction(header, from, test.operands[side], &iv)) continue;
      std::optional<uint64_t> v = constant_of(iv.start), step = constant_of(iv.step);
      if (!v || !step) continue;
      CountedLoop loop;
      loop.step_op = uint32_t(iv.step_op);
      loop.compare_op = uint32_t(test.opcode);
      loop.width = iv.width;
      loop.tests_next = iv.tests_next;
      loop.bound_first = side == 1;
      loop.leaves_on = leaves_on_true;
      uint64_t most = 0;
      for (uint64_t bound : *bounds) {
        std::optional<uint64_t> n = header_passes_from(loop, *v, *step, bound, cap_);
        if (!n) return std::nullopt;
        most = std::max(most, *n);
      }
      return most;
    }
    return std::nullopt;
  }

  // The values |value| can have where it is one of a few constants: a constant, or phis and
  // selects of such values and sums and differences of them, outside any cycle (x264's
  // `for (i = 0; i < i_mvc; i++)`, where i_mvc was counted up from 0 by up to four ifs).
  const std::optional<std::set<uint64_t>>& constant_values(uint32_t value) {
    if (auto known = values_.find(value); known != values_.end()) return known->second;
    values_[value] = std::nullopt;  // until found: a value met again on the way is in a cycle
    std::optional<std::set<uint64_t>> found = find_constant_values(value);
    if (found && found->size() > 16) found.reset();
    return values_[value] = std::move(found);
  }

  std::optional<std::set<uint64_t>> find_constant_values(uint32_t value) {
    if (auto k = constants_.find(value); k != constants_.end()) return std::set<uint64_t>{k->second.value};
    auto d = defs_.find(value);
    if (d == defs_.end() || !int_width_.count(d->second->type_id)) return std::nullopt;
    const Instruction& i = *d->second;
    std::set<uint64_t> out;
    auto add = [&](uint32_t operand) {
      const auto& v = constant_values(operand);
      if (v) out.insert(v->begin(), v->end());
      return v.has_value();
    };
    switch (i.opcode) {
      case Op::OpPhi:
        for (size_t o = 0; o + 1 < i.operands.size(); o += 2)
          if (!add(i.operands[o])) return std::nullopt;
        return out;
      case Op::OpSelect:
        if (i.operands.size() != 3 || !add(i.operands[1]) || !add(i.operands[2])) return std::nullopt;
        return out;
      case Op::OpIAdd:
      case Op::OpISub:
      case Op::OpIMul:
      case Op::OpBitwiseOr:  // (clang's `n + 2` where n's bit 1 is known clear)
      case Op::OpBitwiseAnd:
      case Op::OpBitwiseXor:
      case Op::OpShiftLeftLogical: {
        if (i.operands.size() != 2) return std::nullopt;
        const auto a = constant_values(i.operands[0]);
        const auto b = constant_values(i.operands[1]);
        if (!a || !b || a->size() * b->size() > 16) return std::nullopt;
        const uint32_t width = int_width_[i.type_id];
        const uint64_t mask = width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
        for (uint64_t x : *a)
          for (uint64_t y : *b) {
            uint64_t r = 0;
            switch (i.opcode) {
              case Op::OpIAdd: r = x + y; break;
              case Op::OpISub: r = x - y; break;
              case Op::OpIMul: r = x * y; break;
              case Op::OpBitwiseOr: r = x | y; break;
              case Op::OpBitwiseAnd: r = x & y; break;
              case Op::OpBitwiseXor: r = x ^ y; break;
              default:
                if (y >= width) return std::nullopt;  // undefined in SPIR-V
                r = x << y;
                break;
            }
            out.insert(r & mask);
          }
        return out;
      }
      default: return std::nullopt;
    }
  }

  // Like header_passes, for loops whose start, step or bound are not all constants but values
  // a launch knows (the function's scalar integer parameters that are the kernel's, built-in
  // sizes and ids): what the launch needs to count the passes.
  bool launch_passes(int header, const std::vector<int>& from, const std::set<int>& body, CountedLoop* out) {
    for (auto [condition, true_leaves] : exit_tests(from, body)) {
      auto c = defs_.find(condition);
      if (c == defs_.end() || c->second->operands.size() != 2 || !compare(c->second->opcode, 0, 0, 32)) continue;
      const Instruction& test = *c->second;
      for (int side = 0; side < 2; ++side) {
        CountedLoop term;
        Induction iv;
        if (!offset_induction(header, from, test.operands[side], &iv)) continue;
        if (!launch_value(test.operands[1 - side], &term.bound)) continue;
        term.start = std::move(iv.start);
        term.step = std::move(iv.step);
        term.step_op = uint32_t(iv.step_op);
        term.width = iv.width;
        term.tests_next = iv.tests_next;
        term.compare_op = uint32_t(test.opcode);
        term.bound_first = side == 1;
        term.leaves_on = true_leaves;
        *out = std::move(term);
        return true;
      }
    }
    return false;
  }

  // Like induction(), or that plus or minus a launch value (`while (idx + 4 < n)`): an
  // induction variable that starts that much higher or lower.
  bool offset_induction(int header, const std::vector<int>& from, uint32_t value, Induction* out) {
    if (induction(header, from, value, out)) return true;
    auto d = defs_.find(value);
    if (d == defs_.end() || d->second->operands.size() != 2) return false;
    const Instruction& i = *d->second;
    if (i.opcode != Op::OpIAdd && i.opcode != Op::OpISub) return false;
    for (int side = 0; side < (i.opcode == Op::OpIAdd ? 2 : 1); ++side) {
      Induction iv;
      std::vector<LaunchTerm> offset;
      if (!induction(header, from, i.operands[side], &iv) || !launch_value(i.operands[1 - side], &offset)) continue;
      iv.start.insert(iv.start.end(), offset.begin(), offset.end());
      iv.start.push_back({uint32_t(i.opcode), iv.width, 0});
      *out = std::move(iv);
      return true;
    }
    return false;
  }

  // OpSelect(x > y, x, y) and its kin: the OpenCL.std s_max, u_max, s_min or u_min it is.
  std::optional<uint32_t> select_min_max(const Instruction& select) {
    if (select.opcode != Op::OpSelect || select.operands.size() != 3) return std::nullopt;
    auto c = defs_.find(select.operands[0]);
    if (c == defs_.end() || c->second->operands.size() != 2) return std::nullopt;
    const Instruction& test = *c->second;
    const uint32_t x = select.operands[1], y = select.operands[2];
    bool same = test.operands[0] == x && test.operands[1] == y;
    if (!same && !(test.operands[0] == y && test.operands[1] == x)) return std::nullopt;
    bool is_signed, greater;
    switch (test.opcode) {
      case Op::OpSGreaterThan: case Op::OpSGreaterThanEqual: is_signed = true; greater = true; break;
      case Op::OpSLessThan: case Op::OpSLessThanEqual: is_signed = true; greater = false; break;
      case Op::OpUGreaterThan: case Op::OpUGreaterThanEqual: is_signed = false; greater = true; break;
      case Op::OpULessThan: case Op::OpULessThanEqual: is_signed = false; greater = false; break;
      default: return std::nullopt;
    }
    // Picking the greater of the two when the test says the first is greater is a max.
    const bool is_max = greater == same;
    return uint32_t(is_max ? (is_signed ? 156 : 157) : (is_signed ? 158 : 159));
  }

  // Whether |value| is computed from constants, parameters the kernel's arguments give and
  // the launch's built-ins alone (so it is the same on every pass of any loop): its terms,
  // appended to |out|.
  bool launch_value(uint32_t value, std::vector<LaunchTerm>* out, int depth = 0) {
    if (depth > 16 || out->size() > 64) return false;
    if (auto k = constants_.find(value); k != constants_.end()) {
      out->push_back({uint32_t(Op::OpConstant), k->second.width, k->second.value});
      return true;
    }
    for (size_t p = 0; p < f_.parameters.size(); ++p) {
      const Instruction& param = f_.parameters[p];
      if (param.result_id != value) continue;
      if (!int_width_.count(param.type_id) || !arguments_ || p >= arguments_->size() ||
          (*arguments_)[p] == UINT32_MAX)
        return false;
      out->push_back({uint32_t(Op::OpFunctionParameter), int_width_[param.type_id], (*arguments_)[p]});
      return true;
    }
    auto d = defs_.find(value);
    if (d == defs_.end() || !int_width_.count(d->second->type_id)) return false;
    const Instruction& i = *d->second;
    const uint32_t width = int_width_[i.type_id];
    if (auto builtin = builtin_of(i)) {
      out->push_back({uint32_t(Op::OpVariable), width, *builtin});
      return true;
    }
    const Op op = i.opcode;
    if ((op == Op::OpUConvert || op == Op::OpSConvert) && i.operands.size() == 1) {
      if (!launch_value(i.operands[0], out, depth + 1)) return false;
    } else if (binary_launch_op(op) && i.operands.size() == 2) {
      if (!launch_value(i.operands[0], out, depth + 1) || !launch_value(i.operands[1], out, depth + 1)) return false;
    } else if (op == Op::OpExtInst && i.operands.size() == 4 && i.operands[0] == memo_->opencl_std &&
               min_max_op(i.operands[1])) {
      // (min(interval_begin + interval_size, n): PyOpenCL's scan.)
      if (!launch_value(i.operands[2], out, depth + 1) || !launch_value(i.operands[3], out, depth + 1)) return false;
      out->push_back({uint32_t(op), width, i.operands[1]});
      return true;
    } else if (std::optional<uint32_t> code = select_min_max(i)) {
      // (LLVM's loop exit `i == smax(n, 0)` for `i < n`, as a select.)
      if (!launch_value(i.operands[1], out, depth + 1) || !launch_value(i.operands[2], out, depth + 1)) return false;
      out->push_back({uint32_t(Op::OpExtInst), width, *code});
      return true;
    } else {
      return false;
    }
    out->push_back({uint32_t(op), width, 0});
    return true;
  }

  // |i| reads one component of a built-in whose launch value evaluate() knows (a loaded
  // vector's component, a load through an access chain, a scalar's load): the built-in in
  // the low word, its dimension in the high one.
  std::optional<uint64_t> builtin_of(const Instruction& i) {
    uint32_t dimension = 0, pointer = 0;
    if (i.opcode == Op::OpCompositeExtract && i.operands.size() == 2) {
      auto load = defs_.find(i.operands[0]);
      if (load == defs_.end() || load->second->opcode != Op::OpLoad) return std::nullopt;
      pointer = load->second->operands[0];
      dimension = i.operands[1];
    } else if (i.opcode == Op::OpLoad) {
      pointer = i.operands[0];
      auto chain = defs_.find(pointer);
      if (chain != defs_.end()) {
        const Instruction& a = *chain->second;
        if ((a.opcode != Op::OpAccessChain && a.opcode != Op::OpInBoundsAccessChain) || a.operands.size() != 2)
          return std::nullopt;
        auto k = constants_.find(a.operands[1]);
        if (k == constants_.end()) return std::nullopt;
        pointer = a.operands[0];
        dimension = uint32_t(k->second.value);
      }
    } else {
      return std::nullopt;
    }
    auto b = memo_->builtins.find(pointer);
    if (b == memo_->builtins.end() || dimension > 2) return std::nullopt;
    switch (b->second) {
      case spv::BuiltIn::GlobalInvocationId: case spv::BuiltIn::LocalInvocationId: case spv::BuiltIn::WorkgroupId:
      case spv::BuiltIn::WorkgroupSize: case spv::BuiltIn::EnqueuedWorkgroupSize: case spv::BuiltIn::NumWorkgroups:
      case spv::BuiltIn::GlobalSize: case spv::BuiltIn::GlobalOffset: case spv::BuiltIn::WorkDim:
      case spv::BuiltIn::GlobalLinearId: case spv::BuiltIn::LocalInvocationIndex:
        return uint64_t(b->second) | uint64_t(dimension) << 32;
      default: return std::nullopt;
    }
  }

 private:
  static std::optional<uint64_t> constant_of(const std::vector<LaunchTerm>& terms) {
    if (terms.size() != 1 || terms[0].op != uint32_t(Op::OpConstant)) return std::nullopt;
    return terms[0].value;
  }

  // Whether |value| is a phi of |header| that starts at the same launch value on every edge
  // from outside and comes back as one operation of itself with a launch value on every back
  // edge, or that operation's result.
  bool induction(int header, const std::vector<int>& from, uint32_t value, Induction* out) {
    auto d = defs_.find(value);
    if (d == defs_.end()) return false;
    const Instruction* phi = d->second;
    uint32_t next = 0;
    if (phi->opcode != Op::OpPhi) {
      next = value;
      uint32_t base = 0;
      if (!step_of(*phi, 0, &base, nullptr, nullptr)) return false;
      auto p = defs_.find(base);
      if (p == defs_.end()) return false;
      phi = p->second;
      out->tests_next = true;
    }
    if (phi->opcode != Op::OpPhi || !int_width_.count(phi->type_id)) return false;
    const ir::Block& h = cfg_.block(header);
    if (std::none_of(h.instructions.begin(), h.instructions.end(), [&](const Instruction& i) { return &i == phi; }))
      return false;
    out->width = int_width_[phi->type_id];
    bool started = false, stepped = false;
    for (size_t k = 0; k + 1 < phi->operands.size(); k += 2) {
      const uint32_t incoming = phi->operands[k];
      const int pred = cfg_.index(phi->operands[k + 1]);
      if (std::find(from.begin(), from.end(), pred) != from.end()) {
        if (next && incoming != next) return false;
        next = incoming;
        Op op = Op::OpNop;
        std::vector<LaunchTerm> step;
        auto n = defs_.find(incoming);
        if (n == defs_.end() || !step_of(*n->second, phi->result_id, nullptr, &op, &step)) return false;
        if (stepped && (op != out->step_op || step != out->step)) return false;
        out->step_op = op;
        out->step = std::move(step);
        stepped = true;
      } else if (cfg_.reachable(pred)) {
        std::vector<LaunchTerm> start;
        if (!launch_value(incoming, &start) || (started && start != out->start)) return false;
        out->start = std::move(start);
        started = true;
      }
    }
    return started && stepped;
  }

  // |i| is one operation of a base value (|want_base| where not 0, else a phi) with a launch
  // value (second, but for the commutative add and multiply): its base, operation and step.
  bool step_of(const Instruction& i, uint32_t want_base, uint32_t* base, Op* op_out, std::vector<LaunchTerm>* step) {
    const Op op = i.opcode;
    const bool commutes = op == Op::OpIAdd || op == Op::OpIMul;
    if (!commutes && op != Op::OpISub && op != Op::OpUDiv && op != Op::OpSDiv && op != Op::OpShiftLeftLogical &&
        op != Op::OpShiftRightLogical && op != Op::OpShiftRightArithmetic)
      return false;
    if (i.operands.size() != 2 || !int_width_.count(i.type_id)) return false;
    const uint32_t width = int_width_[i.type_id];
    for (int side = 0; side < 2; ++side) {
      if (side == 1 && !commutes) continue;
      const uint32_t b = i.operands[side];
      if (want_base ? b != want_base : [&] { auto p = defs_.find(b); return p == defs_.end() || p->second->opcode != Op::OpPhi; }())
        continue;
      std::vector<LaunchTerm> terms;
      if (!launch_value(i.operands[1 - side], &terms)) continue;
      // A constant step that makes no count (a division by 0 or -1, a shift by the width or
      // more) is not a step; other steps are checked when evaluated.
      if (std::optional<uint64_t> k = constant_of(terms); k && !exact(op, 1, *k, width)) return false;
      if (base) *base = b;
      if (op_out) *op_out = op;
      if (step) *step = std::move(terms);
      return true;
    }
    return false;
  }

 private:
  const ir::Module& m_;
  ir::Function& f_;
  ir::Cfg cfg_;
  uint64_t cap_;
  Memo* memo_;
  std::unordered_map<uint32_t, uint32_t>& int_width_;
  const std::unordered_map<uint32_t, Constant>& constants_;
  std::unordered_map<uint32_t, const Instruction*> defs_;
  std::unordered_map<uint32_t, std::optional<std::set<uint64_t>>> values_;  // constant_values()
  const std::vector<uint32_t>* arguments_ = nullptr;  // run()'s
};

std::optional<uint64_t> passes_of(const ir::Module& m, ir::Function& f, uint64_t cap, Memo* memo) {
  auto known = memo->passes.find(f.id());
  if (known != memo->passes.end()) return known->second;
  memo->passes[f.id()] = std::nullopt;  // while counting: a call back here is a cycle
  std::optional<uint64_t> n = f.blocks.empty() ? std::optional<uint64_t>(0) : Bounds(m, f, cap, memo).run();
  memo->passes[f.id()] = n;
  return n;
}

Memo make_memo(ir::Module& m) {
  Memo memo;
  for (ir::Function& g : m.functions) memo.functions[g.id()] = &g;
  std::unordered_map<uint32_t, uint32_t> pointer_class;  // pointer type -> storage class
  std::unordered_map<uint32_t, uint32_t> types;          // value -> its type
  for (const Instruction& g : m.globals) {
    if (g.opcode == Op::OpTypeInt) memo.int_width[g.result_id] = g.operands[0];
    if (g.opcode == Op::OpTypePointer) pointer_class[g.result_id] = g.operands[0];
    if (g.result_id && g.type_id) types[g.result_id] = g.type_id;
  }
  for (const ir::Function& f : m.functions) {
    for (const Instruction& p : f.parameters) types[p.result_id] = p.type_id;
    for (const ir::Block& b : f.blocks)
      for (const Instruction& i : b.instructions)
        if (i.result_id && i.type_id) types[i.result_id] = i.type_id;
  }
  auto type_of = [&](uint32_t id) { auto t = types.find(id); return t == types.end() ? 0u : t->second; };
  for (const ir::Function& f : m.functions)
    for (const ir::Block& b : f.blocks)
      for (const Instruction& i : b.instructions) {
        if (!integer_atomic(i.opcode) || i.operands.empty()) continue;
        auto c = pointer_class.find(type_of(i.operands[0]));
        const spv::StorageClass storage =
            c == pointer_class.end() ? spv::StorageClass::Max : spv::StorageClass(c->second);
        memo.atomic_storage[i.operands[0]] = storage;
        // The value's type: the result's, or for a store its value operand's.
        const bool store = i.opcode == Op::OpAtomicStore && i.operands.size() > 3;
        auto w = memo.int_width.find(store ? type_of(i.operands[3]) : i.type_id);
        if ((w == memo.int_width.end() || w->second == 64) && storage != spv::StorageClass::CrossWorkgroup)
          memo.wide_local_atomics = true;
      }
  for (const Instruction& e : m.ext_inst_imports)
    if (ir::decode_string(e.operands, 0) == "OpenCL.std") memo.opencl_std = e.result_id;
  for (const Instruction& a : m.annotations)
    if (a.opcode == Op::OpDecorate && a.operands.size() == 3 && spv::Decoration(a.operands[1]) == spv::Decoration::BuiltIn)
      memo.builtins[a.operands[0]] = spv::BuiltIn(a.operands[2]);
  for (const Instruction& g : m.globals)
    if (g.opcode == Op::OpConstantTrue || g.opcode == Op::OpConstantFalse)
      memo.bools[g.result_id] = g.opcode == Op::OpConstantTrue;
  for (const Instruction& g : m.globals)
    if (g.opcode == Op::OpConstant && memo.int_width.count(g.type_id)) {
      const uint32_t width = memo.int_width[g.type_id];
      uint64_t v = g.operands[0];
      if (width > 32 && g.operands.size() > 1) v |= uint64_t(g.operands[1]) << 32;
      memo.constants[g.result_id] = {v, width};
    }
  return memo;
}

}  // namespace

std::set<uint32_t> bounded_kernels(ir::Module& m, uint64_t cap) {
  Memo memo = make_memo(m);
  std::set<uint32_t> bounded;
  for (const Instruction& ep : m.entry_points) {
    if (spv::ExecutionModel(ep.operands[0]) != spv::ExecutionModel::Kernel) continue;
    auto f = memo.functions.find(ep.operands[1]);
    if (f != memo.functions.end() && passes_of(m, *f->second, cap, &memo)) bounded.insert(ep.operands[1]);
  }
  return bounded;
}

std::map<uint32_t, std::vector<CountedLoop>> argument_bounded_kernels(ir::Module& m, uint64_t cap) {
  Memo memo = make_memo(m);
  std::map<uint32_t, std::vector<CountedLoop>> counted;
  for (const Instruction& ep : m.entry_points) {
    if (spv::ExecutionModel(ep.operands[0]) != spv::ExecutionModel::Kernel) continue;
    auto f = memo.functions.find(ep.operands[1]);
    if (f == memo.functions.end() || f->second->blocks.empty() || passes_of(m, *f->second, cap, &memo)) continue;
    std::vector<CountedLoop> terms;
    std::vector<uint32_t> arguments(f->second->parameters.size());
    for (size_t p = 0; p < arguments.size(); ++p) arguments[p] = uint32_t(p);
    if (Bounds(m, *f->second, cap, &memo).run(&terms, &arguments) && !terms.empty())
      counted[ep.operands[1]] = std::move(terms);
  }
  return counted;
}

}  // namespace vkcl::k2s
