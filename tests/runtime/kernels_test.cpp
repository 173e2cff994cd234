// Kernel tests of issue 2: real OpenCL C kernels through the loader on the default vkcl device,
// checked against CPU references on fresh random inputs with poisoned outputs. Every test runs
// at the default optimisation level and at -cl-opt-disable.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class Kernels : public KernelTest {};

TEST_P(Kernels, VectorAdd) {
  const int n = 1000;  // not a multiple of the local size: the kernel guards with n
  std::uniform_real_distribution<float> dist(-100, 100);
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) a[i] = dist(rng_), b[i] = dist(rng_);
  Program p = build(R"(
    __kernel void vadd(__global const float* a, __global const float* b, __global float* c,
                       int n) {
      size_t i = get_global_id(0);
      if (i < n) c[i] = a[i] + b[i];
    })");
  Kernel k = kernel(p, "vadd");
  Mem da = buffer(n * 4, a.data()), db = buffer(n * 4, b.data()), dc = poisoned(n * 4);
  set_mem_arg(k, 0, da); set_mem_arg(k, 1, db); set_mem_arg(k, 2, dc); set_arg(k, 3, n);
  size_t global = 1024, local = 64;
  run(k, 1, &global, &local);
  auto c = read<float>(dc, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << "at " << i;
}

// Kernel objects made one per launch from one program, as some clients do, share its
// pipelines: each launch still gets its own arguments and local size.
TEST_P(Kernels, KernelObjectPerLaunch) {
  const int n = 256;
  std::uniform_int_distribution<int> dist(-1000, 1000);
  std::vector<int> a(n);
  for (int i = 0; i < n; ++i) a[i] = dist(rng_);
  Program p = build(R"(
    __kernel void scale(__global const int* a, __global int* out, int factor) {
      size_t i = get_global_id(0);
      out[i] = a[i] * factor + (int)get_local_size(0);
    })");
  Mem da = buffer(n * 4, a.data());
  std::vector<Mem> outs;
  const size_t locals[] = {64, 32, 64, 16};
  for (int launch = 0; launch < 4; ++launch) {
    Kernel k = kernel(p, "scale");
    outs.push_back(poisoned(n * 4));
    set_mem_arg(k, 0, da); set_mem_arg(k, 1, outs.back()); set_arg(k, 2, launch + 2);
    size_t global = n;
    run(k, 1, &global, &locals[launch]);
  }
  for (int launch = 0; launch < 4; ++launch) {
    auto out = read<int>(outs[launch], n);
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(out[i], a[i] * (launch + 2) + int(locals[launch])) << "launch " << launch << " at " << i;
  }
}

TEST_P(Kernels, SaxpyWithGlobalOffset) {
  const size_t n = 4096, offset = 1000, count = 2000;
  std::uniform_real_distribution<float> dist(-10, 10);
  std::vector<float> x(n), y(n);
  for (size_t i = 0; i < n; ++i) x[i] = dist(rng_), y[i] = dist(rng_);
  Program p = build(R"(
    __kernel void saxpy(float a, __global const float* x, __global float* y) {
      size_t i = get_global_id(0);
      y[i] = a * x[i] + y[i];
    })");
  Kernel k = kernel(p, "saxpy");
  Mem dx = buffer(n * 4, x.data()), dy = buffer(n * 4, y.data());
  float a = 2.5f;
  set_arg(k, 0, a); set_mem_arg(k, 1, dx); set_mem_arg(k, 2, dy);
  run(k, 1, &count, nullptr, &offset);
  auto out = read<float>(dy, n);
  for (size_t i = 0; i < n; ++i) {
    // OpenCL C may contract a * x + y (FP_CONTRACT is on by default): either rounding is right.
    volatile float product = a * x[i];
    bool inside = i >= offset && i < offset + count;
    float separate = inside ? float(product + y[i]) : y[i];
    float fused = inside ? std::fma(a, x[i], y[i]) : y[i];
    ASSERT_TRUE(out[i] == separate || out[i] == fused) << "at " << i << ": " << out[i];
  }
}

