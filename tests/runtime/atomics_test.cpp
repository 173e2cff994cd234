// Atomics (issue 3): 64-bit integer atomics on global, local and generic pointers, memory
// orders and scopes, atomic_flag and float atomics, against CPU references.
#include <algorithm>
#include <cstring>
#include <functional>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class Atomics : public KernelTest {
 protected:
  std::string device_string(cl_device_info what) {
    size_t size = 0;
    clGetDeviceInfo(device_, what, 0, nullptr, &size);
    std::string s(size, '\0');
    clGetDeviceInfo(device_, what, size, s.data(), nullptr);
    while (!s.empty() && s.back() == '\0') s.pop_back();
    return s;
  }
  bool has_extension(const std::string& name) {
    std::string e = " " + device_string(CL_DEVICE_EXTENSIONS) + " ";
    return e.find(" " + name + " ") != std::string::npos;
  }
};

// Every read-modify-write on one location forms a chain init -> x1 -> ... -> xn in
// modification order; each returned old value is one link. Whatever the order, the values
// read plus the final value equal the initial value plus the values written.
template <typename T, typename Op>
void expect_chain(T init, T final_value, const std::vector<T>& olds, const std::vector<T>& operands,
                  Op op, const std::string& what) {
  std::vector<T> read = olds, written = {init};
  read.push_back(final_value);
  for (size_t i = 0; i < olds.size(); ++i) written.push_back(op(olds[i], operands[i]));
  std::sort(read.begin(), read.end());
  std::sort(written.begin(), written.end());
  EXPECT_EQ(read, written) << what;
}

// The 13 operations, on counters p[0..12], in OpenCL 1.2 (atom_*) and C11 spelling.
constexpr int kOps = 13;
const char* kLong64Ops = R"(
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#define ATOM_OPS(SPACE)                                                           \
  o[0] = atom_add(p + 0, x);                                                      \
  o[1] = atom_sub(p + 1, x);                                                      \
  o[2] = atom_xchg(p + 2, x);                                                     \
  o[3] = atom_min(p + 3, x);                                                      \
  o[4] = atom_max(p + 4, x);                                                      \
  o[5] = (long)atom_min((SPACE ulong*)(p + 5), (ulong)x);                         \
  o[6] = (long)atom_max((SPACE ulong*)(p + 6), (ulong)x);                         \
  o[7] = atom_and(p + 7, x);                                                      \
  o[8] = atom_or(p + 8, x);                                                       \
  o[9] = atom_xor(p + 9, x);                                                      \
  o[10] = atom_inc(p + 10);                                                       \
  o[11] = atom_dec(p + 11);                                                       \
  {                                                                               \
    long e = atom_add(p + 12, 0L);                                                \
    for (;;) {                                                                    \
      long got = atom_cmpxchg(p + 12, e, e + x);                                  \
      if (got == e) break;                                                        \
      e = got;                                                                    \
    }                                                                             \
    o[12] = e;                                                                    \
  }

kernel void global_ops(global long* p, global const long* v, global long* olds) {
  size_t i = get_global_id(0);
  long x = v[i];
  global long* o = olds + 13 * i;
  ATOM_OPS(global)
}

kernel void local_ops(global long* c, global const long* v, global long* olds, local long* p) {
  size_t i = get_global_id(0), li = get_local_id(0), g = get_group_id(0);
  if (li < 13) p[li] = c[13 * g + li];
  barrier(CLK_LOCAL_MEM_FENCE);
  long x = v[i];
  global long* o = olds + 13 * i;
  ATOM_OPS(local)
  barrier(CLK_LOCAL_MEM_FENCE);
  if (li < 13) c[13 * g + li] = p[li];
}

