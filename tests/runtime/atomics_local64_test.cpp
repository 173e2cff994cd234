// 64-bit atomics on local memory (cl_khr_int64_*_atomics, C11 atomic_long) under heavy
// contention, and everything else that touches local memory in a kernel that has them (such
// kernels see local memory as 64-bit words: kernel_to_shader/passes/wide_arena.cpp).
#include <algorithm>
#include <functional>
#include <set>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

using LocalAtomics64 = KernelTest;

// Read-modify-writes on one location form a chain init -> ... -> final: the values read plus
// the final value equal the initial value plus the values written, whatever the order.
template <typename T>
void expect_chain(T init, T final_value, const std::vector<T>& olds, const std::vector<T>& operands,
                  const std::function<T(T, T)>& op, const std::string& what) {
  std::vector<T> read = olds, written = {init};
  read.push_back(final_value);
  for (size_t i = 0; i < olds.size(); ++i) written.push_back(op(olds[i], operands[i]));
  std::sort(read.begin(), read.end());
  std::sort(written.begin(), written.end());
  EXPECT_EQ(read, written) << what;
}

// The 13 read-modify-writes (add sub xchg smin smax umin umax and or xor inc dec, cmpxchg
// loop adding x) on values of T with unsigned counterpart U.
template <typename T, typename U>
std::vector<std::function<T(T, T)>> rmw_ops() {
  auto add = [](T a, T b) { return T(U(a) + U(b)); };
  return {add,
          [](T a, T b) { return T(U(a) - U(b)); },
          [](T, T b) { return b; },
          [](T a, T b) { return std::min(a, b); },
          [](T a, T b) { return std::max(a, b); },
          [](T a, T b) { return T(std::min(U(a), U(b))); },
          [](T a, T b) { return T(std::max(U(a), U(b))); },
          [](T a, T b) { return T(a & b); },
          [](T a, T b) { return T(a | b); },
          [](T a, T b) { return T(a ^ b); },
          [](T a, T) { return T(U(a) + 1); },
          [](T a, T) { return T(U(a) - 1); },
          add};
}

// Counter |op| went from |init| to |final_value| by the operands |x|, returning |olds|.
template <typename T, typename U>
void check_rmw(int op, T init, T final_value, const std::vector<T>& olds, const std::vector<T>& x,
               const std::string& where) {
  auto f = rmw_ops<T, U>()[op];
  T expected = init;
  for (T xi : x) expected = f(expected, xi);
  // Every operation but exchange (op 2) commutes; the chain below pins the exchanges down.
  if (op != 2) {
    EXPECT_EQ(final_value, expected) << where << " op " << op;
  }
  expect_chain<T>(init, final_value, olds, x, f, where + " op " + std::to_string(op));
}

const char* kContention = R"(
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#define ROUNDS 4
#define r memory_order_relaxed
#define s memory_scope_work_group
// Counter 13 is stored and loaded: every load sees the initial or a stored value.
#define C11_OPS(A, U)                                                                   \
  o[0] = atomic_fetch_add_explicit((A)(p + 0), x, r, s);                               \
  o[1] = atomic_fetch_sub_explicit((A)(p + 1), x, r, s);                               \
  o[2] = atomic_exchange_explicit((A)(p + 2), x, r, s);                                \
  o[3] = atomic_fetch_min_explicit((A)(p + 3), x, r, s);                               \
  o[4] = atomic_fetch_max_explicit((A)(p + 4), x, r, s);                               \
  o[5] = (long)atomic_fetch_min_explicit((U)(p + 5), (ulong)x, r, s);                  \
  o[6] = (long)atomic_fetch_max_explicit((U)(p + 6), (ulong)x, r, s);                  \
  o[7] = atomic_fetch_and_explicit((A)(p + 7), x, r, s);                               \
  o[8] = atomic_fetch_or_explicit((A)(p + 8), x, r, s);                                \
  o[9] = atomic_fetch_xor_explicit((A)(p + 9), x, r, s);                               \
  o[10] = (long)atomic_fetch_add_explicit((U)(p + 10), 1UL, r, s);                     \
  o[11] = atomic_fetch_sub_explicit((A)(p + 11), 1L, r, s);                            \
  {                                                                                    \
    long e = atomic_load_explicit((A)(p + 12), r, s);                                  \
    while (!atomic_compare_exchange_strong_explicit((A)(p + 12), &e, e + x, r, r, s)) {} \
    o[12] = e;                                                                         \
  }                                                                                    \
  o[13] = atomic_load_explicit((A)(p + 13), r, s);                                     \
  atomic_store_explicit((A)(p + 13), x, r, s);

