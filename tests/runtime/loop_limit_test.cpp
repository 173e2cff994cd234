// Loops on a driver that allows a batch of work-items 65535 loop iterations in all (Mesa's
// llvmpipe): kernels stop before that and resume in the next round of their launch, so long
// loops give exact results, however many rounds they take; a kernel cut short (one that
// cannot resume) fails with CL_OUT_OF_RESOURCES and vkcl says so on stderr. On other drivers
// the same kernels simply run.
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

// Two loops of |n| iterations whose work depends on the data, so neither can be folded.
const char* kTwoLoops = R"(
  __kernel void two_loops(__global const uint* a, __global uint* out, uint n) {
    uint c = 0;
    for (uint i = 0; i < n; i++) c += a[i & 7] & 1 ? 2 : 1;
    for (uint i = 0; i < n; i++) c += a[(i + 3) & 7] & 1 ? 3 : 1;
    out[get_global_id(0)] = c;
  })";

uint32_t two_loops_reference(const std::vector<uint32_t>& a, uint32_t n) {
  uint32_t c = 0;
  for (uint32_t i = 0; i < n; i++) c += a[i & 7] & 1 ? 2 : 1;
  for (uint32_t i = 0; i < n; i++) c += a[(i + 3) & 7] & 1 ? 3 : 1;
  return c;
}

// The rotate kernels' ring of |local| values after |n| steps: each takes its neighbour's
// value times 3 plus the step.
std::vector<uint32_t> rotate_reference(uint32_t local, uint32_t n) {
  std::vector<uint32_t> ring(local), next(local);
  for (uint32_t l = 0; l < local; ++l) ring[l] = l + 1;
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t l = 0; l < local; ++l) next[l] = ring[(l + 1) % local] * 3u + i;
    ring = next;
  }
  return ring;
}

class LoopLimit : public KernelTest {
 protected:
  bool driver_limits_loops() {
    char name[256] = {};
    clGetDeviceInfo(device_, CL_DEVICE_NAME, sizeof name - 1, name, nullptr);
    return std::string(name).find("llvmpipe") != std::string::npos;
  }
  // Whether launches whose loops are counted short are left queued here, not waited for: on
  // a driver that limits loops, but not at -cl-opt-disable, where the loops count in memory,
  // nor where vkcl widens small types (the no_narrow_types set), whose stores may become
  // loops of its own.
  bool launches_counted() {
    const bool optimised = std::string(GetParam()).find("-cl-opt-disable") == std::string::npos;
    return driver_limits_loops() && optimised && std::getenv("VKCL_WITHOUT_FEATURES") == nullptr;
  }
  // |k| over |items| work-items in groups of |local|, then |add_one| over as many (or over
  // |add_items|): the first one's event.
  cl_event launch_then_add_one(const Kernel& k, const Kernel& add_one, size_t items, size_t local,
                               size_t add_items = 0) {
    cl_event e = nullptr;
    if (!add_items) add_items = items;
    EXPECT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &items, &local, 0, nullptr, &e));
    EXPECT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, add_one, 1, nullptr, &add_items, nullptr, 0, nullptr, nullptr));
    return e;
  }
  // Runs |k| over |items| work-items (1D) and expects no report of a cut on stderr.
  void run_uncut(const Kernel& k, size_t items, const size_t* local = nullptr) {
    CapturedStderr captured;
    run(k, 1, &items, local);
    std::string said = captured.text();
    EXPECT_EQ(said.find("vkcl: kernel"), std::string::npos) << said;
  }
  // Runs kernel |name| of |p| (seeds, out, n) over 16 work-items in groups of 8, each with a
  // random seed, and compares each work-item's result with |reference|(g, seed, n).
  void check_seeded(const Program& p, const char* name, uint32_t n,
                    const std::function<uint32_t(uint32_t, uint32_t, uint32_t)>& reference) {
    const size_t items = 16, local = 8;
    std::vector<uint32_t> seeds(items);
    for (auto& s : seeds) s = uint32_t(rng_());
    Kernel k = kernel(p, name);
    Mem ds = buffer(items * 4, seeds.data());
    Mem dout = poisoned(items * 4);
    set_mem_arg(k, 0, ds);
    set_mem_arg(k, 1, dout);
    set_arg(k, 2, n);
    run_uncut(k, items, &local);
    std::vector<uint32_t> out = read<uint32_t>(dout, items);
    for (uint32_t g = 0; g < items; ++g) ASSERT_EQ(out[g], reference(g, seeds[g], n)) << "work-item " << g;
  }
  // A "beside" kernel (out, outer, n, ...) set for |outer| passes of the loop around and |n|
  // of the long loop, and its buffers.
  struct Beside {
    Kernel k;
    Mem out, outer;
  };
  Beside beside(const Program& p, size_t items, cl_int outer, cl_int n) {
    Beside b{kernel(p, "beside"), poisoned(items * 4), buffer(4, &outer)};
    set_mem_arg(b.k, 0, b.out);
    set_mem_arg(b.k, 1, b.outer);
    set_arg(b.k, 2, n);
    return b;
  }
  // Runs |k| over |items| work-items (1D) in groups of |local| and waits for it: what the wait
  // returned, the command's status and what vkcl said on stderr meanwhile.
  struct Waited {
    cl_int waited, status;
    std::string said;
  };
  Waited launch_and_wait(const Kernel& k, size_t items, size_t local) {
    cl_event e = nullptr;
    CapturedStderr captured;
    EXPECT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &items, &local, 0, nullptr, &e));
    Event event(e);
    Waited w;
    w.waited = clWaitForEvents(1, &e);
    w.status = status_of(e);
    w.said = captured.text();
    return w;
  }
  cl_int status_of(cl_event e) {
    cl_int s = CL_QUEUED;
    EXPECT_EQ(CL_SUCCESS, clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr));
    return s;
  }
  // kTwoLoops and a kernel that adds 1 to each element of its buffer.
  Program two_loops_and_add_one() {
    return build(std::string(kTwoLoops) + R"(
      __kernel void add_one(__global uint* out) { out[get_global_id(0)] += 1; })");
  }
  // Eight random words for two_loops' |a|, in |*a| and a buffer.
  Mem random_words(std::vector<uint32_t>* a) {
    a->resize(8);
    for (auto& x : *a) x = uint32_t(rng_());
    return buffer(a->size() * 4, a->data());
  }
  // Runs two_loops over |items| work-items in groups of |local| with |n| iterations per loop;
  // returns its event (waited for with clWaitForEvents, whose result goes to |*waited|).
  Event run_two_loops(uint32_t n, size_t items, size_t local, std::vector<uint32_t>* a,
                      std::vector<uint32_t>* out, cl_int* waited) {
    Program p = build(kTwoLoops);
    Kernel k = kernel(p, "two_loops");
    a->resize(8);
    for (auto& x : *a) x = uint32_t(rng_());
    Mem da = buffer(a->size() * 4, a->data());
    Mem dout = poisoned(items * 4);
    set_mem_arg(k, 0, da);
    set_mem_arg(k, 1, dout);
    set_arg(k, 2, n);
    cl_event e = nullptr;
    EXPECT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &items, &local, 0, nullptr, &e));
    Event event(e);
    *waited = clWaitForEvents(1, &e);
    *out = read<uint32_t>(dout, items);
    return event;
  }
};

