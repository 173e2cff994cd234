// Loops tested at their header with straight bodies (which the translator turns into a
// guard and a loop of one block, single_block_loops.h) in the shapes kernels write them:
// counters and sums used after the loop, no pass at all, exits on equality, values the
// header computes for the body, an inner loop inside an outer one; and loops with selections
// and a break in the body (their carried values go through variables, loop_variables.h);
// every result against the CPU.
#include <cstdint>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

const char* kSource = R"(
__kernel void shapes(__global const uint* in, __global uint* out) {
  uint g = get_global_id(0), n = in[g];
  uint c = 1, i = 0;
  for (; i < n; i++) c = c * 3 + i;
  uint j = n, f = 7;
  while (j != 0) { f = f * 5 + j; j -= 2 - (j & 1); }
  uint s = 0, k = 0, t;
  for (; (t = k * k) < n; k++) s += t ^ k;
  uint outer = 0;
  for (uint a = 0; a < n % 5; a++)
    for (uint b = 0; b < a + 2; b++) outer = outer * 7 + a + b;
  uint m = 0, p = 1, q = 0;
  for (; q < n; q++) {
    if (q & 1) p = p * 5 + q; else p ^= q << 3;
    if (p % 11 == 3) break;
    m += p;
  }
  out[6 * g + 5] = m + p * 3 + q;
  out[6 * g] = c + i;
  out[6 * g + 1] = f + j;
  out[6 * g + 2] = s + t + k;
  out[6 * g + 3] = outer;
  out[6 * g + 4] = i * 1000 + k;
}

// Bounded by an argument, so that a launch counts its loops and runs the kernel's plain form
// (without resuming) wherever they are short.
__kernel void breaks(__global uint* out, uint n) {
  uint g = get_global_id(0), m = 0, p = 1 + g, q = 0;
  for (; q < n; q++) {
    if (q & 1) p = p * 5 + q; else p ^= q << 3;
    if (p % 11 == 3) break;
    m += p;
  }
  out[g] = m + p * 3 + q;
}
)";

std::vector<uint32_t> reference(uint32_t n) {
  uint32_t c = 1, i = 0;
  for (; i < n; i++) c = c * 3 + i;
  uint32_t j = n, f = 7;
  while (j != 0) { f = f * 5 + j; j -= 2 - (j & 1); }
  uint32_t s = 0, k = 0, t;
  for (; (t = k * k) < n; k++) s += t ^ k;
  uint32_t outer = 0;
  for (uint32_t a = 0; a < n % 5; a++)
    for (uint32_t b = 0; b < a + 2; b++) outer = outer * 7 + a + b;
  uint32_t m = 0, p = 1, q = 0;
  for (; q < n; q++) {
    if (q & 1) p = p * 5 + q; else p ^= q << 3;
    if (p % 11 == 3) break;
    m += p;
  }
  return {c + i, f + j, s + t + k, outer, i * 1000 + k, m + p * 3 + q};
}

class LoopShapes : public KernelTest {};

TEST_P(LoopShapes, LoopsMatchTheCpu) {
  std::vector<uint32_t> n = {0, 1, 2, 3, 4, 5, 6, 7, 9, 16, 37, 100, 255, 1000, 4097, 0};
  const size_t items = n.size();
  Program p = build(kSource);
  Kernel k = kernel(p, "shapes");
  Mem in = buffer(items * 4, n.data());
  Mem out = poisoned(items * 6 * 4);
  set_mem_arg(k, 0, in);
  set_mem_arg(k, 1, out);
  const size_t local = 4;
  run(k, 1, &items, &local);
  std::vector<uint32_t> got = read<uint32_t>(out, items * 6);
  for (size_t g = 0; g < items; ++g) {
    std::vector<uint32_t> want = reference(n[g]);
    for (size_t v = 0; v < want.size(); ++v) ASSERT_EQ(want[v], got[6 * g + v]) << "n " << n[g] << " value " << v;
  }
}

std::vector<uint32_t> breaks_reference(uint32_t n, size_t items) {
  std::vector<uint32_t> out(items);
  for (uint32_t g = 0; g < items; ++g) {
    uint32_t m = 0, p = 1 + g, q = 0;
    for (; q < n; q++) {
      if (q & 1) p = p * 5 + q; else p ^= q << 3;
      if (p % 11 == 3) break;
      m += p;
    }
    out[g] = m + p * 3 + q;
  }
  return out;
}

TEST_P(LoopShapes, LoopsWithABreakMatchTheCpu) {
  constexpr size_t items = 64, local = 8;
  Program p = build(kSource);
  Kernel k = kernel(p, "breaks");
  Mem out = poisoned(items * 4);
  set_mem_arg(k, 0, out);
  for (uint32_t n : {0u, 1u, 2u, 5u, 40u, 1000u}) {
    set_arg(k, 1, n);
    run(k, 1, &items, &local);
    std::vector<uint32_t> got = read<uint32_t>(out, items), want = breaks_reference(n, items);
    for (size_t g = 0; g < items; ++g) ASSERT_EQ(want[g], got[g]) << "n " << n << " work-item " << g;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, LoopShapes, ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