#define ATOM_OPS                                                                       \
  o[0] = atom_add(p + 0, x);                                                           \
  o[1] = atom_sub(p + 1, x);                                                           \
  o[2] = atom_xchg(p + 2, x);                                                          \
  o[3] = atom_min(p + 3, x);                                                           \
  o[4] = atom_max(p + 4, x);                                                           \
  o[5] = (long)atom_min((local ulong*)(p + 5), (ulong)x);                              \
  o[6] = (long)atom_max((local ulong*)(p + 6), (ulong)x);                              \
  o[7] = atom_and(p + 7, x);                                                           \
  o[8] = atom_or(p + 8, x);                                                            \
  o[9] = atom_xor(p + 9, x);                                                           \
  o[10] = atom_inc(p + 10);                                                            \
  o[11] = atom_dec(p + 11);                                                            \
  {                                                                                    \
    long e = atom_add(p + 12, 0L);                                                     \
    for (;;) {                                                                         \
      long got = atom_cmpxchg(p + 12, e, e + x);                                       \
      if (got == e) break;                                                             \
      e = got;                                                                         \
    }                                                                                  \
    o[12] = e;                                                                         \
  }                                                                                    \
  o[13] = atomic_load_explicit((volatile local atomic_long*)(p + 13), r, s);           \
  atomic_store_explicit((volatile local atomic_long*)(p + 13), x, r, s);

// Inlined at -O2, where clang still keeps the function itself: no kernel calls that copy.
void local_rounds(local long* p, global const long* v, global long* olds, size_t i) {
  for (int k = 0; k < ROUNDS; ++k) {
    long x = v[i * ROUNDS + k];
    global long* o = olds + 14 * (i * ROUNDS + k);
    ATOM_OPS
  }
}

void generic_rounds(long* p, global const long* v, global long* olds, size_t i) {
  for (int k = 0; k < ROUNDS; ++k) {
    long x = v[i * ROUNDS + k];
    global long* o = olds + 14 * (i * ROUNDS + k);
    C11_OPS(volatile atomic_long*, volatile atomic_ulong*)
  }
}