// Each work-item writes its ids; checked against the NDRange definition.
static const char* kIdsSource = R"(
  __kernel void ids(__global uint* out) {
    size_t x = get_global_id(0) - get_global_offset(0);
    size_t y = get_global_id(1) - get_global_offset(1);
    size_t z = get_global_id(2) - get_global_offset(2);
    size_t linear = (z * get_global_size(1) + y) * get_global_size(0) + x;
    __global uint* o = out + linear * 12;
    for (uint d = 0; d < 3; ++d) {
      o[d] = get_global_id(d);
      o[3 + d] = get_local_id(d);
      o[6 + d] = get_group_id(d);
    }
    o[9] = get_local_size(0) * 10000 + get_local_size(1) * 100 + get_local_size(2);
    o[10] = get_num_groups(0) * 10000 + get_num_groups(1) * 100 + get_num_groups(2);
    o[11] = get_work_dim() * 1000000 + (uint)get_global_linear_id();
  })";

static void check_ids(const std::vector<uint32_t>& out, cl_uint dims, const size_t* global,
                      const size_t* local, const size_t* offset) {
  size_t g[3] = {1, 1, 1}, l[3] = {1, 1, 1}, o[3] = {0, 0, 0};
  for (cl_uint d = 0; d < dims; ++d) g[d] = global[d], l[d] = local[d], o[d] = offset[d];
  for (size_t z = 0; z < g[2]; ++z)
    for (size_t y = 0; y < g[1]; ++y)
      for (size_t x = 0; x < g[0]; ++x) {
        size_t linear = (z * g[1] + y) * g[0] + x;
        const uint32_t* r = &out[linear * 12];
        size_t id[3] = {x, y, z};
        for (int d = 0; d < 3; ++d) {
          ASSERT_EQ(r[d], id[d] + o[d]) << "global id " << d << " at " << linear;
          ASSERT_EQ(r[3 + d], id[d] % l[d]) << "local id " << d << " at " << linear;
          ASSERT_EQ(r[6 + d], id[d] / l[d]) << "group id " << d << " at " << linear;
        }
        ASSERT_EQ(r[9], l[0] * 10000 + l[1] * 100 + l[2]);
        ASSERT_EQ(r[10], (g[0] / l[0]) * 10000 + (g[1] / l[1]) * 100 + g[2] / l[2]);
        ASSERT_EQ(r[11], dims * 1000000 + linear);
      }
}

TEST_P(Kernels, Ids2D) {
  Program p = build(kIdsSource, "-cl-std=CL3.0");
  Kernel k = kernel(p, "ids");
  size_t global[2] = {24, 12}, local[2] = {8, 4}, offset[2] = {5, 3};
  Mem out = poisoned(24 * 12 * 12 * 4);
  set_mem_arg(k, 0, out);
  run(k, 2, global, local, offset);
  check_ids(read<uint32_t>(out, 24 * 12 * 12), 2, global, local, offset);
}

TEST_P(Kernels, Ids3D) {
  Program p = build(kIdsSource, "-cl-std=CL3.0");
  Kernel k = kernel(p, "ids");
  size_t global[3] = {8, 6, 4}, local[3] = {4, 2, 2}, offset[3] = {1, 2, 3};
  Mem out = poisoned(8 * 6 * 4 * 12 * 4);
  set_mem_arg(k, 0, out);
  run(k, 3, global, local, offset);
  check_ids(read<uint32_t>(out, 8 * 6 * 4 * 12), 3, global, local, offset);
}

