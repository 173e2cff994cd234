// Random structured kernels: nested ifs, for and do-while loops with break and continue,
// early returns and barriers, all under conditions uniform across a work-group (they read a
// per-group value and loop counters, never the work-item's own data), so barriers may sit
// anywhere. A CPU interpreter runs the same tree for each work-group, exchanging the values of
// neighbouring work-items at each barrier as the kernel does through local memory.
#include <functional>
#include <memory>
#include <random>
#include <set>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

struct Node {
  enum Kind { Update, If, For, DoWhile, Break, Continue, Return, Barrier } kind;
  int a = 0, b = 0;  // constants of the update or the condition
  std::vector<std::unique_ptr<Node>> body, other;
};
using Block = std::vector<std::unique_ptr<Node>>;

class Generator {
 public:
  explicit Generator(std::mt19937& rng) : rng_(rng) {}
  Block block(int depth, bool in_loop) {
    Block out;
    int n = 1 + pick(3);
    for (int i = 0; i < n; ++i) out.push_back(statement(depth, in_loop));
    return out;
  }

 private:
  int pick(int n) { return int(rng_() % uint32_t(n)); }
  std::unique_ptr<Node> statement(int depth, bool in_loop) {
    auto node = std::make_unique<Node>();
    node->a = 1 + pick(7);
    node->b = pick(5);
    int choice = pick(depth > 2 ? 4 : 9);
    switch (choice) {
      case 0: case 1: node->kind = Node::Update; break;
      case 2: node->kind = Node::Barrier; break;
      case 3: {
        int k = pick(3);
        node->kind = !in_loop ? (k ? Node::Update : Node::Return)
                     : k == 0 ? Node::Break : k == 1 ? Node::Continue : Node::Return;
        break;
      }
      case 4: case 5:
        node->kind = Node::If;
        node->body = block(depth + 1, in_loop);
        if (pick(2)) node->other = block(depth + 1, in_loop);
        break;
      case 6: case 7: node->kind = Node::For; node->body = block(depth + 1, true); break;
      default: node->kind = Node::DoWhile; node->body = block(depth + 1, true); break;
    }
    return node;
  }
  std::mt19937& rng_;
};

// Conditions read u (the group's value) and the loop counters c0, c1, ...: uniform.
std::string condition(const Node& n, int loops) {
  std::string v = loops > 0 ? "c" + std::to_string(loops - 1) : "u";
  return "((" + v + " * " + std::to_string(n.a) + " + u) % 5 < " + std::to_string(n.b) + ")";
}

void emit(const Block& block, int loops, std::string* out) {
  for (const auto& p : block) {
    const Node& n = *p;
    std::string c = std::to_string(loops);
    switch (n.kind) {
      case Node::Update:
        *out += "acc = (acc * " + std::to_string(n.a) + " + in[(gid + " + std::to_string(n.b) + ") % n]) % 10007;\n";
        break;
      case Node::Barrier:
        *out += "tmp[lid] = acc; barrier(CLK_LOCAL_MEM_FENCE); acc = (acc + tmp[(lid + 1) % size]) % 10007; "
                "barrier(CLK_LOCAL_MEM_FENCE);\n";
        break;
      case Node::Break: *out += "if " + condition(n, loops) + " break;\n"; break;
      case Node::Continue: *out += "if " + condition(n, loops) + " continue;\n"; break;
      case Node::Return: *out += "if " + condition(n, loops) + " { out[gid] = acc + 1000000; return; }\n"; break;
      case Node::If:
        *out += "if " + condition(n, loops) + " {\n";
        emit(n.body, loops, out);
        if (!n.other.empty()) {
          *out += "} else {\n";
          emit(n.other, loops, out);
        }
        *out += "}\n";
        break;
      case Node::For:
        *out += "for (int c" + c + " = 0; c" + c + " < " + std::to_string(1 + n.b) + "; ++c" + c + ") {\n";
        emit(n.body, loops + 1, out);
        *out += "}\n";
        break;
      case Node::DoWhile:
        *out += "{ int c" + c + " = 0; do {\n";
        emit(n.body, loops + 1, out);
        *out += "} while (++c" + c + " < " + std::to_string(1 + n.b) + "); }\n";
        break;
    }
  }
}

// The interpreter: one work-group, all work-items together (the control flow is uniform).
struct Group {
  int u, size, n;
  std::vector<int> acc, gid;
  const std::vector<int>* in;
  bool returned = false;
};
enum class Flow { Next, Break, Continue, Return };

bool holds(const Node& nd, const Group& g, const std::vector<int>& counters) {
  int v = counters.empty() ? g.u : counters.back();
  return (v * nd.a + g.u) % 5 < nd.b;
}

Flow run_block(const Block& block, Group& g, std::vector<int>& counters);