// |how|: 0 atom_* names, 1 C11 on local atomic_long, 2 C11 through generic pointers to local
// memory, 3 C11 through generic pointers to global memory (one set of counters for all).
kernel void contention(global long* c, global const long* v, global long* olds, int how) {
  local long counters[14];
  size_t i = get_global_id(0), li = get_local_id(0), g = get_group_id(0);
  local long* p = counters;
  if (li < 14) p[li] = c[14 * g + li];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (how == 2) {
    generic_rounds(p, v, olds, i);
  } else if (how == 3) {
    generic_rounds(c, v, olds, i);
  } else if (how == 0) {
    local_rounds(p, v, olds, i);
  } else {
    for (int k = 0; k < ROUNDS; ++k) {
      long x = v[i * ROUNDS + k];
      global long* o = olds + 14 * (i * ROUNDS + k);
      C11_OPS(volatile local atomic_long*, volatile local atomic_ulong*)
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (li < 14 && how != 3) c[14 * g + li] = p[li];
}
)";

// 256 work-items of a work-group, 4 rounds each, all on the same 14 counters.
TEST_P(LocalAtomics64, EveryOperationUnderContention) {
  const size_t wg = 256, groups = 2, n = wg * groups, rounds = 4;
  std::vector<int64_t> v(n * rounds), init(14 * groups);
  std::uniform_int_distribution<int64_t> any;
  for (auto& x : v) x = any(rng_);
  for (auto& x : init) x = any(rng_);
  Program p = build(kContention, "-cl-std=CL3.0");
  Kernel k = kernel(p, "contention");
  for (int how = 0; how < 4; ++how) {
    std::string where = std::string("how ") + std::to_string(how);
    Mem dc = buffer(init.size() * 8, init.data()), dv = buffer(v.size() * 8, v.data());
    Mem dolds = poisoned(v.size() * 14 * 8);
    set_mem_arg(k, 0, dc); set_mem_arg(k, 1, dv); set_mem_arg(k, 2, dolds);
    set_arg(k, 3, how);
    run(k, 1, &n, &wg);
    auto c = read<int64_t>(dc, init.size());
    auto olds = read<int64_t>(dolds, v.size() * 14);
    // The global variant shares group 0's counters among all work-items.
    size_t sets = how == 3 ? 1 : groups, per_set = how == 3 ? n * rounds : wg * rounds;
    for (size_t g = 0; g < sets; ++g) {
      std::string at = where + " group " + std::to_string(g);
      std::vector<int64_t> x(v.begin() + g * per_set, v.begin() + (g + 1) * per_set);
      for (int op = 0; op < 13; ++op) {
        std::vector<int64_t> column;
        for (size_t j = g * per_set; j < (g + 1) * per_set; ++j) column.push_back(olds[14 * j + op]);
        check_rmw<int64_t, uint64_t>(op, init[14 * g + op], c[14 * g + op], column, x, at);
      }
      std::set<int64_t> stored(x.begin(), x.end());
      EXPECT_TRUE(stored.count(c[14 * g + 13])) << at << " final stored value";
      stored.insert(init[14 * g + 13]);
      for (size_t j = g * per_set; j < (g + 1) * per_set; ++j)
        EXPECT_TRUE(stored.count(olds[14 * j + 13])) << at << " loaded value " << j;
    }
  }
}

const char* kMixed = R"(
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define r memory_order_relaxed
#define s memory_scope_work_group
// 32-bit atomics on half of a 64-bit word each: w[2k] and w[2k + 1] share one.
void ops32(local int* p, int x, global int* o) {
  o[0] = atomic_add(p + 0, x);
  o[1] = atomic_sub(p + 2, x);
  o[2] = atomic_xchg(p + 4, x);
  o[3] = atomic_min(p + 6, x);
  o[4] = atomic_max(p + 8, x);
  o[5] = (int)atomic_min((local uint*)(p + 10), (uint)x);
  o[6] = (int)atomic_max((local uint*)(p + 12), (uint)x);
  o[7] = atomic_and(p + 14, x);
  o[8] = atomic_or(p + 16, x);
  o[9] = atomic_xor(p + 18, x);
  o[10] = atomic_inc(p + 20);
  o[11] = atomic_dec(p + 22);
  int e = atomic_add(p + 24, 0);
  for (;;) {
    int got = atomic_cmpxchg(p + 24, e, e + x);
    if (got == e) break;
    e = got;
  }
  o[12] = e;
  o[13] = atomic_load_explicit((volatile local atomic_int*)(p + 26), r, s);
  atomic_store_explicit((volatile local atomic_int*)(p + 26), x, r, s);
}

kernel void mixed(global long* big, global int* c32, global const int* v, global int* olds,
                  global uchar* out8, global ushort* out16, global uint* out32,
                  global ulong* out64, global int* coll, global float* fsum) {
  local long counter;  // its 64-bit atomic makes this kernel use the wide arena
  local int w[28] __attribute__((aligned(8)));
  local uchar b[256];
  local ushort h[256];
  local uint u[256], copied[256];
  local ulong q[256];
  local float f;
  size_t i = get_local_id(0), g = get_group_id(0), gi = get_global_id(0);
  if (i == 0) { counter = big[g]; f = 0.0f; }
  if (i < 28) w[i] = c32[28 * g + i];
  // Neighbouring bytes of one word come from different work-items at the same time.
  b[i] = (uchar)(gi * 7 + 1);
  h[i] = (ushort)(gi * 31 + 3);
  u[i] = (uint)gi * 2654435761u;
  q[i] = (ulong)gi * 0x9E3779B97F4A7C15UL;
  event_t e = async_work_group_copy(copied, (global const uint*)v + 256 * g, 256, 0);
  wait_group_events(1, &e);
  barrier(CLK_LOCAL_MEM_FENCE);
  int x = v[gi];
  atom_add(&counter, (long)x << 20);
  ops32(w, x, olds + 28 * gi);
  ops32(w + 1, x, olds + 28 * gi + 14);
  atomic_fetch_add_explicit((volatile local atomic_float*)&f, (float)(x & 0xff), r, s);
  coll[3 * gi] = work_group_reduce_add(x);
  coll[3 * gi + 1] = work_group_scan_exclusive_add(x);
  coll[3 * gi + 2] = work_group_broadcast(x, 5);
  size_t j = (i + 1) % 256;
  out8[gi] = b[j];
  out16[gi] = h[j];
  out32[gi] = u[j] ^ copied[i];
  out64[gi] = q[j];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i == 0) { big[g] = counter; fsum[g] = f; }
  if (i < 28) c32[28 * g + i] = w[i];
}
)";

