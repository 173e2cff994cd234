// Counting a kernel's loop passes at launch (count_loop_passes in translate.h), from the
// terms loop_bounds.cpp found when translating it and the launch's arguments and NDRange.
#include <algorithm>
#include <functional>
#include <vector>

#include "passes/loop_arith.h"
#include "passes/loop_bounds.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::k2s {

using namespace loop_arith;

namespace {

// The values a launch value may take: from |lo| to |hi|, unsigned.
struct Range {
  uint64_t lo = 0, hi = 0;
};

std::optional<Range> builtin_range(uint64_t which, const LaunchGeometry& g) {
  const uint32_t d = uint32_t(which >> 32);
  if (d > 2) return std::nullopt;
  const uint64_t global = g.global[d], local = g.local[d], offset = g.offset[d];
  if (!global || !local) return std::nullopt;
  const uint64_t groups = (global + local - 1) / local;
  switch (spv::BuiltIn(uint32_t(which))) {
    case spv::BuiltIn::GlobalInvocationId: return Range{offset, offset + global - 1};
    case spv::BuiltIn::LocalInvocationId: return Range{0, local - 1};
    case spv::BuiltIn::WorkgroupId: return Range{0, groups - 1};
    // (The last work-group of a non-uniform NDRange is smaller.)
    case spv::BuiltIn::WorkgroupSize: return Range{global % local ? global % local : local, local};
    case spv::BuiltIn::EnqueuedWorkgroupSize: return Range{local, local};
    case spv::BuiltIn::NumWorkgroups: return Range{groups, groups};
    case spv::BuiltIn::GlobalSize: return Range{global, global};
    case spv::BuiltIn::GlobalOffset: return Range{offset, offset};
    case spv::BuiltIn::WorkDim: return Range{g.work_dim, g.work_dim};
    case spv::BuiltIn::GlobalLinearId: return Range{0, g.global[0] * g.global[1] * g.global[2] - 1};
    case spv::BuiltIn::LocalInvocationIndex: return Range{0, g.local[0] * g.local[1] * g.local[2] - 1};
    default: return std::nullopt;
  }
}

// Where the values of |a| op |b| lie, |width| bits, from where theirs do: exact for single
// values, else only where the operation is monotonic and nothing wraps around.
std::optional<Range> combine(Op op, Range a, Range b, uint32_t width) {
  if (a.lo == a.hi && b.lo == b.hi) {
    std::optional<uint64_t> v = exact(op, a.lo, b.lo, width);
    if (!v) return std::nullopt;
    return Range{*v, *v};
  }
  const unsigned __int128 top = type_top(width, false);
  const bool single_b = b.lo == b.hi;
  switch (op) {
    case Op::OpIAdd:
      if ((unsigned __int128)a.hi + b.hi > top) return std::nullopt;
      return Range{a.lo + b.lo, a.hi + b.hi};
    case Op::OpISub:
      if (a.lo < b.hi) return std::nullopt;
      return Range{a.lo - b.hi, a.hi - b.lo};
    case Op::OpIMul:
      if ((unsigned __int128)a.hi * b.hi > top) return std::nullopt;
      return Range{a.lo * b.lo, a.hi * b.hi};
    case Op::OpUDiv:
      if (!single_b || !b.lo) return std::nullopt;
      return Range{a.lo / b.lo, a.hi / b.lo};
    case Op::OpShiftLeftLogical:
      if (!single_b || b.lo >= width || ((unsigned __int128)a.hi << b.lo) > top) return std::nullopt;
      return Range{a.lo << b.lo, a.hi << b.lo};
    case Op::OpShiftRightArithmetic:
      // (Only values that are not negative.)
      if (as_signed(a.hi, width) < 0) return std::nullopt;
      [[fallthrough]];
    case Op::OpShiftRightLogical:
      if (!single_b || b.lo >= width) return std::nullopt;
      return Range{a.lo >> b.lo, a.hi >> b.lo};
    case Op::OpBitwiseAnd:
      if (!single_b) return std::nullopt;
      return Range{0, std::min(a.hi, b.lo)};
    default: return std::nullopt;
  }
}

// OpenCL.std's min and max (|instruction|): monotonic in both operands, for values that are
// not negative where they compare signed.
std::optional<Range> combine_min_max(uint32_t instruction, Range a, Range b, uint32_t width) {
  if (a.lo == a.hi && b.lo == b.hi) {
    const uint64_t v = min_max(instruction, a.lo, b.lo, width);
    return Range{v, v};
  }
  const bool is_signed = instruction == 156 || instruction == 158;
  if (is_signed && (as_signed(a.hi, width) < 0 || as_signed(b.hi, width) < 0)) return std::nullopt;
  return Range{min_max(instruction, a.lo, b.lo, 64), min_max(instruction, a.hi, b.hi, 64)};
}

std::optional<Range> convert(Op op, Range a, uint32_t from, uint32_t to) {
  if (a.lo == a.hi) {
    const uint64_t v = op == Op::OpSConvert ? uint64_t(as_signed(a.lo, from)) : a.lo;
    return Range{wrap(v, to), wrap(v, to)};
  }
  // Values that keep their value: below 2^to when narrowing, not negative when sign-extending.
  if (to < from && wrap(a.hi, to) != a.hi) return std::nullopt;
  if (op == Op::OpSConvert && to > from && as_signed(a.hi, from) < 0) return std::nullopt;
  return a;
}

// A built-in (LaunchTerm::value of an OpVariable term) held at one value.
struct Fixed {
  uint64_t builtin = ~uint64_t(0);
  uint64_t value = 0;
};

std::optional<Range> evaluate(const std::vector<LaunchTerm>& terms,
                              const std::function<std::optional<uint64_t>(uint32_t)>& argument,
                              const LaunchGeometry* geometry, Fixed fixed = {}) {
  struct Value {
    Range range;
    uint32_t width;
  };
  std::vector<Value> stack;
  for (const LaunchTerm& t : terms) {
    const Op op = Op(t.op);
    std::optional<Range> r;
    if (op == Op::OpConstant) {
      r = Range{wrap(t.value, t.width), wrap(t.value, t.width)};
    } else if (op == Op::OpFunctionParameter) {
      std::optional<uint64_t> v = argument(uint32_t(t.value));
      if (v) r = Range{wrap(*v, t.width), wrap(*v, t.width)};
    } else if (op == Op::OpVariable) {
      if (t.value == fixed.builtin) r = Range{fixed.value, fixed.value};
      else if (geometry) r = builtin_range(t.value, *geometry);
      if (r && wrap(r->hi, t.width) != r->hi) r.reset();
    } else if (op == Op::OpUConvert || op == Op::OpSConvert) {
      if (stack.empty()) return std::nullopt;
      r = convert(op, stack.back().range, stack.back().width, t.width);
      stack.pop_back();
    } else {
      if (stack.size() < 2) return std::nullopt;
      const Range a = stack[stack.size() - 2].range, b = stack.back().range;
      r = op == Op::OpExtInst ? combine_min_max(uint32_t(t.value), a, b, t.width) : combine(op, a, b, t.width);
      stack.resize(stack.size() - 2);
    }
    if (!r) return std::nullopt;
    stack.push_back({*r, t.width});
  }
  if (stack.size() != 1) return std::nullopt;
  return stack[0].range;
}

// Header passes per entry into a loop that counts from |start| by |step| and leaves when
// |stays| is false, or nothing past |cap|.
bool signed_test(Op op) {
  return op == Op::OpSLessThan || op == Op::OpSLessThanEqual || op == Op::OpSGreaterThan ||
         op == Op::OpSGreaterThanEqual;
}

// Whether the loop's test holds |x| in: compares it with |bound| as the loop does.
bool stays(const CountedLoop& c, uint64_t x, uint64_t bound) {
  std::optional<bool> r = c.bound_first ? compare(Op(c.compare_op), bound, x, c.width)
                                        : compare(Op(c.compare_op), x, bound, c.width);
  return r && *r != c.leaves_on;
}

// header_passes_from()'s answer without running every step, for a variable that goes up by |step| and
// an ordered test, where it reaches no wrap-around before the test lets it go: the test
// holds below a threshold (or never), so the first pass it fails is found by halving. False
// where that does not apply (header_passes_from() then runs the steps); else |*passes| is the answer.
bool closed_form(const CountedLoop& c, uint64_t start, uint64_t step, uint64_t bound, uint64_t cap,
                 std::optional<uint64_t>* passes) {
  const Op op = Op(c.compare_op);
  if (Op(c.step_op) != Op::OpIAdd || op == Op::OpIEqual || op == Op::OpINotEqual || !compare(op, 0, 0, 32)) return false;
  const bool is_signed = signed_test(op);
  using Wide = __int128;
  const Wide top = Wide(type_top(c.width, is_signed));
  const Wide first = is_signed ? Wide(as_signed(start, c.width)) : Wide(wrap(start, c.width));
  const Wide by = Wide(wrap(step, c.width));
  if (by == 0 || by > top) return false;  // (a signed test: only steps that go up)
  // The value pass |p| (from 1) tests, while it stays at or below the top.
  auto tested = [&](uint64_t p) { return uint64_t(first + Wide(p - 1 + (c.tests_next ? 1 : 0)) * by); };
  if (first + (c.tests_next ? by : 0) > top) return false;
  *passes = 1;
  if (!stays(c, tested(1), bound)) return true;
  // The last pass before the variable would pass the top, or |cap|.
  const Wide room = (top - first) / by - (c.tests_next ? 1 : 0) + 1;
  const uint64_t last = room < Wide(cap) ? uint64_t(room) : cap;
  if (stays(c, tested(last), bound)) {
    *passes = std::nullopt;  // past the cap, or it wraps around first (header_passes_from() follows it)
    return last == cap;
  }
  uint64_t low = 1, high = last;  // the test holds at |low|, fails at |high|
  while (high - low > 1) {
    const uint64_t mid = low + (high - low) / 2;
    (stays(c, tested(mid), bound) ? low : high) = mid;
  }
  *passes = high;
  return true;
}


// The most header passes per entry any work-item makes in loop |c|, from where its start,
// step and bound lie.
std::optional<uint64_t> ranged_passes(const CountedLoop& c,
                                      const std::function<std::optional<uint64_t>(uint32_t)>& argument,
                                      const LaunchGeometry* geometry, uint64_t cap) {
  std::optional<Range> start = evaluate(c.start, argument, geometry), step = evaluate(c.step, argument, geometry),
                       bound = evaluate(c.bound, argument, geometry);
  if (!start || !step || !bound) return std::nullopt;
  if (start->lo == start->hi && step->lo == step->hi && bound->lo == bound->hi)
    return header_passes_from(c, start->lo, step->lo, bound->lo, cap);
  // Values that differ between work-items: only a variable that goes up, by at least 1,
  // without wrapping around, to an ordered bound that it stays below. The work-item that
  // starts lowest, stepping least, towards the highest bound, then makes the most passes.
  const Op compare_op = Op(c.compare_op);
  if (Op(c.step_op) != Op::OpIAdd || step->lo == 0 || compare_op == Op::OpIEqual || compare_op == Op::OpINotEqual)
    return std::nullopt;
  const uint64_t top = type_top(c.width, signed_test(compare_op));
  // Non-negative (in the test's view) bounds: the highest stays below the top with a step
  // added; a negative one (a single value) is below every start.
  if (bound->lo != bound->hi && bound->hi > top) return std::nullopt;
  const bool negative = bound->hi > top;
  if (start->hi > top || step->hi > top || start->hi + step->hi > top || stays(c, top, bound->hi) ||
      (!negative && bound->hi + step->hi > top))
    return std::nullopt;
  return header_passes_from(c, start->lo, step->lo, bound->hi, cap);
}

// The most passes over the values of built-in |varying| (a work-group's slice of the data:
// its start and bound both follow get_group_id, which ranged_passes takes apart), each
// counted, where they are few; nothing otherwise.
std::optional<uint64_t> enumerated_passes(const CountedLoop& c,
                                          const std::function<std::optional<uint64_t>(uint32_t)>& argument,
                                          const LaunchGeometry& geometry, uint64_t varying, uint64_t cap) {
  const Range values = *builtin_range(varying, geometry);
  // At most this many values, and loop tests in all: counting must stay cheaper than the
  // resuming it saves.
  constexpr uint64_t kMostValues = 4096, kMostTests = uint64_t(1) << 18;
  if (values.hi - values.lo >= kMostValues) return std::nullopt;
  uint64_t most = 0, tests = 0;
  for (uint64_t v = values.lo; v <= values.hi; ++v) {
    const Fixed fixed{varying, v};
    std::optional<Range> start = evaluate(c.start, argument, &geometry, fixed),
                         step = evaluate(c.step, argument, &geometry, fixed),
                         bound = evaluate(c.bound, argument, &geometry, fixed);
    if (!start || !step || !bound || start->lo != start->hi || step->lo != step->hi || bound->lo != bound->hi)
      return std::nullopt;
    std::optional<uint64_t> n = header_passes_from(c, start->lo, step->lo, bound->lo, cap);
    if (!n) return std::nullopt;
    most = std::max(most, *n);
    tests += *n;
    if (tests > kMostTests) return std::nullopt;
  }
  return most;
}

// The most header passes per entry any work-item makes in loop |c|. Where only its start
// differs between work-items (grid-stride loops), ranged_passes gives it exactly; where its
// bound or step do too, through one built-in, its values are counted one by one, if they are
// few, and else the ranges give a count that may be too high.
std::optional<uint64_t> loop_passes(const CountedLoop& c,
                                    const std::function<std::optional<uint64_t>(uint32_t)>& argument,
                                    const LaunchGeometry* geometry, uint64_t cap) {
  std::optional<uint64_t> varying;
  bool one = true, beyond_start = false;
  for (const std::vector<LaunchTerm>* terms : {&c.start, &c.step, &c.bound})
    for (const LaunchTerm& t : *terms) {
      if (t.op != uint32_t(Op::OpVariable) || !geometry) continue;
      std::optional<Range> r = builtin_range(t.value, *geometry);
      if (!r || r->lo == r->hi) continue;
      one = one && (!varying || *varying == t.value);
      varying = t.value;
      beyond_start = beyond_start || terms != &c.start;
    }
  if (beyond_start && one)
    if (std::optional<uint64_t> n = enumerated_passes(c, argument, *geometry, *varying, cap)) return n;
  return ranged_passes(c, argument, geometry, cap);
}

}  // namespace