// 80000 iterations for every work-item, past the driver's 65535 per batch: exact results,
// however the work-items are grouped.
TEST_P(LoopLimit, LongLoopsRunToTheEnd) {
  for (auto [n, items, local] : {std::array<uint32_t, 3>{40000, 64, 8}, {40000, 1, 1},
                                 {40000, 24, 3}, {1000000, 16, 16}}) {
    std::vector<uint32_t> a, out;
    cl_int waited = CL_OUT_OF_RESOURCES;
    CapturedStderr captured;
    Event e = run_two_loops(n, items, local, &a, &out, &waited);
    std::string said = captured.text();
    EXPECT_EQ(waited, CL_SUCCESS) << n;
    EXPECT_EQ(status_of(e), CL_COMPLETE) << n;
    EXPECT_EQ(said.find("vkcl: kernel"), std::string::npos) << said;
    uint32_t want = two_loops_reference(a, n);
    for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], want) << "n " << n << " work-item " << i;
  }
}

// for, while and do loops nested, with breaks and continues, trip counts that differ between
// the work-items of a batch, private arrays indexed at run time, a pointer into one and a
// helper function with a loop of its own.
TEST_P(LoopLimit, NestedLoopsOfEveryKind) {
  Program p = build(R"(
    uint helper(uint x, uint m) {
      uint s = 0;
      for (uint k = 0; k < m; k++) s += (x >> (k & 7)) & 3;
      return s;
    }
    __kernel void nested(__global const uint* seeds, __global uint* out, uint n) {
      uint g = get_global_id(0);
      uint hist[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      uint* slot = &hist[g & 7];
      uint x = seeds[g], total = 0;
      for (uint i = 0; i < n + g * 97; i++) {
        x = x * 1103515245u + 12345u;
        if ((x >> 16) % 7 == 0) continue;
        uint j = 0;
        while (j < (x >> 28)) {
          hist[(x >> j) & 7] += j;
          if (((x >> 3) & 63) == 5) break;
          j++;
        }
        do { total += j; j = j / 2; } while (j > 1);
        if (i % 1000 == 999) total += helper(x, 20);
        *slot += 1;
      }
      uint h = 0;
      for (int k = 0; k < 8; k++) h = h * 31 + hist[k];
      out[g] = total ^ h;
    })");
  auto reference = [](uint32_t g, uint32_t seed, uint32_t n) {
    auto helper = [](uint32_t x, uint32_t m) {
      uint32_t s = 0;
      for (uint32_t k = 0; k < m; k++) s += (x >> (k & 7)) & 3;
      return s;
    };
    uint32_t hist[8] = {};
    uint32_t x = seed, total = 0;
    for (uint32_t i = 0; i < n + g * 97; i++) {
      x = x * 1103515245u + 12345u;
      if ((x >> 16) % 7 == 0) continue;
      uint32_t j = 0;
      while (j < (x >> 28)) {
        hist[(x >> j) & 7] += j;
        if (((x >> 3) & 63) == 5) break;
        j++;
      }
      do { total += j; j = j / 2; } while (j > 1);
      if (i % 1000 == 999) total += helper(x, 20);
      hist[g & 7] += 1;
    }
    uint32_t h = 0;
    for (int k = 0; k < 8; k++) h = h * 31 + hist[k];
    return total ^ h;
  };
  check_seeded(p, "nested", 30000, reference);
}

// Addresses at constant places in a private array, taken before a long loop and passed to a
// helper in it (as hashcat's MD5 code passes its 16-byte blocks): computed again when the
// work-item resumes, not saved, they still reach what the loop changes.
TEST_P(LoopLimit, FixedAddressesIntoPrivateArrays) {
  Program p = build(R"(
    __attribute__((noinline)) void mix(uint* b, uint x) { b[x & 3] += x; b[0] ^= b[3] >> 1; }
    __kernel void fixed(__global const uint* seeds, __global uint* out, uint n) {
      uint g = get_global_id(0);
      uint w[12];
      for (int k = 0; k < 12; k++) w[k] = seeds[g] + k;
      uint* high = w + 8;
      uint x = seeds[g];
      for (uint i = 0; i < n + g * 31; i++) {
        x = x * 1103515245u + 12345u;
        mix(w + 4, x >> 7);
        mix(high, x >> 3);
      }
      uint h = 0;
      for (int k = 0; k < 12; k++) h = h * 31 + w[k];
      out[g] = h;
    })");
  auto reference = [](uint32_t g, uint32_t seed, uint32_t n) {
    auto mix = [](uint32_t* b, uint32_t x) {
      b[x & 3] += x;
      b[0] ^= b[3] >> 1;
    };
    uint32_t w[12];
    for (uint32_t k = 0; k < 12; k++) w[k] = seed + k;
    uint32_t x = seed;
    for (uint32_t i = 0; i < n + g * 31; i++) {
      x = x * 1103515245u + 12345u;
      mix(w + 4, x >> 7);
      mix(w + 8, x >> 3);
    }
    uint32_t h = 0;
    for (int k = 0; k < 12; k++) h = h * 31 + w[k];
    return h;
  };
  check_seeded(p, "fixed", 80000, reference);
}

// A long loop that calls a built-in with loops of its own (tgamma's polyfill): the kernel
// resumes like any other and the library's loops count in the budget. Such kernels once
// never resumed and failed (sasmodels' superball in single precision).
TEST_P(LoopLimit, LongLoopsCallingBuiltinsWithLoops) {
  Program p = build(R"(
    __kernel void gamma_sum(__global float* out, uint n) {
      float acc = 0.0f;
      for (uint i = 0; i < n; i++) acc += tgamma(1.0f + (float)((i + get_global_id(0)) % 50) * 0.1f);
      out[get_global_id(0)] = acc;
    })");
  const size_t items = 16;
  const uint32_t n = 200000;
  Kernel k = kernel(p, "gamma_sum");
  Mem dout = poisoned(items * 4);
  set_mem_arg(k, 0, dout);
  set_arg(k, 1, n);
  run_uncut(k, items);
  std::vector<float> out = read<float>(dout, items);
  for (size_t g = 0; g < items; ++g) {
    double want = 0;
    for (uint32_t i = 0; i < n; ++i) want += std::tgamma(1.0 + double(float((i + g) % 50) * 0.1f));
    ASSERT_NEAR(out[g], want, want * 1e-3) << "work-item " << g;
  }
}

// The same built-in called outside the long loop but inside a loop around it: in every pass
// of the long loop the driver also runs tgamma's loops with no work-item in them, each taking
// a pass from its limiter, and the kernel counts those too (sasmodels' superball in single
// precision, whose form volume calls tgamma in its polydispersity loop, was cut short).
TEST_P(LoopLimit, LongLoopsBesideBuiltinsWithLoops) {
  Program p = build(R"(
    __kernel void beside(__global float* out, __global const int* outer, int n) {
      int g = get_global_id(0);
      float acc = 0.0f;
      for (int k = 0; k < outer[0]; k++) {
        float v = tgamma(1.5f + k);
        for (int a = 0; a < n; a++) acc += (a ^ g) & 3;
        acc += v;
      }
      out[g] = acc;
    })");
  const size_t items = 8;
  const cl_int outer = 2, n = 70000;
  Beside b = beside(p, items, outer, n);
  run_uncut(b.k, items);
  std::vector<float> out = read<float>(b.out, items);
  for (size_t g = 0; g < items; ++g) {
    double want = 0;
    for (int kk = 0; kk < outer; ++kk) {
      for (int a = 0; a < n; ++a) want += (a ^ int(g)) & 3;
      want += std::tgamma(1.5 + kk);
    }
    ASSERT_NEAR(out[g], want, want * 1e-5) << "work-item " << g;
  }
}

// And with barriers in the long loop, where the work-group stops together: the same kernel
// with the values rotating through local memory.
TEST_P(LoopLimit, BarrierLoopsBesideBuiltinsWithLoops) {
  const char* resumable = std::getenv("VKCL_RESUMABLE_LOOPS");
  if (resumable && std::string(resumable) == "0") GTEST_SKIP() << "not resuming";
  Program p = build(R"(
    __kernel void beside(__global float* out, __global const int* outer, int n, __local int* ring) {
      int l = get_local_id(0), size = get_local_size(0);
      float acc = 0.0f;
      for (int k = 0; k < outer[0]; k++) {
        float v = tgamma(1.5f + k);
        ring[l] = l + k;
        for (int a = 0; a < n; a++) {
          barrier(CLK_LOCAL_MEM_FENCE);
          int x = ring[(l + 1) % size];
          barrier(CLK_LOCAL_MEM_FENCE);
          ring[l] = x;
          acc += (x ^ a) & 3;
        }
        acc += v;
      }
      out[get_global_id(0)] = acc;
    })");
  const size_t items = 8, local = 8;
  const cl_int outer = 1, n = 150000;
  Beside b = beside(p, items, outer, n);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(b.k, 3, local * 4, nullptr));
  run_uncut(b.k, items, &local);
  std::vector<float> out = read<float>(b.out, items);
  for (size_t g = 0; g < items; ++g) {
    double want = std::tgamma(1.5);
    // After a steps, work-item l holds the value work-item l + a + 1 started with.
    for (int a = 0; a < n; ++a) want += (int((g + a + 1) % local) ^ a) & 3;
    ASSERT_NEAR(out[g], want, want * 1e-5) << "work-item " << g;
  }
}

