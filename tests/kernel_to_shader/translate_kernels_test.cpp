// translate() on real clang output: OpenCL C kernels with every control-flow shape the
// structurizer must handle, compiled in-process at -O2 and -O0; each translated kernel must
// pass spirv-val for Vulkan (translate() validates) and keep its interface.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>

#include <spirv/unified1/spirv.hpp11>

#include "compiler/compiler.h"
#include "kernel_to_shader/structured_walk.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::test {
namespace {

struct Case {
  const char* name;
  const char* source;
};

const Case kCases[] = {
    {"if_else", R"(__kernel void k(__global int* o, int n) {
       int i = get_global_id(0);
       if (i < n) o[i] = 1; else o[i] = 2;
       o[i + 1] += 3; })"},
    {"loop_break_continue", R"(__kernel void k(__global int* o, int n) {
       int acc = 0;
       for (int i = 0; i < n; ++i) {
         if (o[i] < 0) break;
         if (o[i] == 3) continue;
         acc += o[i];
       }
       o[0] = acc; })"},
    {"nested_loops_goto", R"(__kernel void k(__global int* o, int n) {
       int acc = 0;
       for (int i = 0; i < n; ++i) {
         for (int j = 0; j < n; ++j) {
           if (o[i * n + j] < 0) goto done;
           if (o[j] == 7) break;
           acc += o[i * n + j];
           if (acc > 1000) continue;
           acc ^= j;
         }
         acc += i;
       }
     done:
       o[0] = acc; })"},
    {"early_return_in_loop", R"(__kernel void k(__global int* o, int n) {
       for (int i = 0; i < n; ++i) {
         if (o[i] == 42) return;
         o[i] += 1;
       }
       o[n] = 5; })"},
    {"switch", R"(__kernel void k(__global int* o, int n) {
       int i = get_global_id(0);
       switch (o[i] % 9) {
         case 0: o[i] = 1; break;
         case 1: o[i] = 5; break;
         case 5: return;
         default: o[i] = -1;
       }
       o[i] *= 2; })"},
    {"short_circuit", R"(__kernel void k(__global int* o, int n) {
       int i = get_global_id(0);
       if (o[i] > 3 || o[i + 1] < 2) o[i] = 9;
       while (i < n && o[i] != 0) { i += 3; if (o[i] == 5 || o[i + 2] == 6) break; }
       o[0] = i; })"},
    {"short_circuit_chains", R"(__kernel void k(__global int* o, int n) {
       int i = get_global_id(0);
       if (o[i] > 3 || o[i + 1] < 2) o[i] = 9;
       if (i < n && o[i] > 1) o[i] += 1;
       while (i < n && o[i] != 0) { i += 3; if (o[i] == 5 || o[i + 2] == 6) break; }
       o[0] = i; })"},
    {"switch_fallthrough_and_return", R"(__kernel void k(__global int* o, int n) {
       int i = get_global_id(0);
       switch (o[i] % 9) {
         case 0: o[i] = 1; break;
         case 1: o[i] = 5;
         case 2: o[i] += 3; break;
         case 5: return;
         default: o[i] = -1;
       }
       o[i] *= 2; })"},
    {"nested_if_return", R"(__kernel void k(__global int* o, int n) {
       int i = get_global_id(0);
       if (i < n) { if (o[i] == 0) return; o[i] += 1; }
       o[i + 1] = 3; })"},
    {"do_while_and_barrier", R"(__kernel void k(__global int* o, __local int* t, int n) {
       int i = 0;
       do { o[i] += 1; i++; } while (o[i] < n);
       t[get_local_id(0)] = i;
       barrier(CLK_LOCAL_MEM_FENCE);
       int k = 0;
       while (1) { k++; if (k > n) break; o[k] = t[k % 4]; } })"},
    {"calls_and_private_arrays", R"(
       int sum(const int* a, int n) { int s = 0; for (int i = 0; i < n; ++i) s += a[i]; return s; }
       __kernel void k(__global int* o) {
         int a[6];
         for (int i = 0; i < 6; ++i) a[i] = o[i] * i;
         o[get_global_id(0)] = sum(a, 6); })"},
    // The loop condition is used past the loop, so the structurizer moves it through a
    // variable; its load must come before the header's OpLoopMerge (CTS async copies).
    {"demoted_loop_condition", R"(__kernel void k(const __global uint16* src, __global uint16* dst,
                                                 __local uint16* tmp, int per_group, int per_item) {
       int i;
       for (i = 0; i < per_item; i++) tmp[get_local_id(0) * per_item + i] = (uint16)(uint)0;
       barrier(CLK_LOCAL_MEM_FENCE);
       for (i = 0; i < per_item; i++)
         tmp[get_local_id(0) * per_item + i] = src[get_global_id(0) * per_item + i];
       barrier(CLK_LOCAL_MEM_FENCE);
       event_t e = async_work_group_copy(dst + per_group * get_group_id(0), tmp,
                                         (size_t)per_group, 0);
       wait_group_events(1, &e); })"},
    // At -O2 llvm-spirv puts a block before the block that dominates it (a flag kept in an
    // OpSelect past a loop): translate() orders the blocks before validating (CTS generic
    // address space tests).
    {"blocks_out_of_dominance_order", R"(__global float data[8] = {0, 1, 2, 3, 4, 5, 6, 7};
       __global float ref[8] = {0, 1, 2, 3, 4, 5, 6, 7};
       __kernel void k(__global uint* results) {
         vstore2((float2)(1), 2, data);
         vstore2((float2)(1), 2, ref);
         bool result = true;
         for (int i = 0; i < 8; i++)
           if (data[i] != ref[i]) result = false;
         results[get_global_id(0)] = result; })"},
    // Unroll pragmas make llvm-spirv write OpLoopMerge itself, not always where SPIR-V allows
    // it (CTS test_compiler pragma_unroll): input merges are dropped.
    {"unroll_pragmas", R"(__kernel void k(__global uint* dst) {
       #pragma unroll
       for (uint i = 0; i < 16; ++i) dst[i] = i;
       #pragma nounroll
       for (uint i = 16; i < 32; ++i) dst[i] = i * dst[i - 16];
       #pragma unroll 4
       for (uint i = 0; i < dst[40]; ++i) dst[i + 32] += 1; })"},
    // Irreducible graphs (the names start with "irreducible"; the reducible pass must
    // change them): a loop entered in its middle, a state machine entered at every state,
    // and an irreducible cycle inside a loop around a loop.
    {"irreducible_goto_into_loop", R"(__kernel void k(__global const int* in, __global int* out, int n) {
       int gid = get_global_id(0), x = in[gid % n], acc = x, i = 0;
       if (x & 1) goto middle;
       while (i < 20) {
         acc += in[(gid + i) % n];
         if (acc > 5000) break;
       middle:
         acc = acc * 3 % 1001;
         i += 1 + (acc & 1);
       }
       out[gid] = acc * 32 + i; })"},
    {"irreducible_state_machine", R"(__kernel void k(__global const int* in, __global int* out, int n) {
       int gid = get_global_id(0), acc = in[gid % n], steps = 0;
       switch (acc & 3) { case 0: goto s0; case 1: goto s1; case 2: goto s2; default: goto s3; }
       s0: acc += in[(gid + steps) % n]; if (++steps > 40) goto end; if (acc & 4) goto s2;
       s1: acc = acc * 5 % 997; if (++steps > 40) goto end; if (acc % 3 == 0) goto s0; goto s3;
       s2: acc -= 11; if (++steps > 40 || acc < -500) goto end; goto s1;
       s3: acc ^= steps << 2; if (++steps > 40) goto end; if (acc & 8) goto s0; goto s2;
       end: out[gid] = acc * 64 + steps; })"},
    {"irreducible_nested", R"(__kernel void k(__global const int* in, __global int* out, int n) {
       int gid = get_global_id(0), acc = 0;
       for (int r = 0; r < 4; ++r) {
         int j = in[(gid + r) % n] & 7;
         if (j > 3) goto inner_mid;
       inner_top:
         acc += j;
         for (int k = 0; k < (j & 3); ++k) acc += k * r;
         if (acc == 77) { out[gid] = -1; return; }
       inner_mid:
         acc = (acc * 7 + r) % 1009;
         j -= 2;
         if (j > 0) goto inner_top;
       }
       out[gid] = acc; })"},
    // A goto machine whose structured form at -O2 fails Vulkan validation the first time;
    // the retry puts it through a dispatch loop.
    {"irreducible_machine_retried", R"(__kernel void k(__global const int* in, __global int* out, __local int* tmp, int n) {
         int gid = get_global_id(0), lid = get_local_id(0);
         int acc = in[gid % n], steps = 0;
         switch (acc & 7) {
           case 0: goto s0;
           case 1: goto s1;
           case 2: goto s2;
           case 3: goto s0;
           case 4: goto s1;
           case 5: goto s2;
           case 6: goto s0;
           case 7: goto s1;
         }
       s0:
         acc = (acc * 2 + 3 + in[(gid + steps) % n]) % 1009;
         if (++steps > 50) goto end;
         goto end;
       s1:
         acc = (acc * 1 + 1 + in[(gid + steps) % n]) % 1009;
         for (int k = 0; k < (acc & 3); ++k) acc += k;
         if (++steps > 50) goto end;
         if (acc & 32) goto s2;
         goto s0;
       s2:
         acc = (acc * 5 + 3 + in[(gid + steps) % n]) % 1009;
         if (++steps > 50) goto end;
         if (acc & 128) goto s1;
         goto s0;
       end:
         out[gid] = acc * 64 + steps;
       })"},
    // Kernel-only relational instructions on 16-component vectors.
    {"wide_relationals", R"(__kernel void k(__global float* a, __global int* r) {
       size_t i = get_global_id(0);
       float16 x = vload16(i, a), y = x * 2;
       vstore16(isordered(x, y) + isfinite(x) + signbit(x) + islessgreater(x, y) + isnormal(y) +
                isunordered(x, y), i, r); })"},
    // Every memory order and scope on atomics and fences, atomic_flag and float atomics
    // (compare-exchange loops without the device's own float atomics), as spirv-val sees
    // them on a device whose memory barriers work (on lavapipe they are rewritten).
    {"atomic_orders_scopes_fences", R"(
     __kernel void k(volatile __global atomic_int* a, volatile __global atomic_float* f,
                     volatile __global atomic_flag* flag, volatile __local atomic_float* lf) {
       int x = atomic_load_explicit(a, memory_order_acquire, memory_scope_device);
       atomic_store_explicit(a + 1, x, memory_order_release, memory_scope_work_group);
       x += atomic_fetch_add_explicit(a + 2, 1, memory_order_acq_rel, memory_scope_device);
       x += atomic_load(a + 3);
       atomic_store(a + 4, x);
       atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, memory_scope_device);
       atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_release, memory_scope_work_group);
       atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acq_rel, memory_scope_work_item);
       work_group_barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE, memory_scope_work_group);
       if (!atomic_flag_test_and_set_explicit(flag, memory_order_acquire, memory_scope_device))
         atomic_flag_clear_explicit(flag, memory_order_release, memory_scope_device);
       float g = atomic_fetch_add_explicit(f, 1.5f, memory_order_relaxed, memory_scope_device);
       g += atomic_fetch_min_explicit(f + 1, g, memory_order_acq_rel, memory_scope_device);
       g += atomic_fetch_max_explicit(lf, g, memory_order_relaxed, memory_scope_work_group);
       atomic_store(a + 5, (int)g); })"},
    // char and short in every kind of instruction and memory: what a device without 8/16-bit
    // integers gets widened (ValidWithoutNarrowIntegers).
    {"narrow_integers", R"(typedef struct { char c; short s; uchar u[3]; } S;
     __kernel void k(__global char* a, __global short* b, __global uchar4* c, __global ushort8* d,
                     __global int* o, __global S* st, __local char* l, char pc, short ps) {
       int i = get_global_id(0);
       char x = a[i], y = a[i + 1];
       short s = b[i];
       l[get_local_id(0)] = x;
       barrier(CLK_LOCAL_MEM_FENCE);
       x = l[(get_local_id(0) + 1) % get_local_size(0)];
       a[i] = x * y + pc; a[i + 2] = x / y; a[i + 3] = x % y; a[i + 4] = x >> (y & 7);
       b[i] = s * s + ps; b[i + 1] = abs(s); b[i + 2] = max(s, (short)x); b[i + 3] = clz(s);
       b[i + 4] = mul_hi(s, (short)y); b[i + 5] = add_sat(s, (short)y); b[i + 6] = rotate(s, (short)3);
       b[i + 7] = popcount(s); b[i + 8] = upsample(x, (uchar)y); b[i + 9] = hadd(s, (short)x);
       uchar4 v = c[i].wzyx + (uchar4)(x);
       c[i] = v;
       o[i] = as_int(v) + (x < y) + convert_int(s) + convert_char_sat(s) + convert_short_sat_rte((float)o[i]);
       ushort8 w = d[i];
       d[i] = w * (ushort8)(3) - w.s76543210;
       o[i + 1] = as_int(as_char4((short2)(s, 7)));
       S t = st[i]; t.c += x; t.s -= 1; t.u[1] = t.u[2]; st[i] = t;
       switch (x) { case -3: o[i + 2] = 1; break; case 100: o[i + 2] = 2; break; default: break; }
       o[i + 3] = (int)((float)x + (float)(uchar)y); })"},
    // half arithmetic, conversions, reinterpretation and memory (carried in float where the
    // CLBlast's TRSM inversion: 2^16 paths through 16 short-circuit joins in a row.
    {"short_circuit_ladder", R"(__kernel void k(__global float* o, int part, int n) {
       int col = get_global_id(0);
       float acc = 0.0f;
       #pragma unroll
       for (int s = 0; s < 16; ++s)
         if (part == 2 || col++ < n) acc += o[s] * o[s + 16];
       o[get_global_id(0)] = acc + col; })"},
    // device has no Float16).
    {"half_arithmetic", R"(#pragma OPENCL EXTENSION cl_khr_fp16 : enable
     __kernel void k(__global half* a, __global half4* b, __global float* f, __global short* s,
                     __local half* l) {
       int i = get_global_id(0);
       half x = a[i], y = a[i + 1];
       l[get_local_id(0)] = x * y;
       barrier(CLK_LOCAL_MEM_FENCE);
       a[i] = x + l[0] * x - y / x;
       a[i + 2] = fma(x, y, a[i + 3]) + sqrt(y) + sin(x) + native_exp(y);
       b[i] = b[i] * (half4)(x) + b[i + 1].wzyx;
       f[i] = (float)x + convert_float(b[i].y) + (x < y) + isnormal(x) + signbit(y);
       a[i + 4] = (half)f[i + 1] + convert_half_rtz(f[i + 2]) + (half)s[i + 3];
       s[i] = as_short(x) + (short)y;
       a[i + 5] = as_half(s[i + 1]) + fmax(x, y) + floor(y);
       vstore_half_rtp(f[i + 4], i, (__global half*)f);
     })"},
};

