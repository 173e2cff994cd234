// caps.widen_half_from_bits: NVIDIA's driver (580) folds (float)(half)x into x, dropping the
// rounding to half, so on such a device no half reaches float through OpFConvert: every
// widening is done on the half's bits. (The driver bug cannot be shown on lavapipe; the
// runtime tests run the same path there with VKCL_ASSUME_DRIVER_BUGS=half_round_trip.)
#include <gtest/gtest.h>

#include <unordered_map>

#include "compiler/compiler.h"
#include "ir/module.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::test {
namespace {

const char* kSource = R"(
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void k(__global const float* in, __global float* out, __global half* h) {
  size_t i = get_global_id(0);
  half x = convert_half(in[i]), ip;
  half2 v = (half2)(x, x * 2);
  out[i] = convert_float(x) + fract(x, &ip) + convert_float(ip) + x / h[i];
  vstore2(convert_float2(v), i, out + 8);
  printf("%f\n", convert_float(x));
}
)";

// OpFConvert instructions of |words| from a 16-bit float (or vector of them).
int widenings_from_half(const std::vector<uint32_t>& words) {
  ir::Module m;
  std::string error;
  if (!ir::parse(words.data(), words.size(), &m, &error)) return -1;
  std::unordered_map<uint32_t, const ir::Instruction*> defs;
  for (const ir::Instruction& g : m.globals) defs[g.result_id] = &g;
  std::unordered_map<uint32_t, uint32_t> type_of;
  for (const ir::Function& f : m.functions) {
    for (const ir::Instruction& p : f.parameters) type_of[p.result_id] = p.type_id;
    for (const ir::Block& b : f.blocks)
      for (const ir::Instruction& i : b.instructions) type_of[i.result_id] = i.type_id;
  }
  auto is_half = [&](uint32_t type) {
    const ir::Instruction* t = defs.count(type) ? defs[type] : nullptr;
    if (t && t->opcode == spv::Op::OpTypeVector) t = defs.count(t->operands[0]) ? defs[t->operands[0]] : nullptr;
    return t && t->opcode == spv::Op::OpTypeFloat && t->operands[0] == 16;
  };
  int n = 0;
  for (const ir::Function& f : m.functions)
    for (const ir::Block& b : f.blocks)
      for (const ir::Instruction& i : b.instructions)
        if (i.opcode == spv::Op::OpFConvert && !is_half(i.type_id) && is_half(type_of[i.operands[0]])) ++n;
  return n;
}

TEST(TranslateHalf, WideningFromBitsLeavesNoHalfToFloatConvert) {
  compiler::DeviceFeatures features;
  features.features = {"__opencl_c_int64", "__opencl_c_generic_address_space"};
  features.fp16 = true;
  auto compiled = compiler::compile(kSource, "-cl-std=CL3.0", features);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  for (bool from_bits : {false, true}) {
    k2s::TargetCaps caps;
    caps.int8 = caps.int16 = caps.storage8 = caps.storage16 = caps.float16 = true;
    caps.widen_half_from_bits = from_bits;
    k2s::TranslateResult r = k2s::translate(compiled.spirv, caps);
    ASSERT_TRUE(r.ok) << r.log;
    ASSERT_EQ(1u, r.kernels.size());
    int n = widenings_from_half(r.kernels[0].shader);
    if (from_bits) EXPECT_EQ(0, n);
    else EXPECT_GT(n, 0);  // the test can tell: the plain path widens with OpFConvert
  }
}

}  // namespace
}  // namespace vkcl::test