// A loop with barriers around local memory (the shape of a scan over many chunks): the
// work-group stops together after a barrier and its local memory comes back with it. With
// VKCL_RESUMABLE_LOOPS=0 such a kernel past the limit fails loudly.
TEST_P(LoopLimit, BarriersAndLocalMemory) {
  Program p = build(R"(
    __kernel void rotate(__global uint* out, __local uint* ring, uint n) {
      uint l = get_local_id(0), size = get_local_size(0);
      __local uint steps;
      if (l == 0) steps = 0;
      ring[l] = l + 1;
      barrier(CLK_LOCAL_MEM_FENCE);
      for (uint i = 0; i < n; i++) {
        uint mine = ring[(l + 1) % size] * 3u + i;
        barrier(CLK_LOCAL_MEM_FENCE);
        ring[l] = mine;
        if (l == 0) steps++;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < l % 3; j++) mine += j;  // trip counts that differ
      }
      out[get_global_id(0)] = ring[l] ^ steps;
    })");
  // 12: the work-group's last batch on llvmpipe (8 work-items wide) is a partial one.
  for (size_t local : {16, 12}) {
    SCOPED_TRACE("local size " + std::to_string(local));
    const size_t items = 3 * local;
    const uint32_t n = 70000;
    Kernel k = kernel(p, "rotate");
    Mem dout = poisoned(items * 4);
    set_mem_arg(k, 0, dout);
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, local * 4, nullptr));
    set_arg(k, 2, n);
    Waited w = launch_and_wait(k, items, local);
    const char* resumable = std::getenv("VKCL_RESUMABLE_LOOPS");
    if (driver_limits_loops() && resumable && std::string(resumable) == "0") {
      EXPECT_EQ(w.waited, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
      EXPECT_EQ(w.status, CL_OUT_OF_RESOURCES);
      EXPECT_NE(w.said.find("vkcl: kernel rotate:"), std::string::npos) << w.said;
      continue;
    }
    EXPECT_EQ(w.waited, CL_SUCCESS);
    EXPECT_EQ(w.said.find("vkcl: kernel"), std::string::npos) << w.said;
    std::vector<uint32_t> ring = rotate_reference(uint32_t(local), n);
    std::vector<uint32_t> out = read<uint32_t>(dout, items);
    for (uint32_t g = 0; g < items; ++g) ASSERT_EQ(out[g], ring[g % local] ^ n) << "work-item " << g;
  }
}

// Trip counts that differ between the work-items of a batch, around local memory each
// work-item keeps to itself, with a compare-exchange loop on global memory: the batch's
// work-items leave their loops at different times and stop and resume together.
TEST_P(LoopLimit, DivergentLoopsAndAtomics) {
  Program p = build(R"(
    __kernel void divergent(__global uint* out, __global uint* total, uint n) {
      __local uint mine[64];
      uint l = get_local_id(0);
      mine[l] = 0;
      for (uint i = 0; i < n + l * 3001; i++) mine[l] += (i % 7) + 1;
      uint seen = *total, want;
      do { want = seen + 1; seen = atomic_cmpxchg(total, seen, want); } while (seen + 1 != want);
      out[get_global_id(0)] = mine[l];
    })");
  const size_t items = 48, local = 16;
  const uint32_t n = 90000;
  Kernel k = kernel(p, "divergent");
  Mem dout = poisoned(items * 4);
  uint32_t zero = 0;
  Mem dtotal = buffer(4, &zero);
  set_mem_arg(k, 0, dout);
  set_mem_arg(k, 1, dtotal);
  set_arg(k, 2, n);
  CapturedStderr captured;
  run(k, 1, &items, &local);
  std::string said = captured.text();
  EXPECT_EQ(said.find("vkcl: kernel"), std::string::npos) << said;
  std::vector<uint32_t> out = read<uint32_t>(dout, items);
  for (uint32_t g = 0; g < items; ++g) {
    uint32_t l = g % local, want = 0;
    for (uint32_t i = 0; i < n + l * 3001; i++) want += (i % 7) + 1;
    ASSERT_EQ(out[g], want) << "work-item " << g;
  }
  EXPECT_EQ(read<uint32_t>(dtotal, 1)[0], uint32_t(items));
}