// What the kernels may use: the OpenCL C 3.0 features and extensions a lavapipe device has.
// A device with 8- and 16-bit integers in arithmetic and storage.
k2s::TargetCaps narrow_caps() {
  k2s::TargetCaps caps;
  caps.int8 = caps.int16 = caps.storage8 = caps.storage16 = true;
  return caps;
}

compiler::DeviceFeatures kernel_features() {
  compiler::DeviceFeatures features;
  features.features = {"__opencl_c_int64", "__opencl_c_program_scope_global_variables",
                       "__opencl_c_generic_address_space", "__opencl_c_atomic_order_acq_rel",
                       "__opencl_c_atomic_order_seq_cst", "__opencl_c_atomic_scope_device",
                       "__opencl_c_ext_fp32_global_atomic_add",
                       "__opencl_c_ext_fp32_global_atomic_min_max",
                       "__opencl_c_ext_fp32_local_atomic_add",
                       "__opencl_c_ext_fp32_local_atomic_min_max"};
  features.extensions = {"cl_ext_float_atomics"};
  features.fp16 = true;
  return features;
}

class TranslateKernels : public ::testing::TestWithParam<std::tuple<Case, const char*>> {
 protected:
  // The test's case compiled with its options and translated for |caps|; the test fails
  // unless both work and give one kernel.
  k2s::TranslateResult translate_case(const k2s::TargetCaps& caps) {
    const Case& c = std::get<0>(GetParam());
    compiler::DeviceFeatures features = kernel_features();
    auto compiled = compiler::compile(c.source, std::string(std::get<1>(GetParam())) + " -cl-std=CL3.0", features);
    EXPECT_TRUE(compiled.ok) << compiled.log;
    if (!compiled.ok) return {};
    k2s::TranslateResult r = k2s::translate(compiled.spirv, caps);
    EXPECT_TRUE(r.ok) << r.log;
    EXPECT_EQ(r.kernels.size(), 1u);
    if (r.kernels.size() != 1) r.ok = false;
    return r;
  }
};