// C11 atomics through generic pointers.
void generic_ops(long* p, long x, global long* o) {
  volatile atomic_long* a = (volatile atomic_long*)p;
  volatile atomic_ulong* u = (volatile atomic_ulong*)p;
  // A literal order: llvm-spirv 15 cannot write a variable one at -O0 (invalid linkage).
#define r memory_order_relaxed
  o[0] = atomic_fetch_add_explicit(a + 0, x, r);
  o[1] = atomic_fetch_sub_explicit(a + 1, x, r);
  o[2] = atomic_exchange_explicit(a + 2, x, r);
  o[3] = atomic_fetch_min_explicit(a + 3, x, r);
  o[4] = atomic_fetch_max_explicit(a + 4, x, r);
  o[5] = (long)atomic_fetch_min_explicit(u + 5, (ulong)x, r);
  o[6] = (long)atomic_fetch_max_explicit(u + 6, (ulong)x, r);
  o[7] = atomic_fetch_and_explicit(a + 7, x, r);
  o[8] = atomic_fetch_or_explicit(a + 8, x, r);
  o[9] = atomic_fetch_xor_explicit(a + 9, x, r);
  o[10] = atomic_fetch_add_explicit(a + 10, 1L, r);
  o[11] = atomic_fetch_sub_explicit(a + 11, 1L, r);
  long e = atomic_load_explicit(a + 12, r);
  while (!atomic_compare_exchange_strong_explicit(a + 12, &e, e + x, r, r)) {}
  o[12] = e;
#undef r
}

kernel void generic_ops_kernel(global long* c, global const long* v, global long* olds,
                               local long* l, int use_local) {
  size_t i = get_global_id(0), li = get_local_id(0), g = get_group_id(0);
  if (use_local) {
    if (li < 13) l[li] = c[13 * g + li];
    barrier(CLK_LOCAL_MEM_FENCE);
    generic_ops(l, v[i], olds + 13 * i);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (li < 13) c[13 * g + li] = l[li];
  } else {
    generic_ops(c, v[i], olds + 13 * i);
  }
}
)";

// Checks counters |c| (one set shared by work-items [first, first + count)) against |olds|.
void check_long_ops(const std::vector<int64_t>& init, const std::vector<int64_t>& c,
                    const std::vector<int64_t>& olds, const std::vector<int64_t>& v,
                    size_t first, size_t count, const std::string& where) {
  using u64 = uint64_t;
  std::vector<int64_t> x(v.begin() + first, v.begin() + first + count);
  auto column = [&](int op) {
    std::vector<int64_t> r;
    for (size_t i = first; i < first + count; ++i) r.push_back(olds[kOps * i + op]);
    return r;
  };
  auto wrap_add = [](int64_t a, int64_t b) { return int64_t(u64(a) + u64(b)); };
  auto wrap_sub = [](int64_t a, int64_t b) { return int64_t(u64(a) - u64(b)); };
  std::vector<std::function<int64_t(int64_t, int64_t)>> ops = {
      wrap_add,
      wrap_sub,
      [](int64_t, int64_t b) { return b; },
      [](int64_t a, int64_t b) { return std::min(a, b); },
      [](int64_t a, int64_t b) { return std::max(a, b); },
      [](int64_t a, int64_t b) { return int64_t(std::min(u64(a), u64(b))); },
      [](int64_t a, int64_t b) { return int64_t(std::max(u64(a), u64(b))); },
      [](int64_t a, int64_t b) { return a & b; },
      [](int64_t a, int64_t b) { return a | b; },
      [](int64_t a, int64_t b) { return a ^ b; },
      [&](int64_t a, int64_t) { return wrap_add(a, 1); },
      [&](int64_t a, int64_t) { return wrap_sub(a, 1); },
      wrap_add};
  for (int op = 0; op < kOps; ++op) {
    // Every operation but exchange (op 2) commutes, so the final value does not depend on
    // the order; the chain below pins the exchanges down (work-groups run in any order).
    int64_t expected = init[op];
    for (int64_t xi : x) expected = ops[op](expected, xi);
    if (op != 2) {
      EXPECT_EQ(c[op], expected) << where << " op " << op;
    }
    expect_chain<int64_t>(init[op], c[op], column(op), x, ops[op], where + " op " + std::to_string(op));
  }
}