// Long loops with no barrier in them between barriers (a histogram into local memory over a
// grid-stride loop) and after the last one: a batch whose count runs out in one goes to the
// barrier its work-group meets at next, all stop there and resume, the others waiting at
// that barrier until it comes; after the last barrier it stops alone. Exact counts and
// sums, whatever the work-group's batches (12: a partial last batch on llvmpipe).
TEST_P(LoopLimit, LongLoopsBetweenBarriersResume) {
  Program p = build(R"(
    __kernel void counts(__global const uint* in, uint n, uint m, __global uint* out, __global uint* sums) {
      __local uint bins[64];
      uint l = get_local_id(0);
      for (uint i = l; i < 64; i += get_local_size(0)) bins[i] = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      for (uint i = get_global_id(0); i < n; i += get_global_size(0)) atomic_inc(&bins[in[i & 4095] & 63]);
      barrier(CLK_LOCAL_MEM_FENCE);
      for (uint i = l; i < 64; i += get_local_size(0)) atomic_add(&out[i], bins[i]);
      uint s = 0;
      for (uint i = 0; i < m + l; i++) s += bins[(i * 7 + l) & 63] ^ i;
      sums[get_global_id(0)] = s;
    })");
  std::vector<uint32_t> in(4096);
  for (auto& x : in) x = uint32_t(rng_());
  for (size_t local : {16, 12}) {
    SCOPED_TRACE("local size " + std::to_string(local));
    const size_t items = 2 * local;
    const uint32_t n = uint32_t(items) * 80000, m = 70000;
    Kernel k = kernel(p, "counts");
    Mem din = buffer(in.size() * 4, in.data());
    std::vector<uint32_t> zeros(64, 0);
    Mem dout = buffer(64 * 4, zeros.data());
    Mem dsums = poisoned(items * 4);
    set_mem_arg(k, 0, din);
    set_arg(k, 1, n);
    set_arg(k, 2, m);
    set_mem_arg(k, 3, dout);
    set_mem_arg(k, 4, dsums);
    run_uncut(k, items, &local);
    std::vector<std::vector<uint32_t>> bins(2, std::vector<uint32_t>(64, 0));
    std::vector<uint32_t> total(64, 0);
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t b = in[i & 4095] & 63;
      ++bins[i % items / local][b];
      ++total[b];
    }
    std::vector<uint32_t> out = read<uint32_t>(dout, 64), sums = read<uint32_t>(dsums, items);
    for (uint32_t b = 0; b < 64; ++b) ASSERT_EQ(out[b], total[b]) << "bin " << b;
    for (uint32_t g = 0; g < items; ++g) {
      uint32_t l = uint32_t(g % local), s = 0;
      for (uint32_t i = 0; i < m + l; ++i) s += bins[g / local][(i * 7 + l) & 63] ^ i;
      ASSERT_EQ(sums[g], s) << "work-item " << g;
    }
  }
}

// Nested loops with no barrier in them, trip counts differing between the work-items of a
// batch, before a barrier: the batch that runs out stops in the inner loop and resumes
// there, inside the outer one, while the others wait at the barrier.
TEST_P(LoopLimit, NestedLoopsBeforeABarrierResume) {
  Program p = build(R"(
    __kernel void nest(__global const uint* in, uint n, uint m, __global uint* out) {
      __local uint part[64];
      uint l = get_local_id(0), acc = 0;
      part[l] = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      for (uint i = 0; i < n; i++)
        for (uint j = 0; j < m + (l & 3); j++) acc += in[(i * 31 + j + l) & 1023] ^ j;
      part[l] = acc;
      barrier(CLK_LOCAL_MEM_FENCE);
      out[get_global_id(0)] = part[l] + part[(l + 1) % get_local_size(0)];
    })");
  std::vector<uint32_t> in(1024);
  for (auto& x : in) x = uint32_t(rng_());
  const size_t items = 32, local = 16;
  const uint32_t n = 300, m = 300;
  Kernel k = kernel(p, "nest");
  Mem din = buffer(in.size() * 4, in.data());
  Mem dout = poisoned(items * 4);
  set_mem_arg(k, 0, din);
  set_arg(k, 1, n);
  set_arg(k, 2, m);
  set_mem_arg(k, 3, dout);
  run_uncut(k, items, &local);
  auto sum = [&](uint32_t l) {
    uint32_t acc = 0;
    for (uint32_t i = 0; i < n; i++)
      for (uint32_t j = 0; j < m + (l & 3); j++) acc += in[(i * 31 + j + l) & 1023] ^ j;
    return acc;
  };
  std::vector<uint32_t> out = read<uint32_t>(dout, items);
  for (uint32_t g = 0; g < items; ++g) {
    uint32_t l = uint32_t(g % local);
    ASSERT_EQ(out[g], sum(l) + sum((l + 1) % local)) << "work-item " << g;
  }
}

// A long loop with no barrier in it before a loop whose first barrier is inside it (a
// reduction's tree, kept a loop): where it runs a constant number of times (and the
// optimiser has made it test its count at the end), the batch that runs out goes to that barrier and the
// work-group stops there, so the sums are exact. Where the
// tree might not run at all (its count from get_local_size), vkcl cannot tell that every
// work-item meets that barrier: the result is exact, or the command fails and says so;
// never a wrong result reported as complete (the batch's stop at the tree came after the
// driver had cut the long loop).
TEST_P(LoopLimit, LongLoopBeforeABarrierLoop) {
  Program p = build(R"(
    #define TREE(name, first)                                                            \
    __kernel void name(__global const uint* in, uint n, __global uint* out) {            \
      __local uint part[32];                                                             \
      uint l = get_local_id(0), acc = 0;                                                 \
      for (uint i = get_global_id(0); i < n; i += get_global_size(0)) acc += in[i & 1023] ^ i; \
      _Pragma("unroll 1") for (uint s = first; s > 0; s >>= 1) {                         \
        part[l] = acc;                                                                   \
        barrier(CLK_LOCAL_MEM_FENCE);                                                    \
        if (l < s) acc += part[l + s];                                                   \
        barrier(CLK_LOCAL_MEM_FENCE);                                                    \
      }                                                                                  \
      if (l == 0) out[get_group_id(0)] = acc;                                            \
    }
    TREE(tree16, 16)
    TREE(tree, get_local_size(0) / 2))");
  const size_t items = 64, local = 32;
  const uint32_t n = uint32_t(items) * 90000;
  std::vector<uint32_t> in(1024);
  for (auto& x : in) x = uint32_t(rng_());
  std::vector<uint32_t> want(2, 0);
  for (uint32_t i = 0; i < n; ++i) want[i % items / local] += in[i & 1023] ^ i;
  for (const char* name : {"tree16", "tree"}) {
    SCOPED_TRACE(name);
    Kernel k = kernel(p, name);
    Mem din = buffer(in.size() * 4, in.data());
    Mem dout = poisoned(8);
    set_mem_arg(k, 0, din);
    set_arg(k, 1, n);
    set_mem_arg(k, 2, dout);
    Waited w = launch_and_wait(k, items, local);
    // (Unoptimised, the tree tests its count before its first pass: it might not run.)
    const bool optimised = std::string(GetParam()).find("-cl-opt-disable") == std::string::npos;
    if (w.waited != CL_SUCCESS && (std::string(name) == "tree" || !optimised)) {
      EXPECT_TRUE(driver_limits_loops());
      EXPECT_EQ(w.status, CL_OUT_OF_RESOURCES);
      EXPECT_NE(w.said.find("vkcl: kernel " + std::string(name) + ":"), std::string::npos) << w.said;
      continue;
    }
    EXPECT_EQ(w.waited, CL_SUCCESS);
    EXPECT_EQ(w.said.find("vkcl: kernel"), std::string::npos) << w.said;
    std::vector<uint32_t> out = read<uint32_t>(dout, 2);
    for (uint32_t g = 0; g < 2; ++g) ASSERT_EQ(out[g], want[g]) << "work-group " << g;
  }
}

// Each work-item keeps a running sum in its own word of local memory, with no barrier in the
// loop: its batch stops alone and local memory still comes back.
TEST_P(LoopLimit, LocalMemoryWithoutBarriers) {
  Program p = build(R"(
    __kernel void sums(__global uint* out, uint n) {
      __local uint acc[64];
      uint l = get_local_id(0);
      acc[l] = l;
      for (uint i = 0; i < n + l * 1000; i++) acc[l] += i ^ l;
      out[get_global_id(0)] = acc[l];
    })");
  const size_t items = 128, local = 64;
  const uint32_t n = 100000;
  Kernel k = kernel(p, "sums");
  Mem dout = poisoned(items * 4);
  set_mem_arg(k, 0, dout);
  set_arg(k, 1, n);
  CapturedStderr captured;
  run(k, 1, &items, &local);
  std::string said = captured.text();
  EXPECT_EQ(said.find("vkcl: kernel"), std::string::npos) << said;
  std::vector<uint32_t> out = read<uint32_t>(dout, items);
  for (uint32_t g = 0; g < items; ++g) {
    uint32_t l = g % local, want = l;
    for (uint32_t i = 0; i < n + l * 1000; i++) want += i ^ l;
    ASSERT_EQ(out[g], want) << "work-item " << g;
  }
}

