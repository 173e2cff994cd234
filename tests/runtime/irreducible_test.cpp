// Irreducible control flow (cycles entered at more than one block: `goto` into a loop, state
// machines) runs on the device and matches the same code compiled for the CPU. Each kernel
// body is shared text between the kernel and its reference; tests/kernel_to_shader checks
// that clang really emits these bodies as irreducible graphs.
#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

#define STRINGIFY2(...) #__VA_ARGS__
#define STRINGIFY(...) STRINGIFY2(__VA_ARGS__)

// A while loop entered at its top and, for odd inputs, in its middle.
#define GOTO_INTO_LOOP                         \
  int x = in[gid % n];                         \
  int acc = x, i = 0;                          \
  if (x & 1) goto middle;                      \
  while (i < 20) {                             \
    acc += in[(gid + i) % n];                  \
    if (acc > 5000) break;                     \
  middle:                                      \
    acc = acc * 3 % 1001;                      \
    i += 1 + (acc & 1);                        \
  }                                            \
  out[gid] = acc * 32 + i;

// A state machine whose states jump into each other; the switch enters it at every state.
#define STATE_MACHINE                                 \
  int acc = in[gid % n], steps = 0;                   \
  switch (acc & 3) {                                  \
    case 0: goto s0;                                  \
    case 1: goto s1;                                  \
    case 2: goto s2;                                  \
    default: goto s3;                                 \
  }                                                   \
  s0:                                                 \
  acc += in[(gid + steps) % n];                       \
  if (++steps > 40) goto end;                         \
  if (acc & 4) goto s2;                               \
  s1:                                                 \
  acc = acc * 5 % 997;                                \
  if (++steps > 40) goto end;                         \
  if (acc % 3 == 0) goto s0;                          \
  goto s3;                                            \
  s2:                                                 \
  acc -= 11;                                          \
  if (++steps > 40 || acc < -500) goto end;           \
  goto s1;                                            \
  s3:                                                 \
  acc ^= steps << 2;                                  \
  if (++steps > 40) goto end;                         \
  if (acc & 8) goto s0;                               \
  goto s2;                                            \
  end:                                                \
  out[gid] = acc * 64 + steps;

// An irreducible cycle inside a loop, with a loop inside the cycle and an early return.
#define NESTED                                         \
  int acc = 0;                                         \
  for (int r = 0; r < 4; ++r) {                        \
    int j = in[(gid + r) % n] & 7;                     \
    if (j > 3) goto inner_mid;                         \
  inner_top:                                           \
    acc += j;                                          \
    for (int k = 0; k < (j & 3); ++k) acc += k * r;    \
    if (acc == 77) {                                   \
      out[gid] = -1;                                   \
      return;                                          \
    }                                                  \
  inner_mid:                                           \
    acc = (acc * 7 + r) % 1009;                        \
    j -= 2;                                            \
    if (j > 0) goto inner_top;                         \
  }                                                    \
  out[gid] = acc;

// A switch whose cases share three loops (the loops are reducible, the switch's joins are
// not nested): the selection's merge becomes a dispatch block in front of the loops.
#define SWITCH_INTO_SHARED_LOOPS                                  \
  int acc = in[gid % n], steps = 0;                               \
  switch (acc & 7) {                                              \
    case 0: goto s0;                                              \
    case 1: goto s1;                                              \
    case 2: goto s2;                                              \
    case 3: goto s0;                                              \
    case 4: goto s1;                                              \
    case 5: goto s2;                                              \
    case 6: goto s0;                                              \
    case 7: goto s1;                                              \
  }                                                               \
  s0:                                                             \
  acc = (acc * 7 + 7 + in[(gid + steps) % n]) % 1009;             \
  if (++steps > 50) goto end;                                     \
  goto s0;                                                        \
  s1:                                                             \
  acc = (acc * 4 + 4 + in[(gid + steps) % n]) % 1009;             \
  if (++steps > 50) goto end;                                     \
  if (acc & 128) goto end;                                        \
  goto s1;                                                        \
  s2:                                                             \
  acc = (acc * 6 + 3 + in[(gid + steps) % n]) % 1009;             \
  if (++steps > 50) goto end;                                     \
  goto s2;                                                        \
  end:                                                            \
  out[gid] = acc * 64 + steps;

static void switch_into_shared_loops(const int* in, int* out, int n, int gid) { SWITCH_INTO_SHARED_LOOPS }
static void goto_into_loop(const int* in, int* out, int n, int gid) { GOTO_INTO_LOOP }
static void state_machine(const int* in, int* out, int n, int gid) { STATE_MACHINE }
static void nested(const int* in, int* out, int n, int gid) { NESTED }

struct Case {
  const char* name;
  const char* body;
  void (*reference)(const int*, int*, int, int);
};