TEST_P(Atomics, Int64OnGlobalLocalAndGenericPointers) {
  ASSERT_TRUE(has_extension("cl_khr_int64_base_atomics") && has_extension("cl_khr_int64_extended_atomics"));
  const size_t n = 256, wg = 64, groups = n / wg;
  std::vector<int64_t> v(n), init(kOps * groups);
  std::uniform_int_distribution<int64_t> any;
  for (auto& x : v) x = any(rng_);
  for (auto& x : init) x = any(rng_);
  Program p = build(kLong64Ops, "-cl-std=CL3.0");
  struct Variant { const char* kernel; bool local; int use_local; };
  for (Variant variant : {Variant{"global_ops", false, -1}, Variant{"local_ops", true, -1},
                          Variant{"generic_ops_kernel", false, 0},
                          Variant{"generic_ops_kernel", true, 1}}) {
    std::string where = std::string(variant.kernel) + (variant.local ? " local" : " global");
    Kernel k = kernel(p, variant.kernel);
    Mem dc = buffer(init.size() * 8, init.data()), dv = buffer(n * 8, v.data());
    Mem dolds = poisoned(n * kOps * 8);
    set_mem_arg(k, 0, dc); set_mem_arg(k, 1, dv); set_mem_arg(k, 2, dolds);
    if (std::string(variant.kernel) != "global_ops") {
      ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 3, kOps * 8, nullptr));
    }
    if (variant.use_local >= 0) set_arg(k, 4, variant.use_local);
    run(k, 1, &n, &wg);
    auto c = read<int64_t>(dc, init.size());
    auto olds = read<int64_t>(dolds, n * kOps);
    if (variant.local) {
      for (size_t g = 0; g < groups; ++g)
        check_long_ops({init.begin() + kOps * g, init.begin() + kOps * (g + 1)},
                       {c.begin() + kOps * g, c.begin() + kOps * (g + 1)}, olds, v, g * wg, wg,
                       where + " group " + std::to_string(g));
    } else {
      check_long_ops(init, c, olds, v, 0, n, where);
    }
  }
}

TEST_P(Atomics, DeviceReportsOrdersAndScopes) {
  cl_device_atomic_capabilities memory = 0, fence = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES,
                                        sizeof(memory), &memory, nullptr));
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_ATOMIC_FENCE_CAPABILITIES,
                                        sizeof(fence), &fence, nullptr));
  EXPECT_EQ(memory, cl_device_atomic_capabilities(
                        CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                        CL_DEVICE_ATOMIC_ORDER_SEQ_CST | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP |
                        CL_DEVICE_ATOMIC_SCOPE_DEVICE));
  EXPECT_EQ(fence, cl_device_atomic_capabilities(
                       CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                       CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP |
                       CL_DEVICE_ATOMIC_SCOPE_DEVICE));
  // The feature macros say the same as the queries.
  Program p = build(R"(
    kernel void k(global int* out) {
      out[0] = 0
    #ifdef __opencl_c_atomic_order_acq_rel
        | 1
    #endif
    #ifdef __opencl_c_atomic_order_seq_cst
        | 2
    #endif
    #ifdef __opencl_c_atomic_scope_device
        | 4
    #endif
    #ifdef __opencl_c_atomic_scope_all_devices
        | 8
    #endif
        ;
    })", "-cl-std=CL3.0");
  Kernel k = kernel(p, "k");
  Mem out = poisoned(4);
  set_mem_arg(k, 0, out);
  size_t one = 1;
  run(k, 1, &one, &one);
  EXPECT_EQ(read<int>(out, 1)[0], 7);
}