// Single counted loops (the variable against a bound the loop does not change, tested in the
// header or at the bottom): their bound stops them, at any step, signedness and width, near
// the top of their type too.
TEST_P(LoopLimit, CountedLoopsOfEveryShape) {
  Program p = build(R"(
    __kernel void up(__global uint* out, uint n) {
      uint c = 0, g = get_global_id(0);
      for (uint i = 0; i < n; i++) c += i ^ g;
      out[g] = c;
    }
    __kernel void bottom(__global uint* out, uint n) {
      uint c = 0, g = get_global_id(0), i = 0;
      do { c = c * 3 + (i ^ g); i += 3; } while (i < n);
      out[g] = c;
    }
    __kernel void signed_up(__global uint* out, int from, int to) {
      uint c = 0, g = get_global_id(0);
      for (int i = from + (int)g; i <= to; i += 2) c = c * 5 + (uint)i;
      out[g] = c;
    }
    __kernel void wide(__global uint* out, ulong from, ulong to) {
      uint c = 0, g = get_global_id(0);
      for (ulong i = from; i < to; i++) c += (uint)(i >> 3) ^ g;
      out[g] = c;
    })");
  const size_t items = 24, local = 8;
  auto check = [&](const char* name, std::vector<std::pair<size_t, std::vector<uint8_t>>> args,
                   const std::function<uint32_t(uint32_t)>& want) {
    SCOPED_TRACE(name);
    Kernel k = kernel(p, name);
    Mem out = poisoned(items * 4);
    set_mem_arg(k, 0, out);
    for (size_t a = 0; a < args.size(); ++a)
      ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, cl_uint(a + 1), args[a].first, args[a].second.data()));
    CapturedStderr captured;
    run(k, 1, &items, &local);
    std::string said = captured.text();
    EXPECT_EQ(said.find("vkcl: kernel"), std::string::npos) << said;
    std::vector<uint32_t> got = read<uint32_t>(out, items);
    for (uint32_t g = 0; g < items; ++g) ASSERT_EQ(got[g], want(g)) << "work-item " << g;
  };
  auto bytes = [](auto v) {
    std::vector<uint8_t> b(sizeof v);
    std::memcpy(b.data(), &v, sizeof v);
    return std::make_pair(sizeof v, b);
  };
  const uint32_t n = 200000;
  check("up", {bytes(n)}, [&](uint32_t g) {
    uint32_t c = 0;
    for (uint32_t i = 0; i < n; i++) c += i ^ g;
    return c;
  });
  check("bottom", {bytes(3 * n)}, [&](uint32_t g) {
    uint32_t c = 0, i = 0;
    do { c = c * 3 + (i ^ g); i += 3; } while (i < 3 * n);
    return c;
  });
  // Up to INT_MAX - 2 inclusive (i + 2 never overflows): the limit, 2 x 60000 on from where a
  // round starts, saturates in the last rounds.
  const int32_t to = INT32_MAX - 2, from = to - 2 * int32_t(n) - 77;
  check("signed_up", {bytes(from), bytes(to)}, [&](uint32_t g) {
    uint32_t c = 0;
    for (int64_t i = int64_t(from) + g; i <= to; i += 2) c = c * 5 + uint32_t(i);
    return c;
  });
  const uint64_t wide_from = (uint64_t(1) << 40) - 5, wide_to = wide_from + n;
  check("wide", {bytes(wide_from), bytes(wide_to)}, [&](uint32_t g) {
    uint32_t c = 0;
    for (uint64_t i = wide_from; i < wide_to; i++) c += uint32_t(i >> 3) ^ g;
    return c;
  });
}

// Past what the rounds recorded with a launch give (17 x 60000 iterations per batch), the
// queue adds rounds until every work-item is done: one work-item that loops over millions of
// elements (PyOpenCL's sequential scan on CPU devices). Commands after it see its results,
// and its event completes only then, whether the application polls it, waits for it or
// finishes the queue.
TEST_P(LoopLimit, PastTheRecordedRoundsTheQueueAddsMore) {
  Program p = two_loops_and_add_one();
  Kernel loops = kernel(p, "two_loops");
  Kernel add_one = kernel(p, "add_one");
  std::vector<uint32_t> a;
  Mem da = random_words(&a);
  const uint32_t n = 4200000;  // 8.4 million iterations, about 140 rounds
  const uint32_t want = two_loops_reference(a, n);
  for (const char* how : {"poll", "wait", "finish"}) {
    SCOPED_TRACE(how);
    const size_t items = 2;
    Mem dout = poisoned(items * 4);
    set_mem_arg(loops, 0, da);
    set_mem_arg(loops, 1, dout);
    set_arg(loops, 2, n);
    set_mem_arg(add_one, 0, dout);
    CapturedStderr captured;
    cl_event e = nullptr;
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, loops, 1, nullptr, &items, &items, 0, nullptr, &e));
    Event event(e);
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, add_one, 1, nullptr, &items, nullptr, 0, nullptr, nullptr));
    cl_event m = nullptr;
    ASSERT_EQ(CL_SUCCESS, clEnqueueMarkerWithWaitList(queue_, 1, &e, &m));
    Event marker(m);
    if (std::string(how) == "poll") {
      ASSERT_EQ(CL_SUCCESS, clFlush(queue_));
      while (status_of(e) > CL_COMPLETE) {}
      EXPECT_EQ(status_of(e), CL_COMPLETE);
    } else if (std::string(how) == "wait") {
      EXPECT_EQ(CL_SUCCESS, clWaitForEvents(1, &m));
    }
    std::vector<uint32_t> out = read<uint32_t>(dout, items);  // a blocking read finishes too
    EXPECT_EQ(status_of(e), CL_COMPLETE);
    EXPECT_EQ(status_of(m), CL_COMPLETE);
    std::string said = captured.text();
    EXPECT_EQ(said.find("vkcl: kernel"), std::string::npos) << said;
    for (size_t i = 0; i < items; ++i) ASSERT_EQ(out[i], want + 1) << "work-item " << i;
    // Its event's times (the queue profiles; the command after it, with no event, is not
    // timed) span all its rounds, in order.
    cl_ulong times[4] = {};
    const cl_profiling_info infos[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                        CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
    for (int t = 0; t < 4; ++t)
      ASSERT_EQ(CL_SUCCESS, clGetEventProfilingInfo(e, infos[t], sizeof times[t], &times[t], nullptr));
    EXPECT_LE(times[0], times[1]);
    EXPECT_LE(times[1], times[2]);
    EXPECT_LT(times[2], times[3]);
  }
}