TEST_P(Kernels, TiledMatrixMultiplyWithLocalMemory) {
  const int n = 64, tile = 8;
  std::uniform_int_distribution<int> dist(-8, 8);  // exact in float
  std::vector<float> a(n * n), b(n * n);
  for (auto& v : a) v = float(dist(rng_));
  for (auto& v : b) v = float(dist(rng_));
  Program p = build(R"(
    #define TILE 8
    __kernel void matmul(__global const float* a, __global const float* b, __global float* c,
                         int n) {
      __local float ta[TILE][TILE];
      __local float tb[TILE][TILE];
      int row = get_global_id(1), col = get_global_id(0);
      int lr = get_local_id(1), lc = get_local_id(0);
      float sum = 0.0f;
      for (int t = 0; t < n / TILE; ++t) {
        ta[lr][lc] = a[row * n + t * TILE + lc];
        tb[lr][lc] = b[(t * TILE + lr) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; ++k) sum += ta[lr][k] * tb[k][lc];
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      c[row * n + col] = sum;
    })");
  Kernel k = kernel(p, "matmul");
  Mem da = buffer(a.size() * 4, a.data()), db = buffer(b.size() * 4, b.data());
  Mem dc = poisoned(a.size() * 4);
  set_mem_arg(k, 0, da); set_mem_arg(k, 1, db); set_mem_arg(k, 2, dc); set_arg(k, 3, n);
  size_t global[2] = {size_t(n), size_t(n)}, local[2] = {size_t(tile), size_t(tile)};
  run(k, 2, global, local);
  auto c = read<float>(dc, n * n);
  for (int r = 0; r < n; ++r)
    for (int col = 0; col < n; ++col) {
      float s = 0;
      for (int x = 0; x < n; ++x) s += a[r * n + x] * b[x * n + col];
      ASSERT_EQ(c[r * n + col], s) << "at " << r << "," << col;
    }
}

TEST_P(Kernels, ReductionWithLocalArgument) {
  const size_t n = 4096, local = 128;
  std::uniform_int_distribution<int> dist(-1000, 1000);
  std::vector<int> in(n);
  for (auto& v : in) v = dist(rng_);
  Program p = build(R"(
    __kernel void reduce(__global const int* in, __global int* partial, __local int* tmp) {
      size_t l = get_local_id(0);
      tmp[l] = in[get_global_id(0)];
      barrier(CLK_LOCAL_MEM_FENCE);
      for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (l < s) tmp[l] += tmp[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      if (l == 0) partial[get_group_id(0)] = tmp[0];
    })");
  Kernel k = kernel(p, "reduce");
  Mem din = buffer(n * 4, in.data()), dpart = poisoned(n / local * 4);
  set_mem_arg(k, 0, din); set_mem_arg(k, 1, dpart);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, local * sizeof(int), nullptr));
  run(k, 1, &n, &local);
  auto part = read<int>(dpart, n / local);
  for (size_t g = 0; g < n / local; ++g) {
    int s = 0;
    for (size_t i = 0; i < local; ++i) s += in[g * local + i];
    ASSERT_EQ(part[g], s) << "group " << g;
  }
}

TEST_P(Kernels, AtomicHistogramGlobal) {
  const size_t n = 8192;
  const int bins = 16;
  std::uniform_int_distribution<int> dist(0, 255);
  std::vector<uint8_t> data(n);
  for (auto& v : data) v = uint8_t(dist(rng_));
  Program p = build(R"(
    __kernel void hist(__global const uchar* data, __global int* bins) {
      atomic_inc(&bins[data[get_global_id(0)] % 16]);
    })");
  Kernel k = kernel(p, "hist");
  std::vector<int> zero(bins, 0);
  Mem dd = buffer(n, data.data()), db = buffer(bins * 4, zero.data());
  set_mem_arg(k, 0, dd); set_mem_arg(k, 1, db);
  size_t local = 64;
  run(k, 1, &n, &local);
  auto got = read<int>(db, bins);
  std::vector<int> expect(bins, 0);
  for (auto v : data) expect[v % 16]++;
  EXPECT_EQ(got, expect);
}

TEST_P(Kernels, AtomicHistogramLocal) {
  const size_t n = 8192, local = 128;
  const int bins = 32;
  std::uniform_int_distribution<int> dist(0, 1 << 20);
  std::vector<uint32_t> data(n);
  for (auto& v : data) v = uint32_t(dist(rng_));
  Program p = build(R"(
    __kernel void hist(__global const uint* data, __global uint* bins) {
      __local uint counts[32];
      size_t l = get_local_id(0);
      if (l < 32) counts[l] = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      atomic_add(&counts[data[get_global_id(0)] & 31], 1u);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (l < 32) atomic_add(&bins[l], counts[l]);
    })");
  Kernel k = kernel(p, "hist");
  std::vector<uint32_t> zero(bins, 0);
  Mem dd = buffer(n * 4, data.data()), db = buffer(bins * 4, zero.data());
  set_mem_arg(k, 0, dd); set_mem_arg(k, 1, db);
  run(k, 1, &n, &local);
  auto got = read<uint32_t>(db, bins);
  std::vector<uint32_t> expect(bins, 0);
  for (auto v : data) expect[v & 31]++;
  EXPECT_EQ(got, expect);
}