const Case kCases[] = {
    {"goto_into_loop", STRINGIFY(GOTO_INTO_LOOP), goto_into_loop},
    {"state_machine", STRINGIFY(STATE_MACHINE), state_machine},
    {"nested", STRINGIFY(NESTED), nested},
    {"switch_into_shared_loops", STRINGIFY(SWITCH_INTO_SHARED_LOOPS), switch_into_shared_loops},
};

class Irreducible : public KernelTest {
 protected:
  // Runs |c| on |items| work-items over random inputs in [-100, 100] and compares.
  void check(const Case& c) {
    std::string source = std::string("__kernel void k(__global const int* in, __global int* out, int n) {\n"
                                     "  int gid = get_global_id(0);\n") + c.body + "\n}\n";
    Program p = build(source);
    Kernel k = kernel(p, "k");
    const int n = 997, items = 512;
    std::uniform_int_distribution<int> dist(-100, 100);
    std::vector<int> in(n);
    for (auto& v : in) v = dist(rng_);
    Mem din = buffer(n * 4, in.data()), dout = poisoned(items * 4);
    set_mem_arg(k, 0, din);
    set_mem_arg(k, 1, dout);
    set_arg(k, 2, n);
    size_t global = items, local = 64;
    run(k, 1, &global, &local);
    auto out = read<int>(dout, items);
    std::vector<int> expect(items);
    for (int g = 0; g < items; ++g) c.reference(in.data(), expect.data(), n, g);
    for (int g = 0; g < items; ++g) ASSERT_EQ(out[g], expect[g]) << c.name << ", work-item " << g;
  }
};

TEST_P(Irreducible, GotoIntoLoop) { check(kCases[0]); }
TEST_P(Irreducible, StateMachine) { check(kCases[1]); }
TEST_P(Irreducible, NestedWithLoopAndReturn) { check(kCases[2]); }
TEST_P(Irreducible, SwitchIntoSharedLoops) { check(kCases[3]); }

// Values of every kind of type cross the edges into the cycle: a vector, a pointer, a bool
// and a float, so the dispatch block's phis carry each of them.
TEST_P(Irreducible, PhisOfEveryType) {
  const char* source = R"(
    __kernel void k(__global const int* in, __global int* out) {
      int gid = get_global_id(0);
      __global const int* p = in + (gid % 8);
      int4 v = (int4)(gid, 1, 2, 3);
      bool flag = (gid & 2) != 0;
      float f = 0.5f * gid;
      int i = 0;
      if (gid & 1) goto mid;
    top:
      v = v.yzwx + (int4)(p[0], i, 1, 2);
      flag = !flag;
    mid:
      p += 1 + (v.x & 1);
      f = f * 0.5f + (flag ? 1.0f : 2.0f);
      if (++i < 6 + (gid & 3)) goto top;
      out[gid] = v.x + v.y * 3 + v.z * 5 + v.w * 7 + flag * 11 + (int)(f * 16) + (int)(p - in) * 13;
    })";
  Program p = build(source);
  Kernel k = kernel(p, "k");
  const int items = 256, n = 8 + 2 * 16;
  std::uniform_int_distribution<int> dist(-100, 100);
  std::vector<int> in(n);
  for (auto& v : in) v = dist(rng_);
  Mem din = buffer(n * 4, in.data()), dout = poisoned(items * 4);
  set_mem_arg(k, 0, din);
  set_mem_arg(k, 1, dout);
  size_t global = items, local = 32;
  run(k, 1, &global, &local);
  auto out = read<int>(dout, items);
  for (int gid = 0; gid < items; ++gid) {
    int pi = gid % 8;
    int v[4] = {gid, 1, 2, 3};
    bool flag = (gid & 2) != 0;
    float f = 0.5f * gid;
    int i = 0;
    bool skip_top = gid & 1;
    do {
      if (!skip_top) {
        int w[4] = {v[1] + in[pi], v[2] + i, v[3] + 1, v[0] + 2};
        for (int c = 0; c < 4; ++c) v[c] = w[c];
        flag = !flag;
      }
      skip_top = false;
      pi += 1 + (v[0] & 1);
      f = f * 0.5f + (flag ? 1.0f : 2.0f);
    } while (++i < 6 + (gid & 3));
    int expect = v[0] + v[1] * 3 + v[2] * 5 + v[3] * 7 + flag * 11 + int(f * 16) + pi * 13;
    ASSERT_EQ(out[gid], expect) << "work-item " << gid;
  }
}

// Random state machines: each state updates the accumulator (some with a loop inside),
// then jumps to one, two or three other states (goto, if, switch). The switch at the start
// enters the machine at several states, so the graphs are irreducible in many shapes. All
// work-items leave through `end`, where a barrier follows. The reference interprets the same
// description.
struct State {
  int mul, add, kind, bit, targets[3];
  bool loop, returns;  // |returns|: leaves early when acc % 11 == 0 (helper-function machines)
};

