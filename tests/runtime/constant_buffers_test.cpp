// __constant arguments read as uniform buffers where their buffer fits one (lavapipe;
// kernel_to_shader/passes/constant_buffers.h), and as device addresses where it does not
// (larger than 64 KiB, NULL): every field type and access shape must read what the host
// wrote, whichever way the launch takes.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class ConstantBuffers : public KernelTest {};

struct Params {  // as OpenCL C lays it out
  float scale;
  int32_t bias;
  int8_t small;
  uint8_t pad0;
  int16_t medium;
  uint32_t pad1;
  float v[4];  // float4 at 16
  int64_t wide;
  uint16_t halfword[3];
  uint8_t pad2[2];
};
static_assert(sizeof(Params) == 48);

const char* kSource = R"(
  typedef struct { float scale; int bias; char small; short medium; float4 v; long wide; ushort halfword[3]; } Params;
  __attribute__((noinline)) float weight(__constant float* table, int i, int n) {
    return table[i % n] + table[(i * 7 + 3) % n];
  }
  __kernel void run(__global float* out, __constant Params* p, __constant float* table, int n,
                    __constant uchar* opt) {
    int g = get_global_id(0);
    float acc = p->scale * g + p->bias;
    if (g & 1) acc += p->small + p->medium + p->v.y;
    else acc -= (float)(p->wide >> 40) + p->halfword[g % 3];
    for (int i = 0; i < g % 9; ++i) acc += weight(table, g + i, n);
    float4 w = vload4(g % 5, table);
    acc += w.x * w.w;
    if (opt) acc += opt[g % 13] + opt[g % 5 + 1];
    out[g] = acc;
  })";

double reference(const Params& p, const std::vector<float>& table, int n, const uint8_t* opt, int g) {
  double acc = float(p.scale * g) + p.bias;
  if (g & 1) acc += p.small + p.medium + p.v[1];
  else acc -= float(p.wide >> 40) + p.halfword[g % 3];
  for (int i = 0; i < g % 9; ++i) acc += table[(g + i) % n] + table[((g + i) * 7 + 3) % n];
  acc += table[(g % 5) * 4] * table[(g % 5) * 4 + 3];
  if (opt) acc += opt[g % 13] + opt[g % 5 + 1];
  return acc;
}

TEST_P(ConstantBuffers, EveryLaunchReadsWhatTheHostWrote) {
  Program program = build(kSource);
  Kernel k = kernel(program, "run");
  Params p{};
  p.scale = 1.25f;
  p.bias = -17;
  p.small = -5;
  p.medium = 31000;
  for (int c = 0; c < 4; ++c) p.v[c] = 0.5f + c;
  p.wide = int64_t(0x123456789) << 20;
  p.halfword[0] = 7, p.halfword[1] = 65000, p.halfword[2] = 300;
  std::uniform_real_distribution<float> real(-2, 2);
  std::vector<uint8_t> opt(32);
  for (size_t i = 0; i < opt.size(); ++i) opt[i] = uint8_t(i * 37 + 11);
  const size_t count = 300;
  // A table that fits a uniform buffer, one that does not (64 KiB + 4), and a sub-buffer
  // of a larger buffer at an offset.
  cl_uint align_bits = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, nullptr));
  const size_t sub_offset = std::max<size_t>(align_bits / 8, 256);
  for (size_t floats : {size_t(1000), size_t(16385)}) {
    for (bool sub : {false, true}) {
      for (bool with_opt : {true, false}) {
        SCOPED_TRACE(std::to_string(floats) + (sub ? " floats in a sub-buffer" : " floats") +
                     (with_opt ? "" : ", opt NULL"));
        std::vector<float> table(floats);
        for (float& t : table) t = real(rng_);
        const int n = int(floats);
        Mem whole = buffer(floats * 4 + (sub ? sub_offset : 0));
        ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queue_, whole, CL_TRUE, sub ? sub_offset : 0, floats * 4,
                                                   table.data(), 0, nullptr, nullptr));
        Mem part;
        if (sub) {
          cl_buffer_region region{sub_offset, floats * 4};
          cl_int err;
          part = Mem(clCreateSubBuffer(whole, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
          ASSERT_EQ(CL_SUCCESS, err);
        }
        Mem params = buffer(sizeof p, &p, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR);
        Mem opts = buffer(opt.size(), opt.data(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR);
        Mem out = poisoned(count * 4);
        set_mem_arg(k, 0, out);
        set_mem_arg(k, 1, params);
        set_mem_arg(k, 2, sub ? part : whole);
        set_arg(k, 3, cl_int(n));
        if (with_opt) set_mem_arg(k, 4, opts);
        else ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 4, sizeof(cl_mem), nullptr));
        run(k, 1, &count, nullptr);
        auto got = read<float>(out, count);
        for (size_t g = 0; g < count; ++g) {
          double want = reference(p, table, n, with_opt ? opt.data() : nullptr, int(g));
          EXPECT_NEAR(got[g], want, 1e-5 * std::max(1.0, std::fabs(want))) << g;
        }
      }
    }
  }
}

// Program-scope __constant variables: read as a uniform buffer over the program's data
// while it fits one, and from device addresses in a program whose data does not (over 64 KiB).
TEST_P(ConstantBuffers, ProgramScopeVariables) {
  for (int padding : {0, 17000}) {
    SCOPED_TRACE(padding);
    const std::string source = "__constant float pad[" + std::to_string(padding + 1) + "] = {2.5f};\n" + R"(
      __constant short steps[5] = {3, -7, 11, 0, 5};
      __constant float4 corners[3] = {(float4)(1, 2, 3, 4), (float4)(-1, 0.5f, 8, 9), (float4)(6, 7, 8, 9)};
      __constant struct { char c; long l; } mixed[2] = {{-3, 1L << 40}, {9, -5}};
      __kernel void run(__global float* out, int n) {
        int g = get_global_id(0);
        float acc = pad[0];
        for (int i = 0; i < g % 7; ++i) acc += steps[(g + i) % 5] * corners[i % 3].z;
        if (g & 1) acc += corners[g % 3].w + mixed[g & 1].c + (float)(mixed[0].l >> 36);
        out[g] = acc + n;
      })";
    Program program = build(source);
    Kernel k = kernel(program, "run");
    const size_t count = 100;
    Mem out = poisoned(count * 4);
    set_mem_arg(k, 0, out);
    set_arg(k, 1, cl_int(4));
    run(k, 1, &count, nullptr);
    auto got = read<float>(out, count);
    const int steps[5] = {3, -7, 11, 0, 5};
    const float z[3] = {3, 8, 8}, w[3] = {4, 9, 9};
    const int c[2] = {-3, 9};
    for (int g = 0; g < int(count); ++g) {
      float acc = 2.5f;
      for (int i = 0; i < g % 7; ++i) acc += steps[(g + i) % 5] * z[i % 3];
      if (g & 1) acc += w[g % 3] + c[g & 1] + 16.0f;
      EXPECT_EQ(got[g], acc + 4) << g;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Options, ConstantBuffers,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