TEST_P(TranslateKernels, ValidVulkanShader) {
  k2s::TargetCaps caps;
  caps.int8 = caps.int16 = caps.storage8 = caps.storage16 = true;
  k2s::TranslateResult r = translate_case(caps);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.kernels[0].interface.name, "k");
  EXPECT_FALSE(r.kernels[0].shader.empty());
}

// Calls |visit| with the opcode and first operand word's position of each instruction of a
// translated shader.
template <typename Visit>
void for_each_instruction(const std::vector<uint32_t>& shader, Visit visit) {
  for (size_t at = 5; at < shader.size() && (shader[at] >> 16); at += shader[at] >> 16)
    visit(spv::Op(shader[at] & 0xffff), at + 1);
}

// The capabilities a translated shader declares.
std::vector<spv::Capability> capabilities(const std::vector<uint32_t>& shader) {
  std::vector<spv::Capability> caps;
  for_each_instruction(shader, [&](spv::Op op, size_t operands) {
    if (op == spv::Op::OpCapability) caps.push_back(spv::Capability(shader[operands]));
  });
  return caps;
}

// A device without 8- and 16-bit integers or storage, or half arithmetic, gets the same kernels,
// carried in 32 bits: no narrow capability is left for the driver to reject.
TEST_P(TranslateKernels, ValidWithoutNarrowIntegers) {
  k2s::TranslateResult r = translate_case(k2s::TargetCaps{});
  ASSERT_TRUE(r.ok);
  for (spv::Capability cap : capabilities(r.kernels[0].shader)) {
    EXPECT_NE(cap, spv::Capability::Int8);
    EXPECT_NE(cap, spv::Capability::Int16);
    EXPECT_NE(cap, spv::Capability::StorageBuffer8BitAccess);
    EXPECT_NE(cap, spv::Capability::StorageBuffer16BitAccess);
    EXPECT_NE(cap, spv::Capability::Float16);
  }
}

// Every shape is also structured the way lavapipe's SPIR-V reader walks it (Mesa 22.3
// rejects some control flow spirv-val accepts).
TEST_P(TranslateKernels, MesaReadsTheControlFlow) {
  k2s::TargetCaps caps;
  caps.int8 = caps.int16 = caps.storage8 = caps.storage16 = true;
  k2s::TranslateResult r = translate_case(caps);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(structured_walk_error(r.kernels[0].shader), "");
}

// How many instructions with |op| a translated shader holds.
size_t count_instructions(const std::vector<uint32_t>& shader, spv::Op op) {
  size_t n = 0;
  for_each_instruction(shader, [&](spv::Op o, size_t) { n += o == op; });
  return n;
}

// Every shape still validates with the loop limit probe at the entry point's end (kernels
// that return early from loops included).
TEST_P(TranslateKernels, ValidWithLoopLimitProbe) {
  k2s::TargetCaps caps;
  caps.loop_iteration_limit = true;
  k2s::TranslateResult r = translate_case(caps);
  ASSERT_TRUE(r.ok);
  EXPECT_NE(r.kernels[0].interface.loop_limit_status_offset, UINT32_MAX);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, TranslateKernels,
    ::testing::Combine(::testing::ValuesIn(kCases), ::testing::Values("", "-cl-opt-disable")),
    [](const auto& info) {
      return std::string(std::get<0>(info.param).name) +
             (std::string(std::get<1>(info.param)).empty() ? "_O2" : "_O0");
    });

// The structurizer's copies stay within a small factor of the function (a ladder of
// short-circuit joins once grew its output exponentially: 4.5 MB for five rungs).
TEST(TranslateSize, ShortCircuitLadderStaysSmall) {
  compiler::DeviceFeatures features = kernel_features();
  std::string source = R"(__kernel void k(__global float* o, int part, int n) {
       int col = get_global_id(0);
       float acc[16];
       #pragma unroll
       for (int j = 0; j < 16; ++j) acc[j] = 0.0f;
       #pragma unroll
       for (int s = 0; s < RUNGS; ++s)
         if (part == 2 || col++ < n) {
           #pragma unroll
           for (int j = 0; j < 16; ++j) acc[j] += o[s] * o[s + j];
         }
       #pragma unroll
       for (int j = 0; j < 16; ++j) o[j * 7 + get_global_id(0)] = acc[j] + col; })";
  for (const char* rungs : {"-DRUNGS=8", "-DRUNGS=16", "-DRUNGS=32"}) {
    auto compiled = compiler::compile(source, rungs, features);
    ASSERT_TRUE(compiled.ok) << compiled.log;
    k2s::TranslateResult r = k2s::translate(compiled.spirv, narrow_caps());
    ASSERT_TRUE(r.ok) << r.log;
    ASSERT_EQ(r.kernels.size(), 1u);
    EXPECT_LT(r.kernels[0].shader.size(), 8 * compiled.spirv.size()) << rungs;
  }
}

// On a driver that cuts loops short (TargetCaps::loop_iteration_limit) the entry point ends
// with one loop and an atomic that sets the status word, whose address follows the
// arguments; the arguments keep their places. Elsewhere neither is there.
TEST(LoopLimitProbe, OnlyWhereTheDriverLimitsLoops) {
  compiler::DeviceFeatures features = kernel_features();
  auto compiled = compiler::compile(R"(__kernel void k(__global int* o, int n, char c) {
       o[get_global_id(0)] = n + c; })", "-cl-std=CL3.0", features);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  k2s::TargetCaps plain;
  k2s::TranslateResult without = k2s::translate(compiled.spirv, plain);
  ASSERT_TRUE(without.ok) << without.log;
  k2s::TargetCaps limited;
  limited.loop_iteration_limit = true;
  k2s::TranslateResult with = k2s::translate(compiled.spirv, limited);
  ASSERT_TRUE(with.ok) << with.log;
  ASSERT_EQ(without.kernels.size(), 1u);
  ASSERT_EQ(with.kernels.size(), 1u);
  const std::vector<uint32_t>& a = without.kernels[0].shader;
  const std::vector<uint32_t>& b = with.kernels[0].shader;
  EXPECT_EQ(count_instructions(a, spv::Op::OpLoopMerge), 0u);
  EXPECT_EQ(count_instructions(a, spv::Op::OpAtomicOr), 0u);
  EXPECT_EQ(count_instructions(b, spv::Op::OpLoopMerge), 1u);
  EXPECT_EQ(count_instructions(b, spv::Op::OpAtomicOr), 1u);

  const k2s::KernelInterface& ka = without.kernels[0].interface;
  const k2s::KernelInterface& kb = with.kernels[0].interface;
  EXPECT_EQ(ka.loop_limit_status_offset, UINT32_MAX);
  ASSERT_EQ(ka.args.size(), kb.args.size());
  uint32_t end = 0;
  for (size_t i = 0; i < ka.args.size(); ++i) {
    EXPECT_EQ(ka.args[i].offset, kb.args[i].offset);
    end = std::max(end, kb.args[i].offset + kb.args[i].size);
  }
  EXPECT_EQ(ka.pushed_arguments_size, kb.pushed_arguments_size);
  EXPECT_GE(kb.loop_limit_status_offset, end);
  EXPECT_EQ(kb.loop_limit_status_offset % 8, 0u);
  EXPECT_LE(kb.loop_limit_status_offset + 8, kb.argument_block_size);
}

