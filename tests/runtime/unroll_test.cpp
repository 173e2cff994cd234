// `#pragma unroll` and the optimiser's warnings. vkcl keeps loops top-tested (LLVM's loop
// rotation off), which LLVM's unroller cannot unroll: OpenCV's kernels (a bounded loop under
// `#pragma unroll`, as in its flip) printed "loop not unrolled" on the application's stderr
// and stayed loops. Asked-for unrolling is done now, and warnings the optimiser still gives go
// to the build log.
#include <string>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class Unroll : public KernelTest {};

// OpenCV's flip: each work-item handles up to 4 rows, fewer at the bottom.
TEST_P(Unroll, PragmaUnrollOfABoundedLoopIsDoneAndRight) {
  constexpr int kWidth = 64, kRows = 10;
  CapturedStderr err;
  Program p = build(R"(
    __kernel void k(__global const int* src, __global int* dst, int rows) {
      int x = get_global_id(0);
      int y0 = get_global_id(1) * 4;
      int i = y0 * 64 + x;
      #pragma unroll
      for (int y = y0, y1 = min(rows, y0 + 4); y < y1; ++y) {
        dst[i] = src[i] * 3 + y;
        i += 64;
      }
    })");
  EXPECT_EQ("", err.text()) << "the build wrote to stderr";
  EXPECT_EQ(std::string::npos, log_of(p).find("not unrolled")) << log_of(p);
  Kernel k = kernel(p, "k");
  std::vector<cl_int> src(kWidth * kRows);
  for (size_t i = 0; i < src.size(); ++i) src[i] = cl_int(i * 7 % 101);
  Mem s = buffer(src.size() * 4, src.data()), d = poisoned(src.size() * 4);
  set_mem_arg(k, 0, s);
  set_mem_arg(k, 1, d);
  set_arg(k, 2, cl_int(kRows));
  size_t global[2] = {kWidth, (kRows + 3) / 4};
  run(k, 2, global, nullptr);
  std::vector<cl_int> got = read<cl_int>(d, src.size());
  for (int y = 0; y < kRows; ++y)
    for (int x = 0; x < kWidth; ++x) ASSERT_EQ(src[y * kWidth + x] * 3 + y, got[y * kWidth + x]) << x << "," << y;
}

// A full unroll of a loop with a run-time trip count cannot be done: the warning is in the
// build log, stderr stays the application's, and the loop runs as written.
TEST_P(Unroll, OptimizerWarningsGoToTheBuildLog) {
  CapturedStderr err;
  Program p = build(R"(
    __kernel void k(__global int* dst, int n) {
      __local int t[64];
      int s = 0;
      #pragma unroll
      for (int j = 0; j < n; ++j) {
        t[get_local_id(0)] = j * (int)get_local_id(0);
        barrier(CLK_LOCAL_MEM_FENCE);
        s += t[63 - get_local_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      dst[get_global_id(0)] = s;
    })");
  EXPECT_EQ("", err.text()) << "the build wrote to stderr";
  EXPECT_NE(std::string::npos, log_of(p).find("loop not unrolled")) << log_of(p);
  Kernel k = kernel(p, "k");
  Mem d = poisoned(64 * 4);
  set_mem_arg(k, 0, d);
  set_arg(k, 1, cl_int(5));
  size_t global = 64, local = 64;
  run(k, 1, &global, &local);
  std::vector<cl_int> got = read<cl_int>(d, 64);
  for (int x = 0; x < 64; ++x) ASSERT_EQ((0 + 1 + 2 + 3 + 4) * (63 - x), got[x]) << x;
}

// CLBlast's XscalFast: a vector not set yet is passed to a helper that fills it in, in an
// unrolled loop. With clang's `noundef` on arguments that is undefined behaviour, and the
// optimiser made the whole kernel `unreachable` (CLBlast's SCAL left x unscaled).
TEST_P(Unroll, AVariableSetByAHelperIsNotUndefinedBehaviour) {
  constexpr size_t n = 4096;
  Program p = build(R"(
    float4 scale(float4 into, const float a, const float4 b) {
      into.x = a * b.x; into.y = a * b.y; into.z = a * b.z; into.w = a * b.w;
      return into;
    }
    __kernel __attribute__((reqd_work_group_size(128, 1, 1)))
    void k(const float alpha, __global float4* x) {
      #pragma unroll
      for (int w = 0; w < 2; w += 1) {
        const int id = w * get_global_size(0) + get_global_id(0);
        float4 value = x[id];
        float4 result;
        result = scale(result, alpha, value);
        x[id] = result;
      }
    })", "-cl-std=CL1.1");
  Kernel k = kernel(p, "k");
  std::vector<float> host(n);
  for (size_t i = 0; i < n; ++i) host[i] = float(i) - 100.0f;
  Mem x = buffer(n * 4, host.data());
  set_arg(k, 0, 3.0f);
  set_mem_arg(k, 1, x);
  size_t global = n / 4 / 2, local = 128;
  run(k, 1, &global, &local);
  std::vector<float> got = read<float>(x, n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(3.0f * host[i], got[i]) << i;
}

// (Unoptimised builds unroll nothing and warn about nothing.)
INSTANTIATE_TEST_SUITE_P(Options, Unroll, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
