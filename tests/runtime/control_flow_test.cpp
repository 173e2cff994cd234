// The structurizer keeps semantics: kernels with breaks, continues, gotos, early returns,
// switches with fall-through and short-circuit conditions run on the device and are compared
// with the same code compiled for the CPU (the kernel body is shared text).
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

#define BODY                                                              \
  int acc = 0;                                                            \
  for (int a = 0; a < 6; ++a) {                                           \
    for (int b = 0; b < 6; ++b) {                                         \
      int v = in[(base + a * 6 + b) % n];                                 \
      if (v < -90) goto done;                                             \
      if (v % 7 == 0) break;                                              \
      if (v > 50 || v < -50) continue;                                    \
      switch ((v + 100) % 9) {                                            \
        case 0: acc += 3; break;                                          \
        case 1: acc -= 1;                                                 \
        case 2: acc *= 2; break;                                          \
        case 5: if (acc > 100) { out[gid] = -acc; return; } acc += v; break; \
        default: acc ^= v;                                                \
      }                                                                   \
    }                                                                     \
    if (acc > 1000 && (a & 1)) break;                                     \
    while (acc > 500 && acc % 3 != 0) acc -= 7;                          \
  }                                                                       \
done:                                                                     \
  out[gid] = acc;

#define STRINGIFY2(...) #__VA_ARGS__
#define STRINGIFY(...) STRINGIFY2(__VA_ARGS__)

static void reference(const int* in, int* out, int n, int gid) {
  int base = gid * 5;
  BODY
}

class ControlFlow : public KernelTest {};

TEST_P(ControlFlow, MatchesCpu) {
  std::string source =
      "__kernel void cf(__global const int* in, __global int* out, int n) {\n"
      "  int gid = get_global_id(0); int base = gid * 5;\n" STRINGIFY(BODY) "\n}\n";
  Program p = build(source);
  Kernel k = kernel(p, "cf");
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
  for (int g = 0; g < items; ++g) reference(in.data(), expect.data(), n, g);
  for (int g = 0; g < items; ++g) ASSERT_EQ(out[g], expect[g]) << "work-item " << g;
}

// Switches with fall-through, several cases sharing a target, a case sharing the default's
// target, and 64-bit and 8-bit selectors.
#define SWITCHES                                   \
  int v = in[gid % n], acc = gid;                  \
  switch (v % 11) {                                \
    case 0: case 3: acc += 1;                      \
    case 4: acc *= 3; break;                       \
    case 1: case -7: case 9: acc -= v; break;      \
    case -2: case 5: case 6: default: acc ^= 5;    \
  }                                                \
  long wide = (long)v * 8589934592L; /* v << 33 */ \
  switch (wide) {                                  \
    case 0: acc += 100; break;                     \
    case 42949672960L: case -42949672960L:         \
      acc += 200;                                  \
    case 8589934592L: acc -= 7; break;             \
    default: acc += 1;                             \
  }                                                \
  char small = (char)(v & 7);                      \
  switch (small) {                                 \
    case 1: case 2: acc <<= 1; break;              \
    case 7: acc = -acc;                            \
    default: acc += 3;                             \
  }                                                \
  out[gid] = acc;

// Code no path reaches: after a goto, behind a constant-false condition, and a switch case
// for a value the selector never takes.
#define UNREACHABLE                                \
  int v = in[gid % n], acc = 0;                    \
  goto start;                                      \
  acc = 1000;                                      \
  start:                                           \
  if (v > 1000) acc = -1000;                       \
  for (int i = 0; i < 3; ++i) {                    \
    acc += v * i;                                  \
    continue;                                      \
    acc = 12345;                                   \
  }                                                \
  switch (v & 1) {                                 \
    case 0: acc += 1; break;                       \
    case 1: acc += 2; break;                       \
    case 2: acc = 777; break;                      \
  }                                                \
  out[gid] = acc;                                  \
  return;                                          \
  out[gid] = 99;

// Switches the optimiser once turned into an i2 switch (a selector of `x & 3`), into phis
// that name a block once per case, and into lookup tables (compiler_test.cpp).
#define NARROW_AND_TABLES                                                        \
  int v = in[gid % n], r = in[(gid + 1) % n], t;                                 \
  switch (v & 7) {                                                               \
    case 0: case 3: case 7: break;                                               \
    case 1: r = r * 3; break;                                                    \
    case 2: r += 5; break;                                                       \
    case 4: r -= 1; break;                                                       \
    default: r ^= 9;                                                             \
  }                                                                              \
  switch ((v >> ((gid & 3) << 1)) & 3) {                                         \
    case 0: t = 5; break;                                                        \
    case 1: t = 9; break;                                                        \
    case 2: t = -4; break;                                                       \
    default: t = 2;                                                              \
  }                                                                              \
  switch (r & 15) {                                                              \
    case 0: case 2: t += 5; break;                                               \
    case 1: case 3: t += 9; break;                                               \
    case 4: t += 1; break;                                                       \
    default: t += 2;                                                             \
  }                                                                              \
  out[gid] = r * 64 + t;

static void switches(const int* in, int* out, int n, int gid) { SWITCHES }
static void narrow_and_tables(const int* in, int* out, int n, int gid) { NARROW_AND_TABLES }
static void unreachable(const int* in, int* out, int n, int gid) { UNREACHABLE }