// Release stores and acquire loads between work-groups (global memory, device scope) and
// between work-items of a group (local memory, work-group scope), with atomics and with
// fences: whenever a consumer sees the flag it must see the data written before it.
TEST_P(Atomics, MessagePassingWithReleaseAcquire) {
  const size_t wg = 32, groups = 16, n = wg * groups;
  Program p = build(R"(
    kernel void k(global int* data, volatile global atomic_int* flags, global int* out,
                  local int* ldata) {
      size_t i = get_global_id(0), li = get_local_id(0), g = get_group_id(0);
      size_t ng = get_num_groups(0), wg = get_local_size(0);
      local atomic_int lflag[2];
      if (li == 0) {
        atomic_init(&lflag[0], 0);
        atomic_init(&lflag[1], 0);
      }
      work_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_work_group);
      // Producers: work-item 0 of each group, by an atomic release store (flags[2g]) and by
      // a release fence before a relaxed store (flags[2g+1]).
      if (li == 0) {
        data[2 * g] = (int)(g * 1000 + 1);
        atomic_store_explicit(&flags[2 * g], 1, memory_order_release, memory_scope_device);
        data[2 * g + 1] = (int)(g * 1000 + 2);
        atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device);
        atomic_store_explicit(&flags[2 * g + 1], 1, memory_order_relaxed, memory_scope_device);
        ldata[0] = (int)g + 7;
        atomic_store_explicit(&lflag[0], 1, memory_order_release, memory_scope_work_group);
      }
      // Consumers: the last work-item of each group reads the next group's messages, polling
      // a bounded number of times (work-groups need not run at the same time).
      if (li == wg - 1) {
        size_t h = (g + 1) % ng;
        int seen = 0, value = -1;
        for (int t = 0; t < 100000 && !seen; ++t)
          seen = atomic_load_explicit(&flags[2 * h], memory_order_acquire, memory_scope_device);
        if (seen) value = data[2 * h];
        out[4 * g] = seen;
        out[4 * g + 1] = value;
        seen = 0;
        value = -1;
        for (int t = 0; t < 100000 && !seen; ++t)
          seen = atomic_load_explicit(&flags[2 * h + 1], memory_order_relaxed, memory_scope_device);
        atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, memory_scope_device);
        if (seen) value = data[2 * h + 1];
        out[4 * g + 2] = seen;
        out[4 * g + 3] = value;
      }
      if (li == 1) {
        int seen = 0;
        for (int t = 0; t < 100000 && !seen; ++t)
          seen = atomic_load_explicit(&lflag[0], memory_order_acquire, memory_scope_work_group);
        out[4 * ng + g] = seen ? ldata[0] : -1;
      }
    })", "-cl-std=CL3.0");
  Kernel k = kernel(p, "k");
  std::vector<int> zeros(2 * groups, 0);
  Mem data = poisoned(2 * groups * 4), flags = buffer(2 * groups * 4, zeros.data());
  Mem out = poisoned((4 * groups + groups) * 4);
  set_mem_arg(k, 0, data); set_mem_arg(k, 1, flags); set_mem_arg(k, 2, out);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 3, 16, nullptr));
  run(k, 1, &n, &wg);
  auto r = read<int>(out, 5 * groups);
  int seen = 0;
  for (size_t g = 0; g < groups; ++g) {
    size_t h = (g + 1) % groups;
    EXPECT_TRUE(r[4 * g] == 0 || r[4 * g] == 1) << r[4 * g];
    EXPECT_TRUE(r[4 * g + 2] == 0 || r[4 * g + 2] == 1) << r[4 * g + 2];
    if (r[4 * g]) {
      ++seen;
      EXPECT_EQ(r[4 * g + 1], int(h * 1000 + 1)) << g;
    }
    if (r[4 * g + 2]) {
      ++seen;
      EXPECT_EQ(r[4 * g + 3], int(h * 1000 + 2)) << g;
    }
    // Work-items of one group run concurrently (or in turn), so the local flag is seen.
    EXPECT_EQ(r[4 * groups + g], int(g) + 7) << g;
  }
  EXPECT_GT(seen, 0);
}