TEST_P(Kernels, StructByValue) {
  struct Params {
    cl_float scale;
    cl_int bias;
    cl_char shift;
    cl_long big;
    cl_float4 weights;
  };
  static_assert(sizeof(Params) == 48);
  Params params{};
  params.scale = 1.5f;
  params.bias = -7;
  params.shift = 3;
  params.big = (1ll << 40) + 5;
  params.weights = {{0.5f, 2.0f, -1.0f, 4.0f}};
  const size_t n = 256;
  Program p = build(R"(
    typedef struct { float scale; int bias; char shift; long big; float4 weights; } Params;
    __kernel void apply(__global const int* in, __global long* out, Params p) {
      size_t i = get_global_id(0);
      float w = p.weights[i % 4];
      out[i] = (long)(in[i] * p.scale * w) + p.bias + ((long)in[i] << p.shift) + p.big;
    })");
  Kernel k = kernel(p, "apply");
  std::uniform_int_distribution<int> dist(-1000, 1000);
  std::vector<int> in(n);
  for (auto& v : in) v = dist(rng_);
  Mem din = buffer(n * 4, in.data()), dout = poisoned(n * 8);
  set_mem_arg(k, 0, din); set_mem_arg(k, 1, dout); set_arg(k, 2, params);
  run(k, 1, &n, nullptr);
  auto out = read<int64_t>(dout, n);
  for (size_t i = 0; i < n; ++i) {
    volatile float scaled = in[i] * params.scale;
    volatile float weighted = scaled * params.weights.s[i % 4];
    int64_t expect = int64_t(weighted) + params.bias + (int64_t(in[i]) << params.shift) + params.big;
    ASSERT_EQ(out[i], expect) << "at " << i;
  }
}

// Arguments are read from push constants as far as they reach (128 bytes after the dispatch
// block on lavapipe) and from the argument block in memory beyond: every kind of argument on
// both sides of the edge, unaligned neighbours included.
TEST_P(Kernels, ArgumentsOnBothSidesOfThePushConstantWindow) {
  const size_t n = 64;
  cl_char c = -5;
  cl_short s = -1234;
  cl_float3 f3 = {{1.5f, -2.25f, 8.0f}};
  cl_uchar u = 200;
  cl_long16 big;
  for (int k = 0; k < 16; ++k) big.s[k] = (cl_long(k) << 36) - 77 * k;
  cl_int after = 123456789;
  cl_ushort2 pair = {{65535, 17}};
  Program p = build(R"(
    __kernel void args(char c, short s, __global long* out, float3 f3, uchar u, long16 big,
                       int after, __local int* scratch, ushort2 pair) {
      size_t i = get_global_id(0);
      scratch[get_local_id(0)] = (int)i;
      barrier(CLK_LOCAL_MEM_FENCE);
      long sum = c + s + (long)(f3.x * 4) + (long)(f3.y * 4) + (long)(f3.z * 4) + u;
      out[4 * i] = sum + scratch[get_local_size(0) - 1 - get_local_id(0)];
      out[4 * i + 1] = big[i % 16];
      out[4 * i + 2] = after;
      out[4 * i + 3] = (long)pair.x * 100000 + pair.y;
    })");
  Kernel k = kernel(p, "args");
  Mem out = poisoned(n * 4 * 8);
  set_arg(k, 0, c); set_arg(k, 1, s); set_mem_arg(k, 2, out); set_arg(k, 3, f3);
  set_arg(k, 4, u); set_arg(k, 5, big); set_arg(k, 6, after);
  ASSERT_EQ(clSetKernelArg(k.get(), 7, 16 * sizeof(cl_int), nullptr), CL_SUCCESS);
  set_arg(k, 8, pair);
  size_t local = 16;
  run(k, 1, &n, &local);
  auto r = read<int64_t>(out, n * 4);
  for (size_t i = 0; i < n; ++i) {
    size_t mirrored = i / local * local + (local - 1 - i % local);
    int64_t sum = c + s + int64_t(f3.s[0] * 4) + int64_t(f3.s[1] * 4) + int64_t(f3.s[2] * 4) + u;
    ASSERT_EQ(r[4 * i], sum + int64_t(mirrored)) << i;
    ASSERT_EQ(r[4 * i + 1], big.s[i % 16]) << i;
    ASSERT_EQ(r[4 * i + 2], after) << i;
    ASSERT_EQ(r[4 * i + 3], int64_t(pair.s[0]) * 100000 + pair.s[1]) << i;
  }
}