std::vector<State> random_machine(std::mt19937& rng, int count) {
  std::uniform_int_distribution<int> pick(0, count), small(1, 7), kind(0, 2);
  std::vector<State> states(count);
  for (State& st : states) {
    st.mul = small(rng);
    st.add = small(rng);
    st.kind = kind(rng);
    st.bit = 1 << small(rng);
    for (int& t : st.targets) t = pick(rng);  // |count| is `end`
    st.loop = small(rng) > 4;
    st.returns = small(rng) > 5;
  }
  return states;
}

// The machine as a kernel ending in a barrier, or (|helper|) as a function that returns
// acc * 64 + steps, or -acc from a state that returns early, called by the kernel.
std::string machine_source(const std::vector<State>& states, bool helper) {
  auto label = [&](int t) { return t == int(states.size()) ? std::string("end") : "s" + std::to_string(t); };
  std::string s = helper ? "int machine(__global const int* in, int gid, int n) {\n"
                           "  int acc = in[gid % n], steps = 0;\n"
                         : "__kernel void k(__global const int* in, __global int* out, __local int* tmp, int n) {\n"
                           "  int gid = get_global_id(0), lid = get_local_id(0);\n"
                           "  int acc = in[gid % n], steps = 0;\n";
  s += "  switch (acc & 7) {\n";
  for (int e = 0; e < 8; ++e)
    s += "    case " + std::to_string(e) + ": goto " + label(e % int(states.size())) + ";\n";
  s += "  }\n";
  for (size_t i = 0; i < states.size(); ++i) {
    const State& st = states[i];
    s += label(int(i)) + ":\n  acc = (acc * " + std::to_string(st.mul) + " + " +
         std::to_string(st.add) + " + in[(gid + steps) % n]) % 1009;\n";
    if (st.loop) s += "  for (int k = 0; k < (acc & 3); ++k) acc += k;\n";
    if (helper && st.returns) s += "  if (acc % 11 == 0) return -acc;\n";
    s += "  if (++steps > 50) goto end;\n";
    if (st.kind == 0) {
      s += "  goto " + label(st.targets[0]) + ";\n";
    } else if (st.kind == 1) {
      s += "  if (acc & " + std::to_string(st.bit) + ") goto " + label(st.targets[0]) + ";\n";
      s += "  goto " + label(st.targets[1]) + ";\n";
    } else {
      s += "  switch ((acc % 3 + 3) % 3) { case 0: goto " + label(st.targets[0]) +
           "; case 1: goto " + label(st.targets[1]) + "; default: goto " + label(st.targets[2]) +
           "; }\n";
    }
  }
  if (helper)
    return s + "end:\n  return acc * 64 + steps;\n}\n"
               "__kernel void k(__global const int* in, __global int* out, int n) {\n"
               "  out[get_global_id(0)] = machine(in, get_global_id(0), n);\n}\n";
  s += "end:\n"
       "  tmp[lid] = acc;\n"
       "  barrier(CLK_LOCAL_MEM_FENCE);\n"
       "  out[gid] = tmp[(lid + 1) % get_local_size(0)] * 64 + steps;\n"
       "}\n";
  return s;
}

// The machine's final (acc, steps) for work-item |gid|; steps is -1 when it returned early
// (only |helper| machines do).
std::pair<int, int> interpret(const std::vector<State>& states, const std::vector<int>& in, int gid,
                              bool helper = false) {
  const int n = int(in.size()), end = int(states.size());
  int acc = in[gid % n], steps = 0;
  int at = (acc & 7) % end;
  while (at != end) {
    const State& st = states[at];
    acc = (acc * st.mul + st.add + in[(gid + steps) % n]) % 1009;
    if (st.loop)
      for (int k = 0; k < (acc & 3); ++k) acc += k;
    if (helper && st.returns && acc % 11 == 0) return {acc, -1};
    if (++steps > 50) break;
    if (st.kind == 0) at = st.targets[0];
    else if (st.kind == 1) at = (acc & st.bit) ? st.targets[0] : st.targets[1];
    else at = st.targets[(acc % 3 + 3) % 3];
  }
  return {acc, steps};
}

