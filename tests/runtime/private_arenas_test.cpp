// Private variables in arenas of their own (kernel_to_shader/passes/private_arenas.h): the
// pointers that can meet share an arena, the others do not, and pointers the translator
// cannot follow (kept in memory, cast to generic) take theirs into arena 0. Each shape
// here must compute what the same C code computes on the host.
#include <cstdint>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class PrivateArenas : public KernelTest {};

// The same code for the kernel and the host reference.
#define PRIVATE_ARENAS_BODY                                                         \
  uint a[4], b[4], c[8], d[8], e[4], f[4], g[8];                                    \
  for (int j = 0; j < 4; ++j) {                                                     \
    a[j] = x + j; b[j] = x * 3 + j; e[j] = x ^ j; f[j] = x + 100 * j;               \
  }                                                                                 \
  for (int j = 0; j < 8; ++j) { c[j] = x * j; d[j] = x + 7 * j; g[j] = x - j; }     \
  rotate(a, n);   /* a and b meet in rotate's parameter */                          \
  rotate(b, n + 1);                                                                 \
  uint* p = (x & 1) ? c : d;  /* c and d meet in p */                               \
  p[n % 8] += 5;                                                                    \
  uint* held[2] = {e, f};     /* kept in memory: arena 0 */                         \
  held[x & 1][n % 4] *= 3;                                                          \
  g[(x + n) % 8] = sum4(a) + sum4(b);                                               \
  uint r = 0;                                                                       \
  for (int j = 0; j < 8; ++j) r = r * 31 + c[j] + 3 * d[j] + 5 * g[j];             \
  for (int j = 0; j < 4; ++j) r = r * 17 + a[j] + 7 * b[j] + 11 * e[j] + 13 * f[j];

#define STR2(...) #__VA_ARGS__
#define STR(...) STR2(__VA_ARGS__)

typedef uint32_t uint;
uint rotate(uint* w, int n) {
  uint first = w[0];
  for (int j = 0; j < 3; ++j) w[j] = (w[j + 1] << (n & 7)) | first;
  w[3] = first;
  return first;
}
uint sum4(const uint* w) { return w[0] + w[1] + w[2] + w[3]; }
uint reference(uint x, int n) {
  PRIVATE_ARENAS_BODY
  return r;
}

const std::string kSource = std::string(R"(
  __attribute__((noinline)) uint rotate(uint* w, int n) {
    uint first = w[0];
    for (int j = 0; j < 3; ++j) w[j] = (w[j + 1] << (n & 7)) | first;
    w[3] = first;
    return first;
  }
  __attribute__((noinline)) uint sum4(const uint* w) { return w[0] + w[1] + w[2] + w[3]; }
  __kernel void run(__global uint* out, int n) {
    uint x = get_global_id(0);
  )") + STR(PRIVATE_ARENAS_BODY) + R"(
    out[x] = r;
  })";

TEST_P(PrivateArenas, PointersThatMeetShareAnArena) {
  Program p = build(kSource);
  Kernel k = kernel(p, "run");
  const size_t count = 96;
  for (int n : {0, 3, 13}) {
    SCOPED_TRACE(n);
    Mem out = poisoned(count * 4);
    set_mem_arg(k, 0, out);
    set_arg(k, 1, cl_int(n));
    run(k, 1, &count, nullptr);
    auto got = read<cl_uint>(out, count);
    for (size_t i = 0; i < count; ++i) EXPECT_EQ(got[i], reference(uint(i), n)) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, PrivateArenas,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