// A device that cuts loops short and has every small type (nothing widened adds loops later).
k2s::TargetCaps loop_limited_caps(bool resumable) {
  k2s::TargetCaps limited;
  limited.loop_iteration_limit = true;
  limited.resumable_loops = limited.resumable_barrier_loops = resumable;
  limited.int8 = limited.int16 = limited.storage8 = limited.storage16 = limited.float16 = true;
  return limited;
}

// A kernel without loops, on a device with every small type (nothing widened adds loops
// later), carries neither probe nor status word; one with a loop does.
TEST(LoopLimitProbe, OnlyInKernelsWithLoops) {
  compiler::DeviceFeatures features = kernel_features();
  const k2s::TargetCaps limited = loop_limited_caps(false);
  struct Case {
    const char* source;
    uint32_t loops;  // in the shader, the probe's included
    bool status;
  };
  const Case cases[] = {
      {"__kernel void k(__global char* o, int n) { o[get_global_id(0)] = (char)n; }", 0, false},
      {"__kernel void k(__global char* o, int n) { for (int i = 0; i < n; ++i) o[i] = (char)i; }", 2, true},
      // A loop in a function the kernel calls (not inlined at -cl-opt-disable).
      {"void f(__global char* o, int n) { for (int i = 0; i < n; ++i) o[i] = (char)i; }\n"
       "__kernel void k(__global char* o, int n) { f(o, n); }", 2, true},
  };
  for (const Case& c : cases) {
    auto compiled = compiler::compile(c.source, "-cl-opt-disable", features);
    ASSERT_TRUE(compiled.ok) << compiled.log;
    k2s::TranslateResult r = k2s::translate(compiled.spirv, limited);
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_EQ(c.loops, count_instructions(r.kernels[0].shader, spv::Op::OpLoopMerge)) << c.source;
    EXPECT_EQ(c.status, r.kernels[0].interface.loop_limit_status_offset != UINT32_MAX) << c.source;
  }
}

// Loops that count an induction variable between constants, few enough passes in all that
// the driver's limit can never be reached, need neither resuming nor the probe; a constant
// bound past the limit, a bound from an argument, or a count that wraps around do.
TEST(LoopLimitProbe, NotWhereConstantBoundsKeepLoopsShort) {
  compiler::DeviceFeatures features = kernel_features();
  features.features.push_back("__opencl_c_work_group_collective_functions");
  features.extensions.push_back("cl_khr_int64_base_atomics");
  k2s::TargetCaps limited = loop_limited_caps(true);
  limited.int64_atomics = true;
  struct Case {
    const char* body;
    bool bounded;
  };
  const Case cases[] = {
      {"float s = 0.0f, w = 0.0f;\n"
       "for (int k = -4; k <= 4; ++k) { float e = exp(-0.5f * k * k / (x * x)); s += e * o[clamp(i + k, 0, 99)]; w += e; }\n"
       "o[i] = s / w;", true},
      {"float s = 0.0f; for (int a = 0; a < 100; ++a) for (int b = 0; b < 100; ++b) s += o[(a * b + i) & 63] * x;\n"
       "o[i] = s;", true},
      {"float s = 0.0f; for (uint a = 4000; a > 7; a -= 3) { s = s * x + o[a & 63]; if (s > 1e6f) break; } o[i] = s;", true},
      {"float s = 0.0f; for (int a = 0; a != 6000; a += 2) s = s * x + o[a & 63]; o[i] = s;", true},
      {"float s = 0.0f; for (uint a = 1u << 30; a > 0; a >>= 1) { s = s * x + o[a & 63]; if (s > 1e6f) break; } o[i] = s;", true},
      {"float s = 0.0f; for (uint a = 1; a < 100000000u; a *= 3) { s = s * x + o[a & 63]; if (s > 1e6f) break; } o[i] = s;", true},
      {"float s = 0.0f; for (uint a = 0; a < 100; a *= 2) { s = s * x + o[a & 63]; if (s > 1e6f) break; } o[i] = s;", false},
      // A bound that is one of a few constants (x264's `for (i = 0; i < i_mvc; i++)`, i_mvc
      // counted up by ifs), or not (a loaded bound, one counted in a loop).
      {"int c = 0; if (x > 1.0f) c++; if (o[1] > 2.0f) c += 2; if (o[2] > 3.0f) c |= 4;\n"
       "float s = 0.0f; for (int a = 0; a < c; ++a) s = s * x + o[a + 3]; o[i] = s;", true},
      {"int c = (int)o[1]; float s = 0.0f; for (int a = 0; a < c; ++a) s = s * x + o[(a + 3) & 63]; o[i] = s;", false},
      // Integer atomics are one device instruction each, on local memory too unless the
      // module has a 64-bit local atomic (local memory is then 64-bit words, where 32-bit
      // atomics retry in loops of the lowering's); float atomics on local memory and group
      // operations are loops of the lowering's too, which are not counted.
      {"for (int a = 0; a < 100; ++a) if (o[a] > x) atomic_inc((volatile __global int*)o + 64);", true},
      {"__local int l[1]; for (int a = 0; a < 100; ++a) if (o[a] > x) atomic_inc(l); o[i] = l[0];", true},
      {"__local long w[1]; __local int l[1]; for (int a = 0; a < 100; ++a) if (o[a] > x) atomic_inc(l);\n"
       "atom_add(w, 1L); o[i] = l[0] + w[0];", false},
      {"__local float l[1]; for (int a = 0; a < 100; ++a) if (o[a] > x)\n"
       "atomic_fetch_add_explicit((volatile __local atomic_float*)l, 1.0f, memory_order_relaxed); o[i] = l[0];", false},
      {"float s = 0.0f; for (int a = 0; a < 100; ++a) s = s * x + o[a]; o[i] = work_group_reduce_add(s);", false},
      {"float s = 0.0f; for (int a = 0; a < 70000; ++a) s += o[(a + i) & 63] * x; o[i] = s;", false},
      {"float s = 0.0f; for (int a = 0; a < 300; ++a) for (int b = 0; b < 300; ++b) s += o[(a * b + i) & 63] * x;\n"
       "o[i] = s;", false},
      {"float s = 0.0f; for (int a = 0; a < n; ++a) s += o[(a + i) & 63] * x; o[i] = s;", false},
      {"float s = 0.0f; for (uint a = 10; a != 0; a -= 3) s += o[a & 63] * x; o[i] = s;", false},
  };
  for (const Case& c : cases) {
    const std::string source = std::string("__kernel void k(__global float* o, float x, int n) {\n"
                                           "int i = get_global_id(0);\n") + c.body + "}";
    auto compiled = compiler::compile(source, "-cl-std=CL3.0", features);
    ASSERT_TRUE(compiled.ok) << compiled.log;
    k2s::TranslateResult r = k2s::translate(compiled.spirv, limited);
    ASSERT_TRUE(r.ok) << r.log;
    const k2s::KernelInterface& ki = r.kernels[0].interface;
    EXPECT_EQ(c.bounded, ki.loop_limit_status_offset == UINT32_MAX) << c.body;
    // (Not every unbounded kernel resumes: those with group operations and no barrier in a
    // loop only probe.)
    if (c.bounded) {
      EXPECT_EQ(ki.resume_area_offset, UINT32_MAX) << c.body;
    }
    EXPECT_GT(count_instructions(r.kernels[0].shader, spv::Op::OpLoopMerge), 0u) << "unrolled: " << c.body;
  }
}

// The interface of |source|'s only kernel, translated for a device that cuts loops short.
k2s::KernelInterface loop_limited_interface(const std::string& source) {
  auto compiled = compiler::compile(source, "-cl-std=CL3.0", kernel_features());
  EXPECT_TRUE(compiled.ok) << compiled.log;
  k2s::TranslateResult r = k2s::translate(compiled.spirv, loop_limited_caps(true));
  EXPECT_TRUE(r.ok) << r.log;
  return r.ok && !r.kernels.empty() ? r.kernels[0].interface : k2s::KernelInterface{};
}

