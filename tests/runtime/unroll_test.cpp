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

// (Unoptimised builds unroll nothing and warn about nothing.)
INSTANTIATE_TEST_SUITE_P(Options, Unroll, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