TEST_P(Kernels, CharShortLongArithmetic) {
  const size_t n = 512;
  std::uniform_int_distribution<int> dist(-128, 127);
  std::uniform_int_distribution<int64_t> ldist(INT64_MIN / 4, INT64_MAX / 4);
  std::vector<int8_t> c(n);
  std::vector<int16_t> s(n);
  std::vector<int64_t> l(n);
  for (size_t i = 0; i < n; ++i) c[i] = int8_t(dist(rng_)), s[i] = int16_t(dist(rng_) * 200), l[i] = ldist(rng_);
  Program p = build(R"(
    __kernel void mix(__global const char* c, __global const short* s, __global const long* l,
                      __global char* oc, __global short* os, __global long* ol,
                      __global uchar* ou) {
      size_t i = get_global_id(0);
      oc[i] = (char)(c[i] * 3 + 7);            // wraps
      os[i] = (short)(s[i] / 3 - c[i]);
      ol[i] = l[i] * 3 + (l[i] >> 7) - (long)s[i] * 100000;
      ou[i] = (uchar)(c[i] ^ 0x5a) + (uchar)(i & 7);
    })");
  Kernel k = kernel(p, "mix");
  Mem dc = buffer(n, c.data()), ds = buffer(n * 2, s.data()), dl = buffer(n * 8, l.data());
  Mem oc = poisoned(n), os = poisoned(n * 2), ol = poisoned(n * 8), ou = poisoned(n);
  set_mem_arg(k, 0, dc); set_mem_arg(k, 1, ds); set_mem_arg(k, 2, dl);
  set_mem_arg(k, 3, oc); set_mem_arg(k, 4, os); set_mem_arg(k, 5, ol); set_mem_arg(k, 6, ou);
  size_t local = 32;
  run(k, 1, &n, &local);
  auto rc = read<int8_t>(oc, n);
  auto rs = read<int16_t>(os, n);
  auto rl = read<int64_t>(ol, n);
  auto ru = read<uint8_t>(ou, n);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(rc[i], int8_t(c[i] * 3 + 7)) << i;
    ASSERT_EQ(rs[i], int16_t(s[i] / 3 - c[i])) << i;
    ASSERT_EQ(rl[i], int64_t(uint64_t(l[i]) * 3 + uint64_t(l[i] >> 7) - uint64_t(int64_t(s[i]) * 100000))) << i;
    ASSERT_EQ(ru[i], uint8_t(uint8_t(c[i] ^ 0x5a) + uint8_t(i & 7))) << i;
  }
}

TEST_P(Kernels, PrivateArrayWithDynamicIndex) {
  const size_t n = 256;
  std::uniform_int_distribution<int> dist(0, 1000);
  std::vector<int> in(n);
  for (auto& v : in) v = dist(rng_);
  Program p = build(R"(
    int pick(int* table, int i) { return table[i & 7]; }
    __kernel void lut(__global const int* in, __global int* out) {
      int table[8];
      for (int k = 0; k < 8; ++k) table[k] = k * k + in[get_global_id(0)];
      out[get_global_id(0)] = pick(table, in[get_global_id(0)]);
    })");
  Kernel k = kernel(p, "lut");
  Mem din = buffer(n * 4, in.data()), dout = poisoned(n * 4);
  set_mem_arg(k, 0, din); set_mem_arg(k, 1, dout);
  run(k, 1, &n, nullptr);
  auto out = read<int>(dout, n);
  for (size_t i = 0; i < n; ++i) {
    int idx = in[i] & 7;
    ASSERT_EQ(out[i], idx * idx + in[i]) << i;
  }
}