// A work-group that stops at barriers, with its local memory, past the recorded rounds too.
TEST_P(LoopLimit, BarrierLoopsPastTheRecordedRounds) {
  const char* resumable = std::getenv("VKCL_RESUMABLE_LOOPS");
  if (resumable && std::string(resumable) == "0") GTEST_SKIP() << "not resuming";
  Program p = build(R"(
    __kernel void rotate(__global uint* out, __local uint* ring, uint n) {
      uint l = get_local_id(0), size = get_local_size(0);
      ring[l] = l + 1;
      barrier(CLK_LOCAL_MEM_FENCE);
      for (uint i = 0; i < n; i++) {
        uint mine = ring[(l + 1) % size] * 3u + i;
        barrier(CLK_LOCAL_MEM_FENCE);
        ring[l] = mine;
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      out[get_global_id(0)] = ring[l];
    })");
  const size_t local = 8, items = 16;
  const uint32_t n = 600000;  // about 20 rounds of the work-group's 32768 passes
  Kernel k = kernel(p, "rotate");
  Mem dout = poisoned(items * 4);
  set_mem_arg(k, 0, dout);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, local * 4, nullptr));
  set_arg(k, 2, n);
  CapturedStderr captured;
  run(k, 1, &items, &local);
  std::string said = captured.text();
  EXPECT_EQ(said.find("vkcl: kernel"), std::string::npos) << said;
  std::vector<uint32_t> ring = rotate_reference(uint32_t(local), n);
  std::vector<uint32_t> out = read<uint32_t>(dout, items);
  for (uint32_t g = 0; g < items; ++g) ASSERT_EQ(out[g], ring[g % local]) << "work-item " << g;
}

// Without resuming (VKCL_RESUMABLE_LOOPS=0) a kernel cut short fails, and says why: the
// status is there for an application that only calls clFinish and asks afterwards, and a
// command waiting on the failed one fails in turn.
TEST_P(LoopLimit, FailureSeenAfterFinish) {
  const char* resumable = std::getenv("VKCL_RESUMABLE_LOOPS");
  if (!driver_limits_loops() || !resumable || std::string(resumable) != "0")
    GTEST_SKIP() << "loops are not cut short here";
  Program p = build(kTwoLoops);
  Kernel k = kernel(p, "two_loops");
  std::vector<uint32_t> a(8, 1);
  Mem da = buffer(a.size() * 4, a.data());
  Mem dout = poisoned(4);
  set_mem_arg(k, 0, da);
  set_mem_arg(k, 1, dout);
  set_arg(k, 2, uint32_t(70000));
  size_t one = 1;
  cl_event e = nullptr;
  CapturedStderr captured;
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &one, &one, 0, nullptr, &e));
  Event kernel_event(e);
  EXPECT_EQ(CL_SUCCESS, clFinish(queue_));
  EXPECT_EQ(status_of(e), CL_OUT_OF_RESOURCES);
  cl_event m = nullptr;
  ASSERT_EQ(CL_SUCCESS, clEnqueueMarkerWithWaitList(queue_, 1, &e, &m));
  Event marker(m);
  EXPECT_EQ(clWaitForEvents(1, &m), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  EXPECT_EQ(status_of(m), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  std::string said = captured.text();
  EXPECT_NE(said.find("vkcl: kernel two_loops:"), std::string::npos) << said;
}

// 30000 iterations per batch in all: exact results, no alarm. The work-group spans several
// batches, each with its own allowance.
TEST_P(LoopLimit, NoAlarmBelowTheLimit) {
  std::vector<uint32_t> a, out;
  cl_int waited = CL_OUT_OF_RESOURCES;
  CapturedStderr captured;
  Event e = run_two_loops(15000, 64, 64, &a, &out, &waited);
  std::string said = captured.text();
  EXPECT_EQ(waited, CL_SUCCESS);
  EXPECT_EQ(status_of(e), CL_COMPLETE);
  EXPECT_EQ(said.find("vkcl: kernel"), std::string::npos) << said;
  uint32_t want = two_loops_reference(a, 15000);
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], want) << "work-item " << i;
}

// Kernels without loops, or with a short loop of constant trip count, complete as usual.
TEST_P(LoopLimit, NoAlarmWithoutLongLoops) {
  Program p = build(R"(
    __kernel void no_loop(__global const uint* a, __global uint* out) {
      size_t i = get_global_id(0);
      out[i] = a[i & 7] * 3u + (uint)i;
    }
    __kernel void short_loop(__global const uint* a, __global uint* out) {
      size_t i = get_global_id(0);
      uint s = 0;
      for (int j = 0; j < 5; j++) s += a[(i + j) & 7] ^ (uint)j;
      out[i] = s;
    })");
  const size_t items = 1024, local = 64;
  std::vector<uint32_t> a(8);
  for (auto& x : a) x = uint32_t(rng_());
  Mem da = buffer(a.size() * 4, a.data());
  CapturedStderr captured;
  for (const char* name : {"no_loop", "short_loop"}) {
    Kernel k = kernel(p, name);
    Mem dout = poisoned(items * 4);
    set_mem_arg(k, 0, da);
    set_mem_arg(k, 1, dout);
    cl_event e = nullptr;
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &items, &local, 0, nullptr, &e));
    Event event(e);
    EXPECT_EQ(CL_SUCCESS, clWaitForEvents(1, &e)) << name;
    EXPECT_EQ(status_of(e), CL_COMPLETE) << name;
    std::vector<uint32_t> out = read<uint32_t>(dout, items);
    for (size_t i = 0; i < items; ++i) {
      uint32_t want = 0;
      if (std::string(name) == "no_loop") {
        want = a[i & 7] * 3u + uint32_t(i);
      } else {
        for (uint32_t j = 0; j < 5; j++) want += a[(i + j) & 7] ^ j;
      }
      ASSERT_EQ(out[i], want) << name << " work-item " << i;
    }
  }
  std::string said = captured.text();
  EXPECT_EQ(said.find("vkcl: kernel"), std::string::npos) << said;
}

// Loops bounded by the kernel's arguments: a launch whose values keep them short (here up
// to 2 x 8000 passes) runs once, without rounds, and the queue does not wait for it before it
// records the next command; longer ones (2 x 9000, 2 x 70000, past the driver's limit) still
// resume. Exact results either way: a launch counted short that is not would be cut.
TEST_P(LoopLimit, ArgumentBoundsShortOrLong) {
  Program p = two_loops_and_add_one();
  Kernel loops = kernel(p, "two_loops");
  Kernel add_one = kernel(p, "add_one");
  std::vector<uint32_t> a;
  Mem da = random_words(&a);
  for (uint32_t n : {0u, 100u, 8000u, 9000u, 70000u}) {
    SCOPED_TRACE(n);
    const size_t items = 16, local = 8;
    Mem dout = poisoned(items * 4);
    set_mem_arg(loops, 0, da);
    set_mem_arg(loops, 1, dout);
    set_arg(loops, 2, n);
    set_mem_arg(add_one, 0, dout);
    cl_event e = launch_then_add_one(loops, add_one, items, local);
    Event event(e);
    // Nothing waited for the loops: they are not even submitted yet (a launch that may
    // resume ends its batch, and the next command waits until it is done).
    if (launches_counted() && n <= 8000) {
      EXPECT_EQ(status_of(e), CL_QUEUED);
    }
    std::vector<uint32_t> out = read<uint32_t>(dout, items);
    EXPECT_EQ(status_of(e), CL_COMPLETE);
    const uint32_t want = two_loops_reference(a, n) + 1;
    for (size_t i = 0; i < items; ++i) ASSERT_EQ(out[i], want) << "work-item " << i;
  }
}