std::optional<uint64_t> header_passes_from(const CountedLoop& c, uint64_t start, uint64_t step, uint64_t bound,
                                           uint64_t cap) {
  if (!compare(Op(c.compare_op), 0, 0, 32)) return std::nullopt;  // not a test a count knows
  std::optional<uint64_t> passes;
  if (closed_form(c, start, step, bound, cap, &passes)) return passes;
  uint64_t v = start;
  for (uint64_t pass = 1; pass <= cap; ++pass) {
    std::optional<uint64_t> x = c.tests_next ? exact(Op(c.step_op), v, step, c.width) : v;
    if (!x) return std::nullopt;
    if (!stays(c, *x, bound)) return pass;
    std::optional<uint64_t> next = exact(Op(c.step_op), v, step, c.width);
    if (!next) return std::nullopt;
    v = *next;
  }
  return std::nullopt;
}

bool LaunchGeometry::operator==(const LaunchGeometry& o) const {
  for (int d = 0; d < 3; ++d)
    if (offset[d] != o.offset[d] || global[d] != o.global[d] || local[d] != o.local[d]) return false;
  return work_dim == o.work_dim;
}

std::optional<uint64_t> count_loop_passes(const std::vector<CountedLoop>& loops,
                                          const std::function<std::optional<uint64_t>(uint32_t)>& argument,
                                          const LaunchGeometry* geometry) {
  constexpr uint64_t cap = kSafeLoopPasses;
  std::vector<uint64_t> passes(loops.size());
  for (size_t l = 0; l < loops.size(); ++l) {
    const CountedLoop& c = loops[l];
    if (c.bound.empty()) {
      passes[l] = c.passes;
      continue;
    }
    std::optional<uint64_t> n = loop_passes(c, argument, geometry, cap);
    if (!n) return std::nullopt;
    passes[l] = *n;
  }
  uint64_t total = 0;
  for (size_t l = 0; l < loops.size(); ++l) {
    uint64_t n = passes[l];
    for (uint32_t o : loops[l].enclosing) {
      if (o >= passes.size() || (passes[o] && n > cap / passes[o])) return std::nullopt;
      n *= passes[o];
    }
    total += n;
    if (total > cap) return std::nullopt;
  }
  return total;
}

}  // namespace vkcl::k2s