// Store buffering: x = 1; r1 = y  ||  y = 1; r2 = x. With seq_cst both loads reading 0 is
// forbidden; Vulkan's AcquireRelease alone would allow it.
TEST_P(Atomics, SeqCstForbidsStoreBuffering) {
  const size_t pairs = 512, wg = 64, n = 2 * pairs;
  Program p = build(R"(
    kernel void k(volatile global atomic_int* xy, global int* r) {
      size_t i = get_global_id(0);
      size_t mid = get_global_size(0) >> 1;
      size_t side = i >= mid ? 1 : 0, pair = i - side * mid;
      volatile global atomic_int* mine = &xy[2 * pair + side];
      volatile global atomic_int* theirs = &xy[2 * pair + 1 - side];
      atomic_store(mine, 1);
      r[i] = atomic_load(theirs);
    })", "-cl-std=CL3.0");
  Kernel k = kernel(p, "k");
  for (int round = 0; round < 4; ++round) {
    std::vector<int> zeros(2 * pairs, 0);
    Mem xy = buffer(2 * pairs * 4, zeros.data()), r = poisoned(n * 4);
    set_mem_arg(k, 0, xy); set_mem_arg(k, 1, r);
    run(k, 1, &n, &wg);
    auto out = read<int>(r, n);
    for (size_t q = 0; q < pairs; ++q) {
      EXPECT_TRUE(out[q] == 0 || out[q] == 1) << q;
      EXPECT_FALSE(out[q] == 0 && out[pairs + q] == 0) << "pair " << q;
    }
  }
}

// OpenCL 1.2 barrier(CLK_GLOBAL_MEM_FENCE) and 2.0 work_group_barrier with a scope: what a
// work-item wrote before the barrier, its neighbour reads after it.
TEST_P(Atomics, BarriersOrderGlobalAndLocalMemory) {
  const size_t n = 256, wg = 64;
  Program p = build(R"(
    kernel void k(global int* a, global int* out, local int* l) {
      size_t i = get_global_id(0), li = get_local_id(0), wg = get_local_size(0);
      size_t base = i - li;
      a[i] = (int)(i * 3 + 1);
      barrier(CLK_GLOBAL_MEM_FENCE);
      int x = a[base + (li + 1) % wg];
      l[li] = x;
      work_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_work_group);
      int y = l[(li + 5) % wg];
      a[i] = -(int)i;
      work_group_barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE, memory_scope_device);
      out[2 * i] = x + y;
      out[2 * i + 1] = a[base + (li + 3) % wg];
    })", "-cl-std=CL3.0");
  Kernel k = kernel(p, "k");
  Mem a = poisoned(n * 4), out = poisoned(2 * n * 4);
  set_mem_arg(k, 0, a); set_mem_arg(k, 1, out);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, wg * 4, nullptr));
  run(k, 1, &n, &wg);
  auto r = read<int>(out, 2 * n);
  for (size_t i = 0; i < n; ++i) {
    size_t li = i % wg, base = i - li;
    auto x_of = [&](size_t l) { return int((base + (l + 1) % wg) * 3 + 1); };
    EXPECT_EQ(r[2 * i], x_of(li) + x_of((li + 5) % wg)) << i;
    EXPECT_EQ(r[2 * i + 1], -int(base + (li + 3) % wg)) << i;
  }
}