TEST_P(Kernels, NonUniformWorkGroups) {
  const size_t n = 1000, local = 64;  // 15 full groups and one of 40
  Program p = build(R"(
    __kernel void sizes(__global uint* out) {
      size_t i = get_global_id(0);
      out[i] = get_local_size(0) * 1000 + get_enqueued_local_size(0) * 10 + get_group_id(0) % 10;
    })", "-cl-std=CL3.0");
  Kernel k = kernel(p, "sizes");
  Mem dout = poisoned(n * 4);
  set_mem_arg(k, 0, dout);
  run(k, 1, &n, &local);
  auto out = read<uint32_t>(dout, n);
  for (size_t i = 0; i < n; ++i) {
    size_t group = i / local;
    size_t size = group == n / local ? n % local : local;
    ASSERT_EQ(out[i], size * 1000 + local * 10 + group % 10) << i;
  }
}

// One kernel launched with and without a global offset, with a partial last work-group, and
// with more work-groups than one Vulkan dispatch takes: each launch's pipeline knows what its
// regions have in common (kSpecNoGlobalOffset, kSpecRegionAtOrigin, kSpecWholeGroups), and
// none may run a launch with another's.
TEST_P(Kernels, IdsOfLaunchesThatShareAKernel) {
  Program p = build(R"(
    __kernel void ids(__global uint* out) {
      size_t i = get_global_id(0) - get_global_offset(0);
      out[4 * i] = get_global_id(0);
      out[4 * i + 1] = get_group_id(0);
      out[4 * i + 2] = get_enqueued_local_size(0) * 1000 + get_local_size(0);
      out[4 * i + 3] = get_global_offset(0);
    })", "-cl-std=CL3.0");
  Kernel k = kernel(p, "ids");
  // More work-groups than lavapipe's dispatches take (maxComputeWorkGroupCount 65535).
  const size_t many = 70000;
  struct Launch { size_t global, local, offset; };
  const Launch launches[] = {{1000, 64, 0}, {1000, 64, 7}, {1000, 64, 0}, {640, 64, 3},
                             {many, 1, 0}, {many, 1, 5}, {256, 64, 0}};
  for (const Launch& l : launches) {
    SCOPED_TRACE(std::to_string(l.global) + " by " + std::to_string(l.local) + " from " + std::to_string(l.offset));
    Mem dout = poisoned(l.global * 16);
    set_mem_arg(k, 0, dout);
    run(k, 1, &l.global, &l.local, &l.offset);
    auto out = read<uint32_t>(dout, 4 * l.global);
    for (size_t i = 0; i < l.global; ++i) {
      size_t group = i / l.local;
      size_t size = std::min(l.local, l.global - group * l.local);
      ASSERT_EQ(out[4 * i], i + l.offset) << i;
      ASSERT_EQ(out[4 * i + 1], group) << i;
      ASSERT_EQ(out[4 * i + 2], l.local * 1000 + size) << i;
      ASSERT_EQ(out[4 * i + 3], l.offset) << i;
    }
  }
}

