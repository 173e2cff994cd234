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

INSTANTIATE_TEST_SUITE_P(Options, ControlFlow,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