Flow run_node(const Node& nd, Group& g, std::vector<int>& counters) {
  switch (nd.kind) {
    case Node::Update:
      for (int l = 0; l < g.size; ++l)
        g.acc[l] = (g.acc[l] * nd.a + (*g.in)[(g.gid[l] + nd.b) % g.n]) % 10007;
      return Flow::Next;
    case Node::Barrier: {
      std::vector<int> old = g.acc;
      for (int l = 0; l < g.size; ++l) g.acc[l] = (old[l] + old[(l + 1) % g.size]) % 10007;
      return Flow::Next;
    }
    case Node::Break: return holds(nd, g, counters) ? Flow::Break : Flow::Next;
    case Node::Continue: return holds(nd, g, counters) ? Flow::Continue : Flow::Next;
    case Node::Return: return holds(nd, g, counters) ? Flow::Return : Flow::Next;
    case Node::If:
      return holds(nd, g, counters) ? run_block(nd.body, g, counters) : run_block(nd.other, g, counters);
    case Node::For:
    case Node::DoWhile: {
      counters.push_back(0);
      Flow result = Flow::Next;
      for (; counters.back() < 1 + nd.b; ++counters.back()) {
        Flow f = run_block(nd.body, g, counters);
        if (f == Flow::Break) break;
        if (f == Flow::Return) { result = f; break; }
      }
      counters.pop_back();
      return result;
    }
  }
  return Flow::Next;
}

Flow run_block(const Block& block, Group& g, std::vector<int>& counters) {
  for (const auto& p : block) {
    Flow f = run_node(*p, g, counters);
    if (f != Flow::Next) return f;
  }
  return Flow::Next;
}

class RandomPrograms : public KernelTest {
 protected:
  // Builds and checks the programs of rounds [first, last) of generator |seed| (|only|: just
  // those rounds, the others generated and skipped).
  void check(uint32_t seed, int last, const std::set<int>& only = {}) {
    std::mt19937 shapes(seed);
    for (int round = 0; round < last; ++round) {
      Generator gen(shapes);
      Block program = gen.block(0, false);
      if (!only.empty() && !only.count(round)) continue;
      std::string body;
      emit(program, 0, &body);
      std::string source =
          "__kernel void k(__global const int* in, __global const int* us, __global int* out, "
          "__local int* tmp, int n) {\n"
          "  int gid = get_global_id(0), lid = get_local_id(0), size = get_local_size(0);\n"
          "  int u = us[get_group_id(0)], acc = in[gid % n];\n" + body +
          "  out[gid] = acc;\n}\n";
      SCOPED_TRACE(source);
      Program p = build(source);
      Kernel k = kernel(p, "k");
      const int n = 97, groups = 8, size = 16;
      std::uniform_int_distribution<int> dist(0, 1000);
      std::vector<int> in(n), us(groups);
      for (auto& v : in) v = dist(rng_);
      for (auto& v : us) v = dist(rng_);
      Mem din = buffer(n * 4, in.data()), dus = buffer(groups * 4, us.data());
      Mem dout = poisoned(groups * size * 4);
      set_mem_arg(k, 0, din);
      set_mem_arg(k, 1, dus);
      set_mem_arg(k, 2, dout);
      ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 3, size * 4, nullptr));
      set_arg(k, 4, n);
      size_t global = groups * size, local = size;
      run(k, 1, &global, &local);
      auto out = read<int>(dout, global);
      for (int grp = 0; grp < groups; ++grp) {
        Group g{us[grp], size, n, {}, {}, &in};
        for (int l = 0; l < size; ++l) {
          g.gid.push_back(grp * size + l);
          g.acc.push_back(in[(grp * size + l) % n]);
        }
        std::vector<int> counters;
        bool returned = run_block(program, g, counters) == Flow::Return;
        for (int l = 0; l < size; ++l)
          ASSERT_EQ(out[grp * size + l], g.acc[l] + (returned ? 1000000 : 0))
              << "round " << round << ", group " << grp << ", work-item " << l;
      }
    }
  }
};

TEST_P(RandomPrograms, MatchTheInterpreter) { check(77, 30); }

// Programs the structurizer cannot place with their barriers: the whole kernel becomes a
// dispatch loop that the work-group runs in step (dispatch_loop.h).
TEST_P(RandomPrograms, BarriersInStepThroughADispatchLoop) { check(77, 272, {147, 271}); }

// A return three `if`s deep, then a loop, in an `if` without `else`: that `if` must merge where
// its two paths meet, not branch from the end of its `then` part into the block after it
// (which Mesa's SPIR-V reader rejected, so the kernel could not run at -cl-opt-disable).
TEST_P(RandomPrograms, ReturnDeepInsideAnIfWithoutElse) { check(77, 845, {844}); }

INSTANTIATE_TEST_SUITE_P(Options, RandomPrograms,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
