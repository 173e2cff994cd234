// Structs passed by value to functions that are not inlined (noinline, -cl-opt-disable): in
// SPIR-V they are pointers with the ByVal parameter attribute, and the callee's changes to
// its copy must never reach the caller's variable, whatever the producer passed (clang at
// -O2 passes the caller's own variable, or its own by-value parameter, straight on).
#include <cstdint>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class ByValue : public KernelTest {};

struct S {
  cl_int a;
  cl_float b;
  cl_char c;
  cl_long d;
  cl_short e[3];
  cl_float2 f;
};
static_assert(sizeof(S) == 40);

bool operator==(const S& x, const S& y) {
  return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d && x.e[0] == y.e[0] &&
         x.e[1] == y.e[1] && x.e[2] == y.e[2] && x.f.s[0] == y.f.s[0] && x.f.s[1] == y.f.s[1];
}
std::ostream& operator<<(std::ostream& o, const S& s) {
  return o << "{" << s.a << ", " << s.b << ", " << int(s.c) << ", " << s.d << ", {" << s.e[0]
           << ", " << s.e[1] << ", " << s.e[2] << "}, {" << s.f.s[0] << ", " << s.f.s[1] << "}}";
}

const char* kSource = R"(
  typedef struct { int a; float b; char c; long d; short e[3]; float2 f; } S;

  __attribute__((noinline)) S bump(S s, int k) {
    s.a += k;
    s.b *= 2.0f;
    s.c++;
    s.d -= k;
    s.e[1] += 7;
    s.f.y += 0.5f;
    return s;
  }
  // Changes its own copy between two nested calls; the second passes the first's result.
  __attribute__((noinline)) S twice(S s, int k) {
    S t = bump(s, k);
    s.a += 1000;
    t = bump(t, k);
    t.e[2] = (short)s.a;
    return t;
  }
  // The copy is made at the call: a write through another pointer to the same variable
  // leaves it alone.
  __attribute__((noinline)) int write_then_read(S s, S* p) {
    p->a = 77;
    return s.a;
  }

  __kernel void run(__global const S* in, __global S* out, __global int* seen, S arg) {
    size_t i = get_global_id(0);
    S s = in[i];
    S r = twice(s, (int)i);
    out[6 * i] = s;        // unchanged by twice and bump
    out[6 * i + 1] = r;
    S u = s;
    u = bump(u, 3);        // the result replaces the argument's variable
    out[6 * i + 2] = u;
    out[6 * i + 3] = s;
    S b = bump(arg, (int)i);  // the kernel's own by-value argument
    out[6 * i + 4] = arg;
    out[6 * i + 5] = b;
    S w = s;
    seen[2 * i] = write_then_read(w, &w);
    seen[2 * i + 1] = w.a;
  }
)";

S bump(S s, int k) {
  s.a += k;
  s.b *= 2.0f;
  s.c = cl_char(s.c + 1);
  s.d -= k;
  s.e[1] = cl_short(s.e[1] + 7);
  s.f.s[1] += 0.5f;
  return s;
}
S twice(S s, int k) {
  S t = bump(s, k);
  s.a += 1000;
  t = bump(t, k);
  t.e[2] = cl_short(s.a);
  return t;
}

TEST_P(ByValue, CalleeChangesStayInItsCopy) {
  Program p = build(kSource);
  Kernel k = kernel(p, "run");
  const size_t n = 64;
  std::uniform_int_distribution<int> dist(-1000, 1000);
  std::vector<S> in(n);
  for (S& s : in) {
    s = S{};
    s.a = dist(rng_);
    s.b = float(dist(rng_));
    s.c = cl_char(dist(rng_) % 100);
    s.d = int64_t(dist(rng_)) << 33;
    for (auto& e : s.e) e = cl_short(dist(rng_));
    s.f.s[0] = float(dist(rng_));
    s.f.s[1] = float(dist(rng_));
  }
  S arg{};
  arg.a = 5; arg.b = 1.5f; arg.c = 9; arg.d = -(int64_t(1) << 40);
  arg.e[0] = 1; arg.e[1] = 2; arg.e[2] = 3; arg.f.s[0] = -4.0f; arg.f.s[1] = 8.0f;
  Mem din = buffer(n * sizeof(S), in.data()), dout = poisoned(6 * n * sizeof(S)),
      dseen = poisoned(2 * n * 4);
  set_mem_arg(k, 0, din); set_mem_arg(k, 1, dout); set_mem_arg(k, 2, dseen); set_arg(k, 3, arg);
  run(k, 1, &n, nullptr);
  auto out = read<S>(dout, 6 * n);
  auto seen = read<cl_int>(dseen, 2 * n);
  for (size_t i = 0; i < n; ++i) {
    SCOPED_TRACE(i);
    const S& s = in[i];
    EXPECT_EQ(out[6 * i], s);
    EXPECT_EQ(out[6 * i + 1], twice(s, int(i)));
    EXPECT_EQ(out[6 * i + 2], bump(s, 3));
    EXPECT_EQ(out[6 * i + 3], s);
    EXPECT_EQ(out[6 * i + 4], arg);
    EXPECT_EQ(out[6 * i + 5], bump(arg, int(i)));
    EXPECT_EQ(seen[2 * i], s.a);
    EXPECT_EQ(seen[2 * i + 1], 77);
  }
}

INSTANTIATE_TEST_SUITE_P(Options, ByValue,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