// Every machine builds and matches the reference. The larger ones have joins the structurizer
// cannot place directly; those go through its last resort, the dispatch loop, which is
// possible because the only barrier follows the machine.
TEST_P(Irreducible, RandomStateMachines) {
  const int machines = 40;
  for (int round = 0; round < machines; ++round) {
    std::vector<State> states = random_machine(rng_, 3 + round % 14);
    std::string text = machine_source(states, false);
    SCOPED_TRACE(text);
    Program p = source(text.c_str());
    ASSERT_EQ(CL_SUCCESS, clBuildProgram(p, 1, &device_, GetParam().c_str(), nullptr, nullptr))
        << log_of(p);
    Kernel k = kernel(p, "k");
    const int n = 331, items = 256, local = 32;
    std::uniform_int_distribution<int> dist(-100, 100);
    std::vector<int> in(n);
    for (auto& v : in) v = dist(rng_);
    Mem din = buffer(n * 4, in.data()), dout = poisoned(items * 4);
    set_mem_arg(k, 0, din);
    set_mem_arg(k, 1, dout);
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, local * 4, nullptr));
    set_arg(k, 3, n);
    size_t global = items, local_size = local;
    run(k, 1, &global, &local_size);
    auto out = read<int>(dout, items);
    for (int gid = 0; gid < items; ++gid) {
      int neighbour = gid / local * local + (gid % local + 1) % local;
      int expect = interpret(states, in, neighbour).first * 64 + interpret(states, in, gid).second;
      ASSERT_EQ(out[gid], expect) << "work-item " << gid;
    }
  }
}

// A machine whose structured form at -O2 first fails Vulkan validation; the translator's
// retry puts it through a dispatch loop (also in translate_kernels_test).
TEST_P(Irreducible, MachineThatNeedsTheRetry) {
  const char* source = R"(
__kernel void k(__global const int* in, __global int* out, __local int* tmp, int n) {
  int gid = get_global_id(0), lid = get_local_id(0);
  int acc = in[gid % n], steps = 0;
  switch (acc & 7) {
    case 0: goto s0;
    case 1: goto s1;
    case 2: goto s2;
    case 3: goto s0;
    case 4: goto s1;
    case 5: goto s2;
    case 6: goto s0;
    case 7: goto s1;
  }
s0:
  acc = (acc * 2 + 3 + in[(gid + steps) % n]) % 1009;
  if (++steps > 50) goto end;
  goto end;
s1:
  acc = (acc * 1 + 1 + in[(gid + steps) % n]) % 1009;
  for (int k = 0; k < (acc & 3); ++k) acc += k;
  if (++steps > 50) goto end;
  if (acc & 32) goto s2;
  goto s0;
s2:
  acc = (acc * 5 + 3 + in[(gid + steps) % n]) % 1009;
  if (++steps > 50) goto end;
  if (acc & 128) goto s1;
  goto s0;
end:
  out[gid] = acc * 64 + steps;
})";
  std::vector<State> states = {{2, 3, 0, 0, {3, 0, 0}, false, false},
                               {1, 1, 1, 32, {2, 0, 0}, true, false},
                               {5, 3, 1, 128, {1, 0, 0}, false, false}};
  Program p = build(source);
  Kernel k = kernel(p, "k");
  const int n = 331, items = 256;
  std::uniform_int_distribution<int> dist(-100, 100);
  std::vector<int> in(n);
  for (auto& v : in) v = dist(rng_);
  Mem din = buffer(n * 4, in.data()), dout = poisoned(items * 4);
  set_mem_arg(k, 0, din);
  set_mem_arg(k, 1, dout);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, 128, nullptr));
  set_arg(k, 3, n);
  size_t global = items, local = 32;
  run(k, 1, &global, &local);
  auto out = read<int>(dout, items);
  for (int gid = 0; gid < items; ++gid) {
    auto [acc, steps] = interpret(states, in, gid);
    ASSERT_EQ(out[gid], acc * 64 + steps) << "work-item " << gid;
  }
}

// The same machines in a helper function with early returns and no barrier: the whole
// function may become a dispatch loop, returning its value from a variable.
TEST_P(Irreducible, RandomStateMachinesInFunctions) {
  for (int round = 0; round < 24; ++round) {
    std::vector<State> states = random_machine(rng_, 3 + round % 12);
    std::string text = machine_source(states, true);
    SCOPED_TRACE(text);
    Program p = source(text.c_str());
    ASSERT_EQ(CL_SUCCESS, clBuildProgram(p, 1, &device_, GetParam().c_str(), nullptr, nullptr))
        << log_of(p);
    Kernel k = kernel(p, "k");
    const int n = 331, items = 256;
    std::uniform_int_distribution<int> dist(-100, 100);
    std::vector<int> in(n);
    for (auto& v : in) v = dist(rng_);
    Mem din = buffer(n * 4, in.data()), dout = poisoned(items * 4);
    set_mem_arg(k, 0, din);
    set_mem_arg(k, 1, dout);
    set_arg(k, 2, n);
    size_t global = items;
    run(k, 1, &global, nullptr);
    auto out = read<int>(dout, items);
    for (int gid = 0; gid < items; ++gid) {
      auto [acc, steps] = interpret(states, in, gid, true);
      ASSERT_EQ(out[gid], steps < 0 ? -acc : acc * 64 + steps) << "work-item " << gid;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Options, Irreducible,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
