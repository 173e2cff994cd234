// The generic address space (OpenCL C 3.0 __opencl_c_generic_address_space): one function
// called with global, local and private pointers, pointers chosen at run time, to_global /
// to_local / to_private, get_fence, and atomics through generic pointers, against the CPU.
#include <algorithm>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class Generic : public KernelTest {};

TEST_P(Generic, OneFunctionForEverySpaceAndTheCasts) {
  const size_t n = 256, wg = 64;
  std::vector<int> a(n);
  for (size_t i = 0; i < n; ++i) a[i] = int(i * 7 % 101);
  Program p = build(R"(
    int twice(int* p) { return *p * 2; }
    void add_one(int* p) { atomic_fetch_add_explicit((volatile atomic_int*)p, 1, memory_order_relaxed); }
    kernel void k(global int* a, global int* out, local int* l, global int* counter) {
      size_t i = get_global_id(0), li = get_local_id(0);
      int priv = (int)i + 1000;
      l[li] = a[i];
      barrier(CLK_LOCAL_MEM_FENCE);
      // A pointer whose space is decided at run time.
      int* g = (i % 3 == 0) ? (int*)&a[i] : (i % 3 == 1) ? (int*)&l[li] : (int*)&priv;
      int before = twice(g);
      add_one(g);                        // atomic on global, local or private memory
      add_one((int*)counter);            // every work-item, one global counter
      add_one((int*)&l[0]);              // every work-item of the group, one local word
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
      int space = (to_global(g) != 0) + 2 * (to_local(g) != 0) + 4 * (to_private(g) != 0);
      cl_mem_fence_flags fence = get_fence(g);
      out[4 * i + 0] = before;
      out[4 * i + 1] = *g;
      out[4 * i + 2] = space;
      out[4 * i + 3] = (fence == CLK_GLOBAL_MEM_FENCE) + 2 * (fence == CLK_LOCAL_MEM_FENCE);
      if (li == 0) out[4 * get_global_size(0) + get_group_id(0)] = l[0];
    })", "-cl-std=CL3.0");
  Kernel k = kernel(p, "k");
  int zero = 0;
  Mem da = buffer(n * 4, a.data()), dout = poisoned((4 * n + n / wg) * 4), dc = buffer(4, &zero);
  set_mem_arg(k, 0, da); set_mem_arg(k, 1, dout);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, wg * 4, nullptr));
  set_mem_arg(k, 3, dc);
  run(k, 1, &n, &wg);
  auto out = read<int>(dout, 4 * n + n / wg);
  auto after = read<int>(da, n);
  EXPECT_EQ(read<int>(dc, 1)[0], int(n));
  for (size_t i = 0; i < n; ++i) {
    int kind = int(i % 3);
    int start = kind == 2 ? int(i) + 1000 : a[i];
    int li = int(i % wg);
    // Local word 0 also receives one increment from every work-item of its group before
    // the barrier, so work-item 0's first read of it races with them and is not checked.
    bool word0 = kind == 1 && li == 0;
    if (!word0) {
      EXPECT_EQ(out[4 * i + 0], 2 * start) << i;
    }
    EXPECT_EQ(out[4 * i + 1], start + 1 + (word0 ? int(wg) : 0)) << i;
    EXPECT_EQ(out[4 * i + 2], kind == 0 ? 1 : kind == 1 ? 2 : 4) << i;
    EXPECT_EQ(out[4 * i + 3], kind == 0 ? 1 : kind == 1 ? 2 : 0) << i;
    if (kind == 0) {
      EXPECT_EQ(after[i], a[i] + 1) << i;
    }
  }
  for (size_t gi = 0; gi < n / wg; ++gi) {
    size_t first = gi * wg;
    // l[0] started as a[first]; +1 from each work-item, +1 more if work-item 0 pointed there.
    int want = a[first] + int(wg) + (first % 3 == 1 ? 1 : 0);
    EXPECT_EQ(out[4 * n + gi], want) << "group " << gi;
  }
}

// atomic_xchg on float (OpenCL 1.2 core): every work-item swaps its value into one global
// and one local slot; what comes back plus what stays is exactly the values put in.
TEST_P(Generic, FloatExchangeIsAPermutation) {
  const size_t n = 64;
  std::vector<float> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = float(i) * 1.5f + 0.25f;
  Program p = build(R"(
    __kernel void k(__global const float* in, __global float* slot, __global float* out,
                    __global float* lout) {
      __local float l;
      size_t i = get_global_id(0);
      if (i == 0) l = -1.0f;
      barrier(CLK_LOCAL_MEM_FENCE);
      out[i] = atomic_xchg(slot, in[i]);
      lout[i] = atomic_xchg(&l, in[i]);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (i == 0) lout[get_local_size(0)] = l;
    })");
  Kernel k = kernel(p, "k");
  float start = -1.0f;
  Mem din = buffer(n * 4, in.data()), slot = buffer(4, &start), out = poisoned(n * 4),
      lout = poisoned((n + 1) * 4);
  set_mem_arg(k, 0, din); set_mem_arg(k, 1, slot); set_mem_arg(k, 2, out); set_mem_arg(k, 3, lout);
  run(k, 1, &n, &n);
  auto check = [&](std::vector<float> got, const char* what) {
    std::vector<float> want = in;
    want.push_back(-1.0f);
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want) << what;
  };
  auto g = read<float>(out, n);
  g.push_back(read<float>(slot, 1)[0]);
  check(g, "global");
  check(read<float>(lout, n + 1), "local");
}

INSTANTIATE_TEST_SUITE_P(Options, Generic, ::testing::Values(std::string(""),
                                                             std::string("-cl-opt-disable")));

}  // namespace
}  // namespace vkcl::test