// Loops bounded by the kernel's own scalar arguments are counted at launch: the interface
// says how (KernelInterface::counted_loops), and count_loop_passes gives the header passes a
// work-item makes with given argument values (as the loops run them on the CPU), or nothing
// past kSafeLoopPasses, or for kernels whose loops no argument bounds.
TEST(LoopLimitProbe, ArgumentBoundsAreCountedAtLaunch) {
  struct Case {
    const char* body;
    // Header passes per work-item for arguments n and m (as the loops take them), or -1
    // where the launch cannot count them.
    std::function<int64_t(int32_t n, uint32_t m)> passes;
  };
  // A loop tested at the top passes its header once more than it runs its body; a loop
  // inside another is counted once per pass of the outer loop's header (an upper bound).
  auto top = [](int64_t runs) { return std::max<int64_t>(runs, 0) + 1; };
  const Case cases[] = {
      {"for (int a = 0; a < n; ++a) s += o[(a + i) & 63] * x;", [&](int32_t n, uint32_t) { return top(n); }},
      {"for (uint a = 0; a < m; a += 3) s += o[(a + i) & 63] * x;",
       [&](int32_t, uint32_t m) { return top((int64_t(m) + 2) / 3); }},
      {"for (size_t a = 0; a < m; ++a) s += o[(a + i) & 63] * x;", [&](int32_t, uint32_t m) { return top(m); }},
      // Nested: the inner loop once per pass of the outer; two loops one after the other.
      {"for (int a = 0; a < n; ++a) for (int b = 0; b < 100; ++b) s += o[(a * b + i) & 63] * x;",
       [&](int32_t n, uint32_t) { return top(n) + top(n) * top(100); }},
      {"for (int a = 0; a < n; ++a) s += o[(a + i) & 63] * x; for (uint b = 0; b < m; ++b) s -= o[b & 63];",
       [&](int32_t n, uint32_t m) { return top(n) + top(m); }},
      // In a helper the kernel passes its argument to.
      {"s = helper(o, n, x);", [&](int32_t n, uint32_t) { return top(n); }},
      // A break that clang folds into the loop's own test (`stay = !broke && --r > 0`, x264's
      // motion search): the count of the test alone bounds it.
      {"int r = n; do { s += o[(r + i) & 63] * x; if (s > 1e6f) break; } while (--r > 0);",
       [&](int32_t n, uint32_t) { return int64_t(std::max(n, 1)); }},
      // An integer atomic is one instruction of the device (x264's sum_intra_cost adds its
      // totals so), on local memory too where the module has no 64-bit local atomic.
      {"for (int a = 0; a < n; ++a) s += o[(a + i) & 63] * x; atomic_add((__global int*)o + 64, 1);",
       [&](int32_t n, uint32_t) { return top(n); }},
      {"__local int l[1]; for (int a = 0; a < n; ++a) s += o[(a + i) & 63] * x; atomic_add(l, 1);",
       [&](int32_t n, uint32_t) { return top(n); }},
      // Not bounded by an argument: a loaded bound, or a start that is not a constant.
      {"for (int a = 0; a < (int)o[70]; ++a) s += o[(a + i) & 63] * x;", [](int32_t, uint32_t) { return int64_t(-1); }},
      {"for (int a = i; a < n; ++a) s += o[a & 63] * x;", [](int32_t, uint32_t) { return int64_t(-1); }},
  };

  for (const Case& c : cases) {
    const std::string source = std::string(
        "__attribute__((noinline)) float helper(__global float* o, int n, float x) {\n"
        "  float s = 0.0f; for (int a = 0; a < n; ++a) s += o[a & 63] * x; return s;\n"
        "}\n"
        "__kernel void k(__global float* o, float x, int n, uint m) {\n"
        "int i = get_global_id(0); float s = 0.0f;\n") + c.body + " o[i] = s; }";
    const k2s::KernelInterface ki = loop_limited_interface(source);
    for (auto [n, m] : {std::pair<int32_t, uint32_t>{0, 0}, {1, 2}, {100, 1000}, {-5, 7}, {1500, 16000},
                       {16384, 3}, {20000, 20000}, {3, 0xffffffffu}}) {
      auto value = [&, n = n, m = m](uint32_t a) -> std::optional<uint64_t> {
        if (a == 2) return uint64_t(uint32_t(n));
        if (a == 3) return uint64_t(m);
        return std::nullopt;
      };
      const int64_t want = c.passes(n, m);
      std::optional<uint64_t> got;
      if (!ki.counted_loops.empty()) got = k2s::count_loop_passes(ki.counted_loops, value);
      if (want < 0 || uint64_t(want) > k2s::kSafeLoopPasses) {
        EXPECT_FALSE(got) << c.body << " n " << n << " m " << m;
      } else {
        EXPECT_EQ(got, std::optional<uint64_t>(uint64_t(want))) << c.body << " n " << n << " m " << m;
      }
    }
    if (c.passes(100, 100) >= 0) {
      EXPECT_FALSE(ki.counted_loops.empty()) << c.body;
    }
  }
}