// A kernel with a 64-bit local atomic that also does every 32-bit atomic on both halves of
// 64-bit words, plain 8/16/32/64-bit loads and stores, collectives, an async copy and a
// float atomic on local memory.
TEST_P(LocalAtomics64, WideArenaKernelKeepsEveryOtherLocalAccess) {
  const size_t wg = 256, groups = 2, n = wg * groups;
  std::vector<int32_t> v(n), c32(28 * groups);
  std::vector<int64_t> big(groups);
  std::uniform_int_distribution<int32_t> any;
  for (auto& x : v) x = any(rng_);
  for (auto& x : c32) x = any(rng_);
  for (auto& x : big) x = int64_t(any(rng_)) << 16;
  Program p = build(kMixed, "-cl-std=CL3.0");
  Kernel k = kernel(p, "mixed");
  Mem dbig = buffer(groups * 8, big.data()), dc = buffer(c32.size() * 4, c32.data());
  Mem dv = buffer(n * 4, v.data()), olds = poisoned(n * 28 * 4);
  Mem o8 = poisoned(n), o16 = poisoned(n * 2), o32 = poisoned(n * 4), o64 = poisoned(n * 8);
  Mem coll = poisoned(n * 12), fsum = poisoned(groups * 4);
  const Mem* args[] = {&dbig, &dc, &dv, &olds, &o8, &o16, &o32, &o64, &coll, &fsum};
  for (cl_uint a = 0; a < 10; ++a) set_mem_arg(k, a, *args[a]);
  run(k, 1, &n, &wg);
  auto rbig = read<int64_t>(dbig, groups);
  auto rc = read<int32_t>(dc, c32.size());
  auto ro = read<int32_t>(olds, n * 28);
  auto r8 = read<uint8_t>(o8, n);
  auto r16 = read<uint16_t>(o16, n);
  auto r32 = read<uint32_t>(o32, n);
  auto r64 = read<uint64_t>(o64, n);
  auto rcoll = read<int32_t>(coll, n * 3);
  auto rf = read<float>(fsum, groups);
  for (size_t g = 0; g < groups; ++g) {
    std::string at = "group " + std::to_string(g);
    std::vector<int32_t> x(v.begin() + g * wg, v.begin() + (g + 1) * wg);
    int64_t total = big[g];
    float fs = 0;
    int32_t sum = 0;
    for (int32_t xi : x) {
      total += int64_t(xi) * (1 << 20);
      fs += float(xi & 0xff);
      sum = int32_t(uint32_t(sum) + uint32_t(xi));
    }
    EXPECT_EQ(rbig[g], total) << at;
    EXPECT_EQ(rf[g], fs) << at;
    for (int half = 0; half < 2; ++half) {
      std::string where = at + " half " + std::to_string(half);
      for (int op = 0; op < 13; ++op) {
        std::vector<int32_t> column;
        for (size_t j = g * wg; j < (g + 1) * wg; ++j) column.push_back(ro[28 * j + 14 * half + op]);
        size_t slot = 28 * g + 2 * op + half;
        check_rmw<int32_t, uint32_t>(op, c32[slot], rc[slot], column, x, where);
      }
      size_t slot = 28 * g + 26 + half;
      std::set<int32_t> stored(x.begin(), x.end());
      EXPECT_TRUE(stored.count(rc[slot])) << where << " final stored value";
      stored.insert(c32[slot]);
      for (size_t j = g * wg; j < (g + 1) * wg; ++j)
        EXPECT_TRUE(stored.count(ro[28 * j + 14 * half + 13])) << where << " loaded value " << j;
    }
    int32_t prefix = 0;
    for (size_t i = 0; i < wg; ++i) {
      size_t gi = g * wg + i, nb = g * wg + (i + 1) % wg;
      EXPECT_EQ(r8[gi], uint8_t(nb * 7 + 1)) << gi;
      EXPECT_EQ(r16[gi], uint16_t(nb * 31 + 3)) << gi;
      EXPECT_EQ(r32[gi], (uint32_t(nb) * 2654435761u) ^ uint32_t(v[gi])) << gi;
      EXPECT_EQ(r64[gi], uint64_t(nb) * 0x9E3779B97F4A7C15ull) << gi;
      EXPECT_EQ(rcoll[3 * gi], sum) << gi;
      EXPECT_EQ(rcoll[3 * gi + 1], prefix) << gi;
      EXPECT_EQ(rcoll[3 * gi + 2], x[5]) << gi;
      prefix = int32_t(uint32_t(prefix) + uint32_t(x[i]));
    }
  }
}

