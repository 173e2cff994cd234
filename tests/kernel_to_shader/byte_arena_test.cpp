// The byte arena (wide_arena.cpp): a kernel that stores 8- or 16-bit values into local memory
// and uses no atomic there sees local memory as bytes, so such a store is one plain store
// instead of two atomics merging it into its word; a kernel with a local atomic keeps words.
// (What the kernels compute is checked on the device: LocalBytes.* in the runtime tests.)
#include <gtest/gtest.h>
#include <spirv/unified1/spirv.hpp11>

#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl {
namespace {

const char* kSource = R"(
uchar twice(__local uchar* t, uint i) { t[i] = t[i] * 2; return t[i]; }
__kernel void bytes(__global uchar* o, __global const uchar* in) {
  __local uchar t[64];
  uint i = get_local_id(0);
  t[i] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  o[get_global_id(0)] = twice(t, (i + 1) & 63);
}
__kernel void shorts_with_an_atomic(__global ushort* o, __global const ushort* in) {
  __local ushort t[64];
  __local uint n;
  uint i = get_local_id(0);
  if (i == 0) n = 0;
  t[i] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&n);
  o[get_global_id(0)] = t[(i + 1) & 63] + (ushort)twice((__local uchar*)t, i);
}
)";

// How many instructions of |shader| have opcode |op|.
int count(const std::vector<uint32_t>& shader, spv::Op op) {
  int n = 0;
  for (size_t at = 5; at < shader.size();) {
    const uint32_t words = shader[at] >> 16;
    if (words == 0) break;
    if (spv::Op(shader[at] & 0xffff) == op) ++n;
    at += words;
  }
  return n;
}

TEST(ByteArena, NarrowLocalStoresAreByteStoresUnlessTheKernelHasALocalAtomic) {
  for (const char* options : {"-cl-std=CL3.0", "-cl-std=CL3.0 -cl-opt-disable"}) {
    SCOPED_TRACE(options);
    compiler::DeviceFeatures features;
    features.features = {"__opencl_c_int64", "__opencl_c_generic_address_space"};
    auto compiled = compiler::compile(kSource, options, features);
    ASSERT_TRUE(compiled.ok) << compiled.log;
    for (bool int8 : {true, false}) {
      SCOPED_TRACE(int8 ? "with shaderInt8" : "without shaderInt8");
      k2s::TargetCaps caps;
      caps.int8 = caps.storage8 = int8;
      caps.int16 = caps.storage16 = true;
      k2s::TranslateResult r = k2s::translate(compiled.spirv, caps);
      ASSERT_TRUE(r.ok) << r.log;
      ASSERT_EQ(r.kernels.size(), 2u);
      for (const k2s::TranslatedKernel& k : r.kernels) {
        const bool bytes = int8 && k.interface.name == "bytes";
        const int atomics = count(k.shader, spv::Op::OpAtomicAnd) + count(k.shader, spv::Op::OpAtomicOr);
        if (bytes) EXPECT_EQ(atomics, 0) << k.interface.name;
        else EXPECT_GT(atomics, 0) << k.interface.name;  // its byte and short stores merge into words
      }
    }
  }
}

}  // namespace
}  // namespace vkcl