// Grid-stride and group-stride loops (start and step from the launch's built-in ids and
// sizes, as PyOpenCL's elementwise kernels loop) are counted at launch too, for the work-item
// that runs longest: count_loop_passes with the launch's geometry gives at least the body
// runs of every work-item of it (as the loop runs on the CPU) and at most one more, or nothing
// where that is past kSafeLoopPasses, where a start can be negative, or where the test or step
// cannot be bounded that way.
TEST(LoopLimitProbe, StridedLoopsAreCountedForTheLaunch) {
  // What a work-item sees of the launch.
  struct Item {
    uint64_t gid0, gid1, lid0, group0, lsize0, gsize0, gsize1;
  };
  constexpr int64_t kEndless = INT64_MAX;
  struct Case {
    const char* body;
    // Body runs of one work-item for arguments n, m, ln (kEndless: not a count at all).
    std::function<int64_t(const Item&, int32_t n, uint32_t m, int64_t ln)> runs;
  };
  auto count = [](auto start, auto bound, auto step) {
    int64_t r = 0;
    for (auto i = start; i < bound; i += step)
      if (++r > int64_t(k2s::kSafeLoopPasses)) return kEndless;  // as far as the count goes
    return r;
  };
  const Case cases[] = {
      // PyOpenCL's elementwise loop.
      {"int lid = get_local_id(0); int gsize = get_global_size(0);\n"
       "int work_group_start = get_local_size(0) * get_group_id(0);\n"
       "for (long a = work_group_start + lid; a < ln; a += gsize) s += o[a & 63] * x;",
       [&](const Item& w, int32_t, uint32_t, int64_t ln) {
         return count(int64_t(int32_t(uint32_t(w.lsize0 * w.group0) + uint32_t(w.lid0))), ln,
                      int64_t(int32_t(w.gsize0)));
       }},
      {"for (uint a = get_global_id(0); a < m; a += get_global_size(0)) s += o[a & 63] * x;",
       [&](const Item& w, int32_t, uint32_t m, int64_t) { return count(uint32_t(w.gid0), m, uint32_t(w.gsize0)); }},
      {"for (int a = get_local_id(0); a < n; a += get_local_size(0)) s += o[a & 63] * x;",
       [&](const Item& w, int32_t n, uint32_t, int64_t) { return count(int32_t(w.lid0), n, int32_t(w.lsize0)); }},
      {"for (size_t a = get_global_id(0); a < m; a += 64) s += o[a & 63] * x;",
       [&](const Item& w, int32_t, uint32_t m, int64_t) { return count(uint64_t(w.gid0), uint64_t(m), uint64_t(64)); }},
      {"for (int a = get_global_id(1) * get_global_size(0) + get_global_id(0); a < n;\n"
       "     a += get_global_size(0) * get_global_size(1)) s += o[a & 63] * x;",
       [&](const Item& w, int32_t n, uint32_t, int64_t) {
         return count(int32_t(uint32_t(w.gid1 * w.gsize0 + w.gid0)), n, int32_t(uint32_t(w.gsize0 * w.gsize1)));
       }},
      // PyOpenCL's random number generators: the test reads the variable plus a constant.
      {"ulong idx = get_global_id(0) * 4;\n"
       "while (idx + 4 < (ulong)ln) { s += o[idx & 63] * x; idx += 4 * get_global_size(0); }",
       [&](const Item& w, int32_t, uint32_t, int64_t ln) {
         int64_t r = 0;
         for (uint64_t idx = w.gid0 * 4; idx + 4 < uint64_t(ln); idx += 4 * w.gsize0)
           if (++r > int64_t(k2s::kSafeLoopPasses)) return kEndless;
         return r;
       }},
      // PyOpenCL's scan: each work-group its slice of the n elements, the last one shorter
      // (start and bound both follow the group: counted group by group).
      {"uint slice = (uint)n / 4 + 1; uint begin = get_group_id(0) * slice;\n"
       "uint end = min(begin + slice, (uint)n);\n"
       "for (uint a = begin; a + 64 <= end; a += 64) s += o[a % 61] * x;",
       [&](const Item& w, int32_t n, uint32_t, int64_t) {
         const uint32_t slice = uint32_t(n) / 4 + 1, begin = uint32_t(w.group0) * slice;
         const uint32_t end = std::min(begin + slice, uint32_t(n));
         int64_t r = 0;
         for (uint32_t a = begin; a + 64 <= end; a += 64)
           if (++r > int64_t(k2s::kSafeLoopPasses)) return kEndless;
         return r;
       }},
      // Not bounded this way: a test for inequality, a step from memory.
      {"for (int a = get_global_id(0); a != n; a += get_global_size(0)) s += o[a & 63] * x;",
       [](const Item&, int32_t, uint32_t, int64_t) { return kEndless; }},
      {"for (int a = get_global_id(0); a < n; a += (int)o[70]) s += o[a & 63] * x;",
       [](const Item&, int32_t, uint32_t, int64_t) { return kEndless; }},
  };
  struct Launch {
    uint32_t work_dim;
    std::array<uint64_t, 3> offset, global, local;
  };
  const Launch launches[] = {
      {1, {0, 0, 0}, {256, 1, 1}, {64, 1, 1}},
      {1, {0, 0, 0}, {1000, 1, 1}, {64, 1, 1}},  // non-uniform: the last group is smaller
      {2, {3, 0, 0}, {16, 8, 1}, {4, 2, 1}},
      {1, {0, 0, 0}, {8, 1, 1}, {8, 1, 1}},
      // Ids past INT_MAX: as int they are negative, and the loops never end.
      {1, {0x7fffffe0u, 0, 0}, {64, 1, 1}, {64, 1, 1}},
  };
  for (const Case& c : cases) {
    const std::string source = std::string(
        "__kernel void k(__global float* o, float x, int n, uint m, long ln) {\n"
        "int i = get_global_id(0); float s = 0.0f;\n") + c.body + " o[i] = s; }";
    const k2s::KernelInterface ki = loop_limited_interface(source);
    for (const Launch& l : launches) {
      k2s::LaunchGeometry g;
      g.work_dim = l.work_dim;
      for (int d = 0; d < 3; ++d) {
        g.offset[d] = l.offset[d];
        g.global[d] = l.global[d];
        g.local[d] = l.local[d];
      }
      for (int64_t v : {int64_t(0), int64_t(1), int64_t(100), int64_t(5000), int64_t(100000), int64_t(-5),
                        int64_t(30000000)}) {
        const int32_t n = int32_t(v);
        const uint32_t m = uint32_t(v);
        auto value = [&](uint32_t a) -> std::optional<uint64_t> {
          if (a == 2) return uint64_t(uint32_t(n));
          if (a == 3) return uint64_t(m);
          if (a == 4) return uint64_t(v);
          return std::nullopt;
        };
        int64_t most = 0;
        for (uint64_t y = 0; y < l.global[1] && most < kEndless; ++y)
          for (uint64_t x = 0; x < l.global[0] && most < kEndless; ++x) {
            const uint64_t group = x / l.local[0];
            const uint64_t lsize = std::min(l.local[0], l.global[0] - group * l.local[0]);
            const Item w{l.offset[0] + x, l.offset[1] + y, x % l.local[0], group, lsize, l.global[0], l.global[1]};
            most = std::max(most, c.runs(w, n, m, v));
          }
        std::optional<uint64_t> got;
        if (!ki.counted_loops.empty()) got = k2s::count_loop_passes(ki.counted_loops, value, &g);
        const std::string where = std::string(c.body) + " global " + std::to_string(l.global[0]) + " offset " +
                                  std::to_string(l.offset[0]) + " value " + std::to_string(v);
        if (most == kEndless || most >= int64_t(k2s::kSafeLoopPasses)) {
          EXPECT_FALSE(got) << where;
        } else if (got) {
          EXPECT_GE(*got, uint64_t(most)) << where;
          EXPECT_LE(*got, uint64_t(most) + 1) << where;
        } else {
          ADD_FAILURE() << "not counted: " << where << " (most " << most << ")";
        }
      }
    }
    // Without the launch's geometry the built-ins are not known: nothing is counted.
    auto none = [](uint32_t) -> std::optional<uint64_t> { return 1; };
    if (!ki.counted_loops.empty()) {
      EXPECT_FALSE(k2s::count_loop_passes(ki.counted_loops, none)) << c.body;
    }
  }
}

// A launch counts a loop with constant start, step and bound as the loop runs, step by step
// with wrap-around (the long ones without running every step): random loops of every width,
// test and form against that count done here.
TEST(LoopLimitProbe, CountsMatchTheLoopsStepByStep) {
  std::mt19937_64 rng(11);
  const spv::Op tests[] = {spv::Op::OpSLessThan, spv::Op::OpSLessThanEqual, spv::Op::OpSGreaterThan,
                           spv::Op::OpSGreaterThanEqual, spv::Op::OpULessThan, spv::Op::OpULessThanEqual,
                           spv::Op::OpUGreaterThan, spv::Op::OpUGreaterThanEqual, spv::Op::OpIEqual,
                           spv::Op::OpINotEqual};
  const spv::Op steps[] = {spv::Op::OpIAdd, spv::Op::OpIAdd, spv::Op::OpIAdd, spv::Op::OpISub, spv::Op::OpIMul};
  int counted = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const uint32_t width = 8u << (rng() % 4);
    const uint64_t mask = width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
    k2s::CountedLoop c;
    c.width = width;
    c.compare_op = uint32_t(tests[rng() % 10]);
    c.step_op = uint32_t(steps[rng() % 5]);
    c.tests_next = rng() % 2;
    c.bound_first = rng() % 2;
    c.leaves_on = rng() % 2;
    // Steps small or anything; starts anywhere or just below where the type wraps around
    // (unsigned or signed), bounds anywhere or near the start.
    const uint64_t step = (rng() % 3 ? rng() % 1000 : rng()) & mask;
    const uint64_t below_top = rng() % 3000;
    const uint64_t start = (rng() % 4 ? rng() : rng() % 2 ? mask - below_top : (mask >> 1) - below_top) & mask;
    const uint64_t bound = (rng() % 2 ? start + rng() % 40000 : rng()) & mask;
    c.start = {{k2s::LaunchTerm::kConstant, width, start}};
    c.step = {{k2s::LaunchTerm::kConstant, width, step}};
    c.bound = {{k2s::LaunchTerm::kConstant, width, bound}};
    auto sext = [&](uint64_t v) { return width == 64 ? int64_t(v) : int64_t(v << (64 - width)) >> (64 - width); };
    auto holds = [&](uint64_t a, uint64_t b) {
      switch (spv::Op(c.compare_op)) {
        case spv::Op::OpSLessThan: return sext(a) < sext(b);
        case spv::Op::OpSLessThanEqual: return sext(a) <= sext(b);
        case spv::Op::OpSGreaterThan: return sext(a) > sext(b);
        case spv::Op::OpSGreaterThanEqual: return sext(a) >= sext(b);
        case spv::Op::OpULessThan: return a < b;
        case spv::Op::OpULessThanEqual: return a <= b;
        case spv::Op::OpUGreaterThan: return a > b;
        case spv::Op::OpUGreaterThanEqual: return a >= b;
        case spv::Op::OpIEqual: return a == b;
        default: return a != b;
      }
    };
    auto next = [&](uint64_t v) {
      switch (spv::Op(c.step_op)) {
        case spv::Op::OpIAdd: return (v + step) & mask;
        case spv::Op::OpISub: return (v - step) & mask;
        default: return (v * step) & mask;
      }
    };
    std::optional<uint64_t> want;
    uint64_t v = start;
    for (uint64_t pass = 1; pass <= k2s::kSafeLoopPasses; ++pass) {
      const uint64_t x = c.tests_next ? next(v) : v;
      if ((c.bound_first ? holds(bound, x) : holds(x, bound)) == c.leaves_on) {
        want = pass;
        break;
      }
      v = next(v);
    }
    auto none = [](uint32_t) -> std::optional<uint64_t> { return std::nullopt; };
    EXPECT_EQ(k2s::count_loop_passes({c}, none), want)
        << "width " << width << " test " << c.compare_op << " step op " << c.step_op << " start " << start
        << " step " << step << " bound " << bound << " next " << c.tests_next << " bound first " << c.bound_first
        << " leaves on " << c.leaves_on;
    counted += want && *want > 100;
  }
  EXPECT_GT(counted, 50);  // long loops, not only ones that leave at once
}