// Two kernels share a helper that writes local memory; only one has a 64-bit local atomic,
// so the helper is lowered once per arena (at -cl-opt-disable it is not inlined).
TEST_P(LocalAtomics64, KernelsSharingAHelperUseTheirOwnArena) {
  const size_t wg = 64, n = 128;
  std::vector<int32_t> src(n);
  for (size_t i = 0; i < n; ++i) src[i] = int32_t(i * 1000 + 7);
  Program p = build(R"(
    #pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
    void fill(local int* l, global const int* src) {
      l[get_local_id(0)] = src[get_global_id(0)] * 3;
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    kernel void narrow(global const int* src, global int* dst, local int* l) {
      fill(l, src);
      dst[get_global_id(0)] = l[(get_local_id(0) + 1) % get_local_size(0)];
    }
    kernel void wide(global const int* src, global int* dst, local int* l, global long* total) {
      local long t;
      if (get_local_id(0) == 0) t = 0;
      fill(l, src);
      int mine = l[(get_local_id(0) + 1) % get_local_size(0)];
      atom_add(&t, (long)mine << 32);
      dst[get_global_id(0)] = mine;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) == 0) total[get_group_id(0)] = t;
    })", "-cl-std=CL3.0");
  for (const char* name : {"narrow", "wide"}) {
    Kernel k = kernel(p, name);
    Mem dsrc = buffer(n * 4, src.data()), ddst = poisoned(n * 4), dtotal = poisoned(16);
    set_mem_arg(k, 0, dsrc); set_mem_arg(k, 1, ddst);
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, wg * 4, nullptr));
    bool wide = std::string(name) == "wide";
    if (wide) set_mem_arg(k, 3, dtotal);
    run(k, 1, &n, &wg);
    auto dst = read<int32_t>(ddst, n);
    for (size_t g = 0; g < n / wg; ++g) {
      int64_t total = 0;
      for (size_t i = 0; i < wg; ++i) {
        int32_t expected = src[g * wg + (i + 1) % wg] * 3;
        EXPECT_EQ(dst[g * wg + i], expected) << name << " " << g * wg + i;
        total += int64_t(expected) * (int64_t(1) << 32);
      }
      if (wide) {
        EXPECT_EQ(read<int64_t>(dtotal, 2)[g], total) << g;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Options, LocalAtomics64,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