// Grid-stride loops (PyOpenCL's elementwise form: from the work-item's place, by the global
// size) are counted for the launch: few enough passes (here up to 8000 per work-item) and
// the launch runs once and is not waited for; more (20000, 70000: past the driver's limit)
// still resume. Every element written, exactly once, either way.
TEST_P(LoopLimit, GridStrideLoopsShortOrLong) {
  Program p = build(R"(
    __kernel void strided(__global const uint* a, __global uint* out, long n) {
      int lid = get_local_id(0);
      int gsize = get_global_size(0);
      int work_group_start = get_local_size(0) * get_group_id(0);
      for (long i = work_group_start + lid; i < n; i += gsize) out[i] += a[i & 7] ^ (uint)i;
    }
    __kernel void add_one(__global uint* out) { out[get_global_id(0)] += 1; })");
  Kernel strided = kernel(p, "strided");
  Kernel add_one = kernel(p, "add_one");
  std::vector<uint32_t> a;
  Mem da = random_words(&a);
  const size_t items = 64, local = 16;
  for (uint32_t passes : {0u, 100u, 8000u, 20000u, 70000u}) {
    SCOPED_TRACE(passes);
    const int64_t n = int64_t(passes) * int64_t(items) - 3;  // the last pass not for all
    const size_t count = size_t(std::max<int64_t>(n, 0)) + items;
    std::vector<uint32_t> zeros(count, 0);
    Mem dout = buffer(count * 4, zeros.data());
    set_mem_arg(strided, 0, da);
    set_mem_arg(strided, 1, dout);
    set_arg(strided, 2, n);
    set_mem_arg(add_one, 0, dout);
    cl_event e = launch_then_add_one(strided, add_one, items, local);
    Event event(e);
    if (launches_counted() && passes <= 8000) {
      EXPECT_EQ(status_of(e), CL_QUEUED);
    }
    std::vector<uint32_t> out = read<uint32_t>(dout, count);
    EXPECT_EQ(status_of(e), CL_COMPLETE);
    for (size_t i = 0; i < count; ++i) {
      uint32_t want = int64_t(i) < n ? a[i & 7] ^ uint32_t(i) : 0;
      if (i < items) want += 1;
      ASSERT_EQ(out[i], want) << "element " << i << " of " << n;
    }
  }
}

// A grid-stride count into a few bins, added to the totals with global atomics (as x264's
// sum_intra_cost adds its costs): its loops are counted at launch like any other kernel's,
// and it runs without resuming where they are short; the totals are exact either way.
TEST_P(LoopLimit, GlobalAtomicsAfterCountedLoops) {
  Program p = build(R"(
    __kernel void histogram(__global const uint* data, __global uint* hist, int n) {
      uint mine[4] = {0, 0, 0, 0};
      for (int i = get_global_id(0); i < n; i += get_global_size(0)) mine[(data[i & 1023] ^ (uint)i) & 3] += 1;
      for (int b = 0; b < 4; ++b) atomic_add(&hist[b], mine[b]);
    }
    __kernel void add_one(__global uint* out) { out[get_global_id(0)] += 1; })");
  Kernel histogram = kernel(p, "histogram");
  Kernel add_one = kernel(p, "add_one");
  std::vector<uint32_t> data(1024);
  for (auto& x : data) x = uint32_t(rng_());
  Mem ddata = buffer(data.size() * 4, data.data());
  const size_t items = 64, local = 16, bins = 4;
  for (uint32_t passes : {0u, 100u, 8000u, 70000u}) {
    SCOPED_TRACE(passes);
    const int32_t n = int32_t(int64_t(passes) * int64_t(items) - 5);
    std::vector<uint32_t> zeros(bins, 0);
    Mem dhist = buffer(bins * 4, zeros.data());
    set_mem_arg(histogram, 0, ddata);
    set_mem_arg(histogram, 1, dhist);
    set_arg(histogram, 2, n);
    set_mem_arg(add_one, 0, dhist);
    cl_event e = launch_then_add_one(histogram, add_one, items, local, bins);
    Event event(e);
    // Counted short: no resuming, so nothing is submitted yet (a launch that may resume ends
    // its batch).
    if (launches_counted() && passes <= 8000) {
      EXPECT_EQ(status_of(e), CL_QUEUED);
    }
    std::vector<uint32_t> hist = read<uint32_t>(dhist, bins);
    EXPECT_EQ(status_of(e), CL_COMPLETE);
    std::vector<uint32_t> want(bins, 1);  // add_one's
    for (int32_t i = 0; i < n; ++i) want[(data[i & 1023] ^ uint32_t(i)) & 3] += 1;
    EXPECT_EQ(hist, want);
  }
}

// Loops between constants: short ones in all (9 taps, 100 x 100, a function called in a loop)
// run without resuming (loop_bounds.h); those whose constants take them past the limit
// (70000, 300 x 300) still resume. Exact results either way: a count taken for short that
// is not would be cut by the driver.
TEST_P(LoopLimit, ConstantBoundsShortOrLong) {
  struct Case {
    const char* define;
    uint32_t outer, inner;  // trip counts
  };
  const Case cases[] = {{"-DOUTER=9 -DINNER=1", 9, 1},
                        {"-DOUTER=100 -DINNER=100", 100, 100},
                        {"-DOUTER=70000 -DINNER=1", 70000, 1},
                        {"-DOUTER=300 -DINNER=300", 300, 300}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.define);
    Program p = build(R"(
      uint mix(__global const uint* a, uint x) {
        uint m = x;
        for (int r = 0; r < 3; ++r) m = m * 2654435761u + a[(m >> 7) & 7];
        return m;
      }
      __kernel void constant_loops(__global const uint* a, __global uint* out) {
        uint c = (uint)get_global_id(0);
        for (int i = 0; i < OUTER; ++i) {
          for (int j = INNER - 1; j >= 0; --j) c += a[(i + j) & 7] & 1 ? 2u : (uint)j;
          if ((i & 4095) == 0) c = mix(a, c);
        }
        out[get_global_id(0)] = c;
      })", c.define);
    Kernel k = kernel(p, "constant_loops");
    std::vector<uint32_t> a(8);
    for (auto& x : a) x = uint32_t(rng_());
    Mem da = buffer(a.size() * 4, a.data());
    const size_t items = 16, local = 8;
    Mem dout = poisoned(items * 4);
    set_mem_arg(k, 0, da);
    set_mem_arg(k, 1, dout);
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &items, &local, 0, nullptr, nullptr));
    std::vector<uint32_t> out = read<uint32_t>(dout, items);
    for (size_t w = 0; w < items; ++w) {
      uint32_t want = uint32_t(w);
      for (uint32_t i = 0; i < c.outer; ++i) {
        for (int j = int(c.inner) - 1; j >= 0; --j) want += a[(i + j) & 7] & 1 ? 2u : uint32_t(j);
        if ((i & 4095) == 0)
          for (int r = 0; r < 3; ++r) want = want * 2654435761u + a[(want >> 7) & 7];
      }
      ASSERT_EQ(out[w], want) << "work-item " << w;
    }
  }
}