// |kernel| after a recursive fib, compiled unoptimised (so fib stays) and translated.
k2s::TranslateResult translate_beside_fib(const std::string& kernel) {
  auto compiled = compiler::compile("int fib(int n) { return n <= 1 ? 1 : fib(n - 1) + fib(n - 2); }\n" + kernel,
                                    "-cl-opt-disable", kernel_features());
  EXPECT_TRUE(compiled.ok) << compiled.log;
  return k2s::translate(compiled.spirv, {});
}

// OpenCL C forbids recursion and Vulkan has none: a build error that names the function.
TEST(TranslateErrors, RecursionIsABuildErrorNamingTheFunction) {
  k2s::TranslateResult r = translate_beside_fib("__kernel void k(__global int* o) { o[0] = fib(o[1]); }");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("function fib calls itself"), std::string::npos) << r.log;
}

// Functions no kernel calls are no part of any entry point (SPIR-V forbids recursion only
// in an entry point's call graph): the translator drops them before its passes, so one that
// calls itself does not fail the build, and a large program's unused helpers cost nothing.
TEST(TranslateErrors, FunctionsNoKernelCallsAreDropped) {
  k2s::TranslateResult r = translate_beside_fib("__kernel void k(__global int* o) { o[0] = o[1] * 2; }");
  ASSERT_TRUE(r.ok) << r.log;
  ASSERT_EQ(r.kernels.size(), 1u);
}

TEST(TranslateErrors, GarbageIsABuildErrorNotACrash) {
  std::vector<uint32_t> words = {0x07230203, 0x00010000, 0, 100, 0, 0xdeadbeef, 1, 2, 3};
  k2s::TranslateResult r = k2s::translate(words, {});
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.log.empty());
  EXPECT_FALSE(k2s::translate({}, {}).ok);
  EXPECT_FALSE(k2s::translate({1, 2, 3, 4, 5, 6}, {}).ok);
}

}  // namespace
}  // namespace vkcl::test

#include "ir/module.h"
#include "passes/pass.h"
#include "passes/resumable_loops.h"

namespace vkcl::test {
namespace {

// Running the structurizer on its own output reports no change, and leaves every
// conditional branch behind a merge instruction.
TEST_P(TranslateKernels, StructurizeIsIdempotent) {
  const Case& c = std::get<0>(GetParam());
  compiler::DeviceFeatures features = kernel_features();
  auto compiled = compiler::compile(c.source, std::string(std::get<1>(GetParam())) + " -cl-std=CL3.0", features);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  ir::Module m;
  std::string error;
  ASSERT_TRUE(ir::parse(compiled.spirv.data(), compiled.spirv.size(), &m, &error)) << error;
  auto pass = k2s::create_pass("structurize");
  ASSERT_NE(pass, nullptr);
  k2s::PassContext context;
  ASSERT_NE(k2s::create_pass("reducible")->Process(m, context), k2s::PassStatus::Failure);
  ASSERT_NE(pass->Process(m, context), k2s::PassStatus::Failure) << context.log;
  for (const auto& f : m.functions) {
    for (const auto& b : f.blocks) {
      spv::Op op = b.terminator().opcode;
      if (op == spv::Op::OpBranchConditional || op == spv::Op::OpSwitch) {
        EXPECT_NE(b.merge(), nullptr) << "block %" << b.label << " of " << c.name;
      }
    }
  }
  EXPECT_EQ(pass->Process(m, context), k2s::PassStatus::SuccessWithoutChange);
}

// clang emits the "irreducible" cases as irreducible graphs (so the runtime tests of the same
// kernels exercise the reducible pass), and no other case is one.
TEST_P(TranslateKernels, ReducibleChangesOnlyIrreducibleGraphs) {
  const Case& c = std::get<0>(GetParam());
  compiler::DeviceFeatures features = kernel_features();
  auto compiled = compiler::compile(c.source, std::string(std::get<1>(GetParam())) + " -cl-std=CL3.0", features);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  ir::Module m;
  std::string error;
  ASSERT_TRUE(ir::parse(compiled.spirv.data(), compiled.spirv.size(), &m, &error)) << error;
  k2s::PassContext context;
  k2s::PassStatus status = k2s::create_pass("reducible")->Process(m, context);
  bool irreducible = std::string(c.name).rfind("irreducible", 0) == 0;
  EXPECT_EQ(status, irreducible ? k2s::PassStatus::SuccessWithChange
                                : k2s::PassStatus::SuccessWithoutChange) << context.log;
}

}  // namespace
}  // namespace vkcl::test