class MoreControlFlow : public KernelTest {
 protected:
  // Runs |body| on random inputs in [-100, 100] and compares with |reference|.
  void check(const char* body, void (*reference)(const int*, int*, int, int)) {
    std::string source =
        std::string("__kernel void k(__global const int* in, __global int* out, int n) {\n"
                    "  int gid = get_global_id(0);\n") + body + "\n}\n";
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
    for (int g = 0; g < items; ++g) reference(in.data(), expect.data(), n, g);
    for (int g = 0; g < items; ++g) ASSERT_EQ(out[g], expect[g]) << "work-item " << g;
  }
};

TEST_P(MoreControlFlow, SwitchFallthroughAndSharedTargets) { check(STRINGIFY(SWITCHES), switches); }
TEST_P(MoreControlFlow, UnreachableBlocks) { check(STRINGIFY(UNREACHABLE), unreachable); }
TEST_P(MoreControlFlow, NarrowSwitchesAndTables) { check(STRINGIFY(NARROW_AND_TABLES), narrow_and_tables); }

// A loop with several exits and continues whose early return is uniform across the
// work-group (it depends on the group only), followed by a barrier after the loop that the
// remaining groups reach together.
TEST_P(MoreControlFlow, EarlyReturnInLoopThenBarrier) {
  const char* source = R"(
    __kernel void k(__global const int* in, __global int* out, __local int* tmp, int n) {
      int lid = get_local_id(0), grp = get_group_id(0), size = get_local_size(0);
      int acc = 0;
      for (int i = 0; i < n; ++i) {
        int v = in[grp * n + i];
        if (v < -95) { out[get_global_id(0)] = -1 - i; return; }
        if (v > 95) break;
        if (v % 3 == 0) continue;
        acc += v * (lid + 1);
        if (acc > 100000) break;
        if (v % 5 == 0) continue;
        acc ^= i;
      }
      tmp[lid] = acc;
      barrier(CLK_LOCAL_MEM_FENCE);
      out[get_global_id(0)] = tmp[(lid + 1) % size] - acc;
    })";
  Program p = build(source);
  Kernel k = kernel(p, "k");
  const int n = 40, groups = 32, size = 16;
  std::uniform_int_distribution<int> dist(-100, 100);
  std::vector<int> in(n * groups);
  for (auto& v : in) v = dist(rng_);
  Mem din = buffer(in.size() * 4, in.data()), dout = poisoned(groups * size * 4);
  set_mem_arg(k, 0, din);
  set_mem_arg(k, 1, dout);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, size * 4, nullptr));
  set_arg(k, 3, n);
  size_t global = groups * size, local = size;
  run(k, 1, &global, &local);
  auto out = read<int>(dout, groups * size);
  int returned = 0;
  for (int g = 0; g < groups; ++g) {
    std::vector<int> acc(size);
    int early = 0;
    for (int l = 0; l < size && !early; ++l) {
      for (int i = 0; i < n; ++i) {
        int v = in[g * n + i];
        if (v < -95) { early = -1 - i; break; }
        if (v > 95) break;
        if (v % 3 == 0) continue;
        acc[l] += v * (l + 1);
        if (acc[l] > 100000) break;
        if (v % 5 == 0) continue;
        acc[l] ^= i;
      }
    }
    returned += early != 0;
    for (int l = 0; l < size; ++l) {
      int expect = early ? early : acc[(l + 1) % size] - acc[l];
      ASSERT_EQ(out[g * size + l], expect) << "group " << g << ", work-item " << l;
    }
  }
  EXPECT_GT(returned, 0);  // both paths are taken
  EXPECT_LT(returned, groups);
}

// The reduction of CTS basic local_arg_def: an early return shared with the end of a
// do-while loop that holds a barrier, both reaching one returning block (a structurizer
// regression caught by the CTS), for work-group sizes 1 (the early return) to 64.
TEST_P(MoreControlFlow, ReductionWithEarlyReturnAndBarrierLoop) {
  const char* source = R"(
    __kernel void k(__global const int* a, int n, __local int* tmp_sum, __global int* sum) {
      int tid = get_local_id(0), lsize = get_local_size(0);
      tmp_sum[tid] = 0;
      for (int i = tid; i < n; i += lsize) tmp_sum[tid] += a[i];
      if (lsize == 1) {
        if (tid == 0) *sum = tmp_sum[0];
        return;
      }
      do {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tid < lsize / 2) {
          int s = tmp_sum[tid];
          if ((lsize & 1) && tid == 0) s += tmp_sum[tid + lsize - 1];
          tmp_sum[tid] = s + tmp_sum[tid + lsize / 2];
        }
        lsize = lsize / 2;
      } while (lsize);
      if (tid == 0) *sum = tmp_sum[0];
    })";
  Program p = build(source);
  Kernel k = kernel(p, "k");
  const int n = 1000;
  std::uniform_int_distribution<int> dist(-1000, 1000);
  std::vector<int> a(n);
  for (auto& v : a) v = dist(rng_);
  int expect = 0;
  for (int v : a) expect += v;
  for (size_t size : {1, 2, 7, 16, 64}) {
    Mem da = buffer(n * 4, a.data()), dsum = poisoned(4);
    set_mem_arg(k, 0, da);
    set_arg(k, 1, n);
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, size * 4, nullptr));
    set_mem_arg(k, 3, dsum);
    run(k, 1, &size, &size);
    EXPECT_EQ(read<int>(dsum, 1)[0], expect) << "work-group size " << size;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, MoreControlFlow,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

INSTANTIATE_TEST_SUITE_P(Options, ControlFlow,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
