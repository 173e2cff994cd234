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

INSTANTIATE_TEST_SUITE_P(Options, Irreducible,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