namespace vkcl::test {
namespace {

// copy-byval-arguments on clang's -O2 output: twice() passes its own by-value parameter on
// (its only use: no copy) and the struct it returns (a copy), the kernel its variable (a
// copy), the kernel's entry wrapper its argument (no copy); a second run changes nothing.
TEST(CopyByValArguments, CopiesWhatTheCallerStillSees) {
  compiler::DeviceFeatures features = kernel_features();
  auto compiled = compiler::compile(R"(
    typedef struct { int a; float b; long c; } S;
    __attribute__((noinline)) S bump(S s, int k) { s.a += k; s.c -= k; return s; }
    __attribute__((noinline)) S twice(S s, int k) { S t = bump(s, k); return bump(t, k); }
    __kernel void run(__global S* io, S arg) {
      size_t i = get_global_id(0);
      S s = io[i];
      io[i + 1] = twice(s, (int)i);
      io[i + 2] = s;
      io[i + 3] = bump(arg, 1);
    })", "-cl-std=CL3.0", features);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  ir::Module m;
  std::string error;
  ASSERT_TRUE(ir::parse(compiled.spirv.data(), compiled.spirv.size(), &m, &error)) << error;
  auto pass = k2s::create_pass("copy-byval-arguments");
  ASSERT_NE(pass, nullptr);
  k2s::PassContext context;
  auto copies = [&] {
    size_t n = 0;
    for (const auto& f : m.functions)
      for (const auto& b : f.blocks)
        for (const auto& i : b.instructions) n += i.opcode == spv::Op::OpCopyMemory;
    return n;
  };
  size_t before = copies();
  EXPECT_EQ(pass->Process(m, context), k2s::PassStatus::SuccessWithChange);
  // twice's second call (bump of its result t) and run's call of twice; at -O2 run passes
  // its argument to bump as its only use, and twice its parameter.
  EXPECT_EQ(copies(), before + 2);
  EXPECT_EQ(pass->Process(m, context), k2s::PassStatus::SuccessWithoutChange);
}

// On a driver that cuts loops short, kernels with loops resume across dispatches: those
// without barriers, and those whose loop holds a barrier; a kernel whose loop cannot reach
// a barrier it must stop at (barriers only outside its loop) does not, nor does one without
// loops. Resuming kernels take 32 more bytes of argument block, after the arguments' own.
// A loop that keeps 360 values, each with a branch of its own.
std::string large_kernel() {
  const int n = 360;
  std::string s = "\n__kernel void large(__global float* o, int n) {\n";
  for (int k = 0; k < n; ++k) s += "  float a" + std::to_string(k) + " = o[" + std::to_string(k) + "];\n";
  s += "  for (int i = 0; i < n; i++) {\n";
  for (int k = 0; k < n; ++k) {
    std::string a = "a" + std::to_string(k);
    s += "    " + a + " = " + a + " * 0.5f + i;\n    if (" + a + " > 100.0f) o[" + std::to_string(k) + "] = " + a + ";\n";
  }
  s += "  }\n";
  for (int k = 0; k < n; ++k) s += "  o[" + std::to_string(n + k) + "] = a" + std::to_string(k) + ";\n";
  return s + "}\n";
}

TEST(ResumableLoops, WhichKernelsResume) {
  compiler::DeviceFeatures features = kernel_features();
  auto compiled = compiler::compile(R"(
      __kernel void plain(__global int* o, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) s += i;
        o[get_global_id(0)] = s; }
      __kernel void barrier_in_loop(__global int* o, __local int* t, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
          t[get_local_id(0)] = i;
          barrier(CLK_LOCAL_MEM_FENCE);
          s += t[0];
          barrier(CLK_LOCAL_MEM_FENCE);
        }
        o[get_global_id(0)] = s; }
      __kernel void barrier_outside(__global int* o, __local int* t, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) s += i;
        t[get_local_id(0)] = s;
        barrier(CLK_LOCAL_MEM_FENCE);
        o[get_global_id(0)] = t[0]; }
      __kernel void no_loop(__global int* o) { o[get_global_id(0)] = 1; })" + large_kernel(),
      "-cl-std=CL3.0", features);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  k2s::TargetCaps caps;
  caps.loop_iteration_limit = true;
  caps.resumable_barrier_loops = true;
  caps.subgroup_size = 8;
  k2s::TranslateResult r = k2s::translate(compiled.spirv, caps);
  ASSERT_TRUE(r.ok) << r.log;
  std::map<std::string, const k2s::KernelInterface*> by_name;
  for (const auto& k : r.kernels) by_name[k.interface.name] = &k.interface;
  ASSERT_EQ(by_name.size(), 5u);
  EXPECT_NE(by_name["plain"]->resume_area_offset, UINT32_MAX);
  EXPECT_FALSE(by_name["plain"]->resume_group_records);
  EXPECT_NE(by_name["barrier_in_loop"]->resume_area_offset, UINT32_MAX);
  EXPECT_TRUE(by_name["barrier_in_loop"]->resume_group_records);
  // Its loop has no barrier in it: the work-group stops at the barrier after it.
  EXPECT_NE(by_name["barrier_outside"]->resume_area_offset, UINT32_MAX);
  EXPECT_TRUE(by_name["barrier_outside"]->resume_group_records);
  EXPECT_EQ(by_name["no_loop"]->resume_area_offset, UINT32_MAX);
  // Too large to resume: lavapipe would take many seconds more to build it.
  EXPECT_EQ(by_name["large"]->resume_area_offset, UINT32_MAX);
  for (const auto& [name, ki] : by_name) {
    uint32_t end = 0;
    for (const auto& a : ki->args) end = std::max(end, a.offset + a.size);
    if (ki->resume_area_offset != UINT32_MAX) {
      EXPECT_GT(ki->resume_record_size, 8u) << name;
      for (const auto& a : ki->args) EXPECT_GE(a.offset, ki->resume_area_offset + 32) << name;
    }
    EXPECT_LE(end, ki->argument_block_size) << name;
  }
  // Without the limit nothing resumes.
  k2s::TranslateResult plain = k2s::translate(compiled.spirv, k2s::TargetCaps{});
  ASSERT_TRUE(plain.ok) << plain.log;
  for (const auto& k : plain.kernels) EXPECT_EQ(k.interface.resume_area_offset, UINT32_MAX);
}

// An address at a constant place in a private array, computed before a loop and used in it,
// is the same in every round: it is computed again on resuming, not saved in the record
// (kept in a variable, it reached the loop through a phi Mesa 22.3 leaves unfolded, and
// lavapipe then indexed the whole array dynamically: hashcat's MD5 kernel built for minutes).
TEST(ResumableLoops, FixedAddressesAreNotSaved) {
  compiler::DeviceFeatures features = kernel_features();
  auto compiled = compiler::compile(R"(
      __attribute__((noinline)) uint pick(const uint* p, int i) { return p[i & 7]; }
      __kernel void through_pointer(__global uint* o, int n) {
        uint w[16];
        for (int j = 0; j < 16; ++j) w[j] = o[j];
        uint s = 0;
        for (int i = 0; i < n; ++i) s += pick(w + 4, i);
        o[get_global_id(0)] = s; }
      __kernel void through_index(__global uint* o, int n) {
        uint w[16];
        for (int j = 0; j < 16; ++j) w[j] = o[j];
        uint s = 0;
        for (int i = 0; i < n; ++i) s += w[(i & 7) + 4];
        o[get_global_id(0)] = s; })", "-cl-std=CL3.0", features);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  k2s::TargetCaps caps;
  caps.loop_iteration_limit = true;
  k2s::TranslateResult r = k2s::translate(compiled.spirv, caps);
  ASSERT_TRUE(r.ok) << r.log;
  std::map<std::string, uint32_t> record;
  for (const auto& k : r.kernels) record[k.interface.name] = k.interface.resume_record_size;
  ASSERT_EQ(record.size(), 2u);
  // The header, w and the loop's s and i; an address into w would take 8 bytes more (and
  // the record is a multiple of 16).
  const uint32_t state = k2s::kResumeRecordHeader + 16 * 4 + 2 * 4;
  EXPECT_EQ(record["through_pointer"], state);
  EXPECT_EQ(record["through_index"], state);  // clang keeps &w[4] out of this loop too
}

}  // namespace
}  // namespace vkcl::test

namespace vkcl::test {
namespace {

// Private word arrays in |shader|: OpVariables in the Private storage class whose type
// points to an array.
int private_arrays(const std::vector<uint32_t>& shader) {
  std::set<uint32_t> arrays, pointers;
  int count = 0;
  for (size_t at = 5; at < shader.size() && (shader[at] >> 16);) {
    auto op = spv::Op(shader[at] & 0xffff);
    const uint32_t* w = &shader[at];
    if (op == spv::Op::OpTypeArray) arrays.insert(w[1]);
    if (op == spv::Op::OpTypePointer && spv::StorageClass(w[2]) == spv::StorageClass::Private &&
        arrays.count(w[3]))
      pointers.insert(w[1]);
    if (op == spv::Op::OpVariable && pointers.count(w[1])) ++count;
    at += shader[at] >> 16;
  }
  return count;
}

// Arrays whose pointers never meet get arrays of their own (a driver keeps those with
// constant indices in registers); arrays that meet in a parameter share one.
TEST(PrivateArenas, ArraysWhosePointersNeverMeetAreApart) {
  compiler::DeviceFeatures features = kernel_features();
  auto compiled = compiler::compile(R"(
    __attribute__((noinline)) void twist(uint* w, int n) { w[n & 3] ^= w[0] << 3; }
    __kernel void k(__global uint* o, int n) {
      uint a[4], b[4], c[4];
      for (int j = 0; j < 4; ++j) { a[j] = o[j]; b[j] = o[j + 4]; c[j] = o[j + 8]; }
      twist(a, n);
      twist(b, n);   // meets a
      uint* p = n ? c : c + 1;
      p[n & 1] = 9;  // c alone
      for (int j = 0; j < 4; ++j) o[j] = a[j] + b[j] + c[j];
    })", "", features);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  k2s::TranslateResult r = k2s::translate(compiled.spirv, narrow_caps());
  ASSERT_TRUE(r.ok) << r.log;
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(private_arrays(r.kernels[0].shader), 3);  // arena 0, {a, b}, {c}
}

}  // namespace
}  // namespace vkcl::test