// A kernel that writes only a write_only image (k2s::KernelInterface::rerunnable) runs its
// plain form first; where the driver cut its loops (80000 iterations a loop), the launch runs
// again resumable, from the image as it was: exact results either way, no alarm.
TEST_P(LoopLimit, RerunnableKernelsRunAgainWhenCut) {
  cl_bool images = CL_FALSE;
  clGetDeviceInfo(device_, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
  if (!images) GTEST_SKIP() << "no images";
  Program p = build(R"(
    __kernel void two_loops(__global const uint* a, write_only image2d_t out, uint n) {
      uint c = 0;
      for (uint i = 0; i < n; i++) c += a[i & 7] & 1 ? 2 : 1;
      for (uint i = 0; i < n; i++) c += a[(i + 3) & 7] & 1 ? 3 : 1;
      write_imageui(out, (int2)(get_global_id(0), get_global_id(1)), (uint4)(c, 0, 0, 0));
    })", "-cl-std=CL3.0");
  Kernel k = kernel(p, "two_loops");
  std::vector<uint32_t> a(8);
  for (auto& x : a) x = uint32_t(rng_());
  Mem da = buffer(a.size() * 4, a.data());
  const size_t w = 8, h = 4;
  cl_image_format format{CL_R, CL_UNSIGNED_INT32};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = w;
  desc.image_height = h;
  for (uint32_t n : {15000u, 80000u}) {
    cl_int err = CL_SUCCESS;
    Mem img(clCreateImage(context_, CL_MEM_WRITE_ONLY, &format, &desc, nullptr, &err));
    ASSERT_EQ(CL_SUCCESS, err);
    cl_mem img_h = img.get();
    set_mem_arg(k, 0, da);
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof img_h, &img_h));
    set_arg(k, 2, n);
    size_t global[2] = {w, h}, local[2] = {w, h};
    cl_event e = nullptr;
    CapturedStderr captured;
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 2, nullptr, global, local, 0, nullptr, &e));
    Event event(e);
    EXPECT_EQ(CL_SUCCESS, clWaitForEvents(1, &e)) << n;
    EXPECT_EQ(status_of(e), CL_COMPLETE) << n;
    std::vector<uint32_t> out(w * h, 0xdeadbeef);
    size_t origin[3] = {0, 0, 0}, region[3] = {w, h, 1};
    ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, img_h, CL_TRUE, origin, region, 0, 0, out.data(), 0,
                                             nullptr, nullptr));
    std::string said = captured.text();
    EXPECT_EQ(said.find("vkcl: kernel"), std::string::npos) << said;
    const uint32_t want = two_loops_reference(a, n);
    for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], want) << "n " << n << " work-item " << i;
  }
  // A write that only a cut run makes (its count comes out wrong): the rerun starts from the
  // image as it was, so the texels keep their 7s.
  Program q = build(R"(
    __kernel void wrong_count_writes(__global const uint* a, write_only image2d_t out, uint n, uint want) {
      uint c = 0;
      for (uint i = 0; i < n; i++) c += a[i & 7] & 1 ? 2 : 1;
      for (uint i = 0; i < n; i++) c += a[(i + 3) & 7] & 1 ? 3 : 1;
      if (c != want) write_imageui(out, (int2)(get_global_id(0), get_global_id(1)), (uint4)(1, 0, 0, 0));
    })", "-cl-std=CL3.0");
  Kernel c = kernel(q, "wrong_count_writes");
  for (uint32_t n : {15000u, 80000u}) {
    std::vector<uint32_t> sevens(w * h, 7);
    cl_int err = CL_SUCCESS;
    Mem img(clCreateImage(context_, CL_MEM_WRITE_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc, sevens.data(), &err));
    ASSERT_EQ(CL_SUCCESS, err);
    cl_mem img_h = img.get();
    set_mem_arg(c, 0, da);
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(c, 1, sizeof img_h, &img_h));
    set_arg(c, 2, n);
    set_arg(c, 3, two_loops_reference(a, n));
    size_t global[2] = {w, h}, local[2] = {w, h};
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, c, 2, nullptr, global, local, 0, nullptr, nullptr));
    std::vector<uint32_t> out(w * h, 0xdeadbeef);
    size_t origin[3] = {0, 0, 0}, region[3] = {w, h, 1};
    ASSERT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, img_h, CL_TRUE, origin, region, 0, 0, out.data(), 0,
                                             nullptr, nullptr));
    EXPECT_EQ(out, sevens) << "n " << n;
  }
}

// A kernel that adds into its own buffer and writes global memory only through its
// arguments (k2s::KernelInterface::rerunnable_restoring_buffers at -O2): a first attempt the
// driver cut leaves wrong sums in the buffer, and the rerun starts from a copy of it.
TEST_P(LoopLimit, SumsIntoItsOwnBufferAcrossARerun) {
  Program p = build(R"(
    __kernel void add_loops(__global const uint* a, __global uint* io, uint n) {
      uint c = 0;
      for (uint i = 0; i < n; i++) c += a[i & 7] & 1 ? 2 : 1;
      for (uint i = 0; i < n; i++) c += a[(i + 3) & 7] & 1 ? 3 : 1;
      io[get_global_id(0)] += c;
    })");
  Kernel k = kernel(p, "add_loops");
  std::vector<uint32_t> a(8);
  for (auto& x : a) x = uint32_t(rng_());
  Mem da = buffer(a.size() * 4, a.data());
  const size_t items = 16;
  for (uint32_t n : {15000u, 80000u}) {
    std::vector<uint32_t> start(items);
    for (auto& x : start) x = uint32_t(rng_() % 1000);
    Mem io = buffer(items * 4, start.data());
    set_mem_arg(k, 0, da);
    set_mem_arg(k, 1, io);
    set_arg(k, 2, n);
    CapturedStderr captured;
    run(k, 1, &items, &items);
    std::vector<uint32_t> out = read<uint32_t>(io, items);
    std::string said = captured.text();
    EXPECT_EQ(said.find("vkcl: kernel"), std::string::npos) << said;
    const uint32_t want = two_loops_reference(a, n);
    for (size_t i = 0; i < items; ++i) ASSERT_EQ(out[i], start[i] + want) << "n " << n << " work-item " << i;
  }
}

// A kernel whose loops its arguments bound but that cannot run again (it writes a
// program-scope variable) runs its plain form where the arguments keep the loops short, and
// its resumable form where they do not (80000 iterations a loop): exact results either way.
TEST_P(LoopLimit, CountedKernelsThatCannotRerunResumeWhenLong) {
  Program p = build(R"(
    global uint last;
    __kernel void count(__global const uint* a, __global uint* out, uint n) {
      uint c = 0;
      for (uint i = 0; i < n; i++) c += a[i & 7] & 1 ? 2 : 1;
      for (uint i = 0; i < n; i++) c += a[(i + 3) & 7] & 1 ? 3 : 1;
      out[get_global_id(0)] = c;
      if (get_global_id(0) == 0) last = c;
    })", "-cl-std=CL3.0");
  Kernel k = kernel(p, "count");
  std::vector<uint32_t> a(8);
  for (auto& x : a) x = uint32_t(rng_());
  Mem da = buffer(a.size() * 4, a.data());
  const size_t n_items = 64;
  for (uint32_t n : {1000u, 80000u, 3000u}) {
    Mem out = poisoned(n_items * 4);
    set_mem_arg(k, 0, da);
    set_mem_arg(k, 1, out);
    set_arg(k, 2, n);
    CapturedStderr captured;
    run(k, 1, &n_items, nullptr);
    const std::vector<uint32_t> got = read<uint32_t>(out, n_items);
    std::string said = captured.text();
    EXPECT_EQ(said.find("vkcl: kernel"), std::string::npos) << said;
    const uint32_t want = two_loops_reference(a, n);
    for (size_t i = 0; i < n_items; ++i) ASSERT_EQ(got[i], want) << "n " << n << " work-item " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, LoopLimit,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