// A released buffer's memory is kept for the next buffer of its size (vk::Device::Spare): it
// must not come back while a command of another queue still writes it, and two live buffers
// of one size must never share it.
TEST_P(Kernels, ReleasedBufferMemoryIsReusedOnlyWhenFree) {
  Program p = build(R"(
    __kernel void slow_fill(__global uint* out, uint value, uint spin) {
      uint x = value;
      for (uint i = 0; i < spin; ++i) x = x * 1664525u + 1013904223u;
      out[get_global_id(0)] = value + (x & 0u);
    })");
  const size_t n = 1 << 16, bytes = n * 4;
  cl_int err = CL_SUCCESS;
  Queue other(clCreateCommandQueueWithProperties(context_, device_, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  for (int round = 0; round < 3; ++round) {
    cl_mem a = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, &err);
    ASSERT_EQ(CL_SUCCESS, err);
    Kernel k = kernel(p, "slow_fill");
    cl_uint value = 7, spin = 20000;
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof a, &a));
    set_arg(k, 1, value);
    set_arg(k, 2, spin);
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(other.get(), k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    ASSERT_EQ(CL_SUCCESS, clFlush(other.get()));
    ASSERT_EQ(CL_SUCCESS, clReleaseMemObject(a));  // still written by |other|
    std::vector<uint32_t> b_data(n, 0x11111111u + round), c_data(n, 0x22222222u + round);
    Mem b = buffer(bytes, b_data.data()), c = buffer(bytes, c_data.data());
    ASSERT_EQ(CL_SUCCESS, clFinish(other.get()));
    EXPECT_TRUE(read<uint32_t>(b, n) == b_data) << "round " << round;
    EXPECT_TRUE(read<uint32_t>(c, n) == c_data) << "round " << round;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, Kernels, ::testing::Values(std::string(""),
                                                             std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test

namespace vkcl::test {
namespace {

class ProgramScope : public KernelTest {};

TEST_P(ProgramScope, ConstantTablesWithInitializers) {
  Program p = build(R"(
    typedef struct { int id; float weight; short tag; } Entry;
    __constant int squares[8] = {0, 1, 4, 9, 16, 25, 36, 49};
    __constant float4 colours[2] = {(float4)(1, 2, 3, 4), (float4)(5, 6, 7, 8)};
    __constant Entry entries[3] = {{7, 0.5f, 3}, {11, 1.5f, -4}, {13, 2.5f, 9}};
    __kernel void lookup(__global const int* in, __global float* out) {
      int i = get_global_id(0);
      int k = in[i];
      Entry e = entries[k % 3];
      out[i] = squares[k & 7] + colours[k & 1].w * e.weight + e.id + e.tag;
    })");
  Kernel k = kernel(p, "lookup");
  const size_t n = 300;
  std::uniform_int_distribution<int> dist(0, 1000);
  std::vector<int> in(n);
  for (auto& v : in) v = dist(rng_);
  Mem din = buffer(n * 4, in.data()), dout = poisoned(n * 4);
  set_mem_arg(k, 0, din);
  set_mem_arg(k, 1, dout);
  run(k, 1, &n, nullptr);
  auto out = read<float>(dout, n);
  const int squares[8] = {0, 1, 4, 9, 16, 25, 36, 49};
  const float w[2] = {4, 8};
  const int ids[3] = {7, 11, 13}, tags[3] = {3, -4, 9};
  const float weights[3] = {0.5f, 1.5f, 2.5f};
  for (size_t i = 0; i < n; ++i) {
    int key = in[i];
    float expect = squares[key & 7] + w[key & 1] * weights[key % 3] + ids[key % 3] + tags[key % 3];
    ASSERT_FLOAT_EQ(out[i], expect) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, ProgramScope,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test

namespace vkcl::test {
namespace {

class WideVectors : public KernelTest {};

TEST_P(WideVectors, EightAndSixteenComponents) {
  Program p = build(R"(
    __kernel void wide(__global const float* in, __global float* out, __global int* counts) {
      size_t i = get_global_id(0);
      float8 a = vload8(i, in);
      float8 b = a * 2.0f + (float8)(1, 2, 3, 4, 5, 6, 7, 8);
      float8 c = b.s76543210;
      int16 m = (int16)(i) + (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
      int16 sel = m > (int16)(8);
      counts[i] = sel.s0 + sel.s7 + sel.sf + m[i % 16];
      vstore8(c, i, out);
    })");
  Kernel k = kernel(p, "wide");
  const size_t n = 64;
  std::uniform_real_distribution<float> dist(-8, 8);
  std::vector<float> in(n * 8);
  for (auto& v : in) v = float(int(dist(rng_)));
  Mem din = buffer(in.size() * 4, in.data()), dout = poisoned(in.size() * 4), dc = poisoned(n * 4);
  set_mem_arg(k, 0, din);
  set_mem_arg(k, 1, dout);
  set_mem_arg(k, 2, dc);
  run(k, 1, &n, nullptr);
  auto out = read<float>(dout, in.size());
  auto counts = read<int>(dc, n);
  for (size_t i = 0; i < n; ++i) {
    for (int c = 0; c < 8; ++c) {
      int from = 7 - c;  // the .s76543210 swizzle
      ASSERT_EQ(out[i * 8 + c], in[i * 8 + from] * 2.0f + float(from + 1)) << i << "," << c;
    }
    int m[16];
    for (int c = 0; c < 16; ++c) m[c] = int(i) + c;
    auto truth = [&](int c) { return m[c] > 8 ? -1 : 0; };  // vector comparisons give -1
    ASSERT_EQ(counts[i], truth(0) + truth(7) + truth(15) + m[i % 16]) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, WideVectors,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