// atomic_flag: of the work-items setting one flag, exactly one finds it clear; a flag used
// as a lock guards a plain counter. Only one work-item per group takes the lock: work-items
// of a group have no forward-progress guarantee among themselves (a lane spinning on a lock
// its neighbour holds can starve it), while a group holding the lock is already running.
TEST_P(Atomics, AtomicFlagTestAndSetAndClear) {
  const size_t n = 512, wg = 64, flags_count = 8;
  Program p = build(R"(
    kernel void set(volatile global atomic_flag* flags, global int* out, int count) {
      size_t i = get_global_id(0);
      out[i] = atomic_flag_test_and_set_explicit(&flags[i % count], memory_order_relaxed,
                                                 memory_scope_device);
    }
    kernel void clear(volatile global atomic_flag* flags) {
      atomic_flag_clear(&flags[get_global_id(0)]);
    }
    kernel void locked(volatile global atomic_flag* lock, global int* counter) {
      if (get_local_id(0) != 0) return;
      while (atomic_flag_test_and_set_explicit(lock, memory_order_acquire, memory_scope_device)) {}
      *counter += 1;
      atomic_flag_clear_explicit(lock, memory_order_release, memory_scope_device);
    })", "-cl-std=CL3.0");
  std::vector<int> zeros(flags_count, 0);
  Mem flags = buffer(flags_count * 4, zeros.data()), out = poisoned(n * 4);
  Kernel set = kernel(p, "set");
  set_mem_arg(set, 0, flags); set_mem_arg(set, 1, out); set_arg(set, 2, int(flags_count));
  run(set, 1, &n, &wg);
  auto r = read<int>(out, n);
  for (size_t f = 0; f < flags_count; ++f) {
    int clear_seen = 0;
    for (size_t i = f; i < n; i += flags_count) {
      EXPECT_TRUE(r[i] == 0 || r[i] == 1) << i;
      clear_seen += r[i] == 0;
    }
    EXPECT_EQ(clear_seen, 1) << "flag " << f;
  }
  for (int v : read<int>(flags, flags_count)) EXPECT_NE(v, 0);
  Kernel clear = kernel(p, "clear");
  set_mem_arg(clear, 0, flags);
  size_t half = flags_count / 2;
  run(clear, 1, &half, &half);
  auto after = read<int>(flags, flags_count);
  for (size_t f = 0; f < flags_count; ++f) EXPECT_EQ(after[f] != 0, f >= half) << f;

  const size_t groups = 64, many = groups * wg;
  Mem lock = buffer(4, zeros.data()), counter = buffer(4, zeros.data());
  Kernel locked = kernel(p, "locked");
  set_mem_arg(locked, 0, lock); set_mem_arg(locked, 1, counter);
  run(locked, 1, &many, &wg);
  EXPECT_EQ(read<int>(counter, 1)[0], int(groups));
  EXPECT_EQ(read<int>(lock, 1)[0], 0);
}

// cl_ext_float_atomics on 32-bit floats: add, sub, min and max on global memory (Vulkan's own
// instructions where the device has them), local memory and generic pointers (compare-
// exchange loops). Operands are small multiples of 1/4, so every order gives exact sums.
TEST_P(Atomics, Float32AddSubMinMax) {
  ASSERT_TRUE(has_extension("cl_ext_float_atomics"));
  const size_t n = 256, wg = 64, groups = n / wg;
  std::vector<float> v(n), init(4 * groups);
  std::uniform_int_distribution<int> q(-400, 400);
  for (auto& x : v) x = q(rng_) / 4.0f;
  for (auto& x : init) x = q(rng_) / 4.0f;
  Program p = build(R"(
    #define OPS(o, p, x, order, scope)                                              \
      o[0] = atomic_fetch_add_explicit(p + 0, x, order, scope);                     \
      o[1] = atomic_fetch_sub_explicit(p + 1, x, order, scope);                     \
      o[2] = atomic_fetch_min_explicit(p + 2, x, order, scope);                     \
      o[3] = atomic_fetch_max_explicit(p + 3, x, order, scope);
    kernel void global_ops(volatile global atomic_float* p, global const float* v,
                           global float* olds) {
      size_t i = get_global_id(0);
      global float* o = olds + 4 * i;
      OPS(o, p, v[i], memory_order_relaxed, memory_scope_device)
    }
    void generic_ops(volatile atomic_float* p, float x, global float* o) {
      OPS(o, p, x, memory_order_acq_rel, memory_scope_work_group)
    }
    kernel void local_ops(global float* c, global const float* v, global float* olds,
                          volatile local atomic_float* p, int use_generic) {
      size_t i = get_global_id(0), li = get_local_id(0), g = get_group_id(0);
      if (li < 4) atomic_init(p + li, c[4 * g + li]);
      barrier(CLK_LOCAL_MEM_FENCE);
      global float* o = olds + 4 * i;
      if (use_generic) {
        generic_ops(p, v[i], o);
      } else {
        OPS(o, p, v[i], memory_order_relaxed, memory_scope_work_group)
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      if (li < 4) c[4 * g + li] = atomic_load_explicit(p + li, memory_order_relaxed,
                                                       memory_scope_work_group);
    })", "-cl-std=CL3.0");
  std::vector<std::function<float(float, float)>> ops = {
      [](float a, float b) { return a + b; }, [](float a, float b) { return a - b; },
      [](float a, float b) { return std::min(a, b); },
      [](float a, float b) { return std::max(a, b); }};
  auto check = [&](const std::vector<float>& start, const std::vector<float>& c,
                   const std::vector<float>& olds, size_t first, size_t count,
                   const std::string& where) {
    std::vector<float> x(v.begin() + first, v.begin() + first + count);
    for (int op = 0; op < 4; ++op) {
      float expected = start[op];
      for (float xi : x) expected = ops[op](expected, xi);
      EXPECT_EQ(c[op], expected) << where << " op " << op;
      std::vector<float> column;
      for (size_t i = first; i < first + count; ++i) column.push_back(olds[4 * i + op]);
      expect_chain<float>(start[op], c[op], column, x, ops[op], where + " op " + std::to_string(op));
    }
  };
  {
    Kernel k = kernel(p, "global_ops");
    Mem c = buffer(16, init.data()), dv = buffer(n * 4, v.data()), olds = poisoned(n * 16);
    set_mem_arg(k, 0, c); set_mem_arg(k, 1, dv); set_mem_arg(k, 2, olds);
    run(k, 1, &n, &wg);
    check(init, read<float>(c, 4), read<float>(olds, 4 * n), 0, n, "global");
  }
  for (int generic : {0, 1}) {
    Kernel k = kernel(p, "local_ops");
    Mem c = buffer(init.size() * 4, init.data()), dv = buffer(n * 4, v.data());
    Mem olds = poisoned(n * 16);
    set_mem_arg(k, 0, c); set_mem_arg(k, 1, dv); set_mem_arg(k, 2, olds);
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 3, 16, nullptr));
    set_arg(k, 4, generic);
    run(k, 1, &n, &wg);
    auto cs = read<float>(c, init.size());
    auto o = read<float>(olds, 4 * n);
    for (size_t g = 0; g < groups; ++g)
      check({init.begin() + 4 * g, init.begin() + 4 * (g + 1)},
            {cs.begin() + 4 * g, cs.begin() + 4 * (g + 1)}, o, g * wg, wg,
            std::string(generic ? "generic" : "local") + " group " + std::to_string(g));
  }
}

// atomic_compare_exchange_weak in a retry loop, as programs use it: llvm-spirv 15 writes
// OpAtomicCompareExchangeWeak, which SPIR-V 1.4 no longer has (CTS c11_atomics).
TEST_P(Atomics, CompareExchangeWeakLoops) {
  Program p = build(R"(
    __kernel void k(volatile __global atomic_int* sum, volatile __local atomic_int* local_sum,
                    __global int* out) {
      int v = (int)get_global_id(0) % 7 + 1;
      if (get_local_id(0) == 0) atomic_init(local_sum, 0);
      barrier(CLK_LOCAL_MEM_FENCE);
      int old = atomic_load(sum);
      while (!atomic_compare_exchange_weak(sum, &old, old + v)) {}
      int lold = atomic_load(local_sum);
      while (!atomic_compare_exchange_weak_explicit(local_sum, &lold, lold + v, memory_order_relaxed,
                                                    memory_order_relaxed, memory_scope_work_group)) {}
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) == 0) out[get_group_id(0)] = atomic_load(local_sum);
    })", "-cl-std=CL3.0");
  Kernel k = kernel(p, "k");
  const int groups = 4, size = 64;
  int zero = 0;
  Mem sum = buffer(4, &zero), out = poisoned(groups * 4);
  set_mem_arg(k, 0, sum);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, 4, nullptr));
  set_mem_arg(k, 2, out);
  size_t global = groups * size, local = size;
  run(k, 1, &global, &local);
  int total = 0;
  std::vector<int> per_group(groups, 0);
  for (int i = 0; i < groups * size; ++i) total += i % 7 + 1, per_group[i / size] += i % 7 + 1;
  EXPECT_EQ(read<int>(sum, 1)[0], total);
  EXPECT_EQ(read<int>(out, groups), per_group);
}

INSTANTIATE_TEST_SUITE_P(Options, Atomics,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
